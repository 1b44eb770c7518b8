//! `StdHost`'s checked open of offload files and its view of who can write a directory.
//!
//! On Unix the file is opened relative to a handle on the directory (`openat`), never
//! following a final symbolic link (`O_NOFOLLOW`) and never waiting (`O_NONBLOCK`, so a FIFO
//! opens at once instead of blocking for a writer); then the opened handle itself is checked
//! with `fstat`: a regular file, one link, owned by this user. A name swapped between a
//! listing and the open therefore yields either the file that was checked or a refusal, never
//! another file. Elsewhere (Windows) std's open is followed by the same type check on the
//! handle; links and owners are not checked there.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{OpenFile, refused};

/// Errors by which a filesystem says it has no hard links (`EPERM` on FAT, `EOPNOTSUPP`,
/// `ENOSYS`), as opposed to the name being taken or the directory being unwritable.
pub(super) fn links_unsupported(err: &io::Error) -> bool {
    matches!(
        err.kind(),
        io::ErrorKind::Unsupported | io::ErrorKind::PermissionDenied
    )
}

pub(super) fn already_exists() -> io::Error {
    io::Error::new(io::ErrorKind::AlreadyExists, "offload file already exists")
}

/// Opens `name` inside `dir` and checks the handle (see the module documentation).
#[cfg(unix)]
pub(super) fn open_file(dir: &Path, name: &str) -> io::Result<OpenFile<'static>> {
    use rustix::fs::{FileType, Mode, OFlags, fstat, open, openat};
    use rustix::io::Errno;

    check_name(name)?;
    let dir_fd = open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let flags =
        OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    let fd = match openat(&dir_fd, name, flags, Mode::empty()) {
        Ok(fd) => fd,
        // O_NOFOLLOW on a symbolic link: ELOOP (Linux, macOS), EMLINK (FreeBSD), EFTYPE (NetBSD).
        Err(Errno::LOOP | Errno::MLINK) => {
            return Err(refused("a symbolic link, which is never followed"));
        }
        Err(err) => return Err(err.into()),
    };
    let stat = fstat(&fd)?;
    let kind = FileType::from_raw_mode(stat.st_mode);
    if kind != FileType::RegularFile {
        return Err(refused(format!(
            "not a regular file (a {})",
            kind_name(kind)
        )));
    }
    if stat.st_nlink != 1 {
        return Err(refused(format!(
            "{} hard links, where an offload file has exactly one",
            stat.st_nlink
        )));
    }
    let me = rustix::process::geteuid().as_raw();
    if stat.st_uid != me {
        return Err(refused(format!(
            "owned by uid {}, not by this user (uid {me})",
            stat.st_uid
        )));
    }
    Ok(OpenFile {
        reader: Box::new(fs::File::from(fd)),
        size: u64::try_from(stat.st_size).ok(),
    })
}

/// Writes `parts` under the exclusive name `tmp` inside `dir`, then publishes it as `name`
/// without replacing anything, all relative to one handle on `dir` (`openat`, `linkat`,
/// `unlinkat`): the temp file and the published name are in the directory that was opened,
/// even should its path be renamed away and replaced meanwhile (the names are then written
/// into the renamed directory, never into the one put in its place). A final symbolic link
/// is never followed. Where the filesystem has no hard links the temp is renamed after
/// checking the name is free, as [`super::StdHost::publish`] does.
#[cfg(unix)]
pub(super) fn write_in_dir(dir: &Path, name: &str, tmp: &str, parts: &[&[u8]]) -> io::Result<()> {
    use std::io::Write;

    use rustix::fs::{AtFlags, Mode, OFlags, linkat, open, openat, renameat, statat, unlinkat};

    check_name(name)?;
    check_name(tmp)?;
    let dir_fd = open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut file = fs::File::from(openat(&dir_fd, tmp, flags, Mode::from_raw_mode(0o600))?);
    let remove_tmp = || {
        let _ = unlinkat(&dir_fd, tmp, AtFlags::empty());
    };
    if let Err(err) = parts.iter().try_for_each(|part| file.write_all(part)) {
        remove_tmp();
        return Err(err);
    }
    drop(file);
    let published = match linkat(&dir_fd, tmp, &dir_fd, name, AtFlags::empty()) {
        Ok(()) => Ok(()),
        Err(rustix::io::Errno::EXIST) => Err(already_exists()),
        Err(err) => {
            let err = io::Error::from(err);
            if !links_unsupported(&err) {
                Err(err)
            } else if statat(&dir_fd, name, AtFlags::SYMLINK_NOFOLLOW).is_ok() {
                Err(already_exists())
            } else {
                let renamed = renameat(&dir_fd, tmp, &dir_fd, name).map_err(io::Error::from);
                if renamed.is_err() {
                    remove_tmp();
                }
                return renamed;
            }
        }
    };
    // Once linked, the temp name is only a second name of the published file.
    remove_tmp();
    published
}

#[cfg(unix)]
fn kind_name(kind: rustix::fs::FileType) -> &'static str {
    use rustix::fs::FileType;
    match kind {
        FileType::Fifo => "FIFO",
        FileType::Directory => "directory",
        FileType::CharacterDevice | FileType::BlockDevice => "device",
        FileType::Socket => "socket",
        FileType::Symlink => "symbolic link",
        _ => "special file",
    }
}

/// Without `openat`: std's open (which follows links), then the handle's type checked.
#[cfg(not(unix))]
pub(super) fn open_file(dir: &Path, name: &str) -> io::Result<OpenFile<'static>> {
    check_name(name)?;
    let path = dir.join(name);
    if fs::symlink_metadata(&path)?.file_type().is_symlink() {
        return Err(refused("a symbolic link, which is never followed"));
    }
    let file = fs::File::open(&path)?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(refused("not a regular file"));
    }
    Ok(OpenFile {
        reader: Box::new(file),
        size: Some(metadata.len()),
    })
}

/// One plain file name: the open is relative to the directory, so no separator, no `..`.
fn check_name(name: &str) -> io::Result<()> {
    if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
        return Err(refused(format!("{name:?} is not a file name")));
    }
    Ok(())
}

/// Why users other than this one and root can change the entries of `dir`, or swap `dir`
/// itself through one of its ancestors (see [`super::Host::shared_dir`]); `dir` is followed
/// if it is a symbolic link.
#[cfg(unix)]
pub(super) fn shared_dir(dir: &Path) -> io::Result<Option<String>> {
    let stat = rustix::fs::stat(dir)?;
    let me = rustix::process::geteuid().as_raw();
    let mode = stat.st_mode & 0o7777;
    if stat.st_uid != me && stat.st_uid != 0 {
        return Ok(Some(format!(
            "it is owned by another user (uid {}; this user is uid {me})",
            stat.st_uid
        )));
    }
    let others_write = mode & 0o022 != 0;
    // A sticky directory of ours: others may add entries (which the checked open refuses:
    // not ours) but can neither remove nor rename ours.
    let sticky_ours = mode & 0o1000 != 0 && stat.st_uid == me;
    if others_write && !sticky_ours {
        return Ok(Some(format!(
            "other users can write it (mode {mode:04o}, owner uid {})",
            stat.st_uid
        )));
    }
    shared_ancestor(dir)
}

/// Why users other than this one and root can swap `dir` itself for a directory of theirs:
/// an ancestor of it (of the path as given, every link in it followed, and of the resolved
/// path) that is neither this user's nor root's, or that others can write without the sticky
/// bit (OpenSSH's `StrictModes` rule; `/tmp`, root's and sticky, passes). Whoever can write a
/// parent can rename the output directory away and make their own under its name, so checking
/// the directory alone would not keep it private. `None` when no ancestor is open so.
#[cfg(unix)]
fn shared_ancestor(dir: &Path) -> io::Result<Option<String>> {
    let resolved = fs::canonicalize(dir)?;
    let me = rustix::process::geteuid().as_raw();
    for ancestor in dir.ancestors().skip(1).chain(resolved.ancestors().skip(1)) {
        if ancestor.as_os_str().is_empty() {
            continue;
        }
        let stat = rustix::fs::stat(ancestor)?;
        let mode = stat.st_mode & 0o7777;
        if stat.st_uid != me && stat.st_uid != 0 {
            return Ok(Some(format!(
                "its parent directory {} is owned by another user (uid {}; this user is uid {me})",
                ancestor.display(),
                stat.st_uid
            )));
        }
        if mode & 0o022 != 0 && mode & 0o1000 == 0 {
            return Ok(Some(format!(
                "other users can write its parent directory {} (mode {mode:04o}, not sticky), so \
                 they can rename it away and put a directory of theirs in its place",
                ancestor.display()
            )));
        }
    }
    Ok(None)
}

#[cfg(not(unix))]
pub(super) fn shared_dir(dir: &Path) -> io::Result<Option<String>> {
    fs::metadata(dir).map(|_| None)
}

/// The default output directory: `<temp dir>/lro-<uid>` on Unix (one per user, so a user never
/// writes into, or reads from, a directory another user made), `<temp dir>/lro` elsewhere
/// (Windows' temp dir is per user already).
pub(super) fn default_dir() -> PathBuf {
    #[cfg(unix)]
    let name = format!("lro-{}", rustix::process::geteuid().as_raw());
    #[cfg(not(unix))]
    let name = "lro".to_owned();
    std::env::temp_dir().join(name)
}
