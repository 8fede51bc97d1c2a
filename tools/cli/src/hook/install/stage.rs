//! Reading and replacing a hook config or a git hook without ever writing anywhere else.
//!
//! A repository may commit anything at these names: a link, a FIFO, a read-only file. So a
//! file is read only when it is a regular file, opened without following a link or waiting
//! for a FIFO's writer; a new text is staged under tempfile's random name, created exclusively
//! in the file's own directory (a link planted at any fixed name is never followed), and
//! renamed over the file; and a file that is not regular, or not writable, is refused and left
//! as it is.

use super::InstallError;
use rustix::fs::{Access, Mode, OFlags};
use std::ffi::OsString;
use std::fs::{File, Metadata, Permissions};
use std::io::{Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::Path;

/// The most a config file or a hook may hold: the engine's bound on a file it reads.
pub const MAX_BYTES: u64 = docsuggest_engine::probe::MAX_READ_BYTES;

/// The suffix of a staged file's name (its prefix is the target's name, then random letters).
pub const STAGED_SUFFIX: &str = ".docsuggest-tmp";

fn io(path: &Path, source: std::io::Error) -> InstallError {
    InstallError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// What a file that is not a regular file is, for an error naming it.
fn kind(path: &Path, meta: &Metadata) -> String {
    let t = meta.file_type();
    if t.is_symlink() {
        return match std::fs::read_link(path) {
            Ok(to) if std::fs::metadata(path).is_err() => {
                format!("a symbolic link to {}, which does not exist", to.display())
            }
            Ok(to) => format!("a symbolic link to {}", to.display()),
            Err(_) => "a symbolic link".into(),
        };
    }
    let what = if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else {
        "not a regular file"
    };
    what.into()
}

/// Refuses anything but a regular file.
fn regular(path: &Path, meta: &Metadata) -> Result<(), InstallError> {
    if meta.file_type().is_file() {
        return Ok(());
    }
    Err(InstallError::NotRegular {
        path: path.display().to_string(),
        what: kind(path, meta),
    })
}

/// Refuses a file its mode keeps from being written (as root, `access` answers yes to any
/// file, so the mode is checked too), or that this user may not write: renaming over it would
/// otherwise replace it all the same.
fn writable(path: &Path, meta: &Metadata) -> Result<(), InstallError> {
    let denied = meta.mode() & 0o200 == 0 || rustix::fs::access(path, Access::WRITE_OK).is_err();
    if denied {
        return Err(InstallError::ReadOnly {
            path: path.display().to_string(),
        });
    }
    Ok(())
}

/// The metadata of what is at `path`, without following a link (`None`: nothing is there).
fn look(path: &Path) -> Result<Option<Metadata>, InstallError> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io(path, e)),
    }
}

/// The bytes of the regular file at `path` (`None`: nothing is there), at most [`MAX_BYTES`].
pub fn read(path: &Path) -> Result<Option<Vec<u8>>, InstallError> {
    let Some(meta) = look(path)? else {
        return Ok(None);
    };
    regular(path, &meta)?;
    // Neither follows a link nor waits for a writer: a file swapped for either since the look
    // above fails to open, or is refused by its type below.
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = rustix::fs::open(path, flags, Mode::empty())
        .map(File::from)
        .map_err(|e| io(path, e.into()))?;
    regular(path, &file.metadata().map_err(|e| io(path, e))?)?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io(path, e))?;
    if bytes.len() as u64 > MAX_BYTES {
        return Err(InstallError::Shape {
            path: path.display().to_string(),
            why: format!("it is longer than the limit of {MAX_BYTES} bytes (1 MiB)"),
        });
    }
    Ok(Some(bytes))
}

/// The text of the file at `path` or where its links lead, for what is only read (a note,
/// `status`): a regular file of at most 1 MiB, read without waiting for a FIFO's writer or
/// reading a device, so a file a repository planted never blocks the command.
pub fn read_linked(path: &Path) -> std::io::Result<String> {
    docsuggest_engine::probe::read_regular(&std::fs::canonicalize(path)?)
}

/// Puts `text` at `path`, where there is a writable regular file or nothing (its directory
/// exists). An existing file keeps its permission bits; a new one is created with `new_mode`
/// less the umask.
pub fn replace(path: &Path, text: &[u8], new_mode: u32) -> Result<(), InstallError> {
    let kept_mode = match look(path)? {
        Some(meta) => {
            regular(path, &meta)?;
            writable(path, &meta)?;
            // Not setuid, setgid or sticky: a config or a hook never needs them.
            Some(meta.mode() & 0o777)
        }
        None => None,
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut prefix = OsString::from(".");
    prefix.push(path.file_name().unwrap_or_default());
    prefix.push(".");
    // The kept mode is set exactly below; a new file's is given at creation so the umask
    // applies to it, as to any file the user creates.
    let mut staged = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(STAGED_SUFFIX)
        .permissions(Permissions::from_mode(
            kept_mode.map_or(new_mode, |_| 0o600),
        ))
        .tempfile_in(dir)
        .map_err(|e| io(dir, e))?;
    let staged_path = staged.path().to_path_buf();
    let written = staged.write_all(text).and_then(|()| {
        if let Some(mode) = kept_mode {
            staged
                .as_file()
                .set_permissions(Permissions::from_mode(mode))?;
        }
        staged.as_file().sync_all()
    });
    written.map_err(|e| io(&staged_path, e))?;
    // A rename never follows a link at `path`: one put there since the look above is
    // replaced, not written through.
    staged.persist(path).map_err(|e| io(path, e.error))?;
    // The rename itself made durable; a directory that cannot be opened for it still holds
    // the file.
    if let Ok(dir) = File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Removes the writable regular file at `path` (nothing there: nothing to do).
pub fn remove(path: &Path) -> Result<(), InstallError> {
    let Some(meta) = look(path)? else {
        return Ok(());
    };
    regular(path, &meta)?;
    writable(path, &meta)?;
    std::fs::remove_file(path).map_err(|e| io(path, e))
}
