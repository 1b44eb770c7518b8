//! The option objects of the calls: what `offload`, `interceptToolResult` and `extract` are
//! asked to do, and their conversion into the core's requests.
//!
//! Keys are the core's in camelCase; the values that are data keep their keys as given
//! (`arguments`, `params`, and a structured query's `where`, `sort` and `fields`, whose keys
//! are the records' field names).

use lro_core::config::{OffloadMode, ToolRule};
use lro_core::extract::{self, LineUnit};
use lro_core::{DescriptorProfile, Detail, ErrorCode, ExtractRequest, LroError, OffloadRequest};
use lro_mcp::intercept::ToolCallContext;
#[cfg(feature = "napi")]
use napi_derive::napi;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::argument::Argument;

/// What `offload`, `offloadJson` and `offloadInject` are asked to do.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct OffloadOptions {
    /// The operation: `recall`, `search`, `inject`, `list`, or a tool name (default `recall`;
    /// `inject` for `offloadInject`). It goes into the file name, so it is limited to
    /// `A-Z a-z 0-9 _ - .`.
    pub operation: Option<String>,
    /// Detail level of MIF memories; omitted, the operation's default (`medium` for `inject`,
    /// `light` otherwise).
    #[cfg_attr(feature = "napi", napi(ts_type = "Detail"))]
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
    /// paragraph) or `pointer` (`offloaded`, `file_path`, `resource_uri`, `count`, one line
    /// of guidance).
    /// `extract(filePath, { describe: true })` gives the full descriptor later.
    #[cfg_attr(feature = "napi", napi(ts_type = "DescriptorProfile"))]
    pub descriptor: Option<String>,
    /// The tokens left in the caller's context window: the threshold becomes
    /// `min(thresholdTokens, adaptiveRatio x contextRemainingTokens)`, and the outcome
    /// reports the one applied as `threshold_tokens`.
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub context_remaining_tokens: Option<u64>,
    /// Whether to offload this result: `never` returns it inline whatever its size,
    /// `always` offloads it however small (so a `{"$lro": URI}` handle can pass it on),
    /// `auto` (the default) past the threshold.
    #[cfg_attr(feature = "napi", napi(ts_type = "OffloadMode"))]
    pub mode: Option<OffloadMode>,
    /// This call's threshold, in place of `config.thresholdTokens`.
    pub threshold: Option<u32>,
}

impl Argument for OffloadOptions {
    const NAME: &'static str = "options";

    fn code_at(path: &str) -> ErrorCode {
        if path == "detail" {
            ErrorCode::InvalidDetail
        } else {
            ErrorCode::InvalidArgument
        }
    }
}

impl OffloadOptions {
    /// The core's request, with `operation` when the options name none (`recall` for
    /// `offload`, `inject` for `offloadInject`, as in every binding).
    pub fn into_request(self, operation: &str) -> Result<OffloadRequest, LroError> {
        Ok(OffloadRequest {
            operation: self.operation.unwrap_or_else(|| operation.to_owned()),
            detail: self
                .detail
                .as_deref()
                .map(str::parse::<Detail>)
                .transpose()?,
            query: self.query,
            scores: self.scores,
            next_cursor: self.next_cursor,
            descriptor: self
                .descriptor
                .as_deref()
                .map(str::parse::<DescriptorProfile>)
                .transpose()?,
            context_remaining_tokens: self.context_remaining_tokens,
            extract_tool: None,
            mode: self.mode,
            threshold: self.threshold,
        })
    }
}

/// What is known about the MCP tool call whose result is intercepted.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct ToolContext {
    /// The tool's name: `config.tools` rules match it, and it gives the operation
    /// (`recall_memories` gives `recall`, and so on) unless `operation` does.
    pub tool_name: Option<String>,
    /// The operation that names the files and the summary, when the server names it itself;
    /// a rule's `operation` still wins.
    pub operation: Option<String>,
    /// The call's arguments (`detail` and `query` are read from them).
    #[cfg_attr(feature = "napi", napi(ts_type = "Record<string, unknown>"))]
    pub arguments: Option<Value>,
    /// The client announced `clientInfo.proxy: true`: its own proxy offloads, so pass through.
    pub client_is_proxy: Option<bool>,
    /// The tool declared an `outputSchema`, which a descriptor would violate: pass through.
    pub output_schema_declared: Option<bool>,
    /// The extract tool's name as the server lists it (`lro_extract_memory`), which the
    /// descriptor and its guidance name; by default `config.mcp.extractToolName`, else
    /// `lro_extract`.
    pub extract_tool: Option<String>,
    /// This call's rule, in place of the configuration's rule for the tool (`config.tools`):
    /// `{ mode: 'never' }` passes the result untouched, `{ mode: 'always' }` offloads it
    /// however small.
    #[cfg_attr(feature = "napi", napi(ts_type = "ToolRule"))]
    pub rule: Option<ToolRule>,
}

impl Argument for ToolContext {
    const NAME: &'static str = "context";

    fn code_at(_: &str) -> ErrorCode {
        ErrorCode::InvalidArgument
    }
}

impl From<ToolContext> for ToolCallContext {
    fn from(context: ToolContext) -> Self {
        Self {
            tool_name: context.tool_name.unwrap_or_default(),
            operation: context.operation,
            arguments: context.arguments,
            client_is_proxy: context.client_is_proxy.unwrap_or(false),
            output_schema_declared: context.output_schema_declared.unwrap_or(false),
            extract_tool: context.extract_tool,
            rule: context.rule,
        }
    }
}

/// What `extract` is asked to do: exactly one of `recipe`, `query`, `lines`, `search`, a
/// structured query (`where`, shaped by `fields`, `sort`, `skip`, `limit`, or summarized by
/// one of `count`, `groupBy`, `distinct`, `stats`), or `describe`. The arguments of the
/// `lro_extract` tool are this request with the core's snake_case names (`group_by`,
/// `ignore_case`, `max_results`), so those are read too: a server passes them on as a model
/// sent them.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct ExtractOptions {
    /// A recipe number, 1-10, as listed in the file's descriptor.
    pub recipe: Option<u8>,
    /// A jq filter run over each record by the embedded engine (no `jq` binary, no shell).
    pub query: Option<String>,
    /// Values bound as jq variables: a recipe's parameters (`{ keyword: 'cache' }` becomes
    /// `$keyword`; one left out takes the example shown in the descriptor), or any variables
    /// a `query` uses.
    #[cfg_attr(feature = "napi", napi(ts_type = "Record<string, unknown>"))]
    pub params: Option<Map<String, Value>>,
    /// A half-open range `[start, end)` of records (or characters) of the file body.
    pub lines: Option<LineRange>,
    /// A regular expression over the raw record lines.
    pub search: Option<SearchSpec>,
    /// A section name from the descriptor's `sections`: where, query, lines and search read
    /// only its records (each recipe reads its own section).
    pub section: Option<String>,
    /// A MongoDB filter document: `{ tags: 'cache', 'provenance.confidence': { $gte: 0.8 } }`
    /// (or its JSON text). Its keys are field names, passed as they are.
    #[serde(rename = "where")]
    #[cfg_attr(
        feature = "napi",
        napi(js_name = "where", ts_type = "Record<string, unknown> | string")
    )]
    pub filter: Option<Value>,
    /// The fields of each record to return: `['id', 'provenance.confidence']`, `'id,title'`,
    /// or a projection document (`{ title: 1 }` keeps, `{ content: 0 }` drops).
    #[cfg_attr(
        feature = "napi",
        napi(ts_type = "string[] | string | Record<string, 0 | 1 | boolean>")
    )]
    pub fields: Option<Value>,
    /// Sort order: `{ created: -1 }` (keys in order), `'-created'`, or `['-created', 'id']`.
    #[cfg_attr(
        feature = "napi",
        napi(ts_type = "Record<string, 1 | -1> | string | string[]")
    )]
    pub sort: Option<Value>,
    /// Matching records to pass over first.
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub skip: Option<u64>,
    /// Most matching records to return (0: no limit, as in MongoDB).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub limit: Option<u64>,
    /// `true`: return the number of matching records, as one result.
    pub count: Option<bool>,
    /// A field: return `[{ <field>: value, count: n }, ...]` for the matching records,
    /// largest first (an array field counts each element).
    #[serde(alias = "group_by")]
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

impl Argument for ExtractOptions {
    const NAME: &'static str = "request";

    fn code_at(_: &str) -> ErrorCode {
        ErrorCode::InvalidArgument
    }
}

impl From<ExtractOptions> for ExtractRequest {
    fn from(options: ExtractOptions) -> Self {
        Self {
            recipe: options.recipe,
            query: options.query,
            params: options.params,
            lines: options.lines.map(Into::into),
            search: options.search.map(Into::into),
            filter: options.filter,
            fields: options.fields,
            sort: options.sort,
            skip: options.skip,
            limit: options.limit,
            count: options.count,
            group_by: options.group_by,
            distinct: options.distinct,
            stats: options.stats,
            section: options.section,
            describe: options.describe,
            extract_tool: None,
        }
    }
}

/// A half-open range of records or characters, counted from 0.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct LineRange {
    /// First record (or character).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub start: u64,
    /// One past the last; omitted, to the end (output limits still apply).
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub end: Option<u64>,
    /// Records (default) or characters.
    #[cfg_attr(feature = "napi", napi(ts_type = "'records' | 'chars'"))]
    pub unit: Option<LineUnit>,
}

impl From<LineRange> for extract::LineRange {
    fn from(range: LineRange) -> Self {
        Self {
            start: range.start,
            end: range.end,
            unit: range.unit.unwrap_or_default(),
        }
    }
}

/// A regex search over the raw record lines (the header is not searched).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[cfg_attr(
    feature = "napi",
    napi(object, object_from_js = false, object_to_js = false)
)]
pub struct SearchSpec {
    /// The pattern, in Rust `regex` syntax (no look-around or back-references; linear time).
    pub pattern: String,
    /// Match without regard to case.
    #[serde(alias = "ignore_case")]
    pub ignore_case: Option<bool>,
    /// Most matching lines to return; more set `truncated`.
    #[serde(alias = "max_results")]
    #[cfg_attr(feature = "napi", napi(ts_type = "number"))]
    pub max_results: Option<u64>,
}

impl From<SearchSpec> for extract::SearchSpec {
    fn from(search: SearchSpec) -> Self {
        Self {
            pattern: search.pattern,
            ignore_case: search.ignore_case.unwrap_or(false),
            max_results: search.max_results,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::from_json;
    use serde_json::json;

    #[test]
    fn data_keeps_its_keys_and_options_are_camel_case() {
        let text = json!({"groupBy": "entityType", "where": {"entityType": "person", "$or": [{"createdAt": 1}]},
                          "sort": {"createdAt": -1}, "fields": {"firstName": 1},
                          "search": {"pattern": "x", "maxResults": 1, "ignoreCase": true}})
        .to_string();
        let request = ExtractRequest::from(from_json::<ExtractOptions>(Some(&text)).unwrap());
        assert_eq!(request.group_by.as_deref(), Some("entityType"));
        assert_eq!(
            request.filter,
            Some(json!({"entityType": "person", "$or": [{"createdAt": 1}]}))
        );
        assert_eq!(request.sort, Some(json!({"createdAt": -1})));
        assert_eq!(request.fields, Some(json!({"firstName": 1})));
        let search = request.search.unwrap();
        assert_eq!((search.max_results, search.ignore_case), (Some(1), true));
        // The `lro_extract` tool's arguments, as a model sends them.
        let tool = json!({"group_by": "tags", "search": {"pattern": "x", "max_results": 2, "ignore_case": true}});
        let request =
            ExtractRequest::from(from_json::<ExtractOptions>(Some(&tool.to_string())).unwrap());
        assert_eq!(request.group_by.as_deref(), Some("tags"));
        assert_eq!(
            request.search.map(|s| (s.max_results, s.ignore_case)),
            Some((Some(2), true))
        );
    }

    #[test]
    fn mistakes_name_the_key_with_the_cores_code() {
        let code = |text: &str| {
            let err = from_json::<OffloadOptions>(Some(text))
                .and_then(|o| o.into_request("recall"))
                .unwrap_err();
            (err.code(), err.message().to_owned())
        };
        assert_eq!(code(r#"{"detail":"huge"}"#).0, ErrorCode::InvalidDetail);
        assert_eq!(code(r#"{"detail":7}"#).0, ErrorCode::InvalidDetail);
        assert_eq!(
            code(r#"{"descriptor":"tiny"}"#).0,
            ErrorCode::InvalidArgument
        );
        let (unknown, message) = code(r#"{"detial":"light"}"#);
        assert_eq!(unknown, ErrorCode::InvalidArgument);
        assert!(
            message.starts_with("options: unknown field `detial`"),
            "{message}"
        );
        let (wrong, message) = code(r#""light""#);
        assert_eq!(wrong, ErrorCode::InvalidArgument);
        assert!(
            message.starts_with("options: invalid type: string"),
            "{message}"
        );
        for (text, says) in [
            (
                r#"{"lines":{"start":"one"}}"#,
                "request.lines.start: invalid type: string \"one\", expected u64",
            ),
            (
                r#"{"lines":{"end":5}}"#,
                "request.lines: missing field `start`",
            ),
            (
                r#"{"search":{}}"#,
                "request.search: missing field `pattern`",
            ),
            (
                r#"{"recipe":3,"search":{"pattern":"x","maxResult":2}}"#,
                "request.search: unknown field `maxResult`",
            ),
            (
                r#"{"limit":-1,"count":true}"#,
                "request.limit: invalid value: integer `-1`, expected u64",
            ),
        ] {
            let err = from_json::<ExtractOptions>(Some(text)).unwrap_err();
            assert!(err.message().starts_with(says), "{text}: {}", err.message());
        }
        let err = from_json::<OffloadOptions>(Some(r#"{"scores":[0.5,"high"]}"#)).unwrap_err();
        assert!(
            err.message()
                .starts_with("options.scores: invalid type: string"),
            "{}",
            err.message()
        );
    }

    #[test]
    fn inject_defaults_its_operation_and_a_context_its_flags() {
        let request = from_json::<OffloadOptions>(None)
            .unwrap()
            .into_request("inject")
            .unwrap();
        assert_eq!(request.operation, "inject");
        let named = from_json::<OffloadOptions>(Some(r#"{"operation":"recall","detail":"Full"}"#))
            .unwrap()
            .into_request("inject")
            .unwrap();
        assert_eq!(
            (named.operation.as_str(), named.detail),
            ("recall", Some(Detail::Full))
        );
        let context = ToolCallContext::from(
            from_json::<ToolContext>(Some(
                r#"{"toolName":"recall_memories","clientIsProxy":true}"#,
            ))
            .unwrap(),
        );
        assert_eq!(
            (
                context.tool_name.as_str(),
                context.client_is_proxy,
                context.output_schema_declared
            ),
            ("recall_memories", true, false)
        );
    }
}
