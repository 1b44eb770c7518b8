//! The table of keys as others read it: JSON for the bindings and the command line
//! (`lro.config_keys()`, `configKeys()`, `lro config keys`), and the Markdown table of
//! `docs/configuration.md`, which a test keeps equal to what [`markdown_table`] and
//! [`tool_keys_markdown_table`] write.
//!
//! ```
//! let keys = lro_core::config::keys_json();
//! let retries = keys.as_array().unwrap().iter().find(|k| k["name"] == "store.retries").unwrap();
//! assert_eq!(retries["env"], "ATLATL_PROMPT__OFFLOAD__STORE__RETRIES");
//! assert_eq!((retries["default"].as_u64(), retries["max"].as_u64()), (Some(2), Some(10)));
//! ```

use serde_json::{Value, json};

use super::keys::{Key, Kind};
use super::settings::{KEYS, OffloadConfig};
use super::tool_rules::TOOL_KEYS;

/// Every key as a JSON object: `name` (dotted), `camel_case` (the JS name), `env`, `toml`
/// (its table), `type` (a JSON type), `bounds` (in words), `min` and `max` (integers only),
/// `choices` (the names a choice takes), `default`, `sample` (a valid value other than the
/// default), `bad` (a value every typed surface refuses) and `doc`.
pub fn keys_json() -> Value {
    Value::Array(KEYS.iter().map(key_json).collect())
}

fn key_json(key: &Key<OffloadConfig>) -> Value {
    let mut entry = json!({
        "name": key.name,
        "camel_case": key.camel_case(),
        "env": key.env_var(),
        "toml": key.toml_table(),
        "type": key.kind.json_type(),
        "bounds": key.kind.bounds(),
        "default": key.default_json(),
        "sample": serde_json::from_slice::<Value>(key.sample.as_bytes()).unwrap_or(Value::Null),
        "bad": serde_json::from_slice::<Value>(key.bad.as_bytes()).unwrap_or(Value::Null),
        "doc": key.doc,
    });
    match key.kind {
        Kind::Integer { min, max, .. } => {
            entry["min"] = min.into();
            entry["max"] = max.into();
        }
        Kind::Choice { names, .. } => entry["choices"] = names.into(),
        _ => {}
    }
    entry
}

/// The Markdown table of every key: name, type and bounds, default, environment variable, JS
/// name, and what it does.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| key (`[prompt.offload]`) | type | default | environment variable | JS | meaning |\n\
         | --- | --- | --- | --- | --- | --- |\n",
    );
    for key in KEYS {
        let bounds = key.kind.bounds();
        let kind = if bounds.is_empty() {
            key.kind.json_type().to_owned()
        } else {
            format!("{}: {}", key.kind.json_type(), bounds)
        };
        let default = match key.default_json() {
            Value::Null => "unset".to_owned(),
            value => format!("`{value}`"),
        };
        out.push_str(&format!(
            "| `{}` | {} | {} | `{}` | `{}` | {} |\n",
            key.name,
            kind,
            default,
            key.env_var(),
            key.camel_case(),
            key.doc
        ));
    }
    out
}

/// The Markdown table of the keys of a tool rule (`[prompt.offload.tools."PATTERN"]`).
pub fn tool_keys_markdown_table() -> String {
    let mut out = String::from("| key | type | meaning |\n| --- | --- | --- |\n");
    for key in TOOL_KEYS {
        let bounds = key.kind.bounds();
        let kind = if bounds.is_empty() {
            key.kind.json_type().to_owned()
        } else {
            format!("{}: {}", key.kind.json_type(), bounds)
        };
        out.push_str(&format!("| `{}` | {} | {} |\n", key.name, kind, key.doc));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `docs/configuration.md` holds the table between these lines.
    const START: &str = "<!-- keys: written by lro_core::config::markdown_table -->\n";
    const END: &str = "<!-- end of keys -->\n";
    /// And the table of a tool rule's keys between these.
    const RULE_START: &str =
        "<!-- tool rule keys: written by lro_core::config::tool_keys_markdown_table -->\n";
    const RULE_END: &str = "<!-- end of tool rule keys -->\n";

    #[test]
    fn the_docs_table_is_the_table_of_keys() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/configuration.md");
        let text = std::fs::read_to_string(path).unwrap();
        let (head, rest) = text.split_once(START).expect("the start marker");
        let (_, tail) = rest.split_once(END).expect("the end marker");
        let (tail_head, tail_rest) = tail.split_once(RULE_START).expect("the rule start marker");
        let (_, tail_tail) = tail_rest.split_once(RULE_END).expect("the rule end marker");
        let tail = format!(
            "{tail_head}{RULE_START}{}{RULE_END}{tail_tail}",
            tool_keys_markdown_table()
        );
        let wanted = format!("{head}{START}{}{END}{tail}", markdown_table());
        if std::env::var_os("LRO_WRITE_DOCS").is_some() {
            std::fs::write(path, &wanted).unwrap();
            return;
        }
        assert!(
            text == wanted,
            "docs/configuration.md is out of date: run LRO_WRITE_DOCS=1 cargo test -p lro-core \
             the_docs_table"
        );
    }

    #[test]
    fn every_key_is_exported_with_its_names() {
        let keys = keys_json();
        let keys = keys.as_array().unwrap();
        assert_eq!(keys.len(), KEYS.len());
        let ratio = keys.iter().find(|k| k["name"] == "adaptive_ratio").unwrap();
        assert_eq!(ratio["camel_case"], "adaptiveRatio");
        assert_eq!(ratio["default"], 0.1);
        let guidance = keys.iter().find(|k| k["name"] == "guidance").unwrap();
        assert_eq!(guidance["choices"], json!(["shell", "native"]));
        assert!(
            keys.iter()
                .all(|k| !k["sample"].is_null() && !k["bad"].is_null())
        );
    }
}
