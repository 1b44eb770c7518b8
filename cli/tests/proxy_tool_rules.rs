//! `lro proxy` under per-tool rules, given by each source: a `[prompt.offload.tools]` table in
//! the `--config` file, `ATLATL_PROMPT__OFFLOAD__TOOLS__*` variables, and `--tool` flags; in
//! front of the mock server.

use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::proxy::{Proxy, descriptor, mock_server};

/// The same three rules, once per source: everything never (`*`), but the `rec*` tools always
/// and with the pointer descriptor (a more specific glob), and `big` never by its own name.
const TOML_RULES: &str = "[prompt.offload.tools.\"*\"]\nmode = \"never\"\n\
    [prompt.offload.tools.\"rec*\"]\nmode = \"always\"\ndescriptor = \"pointer\"\n\
    [prompt.offload.tools.big]\nmode = \"never\"\n";
const TEXT_RULES: [&str; 3] = [
    "*:mode=never",
    "rec*:mode=always,descriptor=pointer",
    "big:mode=never",
];

/// What the rules promise, checked through a proxy started with them.
fn honours_the_rules(mut proxy: Proxy) {
    proxy.initialize(json!({"name": "c", "version": "1"}));
    // `echo` is never offloaded: it keeps its outputSchema.
    let listed = proxy.call(1, "tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let echo = tools.iter().find(|t| t["name"] == "echo").unwrap();
    assert!(echo.get("outputSchema").is_some(), "{echo}");
    // `records`, two small records: offloaded all the same, with the rule's profile.
    let small = proxy.tool(2, "records", json!({"count": 2}));
    let pointer = descriptor(&small);
    assert_eq!(pointer["offloaded"], true, "{small}");
    assert_eq!(pointer["count"], 2);
    assert!(
        pointer.get("jq_recipes").is_none(),
        "pointer profile: {pointer}"
    );
    // `memories`, far above the threshold: untouched under `*`.
    let memories = proxy.tool(3, "memories", json!({"count": 300}));
    let text = memories["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        300
    );
    // `big`, a megabyte: the server's bytes, its `\u00e9` escapes and all.
    proxy.request(
        json!(4),
        "tools/call",
        json!({"name": "big", "arguments": {"mb": 1, "accents": true}}),
    );
    let line = proxy.next_line().unwrap();
    assert!(line.len() > 1_000_000, "{}", line.len());
    assert!(line.contains(r#"r\u00e9cord 7"#), "{}", &line[..300]);
    assert!(!line.contains('\u{e9}'));
    let files = std::fs::read_dir(proxy.dir.path()).unwrap().count();
    assert_eq!(files, 1, "only the records were offloaded");
}

#[test]
fn rules_from_the_config_file_are_honoured() {
    let config = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(config.path(), TOML_RULES).unwrap();
    let path = config.path().to_str().unwrap();
    honours_the_rules(Proxy::start(&["--config", path], &[]));
}

#[test]
fn rules_from_the_environment_are_honoured() {
    let rules = TEXT_RULES.join(";");
    honours_the_rules(Proxy::start(
        &[],
        &[("ATLATL_PROMPT__OFFLOAD__TOOLS__MINE", &rules)],
    ));
}

#[test]
fn rules_from_flags_are_honoured_over_the_environment() {
    let flags: Vec<&str> = TEXT_RULES
        .iter()
        .flat_map(|rule| ["--tool", rule])
        .collect();
    // The environment's rule for `rec*` says never; the flag's key wins.
    honours_the_rules(Proxy::start(
        &flags,
        &[("ATLATL_PROMPT__OFFLOAD__TOOLS__R", "rec*:mode=never")],
    ));
}

#[test]
fn a_bad_rule_stops_the_proxy_naming_its_source() {
    let dir = tempfile::tempdir().unwrap();
    for (flag, env, says) in [
        (
            Some("fs_*:mode=sometimes"),
            None,
            "--tool \"fs_*:mode=sometimes\": invalid value for prompt.offload.tools.\"fs_*\".mode",
        ),
        (
            Some("fs read:mode=never"),
            None,
            "invalid tool pattern \"fs read\"",
        ),
        (
            None,
            Some("fs_*:mood=never"),
            "ATLATL_PROMPT__OFFLOAD__TOOLS__X: unknown key prompt.offload.tools.\"fs_*\".mood",
        ),
    ] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_lro"));
        cmd.arg("proxy").arg("--output-dir").arg(dir.path());
        if let Some(rule) = flag {
            cmd.args(["--tool", rule]);
        }
        cmd.args(["--", "python3"]).arg(mock_server());
        if let Some(rule) = env {
            cmd.env("ATLATL_PROMPT__OFFLOAD__TOOLS__X", rule);
        }
        let out = cmd.stdin(Stdio::null()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert!(stderr.contains(says), "{says}: {stderr}");
    }
}
