//! The owner lock: one server per socket is decided by an exclusive `flock` on
//! `<socket>.owner`, held for the server's whole life and taken before anything else, so a
//! second server is refused (with the first one's pid) even when the socket file was removed.

use super::error::SocketError;
use super::pid::read_pid;
use docsuggest_schema::beside::beside;
use std::fs::File;
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long [`bind`] waits for the owner lock: a server that is stopping holds it until its
/// store is closed.
///
/// [`bind`]: fn@super::bind
const OWNER_WAIT: Duration = Duration::from_secs(2);

/// The exclusive `flock` on `<socket>.owner`, held for the server's life and released by
/// the kernel when it dies, however it dies. The file is never removed: a lock file unlinked
/// while another process waits on it would let that one and a newcomer (on a new file) both
/// hold "the" lock.
pub(super) struct Owner {
    _file: File,
    pub(super) path: PathBuf,
    pub(super) inode: (u64, u64),
}

/// The owner lock file beside a socket: whoever holds its `flock` serves the socket.
pub fn owner_file(socket: &Path) -> PathBuf {
    beside(socket, ".owner")
}

/// Opens `<socket>.owner` (never through a symlink, created `0600`, ours alone) and takes its
/// exclusive lock, waiting up to [`OWNER_WAIT`] for a server that is stopping.
pub(super) fn take_owner(socket: &Path) -> Result<Owner, SocketError> {
    use rustix::fs::{FlockOperation, OFlags, flock};
    use rustix::io::Errno;
    let path = owner_file(socket);
    let name = path.display().to_string();
    let lock_error = |source| SocketError::Lock {
        path: name.clone(),
        source,
    };
    // `O_NONBLOCK`: a FIFO planted at the name fails to open instead of blocking.
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
        .open(&path)
        .map_err(lock_error)?;
    let meta = file.metadata().map_err(lock_error)?;
    let me = rustix::process::geteuid().as_raw();
    if !meta.is_file() {
        return Err(lock_error(io::Error::other("not a regular file")));
    }
    if meta.uid() != me {
        return Err(lock_error(io::Error::other(format!(
            "owned by uid {}, not {me}",
            meta.uid()
        ))));
    }
    let deadline = Instant::now() + OWNER_WAIT;
    loop {
        match flock(&file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => break,
            Err(Errno::WOULDBLOCK) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(Errno::WOULDBLOCK) => {
                return Err(SocketError::InUse {
                    path: socket.display().to_string(),
                    pid: read_pid(socket),
                });
            }
            Err(Errno::INTR) => {}
            Err(e) => return Err(lock_error(e.into())),
        }
    }
    Ok(Owner {
        _file: file,
        path,
        inode: (meta.dev(), meta.ino()),
    })
}
