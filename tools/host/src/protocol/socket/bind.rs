//! Binding the socket: [`bind`] takes the owner lock, then makes the socket file in a
//! private directory beside it (mode `0700`), sets it `0600` and hard-links it into place, so
//! the name appears atomically, already owner-only, and never replaces a file that exists (a
//! stale socket no server answers is replaced, a live one refused). [`Bound`] holds the
//! listener, the socket and pid files it removes on drop while they are still this server's,
//! and the owner lock; [`Bound::relink`] re-creates a socket file that was removed.

use super::error::SocketError;
use super::owner::{Owner, take_owner};
use super::pid::{pid_file, read_pid, write_pid_file_or_warn};
use std::io;
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};

/// A bound socket file and its pid file, removed on drop while they are still this
/// server's, and the owner lock, released on drop after them.
pub struct Bound {
    pub(super) listener: UnixListener,
    pub(super) path: PathBuf,
    pid_path: PathBuf,
    pub(super) inode: (u64, u64),
    // Last: fields drop in order, so the lock outlives the files it guards.
    pub(super) owner: Owner,
}

impl Bound {
    /// The socket file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the socket path still is this server's socket.
    pub(super) fn is_ours(&self) -> bool {
        inode_of(&self.path).is_ok_and(|inode| inode == self.inode)
    }

    /// Binds a new socket at the path, which must be missing (a file that appeared meanwhile
    /// is never replaced), and rewrites the pid file; answers the listener it replaces.
    pub(super) fn relink(&mut self) -> Result<UnixListener, SocketError> {
        let (listener, inode) = link_socket(&self.path, false)?;
        self.inode = inode;
        write_pid_file_or_warn(&self.pid_path);
        Ok(std::mem::replace(&mut self.listener, listener))
    }
}

impl Drop for Bound {
    fn drop(&mut self) {
        // A server started after this one (once this one stopped answering) owns the name.
        if self.is_ours() {
            let _ = std::fs::remove_file(&self.path);
            let _ = std::fs::remove_file(&self.pid_path);
        } else if read_pid(&self.path) == Some(std::process::id()) {
            // The socket was removed or taken; the pid file still names this server.
            let _ = std::fs::remove_file(&self.pid_path);
        }
    }
}

/// The longest socket path the platform binds, in bytes: `sun_path` less its NUL (108 bytes
/// on Linux, 104 on the BSDs and macOS).
pub const MAX_SOCKET_PATH: usize = if cfg!(target_os = "linux") { 107 } else { 103 };

pub(super) fn inode_of(path: &Path) -> io::Result<(u64, u64)> {
    std::fs::symlink_metadata(path).map(|m| (m.dev(), m.ino()))
}

/// Binds `path`: takes the owner lock first (refused naming the other server's pid while a
/// live server holds it, even when its socket file is gone), then creates a missing path,
/// replaces a stale socket (no server answers) and refuses a live one.
pub fn bind(path: &Path) -> Result<Bound, SocketError> {
    let name = path.display().to_string();
    let len = path.as_os_str().len();
    if len > MAX_SOCKET_PATH {
        return Err(SocketError::PathTooLong {
            path: name,
            len,
            max: MAX_SOCKET_PATH,
        });
    }
    let owner = take_owner(path)?;
    let (listener, inode) = link_socket(path, true)?;
    let bound = Bound {
        listener,
        path: path.to_path_buf(),
        pid_path: pid_file(path),
        inode,
        owner,
    };
    // Without it the server still serves: a full disk fails the pid file's write too.
    write_pid_file_or_warn(&bound.pid_path);
    Ok(bound)
}

/// Binds a socket in a private directory beside `path` and links it into place; answers
/// the listener and the socket's inode. With `replace_stale`, a stale socket at `path` is
/// replaced (a live one refused); without, anything at `path` is left alone and refused.
fn link_socket(
    path: &Path,
    replace_stale: bool,
) -> Result<(UnixListener, (u64, u64)), SocketError> {
    let name = path.display().to_string();
    let bind_error = |source| SocketError::Bind {
        path: name.clone(),
        source,
    };
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let private = parent.join(format!(".docsuggest-{}.d", std::process::id()));
    // A directory left by a killed server of the same pid holds nothing anyone reads.
    let _ = std::fs::remove_dir_all(&private);
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&private)
        .map_err(bind_error)?;
    let staged = private.join("s");
    let result = (|| -> Result<(UnixListener, (u64, u64)), SocketError> {
        let listener = bind_staged(&private, &staged).map_err(bind_error)?;
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o600))
            .map_err(bind_error)?;
        // The staged name's inode is the linked one's, whatever appears at `path` later.
        let inode = inode_of(&staged).map_err(bind_error)?;
        if replace_stale {
            link_into_place(&staged, path)?;
        } else {
            std::fs::hard_link(&staged, path).map_err(bind_error)?;
        }
        Ok((listener, inode))
    })();
    let _ = std::fs::remove_dir_all(&private);
    result
}

/// Binds the socket at `staged` (in the private directory `private`). The staged path is
/// longer than the final one; when it is past the limit, Linux binds it through the short
/// `/proc/self/fd/<fd>/s` name of the directory, so every path up to the limit binds.
fn bind_staged(private: &Path, staged: &Path) -> io::Result<UnixListener> {
    if staged.as_os_str().len() <= MAX_SOCKET_PATH {
        return UnixListener::bind(staged);
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let dir = std::fs::File::open(private)?;
        let short = format!("/proc/self/fd/{}/s", dir.as_raw_fd());
        UnixListener::bind(short)
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = private;
        UnixListener::bind(staged)
    }
}

fn link_into_place(staged: &Path, path: &Path) -> Result<(), SocketError> {
    let name = path.display().to_string();
    // Two rounds: a stale socket found on the first is removed before the second.
    for _ in 0..2 {
        match std::fs::hard_link(staged, path) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(source) => return Err(SocketError::Bind { path: name, source }),
        }
        let meta = match std::fs::symlink_metadata(path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(source) => return Err(SocketError::Bind { path: name, source }),
        };
        if !meta.file_type().is_socket() {
            return Err(SocketError::NotASocket(name));
        }
        // Under the owner lock a socket that answers is a server without the lock (a version
        // before it, say): still refused.
        match UnixStream::connect(path) {
            Ok(_) => {
                return Err(SocketError::InUse {
                    path: name,
                    pid: read_pid(path),
                });
            }
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                tracing::info!(socket = %name, "replacing a stale socket left by a server that is gone");
                let _ = std::fs::remove_file(path);
                let _ = std::fs::remove_file(pid_file(path));
            }
            Err(source) => return Err(SocketError::Bind { path: name, source }),
        }
    }
    Err(SocketError::Bind {
        path: name,
        source: io::Error::new(
            io::ErrorKind::AlreadyExists,
            "the path reappeared after its stale socket was removed",
        ),
    })
}
