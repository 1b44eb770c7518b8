//! Every configuration key, set through each way the command line has (`--set`, the
//! environment, a TOML file) to a valid value other than its default and read back with
//! `lro config show`; a bad value is refused with exit 78, naming the key. The keys come from
//! `lro config keys --json`, the core's table, so a new key is tested without a new line here.

use serde_json::Value;

use crate::support::run::{lro, stdout_json};

fn keys() -> Vec<Value> {
    match stdout_json(&lro(&["config", "keys", "--json"], "", &[])) {
        Value::Array(keys) => keys,
        other => panic!("not a list of keys: {other}"),
    }
}

/// The value as the environment and `--set` write it: a string's text, a list comma-separated.
fn text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| item.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

/// The value of a dotted key in `lro config show`'s output.
fn shown<'a>(config: &'a Value, name: &str) -> &'a Value {
    name.split('.').fold(config, |value, part| &value[part])
}

#[test]
fn every_key_is_set_by_set_the_environment_and_a_file() {
    let keys = keys();
    assert!(keys.len() >= 20, "{} keys", keys.len());
    let dir = tempfile::tempdir().unwrap();
    for key in &keys {
        let name = key["name"].as_str().unwrap();
        let sample = &key["sample"];
        assert_ne!(sample, &key["default"], "{name}");
        let set = format!("{name}={}", text(sample));
        let by_flag = stdout_json(&lro(&["config", "show", "--set", &set], "", &[]));
        assert_eq!(shown(&by_flag, name), sample, "--set {set}");
        let value = text(sample);
        let env = [(key["env"].as_str().unwrap(), value.as_str())];
        let by_env = stdout_json(&lro(&["config", "show"], "", &env));
        assert_eq!(shown(&by_env, name), sample, "{env:?}");
        let file = dir.path().join("lro.toml");
        let leaf = name.rsplit('.').next().unwrap();
        std::fs::write(
            &file,
            format!("[{}]\n{leaf} = {sample}\n", key["toml"].as_str().unwrap()),
        )
        .unwrap();
        let by_file = stdout_json(&lro(
            &["config", "show", "--config", file.to_str().unwrap()],
            "",
            &[],
        ));
        assert_eq!(shown(&by_file, name), sample, "{name} from a file");
    }
}

#[test]
fn a_bad_value_of_every_key_is_refused_naming_it() {
    for key in keys() {
        let name = key["name"].as_str().unwrap();
        // Any text is a valid string or list of names: only typed sources refuse those.
        let free_text = key["type"] == "array" || (key["type"] == "string" && key["bounds"] == "");
        if free_text {
            continue;
        }
        let set = format!("{name}={}", text(&key["bad"]));
        let out = lro(&["config", "show", "--set", &set], "", &[]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(78), "--set {set}: {stderr}");
        assert!(
            stderr.contains("invalid_config") && stderr.contains(&format!("prompt.offload.{name}")),
            "--set {set}: {stderr}"
        );
    }
}
