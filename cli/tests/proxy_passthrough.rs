//! `lro proxy`: what passes through untouched, and the few rewrites (initialize, tools/list).

use serde_json::{Value, json};

use crate::support::proxy::{Proxy, text};
use crate::support::run::{lro, stderr};

#[test]
fn initialize_announces_the_proxy_and_tools_list_gains_lro_extract() {
    let mut proxy = Proxy::start(&[], &[]);
    let init = proxy.initialize(json!({"name": "test-client", "version": "1"}));
    assert_eq!(init["result"]["serverInfo"]["name"], "mock", "{init}");
    let seen: Value = serde_json::from_str(text(&proxy.tool(1, "whoami", json!({})))).unwrap();
    assert_eq!(
        seen,
        json!({"name": "test-client", "version": "1", "proxy": true})
    );

    let list = proxy.call(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.last(), Some(&"lro_extract_mock"));
    assert!(names.contains(&"echo"));
    assert!(
        tools.iter().all(|t| t.get("outputSchema").is_none()),
        "outputSchema is removed on purpose: {list}"
    );
    let extract = tools.last().unwrap();
    assert_eq!(extract["inputSchema"]["required"], json!(["file_path"]));

    // A later page (with a cursor) does not repeat lro_extract.
    let page = proxy.call(3, "tools/list", json!({"cursor": "next"}));
    assert!(
        page["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["name"] != "lro_extract_mock")
    );
}

/// A `tools/list` holding a lone surrogate escape (in a description) still gains the
/// extract tool and loses the `outputSchema`s: refused as JSON, it used to pass as it came,
/// so results were offloaded that no listed tool could read and that broke the schema.
#[test]
fn a_lone_surrogate_does_not_keep_tools_list_as_it_came() {
    let mut proxy = Proxy::start(&[], &[("MOCK_LONE_SURROGATE", "1")]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let list = proxy.call(2, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.last().unwrap()["name"], "lro_extract_mock", "{list}");
    assert_eq!(tools[0]["description"], "echoes \\ud800", "{list}");
    assert!(
        tools.iter().all(|t| t.get("outputSchema").is_none()),
        "{list}"
    );
}

/// The extract tool listed by a proxy started with `env` and `extra` flags.
fn extract_tool_listed(extra: &[&str], env: &[(&str, &str)]) -> Value {
    let mut proxy = Proxy::start(extra, env);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let list = proxy.call(1, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    tools.last().unwrap().clone()
}

/// The name of the extract tool listed by a proxy started with `env` and `extra` flags.
fn extract_tool_of(extra: &[&str], env: &[(&str, &str)]) -> String {
    extract_tool_listed(extra, env)["name"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn the_extract_tool_is_listed_short_unless_the_long_form_is_asked_for() {
    let arguments = |tool: &Value| tool["inputSchema"]["properties"].as_object().unwrap().len();
    let short = extract_tool_listed(&[], &[]);
    assert_eq!(arguments(&short), 17, "{short}");
    let flag = extract_tool_listed(&["--extract-tool-definition", "long"], &[]);
    let env = extract_tool_listed(
        &[],
        &[(
            "ATLATL_PROMPT__OFFLOAD__MCP__EXTRACT_TOOL_DEFINITION",
            "long",
        )],
    );
    for long in [&flag, &env] {
        assert_eq!(arguments(long), 22, "{long}");
        assert!(long["inputSchema"]["properties"]["where"]["description"].is_string());
    }
    assert_eq!(flag, env);
    assert!(flag.to_string().len() > 3 * short.to_string().len());
    // A form it does not know stops the proxy before it starts, naming the key.
    let out = lro(
        &["proxy", "--extract-tool-definition", "tiny", "--", "true"],
        "",
        &[],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("mcp.extract_tool_definition"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn each_server_gets_its_own_extract_tool_name() {
    let memory = extract_tool_of(&[], &[("MOCK_SERVER_NAME", "memory-server")]);
    let everything = extract_tool_of(&[], &[("MOCK_SERVER_NAME", "mcp-servers/everything")]);
    assert_eq!(memory, "lro_extract_memory_server");
    assert_eq!(everything, "lro_extract_mcp_servers_everything");
    // No serverInfo.name: the plain name.
    assert_eq!(
        extract_tool_of(&[], &[("MOCK_SERVER_NAME", "")]),
        "lro_extract"
    );
    // Chosen: the flag, then the environment.
    assert_eq!(
        extract_tool_of(&["--extract-tool-name", "mem_x"], &[]),
        "mem_x"
    );
    assert_eq!(
        extract_tool_of(
            &[],
            &[("ATLATL_PROMPT__OFFLOAD__MCP__EXTRACT_TOOL_NAME", "env_x")]
        ),
        "env_x"
    );
    // A name no converter takes is refused at start, naming the rule.
    let out = lro(
        &["proxy", "--extract-tool-name", "lro-extract", "--", "true"],
        "",
        &[],
    );
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("extract_tool_name"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_server_tool_hidden_by_the_extract_tools_name_is_said_on_stderr() {
    let mut proxy = Proxy::start(&["--extract-tool-name", "echo"], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let list = proxy.call(1, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let echoes: Vec<_> = tools.iter().filter(|t| t["name"] == "echo").collect();
    assert_eq!(echoes.len(), 1, "{list}");
    assert_eq!(echoes[0]["title"], "Extract from an offloaded result");
    let stderr = proxy.stderr_containing(&["the server's tool \"echo\" is hidden"]);
    assert!(stderr.contains("--extract-tool-name"), "{stderr}");
}

#[test]
fn a_never_offloaded_tool_keeps_its_output_schema() {
    let mut proxy = Proxy::start(&["--never-offload", "echo"], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let list = proxy.call(1, "tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().unwrap();
    let echo = tools.iter().find(|t| t["name"] == "echo").unwrap();
    assert_eq!(echo["outputSchema"]["required"], json!(["text"]), "{echo}");
    assert!(
        tools
            .iter()
            .filter(|t| t["name"] != "echo")
            .all(|t| t.get("outputSchema").is_none())
    );
}

#[test]
fn unchanged_messages_pass_byte_for_byte() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    proxy.request(
        json!("str-id"),
        "tools/call",
        json!({"name": "raw_numbers", "arguments": {}}),
    );
    let line = proxy.next_line().unwrap();
    assert_eq!(
        line,
        r#"{"jsonrpc":"2.0","id":"str-id","result":{"content":[{"type":"text","text":"n"}],"structuredContent":{"a":1.50,"b":1e3,"c":"\u00e9"}}}"#
    );
    // Other methods, errors and ids of every kind go through.
    let resources = proxy.call(5, "resources/list", json!({}));
    assert_eq!(resources["result"]["resources"][0]["uri"], "mock://one");
    let missing = proxy.call(6, "prompts/get", json!({"name": "x"}));
    assert_eq!(missing["error"]["code"], -32601);
    let ping = proxy.call(7, "ping", json!({}));
    assert_eq!(ping["result"], json!({}));
}

#[test]
fn a_large_result_left_alone_passes_byte_for_byte() {
    // Two ways a 3 MB result is not offloaded: a threshold above it, a client that is a
    // proxy itself. Either way the client gets the server's bytes, `\u00e9` escapes and all
    // (a message rebuilt from its parsed form would spell the letter as UTF-8).
    for (extra, client) in [
        (
            &["--threshold", "100000000"][..],
            json!({"name": "c", "version": "1"}),
        ),
        (&[][..], json!({"name": "c", "version": "1", "proxy": true})),
    ] {
        let mut proxy = Proxy::start(extra, &[]);
        proxy.initialize(client);
        proxy.request(
            json!(1),
            "tools/call",
            json!({"name": "big", "arguments": {"mb": 3, "accents": true}}),
        );
        let line = proxy.next_line().unwrap();
        assert!(line.len() > 3_000_000, "{}", line.len());
        assert!(line.contains(r#"r\u00e9cord 7"#), "{}", &line[..300]);
        assert!(!line.contains('\u{e9}'));
        let message: Value = serde_json::from_str(&line).unwrap();
        let records: Value = serde_json::from_str(text(&message["result"])).unwrap();
        assert_eq!(records[7]["label"], "r\u{e9}cord 7");
    }
}

#[test]
fn small_results_stay_inline_and_structured_content_is_kept() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    let result = proxy.tool(1, "echo", json!({"text": "hello"}));
    assert_eq!(
        result,
        json!({"content": [{"type": "text", "text": "hello"}], "isError": false, "structuredContent": {"text": "hello"}})
    );
}

#[test]
fn progress_notifications_reach_the_client_before_the_result() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "c", "version": "1"}));
    proxy.request(
        json!(9),
        "tools/call",
        json!({"name": "progress", "arguments": {}, "_meta": {"progressToken": "tok"}}),
    );
    let (before, response) = proxy.until_response(&json!(9));
    assert_eq!(before.len(), 2, "{before:?}");
    assert!(
        before
            .iter()
            .all(|m| m["method"] == "notifications/progress"
                && m["params"]["progressToken"] == "tok")
    );
    assert_eq!(text(&response["result"]), "done");
}

#[test]
fn a_client_that_is_a_proxy_gets_results_inline() {
    let mut proxy = Proxy::start(&[], &[]);
    proxy.initialize(json!({"name": "upstream-proxy", "version": "1", "proxy": true}));
    let result = proxy.tool(1, "records", json!({"count": 500}));
    let records: Value = serde_json::from_str(text(&result)).unwrap();
    assert_eq!(records.as_array().unwrap().len(), 500);
    assert!(result.get("structuredContent").is_none());
}

#[test]
fn a_server_without_tools_still_offers_lro_extract() {
    let mut proxy = Proxy::start(&[], &[("MOCK_NO_TOOLS", "1")]);
    let init = proxy.initialize(json!({"name": "c", "version": "1"}));
    assert_eq!(init["result"]["capabilities"]["tools"], json!({}), "{init}");
    let list = proxy.call(1, "tools/list", json!({}));
    assert_eq!(list["result"]["tools"][0]["name"], "lro_extract_mock");
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 1);
}
