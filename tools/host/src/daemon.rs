//! The user's socket daemon as the other commands see it: whether one answers on a socket,
//! which store it serves and how that store is doing (`hello` and `stats` over the client), and
//! a flush before a command reads a store the daemon holds.
//!
//! Only asks; never starts a daemon (that is the hook's) and never stops one.

use crate::client::{Client, ClientError};
use crate::protocol::socket;
use docsuggest_schema::{StoreHealth, StoreKind};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The state directory: the socket, the hook log and the remembered turn ids live here.
pub const STATE_DIR: &str = "~/.dsh/playform";

/// The default socket of the user's daemon.
pub fn default_socket() -> PathBuf {
    crate::home::expand(&format!("{STATE_DIR}/docsuggest.sock"))
}

/// How long one question to the daemon may take: a daemon that answers no faster is busy or
/// hung, and a command that only looks must not wait on it.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(2);

/// What the socket said.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", tag = "state")]
pub enum DaemonState {
    /// No file at the socket path: no daemon runs there (the first hook starts one).
    Absent,
    /// The socket file is there but nothing answered (a daemon that died, or one starting).
    #[serde(rename_all = "camelCase")]
    NotAnswering {
        /// Why.
        reason: String,
    },
    /// The socket, or the process serving it, is another user's: nothing was sent.
    #[serde(rename_all = "camelCase")]
    Untrusted {
        /// What is not ours.
        reason: String,
    },
    /// A daemon answered `hello` and `stats`.
    #[serde(rename_all = "camelCase")]
    Running {
        /// Its engine version.
        version: String,
        /// Which store answers now.
        store: StoreKind,
        /// The redb file it opened (`None` on memory).
        store_path: Option<String>,
        /// Its `durability`.
        durability: String,
        /// Its `storeHealth`.
        store_health: StoreHealth,
    },
}

/// The daemon on one socket.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Daemon {
    /// The socket.
    pub socket: PathBuf,
    /// The pid its pid file names, if readable.
    pub pid: Option<u32>,
    /// What it answered.
    #[serde(flatten)]
    pub state: DaemonState,
}

impl Daemon {
    /// Whether a running daemon has the redb file `store` open (not on memory).
    pub fn serves(&self, store: &Path) -> bool {
        match &self.state {
            DaemonState::Running {
                store: StoreKind::Redb,
                store_path: Some(path),
                ..
            } => same_file(Path::new(path), store),
            _ => false,
        }
    }
}

/// Asks the daemon on `socket` who it is (`hello`) and how its store is (`stats`).
pub fn probe(socket: &Path) -> Daemon {
    let pid = socket::read_pid(socket);
    let state = if std::fs::symlink_metadata(socket).is_err() {
        DaemonState::Absent
    } else {
        match ask(socket) {
            Ok(state) => state,
            Err(e @ ClientError::Untrusted { .. }) => DaemonState::Untrusted {
                reason: e.to_string(),
            },
            Err(e) => DaemonState::NotAnswering {
                reason: e.to_string(),
            },
        }
    };
    Daemon {
        socket: socket.to_path_buf(),
        pid,
        state,
    }
}

fn ask(socket: &Path) -> Result<DaemonState, ClientError> {
    let mut client = Client::connect(socket)?;
    client.set_timeout(Some(ASK_TIMEOUT))?;
    let hello = client.hello()?;
    let stats = client.stats()?;
    let _ = client.close();
    let garbled = |what: &str, answer: &serde_json::Value| {
        ClientError::Garbled(format!("no {what} in {answer}"))
    };
    let store: StoreKind =
        serde_json::from_value(hello["store"].clone()).map_err(|_| garbled("store", &hello))?;
    let store_health: StoreHealth = serde_json::from_value(stats["storeHealth"].clone())
        .map_err(|_| garbled("storeHealth", &stats))?;
    Ok(DaemonState::Running {
        version: hello["version"].as_str().unwrap_or_default().to_string(),
        store,
        store_path: hello["storePath"].as_str().map(str::to_string),
        durability: hello["durability"].as_str().unwrap_or_default().to_string(),
        store_health,
    })
}

/// Why the daemon on `socket` gives the file `path` no pack, in its own words: the warnings
/// of a `peek` of it (nothing recorded) that abstained `foreign-workspace` — a mining job that
/// failed or panicked, a mined pack that does not load. `None` when the daemon cannot be asked
/// or gives no such reason (mining still running, or done).
pub fn why_unmined(socket: &Path, path: &Path) -> Option<String> {
    let mut client = Client::connect(socket).ok()?;
    client.set_timeout(Some(ASK_TIMEOUT)).ok()?;
    let answer = client
        .peek(
            "docsuggest-status",
            "read",
            &path.display().to_string(),
            None,
        )
        .ok()?;
    let _ = client.close();
    let foreign = answer["ledger"].as_array()?.iter().any(|l| {
        l.as_str()
            .is_some_and(|l| l.contains("abstained foreign-workspace"))
    });
    let warnings: Vec<&str> = answer["warnings"]
        .as_array()?
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect();
    (foreign && !warnings.is_empty()).then(|| warnings.join("; "))
}

/// When the daemon on `socket` serves the store file `store`, asks it to flush, so that a
/// copy of the file taken next holds every decision it answered; answers the daemon's pid
/// (0 when its pid file is unreadable) when it flushed.
pub fn flush_holder(socket: &Path, store: &Path) -> Option<u32> {
    let daemon = probe(socket);
    if !daemon.serves(store) {
        return None;
    }
    let mut client = Client::connect(socket).ok()?;
    client.set_timeout(Some(ASK_TIMEOUT)).ok()?;
    let flushed = client.flush();
    let _ = client.close();
    match flushed {
        Ok(_) => Some(daemon.pid.unwrap_or(0)),
        Err(e) => {
            tracing::warn!(socket = %socket.display(), error = %e, "the daemon did not flush");
            None
        }
    }
}

/// Whether two paths name one file (both resolved; as written when either cannot be).
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
