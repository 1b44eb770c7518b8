//! Every recipe of every offloaded vector runs for real under the system `jq` (Debian's jq
//! 1.6 in CI), through `sh -c` exactly as an agent would paste it: no recipe may fail, and
//! the outputs are checked against what the records say.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use lro_core::recipes::{MifExamples, mif_recipes};
use lro_core::{Detail, OffloadConfig, OffloadRequest, Offloader, Outcome, StdHost};
use serde_json::{Value, json};

fn jq_available() {
    let out = Command::new("jq")
        .arg("--version")
        .output()
        .expect("jq is required for the recipe tests: apt-get install jq");
    assert!(out.status.success());
}

/// Runs a recipe command; returns its stdout lines.
fn run(command: &str) -> Vec<String> {
    let out = Command::new("sh").arg("-c").arg(command).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.is_empty(),
        "recipe failed: {command}\n{stderr}"
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Parses jq's pretty-printed output stream into values.
fn values(lines: &[String]) -> Vec<Value> {
    let text = lines.join("\n");
    serde_json::Deserializer::from_str(&text)
        .into_iter::<Value>()
        .map(Result::unwrap)
        .collect()
}

fn str_field<'a>(r: &'a Value, f: &str) -> &'a str {
    r.get(f).and_then(Value::as_str).unwrap_or("")
}

fn check_mif(detail: Detail, records: &[Value], commands: &[String]) {
    let examples = MifExamples::from_records(lro_core::offload::sample(records));
    let recipes = mif_recipes(detail, &examples);
    let example = |n: usize| recipes[n - 1].params[0].example.clone();
    let n = records.len();
    assert_eq!(run(&commands[0]).len(), n, "#1 one line per record");
    let ns = example(2);
    let want = records
        .iter()
        .filter(|r| str_field(r, "namespace").starts_with(&ns))
        .count();
    let got = values(&run(&commands[1]));
    assert_eq!(got.len(), want, "#2");
    assert!(
        got.iter()
            .all(|r| str_field(r, "namespace").starts_with(&ns))
    );
    let want = records
        .iter()
        .filter(|r| str_field(r, "title").to_lowercase().contains("keyword"))
        .count();
    assert_eq!(values(&run(&commands[2])).len(), want, "#3");
    let got = values(&run(&commands[3]));
    assert_eq!(got.len(), n, "#4");
    assert!(got.iter().all(|r| {
        r.as_object()
            .unwrap()
            .keys()
            .eq(["id", "title", "namespace"].iter())
    }));
    let ty = example(5);
    let want = records
        .iter()
        .filter(|r| str_field(r, "memory_type") == ty)
        .count();
    assert_eq!(values(&run(&commands[4])).len(), want, "#5");
    let groups = values(&run(&commands[5])).remove(0);
    let total: u64 = groups
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["count"].as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, n, "#6 counts add up");
    let tag = example(7);
    let want = records
        .iter()
        .filter(|r| {
            r.get("tags")
                .and_then(Value::as_array)
                .is_some_and(|t| t.iter().any(|x| x == &json!(tag)))
        })
        .count();
    assert_eq!(values(&run(&commands[6])).len(), want, "#7");
    let sorted = values(&run(&commands[7])).remove(0);
    assert_eq!(sorted.as_array().unwrap().len(), n, "#8");
    let created: Vec<&Value> = sorted
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["created"])
        .collect();
    assert!(
        created
            .windows(2)
            .all(|w| w[0].is_null() || w[0].as_str() <= w[1].as_str()),
        "#8 sorted"
    );
    match detail {
        Detail::Light => {
            let unique = values(&run(&commands[8])).remove(0);
            let want: BTreeSet<&str> = records
                .iter()
                .filter_map(|r| r.get("namespace")?.as_str())
                .collect();
            let got: BTreeSet<&str> = unique
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .collect();
            assert_eq!(got, want, "#9 light");
            let groups = values(&run(&commands[9])).remove(0);
            let total: u64 = groups
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["count"].as_u64().unwrap())
                .sum();
            assert_eq!(total as usize, n, "#10 light");
        }
        Detail::Medium | Detail::Full => {
            let by_confidence = values(&run(&commands[8])).remove(0);
            assert_eq!(by_confidence.as_array().unwrap().len(), n, "#9");
            let want = records
                .iter()
                .filter(|r| str_field(r, "content").to_lowercase().contains("keyword"))
                .count();
            assert_eq!(values(&run(&commands[9])).len(), want, "#10");
        }
    }
}

/// Offloads one vector and runs its ten recipes; false when the vector offloads nothing
/// (inline results have no recipes).
fn check_vector(path: &Path, vector: &Value) -> bool {
    let tmp = tempfile::tempdir().unwrap();
    let mut config = OffloadConfig::from_json(&vector["config"]).unwrap();
    config.output_dir = tmp.path().to_string_lossy().into_owned();
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let Outcome::Offloaded(response) = lro
        .offload(
            &vector["input"],
            &OffloadRequest::from_json(&vector["request"]).unwrap(),
        )
        .unwrap()
    else {
        return false;
    };
    let commands: Vec<String> = response
        .jq_recipes
        .iter()
        .map(|r| r.command.clone())
        .collect();
    assert_eq!(commands.len(), 10);
    let body = fs::read_to_string(&response.file_path).unwrap();
    let records: Vec<Value> = body
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    match response.summary.detail.parse::<Detail>() {
        Ok(detail) => check_mif(detail, &records, &commands),
        Err(_) => {
            // Raw data: every recipe runs cleanly and yields JSON (or raw lines for #1,
            // which lists the first section's records: all of them in a plain file).
            let listed = response.sections.first().map_or(records.len(), |s| s.count);
            assert_eq!(run(&commands[0]).len(), listed, "{}: #1", path.display());
            for command in &commands[1..] {
                let output = run(command);
                if !command.contains("| jq -r") {
                    values(&output);
                }
            }
        }
    }
    true
}

#[test]
fn every_recipe_of_every_vector_runs_under_system_jq() {
    jq_available();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/vectors");
    let mut paths: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    let vectors: Vec<(PathBuf, Value)> = paths
        .into_iter()
        .map(|path| {
            let vector = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            (path, vector)
        })
        .filter(|(_, vector): &(PathBuf, Value)| {
            vector["call"] == "offload"
                && vector["expect"].get("error").is_none()
                && vector["config"].get("output_dir").is_none()
        })
        .collect();
    // About 1,800 jq processes, each mostly starting up: the vectors are shared out to a few
    // threads so that one waits on its process while another's runs. A failed assertion
    // panics its thread, and the scope panics with it when it ends.
    let next = AtomicUsize::new(0);
    let ran = AtomicUsize::new(0);
    thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                while let Some((path, vector)) = vectors.get(next.fetch_add(1, Ordering::Relaxed)) {
                    if check_vector(path, vector) {
                        ran.fetch_add(1, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let ran = ran.into_inner();
    assert!(
        ran >= 15,
        "only {ran} offloaded vectors had their recipes run"
    );
}
