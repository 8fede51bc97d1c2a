//! Why the socket server could not start or ended badly: [`SocketError`], the one error
//! of binding, locking and serving a socket, each variant naming the file it is about.

use super::super::serve::ServeError;
use std::io;

/// Why the socket server could not start or ended badly.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SocketError {
    /// Another server answers on the socket or holds its lock (`<socket>.owner`).
    #[error(
        "socket {path} is served by another docsuggest server ({}); stop it or choose another --socket",
        pid.map_or("pid unknown".to_string(), |p| format!("pid {p}"))
    )]
    InUse {
        /// The socket file.
        path: String,
        /// The other server's pid, from its pid file.
        pid: Option<u32>,
    },
    /// The path holds something that is not a socket.
    #[error("{0} exists and is not a socket; refusing to replace it")]
    NotASocket(String),
    /// The path is longer than a Unix socket address holds.
    #[error(
        "socket path {path} is {len} bytes; a Unix socket path holds at most {max} bytes, choose a shorter --socket"
    )]
    PathTooLong {
        /// The socket file.
        path: String,
        /// Its length in bytes.
        len: usize,
        /// The platform's limit.
        max: usize,
    },
    /// Binding, linking or preparing the socket failed (the reason is the error's source).
    #[error("cannot create socket {path}")]
    Bind {
        /// The socket file.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// The lock file beside the socket (`<socket>.owner`) could not be opened or locked (the
    /// reason is the error's source).
    #[error("cannot lock {path}")]
    Lock {
        /// The lock file.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// Serving failed (closing the store, installing the signal handlers).
    #[error(transparent)]
    Serve(#[from] ServeError),
}
