//! The interceptor and the `[prompt.offload.mcp]` options: tools that are never offloaded,
//! and the extract tool named in descriptors as the surface lists it.

use lro_core::{MemoryHost, OffloadConfig, Offloader};
use lro_mcp::{
    InterceptAction, InterceptedText, ToolCallContext, intercept_tool_result,
    intercept_tool_result_text,
};

fn rows() -> serde_json::Value {
    let rows: Vec<_> = (0..300)
        .map(|i| serde_json::json!({"id": i, "kind": "k", "label": format!("row number {i}")}))
        .collect();
    serde_json::json!({"content": [{"type": "text", "text": serde_json::Value::from(rows).to_string()}]})
}

fn offloader(toml: &str) -> Offloader<MemoryHost> {
    let config = OffloadConfig::from_toml_str(toml).unwrap();
    Offloader::new(config, MemoryHost::new()).unwrap()
}

#[test]
fn a_never_offloaded_tool_passes_untouched() {
    let lro = offloader("[prompt.offload.mcp]\nnever_offload = [\"get_rows\"]\n");
    let context = |name: &str| ToolCallContext {
        tool_name: name.into(),
        ..Default::default()
    };
    let kept = intercept_tool_result(&lro, &rows(), &context("get_rows")).unwrap();
    assert_eq!(
        (kept.action, kept.result),
        (InterceptAction::Bypassed, rows())
    );
    let text = rows()["content"][0]["text"].as_str().unwrap().to_owned();
    let text_result = serde_json::json!({"content": [{"type": "text", "text": text}]}).to_string();
    assert!(matches!(
        intercept_tool_result_text(&lro, &text_result, &context("get_rows")).unwrap(),
        InterceptedText::Unchanged(InterceptAction::Bypassed)
    ));
    let other = intercept_tool_result(&lro, &rows(), &context("list_rows")).unwrap();
    assert_eq!(other.action, InterceptAction::Offloaded);
}

#[test]
fn descriptors_name_the_extract_tool_as_listed() {
    for (profile, toml_name, context_name, expected) in [
        (
            "full",
            None,
            Some("lro_extract_memory"),
            "lro_extract_memory",
        ),
        (
            "compact",
            None,
            Some("lro_extract_memory"),
            "lro_extract_memory",
        ),
        (
            "pointer",
            None,
            Some("lro_extract_memory"),
            "lro_extract_memory",
        ),
        ("full", Some("mem_x"), None, "mem_x"),
        ("full", None, None, "lro_extract"),
    ] {
        let mut toml =
            format!("[prompt.offload]\nguidance = \"native\"\ndescriptor = \"{profile}\"\n");
        if let Some(name) = toml_name {
            toml.push_str(&format!(
                "[prompt.offload.mcp]\nextract_tool_name = \"{name}\"\n"
            ));
        }
        let lro = offloader(&toml);
        let context = ToolCallContext {
            tool_name: "read_graph".into(),
            extract_tool: context_name.map(str::to_owned),
            ..Default::default()
        };
        let out = intercept_tool_result(&lro, &rows(), &context).unwrap();
        let text = out.result["content"][0]["text"].as_str().unwrap();
        let descriptor: serde_json::Value = serde_json::from_str(text).unwrap();
        let guidance = descriptor["guidance"].as_str().unwrap();
        assert!(
            guidance.contains(&format!("{expected}(file_path")),
            "{profile}: {guidance}"
        );
        assert!(
            !guidance.contains("lro_extract(") || expected == "lro_extract",
            "{guidance}"
        );
        if profile != "pointer" {
            assert_eq!(descriptor["extract_tool"], expected, "{profile}");
            assert!(guidance.contains("prefix"), "{guidance}");
        }
        let uri = descriptor["resource_uri"].as_str().unwrap();
        assert!(
            uri.starts_with("lro://offloads/atlatl-read_graph-"),
            "{uri}"
        );
    }
    // The shell guidance names no tool.
    let lro = offloader("");
    let out = intercept_tool_result(&lro, &rows(), &ToolCallContext::default()).unwrap();
    let descriptor: serde_json::Value =
        serde_json::from_str(out.result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert!(descriptor.get("extract_tool").is_none());
    assert!(descriptor["resource_uri"].is_string());
}
