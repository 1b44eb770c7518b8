//! `lro demo`: the main job end to end on an embedded, deterministic corpus.
//!
//! 500 MIF memories are recalled; LRO offloads them, prints the descriptor an agent would
//! get, runs two recipes natively (as `lro_extract` would), and shows the token saving.

use lro_core::extract::ExtractRequest;
use lro_core::{
    DescriptorProfile, LroError, OffloadConfig, OffloadRequest, Offloader, Outcome, StdHost,
};
use serde_json::{Value, json};

/// A line of the demo on stdout. A reader that closed the pipe (`lro demo | head -3`) ends
/// the demo quietly, as every command's output does (`written` in main.rs), not in a panic.
/// (Written out here: the core's benchmarks include this file for its corpus.)
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        match writeln!(std::io::stdout(), $($arg)*) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
            Err(e) => return Err(LroError::from_io(&e, "cannot write output")),
        }
    }};
}

const TYPES: [&str; 3] = ["semantic", "episodic", "procedural"];
const NAMESPACES: [&str; 6] = [
    "_semantic/decisions",
    "_semantic/knowledge",
    "_episodic/sessions",
    "_procedural/runbooks",
    "projects/atlas",
    "projects/borealis",
];
const TOPICS: [&str; 8] = [
    "caching",
    "storage layout",
    "retry policy",
    "auth tokens",
    "schema migration",
    "rate limits",
    "search ranking",
    "embedding refresh",
];
const TAGS: [&str; 6] = [
    "architecture",
    "ops",
    "security",
    "performance",
    "api",
    "data",
];

/// Memory `i` of the demo corpus: the same on every run and every machine.
pub fn memory(i: usize) -> Value {
    let topic = TOPICS[i % TOPICS.len()];
    json!({
        "id": format!("mem-{i:05}"),
        "memory_type": TYPES[i % 3],
        "title": format!("{} decision {i}: {topic} for service {}", if i % 2 == 0 { "Accepted" } else { "Proposed" }, i % 9),
        "content": format!(
            "After review {i} we changed the {topic} of service {}. The previous approach caused latency spikes \
             under load; the new one keeps p99 under {} ms. Rollout is tracked in the runbook and the dashboards.",
            i % 9,
            80 + i % 60
        ),
        "created": format!("2026-{:02}-{:02}T{:02}:00:00Z", 1 + i % 10, 1 + i % 28, i % 24),
        "modified": format!("2026-11-{:02}T12:00:00Z", 1 + i % 20),
        "namespace": NAMESPACES[(i * i / 7 + i / 3) % NAMESPACES.len()],
        "tags": [TAGS[i % TAGS.len()], TAGS[(i / 3) % TAGS.len()]],
        "status": if i % 5 == 0 { "archived" } else { "active" },
        "summary": format!("{topic} decision {i}"),
        "provenance": {"confidence": 0.5 + (i % 50) as f64 / 100.0, "trust_level": "verified", "source_type": "conversation", "agent": "demo"},
    })
}

/// The demo corpus.
pub fn corpus(n: usize) -> Vec<Value> {
    (0..n).map(memory).collect()
}

pub fn run(output_dir: Option<String>) -> Result<(), LroError> {
    let mut config = OffloadConfig::default();
    config.apply_env_os(std::env::vars_os())?;
    if let Some(dir) = output_dir {
        config.output_dir = dir;
    }
    let lro = Offloader::new(config, StdHost::new())?;
    let memories = Value::Array(corpus(500));
    let request = OffloadRequest {
        query: Some("service decisions".into()),
        ..OffloadRequest::new("recall")
    };

    say!("== LRO demo: recall_memories returned 500 memories (light detail, the recall default)\n");
    let outcome = lro.offload(&memories, &request)?;
    let Outcome::Offloaded(descriptor) = outcome else {
        say!("The result stayed inline (LRO disabled or threshold raised by the environment).");
        return Ok(());
    };
    let inline_tokens = descriptor.summary.estimated_tokens;
    // As an MCP client receives it: compact JSON.
    let descriptor_tokens = lro.estimate(&descriptor.to_value().to_string());

    say!("-- The descriptor the agent receives instead of the records");
    say!(
        "summary: {}",
        serde_json::to_string(&descriptor.summary).unwrap_or_default()
    );
    say!("file:    {}", descriptor.file_path);
    say!(
        "schema:  {}",
        descriptor.line_schema["title"].as_str().unwrap_or_default()
    );
    say!("recipes:");
    for (i, recipe) in descriptor.jq_recipes.iter().enumerate() {
        say!(
            "  {:>2}. {:<32} {}",
            i + 1,
            recipe.description,
            recipe.command
        );
    }
    say!("guidance:\n{}\n", indent(&descriptor.guidance));

    say!("-- Recipe 6 (count by namespace), run natively as lro_extract would");
    let counts = lro.extract(
        &descriptor.file_path,
        &ExtractRequest {
            recipe: Some(6),
            ..ExtractRequest::default()
        },
    )?;
    for group in counts
        .results
        .iter()
        .flat_map(|v| v.as_array().cloned().unwrap_or_default())
    {
        say!(
            "  {:<24} {}",
            group["namespace"].as_str().unwrap_or("-"),
            group["count"]
        );
    }

    say!(
        "\n-- Recipe 3 (search titles) with params {{\"keyword\": \"retry policy\"}}: first 5 of the matches"
    );
    let params = json!({"keyword": "retry policy"}).as_object().cloned();
    let hits = lro.extract(
        &descriptor.file_path,
        &ExtractRequest {
            recipe: Some(3),
            params,
            ..ExtractRequest::default()
        },
    )?;
    for hit in hits.results.iter().take(5) {
        say!(
            "  {}  {}",
            hit["id"].as_str().unwrap_or("-"),
            hit["title"].as_str().unwrap_or("-")
        );
    }
    say!("  ... {} matching memories in all", hits.count);

    let saved = inline_tokens.saturating_sub(descriptor_tokens);
    say!("\n-- Token cost (compact JSON, as an MCP client receives it)");
    say!("  inline result:          ~{inline_tokens} tokens");
    say!("  descriptor (full):      ~{descriptor_tokens} tokens");
    // The smaller profiles describe the same records (each offload writes its own file).
    let mut pointer = None;
    for profile in [DescriptorProfile::Compact, DescriptorProfile::Pointer] {
        let request = OffloadRequest {
            descriptor: Some(profile),
            ..request.clone()
        };
        let brief = lro.offload(&memories, &request)?.to_value();
        say!(
            "  {:<24}~{} tokens",
            format!("descriptor ({}):", profile.name()),
            lro.estimate(&brief.to_string())
        );
        pointer = Some(brief);
    }
    say!(
        "  saved (full):           ~{saved} tokens ({:.0}%)",
        100.0 * saved as f64 / inline_tokens.max(1) as f64
    );
    if let Some(pointer) = pointer {
        say!("\nThe pointer profile (descriptor = \"pointer\") in full:\n  {pointer}");
    }
    say!(
        "\nWith a shell, the same data is one command away:\n  {}",
        descriptor.jq_recipes[5].command
    );
    Ok(())
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}
