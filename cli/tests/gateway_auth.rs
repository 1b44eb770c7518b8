//! `lro proxy --listen` as an OAuth resource server: a request without a valid bearer token
//! gets `401` and the way to the protected-resource metadata (RFC 9728); tokens from a token
//! file or JWTs signed by a key of the JWKS (made and served here, at test time) let their
//! principal in; a principal's offloads are its own, shared by its sessions and out of reach
//! of any other principal, whatever URI or path it names; a session answers only to the
//! principal that opened it.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::auth::{JwksServer, SigningKey, now, token_file};
use crate::support::gateway::Gateway;
use crate::support::proxy::{descriptor, mock_server, text};
use crate::support::run;

const ALICE: &str = "alice-token-0123456789";
const BOB: &str = "bob-token-9876543210";

/// A gateway asking for the tokens of alice and bob (the file in `dir`).
fn with_tokens(dir: &Path, extra: &[&str]) -> Gateway {
    let file = token_file(
        dir,
        &format!("# the team\n{ALICE} alice\n{BOB} bob\n"),
        0o600,
    );
    let mut args = vec!["--auth-tokens", file.to_str().unwrap()];
    args.extend_from_slice(extra);
    Gateway::start(&args)
}

fn ping() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})
}

fn initialize_request() -> Value {
    json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "gateway-auth-test", "version": "1"}}})
}

/// POSTs an initialize with the gateway's current token: the answer.
fn try_initialize(gateway: &Gateway) -> crate::support::gateway::Answer {
    gateway.post_with(&initialize_request(), &[("Accept", "application/json")])
}

#[test]
fn without_a_token_the_gateway_answers_401_and_points_at_its_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let mut gateway = with_tokens(
        dir.path(),
        &["--authorization-server", "https://auth.example"],
    );
    let resource = gateway.url();
    let metadata_url = format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        gateway.addr
    );
    let refused = try_initialize(&gateway);
    assert_eq!(refused.status, 401, "{refused:?}");
    assert_eq!(
        refused.challenge.as_deref(),
        Some(format!("Bearer resource_metadata=\"{metadata_url}\"").as_str())
    );
    assert_eq!(refused.message()["error"]["code"], -32600, "{refused:?}");
    // The document, at the path-suffixed name the challenge gives and at the bare one.
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let document = gateway.get_path(path);
        assert_eq!(document.status, 200, "{path}: {document:?}");
        let document: Value = serde_json::from_str(&document.body).unwrap();
        assert_eq!(document["resource"], resource.as_str(), "{document}");
        assert_eq!(
            document["authorization_servers"],
            json!(["https://auth.example"])
        );
        assert_eq!(document["bearer_methods_supported"], json!(["header"]));
    }

    // A token that is not known: invalid_token, and the token said nowhere.
    let guess = "guessed-token-123";
    gateway.set_token(Some(guess));
    let refused = try_initialize(&gateway);
    assert_eq!(refused.status, 401, "{refused:?}");
    let challenge = refused.challenge.clone().unwrap();
    assert!(
        challenge.starts_with(&format!("Bearer resource_metadata=\"{metadata_url}\""))
            && challenge.contains("error=\"invalid_token\""),
        "{challenge}"
    );
    // Another scheme is no token at all.
    gateway.set_token(None);
    let basic = gateway.post_with(
        &initialize_request(),
        &[
            ("Accept", "application/json"),
            ("Authorization", "Basic YTpi"),
        ],
    );
    assert_eq!(basic.status, 401, "{basic:?}");

    gateway.set_token(Some(ALICE));
    let session = gateway.initialize();
    assert_eq!(
        text(&gateway.tool(&session, 1, "echo", json!({"text": "in"}))),
        "in"
    );
    // A token in the query string is refused, even beside a good header.
    let (status, body) = gateway.raw(
        &format!(
            "POST /mcp?access_token={ALICE} HTTP/1.1\r\nHost: {}\r\n\
             Content-Type: application/json\r\nAccept: application/json\r\n\
             Authorization: Bearer {ALICE}\r\nMcp-Session-Id: {session}",
            gateway.addr
        ),
        ping().to_string().as_bytes(),
    );
    assert_eq!(status, 400, "{body}");
    // The session needs the token on every request, not only at initialize.
    gateway.set_token(None);
    let bare = gateway.post(&session, &ping());
    assert_eq!(bare.status, 401, "{bare:?}");
    let stderr = gateway.proxy.stderr();
    for token in [guess, ALICE, BOB] {
        assert!(!stderr.contains(token), "a token in the log: {stderr}");
    }
    assert!(!refused.body.contains(guess), "{refused:?}");
}

#[test]
fn a_token_file_others_can_read_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = token_file(dir.path(), &format!("{ALICE} alice\n"), 0o644);
    let out = run::lro(
        &[
            "proxy",
            "--listen",
            "127.0.0.1:0",
            "--auth-tokens",
            file.to_str().unwrap(),
            "--",
            "python3",
            mock_server().to_str().unwrap(),
        ],
        "",
        &[],
    );
    assert!(!out.status.success());
    let said = run::stderr(&out);
    assert!(said.contains("chmod 600"), "{said}");
    assert!(!said.contains(ALICE), "{said}");
}

/// An offload made in `session`: its URI and file path.
fn offload(gateway: &Gateway, session: &str, id: i64, count: u32) -> (String, String) {
    let found = descriptor(&gateway.tool(session, id, "records", json!({"count": count})));
    (
        found["resource_uri"].as_str().unwrap().to_owned(),
        found["file_path"].as_str().unwrap().to_owned(),
    )
}

/// `lro_extract` of record r12's label from `file_path` in `session`: its result.
fn extract(gateway: &Gateway, session: &str, id: i64, file_path: &str) -> Value {
    gateway.tool(
        session,
        id,
        "lro_extract_mock",
        json!({"file_path": file_path, "query": "select(.id == \"r12\") | .label"}),
    )
}

/// The label extracted, when the extraction was let through.
fn extracted(result: &Value) -> &str {
    assert_ne!(result["isError"], true, "{result}");
    text(result).trim()
}

fn refused(result: &Value) -> bool {
    result["isError"] == true
        && ["path_denied", "not_found"]
            .iter()
            .any(|code| text(result).contains(code))
}

#[test]
fn a_principals_offloads_are_shared_by_its_sessions_and_no_one_elses() {
    let dir = tempfile::tempdir().unwrap();
    let mut gateway = with_tokens(dir.path(), &[]);
    gateway.set_token(Some(ALICE));
    let alice_one = gateway.initialize();
    let alice_two = gateway.initialize();
    let (uri, file_path) = offload(&gateway, &alice_one, 1, 2000);
    let alice_dir = Path::new(&file_path).parent().unwrap().to_owned();
    assert_eq!(alice_dir.parent().unwrap(), gateway.proxy.dir.path());
    let dir_name = alice_dir.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(dir_name.starts_with("p-"), "{dir_name}");
    // Alice's other session sees, reads and extracts it; so does a session begun after
    // the first ended.
    assert_eq!(gateway.offload_uris(&alice_two, 1), vec![uri.clone()]);
    let read = gateway.call(&alice_two, 2, "resources/read", json!({"uri": uri}));
    assert!(read["result"]["contents"][0]["text"].is_string(), "{read}");
    assert_eq!(
        extracted(&extract(&gateway, &alice_two, 3, &file_path)),
        "\"record number 12\""
    );
    assert_eq!(gateway.delete(&alice_one).status, 200);
    let alice_three = gateway.initialize();
    assert_eq!(gateway.offload_uris(&alice_three, 1), vec![uri.clone()]);

    gateway.set_token(Some(BOB));
    let bob = gateway.initialize();
    let (bob_uri, bob_path) = offload(&gateway, &bob, 1, 1000);
    let bob_dir = Path::new(&bob_path).parent().unwrap().to_owned();
    assert_ne!(bob_dir, alice_dir);
    // A link in bob's directory to alice's file, as if planted there.
    let alice_name = Path::new(&file_path).file_name().unwrap();
    std::os::unix::fs::symlink(&file_path, bob_dir.join(alice_name)).unwrap();
    let listed = gateway.offload_uris(&bob, 2);
    assert!(!listed.contains(&uri), "{listed:?}");
    assert!(listed.contains(&bob_uri), "{listed:?}");
    let read = gateway.call(&bob, 3, "resources/read", json!({"uri": uri}));
    assert!(read.get("error").is_some(), "{read}");
    let name = alice_name.to_str().unwrap();
    for (id, path) in [
        file_path.clone(),
        format!("../{dir_name}/{name}"),
        format!("{}/../{dir_name}/{name}", bob_dir.display()),
        name.to_owned(),
        uri.clone(),
    ]
    .iter()
    .enumerate()
    {
        let result = extract(&gateway, &bob, 10 + id as i64, path);
        assert!(refused(&result), "{path}: {result}");
    }
    // A result handle naming alice's file is resolved for her and refused for him, before
    // the tool is called.
    let handle =
        json!({"text": {"$lro": uri, "query": "select(.id == \"r12\") | .label", "as": "text"}});
    let echoed = gateway.tool(&bob, 30, "echo", handle.clone());
    assert!(refused(&echoed), "{echoed}");
    assert!(text(&echoed).contains("argument `text`"), "{echoed}");
    gateway.set_token(Some(ALICE));
    let echoed = gateway.tool(&alice_two, 32, "echo", handle);
    assert_eq!(text(&echoed), "record number 12\n", "{echoed}");
    gateway.set_token(Some(BOB));
    // Alice's session, named with bob's valid token, is not there for him.
    let hijack = gateway.post(&alice_two, &ping());
    assert_eq!(hijack.status, 404, "{hijack:?}");
    assert_eq!(gateway.delete(&alice_two).status, 404);
    assert_eq!(
        extracted(&extract(&gateway, &bob, 20, &bob_path)),
        "\"record number 12\""
    );

    gateway.set_token(Some(ALICE));
    assert_eq!(gateway.post(&alice_two, &ping()).status, 200);
    let listed = gateway.offload_uris(&alice_two, 30);
    assert_eq!(listed, vec![uri.clone()]);
    let result = extract(&gateway, &alice_two, 31, &bob_path);
    assert!(refused(&result), "{result}");
}

const ISSUER: &str = "https://issuer.test";
const RESOURCE: &str = "https://gateway.test/mcp";

/// Claims of a token of `sub` for this gateway, valid for a minute.
fn claims(sub: &str) -> Value {
    json!({"iss": ISSUER, "sub": sub, "aud": RESOURCE, "exp": now() + 60, "iat": now()})
}

#[test]
fn jwts_are_checked_for_key_signature_issuer_audience_and_time() {
    let key = SigningKey::generate("k1");
    let keys = tempfile::tempdir().unwrap();
    let rsa = SigningKey::generate_rsa("r1", keys.path());
    let jwks = JwksServer::start(vec![key.jwk(), rsa.jwk()]);
    let mut gateway = Gateway::start(&[
        "--auth-jwks",
        &jwks.url(),
        "--auth-issuer",
        ISSUER,
        "--resource-url",
        RESOURCE,
    ]);
    assert_eq!(jwks.fetches(), 1, "read once at start");
    let refused = try_initialize(&gateway);
    assert_eq!(refused.status, 401, "{refused:?}");
    assert_eq!(
        refused.challenge.as_deref(),
        Some(
            "Bearer resource_metadata=\"https://gateway.test/.well-known/oauth-protected-resource/mcp\""
        )
    );
    let document: Value = serde_json::from_str(
        &gateway
            .get_path("/.well-known/oauth-protected-resource/mcp")
            .body,
    )
    .unwrap();
    assert_eq!(document["resource"], RESOURCE);
    assert_eq!(document["authorization_servers"], json!([ISSUER]));

    gateway.set_token(Some(&key.sign(&claims("alice"))));
    let alice = gateway.initialize();
    let (uri, _) = offload(&gateway, &alice, 1, 2000);
    // Another token of alice's (another session) sees her offloads; bob's does not.
    let mut later = claims("alice");
    later["exp"] = json!(now() + 120);
    gateway.set_token(Some(&key.sign(&later)));
    let alice_again = gateway.initialize();
    assert_eq!(gateway.offload_uris(&alice_again, 1), vec![uri.clone()]);
    gateway.set_token(Some(&key.sign(&claims("bob"))));
    let bob = gateway.initialize();
    assert_eq!(gateway.offload_uris(&bob, 1), Vec::<String>::new());
    assert_eq!(
        gateway.post(&alice, &ping()).status,
        404,
        "bob in alice's session"
    );
    // RS256, and a token with no kid (each key that fits is tried).
    gateway.set_token(Some(&rsa.sign(&claims("dave"))));
    gateway.initialize();
    gateway.set_token(Some(&key.sign_as(None, &claims("erin"))));
    gateway.initialize();

    let other = SigningKey::generate("k1");
    let mut cases: Vec<(&str, String, &str)> = Vec::new();
    let mut expired = claims("alice");
    expired["exp"] = json!(now() - 300);
    cases.push(("expired", key.sign(&expired), "expired"));
    let mut early = claims("alice");
    early["nbf"] = json!(now() + 300);
    cases.push(("not yet valid", key.sign(&early), "not valid yet"));
    let mut elsewhere = claims("alice");
    elsewhere["aud"] = json!("https://another.test/mcp");
    cases.push(("another audience", key.sign(&elsewhere), "aud"));
    let mut impostor = claims("alice");
    impostor["iss"] = json!("https://impostor.test");
    cases.push(("another issuer", key.sign(&impostor), "iss"));
    cases.push((
        "another key, same kid",
        other.sign(&claims("alice")),
        "signature",
    ));
    let mut no_sub = claims("alice");
    no_sub.as_object_mut().unwrap().remove("sub");
    cases.push(("no sub", key.sign(&no_sub), "sub"));
    cases.push(("unsigned", unsigned(&claims("alice")), "not a"));
    // Well signed, but its crit names an extension the gateway does not know (RFC 7515
    // §4.1.11): refused, not read as if the extension were not there.
    let critical = json!({"alg": "ES256", "typ": "JWT", "kid": "k1",
                          "crit": ["https://example.test/must-check"],
                          "https://example.test/must-check": true});
    cases.push(("crit", key.sign_header(&critical, &claims("alice")), "crit"));
    for (what, token, said) in &cases {
        gateway.set_token(Some(token));
        let refused = try_initialize(&gateway);
        assert_eq!(refused.status, 401, "{what}: {refused:?}");
        let challenge = refused.challenge.clone().unwrap();
        assert!(
            challenge.contains("error=\"invalid_token\"") && challenge.contains(said),
            "{what}: {challenge}"
        );
    }
    assert_eq!(jwks.fetches(), 1, "no kid was unknown so far");

    // The authorization server rotates its keys: a token of the new key has the JWKS read
    // again, once.
    let rotated = SigningKey::generate("k2");
    jwks.add(rotated.jwk());
    gateway.set_token(Some(&rotated.sign(&claims("carol"))));
    gateway.initialize();
    assert_eq!(jwks.fetches(), 2);
    // Made-up key ids right after: refused without reading the JWKS again.
    for kid in ["k3", "k4"] {
        gateway.set_token(Some(&other.sign_as(Some(kid), &claims("alice"))));
        let refused = try_initialize(&gateway);
        assert_eq!(refused.status, 401, "{kid}: {refused:?}");
        assert!(refused.challenge.unwrap().contains("kid"));
    }
    assert_eq!(jwks.fetches(), 2, "re-reads of the JWKS are rate-limited");
}

/// An `alg: none` JWT of `claims`.
fn unsigned(claims: &Value) -> String {
    use base64::Engine;
    let encode = |value: &Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(value.to_string().as_bytes())
    };
    format!(
        "{}.{}.",
        encode(&json!({"alg": "none", "typ": "JWT", "kid": "k1"})),
        encode(claims)
    )
}
