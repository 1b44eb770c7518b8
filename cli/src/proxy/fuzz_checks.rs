//! The invariants the proxy's fuzz targets check: the JSON-RPC envelope reader against
//! serde_json, and the router fed lines from both sides as the reader threads cut them.
//!
//! The fuzz targets (`fuzz/fuzz_targets/proxy_*.rs`) include this file and the modules it
//! uses by path, since the CLI has no library; the tests below replay the seed corpora and
//! every input a fuzzer once crashed on (`fuzz/regressions/proxy_*/`).

use std::collections::{HashMap, HashSet};
use std::io::{BufRead, Cursor, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use lro_core::{OffloadConfig, Offloader, StdHost};
use lro_host_s3::NativeHost;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::jsonrpc::{self, IdKey, Kind, Peek};
use super::output::ClientOut;
use super::router::{ClientAction, Router};

/// What a message is, by serde_json's reading of it and JSON-RPC 2.0 / MCP's rules (a
/// [`Kind`], without the reason of an invalid one).
fn expected_kind(map: &Map<String, Value>) -> String {
    let id = map.get("id");
    let usable = id.and_then(jsonrpc::usable_id);
    let method = map.get("method");
    let (result, error) = (map.get("result"), map.get("error"));
    let invalid = |request: bool| format!("Invalid({usable:?}, {request})");
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(method.is_some());
    }
    match method {
        Some(Value::String(method)) => {
            let params_ok = map
                .get("params")
                .is_none_or(|p| p.is_object() || p.is_array() || p.is_null());
            if result.is_some() || error.is_some() || !params_ok {
                return invalid(true);
            }
            match (id, &usable) {
                (None, _) => format!("Notification({method:?})"),
                (Some(_), Some(id)) => format!("Request({id:?}, {method:?})"),
                (Some(_), None) => invalid(true),
            }
        }
        Some(_) => invalid(true),
        None => match (result, error, &usable) {
            (Some(_), None, Some(id)) => format!("Response({id:?})"),
            (None, Some(Value::Object(_)), Some(id)) => format!("Response({id:?})"),
            _ => invalid(false),
        },
    }
}

/// A [`Kind`] as [`expected_kind`] writes it.
fn kind_name(kind: &Kind<'_>) -> String {
    match kind {
        Kind::Invalid { id, request, .. } => format!("Invalid({id:?}, {request})"),
        other => format!("{other:?}"),
    }
}

/// Whether the top-level object of `data` names a key twice.
fn has_duplicate_keys(data: &[u8]) -> bool {
    struct Keys;
    impl<'de> Visitor<'de> for Keys {
        type Value = bool;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
            let mut seen = std::collections::HashSet::new();
            let mut duplicate = false;
            while let Some((key, IgnoredAny)) = map.next_entry::<String, IgnoredAny>()? {
                duplicate |= !seen.insert(key);
            }
            Ok(duplicate)
        }
    }
    serde_json::Deserializer::from_slice(data)
        .deserialize_map(Keys)
        .unwrap_or(false)
}

/// [`Peek`] classifies every JSON object as serde_json reads it by JSON-RPC's rules,
/// refuses only what is no envelope (not an object, a field of the envelope given twice),
/// and ids survive the round trip through [`IdKey`]. [`jsonrpc::trim_line`] drops one line
/// ending.
pub fn check_jsonrpc(data: &[u8]) {
    let without_lf = data.strip_suffix(b"\n").unwrap_or(data);
    assert_eq!(
        jsonrpc::trim_line(data),
        without_lf.strip_suffix(b"\r").unwrap_or(without_lf)
    );
    let parsed = serde_json::from_slice::<Value>(data);
    // JSON's grammar has no limit on numbers; serde_json refuses those beyond a double, the
    // envelope reader skips them unread. Such a text is still an object and passes through.
    let huge_number = matches!(&parsed, Err(e) if e.to_string().starts_with("number out of range"));
    let value = parsed.ok();
    match (&value, Peek::parse(data)) {
        (Some(Value::Object(map)), Some(peek)) => {
            assert_eq!(kind_name(&peek.kind()), expected_kind(map), "{map:?}");
            assert_eq!(
                peek.result.is_some(),
                map.contains_key("result"),
                "result of {map:?}"
            );
        }
        (Some(Value::Object(map)), None) => {
            assert!(
                has_duplicate_keys(data),
                "Peek refused an envelope serde_json reads as {map:?}"
            );
        }
        // Strings the envelope does not need are skipped unchecked: invalid UTF-8 there
        // reads (the router answers such a message as not JSON).
        (None, Some(_)) if std::str::from_utf8(data).is_err() || huge_number => {}
        (_, Some(peek)) => panic!("Peek read {:?} from a non-object", peek.kind()),
        (_, None) => {}
    }
    if let Some(id) = value.as_ref().and_then(|v| v.get("id")) {
        // An id is answered as its canonical value (`-0` as `0`), which is the same id.
        let key = IdKey::of(id);
        assert_eq!(IdKey::of(&key.to_value()), key, "id round trip");
    }
}

/// The client's stdout, kept in memory.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One output directory per process, emptied after each input.
fn output_dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("lro-fuzz-router-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        dir
    })
}

/// How long answers given on threads of their own (`lro_extract`, offload resources) may
/// take to be written once the input is done.
const THREAD_ANSWERS: std::time::Duration = std::time::Duration::from_secs(20);

/// What the client is owed for one of its lines: an answer with this id, or with `null`.
fn owed(text: &[u8]) -> Option<Option<Value>> {
    if text.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let kind = Peek::parse(text).map(|peek| kind_name(&peek.kind()));
    let utf8 = std::str::from_utf8(text).is_ok();
    let request_id = Peek::parse(text).and_then(|peek| match peek.kind() {
        Kind::Request(id, _) => Some(id.to_value()),
        Kind::Invalid {
            id: Some(id),
            request: true,
            ..
        } if utf8 => Some(id.to_value()),
        _ => None,
    });
    match (kind.as_deref(), request_id) {
        (_, Some(id)) => Some(Some(id)),
        (Some(k), None) if utf8 && (k.starts_with("Notification") || k.starts_with("Response")) => {
            None
        }
        _ => Some(None),
    }
}

/// `data` as lines from both sides (a line's first byte: even from the client, odd from the
/// server), cut as the proxy's reader threads cut them. Then the server goes away.
/// - nothing invalid reaches the server: every message forwarded is one line of a valid
///   request, notification or response (a response only to a request the server sent and
///   the client had not answered yet), the client's bytes or, for `initialize`, the same
///   message with `clientInfo.proxy: true`;
/// - everything written to the client is whole lines of JSON;
/// - every client request gets exactly one answer with its id (at most one once it was
///   cancelled), every line that is no message one answer with a `null` id, and nothing
///   else is answered (the server's duplicate and unknown answers are dropped).
pub fn check_router(data: &[u8]) {
    let dir = output_dir();
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        threshold_tokens: 100,
        ..OffloadConfig::default()
    };
    let lro = Arc::new(
        Offloader::new(config, NativeHost::Local(StdHost::new())).expect("a valid configuration"),
    );
    let capture = Capture::default();
    let router = Arc::new(Router::new(lro, ClientOut::new(Box::new(capture.clone()))));
    let mut owed_ids: HashMap<IdKey, usize> = HashMap::new();
    let mut owed_null = 0;
    let mut cancelled: HashSet<IdKey> = HashSet::new();
    let mut server_requests: HashSet<IdKey> = HashSet::new();
    let mut lines = Cursor::new(data);
    let mut line = Vec::new();
    while lines.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
        let from_server = line[0] & 1 == 1;
        let message = line[1..].to_vec();
        line.clear();
        if from_server {
            let text = jsonrpc::trim_line(&message);
            if std::str::from_utf8(text).is_ok() {
                if let Some(Kind::Request(id, _)) = Peek::parse(text).as_ref().map(Peek::kind) {
                    server_requests.insert(id);
                }
            }
            router.on_server_message(message);
            continue;
        }
        let text = jsonrpc::trim_line(&message);
        match owed(text) {
            Some(Some(id)) => *owed_ids.entry(IdKey::of(&id)).or_default() += 1,
            Some(None) => owed_null += 1,
            None => {}
        }
        if let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(text) {
            if map.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
                if let Some(id) = map.get("params").and_then(|p| p.get("requestId")) {
                    cancelled.insert(IdKey::of(id));
                }
            }
        }
        match router.from_client(text) {
            ClientAction::Forward { message, request } => {
                assert!(!message.contains(&b'\n'), "a forwarded message is one line");
                assert!(
                    std::str::from_utf8(&message).is_ok(),
                    "forwarded text is UTF-8"
                );
                let kind = Peek::parse(&message).map(|peek| kind_name(&peek.kind()));
                let kind = kind.unwrap_or_else(|| {
                    panic!(
                        "forwarded no message: {}",
                        String::from_utf8_lossy(&message)
                    )
                });
                assert!(
                    !kind.starts_with("Invalid"),
                    "forwarded an invalid message: {kind}"
                );
                if let Some(Kind::Response(id)) = Peek::parse(&message).as_ref().map(Peek::kind) {
                    assert!(
                        server_requests.remove(&id),
                        "forwarded a response to no request of the server's: {id:?}"
                    );
                }
                if message != text {
                    let mut sent: Value = serde_json::from_slice(text).expect("rebuilt from JSON");
                    let mut got: Value = serde_json::from_slice(&message).expect("JSON");
                    if sent["method"] == "tools/call" {
                        // Result handles replaced by their data: nothing else changes.
                        assert!(lro_mcp::handles::text_may_hold_handles(text));
                        for call in [&mut sent, &mut got] {
                            call["params"]["arguments"].take();
                        }
                        assert_eq!(got, sent, "a call with handles changes its arguments only");
                    } else {
                        assert_eq!(
                            sent["method"], "initialize",
                            "only initialize and calls with handles are rebuilt"
                        );
                        if let Some(Value::Object(info)) = sent.pointer_mut("/params/clientInfo") {
                            info.insert("proxy".into(), Value::Bool(true));
                        }
                        assert_eq!(got, sent, "initialize gains clientInfo.proxy only");
                    }
                }
                assert_eq!(request.is_some(), kind.starts_with("Request"));
            }
            ClientAction::Done => {}
        }
    }
    router.fail_all("the server went away");
    // Answers given on threads (`lro_extract`, offload resources) may still be coming.
    let deadline = std::time::Instant::now() + THREAD_ANSWERS;
    let (answers, nulls) = loop {
        let (answers, nulls) = answers_in(&capture);
        let owed_all = owed_ids
            .iter()
            .all(|(id, n)| cancelled.contains(id) || answers.get(id).copied().unwrap_or(0) >= *n);
        if (owed_all && nulls >= owed_null) || std::time::Instant::now() >= deadline {
            break (answers, nulls);
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    assert_eq!(nulls, owed_null, "answers with a null id");
    for (id, n) in &answers {
        let due = owed_ids.get(id).copied().unwrap_or(0);
        assert!(*n <= due, "{id:?} answered {n} times for {due} requests");
        if !cancelled.contains(id) {
            assert_eq!(*n, due, "{id:?} answered {n} times for {due} requests");
        }
    }
    for (id, due) in &owed_ids {
        if !cancelled.contains(id) {
            assert!(
                answers.contains_key(id),
                "request {id:?} ({due}) was never answered"
            );
        }
    }
    // Offloaded results leave files: the next input starts from an empty directory.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// The answers written to the client so far (whole lines): how many per id, and with a
/// `null` id.
fn answers_in(capture: &Capture) -> (HashMap<IdKey, usize>, usize) {
    let output = capture
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    // Answers on threads of their own: a line being written may be cut.
    let complete = &output[..output
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1)];
    let (mut answers, mut nulls) = (HashMap::new(), 0);
    for line in complete.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let message: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(line)));
        if message.get("method").is_some() {
            continue;
        }
        match message.get("id") {
            Some(Value::Null) => nulls += 1,
            Some(id) => *answers.entry(IdKey::of(id)).or_default() += 1,
            None => panic!("a message that is no answer nor request: {message}"),
        }
    }
    (answers, nulls)
}

#[cfg(test)]
mod tests {
    /// Every seed of the proxy's corpora, and every input a fuzzer once crashed on, passes.
    #[test]
    fn corpora_and_regressions_pass_their_checks() {
        lro_json::fuzz_replay::replay(&[
            ("proxy_jsonrpc", super::check_jsonrpc),
            ("proxy_router", super::check_router),
        ]);
    }
}
