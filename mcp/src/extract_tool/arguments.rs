//! The extract tool's arguments, read leniently: the flat, strict-mode schema's forms (JSON
//! text for `where`, `params`, `sort` and `fields`; `lines` and `chars` as `"START:END"`;
//! `search` as the pattern with `ignore_case` and `max_results` beside it) and the object
//! forms clients used before (`{"where": {...}}`, `{"lines": {"start": 0, "end": 2}}`,
//! `{"search": {"pattern": "x"}}`). A `null` is an absent argument: strict-mode converters
//! send every optional argument, as `null` when unused.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use lro_core::error::{ErrorCode, LroError, Result};
use lro_core::extract::{ExtractRequest, LineRange, LineUnit, SearchSpec};
use lro_core::json::refusal;

use super::clip::clip;
use super::definition::argument_names;
use lro_core::ToolDefinition;

/// A call that gives no verb, or two: the error shows one that works.
const CALL_EXAMPLE: &str = "for example {\"file_path\": \"...\", \"where\": \"{\\\"kind\\\": \
    \\\"person\\\"}\", \"limit\": 20}, or {\"file_path\": \"...\", \"lines\": \"0:20\"}; \
    describe: true explains every argument";

/// What the arguments that name a field or carry text take, for the errors that refuse
/// another kind of value.
const TEXT_FORMS: [(&str, &str); 5] = [
    (
        "query",
        "a jq filter such as \"select(.kind == \\\"person\\\") | .name\"",
    ),
    ("group_by", "a field name such as \"kind\""),
    ("distinct", "a field name such as \"kind\""),
    ("stats", "a field name such as \"size\""),
    ("section", "a section name from the result's sections"),
];

/// One call of the tool, read.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The offloaded result's `file_path` (or its resource URI).
    pub file_path: String,
    /// What to extract.
    pub request: ExtractRequest,
    /// The call asked for the equivalent jq command (`explain: true`).
    pub explain: bool,
    /// The call asked for its output as a new offload file (`save: true`), answered with
    /// that file's descriptor.
    pub save: bool,
}

fn bad(message: String) -> LroError {
    LroError::new(ErrorCode::InvalidArgument, message)
}

/// Most characters of a caller's value quoted in an error message.
const ECHO_MAX_CHARS: usize = 80;

/// A caller's value as an error message quotes it: cut, so an error stays small whatever
/// was sent.
fn echo(value: &Value) -> String {
    clip(&value.to_string(), ECHO_MAX_CHARS)
}

/// A whole number argument (`recipe`, `skip`, `limit`, `max_results`): JSON Schema's
/// integer, so `3.0` is one; anything else is an error naming the argument and the range.
fn whole_number(name: &str, value: &Value, min: u64, max: Option<u64>) -> Result<u64> {
    let number = value.as_u64().or_else(|| {
        value
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= u64::MAX as f64)
            .map(|f| f as u64)
    });
    let expected = match max {
        Some(max) => format!("{name} must be a whole number from {min} to {max}"),
        None => format!("{name} must be a whole number from {min}"),
    };
    number
        .filter(|n| *n >= min && max.is_none_or(|max| *n <= max))
        .ok_or_else(|| bad(format!("{expected}, got {}", echo(value))))
}

/// Reads a call's `arguments` (a JSON object; `null` or absent is an empty one).
pub fn parse(arguments: Option<&Value>) -> Result<ToolCall> {
    let mut given: Map<String, Value> = match arguments {
        Some(Value::Object(map)) => map.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(other) => {
            return Err(bad(format!(
                "the extract tool's arguments must be an object, got {}",
                echo(other)
            )));
        }
    };
    given.retain(|_, v| !v.is_null());
    let file_path = match given.remove("file_path") {
        Some(Value::String(path)) => path,
        Some(other) => {
            return Err(bad(format!(
                "file_path must be a string, got {}",
                echo(&other)
            )));
        }
        None => return Err(bad("file_path is required".to_owned())),
    };
    let mut flag = |name: &str| match given.remove(name) {
        None => Ok(false),
        Some(Value::Bool(b)) => Ok(b),
        Some(other) => Err(bad(format!(
            "{name} must be true or false, got {}",
            echo(&other)
        ))),
    };
    let explain = flag("explain")?;
    let save = flag("save")?;
    for name in ["count", "describe"] {
        if let Some(value) = given.get(name).filter(|v| !v.is_boolean()) {
            return Err(bad(format!(
                "{name} must be true or false, got {}",
                echo(value)
            )));
        }
    }
    if let Some(unknown) = given
        .keys()
        .find(|name| !argument_names(ToolDefinition::Long).contains(&name.as_str()))
    {
        return Err(bad(format!(
            "unknown argument {}: the arguments are {}",
            echo(&Value::from(unknown.as_str())),
            argument_names(ToolDefinition::Long).join(", ")
        )));
    }
    for (name, form) in TEXT_FORMS {
        match given.get(name) {
            Some(Value::String(_)) | None => {}
            Some(other) => {
                return Err(bad(format!("{name} must be {form}, got {}", echo(other))));
            }
        }
    }
    for (name, min, max) in [
        ("recipe", 1, Some(10)),
        ("skip", 0, None),
        ("limit", 0, None),
    ] {
        if let Some(value) = given.get_mut(name) {
            *value = Value::from(whole_number(name, value, min, max)?);
        }
    }
    for name in ["where", "params", "sort", "fields"] {
        if let Some(value) = given.get_mut(name) {
            decode_json_text(name, value)?;
        }
    }
    let ranges = (given.remove("lines"), given.remove("chars"));
    match ranges {
        (Some(_), Some(_)) => {
            return Err(bad(
                "give lines (records) or chars (characters), not both".to_owned()
            ));
        }
        (Some(lines), None) => {
            given.insert(
                "lines".to_owned(),
                range("lines", lines, LineUnit::Records)?,
            );
        }
        (None, Some(chars)) => {
            given.insert("lines".to_owned(), range("chars", chars, LineUnit::Chars)?);
        }
        (None, None) => {}
    }
    let ignore_case = given.remove("ignore_case");
    let max_results = given.remove("max_results");
    match given.remove("search") {
        Some(search) => {
            given.insert(
                "search".to_owned(),
                search_spec(search, ignore_case, max_results)?,
            );
        }
        None if ignore_case.is_some() || max_results.is_some() => {
            return Err(bad(
                "ignore_case and max_results belong to search".to_owned()
            ));
        }
        None => {}
    }
    let request: ExtractRequest =
        read_back(&Value::Object(given)).map_err(|e| bad(format!("extract tool: {e}")))?;
    if let Err(err) = request.verb() {
        return Err(bad(format!("{}; {CALL_EXAMPLE}", err.message())));
    }
    Ok(ToolCall {
        file_path,
        request,
        explain,
        save,
    })
}

/// `T` from `value` written back as text, refused in the words of a `Value`'s reader
/// (`refusal::message`) but for a number, which is named: `T` read from text only, where
/// reading it from a `Value` too would compile its deserializer twice (kilobytes of the
/// WebAssembly builds).
fn read_back<T: DeserializeOwned>(value: &Value) -> std::result::Result<T, String> {
    let text = value.to_string();
    serde_json::from_slice(text.as_bytes()).map_err(|e| refusal::message(&e, &text, value))
}

/// `where`, `params`, `sort` and `fields` given as JSON text (`"{\"kind\": \"person\"}"`)
/// become the value the text holds. Text that is not JSON stays text: `sort: "-created"`,
/// `fields: "id,title"`; `where` reports a text that is not a filter document itself.
fn decode_json_text(name: &str, value: &mut Value) -> Result<()> {
    let Value::String(text) = value else {
        return Ok(());
    };
    let trimmed = text.trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        if name == "params" {
            return Err(bad(format!(
                "params must be a JSON object such as {{\"keyword\": \"cache\"}}, got {}",
                echo(value)
            )));
        }
        return Ok(());
    }
    match serde_json::from_slice(trimmed.as_bytes()) {
        Ok(decoded) => *value = decoded,
        // The structured query reports a filter document that does not parse (`invalid_query`).
        Err(_) if name == "where" => {}
        Err(e) => return Err(bad(format!("{name}: not valid JSON text: {e}"))),
    }
    Ok(())
}

/// A `lines` or `chars` range: `"START:END"` (either side may be left out: `":100"`,
/// `"100:"`), `"START-END"`, a single index (that one record or character), or the object
/// `{"start", "end", "unit"}` (also as JSON text).
fn range(name: &str, value: Value, unit: LineUnit) -> Result<Value> {
    let text = match value {
        Value::Object(mut object) => {
            if name == "chars" {
                object.insert("unit".to_owned(), Value::from("chars"));
            }
            return Ok(Value::Object(object));
        }
        Value::String(text) if text.trim_start().starts_with('{') => {
            let decoded: Value = serde_json::from_slice(text.trim().as_bytes())
                .map_err(|e| bad(format!("{name}: not valid JSON text: {e}")))?;
            return range(name, decoded, unit);
        }
        Value::String(text) => text,
        Value::Number(n) => n.to_string(),
        other => {
            return Err(bad(format!(
                "{name} must be a range such as \"0:50\", got {}",
                echo(&other)
            )));
        }
    };
    let number = |part: &str| -> Result<Option<u64>> {
        let part = part.trim();
        if part.is_empty() {
            return Ok(None);
        }
        part.parse::<u64>().map(Some).map_err(|_| {
            bad(format!(
                "{name}: {} is not a range such as \"0:50\" (START:END, counted from 0, END excluded)",
                echo(&Value::from(text.as_str()))
            ))
        })
    };
    let (start, end) = match text.split_once(':').or_else(|| text.split_once('-')) {
        Some((start, end)) => (number(start)?.unwrap_or(0), number(end)?),
        None => {
            let start = number(&text)?
                .ok_or_else(|| bad(format!("{name}: give a range such as \"0:50\"")))?;
            (start, Some(start.saturating_add(1)))
        }
    };
    if end.is_some_and(|end| end < start) {
        return Err(bad(format!(
            "{name}: END ({}) is before START ({start})",
            end.unwrap_or_default()
        )));
    }
    serde_json::to_value(LineRange { start, end, unit }).map_err(|e| bad(format!("{name}: {e}")))
}

/// A `search`: the pattern (with `ignore_case` and `max_results` beside it), or the object
/// `{"pattern", "ignore_case", "max_results"}` (also as JSON text).
fn search_spec(
    search: Value,
    ignore_case: Option<Value>,
    max_results: Option<Value>,
) -> Result<Value> {
    let mut spec = match search {
        Value::String(text) if text.trim_start().starts_with("{\"pattern\"") => {
            serde_json::from_slice::<SearchSpec>(text.trim().as_bytes())
                .map_err(|e| bad(format!("search: {e}")))?
        }
        Value::String(pattern) => SearchSpec {
            pattern,
            ..SearchSpec::default()
        },
        object @ Value::Object(_) => read_back(&object).map_err(|e| bad(format!("search: {e}")))?,
        other => {
            return Err(bad(format!(
                "search must be a regular expression, got {}",
                echo(&other)
            )));
        }
    };
    if let Some(value) = ignore_case {
        spec.ignore_case = value.as_bool().ok_or_else(|| {
            bad(format!(
                "ignore_case must be true or false, got {}",
                echo(&value)
            ))
        })?;
    }
    if let Some(value) = max_results {
        spec.max_results = Some(whole_number("max_results", &value, 1, None)?);
    }
    serde_json::to_value(spec).map_err(|e| bad(format!("search: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(arguments: Value) -> ExtractRequest {
        parse(Some(&arguments)).unwrap().request
    }

    #[test]
    fn flat_forms_and_object_forms_read_the_same() {
        for (flat, object) in [
            (
                json!({"file_path": "f", "where": "{\"kind\": \"person\"}", "sort": "{\"id\": -1}", "fields": "[\"id\"]"}),
                json!({"file_path": "f", "where": {"kind": "person"}, "sort": {"id": -1}, "fields": ["id"]}),
            ),
            (
                json!({"file_path": "f", "recipe": 2, "params": "{\"keyword\": \"cache\"}"}),
                json!({"file_path": "f", "recipe": 2, "params": {"keyword": "cache"}}),
            ),
            (
                json!({"file_path": "f", "lines": "0:2"}),
                json!({"file_path": "f", "lines": {"start": 0, "end": 2}}),
            ),
            (
                json!({"file_path": "f", "lines": "5"}),
                json!({"file_path": "f", "lines": {"start": 5, "end": 6}}),
            ),
            (
                json!({"file_path": "f", "chars": "100:"}),
                json!({"file_path": "f", "lines": {"start": 100, "unit": "chars"}}),
            ),
            (
                json!({"file_path": "f", "search": "err(or)?", "ignore_case": true, "max_results": 3}),
                json!({"file_path": "f", "search": {"pattern": "err(or)?", "ignore_case": true, "max_results": 3}}),
            ),
        ] {
            assert_eq!(request(flat.clone()), request(object), "{flat}");
        }
    }

    #[test]
    fn nulls_are_absent_and_text_stays_text() {
        let call = parse(Some(
            &json!({"file_path": "f", "count": true, "where": null, "fields": null,
            "sort": null, "params": null, "lines": null, "chars": null, "search": null,
            "ignore_case": null, "max_results": null, "explain": null, "recipe": null}),
        ))
        .unwrap();
        assert_eq!(call.request.count, Some(true));
        assert!(!call.explain);
        let r = request(
            json!({"file_path": "f", "where": "{}", "sort": "-created", "fields": "id,title"}),
        );
        assert_eq!(
            (r.sort, r.fields),
            (Some(json!("-created")), Some(json!("id,title")))
        );
    }

    #[test]
    fn mistakes_are_invalid_argument() {
        for args in [
            json!({"file_path": "f", "lines": "a:b"}),
            json!({"file_path": "f", "lines": "0:1", "chars": "0:1"}),
            json!({"file_path": "f", "params": "keyword=cache"}),
            json!({"file_path": "f", "ignore_case": true, "recipe": 1}),
            json!({"file_path": "f", "search": "x", "max_results": 0}),
            json!({"file_path": "f", "explain": "yes"}),
            json!({"file_path": "f", "sort": "{not json"}),
        ] {
            let err = parse(Some(&args)).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidArgument, "{args}");
        }
    }

    #[test]
    fn object_forms_are_refused_in_serdes_words_without_a_position() {
        for (args, says) in [
            (
                json!({"file_path": "f", "lines": {"start": "x"}}),
                "extract tool: invalid type: string \"x\", expected u64",
            ),
            (
                json!({"file_path": "f", "lines": {"start": 0, "unit": true}}),
                "extract tool: invalid type: boolean `true`, expected string or map",
            ),
            (
                json!({"file_path": "f", "lines": {"start": 0, "unit": null}}),
                "extract tool: invalid type: null, expected string or map",
            ),
            (
                json!({"file_path": "f", "lines": {"start": 1.5}}),
                "extract tool: invalid type: floating point `1.5`, expected u64",
            ),
            (
                json!({"file_path": "f", "params": 5}),
                "extract tool: invalid type: integer `5`, expected a map",
            ),
            (
                json!({"file_path": "f", "search": {"pattern": "x", "ignoreCase": true}}),
                "search: unknown field `ignoreCase`, expected one of `pattern`, `ignore_case`, `max_results`",
            ),
        ] {
            let err = parse(Some(&args)).unwrap_err();
            assert_eq!(err.message(), says, "{args}");
        }
    }
}
