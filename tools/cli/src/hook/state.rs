//! The hook's state directory (the socket's directory, this user's alone before anything is
//! written there) and the private files in it, opened never through a symlink and created
//! owner-only.

use super::options::HookOptions;
use docsuggest_host::daemon::default_socket;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// How [`private_file`] opens.
#[derive(Clone, Copy)]
pub(crate) enum Open {
    Read,
    Append,
    Truncate,
    /// Created if missing, its content left alone (a lock).
    Keep,
}

/// Opens a file in the state directory: never through a symlink (`O_NOFOLLOW`), created
/// owner-only (`0600`).
pub(crate) fn private_file(path: &Path, how: Open) -> io::Result<File> {
    let mut options = OpenOptions::new();
    match how {
        Open::Read => options.read(true),
        Open::Append => options.append(true).create(true),
        Open::Truncate => options.write(true).truncate(true).create(true),
        Open::Keep => options.write(true).truncate(false).create(true),
    };
    options
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

/// Makes sure the socket's directory is this user's alone before anything is written there:
/// created `0700` if missing; refused if it belongs to another user or others may write to it.
/// The default state directory, which earlier versions made `0755`, is narrowed to `0700`.
pub fn state_dir(options: &HookOptions) -> Result<PathBuf, String> {
    let dir = match options.socket.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let meta = match std::fs::metadata(&dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
                .map_err(|e| format!("creating {}: {e}", dir.display()))?;
            std::fs::metadata(&dir).map_err(|e| format!("{}: {e}", dir.display()))?
        }
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    let me = rustix::process::geteuid().as_raw();
    if !meta.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    if meta.uid() != me {
        return Err(format!(
            "{} is owned by uid {}, not {me}",
            dir.display(),
            meta.uid()
        ));
    }
    let default = default_socket();
    if meta.mode() & 0o077 != 0 && Some(dir.as_path()) == default.parent() {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("narrowing {}: {e}", dir.display()))?;
    } else if meta.mode() & 0o022 != 0 {
        return Err(format!("{} is writable by other users", dir.display()));
    }
    Ok(dir)
}
