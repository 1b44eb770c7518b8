//! Runs every conformance vector in `tests/vectors/` against the Rust crates (lro-core, and
//! lro-mcp for the interceptor and resources vectors; StdHost, real files), following the
//! rules of `tests/vectors/README.md`. It lives in lro-mcp, the crate that sees them all.
//!
//! `LRO_BLESS=1` writes the outputs as the new expectations (review the diff before committing).

use std::fs;
use std::path::{Path, PathBuf};

use lro_core::{ErrorCode, LroError, OffloadConfig, OffloadRequest, Offloader, Outcome, StdHost};
use lro_mcp::ToolCallContext;
use lro_mcp::resources::resource_templates;
use serde_json::{Map, Value, json};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors")
}

/// Replaces `dir` and ULIDs in every string, and the value of every `warning` key.
fn normalise(value: &Value, dir: &str) -> Value {
    match value {
        Value::String(s) => Value::String(normalise_str(s, dir)),
        Value::Array(items) => Value::Array(items.iter().map(|v| normalise(v, dir)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = match k.as_str() {
                        "warning" if v.is_string() => json!("{warning}"),
                        "age_seconds" if v.is_number() => json!(0),
                        _ => normalise(v, dir),
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

fn normalise_str(s: &str, dir: &str) -> String {
    let s = s.replace(dir, "{dir}");
    // ULIDs: 26 Crockford base32 characters (no I, L, O, U), not part of a longer run.
    let is_ulid_char =
        |c: u8| c.is_ascii_digit() || (c.is_ascii_uppercase() && !b"ILOU".contains(&c));
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..].iter().take_while(|&&c| is_ulid_char(c)).count();
        if run == 26 && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            out.push_str("{ulid}");
            i += 26;
        } else if run > 0 {
            out.push_str(&s[i..i + run]);
            i += run;
        } else {
            let ch = s[i..].chars().next().unwrap_or('\u{fffd}');
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// `resources` vectors: every ISO 8601 UTC timestamp in a string (the header line's, a
/// description's "written ...") becomes `{timestamp}`.
fn normalise_timestamps(value: &Value) -> Value {
    let timestamp = regex::Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z").unwrap();
    match value {
        Value::String(s) => json!(timestamp.replace_all(s, "{timestamp}")),
        Value::Array(items) => Value::Array(items.iter().map(normalise_timestamps).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), normalise_timestamps(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn normalise_header(line: &str) -> String {
    match line.find("\"timestamp\":\"") {
        Some(start) => {
            let value_start = start + "\"timestamp\":\"".len();
            let end = value_start + line[value_start..].find('"').unwrap_or(0);
            format!("{}{{timestamp}}{}", &line[..value_start], &line[end..])
        }
        None => line.to_owned(),
    }
}

struct Run {
    outcome: Value,
    file: Option<String>,
}

fn offloader(config: OffloadConfig) -> Result<Offloader<StdHost>, LroError> {
    Offloader::new(config, StdHost::new())
}

fn run(vector: &Value, dir: &str) -> Result<Run, LroError> {
    let call = vector["call"].as_str().unwrap();
    let input = &vector["input"];
    let mut config_json = vector["config"].clone();
    let output_dir = config_json
        .get("output_dir")
        .and_then(Value::as_str)
        .map_or(dir.to_owned(), |d| d.replace("{dir}", dir));
    config_json["output_dir"] = json!(output_dir);
    let request = || OffloadRequest::from_json(&vector["request"]);
    let file_of = |outcome: &Outcome| outcome.offloaded().map(|r| r.file_path.clone());
    match call {
        "config_toml" => {
            let config = OffloadConfig::from_toml_str(input.as_str().unwrap())?;
            Ok(Run {
                outcome: serde_json::to_value(config).unwrap(),
                file: None,
            })
        }
        "config_env" => {
            let mut config = OffloadConfig::default();
            let vars: Vec<(String, String)> = input
                .as_object()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_owned()))
                .collect();
            config.apply_env(vars)?;
            Ok(Run {
                outcome: serde_json::to_value(config).unwrap(),
                file: None,
            })
        }
        _ => {
            let lro = offloader(OffloadConfig::from_json(&config_json)?)?;
            match call {
                "offload" => {
                    let outcome = lro.offload(input, &request()?)?;
                    Ok(Run {
                        file: file_of(&outcome),
                        outcome: outcome.to_value(),
                    })
                }
                "offload_json" => {
                    let outcome =
                        lro.offload_json(input.as_str().unwrap().as_bytes(), &request()?)?;
                    Ok(Run {
                        file: file_of(&outcome),
                        outcome: outcome.to_value(),
                    })
                }
                "offload_lines" => {
                    let lines = lro_core::jsonl::Body::of_values(input.as_array().unwrap());
                    let outcome = lro.offload_lines(lines, &request()?)?;
                    Ok(Run {
                        file: file_of(&outcome),
                        outcome: outcome.to_value(),
                    })
                }
                "offload_inject" => {
                    let outcome = lro.offload_inject(
                        input["formatted"].as_str().unwrap(),
                        &input["pre_budget"],
                        &request()?,
                    )?;
                    Ok(Run {
                        file: file_of(&outcome),
                        outcome: outcome.to_value(),
                    })
                }
                "intercept" => {
                    let context = ToolCallContext::from_json(&input["context"])?;
                    let intercepted =
                        lro_mcp::intercept_tool_result(&lro, &input["result"], &context)?;
                    let file = intercepted.response.as_ref().map(|r| r.file_path.clone());
                    Ok(Run {
                        outcome: serde_json::to_value(intercepted).unwrap(),
                        file,
                    })
                }
                "cleanup" => Ok(Run {
                    outcome: serde_json::to_value(lro.cleanup()?).unwrap(),
                    file: None,
                }),
                "extract" => {
                    let outcome = lro.offload(input, &request()?)?;
                    let written = file_of(&outcome).expect("extract vectors must offload");
                    let path = vector
                        .get("extract_path")
                        .and_then(Value::as_str)
                        .map_or(written, |p| p.replace("{dir}", dir));
                    let extract_request: lro_core::ExtractRequest =
                        lro_core::offload::from_json_value(&vector["extract"], "extract request")?;
                    let response = lro.extract(&path, &extract_request)?;
                    Ok(Run {
                        outcome: serde_json::to_value(response).unwrap(),
                        file: None,
                    })
                }
                "resources" => {
                    let outcome = lro.offload(input, &request()?)?;
                    let written = file_of(&outcome).expect("resources vectors must offload");
                    let file = Path::new(&written).file_name().unwrap().to_string_lossy();
                    let op = &vector["resources"];
                    let text = |key: &str| op[key].as_str().map(|s| s.replace("{file}", &file));
                    let outcome = match op["method"].as_str().unwrap() {
                        "list" => serde_json::to_value(lro_mcp::list_resources(
                            &lro,
                            text("cursor").as_deref(),
                        )?),
                        "read" => serde_json::to_value(lro_mcp::read_resource(
                            &lro,
                            &text("uri").unwrap(),
                        )?),
                        "templates" => Ok(json!({"resourceTemplates": resource_templates()})),
                        "extract" => {
                            let request: lro_core::ExtractRequest =
                                lro_core::offload::from_json_value(
                                    &op["extract"],
                                    "extract request",
                                )?;
                            serde_json::to_value(lro.extract(&text("uri").unwrap(), &request)?)
                        }
                        other => panic!("unknown resources method {other}"),
                    };
                    Ok(Run {
                        outcome: outcome.unwrap(),
                        file: None,
                    })
                }
                "handles" => {
                    let outcome = lro.offload(input, &request()?)?;
                    let written = file_of(&outcome).expect("handles vectors must offload");
                    let file = Path::new(&written).file_name().unwrap().to_string_lossy();
                    let uri = lro_mcp::resources::uri_for(&file);
                    let arguments = placed(
                        &vector["handles"]["arguments"],
                        &[("{uri}", &uri), ("{path}", &written), ("{dir}", dir)],
                    );
                    let cancel = std::sync::atomic::AtomicBool::new(false);
                    let outcome = match lro_mcp::handles::resolve(&lro, &arguments, &cancel) {
                        Ok(resolved) => json!({"arguments": resolved.unwrap_or(arguments)}),
                        Err(err) => json!({"error": err.code().as_str(), "path": err.path}),
                    };
                    Ok(Run {
                        outcome,
                        file: None,
                    })
                }
                other => panic!("unknown call {other}"),
            }
        }
    }
}

/// `value` with each placeholder replaced in every string.
fn placed(value: &Value, placeholders: &[(&str, &str)]) -> Value {
    match value {
        Value::String(s) => Value::String(
            placeholders
                .iter()
                .fold(s.clone(), |s, (from, to)| s.replace(from, to)),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| placed(v, placeholders)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), placed(v, placeholders)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Runs `vector` in a fresh directory: its normalised outcome, file lines and listing.
fn produce(vector: &Value) -> Result<Map<String, Value>, String> {
    let tmp = tempfile::tempdir().unwrap();
    let dir = fs::canonicalize(tmp.path()).unwrap();
    if let Some(files) = vector.pointer("/setup/files").and_then(Value::as_object) {
        for (name, content) in files {
            fs::write(dir.join(name), content.as_str().unwrap()).unwrap();
        }
    }
    let dir_str = dir.to_string_lossy().into_owned();
    let mut produced = Map::new();
    match run(vector, &dir_str) {
        Err(err) => {
            produced.insert("error".into(), json!(err.code().as_str()));
        }
        Ok(run) => {
            let mut outcome = normalise(&run.outcome, &dir_str);
            if vector["call"] == "resources" {
                outcome = normalise_timestamps(&outcome);
            }
            produced.insert("outcome".into(), outcome);
            if let Some(file) = run.file {
                let body =
                    fs::read_to_string(&file).map_err(|e| format!("cannot read {file}: {e}"))?;
                let lines: Vec<Value> = body
                    .lines()
                    .enumerate()
                    .map(|(i, l)| {
                        json!(if i == 0 {
                            normalise_header(l)
                        } else {
                            l.to_owned()
                        })
                    })
                    .collect();
                produced.insert("jsonl".into(), Value::Array(lines));
            }
            if vector["call"] == "cleanup" {
                let mut names: Vec<String> = fs::read_dir(&dir)
                    .unwrap()
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .collect();
                names.sort();
                produced.insert("remaining".into(), json!(names));
            }
        }
    }
    Ok(produced)
}

/// An `offload` vector as the other calls that must give the same result: `offload_json`
/// on its input as text (pretty-printed, so the text path has whitespace to drop) and, for
/// arrays, `offload_lines` on its records written one per line.
fn other_ways_in(vector: &Value) -> Vec<Value> {
    let mut calls = Vec::new();
    if vector["call"] == "offload" {
        let mut text = vector.clone();
        text["call"] = json!("offload_json");
        text["input"] = json!(serde_json::to_string_pretty(&vector["input"]).unwrap());
        calls.push(text);
        if vector["input"].is_array() {
            let mut lines = vector.clone();
            lines["call"] = json!("offload_lines");
            calls.push(lines);
        }
    }
    calls
}

fn check(path: &Path, bless: bool) -> Result<(), String> {
    let text = fs::read_to_string(path).unwrap();
    let mut vector: Value = serde_json::from_str(&text).map_err(|e| format!("bad vector: {e}"))?;
    // A build without the BPE vocabularies (the wasm builds) must produce what the vector
    // expects of such a build (the refusal), when it says.
    let tokenizers = lro_core::estimate::EstimatorKind::O200k.available();
    let expect = match vector.get("expect_no_tokenizer") {
        Some(refusal) if !tokenizers => refusal.clone(),
        _ => vector["expect"].clone(),
    };
    let produced = produce(&vector)?;
    // Every way into the core must give the same files and descriptors.
    for other in other_ways_in(&vector) {
        let via_other = produce(&other)?;
        if via_other != produced {
            return Err(format!(
                "{} differs from offload\n--- offload\n{}\n--- {0}\n{}",
                other["call"],
                serde_json::to_string_pretty(&produced).unwrap(),
                serde_json::to_string_pretty(&via_other).unwrap()
            ));
        }
    }
    if bless && tokenizers {
        // An expected error or remaining listing written by the generator is a requirement,
        // not an output: blessing must not overwrite it with something else.
        for key in ["error", "remaining"] {
            if let Some(required) = expect.get(key) {
                if produced.get(key) != Some(required) {
                    return Err(format!(
                        "{key}: required {required}, produced {:?}",
                        produced.get(key)
                    ));
                }
            }
        }
        vector["expect"] = Value::Object(produced);
        fs::write(path, serde_json::to_string_pretty(&vector).unwrap() + "\n").unwrap();
        return Ok(());
    }
    let Value::Object(expect) = expect else {
        return Err("no expect".into());
    };
    if expect.is_empty() {
        return Err("vector has no expectations (bless it)".into());
    }
    for (key, want) in &expect {
        let got = produced.get(key).unwrap_or(&Value::Null);
        if got != want {
            return Err(format!(
                "{key} differs\n--- expected\n{}\n--- produced\n{}",
                serde_json::to_string_pretty(want).unwrap(),
                serde_json::to_string_pretty(got).unwrap()
            ));
        }
    }
    for key in produced.keys() {
        if !expect.contains_key(key) {
            return Err(format!("produced {key} that the vector does not expect"));
        }
    }
    Ok(())
}

#[test]
fn conformance_vectors() {
    let bless = std::env::var_os("LRO_BLESS").is_some();
    let mut paths: Vec<PathBuf> = fs::read_dir(vectors_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .filter(|p| {
            std::env::var("LRO_VECTOR").is_ok_and(|only| p.to_string_lossy().contains(&only))
                || std::env::var_os("LRO_VECTOR").is_none()
        })
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 30 || std::env::var_os("LRO_VECTOR").is_some(),
        "expected at least 30 vectors, found {}",
        paths.len()
    );
    let failures: Vec<String> = paths
        .iter()
        .filter_map(|p| {
            check(p, bless)
                .err()
                .map(|e| format!("{}: {e}", p.file_name().unwrap().to_string_lossy()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} vectors failed:\n{}",
        failures.len(),
        paths.len(),
        failures.join("\n\n")
    );
}

#[test]
fn error_codes_are_stable_strings() {
    let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(
        codes,
        [
            "invalid_config",
            "invalid_input",
            "invalid_detail",
            "invalid_operation",
            "invalid_argument",
            "invalid_query",
            "query_failed",
            "resource_limit",
            "path_denied",
            "not_found",
            "io_error"
        ]
    );
}
