//! The pid file beside a socket (`<socket>.pid`), which names the server that serves it:
//! where it is, reading it, and writing it anew (owner-only, never through a symlink, renamed
//! into place).

use docsuggest_schema::beside::beside;
use std::io::{self, Write};
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

/// Writes this process's pid to `path`: staged under a random name beside it (created anew,
/// `0600`, never through a symlink), then renamed into place. A staged file that could not be
/// written — a full disk — is removed, never left behind.
pub(super) fn write_pid_file(path: &Path) -> io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mut prefix = path.file_name().unwrap_or_default().to_owned();
    prefix.push(".");
    let mut staged = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".tmp")
        .tempfile_in(dir)?;
    staged.write_all(format!("{}\n", std::process::id()).as_bytes())?;
    staged.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// Writes the pid file; when it cannot be written, removes whatever stands at its name (it
/// names no server that runs: this one holds the owner lock) and says so. A server serves
/// without its pid file rather than not at all: on a full disk it still answers, on memory.
pub(super) fn write_pid_file_or_warn(path: &Path) {
    if let Err(e) = write_pid_file(path) {
        let _ = std::fs::remove_file(path);
        tracing::warn!(error = %e, pid_file = %path.display(), "cannot write the pid file; serving without it");
    }
}
