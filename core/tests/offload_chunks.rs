//! `offload_chunks` (a JSON array given in pieces, as the Node addon sends large sets) must
//! give exactly what `offload_json` gives for the whole array: the same outcome and the
//! same file, at every detail level, inline and offloaded; and `None` whenever the pieces
//! are not MIF memories only, so that the caller can offload the records whole.

use lro_core::jsonl::MifChunks;
use lro_core::{Detail, MemoryHost, OffloadConfig, OffloadRequest, Offloader, Outcome};
use serde_json::{Value, json};

fn offloader(threshold: u32, enabled: bool) -> Offloader<MemoryHost> {
    let config = OffloadConfig {
        output_dir: "/out".into(),
        threshold_tokens: threshold,
        enabled,
        ..OffloadConfig::default()
    };
    // A fresh memory host each time: same clock, same randomness, so the same file names.
    Offloader::new(config, MemoryHost::new()).unwrap()
}

fn memory(i: usize, light_only: bool) -> Value {
    let memory_type = ["semantic", "episodic"][i % 2];
    let namespace = ["a/b", "c"][i % 3 % 2];
    let mut record = json!({
        "id": format!("m{i}"),
        "memory_type": memory_type,
        "title": format!("memory \"{i}\""),
        "namespace": namespace,
        "tags": ["x", i],
        "created": "2026-01-01T00:00:00Z",
    });
    if !light_only {
        record["content"] = json!(format!("content {i} ").repeat(8));
        record["provenance"] = json!({"confidence": 0.5});
        record["score"] = json!(1e21);
    }
    record
}

/// Both ways in, on identical offloaders: the outcomes as JSON and every file written.
fn both(
    records: &[Value],
    pieces: &[&[Value]],
    request: &OffloadRequest,
    threshold: u32,
    enabled: bool,
) -> (Option<Value>, Value) {
    let chunked = offloader(threshold, enabled);
    let mut chunks = MifChunks::new(&request.operation, request.detail);
    for piece in pieces {
        chunks.push_json(&serde_json::to_vec(piece).unwrap());
    }
    let via_chunks = chunked.offload_chunks(chunks, request).unwrap();
    let whole = offloader(threshold, enabled);
    let via_json = whole
        .offload_json(&serde_json::to_vec(records).unwrap(), request)
        .unwrap();
    if let (Some(Outcome::Offloaded(a)), Outcome::Offloaded(b)) = (&via_chunks, &via_json) {
        assert_eq!(
            chunked.host().file(&a.file_path),
            whole.host().file(&b.file_path)
        );
    }
    (via_chunks.map(|o| o.to_value()), via_json.to_value())
}

#[test]
fn pieces_give_what_the_whole_array_gives() {
    for light_only in [true, false] {
        let records: Vec<Value> = (0..25).map(|i| memory(i, light_only)).collect();
        let pieces: Vec<&[Value]> = records.chunks(7).collect();
        for detail in [
            None,
            Some(Detail::Light),
            Some(Detail::Medium),
            Some(Detail::Full),
        ] {
            for (threshold, enabled) in [(50, true), (1_000_000, true), (50, false)] {
                let request = OffloadRequest {
                    detail,
                    query: Some("q".into()),
                    ..OffloadRequest::new("recall")
                };
                let (chunked, whole) = both(&records, &pieces, &request, threshold, enabled);
                assert_eq!(
                    chunked.as_ref(),
                    Some(&whole),
                    "{detail:?} {threshold} {enabled}"
                );
            }
        }
    }
}

#[test]
fn pieces_that_are_not_all_mif_memories_give_none() {
    let request = OffloadRequest::new("recall");
    let mif: Vec<Value> = (0..4).map(|i| memory(i, true)).collect();
    let not_mif = [json!({"id": "x"})];
    for pieces in [
        vec![&mif[..2], &not_mif[..], &mif[2..]],
        vec![&mif[..0]],
        vec![],
    ] {
        let mut chunks = MifChunks::new("recall", None);
        for piece in &pieces {
            chunks.push_json(&serde_json::to_vec(piece).unwrap());
        }
        let outcome = offloader(10, true)
            .offload_chunks(chunks, &request)
            .unwrap();
        assert!(outcome.is_none());
    }
    // A piece the text path does not take (not an array, invalid JSON) gives none too.
    for bad in [
        &b"{}"[..],
        b"[1,",
        b"[{\"id\": 1, \"namespace\": \"n\", \"id\": 2}]",
    ] {
        let mut chunks = MifChunks::new("recall", None);
        assert!(chunks.push_json(&serde_json::to_vec(&mif).unwrap()));
        assert!(!chunks.push_json(bad));
        assert!(chunks.finish().is_none());
    }
}

#[test]
fn a_bad_operation_is_still_an_error() {
    let chunks = MifChunks::new("bad op!", None);
    let err = offloader(10, true)
        .offload_chunks(chunks, &OffloadRequest::new("bad op!"))
        .unwrap_err();
    assert_eq!(err.code(), lro_core::ErrorCode::InvalidOperation);
}
