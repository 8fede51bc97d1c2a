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
//! never replaces a file that exists. A pid file (`<socket>.pid`) names the server.
//!
//! One server per socket is decided by a lock, not by the socket file: a server holds an
//! exclusive `flock` on `<socket>.owner` for its whole life, taken before anything else, so a
//! second one is refused (with the first one's pid) even when the socket file was removed. A
//! watcher thread checks every [`SOCKET_CHECK_INTERVAL`] that the socket path and the lock
//! file are still this server's: a missing socket is re-created (the clients reach the same
//! server again, whose store and learning stay open); anything else in its place, or a lock
//! file removed or replaced, stops the server as SIGTERM does, since it can no longer prove it
//! is the only one.

use super::answer::{self, Id};
use super::dispatch::Dispatcher;
use super::error::RequestError;
use super::serve::{self, Ending, Event, ServeError, Sessions};
use super::slots::{self, Slots};
use std::fs::File;
use std::io::{self, BufReader, Write};
use std::os::unix::fs::{DirBuilderExt, FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Connections served at once by default; one more is answered `too-many-connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// How often a running server checks that its socket path and lock file are still its own.
pub const SOCKET_CHECK_INTERVAL: Duration = Duration::from_secs(2);

/// How long [`bind`] waits for the owner lock: a server that is stopping holds it until its
/// store is closed.
const OWNER_WAIT: Duration = Duration::from_secs(2);

/// How long a stopping server waits for an acceptor thread it woke before leaving it behind.
const ACCEPTOR_WAIT: Duration = Duration::from_secs(1);

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

/// A bound socket file and its pid file, removed on drop while they are still this
/// server's, and the owner lock, released on drop after them.
pub struct Bound {
    listener: UnixListener,
    path: PathBuf,
    pid_path: PathBuf,
    inode: (u64, u64),
    // Last: fields drop in order, so the lock outlives the files it guards.
    owner: Owner,
}

impl Bound {
    /// The socket file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the socket path still is this server's socket.
    fn is_ours(&self) -> bool {
        inode_of(&self.path).is_ok_and(|inode| inode == self.inode)
    }

    /// Binds a new socket at the path, which must be missing (a file that appeared meanwhile
    /// is never replaced), and rewrites the pid file; answers the listener it replaces.
    fn relink(&mut self) -> Result<UnixListener, SocketError> {
        let (listener, inode) = link_socket(&self.path, false)?;
        self.inode = inode;
        if let Err(e) = write_pid_file(&self.pid_path) {
            tracing::warn!(error = %e, pid_file = %self.pid_path.display(), "cannot rewrite the pid file");
        }
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

/// The exclusive `flock` on `<socket>.owner`, held for the server's life and released by
/// the kernel when it dies, however it dies. The file is never removed: a lock file unlinked
/// while another process waits on it would let that one and a newcomer (on a new file) both
/// hold "the" lock.
struct Owner {
    _file: File,
    path: PathBuf,
    inode: (u64, u64),
}

/// The longest socket path the platform binds, in bytes: `sun_path` less its NUL (108 bytes
/// on Linux, 104 on the BSDs and macOS).
pub const MAX_SOCKET_PATH: usize = if cfg!(target_os = "linux") { 107 } else { 103 };

/// The pid file beside a socket.
pub fn pid_file(socket: &Path) -> PathBuf {
    beside(socket, ".pid")
}

/// The owner lock file beside a socket: whoever holds its `flock` serves the socket.
pub fn owner_file(socket: &Path) -> PathBuf {
    beside(socket, ".owner")
}

use docsuggest_schema::beside::beside;

/// The pid in the pid file beside `socket`, when it is readable.
pub fn read_pid(socket: &Path) -> Option<u32> {
    std::fs::read_to_string(pid_file(socket))
        .ok()
        .and_then(|text| text.trim().parse().ok())
}

fn inode_of(path: &Path) -> io::Result<(u64, u64)> {
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
    write_pid_file(&bound.pid_path).map_err(|source| SocketError::Bind { path: name, source })?;
    Ok(bound)
}

/// Opens `<socket>.owner` (never through a symlink, created `0600`, ours alone) and takes its
/// exclusive lock, waiting up to [`OWNER_WAIT`] for a server that is stopping.
fn take_owner(socket: &Path) -> Result<Owner, SocketError> {
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

fn write_pid_file(path: &Path) -> io::Result<()> {
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

/// Serves `bound` until SIGTERM or SIGINT, then finishes the dispatcher and removes the
/// socket and pid files. `close` from a client flushes and ends that connection only. With
/// `idle_timeout`, it also stops once no request has arrived for that long. A socket file
/// removed meanwhile is re-created; a socket path or lock file taken by something else stops
/// the server ([`Ending::SocketLost`]).
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
    inbox: Receiver<Event>,
) -> Result<Ending, SocketError> {
    let mut dispatcher = dispatcher.shared();
    let accepting = Accepting {
        events: events.clone(),
        slots: Slots::new(max_connections),
    };
    let acceptor = accepting
        .start(&bound.listener)
        .map_err(|source| SocketError::Bind {
            path: bound.path.display().to_string(),
            source,
        })?;
    let mut listening = Listening {
        bound,
        acceptor,
        accepting,
    };
    let (quit, quitting) = mpsc::channel::<()>();
    let watcher = std::thread::Builder::new()
        .name("socket-watch".into())
        .spawn(move || {
            listening.watch(&quitting, &events);
            listening
        })
        .map_err(ServeError::Read)?;
    let ending = serve::engine_loop(&mut dispatcher, &inbox, Sessions::Many, idle_timeout);
    drop(quit);
    // A watcher that panicked dropped its `Bound` while unwinding: files and lock are gone.
    if let Ok(Listening {
        bound, acceptor, ..
    }) = watcher.join()
    {
        acceptor.stop(bound.is_ours().then_some(bound.path.as_path()));
        // The store is closed before the lock is released, so the next server can open it.
        drop(dispatcher);
        drop(bound);
    }
    Ok(ending?)
}

/// The socket being served: the bound files, the acceptor on the current listener, and what
/// a new acceptor needs when the socket is re-created.
struct Listening {
    bound: Bound,
    acceptor: Acceptor,
    accepting: Accepting,
}

impl Listening {
    /// Checks every [`SOCKET_CHECK_INTERVAL`] until `quit` ends; once the socket is lost,
    /// tells the engine loop to stop and waits for `quit`.
    fn watch(&mut self, quit: &Receiver<()>, events: &Sender<Event>) {
        while let Err(RecvTimeoutError::Timeout) = quit.recv_timeout(SOCKET_CHECK_INTERVAL) {
            if let Err(reason) = self.keep() {
                tracing::warn!(socket = %self.bound.path.display(), "stopping: {reason}");
                let _ = events.send(Event::SocketLost);
                let _ = quit.recv();
                return;
            }
        }
    }

    /// Keeps the socket path this server's: a missing socket is re-created; answers why not
    /// when the lock file or the path is no longer this server's. What cannot be read now
    /// (a transient error) is checked again next time.
    fn keep(&mut self) -> Result<(), String> {
        let owner = &self.bound.owner;
        match inode_of(&owner.path) {
            Ok(inode) if inode == owner.inode => {}
            Ok(_) => {
                return Err(format!(
                    "its lock file {} was replaced",
                    owner.path.display()
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(format!(
                    "its lock file {} was removed",
                    owner.path.display()
                ));
            }
            Err(_) => return Ok(()),
        }
        match inode_of(&self.bound.path) {
            Ok(inode) if inode == self.bound.inode => Ok(()),
            Ok(_) => Err("something else took its socket path".into()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => self.recreate(),
            Err(_) => Ok(()),
        }
    }

    fn recreate(&mut self) -> Result<(), String> {
        let old = self.bound.relink().map_err(|e| {
            format!(
                "its socket file was removed and cannot be re-created: {}",
                error_chain(&e)
            )
        })?;
        let acceptor = self
            .accepting
            .start(&self.bound.listener)
            .map_err(|e| format!("cannot accept on the re-created socket: {e}"))?;
        tracing::warn!(socket = %self.bound.path.display(), "its socket file was removed; re-created it");
        // Nobody can reach the old socket any more: its acceptor is stopped, not joined forever.
        std::mem::replace(&mut self.acceptor, acceptor).stop(None);
        drop(old);
        Ok(())
    }
}

/// `e` and its sources on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// What every acceptor shares: the engine loop's channel and the connection slots.
struct Accepting {
    events: Sender<Event>,
    slots: Arc<Slots>,
}

impl Accepting {
    /// Starts an acceptor thread on `listener`.
    fn start(&self, listener: &UnixListener) -> io::Result<Acceptor> {
        let theirs = listener.try_clone()?;
        let ours = listener.try_clone()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let (finished, done) = mpsc::channel::<()>();
        let thread = {
            let stopping = Arc::clone(&stopping);
            let events = self.events.clone();
            let slots = Arc::clone(&self.slots);
            std::thread::Builder::new()
                .name("accept".into())
                .spawn(move || {
                    // Dropped when the thread ends, which is what `done` waits for.
                    let _finished = finished;
                    accept(&theirs, &events, &slots, &stopping);
                })?
        };
        Ok(Acceptor {
            listener: ours,
            stopping,
            done,
            thread,
        })
    }
}

/// An acceptor thread and the means to stop it.
struct Acceptor {
    listener: UnixListener,
    stopping: Arc<AtomicBool>,
    done: Receiver<()>,
    thread: JoinHandle<()>,
}

impl Acceptor {
    /// Stops the thread. Shutting the listening socket down wakes a blocked `accept` on
    /// Linux; elsewhere a connection to `wake` (the socket path, while it is still ours) does.
    /// A thread that still does not wake is left behind, never joined, so a socket file
    /// removed from under the server can never hold its stop.
    fn stop(self, wake: Option<&Path>) {
        self.stopping.store(true, Ordering::SeqCst);
        let _ = rustix::net::shutdown(&self.listener, rustix::net::Shutdown::Both);
        if let Some(path) = wake {
            let _ = UnixStream::connect(path);
        }
        match self.done.recv_timeout(ACCEPTOR_WAIT) {
            Err(RecvTimeoutError::Timeout) => {
                tracing::debug!("the acceptor did not wake; left behind");
            }
            _ => {
                let _ = self.thread.join();
            }
        }
    }
}

fn accept(
    listener: &UnixListener,
    events: &Sender<Event>,
    slots: &Arc<Slots>,
    stopping: &AtomicBool,
) {
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
        let Some(ticket) = slots.admit(&stream) else {
            let refusal = RequestError::TooManyConnections { max: slots.max() };
            let line = answer::error(&Id::Null, &refusal);
            let _ = writeln!(stream, "{line}");
            continue;
        };
        // A client that sends no complete line, or reads no answer, for this long is closed.
        let _ = stream.set_read_timeout(Some(slots::IDLE_TIMEOUT));
        let _ = stream.set_write_timeout(Some(slots::IDLE_TIMEOUT));
        let events = events.clone();
        let spawned = std::thread::Builder::new()
            .name("connection".into())
            .spawn(move || {
                let result = match stream.try_clone() {
                    Ok(input) => serve::session(
                        BufReader::new(input),
                        stream,
                        &events,
                        Some(ticket.activity()),
                    )
                    .map(|_| ()),
                    Err(e) => Err(ServeError::Read(e)),
                };
                // The slot is free before the loop hears of the end.
                drop(ticket);
                let _ = events.send(Event::SessionEnded(result));
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot start a connection thread");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Client;
    use crate::host::{self, StoreChoice};
    use docsuggest_schema::Config;

    /// Only a hung server waits this long; nothing is asserted about time.
    const HANG: Duration = Duration::from_secs(60);

    fn dispatcher() -> Dispatcher {
        let config = Config {
            log: false,
            ..Config::default()
        };
        Dispatcher::for_host(host::start(config, &StoreChoice::Memory, false))
    }

    /// A server on `bound` on its own thread, its engine loop's channel, and its result.
    struct Running {
        events: Sender<Event>,
        result: Receiver<Result<Ending, SocketError>>,
    }

    impl Running {
        fn start(bound: Bound, idle: Option<Duration>) -> Running {
            let (events, inbox) = mpsc::channel();
            let (done, result) = mpsc::channel();
            let sender = events.clone();
            std::thread::spawn(move || {
                let ending = serve_socket_until(dispatcher(), bound, 4, idle, sender, inbox);
                let _ = done.send(ending);
            });
            Running { events, result }
        }

        /// The server's ending; a server that never ends fails the test instead of hanging it.
        fn ending(&self) -> Ending {
            match self.result.recv_timeout(HANG) {
                Ok(result) => result.expect("the server ends cleanly"),
                Err(_) => panic!("the server did not stop"),
            }
        }
    }

    fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + HANG;
        while !done() {
            assert!(Instant::now() < deadline, "never: {what}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn a_server_whose_socket_file_was_removed_still_stops() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("d.sock");
        let running = Running::start(bind(&path).expect("bind"), None);
        Client::connect(&path)
            .and_then(|mut c| c.hello())
            .expect("hello");
        std::fs::remove_file(&path).expect("remove the socket");
        running.events.send(Event::Stop(15)).expect("send stop");
        assert_eq!(running.ending(), Ending::Signal(15));

        // The same when the idle timeout ends it.
        let running = Running::start(bind(&path).expect("bind again"), Some(Duration::ZERO));
        std::fs::remove_file(&path).expect("remove the socket");
        assert_eq!(running.ending(), Ending::Idle);
        assert!(!pid_file(&path).exists(), "the pid file is removed");
    }

    #[test]
    fn the_owner_lock_refuses_a_second_server_even_without_the_socket_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("d.sock");
        let first = bind(&path).expect("bind");
        std::fs::remove_file(&path).expect("remove the socket");
        match bind(&path) {
            Err(SocketError::InUse { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
            Err(e) => panic!("refused for another reason: {e}"),
            Ok(_) => panic!("a second server bound the socket"),
        }
        assert!(!path.exists(), "the refused server created nothing");
        drop(first);
        let again = bind(&path).expect("the lock is free once the first is gone");
        assert!(path.exists());
        drop(again);
        assert!(!path.exists());
        assert!(owner_file(&path).exists(), "the lock file is never removed");
    }

    #[test]
    fn a_removed_socket_file_is_re_created_by_the_same_server() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("d.sock");
        let running = Running::start(bind(&path).expect("bind"), None);
        std::fs::remove_file(&path).expect("remove the socket");
        std::fs::remove_file(pid_file(&path)).expect("remove the pid file");
        wait_until("the socket answers again", || {
            Client::connect(&path).and_then(|mut c| c.hello()).is_ok()
        });
        assert_eq!(read_pid(&path), Some(std::process::id()));
        running.events.send(Event::Stop(15)).expect("send stop");
        assert_eq!(running.ending(), Ending::Signal(15));
        assert!(
            !path.exists(),
            "the re-created socket is removed at the end"
        );
    }

    #[test]
    fn a_socket_path_or_lock_file_taken_by_another_file_stops_the_server() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("d.sock");
        let running = Running::start(bind(&path).expect("bind"), None);
        std::fs::remove_file(&path).expect("remove the socket");
        std::fs::write(&path, "not ours").expect("a plain file in its place");
        assert_eq!(running.ending(), Ending::SocketLost);
        assert_eq!(
            std::fs::read_to_string(&path).expect("the file is left alone"),
            "not ours"
        );
        std::fs::remove_file(&path).expect("remove the plain file");

        let running = Running::start(bind(&path).expect("bind again"), None);
        std::fs::remove_file(owner_file(&path)).expect("remove the lock file");
        assert_eq!(running.ending(), Ending::SocketLost);
        assert!(!path.exists(), "its own socket is removed");
    }
}
