//! Offload files on a real file system through the std host: private files, directories
//! made when missing (also after they disappear between offloads), symlinks resolved, and
//! the inline fallback when the directory cannot be made.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use lro_core::{OffloadConfig, OffloadRequest, Offloader, Outcome, StdHost};
use serde_json::{Value, json};

fn memories(n: usize) -> Value {
    Value::Array(
        (0..n)
            .map(|i| {
                json!({
                    "id": format!("m{i}"),
                    "namespace": "projects/atlas",
                    "title": format!("memory {i} {}", "words ".repeat(20)),
                })
            })
            .collect(),
    )
}

fn offloader(dir: &Path) -> Offloader<StdHost> {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        threshold_tokens: 100,
        ..OffloadConfig::default()
    };
    Offloader::new(config, StdHost::new()).unwrap()
}

fn offloaded_path(lro: &Offloader<StdHost>) -> String {
    match lro
        .offload(&memories(20), &OffloadRequest::new("recall"))
        .unwrap()
    {
        Outcome::Offloaded(response) => response.file_path,
        Outcome::Inline(inline) => panic!("not offloaded: {:?}", inline.warning),
    }
}

#[test]
fn files_are_private_and_directories_are_made_again_when_they_disappear() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("nested/offloads");
    let lro = offloader(&dir);

    let first = offloaded_path(&lro);
    assert!(first.starts_with(&*dir.canonicalize().unwrap().to_string_lossy()));
    let mode = std::fs::metadata(&first).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "{first}");

    // The offloader remembers the directory it made; removing it must not break the next.
    std::fs::remove_dir_all(root.path().join("nested")).unwrap();
    let second = offloaded_path(&lro);
    assert_ne!(first, second);
    assert!(Path::new(&second).is_file());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
}

#[test]
fn a_symlinked_directory_is_named_by_its_real_path() {
    let root = tempfile::tempdir().unwrap();
    let real = root.path().join("real");
    std::fs::create_dir(&real).unwrap();
    let link = root.path().join("link");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let path = offloaded_path(&offloader(&link));
    assert!(
        path.starts_with(&*real.canonicalize().unwrap().to_string_lossy()),
        "{path}"
    );
}

#[test]
fn a_directory_that_cannot_be_made_falls_back_to_inline_records() {
    let root = tempfile::tempdir().unwrap();
    let blocker = root.path().join("not-a-dir");
    std::fs::write(&blocker, b"x").unwrap();
    let lro = offloader(&blocker.join("offloads"));
    let Outcome::Inline(inline) = lro
        .offload(&memories(20), &OffloadRequest::new("recall"))
        .unwrap()
    else {
        panic!("offloaded into a file")
    };
    assert!(inline.truncated);
    assert!(inline.warning.unwrap().contains("could not write"));
}

/// Every entry of `dir` by name.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn an_atomic_write_never_replaces_what_is_at_its_name() {
    use lro_core::Host;
    let dir = tempfile::tempdir().unwrap();
    let host = StdHost::new();
    let path = dir
        .path()
        .join("atlatl-recall-01JH5X3Q7Y0000000000000000.jsonl");
    std::fs::write(&path, b"first writer\n").unwrap();
    let err = host
        .write_atomic(&path, &[b"second", b" writer\n"])
        .unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(&path).unwrap(), b"first writer\n");
    // A symbolic link at the name (even a dangling one) is not replaced or followed either.
    let link = dir
        .path()
        .join("atlatl-recall-01JH5X3Q7Y0000000000000001.jsonl");
    std::os::unix::fs::symlink(dir.path().join("nowhere"), &link).unwrap();
    let err = host.write_atomic(&link, &[b"x\n"]).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
    assert!(!dir.path().join("nowhere").exists());
    // No temp file is left behind by a refused write.
    assert_eq!(names(dir.path()).len(), 2, "{:?}", names(dir.path()));
}

#[test]
fn writers_racing_for_one_name_publish_exactly_one_whole_file() {
    use lro_core::Host;
    let dir = tempfile::tempdir().unwrap();
    for round in 0..50 {
        let path = dir.path().join(format!(
            "atlatl-race-01JH5X3Q7Y00000000000000{round:02}.jsonl"
        ));
        let barrier = std::sync::Barrier::new(8);
        let outcomes: Vec<(usize, std::io::Result<()>)> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|writer| {
                    let (path, barrier) = (&path, &barrier);
                    scope.spawn(move || {
                        let body = format!("writer {writer}\n").repeat(1000);
                        barrier.wait();
                        (
                            writer,
                            StdHost::new().write_atomic(path, &[body.as_bytes()]),
                        )
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let winners: Vec<usize> = outcomes
            .iter()
            .filter(|(_, r)| r.is_ok())
            .map(|(w, _)| *w)
            .collect();
        assert_eq!(winners.len(), 1, "round {round}: {outcomes:?}");
        for (_, outcome) in &outcomes {
            if let Err(err) = outcome {
                assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
            }
        }
        let expected = format!("writer {}\n", winners[0]).repeat(1000);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), expected);
    }
    // Fifty files, no temp file left.
    let left = names(dir.path());
    assert_eq!(left.len(), 50, "{left:?}");
    assert!(left.iter().all(|n| n.ends_with(".jsonl")), "{left:?}");
}

/// `StdHost::open_file`'s error for `name` in `dir`, as the core sees it.
fn open_code(dir: &Path, name: &str) -> Option<lro_core::ErrorCode> {
    use lro_core::Host;
    StdHost
        .open_file(dir, name)
        .err()
        .map(|e| lro_core::LroError::from_io(&e, name).code())
}

#[test]
fn the_checked_open_refuses_links_fifos_directories_hard_links_and_other_users_files() {
    use lro_core::ErrorCode::{NotFound, PathDenied};
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    std::fs::write(dir.join("file"), "{}\n").unwrap();
    std::os::unix::fs::symlink(dir.join("file"), dir.join("link")).unwrap();
    std::fs::create_dir(dir.join("dir")).unwrap();
    std::fs::write(dir.join("linked"), "{}\n").unwrap();
    std::fs::hard_link(dir.join("linked"), dir.join("second-name")).unwrap();
    let fifo = dir.join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    assert_eq!(open_code(dir, "file"), None);
    // A FIFO with no writer: refused at once, never waited on (the test would hang otherwise).
    for refused in [
        "link",
        "dir",
        "linked",
        "second-name",
        "fifo",
        "../file",
        "a/b",
        "",
    ] {
        assert_eq!(open_code(dir, refused), Some(PathDenied), "{refused}");
    }
    assert_eq!(open_code(dir, "missing"), Some(NotFound));
    // The size comes from the opened handle.
    use lro_core::Host;
    assert_eq!(StdHost.open_file(dir, "file").unwrap().size, Some(3));

    // Another user's file (testable as root only: chown needs it).
    let foreign = dir.join("foreign");
    std::fs::write(&foreign, "{}\n").unwrap();
    if std::os::unix::fs::chown(&foreign, Some(4242), Some(4242)).is_ok() {
        let err = StdHost.open_file(dir, "foreign").err().unwrap();
        assert!(err.to_string().contains("owned by uid 4242"), "{err}");
        assert_eq!(open_code(dir, "foreign"), Some(PathDenied));
    }
}

#[test]
fn an_output_directory_other_users_can_write_is_refused_unless_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let shared = tmp.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();
    let lro = offloader(&shared);
    // Offloading is an optimisation: the call still answers, inline, saying why.
    let outcome = lro
        .offload(&memories(20), &OffloadRequest::new("recall"))
        .unwrap();
    let Outcome::Inline(inline) = outcome else {
        panic!("offloaded into a world-writable directory");
    };
    let warning = inline.warning.unwrap();
    assert!(
        warning.contains("not private") && warning.contains("allow_shared_dir"),
        "{warning}"
    );
    assert_eq!(names(&shared), Vec::<String>::new());
    for err in [
        lro.check_output_dir(&lro.output_dir()).unwrap_err(),
        lro.cleanup().unwrap_err(),
        lro.extract(
            "atlatl-recall-01KAMZ4T3C6Y1B3X8N2V0W5QRT.jsonl",
            &lro_core::ExtractRequest {
                query: Some(".".into()),
                ..Default::default()
            },
        )
        .unwrap_err(),
    ] {
        assert_eq!(err.code(), lro_core::ErrorCode::InvalidConfig, "{err}");
    }
    // A sticky directory of this user is private enough: others cannot remove or rename.
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o1777)).unwrap();
    assert!(lro.check_output_dir(&lro.output_dir()).is_ok());
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o777)).unwrap();

    let allowed = Offloader::new(
        OffloadConfig {
            allow_shared_dir: true,
            ..lro.config().clone()
        },
        StdHost::new(),
    )
    .unwrap();
    let path = offloaded_path(&allowed);
    assert!(path.starts_with(shared.to_str().unwrap()));

    // A directory of another user (as root only), even 0700.
    let theirs = tmp.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    if std::os::unix::fs::chown(&theirs, Some(4242), Some(4242)).is_ok() {
        let lro = offloader(&theirs);
        let err = lro.check_output_dir(&lro.output_dir()).unwrap_err();
        assert!(err.message().contains("owned by another user"), "{err}");
    }
}

#[test]
fn the_default_directory_is_private_to_the_user_and_never_a_link() {
    use lro_core::Host;
    let default = StdHost.temp_dir();
    let name = default.file_name().unwrap().to_str().unwrap();
    assert_eq!(name, format!("lro-{}", uid()));
    assert_eq!(default.parent().unwrap(), std::env::temp_dir());
    // Made 0700 by the first offload (the test's process may share it with others: only the
    // mode of a directory this run made is asserted).
    let lro = Offloader::new(
        OffloadConfig {
            threshold_tokens: 100,
            ..OffloadConfig::default()
        },
        StdHost::new(),
    )
    .unwrap();
    let made = !default.exists();
    let path = offloaded_path(&lro);
    assert!(Path::new(&path).starts_with(std::fs::canonicalize(&default).unwrap()));
    if made {
        let mode = std::fs::metadata(&default).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
    std::fs::remove_file(&path).unwrap();
}

fn uid() -> u32 {
    use std::os::unix::fs::MetadataExt;
    let tmp = tempfile::tempfile().unwrap();
    tmp.metadata().unwrap().uid()
}

#[test]
fn an_ancestor_others_could_rename_the_directory_in_is_refused() {
    use lro_core::host::Host;
    let tmp = tempfile::tempdir().unwrap();
    let parent = tmp.path().join("a");
    let dir = parent.join("b").join("out");
    std::fs::create_dir_all(&dir).unwrap();
    let mode = |path: &Path, m: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(m)).unwrap()
    };
    mode(&dir, 0o700);
    assert_eq!(StdHost.shared_dir(&dir).unwrap(), None);
    // Two levels up, world-writable and not sticky: refused, naming it.
    mode(&parent, 0o777);
    let why = StdHost.shared_dir(&dir).unwrap().expect("refused");
    assert!(why.contains(parent.to_str().unwrap()), "{why}");
    // Group-writable only: refused too.
    mode(&parent, 0o770);
    assert!(StdHost.shared_dir(&dir).unwrap().is_some());
    // Sticky, as /tmp: passes.
    mode(&parent, 0o1777);
    assert_eq!(StdHost.shared_dir(&dir).unwrap(), None);
    // Reached through a link that sits in a swappable directory: refused as well.
    let open = tmp.path().join("open");
    std::fs::create_dir(&open).unwrap();
    mode(&open, 0o777);
    let link = open.join("link");
    std::os::unix::fs::symlink(&dir, &link).unwrap();
    assert!(StdHost.shared_dir(&link).unwrap().is_some());
    // An ancestor owned by another user (chown needs root).
    mode(&parent, 0o755);
    if std::os::unix::fs::chown(&parent, Some(4242), Some(4242)).is_ok() {
        let why = StdHost.shared_dir(&dir).unwrap().expect("refused");
        assert!(why.contains("owned by another user"), "{why}");
    }
}

/// A replica whose clock runs two minutes ahead names its file two minutes ahead: cleanup
/// with a day's TTL keeps it (judged by its modification time), and removes it once a day
/// has passed since then.
#[test]
fn a_name_dated_ahead_of_the_clock_goes_by_its_modification_time() {
    use std::time::{Duration, SystemTime, UNIX_EPOCH};
    let tmp = tempfile::tempdir().unwrap();
    let config = OffloadConfig {
        output_dir: tmp.path().to_string_lossy().into_owned(),
        threshold_tokens: 100,
        ttl_seconds: 86_400,
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, StdHost::new()).unwrap();
    let written = std::path::PathBuf::from(offloaded_path(&lro));
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    let ahead = ulid::Ulid::from_parts(now.as_millis() as u64 + 120_000, 7);
    let renamed = tmp.path().join(format!("atlatl-recall-{ahead}.jsonl"));
    std::fs::rename(&written, &renamed).unwrap();
    let report = lro.cleanup().unwrap();
    assert_eq!((report.removed.len(), report.kept), (0, 1), "{report:?}");
    // The time the file goes by is its modification time (now): not expired.
    let now_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let name = renamed.file_name().unwrap().to_str().unwrap();
    let time = lro.created_at(&lro.output_dir(), name, ahead, now_ms);
    assert!(time.is_some_and(|t| t <= now_ms), "{time:?}");
    assert!(!lro_core::files::is_expired_at(time, 86_400, now_ms));

    let file = std::fs::File::options().write(true).open(&renamed).unwrap();
    file.set_modified(SystemTime::now() - Duration::from_secs(86_401))
        .unwrap();
    let report = lro.cleanup().unwrap();
    assert_eq!(report.removed.len(), 1, "{report:?}");
    assert!(report.removed[0].age_seconds >= 86_400, "{report:?}");
    assert!(!renamed.exists());
}
