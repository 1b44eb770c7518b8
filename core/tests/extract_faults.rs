//! Native extraction when the file changes under it, as happens when replicas share a
//! volume: a read-only file and directory, a file gone before the call, a file removed or
//! truncated while it is read, a read failing half way (NFS answers ESTALE when another
//! client deleted the file). Each ends in the full answer or a typed error, never a panic
//! and never a partial answer presented as whole.
#![cfg(unix)]

use std::io::{self, Read};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use lro_core::{
    DirEntry, EntryKind, ErrorCode, ExtractRequest, Host, OffloadConfig, OffloadRequest, Offloader,
    OpenFile, Outcome, StdHost,
};
use serde_json::{Value, json};

/// What happens to the file once the first bytes of it have been read.
#[derive(Clone, Copy)]
enum Fault {
    None,
    Removed,
    Truncated,
    ReadFails,
}

/// The std host, whose reads of an offload file meet `fault` after the first 64 KiB.
struct FaultyHost(Fault);

/// A reader that lets the first bytes through, then does what the fault says.
struct FaultyReader {
    file: Box<dyn Read>,
    path: PathBuf,
    fault: Fault,
    read: usize,
    struck: bool,
}

impl Read for FaultyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.read >= 64 * 1024 && !self.struck {
            self.struck = true;
            match self.fault {
                Fault::None => {}
                Fault::Removed => std::fs::remove_file(&self.path)?,
                Fault::Truncated => {
                    let half = std::fs::metadata(&self.path)?.len() / 2;
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open(&self.path)?
                        .set_len(half)?;
                }
                Fault::ReadFails => {
                    return Err(io::Error::other("Stale file handle (os error 116)"));
                }
            }
        }
        let len = buf.len().min(16 * 1024);
        let n = self.file.read(&mut buf[..len])?;
        self.read += n;
        Ok(n)
    }
}

impl Host for FaultyHost {
    fn write_atomic(&self, path: &Path, parts: &[&[u8]]) -> io::Result<()> {
        StdHost.write_atomic(path, parts)
    }
    fn create_dir_all(&self, dir: &Path) -> io::Result<()> {
        StdHost.create_dir_all(dir)
    }
    fn open_file(&self, dir: &Path, name: &str) -> io::Result<OpenFile<'_>> {
        let opened = StdHost.open_file(dir, name)?;
        Ok(OpenFile {
            size: opened.size,
            reader: Box::new(FaultyReader {
                file: opened.reader,
                path: dir.join(name),
                fault: self.0,
                read: 0,
                struck: false,
            }),
        })
    }
    fn list_dir(&self, dir: &Path) -> io::Result<Vec<DirEntry>> {
        StdHost.list_dir(dir)
    }
    fn remove_file(&self, path: &Path) -> io::Result<()> {
        StdHost.remove_file(path)
    }
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        StdHost.canonicalize(path)
    }
    fn entry_kind(&self, path: &Path) -> io::Result<EntryKind> {
        StdHost.entry_kind(path)
    }
    fn now_millis(&self) -> u64 {
        StdHost.now_millis()
    }
    fn fill_random(&self, buf: &mut [u8]) {
        StdHost.fill_random(buf)
    }
    fn temp_dir(&self) -> PathBuf {
        StdHost.temp_dir()
    }
}

const RECORDS: usize = 20_000;

/// An offloader over `dir` with `fault`, and the path of a file of 20,000 records (~1 MB).
fn offloaded(dir: &Path, fault: Fault) -> (Offloader<FaultyHost>, String) {
    let config = OffloadConfig {
        output_dir: dir.to_string_lossy().into_owned(),
        ..OffloadConfig::default()
    };
    let lro = Offloader::new(config, FaultyHost(fault)).unwrap();
    let records: Vec<Value> = (0..RECORDS)
        .map(|i| json!({"id": format!("r{i}"), "group": i % 7, "text": "words ".repeat(5)}))
        .collect();
    let Outcome::Offloaded(descriptor) = lro
        .offload(&Value::Array(records), &OffloadRequest::new("faults"))
        .unwrap()
    else {
        panic!("not offloaded");
    };
    (lro, descriptor.file_path)
}

fn every_id() -> ExtractRequest {
    ExtractRequest {
        query: Some(".id".to_owned()),
        ..ExtractRequest::default()
    }
}

#[test]
fn a_read_only_file_in_a_read_only_directory_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = offloaded(dir.path(), Fault::None);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o400)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o500)).unwrap();
    let response = lro.extract(&file, &every_id());
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let response = response.unwrap();
    assert_eq!(response.count, RECORDS.min(10_000));
    assert_eq!(response.results[0], "r0");
}

#[test]
fn a_file_gone_before_the_call_is_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = offloaded(dir.path(), Fault::None);
    std::fs::remove_file(&file).unwrap();
    let err = lro.extract(&file, &every_id()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NotFound, "{}", err.message());
}

#[test]
fn a_file_removed_while_it_is_read_is_still_read_whole() {
    // A cleanup elsewhere unlinks the name; the open file stays readable to the end.
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = offloaded(dir.path(), Fault::Removed);
    let request = ExtractRequest {
        query: Some("select(.group == 3) | .id".to_owned()),
        ..ExtractRequest::default()
    };
    let response = lro.extract(&file, &request).unwrap();
    assert!(!Path::new(&file).exists());
    assert_eq!(response.count, RECORDS.div_ceil(7) - 1);
    assert_eq!(response.records_read, RECORDS as u64);
    assert!(!response.truncated);
}

#[test]
fn a_file_truncated_while_it_is_read_gives_an_error_or_fewer_records() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = offloaded(dir.path(), Fault::Truncated);
    let request = ExtractRequest {
        query: Some("select(.group == 3) | .id".to_owned()),
        ..ExtractRequest::default()
    };
    match lro.extract(&file, &request) {
        // The cut fell inside a record: that line is not JSON, and the error says which.
        Err(err) => {
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{}", err.message());
            assert!(err.message().contains("of the file is not valid JSON"));
        }
        // The cut fell between records: fewer were read, each of them whole.
        Ok(response) => assert!(response.records_read < RECORDS as u64),
    }
}

#[test]
fn a_read_failing_half_way_is_an_io_error_not_a_short_answer() {
    let dir = tempfile::tempdir().unwrap();
    let (lro, file) = offloaded(dir.path(), Fault::ReadFails);
    for request in [
        every_id(),
        // A recipe that reads every record at once (count by group) goes through the
        // slurping path.
        ExtractRequest {
            recipe: Some(6),
            ..ExtractRequest::default()
        },
    ] {
        let err = lro.extract(&file, &request).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Io, "{}", err.message());
        assert!(
            err.message().contains("Stale file handle"),
            "{}",
            err.message()
        );
    }
}
