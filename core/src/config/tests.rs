use super::*;
use crate::error::ErrorCode;

#[test]
fn defaults_match_the_specification() {
    let c = OffloadConfig::default();
    assert!(c.enabled);
    assert_eq!(c.threshold_tokens, 1600);
    assert_eq!(c.ttl_seconds, 3600);
    assert_eq!(c.output_dir, "");
    assert_eq!(c.file_prefix, "atlatl");
}

#[test]
fn toml_section_then_env_wins() {
    let mut c = OffloadConfig::from_toml_str(
        "[server]\nport = 1\n[prompt.offload]\nenabled = false\nthreshold_tokens = 10\noutput_dir = \"/x\"\n[prompt.offload.extract]\ntimeout_ms = 5\n",
    )
    .unwrap();
    assert!(!c.enabled);
    assert_eq!(c.threshold_tokens, 10);
    assert_eq!(c.extract.timeout_ms, 5);
    c.apply_env([
        ("ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS", "20"),
        ("PATH", "/bin"),
    ])
    .unwrap();
    assert_eq!(c.threshold_tokens, 20);
    c.apply_env([("ATLATL_PROMPT__OFFLOAD__EXTRACT__MAX_OUTPUT_BYTES", "7")])
        .unwrap();
    assert_eq!(c.extract.max_output_bytes, 7);
    c.apply_env([("ATLATL_PROMPT__OFFLOAD__STORE__RETRIES", "4")])
        .unwrap();
    assert_eq!(c.store.retries, 4);
}

#[test]
fn store_limits_from_every_source_and_bounded() {
    let c = OffloadConfig::from_toml_str("[prompt.offload.store]\ntimeout_ms = 250\nretries = 1\n")
        .unwrap();
    assert_eq!(
        c.store,
        StoreLimits {
            timeout_ms: 250,
            retries: 1
        }
    );
    let c = OffloadConfig::from_json(
        &serde_json::json!({"store": {"timeout_ms": 40, "retries": null}}),
    )
    .unwrap();
    assert_eq!(
        c.store,
        StoreLimits {
            timeout_ms: 40,
            retries: 2
        }
    );
    for bad in [
        "[prompt.offload.store]\nretries = 11",
        "[prompt.offload.store]\ntimeout_ms = 0",
        "[prompt.offload.store]\nwait = 1",
        "[prompt.offload]\nstore = 3",
    ] {
        let err = OffloadConfig::from_toml_str(bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidConfig, "{bad}");
        assert!(err.message().contains("store"), "{err}");
    }
}

#[test]
fn descriptor_profile_and_adaptive_ratio_from_every_source() {
    let mut c = OffloadConfig::from_toml_str(
        "[prompt.offload]\ndescriptor = \"compact\"\nadaptive_ratio = 0.25\n",
    )
    .unwrap();
    assert_eq!(c.descriptor, DescriptorProfile::Compact);
    assert!((c.adaptive_ratio - 0.25).abs() < f64::EPSILON);
    c.apply_env([
        ("ATLATL_PROMPT__OFFLOAD__DESCRIPTOR", "Pointer"),
        ("ATLATL_PROMPT__OFFLOAD__ADAPTIVE_RATIO", "1"),
    ])
    .unwrap();
    assert_eq!(c.descriptor, DescriptorProfile::Pointer);
    assert!((c.adaptive_ratio - 1.0).abs() < f64::EPSILON);
    let c = OffloadConfig::from_json(&serde_json::json!({"adaptive_ratio": 0.5})).unwrap();
    assert!((c.adaptive_ratio - 0.5).abs() < f64::EPSILON);
    for bad in [
        "[prompt.offload]\ndescriptor = \"tiny\"",
        "[prompt.offload]\nadaptive_ratio = 0",
        "[prompt.offload]\nadaptive_ratio = 1.5",
        "[prompt.offload]\nadaptive_ratio = \"half\"",
    ] {
        let err = OffloadConfig::from_toml_str(bad).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidConfig, "{bad}");
    }
    let built = OffloadConfig {
        adaptive_ratio: f64::NAN,
        ..OffloadConfig::default()
    };
    assert_eq!(
        built.validate().unwrap_err().code(),
        ErrorCode::InvalidConfig
    );
}

#[test]
fn validate_enforces_what_the_setters_enforce() {
    // A configuration built in code (a binding's typed options) is held to the bounds
    // a TOML file or the environment could not cross, with the setters' messages.
    let mut store = OffloadConfig::default();
    store.store.timeout_ms = 0;
    let mut retries = OffloadConfig::default();
    retries.store.retries = 11;
    let ttl = OffloadConfig {
        ttl_seconds: u64::MAX,
        ..OffloadConfig::default()
    };
    let prefix = OffloadConfig {
        file_prefix: "../up".to_owned(),
        ..OffloadConfig::default()
    };
    for (built, key) in [
        (store, "store.timeout_ms"),
        (retries, "store.retries"),
        (ttl, "ttl_seconds"),
        (prefix, "file_prefix"),
    ] {
        let err = built.validate().unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidConfig);
        let from_json = OffloadConfig::from_json(&json_of(key, &built)).unwrap_err();
        assert_eq!(err.message(), from_json.message(), "{key}");
    }
    assert!(OffloadConfig::default().validate().is_ok());
}

/// The JSON object that sets `key` (dotted for a section's) to its value in `config`.
fn json_of(key: &str, config: &OffloadConfig) -> serde_json::Value {
    use serde_json::json;
    match key {
        "store.timeout_ms" => json!({"store": {"timeout_ms": config.store.timeout_ms}}),
        "store.retries" => json!({"store": {"retries": config.store.retries}}),
        "ttl_seconds" => json!({"ttl_seconds": config.ttl_seconds}),
        _ => json!({"file_prefix": config.file_prefix}),
    }
}

#[test]
fn bad_values_name_key_and_value() {
    let err =
        OffloadConfig::from_toml_str("[prompt.offload]\nthreshold_tokens = \"many\"").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidConfig);
    assert!(
        err.message().contains("threshold_tokens") && err.message().contains("many"),
        "{err}"
    );
    let err = OffloadConfig::default()
        .apply_env([("ATLATL_PROMPT__OFFLOAD__ENABLED", "maybe")])
        .unwrap_err();
    assert!(
        err.message().contains("enabled") && err.message().contains("maybe"),
        "{err}"
    );
    assert!(
        err.message()
            .starts_with("ATLATL_PROMPT__OFFLOAD__ENABLED: "),
        "the variable is named: {err}"
    );
    let err = OffloadConfig::from_toml_str("[prompt.offload]\nthreshold = 3").unwrap_err();
    assert!(err.message().contains("unknown configuration key"), "{err}");
    let err = OffloadConfig::from_toml_str("[prompt.offload]\nfile_prefix = \"../x\"").unwrap_err();
    assert!(err.message().contains("file_prefix"), "{err}");
    assert!(OffloadConfig::from_toml_str("[prompt.offload]\nthreshold_tokens = -1").is_err());
}

#[cfg(unix)]
#[test]
fn process_environment_reads_only_the_prefix_and_names_bad_bytes() {
    use std::ffi::OsString;
    use std::os::unix::ffi::OsStringExt;
    let var = |name: &[u8], value: &[u8]| {
        (
            OsString::from_vec(name.to_vec()),
            OsString::from_vec(value.to_vec()),
        )
    };
    let mut c = OffloadConfig::default();
    c.apply_env_os([
        var(b"UNRELATED", b"\xff\xfe"),
        var(b"\xffODD", b"x"),
        var(b"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS", b"77"),
    ])
    .unwrap();
    assert_eq!(c.threshold_tokens, 77);
    let err = c
        .apply_env_os([var(b"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR", b"/tmp/\xff")])
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidConfig);
    assert!(
        err.message()
            .contains("ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR: the variable's value is not UTF-8"),
        "{err}"
    );
    let err = c
        .apply_env_os([var(b"ATLATL_PROMPT__OFFLOAD__\xff", b"1")])
        .unwrap_err();
    assert!(err.message().contains("name is not UTF-8"), "{err}");
    let err = c
        .apply_env_os([var(b"ATLATL_PROMPT__OFFLOAD__TTL_SECONDS", b"-5")])
        .unwrap_err();
    assert!(
        err.message().starts_with(
            "ATLATL_PROMPT__OFFLOAD__TTL_SECONDS: invalid value for prompt.offload.ttl_seconds"
        ),
        "{err}"
    );
}

#[test]
fn a_section_given_a_value_and_a_word_of_a_key_are_explained() {
    let mut c = OffloadConfig::default();
    let err = c
        .apply_env([("ATLATL_PROMPT__OFFLOAD__EXTRACT", "5")])
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidConfig);
    assert!(err.message().contains("is a section, not a key"), "{err}");
    assert!(err.message().contains("extract.timeout_ms"), "{err}");
    assert!(!err.message().contains("did you mean"), "{err}");
    let err = c
        .apply_env([("ATLATL_PROMPT__OFFLOAD__PREFIX", "team")])
        .unwrap_err();
    assert!(
        err.message()
            .contains("did you mean prompt.offload.file_prefix?"),
        "{err}"
    );
}

/// The message of the error reading `text`, which must be `invalid_config`.
fn toml_error(text: &str) -> String {
    let err = OffloadConfig::from_toml_str(text).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidConfig, "{text}");
    err.message().to_owned()
}

#[test]
fn toml_dotted_keys_inline_tables_and_quoted_keys_set_keys() {
    for text in [
        "prompt.offload.threshold_tokens = 5\nprompt.offload.extract.timeout_ms = 6",
        "[prompt]\noffload = { threshold_tokens = 5, extract = { timeout_ms = 6 } }",
        "[prompt.offload]\n\"threshold_tokens\" = 5\nextract.'timeout_ms' = 6",
        "[prompt.offload]\nthreshold_tokens = 0x5\nextract.timeout_ms = +6",
    ] {
        let c = OffloadConfig::from_toml_str(text).unwrap();
        assert_eq!((c.threshold_tokens, c.extract.timeout_ms), (5, 6), "{text}");
    }
    let c = OffloadConfig::from_toml_str(
        "[prompt.offload]\ntools.\"fs_*\".mode = \"never\"\ntools.x = { threshold = 4 }",
    )
    .unwrap();
    assert!(c.never_offloads("fs_read"));
    assert_eq!(c.tool_rule("x").unwrap().1.threshold, Some(4));
}

#[test]
fn toml_duplicates_arrays_of_tables_and_deep_nesting_are_errors() {
    for (text, says) in [
        (
            "[prompt.offload]\nenabled = true\nenabled = false",
            "duplicate key",
        ),
        ("[prompt.offload]\n[prompt.offload]", "duplicate key"),
        (
            "[prompt.offload.extract]\n[prompt.offload.extract]",
            "duplicate key",
        ),
        (
            "[prompt.offload]\nextract = {}\nextract.timeout_ms = 1",
            "invalid TOML",
        ),
        (
            "[[prompt.offload]]\nenabled = true",
            "prompt.offload must be a table",
        ),
        (
            "[[prompt.offload.extract]]\ntimeout_ms = 5",
            "prompt.offload.extract must be a table",
        ),
        (
            "[[prompt.offload.tools]]\nmode = \"never\"",
            "prompt.offload.tools must be a table",
        ),
        (
            "[[prompt.offload.tools.x]]\nmode = \"never\"",
            "prompt.offload.tools.\"x\" must be a table",
        ),
    ] {
        let message = toml_error(text);
        assert!(message.contains(says), "{text}: {message}");
    }
    // Nesting is bounded by the parser, before any walk of ours.
    for deep in [
        format!(
            "[prompt.offload]\nnever_offload = {}1{}",
            "[".repeat(5000),
            "]".repeat(5000)
        ),
        format!(
            "[prompt.offload]\nx = {}1{}",
            "{a=".repeat(5000),
            "}".repeat(5000)
        ),
        format!("[{}x]\ny = 1", "a.".repeat(5000)),
    ] {
        assert!(toml_error(&deep).starts_with("invalid TOML: "));
    }
    // An array of tables elsewhere is not ours to judge.
    assert!(OffloadConfig::from_toml_str("[[prompt]]\n[[server]]\nx = 1").is_ok());
}

#[test]
fn toml_numbers_out_of_range_and_datetimes_are_refused() {
    // Out of a TOML integer's or float's range anywhere is invalid TOML, as the parser says.
    for text in [
        "[prompt.offload]\nthreshold_tokens = 9223372036854775808",
        "[prompt.offload]\nttl_seconds = 0xffffffffffffffff",
        "[server]\nport = -99999999999999999999",
        "[prompt.offload]\nadaptive_ratio = 1e400",
    ] {
        let message = toml_error(text);
        assert!(
            message.starts_with("invalid TOML: TOML parse error at line "),
            "{message}"
        );
        assert!(message.contains("out of range"), "{message}");
    }
    // In range but not a setting's: the key, the value as written, what was expected.
    for (text, shown) in [
        (
            "[prompt.offload]\nadaptive_ratio = inf",
            "adaptive_ratio: inf (expected",
        ),
        (
            "[prompt.offload]\nadaptive_ratio = -nan",
            "adaptive_ratio: -nan (expected",
        ),
        (
            "[prompt.offload]\nadaptive_ratio = 1e-400",
            "adaptive_ratio: 1e-400 (expected",
        ),
        (
            "[prompt.offload]\nttl_seconds = -1",
            "ttl_seconds: -1 (expected",
        ),
        (
            "[prompt.offload]\nttl_seconds = 1.0",
            "ttl_seconds: 1.0 (expected",
        ),
        (
            "[prompt.offload]\nthreshold_tokens = 9223372036854775807",
            "tokens: 9223372036854775807 (expected",
        ),
        (
            "[prompt.offload]\nfile_prefix = \"\"\"a\nb\"\"\"",
            "file_prefix: \"a\\nb\" (expected",
        ),
        (
            "[prompt.offload]\nenabled = [ 1, # one\n 'a' ]",
            "enabled: [1, 'a'] (expected",
        ),
        (
            "[prompt.offload.enabled]\nx.y = 1",
            "enabled: { x = { y = 1 } } (expected",
        ),
    ] {
        let message = toml_error(text);
        assert!(message.contains(shown), "{text}: {message}");
    }
    // A datetime is a valid value of no key.
    for key in KEYS {
        let leaf = key.name.rsplit('.').next().unwrap();
        for when in ["1979-05-27T07:32:00Z", "1979-05-27", "07:32:00"] {
            let text = format!("[{}]\n{leaf} = {when}\n", key.toml_table());
            let message = toml_error(&text);
            assert!(
                message.contains(&format!(": {when} (expected")),
                "{text}: {message}"
            );
        }
    }
}
