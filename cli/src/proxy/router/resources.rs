//! MCP resources through the proxy: the offload files (`lro://offloads/{file}`, served by the
//! core's [`lro_mcp::resources`]) beside the server's own resources.
//!
//! - `initialize`: the proxy's `resources` capability is merged into the server's
//!   (`listChanged: true`; a server without one gets one, and the proxy then answers every
//!   resource request itself);
//! - `resources/list`: each page holds a page of offload files (newest first) and a page of
//!   the server's resources; the cursor carries both positions, so either source may run
//!   out first, and a client that reads one page only still sees the latest offloads;
//! - `resources/templates/list`: LRO's two templates lead the first page;
//! - `resources/read`, `resources/subscribe`, `resources/unsubscribe` of an `lro://offloads/`
//!   URI are answered here (any such URI: the proxy owns that space), everything else goes
//!   to the server;
//! - `notifications/resources/list_changed` after an offload and after a cleanup that
//!   removed files, once the client has asked for the list or subscribed to a resource (a
//!   client that never did has no list to refresh).

use std::sync::{Arc, Mutex, PoisonError};

use lro_core::{Host, LroError, Offloader};
use lro_mcp::resources::{self, jsonrpc_error_code};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::super::jsonrpc::{self, IdKey};
use super::super::state::{LroPage, Pending};
use super::{ClientAction, Router, parse};

/// JSON-RPC "invalid params": a cursor the proxy never gave.
const INVALID_PARAMS: i64 = -32602;

/// A JSON-RPC response to `resources/read`, as `jsonrpc::response` makes it.
#[derive(Serialize)]
struct ReadResponse<'r> {
    jsonrpc: &'static str,
    id: Value,
    result: &'r resources::ReadResourceResult,
}

/// Held by the `resources/read` of an offload file being answered (one at a time).
static READS: Mutex<()> = Mutex::new(());

/// JSON-RPC "method not found".
const METHOD_NOT_FOUND: i64 = -32601;

/// The proxy's `resources/list` cursor: where each source goes on. A source that is absent
/// has no more pages (the first page, asked without a cursor, starts both).
#[derive(Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
struct Cursor {
    /// The core's cursor of the next page of offload files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    lro: Option<String>,
    /// The server's own cursor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    server: Option<String>,
}

impl Cursor {
    /// The cursor of the page after one whose sources gave these cursors; `None` when both
    /// are done.
    fn next(lro: Option<String>, server: Option<String>) -> Option<String> {
        let cursor = Self { lro, server };
        (cursor != Self::default()).then(|| serde_json::to_string(&cursor).unwrap_or_default())
    }
}

/// The `result` of a `resources/list` page of offload files, or the error to answer with.
fn offload_page<H: Host>(
    lro: &Offloader<H>,
    page: &LroPage,
) -> Result<resources::ResourcePage, LroError> {
    match page {
        LroPage::First => lro_mcp::list_resources(lro, None),
        LroPage::After(cursor) => lro_mcp::list_resources(lro, Some(cursor)),
        LroPage::Done => Ok(resources::ResourcePage::default()),
    }
}

fn error_response(id: &IdKey, err: &LroError) -> Value {
    jsonrpc::error(
        id,
        jsonrpc_error_code(err.code()),
        &format!("error[{}]: {}", err.code(), err.message()),
    )
}

impl Router {
    /// A client `resources/*` request; `None` when it is not one of them.
    pub(super) fn resources_request(
        self: &Arc<Self>,
        id: &IdKey,
        method: &str,
        line: &[u8],
    ) -> Option<ClientAction> {
        let params = match super::read_request(line) {
            Ok(mut message) => message.get_mut("params").map_or(Value::Null, Value::take),
            Err(reason) => return Some(self.refuse_unreadable(id, &reason)),
        };
        let uri = params.get("uri").and_then(Value::as_str).map(str::to_owned);
        let owned = uri.as_deref().is_some_and(resources::is_offload_uri);
        let lacks = self.state.server_lacks_resources();
        Some(match method {
            "resources/list" => {
                self.state.set_client_asked_resources();
                self.list_resources(id, &params, line)
            }
            "resources/templates/list" if lacks => {
                let templates = resources::resource_templates();
                self.out.send(&jsonrpc::response(
                    id,
                    json!({"resourceTemplates": templates}),
                ));
                ClientAction::Done
            }
            "resources/templates/list" => {
                let first_page = params.get("cursor").is_none_or(Value::is_null);
                self.state
                    .insert(id.clone(), Pending::ResourceTemplatesList { first_page });
                self.forward(id, line)
            }
            "resources/read" if owned => {
                let router = Arc::clone(self);
                let (id, uri) = (id.clone(), uri.unwrap_or_default());
                // A file may be large (up to extract.max_read_bytes): not on the reader thread.
                std::thread::spawn(move || {
                    // One read at a time: an answer holds its file about three times (the
                    // text, the JSON value, the message), so concurrent reads of a large
                    // file multiplied the proxy's memory at the client's will. Reads are
                    // bound by the disk anyway; the others wait their turn.
                    let _turn = READS.lock().unwrap_or_else(PoisonError::into_inner);
                    match lro_mcp::read_resource(&router.lro, &uri) {
                        // Serialized from the result itself: the file's text is not copied
                        // into a JSON value first.
                        Ok(read) => router.out.send(&ReadResponse {
                            jsonrpc: "2.0",
                            id: id.to_value(),
                            result: &read,
                        }),
                        Err(err) => router.out.send(&error_response(&id, &err)),
                    }
                });
                ClientAction::Done
            }
            "resources/subscribe" | "resources/unsubscribe" if owned => {
                if method == "resources/subscribe" {
                    self.state.set_client_asked_resources();
                }
                // Offload files never change; their removal is announced by list_changed.
                let answer = match resources::parse_uri(
                    uri.as_deref().unwrap_or_default(),
                    &self.lro.config().file_prefix,
                ) {
                    Ok(_) => jsonrpc::response(id, json!({})),
                    Err(err) => error_response(id, &err),
                };
                self.out.send(&answer);
                ClientAction::Done
            }
            "resources/read" | "resources/subscribe" | "resources/unsubscribe" if lacks => {
                let (code, message) = if method == "resources/read" {
                    (
                        jsonrpc_error_code(lro_core::ErrorCode::NotFound),
                        format!(
                            "resource not found: {} (the server offers no resources; lro proxy serves {}FILE)",
                            uri.unwrap_or_default(),
                            resources::URI_PREFIX
                        ),
                    )
                } else {
                    (
                        METHOD_NOT_FOUND,
                        format!("{method}: the server offers no resources"),
                    )
                };
                self.out.send(&jsonrpc::error(id, code, &message));
                ClientAction::Done
            }
            "resources/subscribe" => {
                self.state.set_client_asked_resources();
                return None;
            }
            _ => return None,
        })
    }

    fn forward(&self, id: &IdKey, line: &[u8]) -> ClientAction {
        ClientAction::Forward {
            message: line.to_vec(),
            request: Some(id.clone()),
        }
    }

    /// `resources/list`: answered here when the server has no resources (or no more pages of
    /// them), else forwarded with the server's own cursor.
    fn list_resources(self: &Arc<Self>, id: &IdKey, params: &Value, line: &[u8]) -> ClientAction {
        let (lro_page, server_cursor) = match params.get("cursor") {
            None | Some(Value::Null) => (LroPage::First, None),
            Some(Value::String(text)) => match serde_json::from_str::<Cursor>(text) {
                Ok(cursor) if cursor != Cursor::default() => (
                    cursor.lro.map_or(LroPage::Done, LroPage::After),
                    cursor.server,
                ),
                _ => {
                    self.out.send(&jsonrpc::error(
                        id,
                        INVALID_PARAMS,
                        &format!("resources/list: {text:?} is not a cursor of this list"),
                    ));
                    return ClientAction::Done;
                }
            },
            Some(other) => {
                self.out.send(&jsonrpc::error(
                    id,
                    INVALID_PARAMS,
                    &format!("resources/list: the cursor must be a string, got {other}"),
                ));
                return ClientAction::Done;
            }
        };
        let first = matches!(lro_page, LroPage::First);
        if self.state.server_lacks_resources() || (server_cursor.is_none() && !first) {
            let router = Arc::clone(self);
            let id = id.clone();
            std::thread::spawn(move || {
                let answer = match lro_page_result(&router.lro, &lro_page, None, Vec::new()) {
                    Ok(result) => jsonrpc::response(&id, result),
                    Err(err) => error_response(&id, &err),
                };
                router.out.send(&answer);
            });
            return ClientAction::Done;
        }
        self.state
            .insert(id.clone(), Pending::ResourcesList { lro: lro_page });
        let Some(mut message) = parse(line) else {
            return self.forward(id, line);
        };
        // The server sees its own cursor (or none, for its first page).
        if let Some(Value::Object(params)) = message.get_mut("params") {
            match server_cursor {
                Some(cursor) => params.insert("cursor".into(), Value::String(cursor)),
                None => params.remove("cursor"),
            };
        }
        ClientAction::Forward {
            message: serde_json::to_vec(&message).unwrap_or_default(),
            request: Some(id.clone()),
        }
    }

    /// The server's page of `resources/list`, with a page of offload files in front.
    pub(super) fn on_resources_list(&self, line: &[u8], page: LroPage) {
        let Some(mut message) = parse(line) else {
            return self.pass(line);
        };
        let Some(Value::Object(result)) = message.get_mut("result") else {
            return self.pass(line);
        };
        let server_next = result
            .remove("nextCursor")
            .and_then(|c| c.as_str().map(str::to_owned));
        let theirs = match result.remove("resources") {
            Some(Value::Array(resources)) => resources,
            _ => Vec::new(),
        };
        let merged = lro_page_result(&self.lro, &page, server_next, theirs).unwrap_or_else(|err| {
            // The server's resources still go through; the offload files are missing.
            note!(
                "lro proxy: resources/list: offload files left out: error[{}]: {}",
                err.code(),
                err.message()
            );
            json!({})
        });
        if let Value::Object(merged) = merged {
            result.extend(merged);
        }
        self.out.send(&message);
    }

    /// The server's page of `resources/templates/list`; LRO's templates lead the first.
    pub(super) fn on_resource_templates(&self, line: &[u8], first_page: bool) {
        if !first_page {
            return self.pass(line);
        }
        let Some(mut message) = parse(line) else {
            return self.pass(line);
        };
        let Some(Value::Object(result)) = message.get_mut("result") else {
            return self.pass(line);
        };
        let mut templates = resources::resource_templates();
        if let Some(Value::Array(theirs)) = result.remove("resourceTemplates") {
            templates.extend(theirs);
        }
        result.insert("resourceTemplates".into(), Value::Array(templates));
        self.out.send(&message);
    }

    /// Merges the proxy's `resources` capability into the server's `capabilities`.
    pub(super) fn merge_resources_capability(&self, capabilities: &mut Map<String, Value>) {
        match capabilities.get_mut("resources") {
            Some(Value::Object(theirs)) => {
                theirs.insert("listChanged".into(), Value::Bool(true));
            }
            _ => {
                capabilities.insert("resources".into(), json!({"listChanged": true}));
                self.state.set_server_lacks_resources();
            }
        }
    }

    /// Tells the client that the offload files changed (a file written or removed), if it
    /// has asked for the list or subscribed.
    pub fn resources_changed(&self) {
        if self.state.client_asked_resources() {
            self.out
                .send(&json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}));
        }
    }
}

/// A `resources/list` result: the page of offload files, then `theirs` (the server's), and
/// the cursor of the next page of both.
fn lro_page_result<H: Host>(
    lro: &Offloader<H>,
    page: &LroPage,
    server_next: Option<String>,
    theirs: Vec<Value>,
) -> Result<Value, LroError> {
    let ours = offload_page(lro, page)?;
    let mut listed: Vec<Value> = ours
        .resources
        .iter()
        .map(|r| serde_json::to_value(r).unwrap_or(Value::Null))
        .collect();
    listed.extend(theirs);
    let mut result = json!({"resources": listed});
    if let Some(next) = Cursor::next(ours.next_cursor, server_next) {
        result["nextCursor"] = Value::String(next);
    }
    Ok(result)
}

#[cfg(test)]
mod tests;
