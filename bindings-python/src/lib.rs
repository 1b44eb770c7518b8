//! The `lro._lro` extension module: Python bindings of `lro-core`.
//!
//! A thin shim. Every decision (threshold, detail, JSONL, descriptor, recipes, extraction,
//! cleanup, events) is the core's; this crate converts Python objects to the core's serde
//! types and back, maps core errors to `lro` exception classes by their stable code (through
//! `CODE_CLASSES` in `lro/_errors.py`, the one table of them; see `convert::CoreError`), and
//! releases the GIL while the core does file I/O. The Python package (`python/lro`) adds the
//! module-level functions, the exception classes and the MCP integrations.
#![deny(unsafe_code)]

mod config;
mod convert;
mod objects;
mod offloader;
mod plain;
mod pystr;
mod tojson;

/// mimalloc, as in every native LRO artifact: extraction allocates and frees millions of
/// small jq values across worker threads, where glibc's per-thread arenas are slow (see
/// ARCHITECTURE.md, "Allocator").
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use lro_core::ErrorCode;
use lro_mcp::intercept;
use pyo3::prelude::*;

/// The module the `lro` package wraps.
#[pymodule]
mod _lro {
    use super::*;

    #[pymodule_export]
    use crate::config::PyConfig;
    #[pymodule_export]
    use crate::config::config_keys;
    #[pymodule_export]
    use crate::offloader::PyOffloader;

    /// The LRO operation name for an MCP tool name (`recall_memories` -> `recall`; any other
    /// tool name made file-name safe).
    #[pyfunction]
    fn operation_for_tool(tool_name: &str) -> String {
        intercept::operation_for_tool(tool_name)
    }

    /// The extract tool's name for a server named `server_name`: `lro_extract_<server>`
    /// (lowercased, each run of other characters one `_`, at most 64 characters), or
    /// `lro_extract` without a name.
    #[pyfunction]
    #[pyo3(signature = (server_name=None))]
    fn extract_tool_for_server(server_name: Option<&str>) -> String {
        lro_mcp::extract_tool_for_server(server_name)
    }

    /// The extract tool's definition in `form` (`"short"`, the default, or `"long"`: the
    /// configuration's `mcp.extract_tool_definition`): `{"description", "inputSchema"}`, as
    /// every LRO surface lists it. Another form raises `ConfigError`.
    #[pyfunction]
    #[pyo3(signature = (form="short"))]
    fn extract_tool_definition(py: Python<'_>, form: &str) -> PyResult<Py<PyAny>> {
        let mut config = lro_core::OffloadConfig::default();
        config
            .set_str("mcp.extract_tool_definition", form)
            .map_err(convert::CoreError)?;
        let form = config.mcp.extract_tool_definition;
        let definition = serde_json::json!({
            "description": lro_mcp::extract_tool::tool_description(form),
            "inputSchema": lro_mcp::extract_tool::tool_input_schema(form),
        });
        Ok(convert::to_py(py, &definition)?.unbind())
    }

    /// Estimated tokens of `text` with the built-in heuristic (characters / 4 for Latin
    /// script, one per character for wide scripts).
    #[pyfunction]
    fn estimate_tokens(text: &str) -> usize {
        lro_core::estimate::estimate_tokens(text.as_bytes())
    }

    /// The exception the core's error `code` raises (for tests and for code that maps
    /// codes itself): the class `lro.CODE_CLASSES` gives it, the base class for an unknown code.
    #[pyfunction]
    fn error_for_code(py: Python<'_>, code: &str, message: &str) -> Py<PyAny> {
        convert::exception(py, code, message)
            .into_value(py)
            .into_any()
    }

    /// The `resource_link` content block of an offloaded result whose file is `file_path`.
    #[pyfunction]
    fn resource_link(py: Python<'_>, file_path: &str) -> PyResult<Py<PyAny>> {
        Ok(crate::convert::to_py(py, &lro_mcp::resources::resource_link(file_path))?.unbind())
    }

    /// The JSON-RPC error code a failed resource request answers with, for an error `code`
    /// (`not_found` -32002, `path_denied` and `invalid_argument` -32602, others -32603).
    #[pyfunction]
    fn resource_error_code(code: &str) -> i64 {
        let known = ErrorCode::ALL.into_iter().find(|c| c.as_str() == code);
        known.map_or(-32603, lro_mcp::resources::jsonrpc_error_code)
    }

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        let codes: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        m.add("ERROR_CODES", pyo3::types::PyTuple::new(m.py(), codes)?)?;
        m.add(
            "DEFAULT_THRESHOLD_TOKENS",
            lro_core::config::DEFAULT_OFFLOAD_THRESHOLD_TOKENS,
        )?;
        m.add("DEFAULT_TTL_SECONDS", lro_core::config::DEFAULT_TTL_SECONDS)?;
        // The `lro_extract` tool as every surface describes it by default (the short form;
        // `extract_tool_definition` gives either).
        let form = lro_core::ToolDefinition::default();
        m.add(
            "EXTRACT_TOOL_DESCRIPTION",
            lro_mcp::extract_tool::tool_description(form),
        )?;
        let descriptions = pyo3::types::PyDict::new(m.py());
        for name in lro_mcp::extract_tool::QUERY_PARAMETERS {
            descriptions.set_item(name, lro_mcp::extract_tool::argument_description(name))?;
        }
        m.add("EXTRACT_QUERY_PARAMETERS", descriptions)?;
        m.add(
            "EXTRACT_TOOL_INPUT_SCHEMA",
            convert::value_to_py(m.py(), &lro_mcp::extract_tool::tool_input_schema(form))?,
        )?;
        // The offload files as MCP resources (the MCP helpers serve them).
        m.add("RESOURCE_URI_PREFIX", lro_mcp::resources::URI_PREFIX)?;
        m.add("RESOURCE_MIME_TYPE", lro_mcp::resources::MIME_TYPE)?;
        m.add(
            "RESOURCE_TEMPLATES",
            crate::convert::to_py(
                m.py(),
                &serde_json::Value::Array(lro_mcp::resources::resource_templates()),
            )?,
        )?;
        Ok(())
    }
}
