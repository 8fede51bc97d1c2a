//! How a hook reaches the engine: the user's socket daemon, started on first use.
//!
//! [`Transport`] is the one thing the hook needs, a request answered; the socket
//! [`Client`] is the real one and an in-process [`Dispatcher`] stands in for it in tests.
//! [`connect_or_start`] makes sure exactly one daemon serves a socket even when several hook
//! processes find it missing at once: they queue on an exclusive lock beside the socket, and
//! only the holder that still finds no server, and no live daemon holding the socket's owner
//! lock (one whose socket file was removed re-creates it), starts one.

use super::options::HookOptions;
use super::{Open, private_file};
use docsuggest_host::client::{Client, ClientError};
use docsuggest_host::protocol::socket::owner_file;
use docsuggest_host::protocol::{Dispatcher, Line};
use docsuggest_schema::beside::beside;
use serde_json::Value;
use std::fs::File;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Why the engine could not be asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The socket client failed.
    #[error(transparent)]
    Client(#[from] ClientError),
    /// The daemon could not be started.
    #[error("cannot start the daemon ({what}): {source}")]
    Start {
        /// The step that failed.
        what: String,
        /// Why.
        source: io::Error,
    },
    /// The daemon started but exited before it answered.
    #[error("the daemon exited before answering ({status}); its log is {log}")]
    Exited {
        /// How it exited.
        status: String,
        /// Where its stderr went.
        log: String,
    },
    /// The time budget ran out.
    #[error("no answer within the hook's time budget ({0})")]
    Timeout(&'static str),
    /// The in-process engine answered something that is not JSON.
    #[error("the answer is not JSON: {0}")]
    Garbled(String),
}

/// A request answered: the whole answer object of a success.
pub trait Transport {
    /// Sends `request` (an object without `id`).
    fn request(&mut self, request: Value) -> Result<Value, TransportError>;
}

impl Transport for Client {
    fn request(&mut self, request: Value) -> Result<Value, TransportError> {
        Ok(Client::request(self, request)?)
    }
}

/// An engine in this process, as a test or an embedding host holds one.
pub struct InProcess(pub Dispatcher);

impl Transport for InProcess {
    fn request(&mut self, mut request: Value) -> Result<Value, TransportError> {
        if let Value::Object(map) = &mut request {
            map.insert("id".into(), Value::from(1));
        }
        let handled = self
            .0
            .handle_line(&Line::Bytes(request.to_string().into_bytes()));
        let answer: Value = serde_json::from_str(&handled.answer)
            .map_err(|e| TransportError::Garbled(format!("{e}: {}", handled.answer)))?;
        match answer.get("ok") {
            Some(Value::Bool(true)) => Ok(answer),
            _ => Err(TransportError::Client(ClientError::Refused {
                code: answer["error"]["code"].as_str().unwrap_or_default().into(),
                detail: answer["error"]["detail"]
                    .as_str()
                    .unwrap_or_default()
                    .into(),
            })),
        }
    }
}

/// How to start the daemon when none answers.
#[derive(Clone, Debug)]
pub struct Daemon {
    /// The socket file.
    pub socket: PathBuf,
    /// The store it opens (`None`: the config's storePath).
    pub store: Option<PathBuf>,
    /// It stops after this long without a request.
    pub idle_timeout: Duration,
    /// Where its stderr goes.
    pub log: PathBuf,
    /// The `docsuggest` executable it is started from (`None`: this executable).
    pub program: Option<PathBuf>,
}

impl Daemon {
    /// The daemon the hook run with `options` connects to, or starts when none answers.
    pub fn of(options: &HookOptions) -> Daemon {
        Daemon {
            socket: options.socket.clone(),
            store: options.store.clone(),
            idle_timeout: options.idle_timeout,
            log: beside(&options.socket, ".daemon.log"),
            program: options.program.clone(),
        }
    }
}

/// What [`connect_or_start`] did.
pub struct Connected {
    /// The connection.
    pub client: Client,
    /// The pid of the daemon this call started, if it started one.
    pub started: Option<u32>,
}

/// Connects to the daemon on `daemon.socket`, starting it (detached, this executable's
/// `serve --socket`) when none answers; gives up at `deadline`.
/// A socket or server of another user ([`ClientError::Untrusted`]) is refused at once, and no
/// daemon is started for it.
pub fn connect_or_start(daemon: &Daemon, deadline: Instant) -> Result<Connected, TransportError> {
    if let Some(client) = connect(&daemon.socket)? {
        return Ok(Connected {
            client,
            started: None,
        });
    }
    let dir = parent(&daemon.socket);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)
        .map_err(start_error("creating the state directory"))?;
    let lock = private_file(&lock_file(&daemon.socket), Open::Keep)
        .map_err(start_error("opening the start lock"))?;
    wait_for_lock(&lock, deadline)?;
    // A hook that held the lock before this one may have started the daemon meanwhile. A
    // daemon that holds its owner lock is alive without its socket file: it re-creates it (or
    // stops) within its check interval, and would refuse a second daemon, so wait for it.
    loop {
        if let Some(client) = connect(&daemon.socket)? {
            return Ok(Connected {
                client,
                started: None,
            });
        }
        if !owner_held(&daemon.socket) {
            break;
        }
        if Instant::now() >= deadline {
            return Err(TransportError::Timeout(
                "waiting for the running daemon to re-create its socket",
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let mut child = spawn(daemon)?;
    let started = child.id();
    loop {
        match Client::connect(&daemon.socket) {
            Ok(client) => {
                return Ok(Connected {
                    client,
                    started: Some(started),
                });
            }
            Err(e @ ClientError::Untrusted { .. }) => return Err(e.into()),
            Err(_) if Instant::now() < deadline => {
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(TransportError::Exited {
                        status: status.to_string(),
                        log: daemon.log.display().to_string(),
                    });
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(_) => return Err(TransportError::Timeout("starting the daemon")),
        }
    }
    // The lock is released when `lock` drops, after the daemon answers.
}

/// A connection, `None` when no server answers; an untrusted one is an error.
fn connect(socket: &Path) -> Result<Option<Client>, TransportError> {
    match Client::connect(socket) {
        Ok(client) => Ok(Some(client)),
        Err(e @ ClientError::Untrusted { .. }) => Err(e.into()),
        Err(_) => Ok(None),
    }
}

/// Whether a live daemon holds the owner lock beside `socket`. Probed with a shared lock,
/// released at once; a daemon starting meanwhile waits for it.
fn owner_held(socket: &Path) -> bool {
    use rustix::fs::{FlockOperation, OFlags, flock};
    use std::os::unix::fs::OpenOptionsExt;
    // Never through a symlink; `O_NONBLOCK` so a FIFO in its place cannot hold the hook.
    let Ok(file) = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32)
        .open(owner_file(socket))
    else {
        return false;
    };
    flock(&file, FlockOperation::NonBlockingLockShared) == Err(rustix::io::Errno::WOULDBLOCK)
}

/// The start lock beside a socket.
pub fn lock_file(socket: &Path) -> PathBuf {
    docsuggest_schema::beside::beside(socket, ".lock")
}

/// Takes the exclusive `flock` on `lock`, held until the file is closed (also when the
/// process dies, so a killed hook never leaves the lock taken).
fn wait_for_lock(lock: &File, deadline: Instant) -> Result<(), TransportError> {
    use rustix::fs::{FlockOperation, flock};
    use rustix::io::Errno;
    loop {
        match flock(lock, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            Err(Errno::WOULDBLOCK) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(1));
            }
            Err(Errno::WOULDBLOCK) => {
                return Err(TransportError::Timeout(
                    "waiting for another hook to start the daemon",
                ));
            }
            Err(e) => {
                return Err(TransportError::Start {
                    what: "taking the start lock".into(),
                    source: e.into(),
                });
            }
        }
    }
}

fn spawn(daemon: &Daemon) -> Result<Child, TransportError> {
    let exe = match &daemon.program {
        Some(program) => program.clone(),
        None => std::env::current_exe().map_err(start_error("finding this executable"))?,
    };
    // A log that cannot be opened safely (a symlink in its place, say) is not written; the
    // daemon starts anyway.
    let log = private_file(&daemon.log, Open::Append).map_or_else(|_| Stdio::null(), Stdio::from);
    let mut command = Command::new(exe);
    command
        .arg("serve")
        .arg("--socket")
        .arg(&daemon.socket)
        .arg("--idle-timeout")
        .arg(daemon.idle_timeout.as_secs().max(1).to_string());
    if let Some(store) = &daemon.store {
        command.arg("--store").arg(store);
    }
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        // Its own process group: the harness's signals to the hook's group do not reach it.
        .process_group(0)
        .spawn()
        .map_err(start_error("spawning `serve --socket`"))
}

fn parent(path: &Path) -> PathBuf {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

fn start_error(what: &'static str) -> impl Fn(io::Error) -> TransportError {
    move |source| TransportError::Start {
        what: what.into(),
        source,
    }
}
