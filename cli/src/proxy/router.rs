//! What happens to each message, in each direction.
//!
//! Messages the proxy does not need to change are forwarded as the very bytes received
//! (numbers, key order and escapes untouched). Only these are rebuilt:
//! - client `initialize`: `params.clientInfo.proxy = true` (and a client that set it itself
//!   gets every result untouched);
//! - client `tools/call` whose arguments hold result handles (`{"$lro": URI, ...}`): each
//!   replaced by the data it names, or the call answered with `isError` ([`handles`]);
//! - client `tools/call` of the extract tool: answered here, never forwarded. Its name is
//!   `lro_extract_<server>` from the server's `serverInfo.name` (`lro_extract` without
//!   one), or `mcp.extract_tool_name`; a call of any other name, the plain `lro_extract`
//!   included, goes to the server like any tool the proxy does not list;
//! - server response to `initialize`: a `tools` capability is added when missing (the proxy
//!   then answers `tools/list` itself, with the extract tool alone), and the `resources`
//!   capability merged with the proxy's;
//! - client `resources/*` requests and server responses to them: the offload files are
//!   resources too, beside the server's own ([`resources`]);
//! - server response to `tools/list`: `outputSchema` removed from every tool but those
//!   `mcp.never_offload` names, the extract tool added to the first page (replacing a
//!   server tool of the same name);
//! - server response to `tools/call`: offloaded by lro-mcp when above the threshold. It
//!   reads the result from its text ([`lro_mcp::intercept_tool_result_text`]): a
//!   large result is never parsed into a `Value` tree, and one it leaves alone is forwarded
//!   as the bytes received, whatever its size.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use lro_core::Offloader;
use lro_core::json::read;
use lro_host_s3::NativeHost;
use lro_mcp::intercept_text::TEXT_RESULT_MIN;
use lro_mcp::{InterceptAction, InterceptedText, ToolCallContext};
use serde_json::{Value, json};

use super::extract_tool;
use super::jsonrpc::{self, IdKey, Kind, Peek};
use super::output::ClientOut;
use super::state::{Pending, State};
pub use oversize::MessageLimits;

/// What to do with a client message.
#[derive(Debug)]
pub enum ClientAction {
    /// Send this to the server; `request` is the id when it is a request.
    Forward {
        /// The message, JSON text without newline.
        message: Vec<u8>,
        /// The request id, for requests.
        request: Option<IdKey>,
    },
    /// Answered (or dropped) here.
    Done,
}

/// The proxy's message router.
pub struct Router {
    lro: Arc<Offloader<NativeHost>>,
    out: ClientOut,
    state: State,
    request_timeout: Option<Duration>,
    limits: MessageLimits,
    /// `lro_extract` calls in progress, each with the flag that cancels it.
    extracts: Mutex<HashMap<IdKey, Arc<AtomicBool>>>,
}

impl Router {
    /// A router that offloads with `lro` and writes to `out`.
    pub fn new(lro: Arc<Offloader<NativeHost>>, out: ClientOut) -> Self {
        Self {
            lro,
            out,
            state: State::default(),
            request_timeout: None,
            limits: MessageLimits {
                client: usize::MAX,
                server: usize::MAX,
            },
            extracts: Mutex::default(),
        }
    }

    /// Reads messages up to these sizes (see [`oversize`]).
    pub fn with_limits(mut self, limits: MessageLimits) -> Self {
        self.limits = limits;
        self
    }

    /// Gives up on requests the server has not answered within `timeout` (`None`: waits
    /// forever); [`Router::expire_requests`] answers them.
    pub fn with_request_timeout(mut self, timeout: Option<Duration>) -> Self {
        self.state.set_request_timeout(timeout);
        self.request_timeout = timeout;
        self
    }

    /// Answers every request whose time is up with a timeout error and returns their ids,
    /// for the transport to tell the server (`notifications/cancelled`). A late answer from
    /// the server to one of them is dropped: the client has had its answer.
    pub fn expire_requests(&self) -> Vec<IdKey> {
        let expired = self.state.expire(Instant::now());
        let seconds = self
            .request_timeout
            .map_or(0, |t| t.as_secs_f64().round() as u64);
        for id in &expired {
            self.out.send(&jsonrpc::error(
                id,
                jsonrpc::REQUEST_TIMEOUT,
                &format!(
                    "the MCP server did not answer within {seconds} s (lro proxy, --request-timeout)"
                ),
            ));
        }
        expired
    }

    /// The negotiated protocol version, once the server has answered `initialize`.
    pub fn protocol_version(&self) -> Option<String> {
        self.state.protocol_version()
    }

    /// Handles one line from the client. Only valid JSON-RPC reaches the server: a line
    /// that is not JSON gets `-32700`, one that is no request, notification or response
    /// `-32600` (with the request's id when it has one MCP allows, else `null`), a request
    /// whose id is still in flight `-32600` too, and a response to no request of the
    /// server's is dropped.
    pub fn from_client(self: &Arc<Self>, line: &[u8]) -> ClientAction {
        if line.iter().all(u8::is_ascii_whitespace) {
            return ClientAction::Done;
        }
        let peek = match read_envelope(line) {
            Ok(peek) => peek,
            Err((code, reason)) => {
                note!(
                    "lro proxy: answering {code} to a message from the client ({reason}): {}",
                    jsonrpc::excerpt(line)
                );
                // JSON text is UTF-8; a request that is JSON but for a byte in a string
                // still has an id the client waits on: the error answers it.
                let id = match Peek::parse(line).as_ref().map(Peek::kind) {
                    Some(Kind::Request(id, _)) => id.to_value(),
                    _ => Value::Null,
                };
                self.out.send(&jsonrpc::error_to(
                    id,
                    code,
                    &format!("{reason} (lro proxy)"),
                ));
                return ClientAction::Done;
            }
        };
        match peek.kind() {
            Kind::Invalid {
                id,
                request,
                reason,
            } => {
                note!(
                    "lro proxy: answering {} to a message from the client ({reason}): {}",
                    jsonrpc::INVALID_REQUEST,
                    jsonrpc::excerpt(line)
                );
                let id = id
                    .filter(|_| request)
                    .map_or(Value::Null, |id| id.to_value());
                self.out.send(&jsonrpc::error_to(
                    id,
                    jsonrpc::INVALID_REQUEST,
                    &format!("invalid request: {reason} (lro proxy)"),
                ));
                return ClientAction::Done;
            }
            Kind::Request(id, _) if self.state.in_flight(&id) => {
                // A second request with the id of one in flight: the server's answer could
                // not tell them apart (MCP: an id is never used twice in a session).
                note!(
                    "lro proxy: answering {} to a request whose id {} is already in flight",
                    jsonrpc::INVALID_REQUEST,
                    id.to_value()
                );
                self.out.send(&jsonrpc::error(
                    &id,
                    jsonrpc::INVALID_REQUEST,
                    "invalid request: a request with this id is still in flight (lro proxy)",
                ));
                return ClientAction::Done;
            }
            Kind::Response(id) if !self.state.take_server_request(&id) => {
                note!(
                    "lro proxy: dropping a response from the client to no request of the server's (id {}): {}",
                    id.to_value(),
                    jsonrpc::excerpt(line)
                );
                return ClientAction::Done;
            }
            _ => {}
        }
        let forward = |request: Option<IdKey>| ClientAction::Forward {
            message: line.to_vec(),
            request,
        };
        match peek.kind() {
            Kind::Request(id, "tools/call") => {
                let (message, params) = match read_request(line) {
                    Ok(mut message) => {
                        let params = message.get_mut("params").map_or(Value::Null, Value::take);
                        (message, params)
                    }
                    Err(reason) => return self.refuse_unreadable(&id, &reason),
                };
                let name = params
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned();
                if name == self.extract_tool_name() {
                    self.answer_extract(id, params.get("arguments").cloned());
                    return ClientAction::Done;
                }
                let arguments = params.get("arguments").cloned();
                let progress_token = params.pointer("/_meta/progressToken").cloned();
                let message = match self.resolve_handles(&id, line, message, params) {
                    handles::Resolved::Unchanged => line.to_vec(),
                    handles::Resolved::Message(message) => message,
                    handles::Resolved::Answered => return ClientAction::Done,
                };
                // The call as the client made it (its handles, not their data) is what the
                // offload of its result records.
                self.state.insert_with_progress(
                    id.clone(),
                    Pending::ToolCall { name, arguments },
                    progress_token,
                );
                ClientAction::Forward {
                    message,
                    request: Some(id),
                }
            }
            Kind::Request(id, "tools/list") if self.state.server_lacks_tools() => {
                let tools: Vec<Value> = self
                    .lists_extract_tool()
                    .then(|| self.extract_tool_listed())
                    .into_iter()
                    .collect();
                self.out
                    .send(&jsonrpc::response(&id, json!({ "tools": tools })));
                ClientAction::Done
            }
            Kind::Request(id, "tools/list") => {
                let first_page = match read_request(line) {
                    Ok(message) => message.pointer("/params/cursor").is_none_or(Value::is_null),
                    Err(reason) => return self.refuse_unreadable(&id, &reason),
                };
                self.state
                    .insert(id.clone(), Pending::ToolsList { first_page });
                forward(Some(id))
            }
            Kind::Request(id, "initialize") => {
                let mut message = match read_request(line) {
                    Ok(message) => message,
                    Err(reason) => return self.refuse_unreadable(&id, &reason),
                };
                self.state.insert(id.clone(), Pending::Initialize);
                let client_info = message.pointer_mut("/params/clientInfo");
                let announced = client_info
                    .as_ref()
                    .and_then(|c| c.get("proxy"))
                    .and_then(Value::as_bool)
                    == Some(true);
                self.state.set_client_is_proxy(announced);
                if let Some(Value::Object(info)) = client_info {
                    info.insert("proxy".into(), Value::Bool(true));
                }
                ClientAction::Forward {
                    message: serde_json::to_vec(&message).unwrap_or_default(),
                    request: Some(id),
                }
            }
            Kind::Request(id, method) if method.starts_with("resources/") => {
                if let Some(action) = self.resources_request(&id, method, line) {
                    return action;
                }
                self.state.insert(id.clone(), Pending::Other);
                forward(Some(id))
            }
            Kind::Request(id, _) => {
                self.state.insert(id.clone(), Pending::Other);
                forward(Some(id))
            }
            Kind::Notification("notifications/cancelled") => {
                let cancelled = parse(line).and_then(|m| m.pointer("/params/requestId").cloned());
                if let Some(request_id) = cancelled {
                    let id = IdKey::of(&request_id);
                    // An `lro_extract` call is the proxy's own: it stops, is not answered
                    // (MCP), and the server, which never saw it, is not told.
                    if self.cancel_extract(&id) {
                        return ClientAction::Done;
                    }
                    // The client wants no answer any more (MCP): the server's, should it
                    // come, is dropped.
                    self.state.cancel(&id);
                }
                forward(None)
            }
            Kind::Notification(_) | Kind::Response(_) | Kind::Invalid { .. } => forward(None),
        }
    }

    /// A request the proxy must read to handle (`tools/call`: is it `lro_extract`?,
    /// `initialize`, `tools/list`, `resources/*`) but cannot: nested deeper than serde_json
    /// reads (128 levels) or holding a number out of range. Forwarding it unread sent an
    /// `lro_extract` call, its file path and query, to a server that never offered the tool
    /// (whose answer then came back inline); the proxy answers it instead.
    fn refuse_unreadable(&self, id: &IdKey, reason: &str) -> ClientAction {
        note!(
            "lro proxy: answering {INVALID_PARAMS} to request {}: {reason}",
            id.to_value()
        );
        self.out.send(&jsonrpc::error(
            id,
            INVALID_PARAMS,
            &format!("invalid params: the proxy cannot read this request: {reason} (lro proxy)"),
        ));
        ClientAction::Done
    }

    fn answer_extract(self: &Arc<Self>, id: IdKey, arguments: Option<Value>) {
        // Extraction is bounded by the core's limits but may take a while: never block the
        // client's other messages on it.
        // Its own thread, with the stack the core's bounds are sized for: a filter past a
        // bound is an `isError` result on this call, never the end of the proxy.
        let router = Arc::clone(self);
        let listed_as = self.extract_tool_name();
        let answer = (Arc::clone(self), id.clone());
        let cancel = Arc::new(AtomicBool::new(false));
        self.lock_extracts().insert(id.clone(), Arc::clone(&cancel));
        let spawned = std::thread::Builder::new()
            .name("lro-extract".to_owned())
            .stack_size(lro_core::EXTRACT_STACK_BYTES)
            .spawn(move || {
                let result =
                    extract_tool::call(&router.lro, arguments.as_ref(), &cancel, &listed_as);
                router.finish_extract(&id, &cancel);
                // A `save: true` call wrote an offload file: announced like any other.
                let saved = arguments.as_ref().and_then(|a| a.get("save"))
                    == Some(&Value::Bool(true))
                    && result["isError"] == false;
                if !cancel.load(Ordering::SeqCst) {
                    router.out.send(&jsonrpc::response(&id, result));
                }
                if saved {
                    router.resources_changed();
                }
            });
        if let Err(e) = spawned {
            let (router, id) = answer;
            router.lock_extracts().remove(&id);
            let result = serde_json::json!({
                "content": [{"type": "text", "text": format!("error[resource_limit]: cannot start a thread for the extraction: {e}")}],
                "isError": true
            });
            router.out.send(&jsonrpc::response(&id, result));
        }
    }

    fn lock_extracts(&self) -> std::sync::MutexGuard<'_, HashMap<IdKey, Arc<AtomicBool>>> {
        self.extracts.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Cancels the `lro_extract` call `id` if one is in progress.
    fn cancel_extract(&self, id: &IdKey) -> bool {
        let extracts = self.lock_extracts();
        extracts
            .get(id)
            .inspect(|flag| flag.store(true, Ordering::SeqCst))
            .is_some()
    }

    /// Forgets the call `id` (unless the id was reused meanwhile by a newer call). Under the
    /// lock, so a cancellation either lands before (no answer) or finds no call.
    fn finish_extract(&self, id: &IdKey, cancel: &Arc<AtomicBool>) {
        let mut extracts = self.lock_extracts();
        if extracts.get(id).is_some_and(|c| Arc::ptr_eq(c, cancel)) {
            extracts.remove(id);
        }
    }

    /// Handles one message from the server. What is not valid JSON-RPC never reaches the
    /// client (a note on stderr; a broken answer to a request in flight fails it), nor does
    /// a response to no request in flight (a duplicate, an unknown id, a late answer to a
    /// request that timed out or was cancelled).
    pub fn on_server_message(&self, line: Vec<u8>) {
        let line_ref = jsonrpc::trim_line(&line);
        if line_ref.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if line_ref.trim_ascii_start().starts_with(b"[") {
            return self.on_server_batch(line_ref);
        }
        let peek = match read_envelope(line_ref) {
            Ok(peek) => peek,
            Err((_, reason)) => {
                note!(
                    "lro proxy: ignoring a malformed message from the server ({reason}): {}",
                    jsonrpc::excerpt(line_ref)
                );
                // JSON text is UTF-8 and the client could not read this line: a response
                // to a request in flight becomes an error for it (found by fuzzing).
                if let Some(Kind::Response(id)) = Peek::parse(line_ref).as_ref().map(Peek::kind) {
                    self.fail_request(&id, "the MCP server's answer is not valid JSON (lro proxy)");
                }
                return;
            }
        };
        let id = match peek.kind() {
            Kind::Response(id) => id,
            Kind::Request(id, _) => {
                // The client's answer to it is forwarded once.
                self.state.remember_server_request(id);
                return self.pass(line_ref);
            }
            Kind::Notification("notifications/progress") => {
                // The server is working on a call: its deadline moves.
                if let Some(token) = parse(line_ref)
                    .as_ref()
                    .and_then(|m| m.pointer("/params/progressToken"))
                {
                    self.state.progress(token);
                }
                return self.pass(line_ref);
            }
            Kind::Notification(_) => return self.pass(line_ref),
            Kind::Invalid {
                id,
                request,
                reason,
            } => {
                note!(
                    "lro proxy: ignoring an invalid message from the server ({reason}): {}",
                    jsonrpc::excerpt(line_ref)
                );
                if let Some(id) = id.filter(|_| !request) {
                    self.fail_request(
                        &id,
                        &format!(
                            "the MCP server's answer is not valid JSON-RPC: {reason} (lro proxy)"
                        ),
                    );
                }
                return;
            }
        };
        let has_result = peek.result.is_some();
        drop(peek);
        let Some(pending) = self.state.take(&id) else {
            let (what, why) = if self.state.take_abandoned(&id) {
                ("late answer", "it timed out or was cancelled")
            } else {
                (
                    "answer",
                    "no request with this id is in flight (a duplicate or an unknown id)",
                )
            };
            note!(
                "lro proxy: dropping the server's {what} to request {}: {why}",
                id.to_value()
            );
            return;
        };
        if !has_result {
            return self.pass(line_ref);
        }
        match pending {
            Pending::Other => self.pass(line_ref),
            Pending::Initialize => self.on_initialize(line_ref),
            Pending::ToolsList { first_page } => self.on_tools_list(line_ref, first_page),
            Pending::ToolCall { name, arguments } => {
                self.on_tool_result(line, &id, name, arguments)
            }
            Pending::ResourcesList { lro } => self.on_resources_list(line_ref, lro),
            Pending::ResourceTemplatesList { first_page } => {
                self.on_resource_templates(line_ref, first_page)
            }
        }
    }

    /// A JSON-RPC batch from the server (MCP 2025-03-26): each message on its own.
    fn on_server_batch(&self, line: &[u8]) {
        let Ok(batch) = serde_json::from_slice::<Vec<Value>>(line) else {
            note!(
                "lro proxy: ignoring a malformed message from the server: {}",
                jsonrpc::excerpt(line)
            );
            return;
        };
        for message in batch {
            if message.is_object() {
                self.on_server_message(serde_json::to_vec(&message).unwrap_or_default());
            } else {
                note!(
                    "lro proxy: ignoring a batch item from the server that is not a message: {}",
                    jsonrpc::excerpt(message.to_string().as_bytes())
                );
            }
        }
    }

    /// Forwards a message as received (rebuilt only if it would break the line framing).
    fn pass(&self, message: &[u8]) {
        if message.contains(&b'\n') || message.contains(&b'\r') {
            if let Some(value) = parse(message) {
                return self.out.send(&value);
            }
        }
        self.out.send_raw(message);
    }

    fn on_initialize(&self, line: &[u8]) {
        let Some(mut message) = parse_keeping_lone_surrogates(line) else {
            return self.pass(line);
        };
        let version = message
            .pointer("/result/protocolVersion")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.state.set_protocol_version(version);
        let server_name = message
            .pointer("/result/serverInfo/name")
            .and_then(Value::as_str)
            .map(str::to_owned);
        self.state.set_server_name(server_name);
        let Some(Value::Object(caps)) = message.pointer_mut("/result/capabilities") else {
            return self.pass(line);
        };
        if !caps.contains_key("tools") {
            caps.insert("tools".into(), json!({}));
            self.state.set_server_lacks_tools();
        }
        self.merge_resources_capability(caps);
        self.out.send(&message);
    }

    /// The extract tool's name: `mcp.extract_tool_name`, else `lro_extract_<server>` from
    /// the server's `serverInfo.name` (`lro_extract` before `initialize` or without one).
    fn extract_tool_name(&self) -> String {
        lro_mcp::extract_tool_name(&self.lro.config().mcp, self.state.server_name().as_deref())
    }

    /// Whether `tools/list` gains the extract tool: not for a client that is itself an LRO
    /// proxy. Its results pass here untouched (it offloads them on its side, where its agent
    /// reads the files), so this proxy has nothing to extract from, and listing the tool too
    /// would only hide it behind the client's own of the same name.
    fn lists_extract_tool(&self) -> bool {
        !self.state.client_is_proxy()
    }

    /// The extract tool as `tools/list` gives it, under its name.
    fn extract_tool_listed(&self) -> Value {
        let mut tool = extract_tool::descriptor(self.lro.config().mcp.extract_tool_definition);
        tool["name"] = Value::String(self.extract_tool_name());
        tool
    }

    fn on_tools_list(&self, line: &[u8], first_page: bool) {
        let Some(mut message) = parse_keeping_lone_surrogates(line) else {
            return self.pass(line);
        };
        let Some(Value::Array(tools)) = message.pointer_mut("/result/tools") else {
            return self.pass(line);
        };
        // The proxy's extract tool replaces a server tool of the same name (its calls could
        // not reach both), and says so: a hidden tool must never go unnoticed.
        let extract_name = self.extract_tool_name();
        let listed = tools.len();
        tools.retain(|tool| tool.get("name").and_then(Value::as_str) != Some(&extract_name));
        if tools.len() != listed {
            note!(
                "lro proxy: the server's tool {extract_name:?} is hidden by the proxy's extract \
                 tool of the same name; give the extract tool another name with \
                 --extract-tool-name"
            );
        }
        let config = self.lro.config();
        for tool in tools.iter_mut() {
            if let Value::Object(fields) = tool {
                let name = fields
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default();
                if config.never_offloads(name) {
                    // Its results pass untouched: its schema still holds.
                    continue;
                }
                // On purpose: an offloaded result is the descriptor, which would violate the
                // tool's schema (SDK clients reject such results).
                fields.remove("outputSchema");
            }
        }
        if first_page && self.lists_extract_tool() {
            tools.push(self.extract_tool_listed());
        }
        self.out.send(&message);
    }

    /// A `tools/call` result: handed to the core as the JSON text it arrived in (no `Value`
    /// tree of a result that may be tens of megabytes); forwarded as received unless the
    /// core rewrote it.
    fn on_tool_result(
        &self,
        line: Vec<u8>,
        id: &IdKey,
        tool_name: String,
        arguments: Option<Value>,
    ) {
        let context = ToolCallContext {
            tool_name,
            operation: None,
            arguments,
            client_is_proxy: self.state.client_is_proxy(),
            // outputSchema was removed from the listed tools (but for those never
            // offloaded, which the core passes untouched): every other tool may be offloaded.
            output_schema_declared: false,
            extract_tool: Some(self.extract_tool_name()),
            rule: None,
        };
        let text = jsonrpc::trim_line(&line);
        // A small answer is parsed (faster); a large one is read from its text.
        let large = (text.len() > TEXT_RESULT_MIN)
            .then(|| std::str::from_utf8(text).ok().and_then(result_of))
            .flatten();
        let decided =
            match large {
                Some(result) => lro_mcp::intercept_tool_result_text(&self.lro, result, &context)
                    .map(|decided| match decided {
                        InterceptedText::Rewritten(intercepted) => {
                            let offloaded = intercepted.action == InterceptAction::Offloaded;
                            Some((intercepted.result, offloaded))
                        }
                        InterceptedText::Unchanged(_) => None,
                    }),
                // Or the `result` key given twice, say: the answer as serde_json reads it (a
                // lone surrogate kept as the text of its escape, as the text path keeps it).
                None => match parse_keeping_lone_surrogates(text) {
                    Some(mut message) => {
                        let result = message
                            .get_mut("result")
                            .map(Value::take)
                            .unwrap_or(Value::Null);
                        lro_mcp::intercept_tool_result(&self.lro, &result, &context).map(
                            |intercepted| match intercepted.action {
                                InterceptAction::Offloaded | InterceptAction::Truncated => {
                                    let offloaded =
                                        intercepted.action == InterceptAction::Offloaded;
                                    Some((intercepted.result, offloaded))
                                }
                                _ => None,
                            },
                        )
                    }
                    None => Ok(None),
                },
            };
        match decided {
            Ok(Some((result, offloaded))) => {
                drop(line);
                self.out.send(&jsonrpc::response(id, result));
                if offloaded {
                    self.resources_changed();
                }
            }
            Ok(None) => self.pass(text),
            Err(err) => {
                note!(
                    "lro proxy: result of {} passed inline: error[{}]: {}",
                    context.tool_name,
                    err.code(),
                    err.message()
                );
                self.pass(text);
            }
        }
    }

    /// Whether forwarded request `id` is still in flight.
    pub fn awaits(&self, id: &IdKey) -> bool {
        self.state.in_flight(id)
    }

    /// Answers one forwarded request with an error (the transport failed it), unless the
    /// server answered it already.
    pub fn fail_request(&self, id: &IdKey, reason: &str) {
        if self.state.take(id).is_some() {
            self.out
                .send(&jsonrpc::error(id, jsonrpc::UPSTREAM_ERROR, reason));
        }
    }

    /// The server is gone: every request in flight gets an error.
    pub fn fail_all(&self, reason: &str) {
        for id in self.state.drain() {
            self.out
                .send(&jsonrpc::error(&id, jsonrpc::UPSTREAM_ERROR, reason));
        }
    }
}

/// The envelope of a line that is JSON text, or the error to answer it with: `-32700` for
/// what is not JSON (or not UTF-8), `-32600` for JSON that is no object (a batch, a scalar)
/// or names a field of the envelope twice.
fn read_envelope(line: &[u8]) -> Result<Peek<'_>, (i64, &'static str)> {
    let utf8 = std::str::from_utf8(line).is_ok();
    match Peek::parse(line) {
        Some(peek) if utf8 => Ok(peek),
        _ if !utf8 => Err((
            jsonrpc::PARSE_ERROR,
            "parse error: the message is not UTF-8",
        )),
        _ if serde_json::from_slice::<serde::de::IgnoredAny>(line).is_err() => {
            Err((jsonrpc::PARSE_ERROR, "parse error: the message is not JSON"))
        }
        _ if line.trim_ascii_start().starts_with(b"[") => Err((
            jsonrpc::INVALID_REQUEST,
            "invalid request: batches are not supported (MCP removed JSON-RPC batching in 2025-06-18)",
        )),
        _ if line.trim_ascii_start().starts_with(b"{") => Err((
            jsonrpc::INVALID_REQUEST,
            "invalid request: a field of the envelope is given twice or cannot be read",
        )),
        _ => Err((
            jsonrpc::INVALID_REQUEST,
            "invalid request: a message must be a JSON object",
        )),
    }
}

/// The text of a response's `result`, read over without building it; `None` when it is not
/// there or not alone.
fn result_of(message: &str) -> Option<&str> {
    let mut results = read::object_entries(message)?
        .into_iter()
        .filter(|(key, _)| key == "result");
    let (_, result) = results.next()?;
    results.next().is_none().then_some(result)
}

/// A client request the proxy reads whole, or why it cannot (serde_json stops at 128 levels
/// of nesting, and at numbers beyond an `f64`).
fn read_request(line: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(line).map_err(|err| {
        if err.to_string().starts_with("recursion limit exceeded") {
            format!("it is nested deeper than 128 levels ({err})")
        } else if parse_keeping_lone_surrogates(line).is_some() {
            // serde_json's words for it ("unexpected end of hex escape") say nothing useful.
            format!(
                "it holds a lone UTF-16 surrogate escape (\\uD800 to \\uDFFF without its pair), \
                 which no string can hold ({err})"
            )
        } else {
            err.to_string()
        }
    })
}

/// JSON-RPC's "Invalid params".
const INVALID_PARAMS: i64 = -32602;

/// A server's answer as serde_json reads it, numbers kept as written (an offloaded
/// `structuredContent` holds `1E5` as the server wrote it).
fn parse(text: &[u8]) -> Option<Value> {
    lro_core::json::parse::from_slice(text).ok()
}

/// [`parse`] for the answers the proxy rewrites (`initialize`, `tools/list`, a tool's
/// result): a lone surrogate escape, which no string holds, is kept as its six characters.
/// Refused, the answer passed on as it came: a `tools/list` without the extract tool and
/// with the `outputSchema`s an offloaded result would violate.
fn parse_keeping_lone_surrogates(text: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(text).ok()?;
    lro_core::json::parse::from_str_keeping_lone_surrogates(text).ok()
}

mod handles;
mod oversize;
mod resources;
#[cfg(test)]
mod tests;
