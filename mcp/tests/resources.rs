//! Offload files as MCP resources: their URIs and links, the listing in pages, reading, and
//! the JSON-RPC error code of each failure.

use serde_json::{Value, json};

use lro_core::error::ErrorCode;
use lro_core::{
    ExtractLimits, ExtractRequest, Host, MemoryHost, OffloadConfig, OffloadRequest, Offloader,
};
use lro_mcp::resources::*;
use lro_mcp::{ToolCallContext, intercept_tool_result};

const NOW: u64 = 1_767_225_600_000; // MemoryHost's clock: 2026-01-01T00:00:00Z

fn lro() -> Offloader<MemoryHost> {
    Offloader::new(OffloadConfig::default(), MemoryHost::new()).unwrap()
}

fn offload(lro: &Offloader<MemoryHost>, operation: &str, rows: usize) -> String {
    let records: Vec<Value> = (0..rows)
        .map(|i| json!({"id": i, "label": format!("row number {i} of {operation}")}))
        .collect();
    let outcome = lro
        .offload(&json!(records), &OffloadRequest::new(operation))
        .unwrap();
    outcome.offloaded().expect("offloaded").file_path.clone()
}

fn name(path: &str) -> String {
    path.rsplit('/').next().unwrap().to_owned()
}

#[test]
fn uris_name_offload_files_only() {
    let file = "atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl";
    let parsed = parse_uri(&uri_for(file), "atlatl").unwrap();
    assert_eq!((parsed.file_name.as_str(), parsed.view), (file, View::File));
    let records = parse_uri(&format!("lro://offloads/{file}/records"), "atlatl").unwrap();
    assert_eq!(records.view, View::Records);
    assert_eq!(records.parsed.operation, "recall");
    for (uri, code) in [
        ("file:///tmp/x.jsonl", ErrorCode::InvalidArgument),
        ("lro://other/x", ErrorCode::InvalidArgument),
        ("LRO://offloads/x", ErrorCode::PathDenied),
        (
            "lro://offloads/ATLATL-recall-01JH5X3Q7Y0000000000000000.jsonl",
            ErrorCode::PathDenied,
        ),
        ("lro://offloads/", ErrorCode::PathDenied),
        ("lro://offloads/../../etc/passwd", ErrorCode::PathDenied),
        (
            "lro://offloads/../atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl",
            ErrorCode::PathDenied,
        ),
        (
            "lro://offloads/a/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl",
            ErrorCode::PathDenied,
        ),
        (
            "lro://offloads/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl?x=1",
            ErrorCode::PathDenied,
        ),
        (
            "lro://offloads/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl/",
            ErrorCode::PathDenied,
        ),
        (
            "lro://offloads/atlatl%2Drecall-01JH5X3Q7Y0000000000000000.jsonl",
            ErrorCode::PathDenied,
        ),
        (
            "lro://offloads/other-recall-01JH5X3Q7Y0000000000000000.jsonl",
            ErrorCode::PathDenied,
        ),
    ] {
        assert_eq!(parse_uri(uri, "atlatl").unwrap_err().code(), code, "{uri}");
    }
    assert!(is_offload_uri("lro://offloads/anything"));
    assert!(!is_offload_uri("lro://elsewhere/x"));
    // Scheme and authority are case-insensitive (RFC 3986): the proxy's, never the server's.
    for uri in ["LRO://offloads/x", "lro://OFFLOADS/x", "Lro://OffLoads/x"] {
        assert!(is_offload_uri(uri), "{uri}");
    }
    assert!(!is_offload_uri("lro://offloadsx/x"));
    assert!(!is_offload_uri("lro://offload\u{e9}/x"));
    let upper = parse_uri(&format!("LRO://OFFLOADS/{file}/records"), "atlatl").unwrap();
    assert_eq!(
        (upper.file_name.as_str(), upper.view),
        (file, View::Records)
    );
}

#[test]
fn the_link_names_the_file_and_its_type() {
    let link = resource_link("/tmp/lro/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl");
    assert_eq!(
        link,
        json!({"type": "resource_link", "uri": "lro://offloads/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl",
               "name": "atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl", "mimeType": "application/jsonl"})
    );
    let object = resource_link("s3://bucket/agents/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl");
    assert_eq!(object["name"], link["name"]);
}

#[test]
fn the_list_describes_each_file_newest_first() {
    let lro = lro();
    let first = offload(&lro, "read_graph", 300);
    lro.host().set_now_millis(NOW + 5);
    let second = offload(&lro, "query", 200);
    let page = list_resources(&lro, None).unwrap();
    assert_eq!(page.next_cursor, None);
    let names: Vec<&str> = page.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, [name(&second), name(&first)]);
    let newest = &page.resources[0];
    assert_eq!(newest.uri, format!("lro://offloads/{}", name(&second)));
    assert_eq!(newest.mime_type, "application/jsonl");
    assert_eq!(newest.title.as_deref(), Some("query: 200 records"));
    let description = newest.description.as_deref().unwrap();
    assert!(
        description.starts_with("Offloaded result of query: 200 records, ~"),
        "{description}"
    );
    assert!(
        description.contains("written 2026-01-01T00:00:00.005Z"),
        "{description}"
    );
    let size = lro.host().file(&second).unwrap().len() as u64;
    assert_eq!(newest.size, Some(size));
    // The JSON a client receives: MCP's camelCase names.
    let wire = serde_json::to_value(&page).unwrap();
    assert_eq!(wire["resources"][0]["mimeType"], "application/jsonl");
    assert!(wire.get("nextCursor").is_none());
}

#[test]
fn pages_follow_their_cursor_and_expired_or_foreign_files_are_left_out() {
    let lro = lro();
    let mut written = Vec::new();
    for i in 0..7 {
        lro.host().set_now_millis(NOW + i);
        written.push(name(&offload(&lro, "query", 200)));
    }
    let dir = lro.output_dir();
    // Not offload files of this prefix, or too old: never listed.
    lro.host().insert_file(dir.join("notes.txt"), "x");
    lro.host().insert_file(
        dir.join("other-query-01JH5X3Q7Y0000000000000000.jsonl"),
        "x",
    );
    lro.host().insert_file(
        dir.join("atlatl-query-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl"),
        "old",
    );
    lro.host().insert_file(
        dir.join("sub/atlatl-query-01JH5X3Q7Y0000000000000000.jsonl"),
        "x",
    );
    let mut seen = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = list_resources_page(&lro, cursor.as_deref(), 3).unwrap();
        pages += 1;
        assert!(page.resources.len() <= 3);
        seen.extend(page.resources.into_iter().map(|r| r.name));
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    assert_eq!(pages, 3);
    written.reverse();
    assert_eq!(seen, written);
    // A file removed between two pages does not break the cursor.
    let page = list_resources_page(&lro, None, 3).unwrap();
    let cursor = page.next_cursor.unwrap();
    lro.host().remove_file(&dir.join(&cursor)).unwrap();
    let next = list_resources_page(&lro, Some(&cursor), 3).unwrap();
    assert_eq!(next.resources[0].name, written[3]);
    let bad = list_resources(&lro, Some("page-2")).unwrap_err();
    assert_eq!(bad.code(), ErrorCode::InvalidArgument);
    // Once the time-to-live has passed, a file is gone from the list: of the three
    // newest, one was removed above, so two are left.
    lro.host().set_now_millis(NOW + 3_600_000 + 3);
    let left = list_resources(&lro, None).unwrap();
    let names: Vec<&str> = left.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, [&written[0], &written[1]]);
}

#[test]
fn reading_gives_the_file_or_its_records() {
    let lro = lro();
    let path = offload(&lro, "query", 150);
    let bytes = String::from_utf8(lro.host().file(&path).unwrap()).unwrap();
    let uri = uri_for(&name(&path));
    let whole = read_resource(&lro, &uri).unwrap();
    assert_eq!(whole.contents.len(), 1);
    assert_eq!(whole.contents[0].text, bytes);
    assert_eq!(whole.contents[0].uri, uri);
    assert_eq!(whole.contents[0].mime_type, MIME_TYPE);
    let records = read_resource(&lro, &format!("{uri}/records")).unwrap();
    assert_eq!(
        records.contents[0].text,
        bytes.split_once('\n').unwrap().1,
        "the records alone"
    );
    assert_eq!(records.contents[0].text.lines().count(), 150);
    let wire = serde_json::to_value(&whole).unwrap();
    assert_eq!(wire["contents"][0]["mimeType"], MIME_TYPE);
}

#[test]
fn reading_anything_else_fails_with_its_code() {
    let lro = lro();
    let path = offload(&lro, "query", 150);
    let dir = lro.output_dir();
    lro.host().insert_file(dir.join("notes.txt"), "secret");
    let missing = "lro://offloads/atlatl-query-01KAMZ4T3C6Y1B3X8N2V0W5QRT.jsonl";
    let expired = "atlatl-query-01ARZ3NDEKTSV4RRFFQ69G5FAV.jsonl";
    lro.host().insert_file(dir.join(expired), "old");
    for (uri, code, rpc) in [
        ("file:///etc/passwd", ErrorCode::InvalidArgument, -32602),
        ("lro://offloads/notes.txt", ErrorCode::PathDenied, -32602),
        (
            "lro://offloads/../../etc/passwd",
            ErrorCode::PathDenied,
            -32602,
        ),
        (missing, ErrorCode::NotFound, -32002),
        (&uri_for(expired), ErrorCode::NotFound, -32002),
    ] {
        let err = read_resource(&lro, uri).unwrap_err();
        assert_eq!(err.code(), code, "{uri}: {err}");
        assert_eq!(jsonrpc_error_code(err.code()), rpc);
    }
    // Larger than the read limit: refused, with the way out.
    let small = Offloader::new(
        OffloadConfig {
            extract: ExtractLimits {
                max_read_bytes: 100,
                ..ExtractLimits::default()
            },
            ..OffloadConfig::default()
        },
        MemoryHost::new(),
    )
    .unwrap();
    small
        .host()
        .insert_file(&path, lro.host().file(&path).unwrap());
    let err = read_resource(&small, &uri_for(&name(&path))).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
    assert!(err.message().contains("lro_extract"), "{err}");
}

#[test]
fn extraction_takes_the_uri_for_the_path() {
    let lro = lro();
    let path = offload(&lro, "query", 150);
    let request: ExtractRequest = serde_json::from_value(json!({"count": true})).unwrap();
    let by_path = lro.extract(&path, &request).unwrap();
    let uri = uri_for(&name(&path));
    assert_eq!(lro.extract(&uri, &request).unwrap(), by_path);
    assert_eq!(
        lro.extract(&format!("{uri}/records"), &request).unwrap(),
        by_path
    );
    let denied = lro
        .extract("lro://offloads/../../etc/passwd", &request)
        .unwrap_err();
    assert_eq!(denied.code(), ErrorCode::PathDenied);
}

#[test]
fn an_offloaded_mcp_result_names_its_resource_and_links_it_when_asked() {
    let text = json!(
        (0..300)
            .map(|i| json!({"id": i, "v": format!("value {i}")}))
            .collect::<Vec<_>>()
    )
    .to_string();
    let result = json!({"content": [{"type": "text", "text": text}, {"type": "image", "data": "AA==", "mimeType": "image/png"}]});
    let context = ToolCallContext {
        tool_name: "query".into(),
        ..Default::default()
    };
    // By default: the descriptor's text (holding resource_uri) and the tool's image, no link
    // and no structuredContent.
    let lro = lro();
    let out = intercept_tool_result(&lro, &result, &context).unwrap();
    let content = out.result["content"].as_array().unwrap();
    assert_eq!(content.len(), 2, "descriptor, image: {content:?}");
    assert_eq!(content[1]["type"], "image");
    assert!(out.result.get("structuredContent").is_none());
    let file_path = &out.response.as_ref().unwrap().file_path;
    let descriptor: Value = serde_json::from_str(content[0]["text"].as_str().unwrap()).unwrap();
    let uri = descriptor["resource_uri"].as_str().unwrap();
    assert_eq!(uri, resource_link(file_path)["uri"]);
    let read = read_resource(&lro, uri).unwrap();
    assert_eq!(
        read.contents[0].text.as_bytes(),
        lro.host().file(file_path).unwrap()
    );
    // mcp.resource_link and mcp.structured_content add the link block and the descriptor
    // as structuredContent.
    let mut config = OffloadConfig::default();
    config.mcp.resource_link = true;
    config.mcp.structured_content = true;
    let lro = Offloader::new(config, MemoryHost::new()).unwrap();
    let out = intercept_tool_result(&lro, &result, &context).unwrap();
    let content = out.result["content"].as_array().unwrap();
    assert_eq!(content.len(), 3, "descriptor, image, link");
    let file_path = &out.response.as_ref().unwrap().file_path;
    assert_eq!(&content[2], &resource_link(file_path));
    assert_eq!(
        out.result["structuredContent"],
        serde_json::from_str::<Value>(content[0]["text"].as_str().unwrap()).unwrap()
    );
    // Inline results carry no link.
    let small = json!({"content": [{"type": "text", "text": "[1, 2]"}]});
    assert_eq!(
        intercept_tool_result(&lro, &small, &context)
            .unwrap()
            .result,
        small
    );
}

#[test]
fn templates_and_error_codes() {
    let templates = resource_templates();
    assert_eq!(templates.len(), 2);
    assert_eq!(templates[0]["uriTemplate"], "lro://offloads/{file}");
    assert_eq!(templates[1]["uriTemplate"], "lro://offloads/{file}/records");
    assert!(templates.iter().all(|t| t["mimeType"] == MIME_TYPE));
    assert_eq!(jsonrpc_error_code(ErrorCode::Io), -32603);
}

/// A lro with `prefix`, its clock at [`NOW`].
fn lro_with_prefix(prefix: &str) -> Offloader<MemoryHost> {
    let config = OffloadConfig {
        file_prefix: prefix.to_owned(),
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, MemoryHost::new()).unwrap();
    lro.host().set_now_millis(NOW);
    lro
}

#[test]
fn another_prefix_files_named_like_ours_are_neither_listed_nor_read() {
    // Prefix `team`; `team-a-data-*` is its operation `a-data` or prefix `team-a`'s `data`.
    let lro = lro_with_prefix("team");
    let own = name(&offload(&lro, "a-data", 200));
    assert!(own.starts_with("team-a-data-"), "{own}");
    let dir = lro.output_dir();
    let ulid = ulid::Ulid::from_parts(NOW - 1, 7);
    let header = |operation: &str, extra: &str| {
        format!(
            "{{\"type\":\"lro_header\",\"operation\":\"{operation}\",\"query\":null,\"count\":2,\"schema_version\":\"raw\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"estimated_tokens\":9,\"detail\":\"raw\"{extra}}}\n{{\"a\":1}}\n{{\"a\":2}}\n"
        )
    };
    let theirs = format!("team-a-data-{ulid}.jsonl");
    lro.host()
        .insert_file(dir.join(&theirs), header("data", ""));
    // No header to tell: not listed under a name that could be another prefix's.
    let unknown = format!("team-b-c-{ulid}.jsonl");
    lro.host()
        .insert_file(dir.join(&unknown), "not an offload file\n");
    // Ours, but its sections run past its records: listed, its sections not described.
    let lying = format!("team-lies-{ulid}.jsonl");
    let sections = r#","sections":[{"name":"x","first_line":2,"count":1},{"name":"y","first_line":3,"count":99}]"#;
    lro.host()
        .insert_file(dir.join(&lying), header("lies", sections));
    let page = list_resources(&lro, None).unwrap();
    let mut names: Vec<&str> = page.resources.iter().map(|r| r.name.as_str()).collect();
    names.sort_unstable();
    let mut expected = vec![own.as_str(), lying.as_str()];
    expected.sort_unstable();
    assert_eq!(names, expected);
    let described = page.resources.iter().find(|r| r.name == lying).unwrap();
    let description = described.description.as_deref().unwrap();
    assert!(description.contains("not valid"), "{description}");
    for file in [&theirs, &unknown] {
        let err = read_resource(&lro, &uri_for(file)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::PathDenied, "{file}: {err}");
    }
    let read = read_resource(&lro, &uri_for(&own)).unwrap();
    assert_eq!(read.contents[0].text.lines().count(), 201);
    // The same directory seen by prefix `team-a`: the other way round.
    let team_a = lro_with_prefix("team-a");
    for (path, bytes) in lro.host().paths().into_iter().filter_map(|p| {
        let bytes = lro.host().file(&p)?;
        Some((p, bytes))
    }) {
        team_a.host().insert_file(path, bytes);
    }
    let page = list_resources(&team_a, None).unwrap();
    let names: Vec<&str> = page.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, [theirs.as_str()]);
    let err = read_resource(&team_a, &uri_for(&own)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::PathDenied);
}
