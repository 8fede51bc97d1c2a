//! How `docsuggest mcp` reaches the engine: the user's socket daemon, the very engine and
//! store the hooks use, started as a hook starts it when none answers
//! ([`transport::connect_or_start`]); an in-process engine for one request only when no
//! daemon can be had (a state directory that is not ours, another user's socket, a daemon
//! that cannot start).
//!
//! An MCP server lives as long as its client's session. Holding the store in this process
//! for that long would shut the hooks' daemon out of it (redb admits one process per file,
//! so the daemon would learn on memory meanwhile); the in-process engine is therefore opened
//! for one request and closed after it, as `serve` opens one ([`host::start`]), behind one
//! lock so two requests never open the file at once. Its pack miner is kept across requests,
//! so a work tree without a pack is mined once and its pack stored, as the daemon does.

use crate::hook::{self, HookOptions, transport};
use docsuggest_host::client::ClientError;
use docsuggest_host::host::{self, StoreChoice};
use docsuggest_host::mining::BackgroundMiner;
use docsuggest_host::protocol::Dispatcher;
use docsuggest_schema::Config;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// Which engine answered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Via {
    /// The socket daemon.
    Daemon(PathBuf),
    /// An engine in this process, on this store file (`None`: memory).
    InProcess(Option<PathBuf>),
}

impl Via {
    /// `daemon <socket>` or `in-process <store>`.
    pub fn describe(&self) -> String {
        match self {
            Via::Daemon(socket) => format!("daemon {}", socket.display()),
            Via::InProcess(Some(store)) => format!("in-process {}", store.display()),
            Via::InProcess(None) => "in-process memory".to_string(),
        }
    }
}

/// Why a request got no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReachError {
    /// The engine refused the request (a relative path without `cwd`, an empty path, …).
    #[error("{detail} ({code})")]
    Refused {
        /// The protocol's error code.
        code: String,
        /// For a person.
        detail: String,
    },
    /// The daemon predates `peek`: asking it to judge instead would record a decision.
    #[error(
        "the daemon on {socket} is older than this docsuggest and cannot answer without \
         recording; stop it (kill -TERM \"$(cat {socket}.pid)\") and the next call starts the \
         current one"
    )]
    OldDaemon {
        /// Its socket.
        socket: String,
    },
    /// The daemon was reached but did not answer.
    #[error("the daemon on {socket} did not answer: {source}")]
    Daemon {
        /// Its socket.
        socket: String,
        /// Why.
        source: ClientError,
    },
    /// No daemon could be had and the store file cannot be opened here either.
    #[error("store unavailable: {reason} (and no daemon could be reached: {no_daemon})")]
    StoreUnavailable {
        /// Why the store cannot be opened.
        reason: String,
        /// Why no daemon answered.
        no_daemon: String,
    },
}

/// The engine `docsuggest mcp` asks, reached anew for every request.
pub struct Reach {
    hook: HookOptions,
    store: StoreChoice,
    timeout: Duration,
    miner: BackgroundMiner,
    in_process: Mutex<()>,
}

impl Reach {
    /// Reaches the daemon on `socket` (starting it on `store` when none answers, to stop after
    /// `idle_timeout`), waiting at most `timeout` per request; else the engine on `store` in
    /// process.
    pub fn new(
        socket: PathBuf,
        store: Option<PathBuf>,
        timeout: Duration,
        idle_timeout: Duration,
    ) -> Reach {
        // The harness is not used: only the socket, store and idle timeout of the daemon.
        let mut hook = HookOptions::new(hook::Harness::ClaudeCode);
        hook.socket = socket;
        hook.store = store.clone();
        hook.idle_timeout = idle_timeout;
        Reach {
            hook,
            store: store.map_or(StoreChoice::Configured, StoreChoice::File),
            timeout,
            miner: BackgroundMiner::new(),
            in_process: Mutex::new(()),
        }
    }

    /// The socket of the daemon asked first.
    pub fn socket(&self) -> &std::path::Path {
        &self.hook.socket
    }

    /// Sends `request` (a protocol request object without `id`) and answers the success
    /// answer's object and which engine gave it. Blocks (a socket round trip, or opening the
    /// store): run it off an async executor.
    pub fn ask(&self, request: &Value) -> Result<(Value, Via), ReachError> {
        let deadline = Instant::now() + self.timeout;
        // Nothing is written (no lock, no daemon) where the state directory is not ours alone.
        let connected = hook::state_dir(&self.hook).and_then(|_| {
            transport::connect_or_start(&transport::Daemon::of(&self.hook), deadline)
                .map_err(|e| e.to_string())
        });
        let mut connected = match connected {
            Ok(connected) => connected,
            Err(no_daemon) => {
                tracing::warn!(%no_daemon, "no daemon; answering in this process");
                return self.in_process(request, no_daemon);
            }
        };
        let socket = self.hook.socket.display().to_string();
        if let Some(pid) = connected.started {
            tracing::info!(pid, %socket, "started the daemon");
        }
        let left = deadline.saturating_duration_since(Instant::now());
        let answer = connected
            .client
            .set_timeout(Some(left.max(Duration::from_millis(1))))
            .and_then(|()| connected.client.request(request.clone()));
        match answer {
            Ok(answer) => Ok((answer, Via::Daemon(self.hook.socket.clone()))),
            Err(ClientError::Refused { code, .. }) if code == "unknown-op" => {
                Err(ReachError::OldDaemon { socket })
            }
            Err(ClientError::Refused { code, detail }) => Err(ReachError::Refused { code, detail }),
            Err(source) => Err(ReachError::Daemon { socket, source }),
        }
    }

    /// One request on an engine opened for it and closed after it.
    fn in_process(&self, request: &Value, no_daemon: String) -> Result<(Value, Via), ReachError> {
        let _one = self
            .in_process
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        // The daemon the hooks start reads no config file either.
        let mut started = host::start(Config::default(), &self.store, false);
        started.engine.set_pack_miner(Box::new(self.miner.clone()));
        let degraded = started.engine.store().health().degraded;
        // A store that was never written (a read-only HOME) has learned nothing: memory
        // answers as it would. One that exists but cannot be had (locked) would be answered
        // without what it learned, so that is an error.
        let never_written = started.store_path.as_ref().is_none_or(|p| !p.exists());
        let via = match &degraded {
            Some(_) => Via::InProcess(None),
            None => Via::InProcess(started.store_path.clone()),
        };
        let mut engine = Dispatcher::for_host(started);
        if let Some(reason) = degraded {
            if !never_written {
                let _ = engine.finish();
                return Err(ReachError::StoreUnavailable { reason, no_daemon });
            }
            tracing::warn!(%reason, "no store can be written; answering on memory");
        }
        let answer = engine.handle_value(request);
        if let Err(e) = engine.finish() {
            tracing::warn!(error = %e, "closing the in-process store failed");
        }
        match answer {
            Ok(answer) => Ok((answer, via)),
            Err(e) => Err(ReachError::Refused {
                code: e.code().to_string(),
                detail: e.to_string(),
            }),
        }
    }
}
