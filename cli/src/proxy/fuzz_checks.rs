//! The invariants the proxy's fuzz targets check: the JSON-RPC envelope reader against
//! serde_json, and the router fed lines from both sides as the reader threads cut them.
//!
//! The fuzz targets (`fuzz/fuzz_targets/proxy_*.rs`) include this file and the modules it
//! uses by path, since the CLI has no library; the tests below replay the seed corpora and
//! every input a fuzzer once crashed on (`fuzz/regressions/proxy_*/`).

use std::io::{BufRead, Cursor, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use lro_core::{OffloadConfig, Offloader, StdHost};
use lro_host_s3::NativeHost;
use serde::de::{Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::{Map, Value};

use super::jsonrpc::{self, IdKey, Peek};
use super::output::ClientOut;
use super::router::{ClientAction, Router};

/// What a message is, by serde_json's reading of it (`Kind`, owned).
fn expected_kind(map: &Map<String, Value>) -> String {
    let id = map.get("id").filter(|id| !id.is_null());
    let method = map.get("method").and_then(Value::as_str);
    match (id, method) {
        (Some(id), Some(method)) => format!("Request({:?}, {method:?})", IdKey::of(id)),
        (None, Some(method)) => format!("Notification({method:?})"),
        (Some(id), None) => format!("Response({:?})", IdKey::of(id)),
        (None, None) => "Other".to_owned(),
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

/// [`Peek`] classifies every JSON object as serde_json reads it, refuses only what is no
/// JSON-RPC envelope (not an object, a method that is not a string, a key given twice),
/// and ids survive the round trip through [`IdKey`]. [`jsonrpc::trim_line`] drops one
/// line ending.
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
            assert_eq!(format!("{:?}", peek.kind()), expected_kind(map));
            let has_result = map.get("result").is_some_and(|r| !r.is_null());
            assert_eq!(peek.result.is_some(), has_result, "result of {map:?}");
        }
        (Some(Value::Object(map)), None) => {
            let method_is_text = map
                .get("method")
                .is_none_or(|m| m.is_string() || m.is_null());
            assert!(
                !method_is_text || has_duplicate_keys(data),
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
        assert_eq!(IdKey::of(id).to_value(), *id, "id round trip");
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

/// `data` as lines from both sides (a line's first byte: even from the client, odd from the
/// server), cut as the proxy's reader threads cut them. Then the server goes away.
/// - every message forwarded to the server is one line: the client's bytes, or for
///   `initialize` the same message with `clientInfo.proxy: true`;
/// - everything written to the client is whole lines of JSON;
/// - every request forwarded (its id used once, not cancelled) gets an answer: the
///   server's, or the proxy's error when the server went away.
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
    let mut forwarded: Vec<Value> = Vec::new();
    let mut client_ids: Vec<Value> = Vec::new();
    let mut cancelled: Vec<Value> = Vec::new();
    let mut lines = Cursor::new(data);
    let mut line = Vec::new();
    while lines.read_until(b'\n', &mut line).unwrap_or(0) > 0 {
        let from_server = line[0] & 1 == 1;
        let message = line[1..].to_vec();
        line.clear();
        if from_server {
            router.on_server_message(message);
            continue;
        }
        let text = jsonrpc::trim_line(&message);
        if let Ok(Value::Object(map)) = serde_json::from_slice::<Value>(text) {
            if let Some(id) = map.get("id").filter(|_| map.contains_key("method")) {
                client_ids.push(id.clone());
            }
            if map.get("method").and_then(Value::as_str) == Some("notifications/cancelled") {
                if let Some(id) = map.get("params").and_then(|p| p.get("requestId")) {
                    cancelled.push(id.clone());
                }
            }
        }
        match router.from_client(text) {
            ClientAction::Forward { message, request } => {
                assert!(!message.contains(&b'\n'), "a forwarded message is one line");
                if message != text {
                    let mut sent: Value = serde_json::from_slice(text).expect("rebuilt from JSON");
                    assert_eq!(sent["method"], "initialize", "only initialize is rebuilt");
                    if let Some(Value::Object(info)) = sent.pointer_mut("/params/clientInfo") {
                        info.insert("proxy".into(), Value::Bool(true));
                    }
                    let got: Value = serde_json::from_slice(&message).expect("JSON");
                    assert_eq!(got, sent, "initialize gains clientInfo.proxy only");
                }
                if let Some(id) = request {
                    forwarded.push(id.to_value());
                }
            }
            ClientAction::Done => {}
        }
    }
    router.fail_all("the server went away");
    let output = capture
        .0
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clone();
    // `lro_extract` answers on threads of their own: a line being written may be cut.
    let complete = &output[..output
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1)];
    let mut answered = Vec::new();
    for line in complete.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let message: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(line)));
        if message.get("method").is_none() {
            if let Some(id) = message.get("id") {
                answered.push(id.clone());
            }
        }
    }
    for id in &forwarded {
        let once = client_ids.iter().filter(|c| *c == id).count() == 1;
        if once && !cancelled.contains(id) {
            assert!(answered.contains(id), "request {id} was never answered");
        }
    }
    // Offloaded results leave files: the next input starts from an empty directory.
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Every seed of the proxy's corpora, and every input a fuzzer once crashed on, passes.
    #[test]
    fn corpora_and_regressions_pass_their_checks() {
        let fuzz = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
        type Check = fn(&[u8]);
        let targets: [(&str, Check); 2] = [
            ("proxy_jsonrpc", super::check_jsonrpc),
            ("proxy_router", super::check_router),
        ];
        let mut replayed = 0;
        for (name, check) in targets {
            for kind in ["corpus", "regressions"] {
                let Ok(entries) = std::fs::read_dir(fuzz.join(kind).join(name)) else {
                    continue;
                };
                for entry in entries {
                    let path = entry.unwrap().path();
                    let data = std::fs::read(&path).unwrap();
                    let outcome = std::panic::catch_unwind(|| check(&data));
                    assert!(outcome.is_ok(), "{name}: {} fails", path.display());
                    replayed += 1;
                }
            }
        }
        assert!(replayed >= 2, "only {replayed} inputs replayed");
    }
}
