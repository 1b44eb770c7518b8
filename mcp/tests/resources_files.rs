//! Offload files as MCP resources over real files: what is listed and read, and what never is
//! (symbolic links, directories, foreign files, files outside the output directory).

use std::fs;
use std::path::Path;

use lro_core::{ErrorCode, OffloadConfig, OffloadRequest, Offloader, StdHost};
use lro_mcp::resources::{jsonrpc_error_code, uri_for};
use serde_json::{Value, json};

fn offloader(dir: &Path) -> Offloader<StdHost> {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        ..OffloadConfig::default()
    };
    Offloader::new(config, StdHost::new()).unwrap()
}

fn offload(lro: &Offloader<StdHost>) -> String {
    let records: Vec<Value> = (0..300)
        .map(|i| json!({"id": i, "city": format!("city number {i}")}))
        .collect();
    let outcome = lro
        .offload(&json!(records), &OffloadRequest::new("cities"))
        .unwrap();
    outcome.offloaded().unwrap().file_path.clone()
}

#[test]
fn links_directories_and_outside_files_are_never_resources() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = fs::canonicalize(tmp.path()).unwrap().join("out");
    let lro = offloader(&dir);
    let real = offload(&lro);
    let real_name = Path::new(&real).file_name().unwrap().to_str().unwrap();
    // A secret next to the output directory, and names that look like offloads pointing to it
    // or to the real offload file.
    let secret = dir
        .parent()
        .unwrap()
        .join("atlatl-cities-01KAMZ4T3C6Y1B3X8N2V0W5QRT.jsonl");
    fs::write(&secret, "{\"type\":\"lro_header\"}\nsecret\n").unwrap();
    let out_link = "atlatl-cities-7ZZZZZZZZZZZZZZZZZZZZZZZZZ.jsonl";
    let in_link = "atlatl-cities-7ZZZZZZZZZZZZZZZZZZZZZZZZY.jsonl";
    std::os::unix::fs::symlink(&secret, dir.join(out_link)).unwrap();
    std::os::unix::fs::symlink(&real, dir.join(in_link)).unwrap();
    fs::create_dir(dir.join("atlatl-cities-7ZZZZZZZZZZZZZZZZZZZZZZZZX.jsonl")).unwrap();

    let page = lro_mcp::list_resources(&lro, None).unwrap();
    let names: Vec<&str> = page.resources.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, [real_name], "only the regular offload file");
    assert_eq!(
        page.resources[0].size,
        Some(fs::metadata(&real).unwrap().len())
    );

    let read = lro_mcp::read_resource(&lro, &uri_for(real_name)).unwrap();
    assert_eq!(read.contents[0].text, fs::read_to_string(&real).unwrap());
    for name in [
        out_link,
        in_link,
        "atlatl-cities-7ZZZZZZZZZZZZZZZZZZZZZZZZX.jsonl",
    ] {
        let err = lro_mcp::read_resource(&lro, &uri_for(name)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::PathDenied, "{name}: {err}");
        assert_eq!(jsonrpc_error_code(err.code()), -32602);
        assert!(!err.message().contains("secret"));
    }
    // Gone from the disk: not found, and gone from the list.
    fs::remove_file(&real).unwrap();
    let err = lro_mcp::read_resource(&lro, &uri_for(real_name)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound);
    assert!(
        lro_mcp::list_resources(&lro, None)
            .unwrap()
            .resources
            .is_empty()
    );
}

#[test]
fn a_missing_output_directory_lists_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let lro = offloader(&tmp.path().join("never-made"));
    let page = lro_mcp::list_resources(&lro, None).unwrap();
    assert!(page.resources.is_empty() && page.next_cursor.is_none());
}

/// A host that keeps no modification time (memory, object stores, JS) has nothing to judge
/// a name dated ahead of its clock by: the file counts as expired, never listed, removed by
/// cleanup (a planted far-future name neither sorts first nor outlives cleanup); a name a
/// minute ahead (clock skew) is still the file's time.
#[test]
fn without_modification_times_a_name_dated_ahead_is_expired() {
    use lro_core::MemoryHost;
    let host = MemoryHost::new();
    let now = 1_767_225_600_000u64;
    host.set_now_millis(now);
    let name = |ms: u64| format!("atlatl-recall-{}.jsonl", ulid::Ulid::from_parts(ms, 1));
    let header = "{\"type\":\"lro_header\",\"operation\":\"recall\",\"count\":0}\n";
    let skewed = name(now + 30_000);
    let ahead = name(now + 120_000);
    host.insert_file(format!("/out/{skewed}"), header);
    host.insert_file(format!("/out/{ahead}"), header);
    let config = OffloadConfig {
        output_dir: "/out".into(),
        ttl_seconds: 86_400,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, host).unwrap();
    let listed: Vec<String> = lro_mcp::list_resources(&lro, None)
        .unwrap()
        .resources
        .into_iter()
        .map(|r| r.name)
        .collect();
    assert_eq!(listed, vec![skewed.clone()]);
    let report = lro.cleanup().unwrap();
    assert_eq!(report.kept, 1, "{report:?}");
    assert_eq!(report.removed.len(), 1, "{report:?}");
    assert!(report.removed[0].file_path.ends_with(&ahead), "{report:?}");
}

/// The listing and the read refuse an output directory other users can write, as every
/// other entry point does (`invalid_config`), and accept a sticky one.
#[test]
fn a_shared_output_directory_serves_no_resources() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let shared = tmp.path().join("shared");
    fs::create_dir(&shared).unwrap();
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o777)).unwrap();
    let lro = offloader(&shared);
    let uri = uri_for("atlatl-recall-01KAMZ4T3C6Y1B3X8N2V0W5QRT.jsonl");
    for err in [
        lro_mcp::list_resources(&lro, None).unwrap_err(),
        lro_mcp::read_resource(&lro, &uri).unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::InvalidConfig, "{err}");
    }
    fs::set_permissions(&shared, fs::Permissions::from_mode(0o1777)).unwrap();
    assert!(lro_mcp::list_resources(&lro, None).is_ok());
}

/// A file named two minutes ahead of the clock (a replica's) but written now is listed: it
/// goes by its modification time, as cleanup judges it.
#[test]
fn a_name_dated_ahead_is_listed_by_its_modification_time() {
    use std::time::{SystemTime, UNIX_EPOCH};
    let tmp = tempfile::tempdir().unwrap();
    let lro = offloader(tmp.path());
    let written = std::path::PathBuf::from(offload(&lro));
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let ahead = ulid::Ulid::from_parts(now.as_millis() as u64 + 120_000, 7);
    fs::rename(
        &written,
        tmp.path().join(format!("atlatl-cities-{ahead}.jsonl")),
    )
    .unwrap();
    let page = lro_mcp::list_resources(&lro, None).unwrap();
    assert_eq!(page.resources.len(), 1, "{page:?}");
    assert!(page.resources[0].name.contains(&ahead.to_string()));
}
