//! The Unix-domain socket server: one engine, many connections, each a JSON-lines session
//! exactly as on stdio.
//!
//! One acceptor thread, one thread per connection, and the engine loop on the caller's
//! thread (see `serve.rs`). A connection thread only frames lines and waits for the answer
//! of its one request in flight, so a client that stalls, sends garbage or vanishes blocks
//! nothing but its own thread; the engine loop never writes to a socket.
//!
//! The socket file is made in a private directory beside it (mode `0700`), set to `0600`,
//! then hard-linked into place: the name appears atomically, already owner-only, and a link
//! never replaces a file that exists. A pid file (`<socket>.pid`) names the server, so a
//! second server is refused with the first one's pid.

use super::answer::{self, Id};
use super::dispatch::Dispatcher;
use super::error::RequestError;
use super::serve::{self, Ending, Event, ServeError, Sessions};
use std::io::{self, BufReader, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Sender};
use std::time::Duration;

/// Connections served at once by default; one more is answered `too-many-connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// How the socket server runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SocketOptions {
    /// The socket file.
    pub path: PathBuf,
    /// Connections served at once.
    pub max_connections: usize,
}

impl SocketOptions {
    /// Options for `path` with the default bound.
    pub fn new(path: impl Into<PathBuf>) -> SocketOptions {
        SocketOptions {
            path: path.into(),
            max_connections: DEFAULT_MAX_CONNECTIONS,
        }
    }
}

/// Why the socket server could not start or ended badly.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SocketError {
    /// Another server answers on the socket.
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
    /// Serving failed (closing the store, installing the signal handlers).
    #[error(transparent)]
    Serve(#[from] ServeError),
}

/// A bound socket file and its pid file, removed on drop while they are still this
/// server's.
pub struct Bound {
    listener: UnixListener,
    path: PathBuf,
    pid_path: PathBuf,
    inode: (u64, u64),
}

impl Bound {
    /// The socket file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Bound {
    fn drop(&mut self) {
        // A server started after this one (once this one stopped answering) owns the name.
        let ours = std::fs::symlink_metadata(&self.path)
            .map(|m| (m.dev(), m.ino()) == self.inode)
            .unwrap_or(false);
        if ours {
            let _ = std::fs::remove_file(&self.path);
            let _ = std::fs::remove_file(&self.pid_path);
        }
    }
}

/// The longest socket path the platform binds, in bytes: `sun_path` less its NUL (108 bytes
/// on Linux, 104 on the BSDs and macOS).
pub const MAX_SOCKET_PATH: usize = if cfg!(target_os = "linux") { 107 } else { 103 };

/// The pid file beside a socket.
pub fn pid_file(socket: &Path) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(".pid");
    PathBuf::from(name)
}

/// Binds `path`: a missing path is created, a stale socket (no server answers) replaced,
/// a live one refused naming its server's pid.
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
    let result = (|| -> Result<Bound, SocketError> {
        let listener = bind_staged(&private, &staged).map_err(bind_error)?;
        std::fs::set_permissions(&staged, std::fs::Permissions::from_mode(0o600))
            .map_err(bind_error)?;
        link_into_place(&staged, path)?;
        let meta = std::fs::symlink_metadata(path).map_err(bind_error)?;
        Ok(Bound {
            listener,
            path: path.to_path_buf(),
            pid_path: pid_file(path),
            inode: (meta.dev(), meta.ino()),
        })
    })();
    let _ = std::fs::remove_dir_all(&private);
    let bound = result?;
    write_pid_file(&bound.pid_path).map_err(bind_error)?;
    Ok(bound)
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
        match UnixStream::connect(path) {
            Ok(_) => {
                let pid = std::fs::read_to_string(pid_file(path))
                    .ok()
                    .and_then(|text| text.trim().parse().ok());
                return Err(SocketError::InUse { path: name, pid });
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

fn write_pid_file(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut staged = path.as_os_str().to_owned();
    staged.push(format!(".{}.tmp", std::process::id()));
    let staged = PathBuf::from(staged);
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

/// Serves `bound` until SIGTERM or SIGINT, then finishes the dispatcher and removes the
/// socket and pid files. `close` from a client flushes and ends that connection only. With
/// `idle_timeout`, it also stops once no request has arrived for that long.
pub fn serve_socket(
    dispatcher: Dispatcher,
    bound: Bound,
    max_connections: usize,
    idle_timeout: Option<Duration>,
) -> Result<Ending, SocketError> {
    let (events, inbox) = mpsc::channel();
    serve::watch_signals(events.clone()).map_err(ServeError::Signals)?;
    serve_socket_until(
        dispatcher,
        bound,
        max_connections,
        idle_timeout,
        events,
        inbox,
    )
}

fn serve_socket_until(
    dispatcher: Dispatcher,
    bound: Bound,
    max_connections: usize,
    idle_timeout: Option<Duration>,
    events: Sender<Event>,
    inbox: mpsc::Receiver<Event>,
) -> Result<Ending, SocketError> {
    let mut dispatcher = dispatcher.shared();
    let stopping = Arc::new(AtomicBool::new(false));
    let listener = bound
        .listener
        .try_clone()
        .map_err(|source| SocketError::Bind {
            path: bound.path.display().to_string(),
            source,
        })?;
    let acceptor = {
        let stopping = Arc::clone(&stopping);
        std::thread::Builder::new()
            .name("accept".into())
            .spawn(move || accept(&listener, &events, max_connections, &stopping))
            .map_err(ServeError::Read)?
    };
    let ending = serve::engine_loop(&mut dispatcher, &inbox, Sessions::Many, idle_timeout);
    // Wake the acceptor so it sees the flag; a failed connect means it is gone already.
    stopping.store(true, Ordering::SeqCst);
    let _ = UnixStream::connect(&bound.path);
    let _ = acceptor.join();
    drop(bound);
    Ok(ending?)
}

fn accept(
    listener: &UnixListener,
    events: &Sender<Event>,
    max_connections: usize,
    stopping: &AtomicBool,
) {
    let active = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let mut stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                // Out of descriptors, say: wait a little rather than spin.
                tracing::warn!(error = %e, "accepting a connection failed");
                std::thread::sleep(std::time::Duration::from_millis(50));
                continue;
            }
        };
        if active.load(Ordering::SeqCst) >= max_connections {
            let refusal = RequestError::TooManyConnections {
                max: max_connections,
            };
            let line = answer::error(&Id::Null, &refusal);
            let _ = writeln!(stream, "{line}");
            continue;
        }
        active.fetch_add(1, Ordering::SeqCst);
        let slot = Slot(Arc::clone(&active));
        let events = events.clone();
        let spawned = std::thread::Builder::new()
            .name("connection".into())
            .spawn(move || {
                let _slot = slot;
                let result = match stream.try_clone() {
                    Ok(input) => serve::session(BufReader::new(input), stream, &events).map(|_| ()),
                    Err(e) => Err(ServeError::Read(e)),
                };
                let _ = events.send(Event::SessionEnded(result));
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot start a connection thread");
        }
    }
}

/// A connection's place under the bound, given back when its thread ends.
struct Slot(Arc<AtomicUsize>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}
