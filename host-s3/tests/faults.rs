//! Faults between the S3 host and the store (moto on loopback behind a faulty link): an
//! unreachable store, 5xx answers, a store that never answers, a download cut in the middle.
//! Writes fall back to the inline truncated result with a warning and an
//! `OffloadWriteFailed` event; retries are bounded by the configuration.

mod support;

use lro_core::{
    ErrorCode, ExtractRequest, InlineResult, OffloadEvent, OffloadRequest, Outcome, StoreLimits,
};
use support::link::{Link, Step};
use support::{Events, config, endpoint, fresh_dir, host, memories, offloader};

/// Short waits, so the faults cost the suite little time.
fn limits(retries: u32) -> StoreLimits {
    StoreLimits {
        timeout_ms: 300,
        retries,
    }
}

fn recipe(n: u8) -> ExtractRequest {
    ExtractRequest {
        recipe: Some(n),
        ..ExtractRequest::default()
    }
}

/// Offloads 200 memories through `endpoint` and expects the fallback.
fn expect_fallback(dir: &str, endpoint: &str, limits: &StoreLimits) -> (InlineResult, Events) {
    let (lro, events) = offloader(
        config(dir, limits.clone()),
        host(dir, Some(endpoint), limits),
    );
    let outcome = lro
        .offload(&memories(200), &OffloadRequest::new("recall"))
        .unwrap();
    let Outcome::Inline(inline) = outcome else {
        panic!("the write cannot succeed: {outcome:?}")
    };
    assert!(inline.truncated, "{inline:?}");
    assert_eq!(inline.total_count, Some(200));
    assert!(inline.count > 0 && inline.count < 200);
    assert_eq!(inline.results.as_array().unwrap().len(), inline.count);
    let recorded = events.lock().unwrap().clone();
    assert!(
        matches!(recorded.as_slice(), [OffloadEvent::OffloadWriteFailed { file_path, count: 200, returned, .. }]
            if file_path.starts_with(dir) && *returned == inline.count),
        "{recorded:?}"
    );
    (inline, events)
}

#[test]
fn an_unreachable_store_gives_the_inline_fallback() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let dir = fresh_dir("unreachable");
    let nowhere = format!("http://127.0.0.1:{port}");
    let (inline, _) = expect_fallback(&dir, &nowhere, &limits(1));
    let warning = inline.warning.unwrap();
    assert!(
        warning.contains(&format!("PUT {dir}/atlatl-recall-"))
            && warning.contains("after 2 attempts"),
        "{warning}"
    );
    assert!(!warning.contains("X-Amz-Signature"), "{warning}");

    // Extraction and cleanup fail with a typed error, not a panic.
    let (lro, _) = offloader(
        config(&dir, limits(0)),
        host(&dir, Some(&nowhere), &limits(0)),
    );
    let file = format!("{dir}/atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl");
    assert_eq!(
        lro.extract(&file, &recipe(1)).unwrap_err().code(),
        ErrorCode::Io
    );
    assert_eq!(lro.cleanup().unwrap_err().code(), ErrorCode::Io);
}

#[test]
fn answers_5xx_are_retried_a_bounded_number_of_times() {
    let dir = fresh_dir("always-503");
    let link = Link::start(&endpoint(), &[Step::Answer(503); 10]);
    let (inline, _) = expect_fallback(&dir, &link.endpoint(), &limits(2));
    assert_eq!(link.connections(), 3, "one attempt and two retries");
    let warning = inline.warning.unwrap();
    assert!(
        warning.contains("503 SlowDown after 3 attempts"),
        "{warning}"
    );
    assert!(!warning.contains("X-Amz-Signature"), "{warning}");
}

#[test]
fn a_5xx_that_passes_is_retried_to_success() {
    let dir = fresh_dir("passing-503");
    let link = Link::start(&endpoint(), &[Step::Answer(503), Step::Answer(500)]);
    let lim = limits(2);
    let (lro, events) = offloader(
        config(&dir, lim.clone()),
        host(&dir, Some(&link.endpoint()), &lim),
    );
    let outcome = lro
        .offload(&memories(200), &OffloadRequest::new("recall"))
        .unwrap();
    let file = outcome
        .offloaded()
        .expect("the third attempt succeeds")
        .file_path
        .clone();
    assert_eq!(link.connections(), 3);
    assert!(matches!(
        events.lock().unwrap().as_slice(),
        [OffloadEvent::OffloadCreated { .. }]
    ));
    // The object is there, whole, read straight from the store.
    let (direct, _) = offloader(config(&dir, lim.clone()), host(&dir, None, &lim));
    assert_eq!(direct.extract(&file, &recipe(4)).unwrap().count, 200);
}

#[test]
fn a_store_that_never_answers_times_out_and_falls_back() {
    let dir = fresh_dir("stalled");
    let link = Link::start(&endpoint(), &[Step::Stall; 10]);
    let (inline, _) = expect_fallback(&dir, &link.endpoint(), &limits(1));
    assert_eq!(link.connections(), 2, "one attempt and one retry");
    let warning = inline.warning.unwrap();
    assert!(warning.contains("timed out"), "{warning}");
}

#[test]
fn a_download_cut_in_the_middle_resumes_where_it_stopped() {
    let dir = fresh_dir("resume");
    let lim = limits(2);
    let (writer, _) = offloader(config(&dir, lim.clone()), host(&dir, None, &lim));
    let request = OffloadRequest {
        detail: Some(lro_core::Detail::Full),
        ..OffloadRequest::new("recall")
    };
    let file = writer
        .offload(&memories(5000), &request)
        .unwrap()
        .offloaded()
        .unwrap()
        .file_path
        .clone();
    let whole = writer.extract(&file, &recipe(4)).unwrap();
    assert_eq!(whole.count, 5000);

    // The first two connections break after 300 KB from the server (the object is 1.8 MB):
    // whether the GET reuses the HEAD's kept-alive connection or opens its own, the body
    // is cut at least once.
    let cut = Step::CutAfter(300 * 1024);
    let link = Link::start(&endpoint(), &[cut, cut]);
    let (reader, _) = offloader(
        config(&dir, lim.clone()),
        host(&dir, Some(&link.endpoint()), &lim),
    );
    let resumed = reader.extract(&file, &recipe(4)).unwrap();
    assert_eq!(resumed.results, whole.results);
    assert_eq!(resumed.bytes_read, whole.bytes_read);
    let sent = link.sent();
    assert!(
        sent.contains("range: bytes="),
        "a ranged GET resumed the read"
    );
    assert!(
        sent.contains("if-match: "),
        "pinned to the version first read"
    );
    assert!(link.connections() >= 3, "{}", link.connections());
}
