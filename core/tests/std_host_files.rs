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
