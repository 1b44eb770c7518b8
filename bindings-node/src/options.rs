//! The option objects of the entry points. They arrive as JSON with camelCase keys; `Camel`
//! renames the keys and the core's JSON entry points (`OffloadRequest::from_json`, ...) do
//! the parsing, so mistakes get the same error codes in every binding. The `#[napi(object)]`
//! structs only describe the objects for `index.d.ts`: the core never sees a binding type.

use lro_core::{ErrorCode, ExtractRequest, LroError, OffloadRequest, ToolCallContext};
use napi_derive::napi;
use serde_json::{Map, Value};

/// A JS options object: camelCase keys over the core's snake_case ones.
pub struct Camel(pub Map<String, Value>);

impl Camel {
    /// From an optional argument: `null` (omitted) is an empty object; any other non-object
    /// is passed on for the core to reject with its own code.
    pub fn from_value(value: Value) -> Result<Self, Value> {
        match value {
            Value::Null => Ok(Self(Map::new())),
            Value::Object(map) => Ok(Self(map)),
            other => Err(other),
        }
    }

    /// The keys in snake_case (`nextCursor` -> `next_cursor`); nested objects are renamed
    /// too, except the ones that are data: the free-form `arguments` and `params`, and a
    /// structured query's `where`, `sort` and `fields`, whose keys are the records' field
    /// names (`{ where: { entityType: 'person' } }`).
    pub fn into_snake(self) -> Map<String, Value> {
        self.0
            .into_iter()
            .map(|(key, value)| {
                let data = matches!(
                    key.as_str(),
                    "arguments" | "params" | "where" | "sort" | "fields"
                );
                let value = match value {
                    Value::Object(inner) if !data => Value::Object(Camel(inner).into_snake()),
                    other => other,
                };
                (snake_case(&key), value)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structured_query_data_keeps_its_keys() {
        let Value::Object(map) = json!({"groupBy": "entityType", "where": {"entityType": "person", "$or": [{"createdAt": 1}]},
                                         "sort": {"createdAt": -1}, "fields": {"firstName": 1}, "lines": {"maxResults": 1}})
        else {
            unreachable!()
        };
        let snake = Camel(map).into_snake();
        assert_eq!(
            Value::Object(snake),
            json!({"group_by": "entityType", "where": {"entityType": "person", "$or": [{"createdAt": 1}]},
                   "sort": {"createdAt": -1}, "fields": {"firstName": 1}, "lines": {"max_results": 1}})
        );
    }
}

fn snake_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len() + 4);
    for c in key.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Converts an optional options argument (`null` when omitted) to the core's type `T`.
pub fn convert<T: TryFrom<Camel, Error = LroError>>(
    value: Value,
    code: ErrorCode,
    what: &str,
) -> Result<T, LroError> {
    match Camel::from_value(value) {
        Ok(camel) => T::try_from(camel),
        Err(other) => Err(LroError::new(
            code,
            format!("{what} must be an object, got {other}"),
        )),
    }
}

impl TryFrom<Camel> for OffloadRequest {
    type Error = LroError;

    fn try_from(options: Camel) -> Result<Self, LroError> {
        OffloadRequest::from_json(&Value::Object(options.into_snake()))
    }
}

impl TryFrom<Camel> for ToolCallContext {
    type Error = LroError;

    fn try_from(context: Camel) -> Result<Self, LroError> {
        ToolCallContext::from_json(&Value::Object(context.into_snake()))
    }
}

impl TryFrom<Camel> for ExtractRequest {
    type Error = LroError;

    fn try_from(request: Camel) -> Result<Self, LroError> {
        lro_core::offload::from_json_value(&Value::Object(request.into_snake()), "extract request")
    }
}

/// What `offload` is asked to do.
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(
    dead_code,
    reason = "declares a TypeScript interface; the values arrive as JSON"
)]
pub struct OffloadOptions {
    /// The operation: `recall`, `search`, `inject`, `list`, or a tool name (default `recall`).
    /// It goes into the file name, so it is limited to `A-Z a-z 0-9 _ - .`.
    pub operation: Option<String>,
    /// Detail level of MIF memories; omitted, the operation's default (`medium` for `inject`,
    /// `light` otherwise).
    #[napi(ts_type = "Detail")]
    pub detail: Option<String>,
    /// The query string, recorded in the file's header.
    pub query: Option<String>,
    /// Search scores of the records, for `summary.score_range` (never written to the file).
    pub scores: Option<Vec<f64>>,
    /// A pagination cursor: returned with inline results, dropped when offloaded (the file
    /// holds the complete set).
    pub next_cursor: Option<String>,
    /// The descriptor profile of this call, over `config.descriptor`: `full` (summary, line
    /// schema, ten jq recipes, guidance), `compact` (summary, path, one line per recipe, one
    /// paragraph) or `pointer` (`offloaded`, `file_path`, `count`, one line of guidance).
    /// `extract(filePath, { describe: true })` gives the full descriptor later.
    #[napi(ts_type = "DescriptorProfile")]
    pub descriptor: Option<String>,
    /// The tokens left in the caller's context window: the threshold becomes
    /// `min(thresholdTokens, adaptiveRatio x contextRemainingTokens)`, and the outcome
    /// reports the one applied as `threshold_tokens`.
    pub context_remaining_tokens: Option<i64>,
}

/// What is known about the MCP tool call whose result is intercepted.
#[napi(object, object_from_js = false, object_to_js = false)]
#[allow(
    dead_code,
    reason = "declares a TypeScript interface; the values arrive as JSON"
)]
pub struct ToolContext {
    /// The tool's name (`recall_memories` gives the operation `recall`, and so on).
    pub tool_name: Option<String>,
    /// The call's arguments (`detail` and `query` are read from them).
    #[napi(ts_type = "Record<string, unknown>")]
    pub arguments: Option<Value>,
    /// The client announced `clientInfo.proxy: true`: its own proxy offloads, so pass through.
    pub client_is_proxy: Option<bool>,
    /// The tool declared an `outputSchema`, which a descriptor would violate: pass through.
    pub output_schema_declared: Option<bool>,
}

/// What `extract` is asked to do: exactly one of `recipe`, `query`, `lines`, `search`, a
/// structured query (`where`, shaped by `fields`, `sort`, `skip`, `limit`, or summarized by
/// one of `count`, `groupBy`, `distinct`, `stats`), or `describe`.
#[allow(
    dead_code,
    reason = "declares a TypeScript interface; the values arrive as JSON"
)]
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct ExtractOptions {
    /// A recipe number, 1-10, as listed in the file's descriptor.
    pub recipe: Option<u32>,
    /// A jq filter run over each record by the embedded engine (no `jq` binary, no shell).
    pub query: Option<String>,
    /// Values bound as jq variables: a recipe's parameters (`{ keyword: 'cache' }` becomes
    /// `$keyword`; one left out takes the example shown in the descriptor), or any variables
    /// a `query` uses.
    #[napi(ts_type = "Record<string, unknown>")]
    pub params: Option<Value>,
    /// A half-open range `[start, end)` of records (or characters) of the file body.
    pub lines: Option<LineRange>,
    /// A regular expression over the raw record lines.
    pub search: Option<SearchSpec>,
    /// A section name from the descriptor's `sections`: where, query, lines and search read
    /// only its records (each recipe reads its own section).
    pub section: Option<String>,
    /// A MongoDB filter document: `{ tags: 'cache', 'provenance.confidence': { $gte: 0.8 } }`
    /// (or its JSON text). Its keys are field names, passed as they are.
    #[napi(ts_type = "Record<string, unknown> | string")]
    pub r#where: Option<Value>,
    /// The fields of each record to return: `['id', 'provenance.confidence']`, `'id,title'`,
    /// or a projection document (`{ title: 1 }` keeps, `{ content: 0 }` drops).
    #[napi(ts_type = "string[] | string | Record<string, 0 | 1 | boolean>")]
    pub fields: Option<Value>,
    /// Sort order: `{ created: -1 }` (keys in order), `'-created'`, or `['-created', 'id']`.
    #[napi(ts_type = "Record<string, 1 | -1> | string | string[]")]
    pub sort: Option<Value>,
    /// Matching records to pass over first.
    pub skip: Option<u32>,
    /// Most matching records to return (0: no limit, as in MongoDB).
    pub limit: Option<u32>,
    /// `true`: return the number of matching records, as one result.
    pub count: Option<bool>,
    /// A field: return `[{ <field>: value, count: n }, ...]` for the matching records,
    /// largest first (an array field counts each element).
    pub group_by: Option<String>,
    /// A field: return its distinct values (array elements each) as one array.
    pub distinct: Option<String>,
    /// A field: return `{ count, min, max, sum, avg }` of its numbers.
    pub stats: Option<String>,
    /// `true`: return the file's full descriptor (summary, line schema, the ten recipes with
    /// their commands, guidance) as the one result, rebuilt from the file: what a `compact`
    /// or `pointer` descriptor left out. Takes no `section`.
    pub describe: Option<bool>,
}

/// A half-open range of records or characters, counted from 0.
#[allow(
    dead_code,
    reason = "declares a TypeScript interface; the values arrive as JSON"
)]
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct LineRange {
    /// First record (or character).
    pub start: u32,
    /// One past the last; omitted, to the end (output limits still apply).
    pub end: Option<u32>,
    /// Records (default) or characters.
    #[napi(ts_type = "'records' | 'chars'")]
    pub unit: Option<String>,
}

/// A regex search over the raw record lines (the header is not searched).
#[allow(
    dead_code,
    reason = "declares a TypeScript interface; the values arrive as JSON"
)]
#[napi(object, object_from_js = false, object_to_js = false)]
pub struct SearchSpec {
    /// The pattern, in Rust `regex` syntax (no look-around or back-references; linear time).
    pub pattern: String,
    /// Match without regard to case.
    pub ignore_case: Option<bool>,
    /// Most matching lines to return; more set `truncated`.
    pub max_results: Option<u32>,
}
