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
