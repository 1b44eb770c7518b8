//! The results of the entry points, as JS receives them.
//!
//! Each is the core's JSON, named after its TypeScript type (declared in
//! `types-header.d.ts`: they are the core's serde types), so napi writes `Outcome` and
//! `Promise<Outcome>` into `index.d.ts` from the Rust signatures. They reach JS through
//! `JSON.parse` of their text: V8's parser builds the objects several times faster than
//! napi-rs's serde conversion (one N-API call per property), and integers beyond 2^53 become
//! numbers, as any JSON reader in JS gives them, not BigInts that `JSON.stringify` would
//! then refuse.
#![allow(
    unsafe_code,
    reason = "napi's ToNapiValue is an unsafe fn; these build their value with safe calls on the handle napi passes"
)]

use napi::bindgen_prelude::{ToNapiValue, TypeName};
use napi::{Env, JsValue, ValueType, sys};
use serde_json::Value;

macro_rules! results {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        pub struct $name(pub Value);

        impl From<Value> for $name {
            fn from(value: Value) -> Self {
                Self(value)
            }
        }

        impl TypeName for $name {
            fn type_name() -> &'static str {
                stringify!($name)
            }

            fn value_type() -> ValueType {
                ValueType::Object
            }
        }

        impl ToNapiValue for $name {
            unsafe fn to_napi_value(env: sys::napi_env, result: Self) -> napi::Result<sys::napi_value> {
                Ok(crate::js::parse(&Env::from_raw(env), &result.0)?.raw())
            }
        }
    )*};
}

results! {
    /// What the offload calls return: a descriptor, or the records inline.
    Outcome;
    /// What `interceptToolResult` returns.
    Intercepted;
    /// What `extract` returns.
    ExtractResponse;
    /// What `extractToolCall` returns: an MCP `CallToolResult` (text content, `isError`).
    ExtractToolResult;
    /// What `resolveToolCall` returns: `null`, `{ arguments }` or `{ result, code, argument }`.
    ResolvedToolCall;
    /// What `cleanup` returns.
    CleanupReport;
    /// A page of `listResources`.
    ResourcePage;
    /// What `readResource` returns.
    ReadResourceResult;
    /// The offload files' URI scheme.
    ResourceScheme;
    /// A `resource_link` content block.
    ResourceLink;
    /// The `lro_extract` tool's description.
    ExtractTool;
    /// A configuration, every key present (camelCase).
    Config;
    /// Every configuration key, from the core's table.
    ConfigKeys;
}
