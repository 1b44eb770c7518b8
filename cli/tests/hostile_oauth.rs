//! `lro proxy --url` in front of a server whose authorization fails: what a red team found
//! the OAuth client did (a new registration and browser tab for every queued request, the
//! authorization server's text raw on the terminal) stays fixed. The server is one origin on
//! loopback playing the MCP server and its authorization server, counting what it is asked.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};

use crate::support::proxy::Proxy;

#[derive(Default)]
struct Counts {
    registrations: AtomicUsize,
    authorizations: AtomicUsize,
    token_requests: AtomicUsize,
}

/// What the token endpoint answers: a refusal whose description tries to forge a log line
/// and colour the terminal.
const HOSTILE_DESCRIPTION: &str = "bad grant\n\u{1b}[31mlro proxy: authorized OK";

/// Starts the server; its base URL (`http://127.0.0.1:PORT`) and its counts.
fn start_server() -> (String, Arc<Counts>) {
    let server = tiny_http::Server::http("127.0.0.1:0").unwrap();
    let base = format!("http://{}", server.server_addr().to_ip().unwrap());
    let counts = Arc::new(Counts::default());
    let (base_for, counts_for) = (base.clone(), Arc::clone(&counts));
    std::thread::spawn(move || {
        for request in server.incoming_requests() {
            answer(request, &base_for, &counts_for);
        }
    });
    (base, counts)
}

fn answer(request: tiny_http::Request, base: &str, counts: &Counts) {
    let json = |status: u16, body: Value| {
        tiny_http::Response::from_string(body.to_string())
            .with_status_code(status)
            .with_header(header("Content-Type", "application/json"))
    };
    let url = request.url().to_owned();
    let path = url.split('?').next().unwrap_or_default().to_owned();
    let response = match (request.method(), path.as_str()) {
        (tiny_http::Method::Post, "/mcp") => json(401, json!({"error": "invalid_token"}))
            .with_header(header(
                "WWW-Authenticate",
                &format!(
                    "Bearer resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\""
                ),
            )),
        (_, "/mcp") => json(405, json!({})),
        (_, "/.well-known/oauth-protected-resource/mcp") => json(
            200,
            json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}),
        ),
        (_, "/.well-known/oauth-authorization-server") => json(
            200,
            json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            }),
        ),
        (_, "/register") => {
            counts.registrations.fetch_add(1, Ordering::SeqCst);
            json(201, json!({"client_id": "client-1"}))
        }
        (_, "/authorize") => {
            counts.authorizations.fetch_add(1, Ordering::SeqCst);
            let query: Vec<(String, String)> =
                url::form_urlencoded::parse(url.split_once('?').map_or("", |(_, q)| q).as_bytes())
                    .into_owned()
                    .collect();
            let get = |key: &str| query.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
            let location = format!(
                "{}?code=code-1&state={}",
                get("redirect_uri").unwrap_or_default(),
                get("state").unwrap_or_default()
            );
            json(302, json!({})).with_header(header("Location", &location))
        }
        (_, "/token") => {
            counts.token_requests.fetch_add(1, Ordering::SeqCst);
            json(
                400,
                json!({"error": "invalid_grant", "error_description": HOSTILE_DESCRIPTION}),
            )
        }
        _ => json(404, json!({})),
    };
    let _ = request.respond(response);
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap()
}

/// The "browser": follows the authorization URL's redirect to the proxy's listener.
const OPENER: &str =
    "python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1]).read()'";

#[test]
fn a_failed_authorization_is_the_answer_of_every_queued_request_and_is_tried_once() {
    let (base, counts) = start_server();
    let store = tempfile::tempdir().unwrap();
    let store_dir = store.path().to_str().unwrap();
    let mut proxy = Proxy::start_url_with(
        &format!("{base}/mcp"),
        &["--oauth-open", OPENER, "--oauth-store", store_dir],
    );
    // The client does not wait: initialize and three requests are queued at once.
    proxy.request(
        json!(1),
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    for id in 2..=4 {
        proxy.request(json!(id), "tools/list", json!({}));
    }
    let answers: Vec<Value> = (1..=4).map(|_| proxy.next()).collect();
    let mut ids: Vec<i64> = answers.iter().map(|a| a["id"].as_i64().unwrap()).collect();
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3, 4], "every request is answered: {answers:?}");
    for answer in &answers {
        let message = answer["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains("invalid_grant"), "{answer}");
    }
    assert_eq!(counts.registrations.load(Ordering::SeqCst), 1);
    assert_eq!(counts.authorizations.load(Ordering::SeqCst), 1);
    assert_eq!(counts.token_requests.load(Ordering::SeqCst), 1);
    // The server's text reaches the terminal tamed: no escape byte, no forged line.
    let stderr = proxy.stderr();
    assert!(!stderr.contains('\u{1b}'), "{stderr}");
    assert!(
        !stderr
            .lines()
            .any(|line| line.starts_with("\u{1b}[31mlro proxy: authorized")
                || line.starts_with("lro proxy: authorized OK")),
        "{stderr}"
    );
    for answer in &answers {
        assert!(!answer.to_string().contains("\\u001b"), "{answer}");
    }
}
