//! The S3 host against a real S3 API server on loopback (moto, started by `make test-s3`):
//! one PUT that never overwrites, extraction by another replica, typed errors, and cleanup
//! over a paginated listing.

mod support;

use std::io::Read;
use std::path::Path;

use lro_core::{
    ErrorCode, ExtractRequest, Host, OffloadConfig, OffloadEvent, OffloadRequest, Offloader,
    Outcome, StdHost, StoreLimits,
};
use lro_host_s3::NativeHost;
use serde_json::json;
use support::{config, fresh_dir, host, memories, offloader};
use ulid::Ulid;

/// A ULID of now (the `ulid` crate's generator needs its `std` feature, which we leave off).
fn fresh_ulid() -> Ulid {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = N.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    Ulid::from_parts(
        StdHost.now_millis(),
        u128::from(n) << 40 | u128::from(std::process::id()),
    )
}

fn recipe(n: u8) -> ExtractRequest {
    ExtractRequest {
        recipe: Some(n),
        ..ExtractRequest::default()
    }
}

#[test]
fn an_offload_is_one_object_that_another_replica_extracts() {
    let dir = fresh_dir("replicas");
    let limits = StoreLimits::default();
    let (writer, events) = offloader(config(&dir, limits.clone()), host(&dir, None, &limits));
    let request = OffloadRequest {
        detail: Some(lro_core::Detail::Full),
        ..OffloadRequest::new("recall")
    };
    let outcome = writer.offload(&memories(200), &request).unwrap();
    let descriptor = outcome
        .offloaded()
        .expect("200 full memories are offloaded");
    let file = descriptor.file_path.clone();
    assert!(file.starts_with(&format!("{dir}/atlatl-recall-")), "{file}");
    assert!(
        descriptor.jq_recipes[5]
            .command
            .starts_with(&format!("aws s3 cp {file} - | tail -n +2 | jq -s ")),
        "{}",
        descriptor.jq_recipes[5].command
    );
    assert!(matches!(
        events.lock().unwrap().as_slice(),
        [OffloadEvent::OffloadCreated { file_path, count: 200, .. }] if *file_path == file
    ));

    // The same records offloaded to a local directory: the reference.
    let local_dir = tempfile::tempdir().unwrap();
    let local = Offloader::new(
        OffloadConfig {
            output_dir: local_dir.path().to_string_lossy().into_owned(),
            ..OffloadConfig::default()
        },
        StdHost::new(),
    )
    .unwrap();
    let local_file = local
        .offload(&memories(200), &request)
        .unwrap()
        .offloaded()
        .unwrap()
        .file_path
        .clone();

    // Another replica: a host of its own, nothing shared with the writer but the store.
    let (reader, _) = offloader(config(&dir, limits.clone()), host(&dir, None, &limits));
    for n in 1..=10 {
        assert_eq!(
            reader.extract(&file, &recipe(n)).unwrap().results,
            local.extract(&local_file, &recipe(n)).unwrap().results,
            "recipe {n}"
        );
    }
    // A name relative to the output directory works too.
    let name = file.rsplit('/').next().unwrap();
    assert_eq!(reader.extract(name, &recipe(4)).unwrap().count, 200);

    // The object holds exactly the file's lines (the header differs only by its timestamp).
    let object = read_object(reader.host(), &file);
    let on_disk = std::fs::read_to_string(&local_file).unwrap();
    assert_eq!(object.lines().count(), 201);
    assert_eq!(
        object.lines().skip(1).collect::<Vec<_>>(),
        on_disk.lines().skip(1).collect::<Vec<_>>()
    );
}

#[test]
fn an_offload_never_overwrites_an_object() {
    let dir = fresh_dir("no-overwrite");
    let limits = StoreLimits::default();
    let host = host(&dir, None, &limits);
    let path = format!("{dir}/atlatl-recall-{}.jsonl", fresh_ulid());
    host.write_atomic(Path::new(&path), &[b"{\"first\":", b"true}\n"])
        .unwrap();
    let err = host
        .write_atomic(Path::new(&path), &[b"{\"second\":true}\n"])
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists, "{err}");
    let text = read_object(&host, &path);
    assert_eq!(text, "{\"first\":true}\n");
}

#[test]
fn missing_objects_and_foreign_paths_are_typed_errors() {
    let dir = fresh_dir("missing");
    let limits = StoreLimits::default();
    let (lro, _) = offloader(config(&dir, limits.clone()), host(&dir, None, &limits));
    let missing = format!("{dir}/atlatl-recall-{}.jsonl", fresh_ulid());
    let err = lro.extract(&missing, &recipe(1)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    assert!(err.message().contains(&missing), "{err}");
    for denied in [
        format!("s3://other-bucket/x/atlatl-recall-{}.jsonl", fresh_ulid()),
        format!("{dir}/../atlatl-recall-{}.jsonl", fresh_ulid()),
        format!("{dir}/sub/atlatl-recall-{}.jsonl", fresh_ulid()),
        format!("{dir}/notes.jsonl"),
        format!("/tmp/atlatl-recall-{}.jsonl", fresh_ulid()),
    ] {
        let err = lro.extract(&denied, &recipe(1)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::PathDenied, "{denied}: {err}");
    }
}

#[test]
fn a_missing_bucket_falls_back_to_an_inline_truncated_result() {
    let dir = "s3://lro-no-such-bucket/x";
    let limits = StoreLimits::default();
    let (lro, events) = offloader(config(dir, limits.clone()), host(dir, None, &limits));
    let Outcome::Inline(inline) = lro
        .offload(&memories(200), &OffloadRequest::new("recall"))
        .unwrap()
    else {
        panic!("nothing can be written to a missing bucket")
    };
    assert!(inline.truncated && inline.count < 200 && inline.total_count == Some(200));
    let warning = inline.warning.unwrap();
    assert!(
        warning.contains("404") && warning.contains("NoSuchBucket"),
        "{warning}"
    );
    assert!(matches!(
        events.lock().unwrap().as_slice(),
        [OffloadEvent::OffloadWriteFailed { count: 200, .. }]
    ));
}

#[test]
fn cleanup_reads_every_page_and_deletes_only_expired_offloads() {
    let dir = fresh_dir("cleanup");
    let limits = StoreLimits::default();
    // Seven keys a page: 20 expired + 5 fresh + 3 others + 1 sub-prefix take five pages.
    let store = host(&dir, None, &limits).with_page_size(7);
    let now = StdHost.now_millis();
    let name = |age_ms: u64, i: usize| {
        format!(
            "atlatl-recall-{}.jsonl",
            Ulid::from_parts(now - age_ms, i as u128)
        )
    };
    let put = |name: &str| {
        store
            .write_atomic(&Path::new(&dir).join(name), &[b"{}\n"])
            .unwrap();
    };
    let mut expired: Vec<String> = (0..20).map(|i| name(2 * 3_600_000 + i as u64, i)).collect();
    expired.sort();
    let fresh: Vec<String> = (0..5).map(|i| name(60_000, i)).collect();
    let others = [
        "notes.jsonl".to_owned(),
        format!(
            "other-recall-{}.jsonl",
            Ulid::from_parts(now - 7_200_000, 1)
        ),
        format!("{}.tmp", name(7_200_000, 99)),
    ];
    for n in expired.iter().chain(&fresh).chain(&others) {
        put(n);
    }
    put(&format!("sub/{}", name(7_200_000, 7)));

    let (lro, events) = offloader(config(&dir, limits.clone()), store);
    let report = lro.cleanup().unwrap();
    assert_eq!(report.kept, 5);
    assert!(report.errors.is_empty(), "{:?}", report.errors);
    let mut removed: Vec<String> = report
        .removed
        .iter()
        .map(|r| r.file_path.rsplit('/').next().unwrap().to_owned())
        .collect();
    removed.sort();
    assert_eq!(removed, expired);
    assert_eq!(events.lock().unwrap().len(), 20);

    let mut left: Vec<String> = lro
        .host()
        .list_dir(Path::new(&dir))
        .unwrap()
        .into_iter()
        .map(|e| e.name)
        .collect();
    left.sort();
    let mut expected: Vec<String> = fresh.iter().chain(&others).cloned().collect();
    expected.push("sub".to_owned());
    expected.sort();
    assert_eq!(left, expected);
    // A second pass finds nothing more to do.
    assert!(lro.cleanup().unwrap().removed.is_empty());
}

#[test]
fn the_host_is_selected_by_the_output_dir() {
    let dir = fresh_dir("selected");
    let config = OffloadConfig {
        output_dir: dir.clone(),
        ..OffloadConfig::default()
    };
    let host = NativeHost::for_config(&config).unwrap();
    assert!(matches!(host, NativeHost::S3(_)));
    let lro = Offloader::new(config, host).unwrap();
    let outcome = lro
        .offload(&json!(memories(60)), &OffloadRequest::new("recall"))
        .unwrap();
    let file = &outcome.offloaded().unwrap().file_path;
    assert!(file.starts_with(&dir), "{file}");
    assert_eq!(lro.extract(file, &recipe(4)).unwrap().count, 60);
}

#[test]
fn offloads_in_a_bucket_are_mcp_resources_any_replica_serves() {
    let dir = fresh_dir("resources");
    let limits = StoreLimits::default();
    let (writer, _) = offloader(config(&dir, limits.clone()), host(&dir, None, &limits));
    let mut files = Vec::new();
    for operation in ["recall", "search"] {
        let outcome = writer
            .offload(&memories(200), &OffloadRequest::new(operation))
            .unwrap();
        files.push(outcome.offloaded().unwrap().file_path.clone());
    }
    // Another replica lists and reads them: sizes from HEAD, headers from a GET each.
    let (reader, _) = offloader(config(&dir, limits.clone()), host(&dir, None, &limits));
    let page = lro_mcp::list_resources(&reader, None).unwrap();
    let names: Vec<&str> = page.resources.iter().map(|r| r.name.as_str()).collect();
    let expected: Vec<&str> = files
        .iter()
        .rev()
        .map(|f| f.rsplit('/').next().unwrap())
        .collect();
    assert_eq!(names, expected, "newest first");
    assert_eq!(
        page.resources[1].title.as_deref(),
        Some("recall: 200 memories")
    );
    for (resource, file) in page.resources.iter().zip(files.iter().rev()) {
        let object = read_object(reader.host(), file);
        assert_eq!(resource.size, Some(object.len() as u64));
        let read = lro_mcp::read_resource(&reader, &resource.uri).unwrap();
        assert_eq!(read.contents[0].text, object);
    }
    let count = ExtractRequest {
        count: Some(true),
        ..ExtractRequest::default()
    };
    assert_eq!(
        reader
            .extract(&page.resources[0].uri, &count)
            .unwrap()
            .results,
        vec![json!(200)]
    );
    let missing = format!("lro://offloads/atlatl-recall-{}.jsonl", fresh_ulid());
    assert_eq!(
        lro_mcp::read_resource(&reader, &missing)
            .unwrap_err()
            .code(),
        ErrorCode::NotFound
    );
}

/// The whole object at `path`, through the host's checked open (directory, then name).
fn read_object(host: &impl Host, path: &str) -> String {
    let (dir, name) = path.rsplit_once('/').unwrap();
    let mut text = String::new();
    host.open_file(Path::new(dir), name)
        .unwrap()
        .reader
        .read_to_string(&mut text)
        .unwrap();
    text
}
