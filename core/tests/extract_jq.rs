//! Native extraction gives what `tail -n +2 FILE | jq ...` gives, with the system jq.
//!
//! Every recipe of every descriptor is run both ways over files written by `offload`: MIF
//! memories at each detail level, a non-MIF array, plain text, scalars, and records with null
//! and missing fields. Outputs are compared as JSON values (numbers by value), and raw
//! (`-r`) outputs line by line.

use std::path::Path;
use std::process::Command;

use lro_core::recipes::{MifExamples, mif_recipes, shell_quote};
use lro_core::{
    Detail, ExtractLimits, ExtractRequest, OffloadConfig, OffloadRequest, OffloadResponse,
    Offloader, StdHost,
};
use serde_json::{Value, json};

const JQ: &str = "/usr/bin/jq";

fn jq_available() {
    assert!(
        Path::new(JQ).exists(),
        "{JQ} is missing: the jq-equivalence tests need the system jq (Debian: apt-get install jq)"
    );
}

/// Runs a shell command line made of `tail` and the system jq; returns stdout.
fn shell(command: &str) -> String {
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(command)
        .env("PATH", "/usr/bin:/bin")
        .output()
        .expect("run /bin/sh");
    assert!(
        out.status.success(),
        "{command} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("jq prints UTF-8")
}

/// Numbers compared by value: jq 1.6 prints `1.0` as `1` and rounds every number to a
/// double; LRO keeps a number's text when a filter passes it through (as jq 1.7 does).
fn normalize(value: &Value) -> Value {
    match value {
        Value::Number(n) => json!(n.as_f64()),
        Value::Array(items) => Value::Array(items.iter().map(normalize).collect()),
        Value::Object(map) => {
            Value::Object(map.iter().map(|(k, v)| (k.clone(), normalize(v))).collect())
        }
        other => other.clone(),
    }
}

fn parse_stream(text: &str) -> Vec<Value> {
    serde_json::Deserializer::from_str(text)
        .into_iter::<Value>()
        .map(|v| normalize(&v.expect("jq output is JSON")))
        .collect()
}

/// Compares extract's results with jq's stdout.
fn assert_same(what: &str, raw: bool, ours: &[Value], jq_out: &str) {
    if raw {
        let mut lines = Vec::new();
        for v in ours {
            match v {
                Value::String(s) => lines.extend(s.split('\n').map(str::to_owned)),
                other => lines.push(other.to_string()),
            }
        }
        let theirs: Vec<String> = jq_out.lines().map(str::to_owned).collect();
        // A line that is a number (`tostring` of `3.0`: jq 1.6 says `3`, LRO `3.0`, as jq 1.7)
        // is compared by value; every other line byte for byte.
        let by_value = |line: &String| match serde_json::from_str::<Value>(line) {
            Ok(number @ Value::Number(_)) => normalize(&number).to_string(),
            _ => line.clone(),
        };
        assert_eq!(
            lines.iter().map(by_value).collect::<Vec<_>>(),
            theirs.iter().map(by_value).collect::<Vec<_>>(),
            "{what}: raw output differs"
        );
    } else {
        let ours: Vec<Value> = ours.iter().map(normalize).collect();
        assert_eq!(ours, parse_stream(jq_out), "{what}: output differs");
    }
}

fn offloader(dir: &Path) -> Offloader<StdHost> {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        threshold_tokens: 10,
        ..OffloadConfig::default()
    };
    Offloader::new(config, StdHost::new()).unwrap()
}

fn offload(
    lro: &Offloader<StdHost>,
    value: &Value,
    operation: &str,
    detail: Option<Detail>,
) -> OffloadResponse {
    let request = OffloadRequest {
        detail,
        ..OffloadRequest::new(operation)
    };
    let outcome = lro.offload(value, &request).unwrap();
    outcome.offloaded().expect("above the threshold").clone()
}

/// MIF memories with every kind of gap: missing and null titles, tags and confidences.
fn memories() -> Value {
    let namespaces = [
        "_semantic/decisions",
        "_semantic/knowledge",
        "_episodic/sessions",
        "_procedural/runbooks",
    ];
    let types = ["semantic", "episodic", "procedural"];
    let mut out = Vec::new();
    for i in 0..60 {
        let mut m = json!({
            "id": format!("mem-{i:03}"),
            "memory_type": types[i % 3],
            "title": format!("Decision {i}: caching layer for the {} service", ["Auth", "billing", "search"][i % 3]),
            "namespace": namespaces[i % 4],
            "tags": [format!("t{}", i % 5), "architecture"],
            "status": "active",
            "created": format!("2025-0{}-{:02}T10:00:00Z", 1 + i % 9, 1 + (i * 7) % 28),
            "modified": "2025-10-01T00:00:00Z",
            "content": format!("Content {i}: we cache results for {} seconds. Unicode: é ü 日本", i * 10),
            "summary": format!("Summary {i}"),
            "provenance": {"source": "test", "confidence": (i % 10) as f64 / 10.0 + 0.05},
        });
        let obj = m.as_object_mut().unwrap();
        match i % 11 {
            1 => {
                obj.remove("title");
            }
            2 => {
                obj.insert("title".into(), Value::Null);
            }
            3 => {
                obj.remove("tags");
            }
            4 => {
                obj.insert("tags".into(), Value::Null);
            }
            5 => {
                obj.remove("provenance");
            }
            6 => {
                obj.remove("content");
            }
            7 => {
                obj.insert("namespace".into(), Value::Null);
            }
            8 => {
                obj.remove("created");
            }
            _ => {}
        }
        out.push(m);
    }
    Value::Array(out)
}

fn entities() -> Value {
    let kinds = ["person", "city", "company"];
    Value::Array(
        (0..50)
            .map(|i| {
                let mut e = json!({
                    "name": format!("Entity {i}"),
                    "entityType": kinds[i % 3],
                    "observations": [format!("obs {}", i % 4), "shared"],
                    "weight": (i * 37 % 100) as f64 / 4.0,
                    "updated": format!("2024-{:02}-01", 1 + i % 12),
                });
                if i % 7 == 0 {
                    e.as_object_mut().unwrap().remove("weight");
                }
                if i % 9 == 0 {
                    e["observations"] = Value::Null;
                }
                e
            })
            .collect(),
    )
}

fn sparse_records() -> Value {
    Value::Array(
        (0..40)
            .map(|i| match i % 4 {
                0 => json!({"key": format!("k{i}"), "group": "a", "value": i}),
                1 => json!({"key": format!("k{i}"), "group": null, "value": null}),
                2 => json!({"key": format!("k{i}"), "group": "b"}),
                _ => json!({"key": null, "group": "a", "value": i as f64 + 0.5, "extra": {"nested": [1, 2]}}),
            })
            .collect(),
    )
}

fn text() -> Value {
    Value::from(
        (0..80)
            .map(|i| {
                format!(
                    "2025-01-01 12:{:02} {} request {i} took {}ms \"quoted\"\ttab",
                    i % 60,
                    ["INFO", "WARN", "ERROR"][i % 3],
                    i * 3
                )
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

fn scalars() -> Value {
    Value::Array(
        (0..120)
            .map(|i| match i % 5 {
                0 => json!(i),
                1 => json!(format!("word {i}")),
                2 => Value::Null,
                3 => json!(i % 2 == 0),
                _ => json!(i as f64 / 8.0),
            })
            .collect(),
    )
}

/// Every recipe of `descriptor`, with its example parameters, both ways.
fn check_all_recipes(lro: &Offloader<StdHost>, descriptor: &OffloadResponse, label: &str) {
    assert_eq!(descriptor.jq_recipes.len(), 10);
    for (i, recipe) in descriptor.jq_recipes.iter().enumerate() {
        let number = (i + 1) as u8;
        let request = ExtractRequest {
            recipe: Some(number),
            ..ExtractRequest::default()
        };
        let ours = lro
            .extract(&descriptor.file_path, &request)
            .unwrap_or_else(|e| panic!("{label} #{number}: {e}"));
        assert!(
            !ours.truncated,
            "{label} #{number} truncated: {:?}",
            ours.limit
        );
        let raw = recipe.command.contains("jq -r");
        assert_same(
            &format!("{label} recipe #{number} ({})", recipe.command),
            raw,
            &ours.results,
            &shell(&recipe.command),
        );
    }
}

#[test]
fn every_recipe_matches_jq_on_mif_memories_at_each_detail() {
    jq_available();
    let dir = tempfile::tempdir().unwrap();
    let lro = offloader(dir.path());
    let data = memories();
    for detail in [Detail::Light, Detail::Medium, Detail::Full] {
        let descriptor = offload(&lro, &data, "recall", Some(detail));
        assert_eq!(descriptor.summary.detail, detail.as_str());
        check_all_recipes(&lro, &descriptor, detail.as_str());
    }
}

#[test]
fn every_recipe_matches_jq_on_a_file_of_many_batches() {
    // Record filters run in batches on worker threads, slurping recipes parse in parallel:
    // the output must still be jq's, in jq's order. 3,000 memories are some 15 batches.
    jq_available();
    let dir = tempfile::tempdir().unwrap();
    let config = OffloadConfig {
        output_dir: dir.path().to_string_lossy().into_owned(),
        threshold_tokens: 10,
        // Slurping recipes print every record at once: more than the default output limit.
        extract: ExtractLimits {
            max_output_bytes: 64 << 20,
            // Compared with jq, not timed: a debug build on a busy machine may take longer
            // than the default 10 s over 3,000 memories.
            timeout_ms: 600_000,
            ..ExtractLimits::default()
        },
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let base = memories();
    let base = base.as_array().unwrap();
    let many: Vec<Value> = (0..3000)
        .map(|i| {
            let mut m = base[i % base.len()].clone();
            m["id"] = json!(format!("mem-{i:05}"));
            if let Some(title) = m.get("title").and_then(Value::as_str) {
                m["title"] = json!(format!("{title} #{i}"));
            }
            m
        })
        .collect();
    for detail in [Detail::Light, Detail::Full] {
        let descriptor = offload(&lro, &Value::Array(many.clone()), "recall", Some(detail));
        check_all_recipes(&lro, &descriptor, &format!("3,000 at {}", detail.as_str()));
    }
}

#[test]
fn every_recipe_matches_jq_on_raw_data() {
    jq_available();
    let dir = tempfile::tempdir().unwrap();
    let lro = offloader(dir.path());
    for (label, data) in [
        ("entities", entities()),
        ("sparse", sparse_records()),
        ("text", text()),
        ("scalars", scalars()),
    ] {
        let descriptor = offload(&lro, &data, "tool", None);
        assert_eq!(descriptor.summary.detail, "raw", "{label}");
        check_all_recipes(&lro, &descriptor, label);
    }
    // An object holding one large array: its elements are the records.
    let envelope = json!({"total": 50, "entities": entities()});
    check_all_recipes(
        &lro,
        &offload(&lro, &envelope, "read_graph", None),
        "envelope",
    );
}

/// Results shaped as real tools return them: each recipe, read natively, gives what its
/// shell command (`tail -n +2` or `sed -n 'A,Bp'`, then jq 1.6) gives.
#[test]
fn every_recipe_matches_jq_on_the_shapes_of_real_results() {
    jq_available();
    let dir = tempfile::tempdir().unwrap();
    let lro = offloader(dir.path());
    let relations: Vec<Value> = (0..60)
        .map(|i| json!({"from": format!("entity-{i}"), "to": format!("entity-{}", (i * 7) % 60), "relationType": if i % 2 == 0 { "owns" } else { "uses" }}))
        .collect();
    let graph = json!({"entities": entities(), "relations": relations, "log": text()});
    let tree = json!([{"name": "app", "type": "dir", "children": (0..30).map(|i| json!({
        "name": format!("m{i}"), "type": "dir",
        "children": [{"name": format!("f{i}.ts"), "type": "file"}, {"name": format!("g{i}.md"), "type": "file"}]
    })).collect::<Vec<_>>()}]);
    let rows: Vec<Value> = (0..80)
        .map(|i| {
            let region = ["amer", "emea", "apac"][i % 3];
            json!([i, region, format!("cust-{i}"), i as f64 * 1.5, i % 2 == 0])
        })
        .collect();
    let literal = format!(
        "[{}]",
        (0..80)
            .map(|i| format!(
                "{{'id': {i}, 'region': '{}', 'name': \"O'Brien {i}\", 'none': None}}",
                ["amer", "emea"][i % 2]
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let csv = format!(
        "id,region,amount\n{}",
        (0..80)
            .map(|i| format!("{i},{},{}.5\n", ["amer", "emea"][i % 2], i))
            .collect::<String>()
    );
    let map: serde_json::Map<String, Value> = (0..40)
        .map(|d| (format!("day-{d:02}"), json!([{"sold": d}, {"sold": d + 1}])))
        .collect();
    for (label, data) in [
        ("graph with text", graph),
        ("tree", tree),
        ("tuples", Value::Array(rows)),
        ("python literal", Value::from(literal)),
        ("csv", Value::from(csv)),
        ("map", Value::Object(map)),
    ] {
        let descriptor = offload(&lro, &data, "tool", None);
        check_all_recipes(&lro, &descriptor, label);
    }
}

#[test]
fn parameters_bind_like_literals_in_the_jq_program() {
    jq_available();
    let dir = tempfile::tempdir().unwrap();
    let lro = offloader(dir.path());
    let data = memories();
    let records = data.as_array().unwrap();
    let descriptor = offload(&lro, &data, "recall", Some(Detail::Medium));
    let recipes = mif_recipes(
        Detail::Medium,
        &MifExamples::from_records(lro_core::offload::sample(records)),
    );
    let cases: [(u8, &str, &str); 6] = [
        (2, "namespace", "_semantic"),
        (3, "keyword", "BILLING"),
        (3, "keyword", "it's \"quoted\" $x"),
        (5, "memory_type", "episodic"),
        (7, "tag", "t3"),
        (10, "keyword", "seconds\\. Unicode"),
    ];
    for (number, name, value) in cases {
        let recipe = &recipes[usize::from(number) - 1];
        let command = format!(
            "tail -n +2 {} | jq{} {}",
            shell_quote(&descriptor.file_path),
            recipe.flags(),
            shell_quote(&recipe.filter_with_literals(&[(name, value)]))
        );
        let request: ExtractRequest =
            serde_json::from_value(json!({"recipe": number, "params": {name: value}})).unwrap();
        let ours = lro.extract(&descriptor.file_path, &request).unwrap();
        assert_same(&command, recipe.raw_output, &ours.results, &shell(&command));
    }
}

#[test]
fn custom_queries_match_jq() {
    jq_available();
    let dir = tempfile::tempdir().unwrap();
    let lro = offloader(dir.path());
    let descriptor = offload(&lro, &memories(), "recall", Some(Detail::Full));
    let queries = [
        ".id",
        "select(.provenance.confidence > 0.5) | {id, c: .provenance.confidence}",
        "{id, n: ((.title // \"\") | length)}",
        "(.title // \"\") | ascii_downcase | split(\" \") | .[0:2]",
        "keys",
        "to_entries | map(.key) | join(\",\")",
        "[.tags[]?] | length",
        "(.namespace // \"none\") | split(\"/\") | first",
        "if .title then .title else \"untitled\" end",
        "select(.tags | index(\"t1\"))? | .id",
        ".content | ascii_downcase? // \"-\"",
        "[paths] | length",
        "del(.provenance) | keys",
        "(.provenance.confidence // 0) * 100 | floor",
        "(.created // \"\") | test(\"^2025-0[1-3]\")",
        "[.id, (.memory_type // \"\")] | @csv",
        "[.id, (.title // \"\")] | @tsv",
        "{a: .id} | tojson",
        "(.tags // []) | map(ascii_upcase) | sort | unique",
        "reduce (.tags // [])[] as $t (0; . + ($t | length))",
        "(.id | ltrimstr(\"mem-\") | tonumber) % 7",
        "[limit(2; (.tags // [])[])]",
        "getpath([\"provenance\", \"source\"])",
        ".title | gsub(\"[0-9]+\"; \"#\")?",
        "(.title // \"\") | sub(\"(?<n>[0-9]+)\"; \"<\\(.n)>\")",
        "with_entries(select(.key | startswith(\"s\")))",
        "[.[] | strings] | length",
        "(.provenance.confidence // 0) | tostring",
        "(.content // \"\") | test(\"UNICODE: É Ü\"; \"i\")",
        "(.title // \"\") | test(\"auth|BILLING\"; \"ix\")",
        // `empty` everywhere a filter can stand: values, paths, updates.
        "[.id, empty, .status]",
        "(empty) |= 1 | .id",
        "(.id, empty) |= \"x\" | .id",
        "[path(empty)]",
        "[paths(empty)]",
        "del(empty) | .id",
        "[.tags[]? | select(. == \"t1\") |= \"T\"]",
        "[limit(1; empty)], first(empty, .id)",
        "try error(\"x\") catch empty",
    ];
    for query in queries {
        let command = format!(
            "tail -n +2 {} | jq -c {}",
            shell_quote(&descriptor.file_path),
            shell_quote(query)
        );
        let request = ExtractRequest {
            query: Some(query.to_owned()),
            ..ExtractRequest::default()
        };
        let ours = lro
            .extract(&descriptor.file_path, &request)
            .unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_same(query, false, &ours.results, &shell(&command));
    }
}
