//! The pid file beside a socket (`<socket>.pid`), which names the server that serves it:
//! where it is, reading it, and writing it anew (owner-only, never through a symlink, renamed
//! into place).

use docsuggest_schema::beside::beside;
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// The pid file beside a socket.
pub fn pid_file(socket: &Path) -> PathBuf {
    beside(socket, ".pid")
}

/// The pid in the pid file beside `socket`, when it is readable.
pub fn read_pid(socket: &Path) -> Option<u32> {
    std::fs::read_to_string(pid_file(socket))
        .ok()
        .and_then(|text| text.trim().parse().ok())
}

pub(super) fn write_pid_file(path: &Path) -> io::Result<()> {
    let staged = beside(path, &format!(".{}.tmp", std::process::id()));
    // Created anew (`O_EXCL`, which never follows a symlink): whatever sits at the name — a
    // file left by a killed server of the same pid, or a planted symlink — is removed, never
    // written through.
    let create = || {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
            .open(&staged)
    };
    let mut file = match create() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(&staged)?;
            create()?
        }
        other => other?,
    };
    file.write_all(format!("{}\n", std::process::id()).as_bytes())?;
    drop(file);
    std::fs::rename(&staged, path)
}
