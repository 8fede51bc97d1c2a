//! Replaying a trace (a file of request lines) through the same dispatcher as `serve`, and
//! summarising the session.

use docsuggest_host::home;
use docsuggest_host::host::{self, HostError, HostOptions};
use docsuggest_host::protocol::{Dispatcher, Handled, Line, LineReader};
use docsuggest_host::summary::Summary;
use docsuggest_schema::StoreError;
use indicatif::ProgressBar;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Traces at least this long (in bytes) get a progress bar, when stderr is a terminal.
pub const PROGRESS_BYTES: u64 = 64 << 10;

/// What `docsuggest replay` is given.
#[derive(Clone, Debug, Default)]
pub struct ReplayOptions {
    /// The trace file.
    pub trace: PathBuf,
    /// The cwd of requests that carry none.
    pub workspace: Option<PathBuf>,
    /// The engine's config and store.
    pub host: HostOptions,
}

/// A replay that could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReplayError {
    /// The config file is unusable.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The trace could not be opened or read.
    #[error("cannot read trace {file}: {source}")]
    Trace {
        /// The trace file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// `--workspace` is not a directory.
    #[error("--workspace {0} is not a directory")]
    Workspace(String),
    /// The store could not be closed cleanly at the end.
    #[error("closing the store failed: {0}")]
    Close(StoreError),
    /// The socket server could not be reached or answered badly.
    #[cfg(unix)]
    #[error("replay over {socket}: {source}")]
    Socket {
        /// The socket file.
        socket: String,
        /// Why.
        source: docsuggest_host::client::ClientError,
    },
}

/// What running lines through a dispatcher counted.
#[derive(Clone, Debug, Default)]
pub struct Run {
    /// Requests answered.
    pub requests: u64,
    /// Error answers by code.
    pub errors: BTreeMap<String, u64>,
    /// The engine time of every accepted judge request.
    pub judge_times: Vec<Duration>,
}

/// Runs every line of `reader` through `dispatcher` until a `close` or the end; `seen` sees
/// each answer. The dispatcher is not finished here, so the caller can still read the store.
pub fn run_lines<R: BufRead>(
    dispatcher: &mut Dispatcher,
    reader: &mut LineReader<R>,
    progress: &ProgressBar,
    mut seen: impl FnMut(&Handled),
) -> std::io::Result<Run> {
    let mut run = Run::default();
    while let Some(line) = reader.next_line()? {
        progress.set_position(reader.consumed());
        if matches!(&line, Line::Bytes(b) if b.iter().all(u8::is_ascii_whitespace)) {
            continue;
        }
        let handled = dispatcher.handle_line(&line);
        run.requests += 1;
        if let Some(code) = handled.error {
            *run.errors.entry(code.to_string()).or_default() += 1;
        }
        run.judge_times.extend(handled.judge_time);
        seen(&handled);
        if handled.stop {
            break;
        }
    }
    progress.finish_and_clear();
    Ok(run)
}

/// Ends a session and summarises it: open windows close as abandoned, the store is closed.
pub fn finish(dispatcher: &mut Dispatcher, run: Run) -> Result<Summary, StoreError> {
    let store = dispatcher.engine().store().kind();
    dispatcher.finish()?;
    Ok(Summary::new(
        dispatcher.engine().stats(),
        run.requests,
        run.errors,
        &run.judge_times,
        store,
    ))
}

/// A progress bar over `len` bytes of trace, hidden for short traces or when stderr is not a
/// terminal.
pub fn progress_bar(len: u64) -> ProgressBar {
    docsuggest_history::progress::bar_for(
        len,
        PROGRESS_BYTES,
        "replay {bar:40} {binary_bytes}/{binary_total_bytes} ({eta} left)",
    )
}

/// The absolute form of `--workspace`, which must be a directory.
pub fn workspace_dir(dir: &Path) -> Result<String, ReplayError> {
    let expanded = home::expand(&dir.to_string_lossy());
    let abs =
        home::absolute(&expanded).map_err(|_| ReplayError::Workspace(dir.display().to_string()))?;
    if !abs.is_dir() {
        return Err(ReplayError::Workspace(abs.display().to_string()));
    }
    Ok(abs.display().to_string())
}

/// The trace file, its length (for the progress bar) and the workspace `cwd` to default to.
fn open_trace(
    options: &ReplayOptions,
) -> Result<(std::fs::File, u64, Option<String>), ReplayError> {
    let file = std::fs::File::open(&options.trace).map_err(|source| ReplayError::Trace {
        file: options.trace.display().to_string(),
        source,
    })?;
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let cwd = options
        .workspace
        .as_deref()
        .map(workspace_dir)
        .transpose()?;
    Ok((file, len, cwd))
}

/// `docsuggest replay`: runs the trace against the configured engine and store.
pub fn replay(options: &ReplayOptions) -> Result<Summary, ReplayError> {
    let trace_error = |source| ReplayError::Trace {
        file: options.trace.display().to_string(),
        source,
    };
    let (file, len, cwd) = open_trace(options)?;
    let host = host::build(&options.host)?;
    let mut dispatcher = Dispatcher::for_host(host).with_default_cwd(cwd);
    let mut reader = LineReader::new(BufReader::new(file));
    let run = run_lines(&mut dispatcher, &mut reader, &progress_bar(len), |_| {});
    let run = match run {
        Ok(run) => run,
        Err(e) => {
            // Whatever was recorded before the read failed is kept.
            if let Err(close) = dispatcher.finish() {
                tracing::error!(error = %close, "closing the store failed");
            }
            return Err(trace_error(e));
        }
    };
    finish(&mut dispatcher, run).map_err(ReplayError::Close)
}

/// `docsuggest replay --socket`: sends the trace's lines to a running socket server, one at
/// a time, and summarises them. Latency is the round trip of each accepted `judge`; the
/// counts are the server's `stats` after the replay less those before (a server serving other
/// clients at the same time counts their calls too). `--workspace` becomes the `cwd` of
/// `judge` and `rates` requests that carry none. A `close` ends the replay's connection.
#[cfg(unix)]
pub fn replay_socket(socket: &Path, options: &ReplayOptions) -> Result<Summary, ReplayError> {
    use docsuggest_host::client::{Client, ClientError};
    use serde_json::Value;
    use std::time::Instant;
    let failed = |source| ReplayError::Socket {
        socket: socket.display().to_string(),
        source,
    };
    let trace_error = |source| ReplayError::Trace {
        file: options.trace.display().to_string(),
        source,
    };
    let (file, len, cwd) = open_trace(options)?;
    let mut client = Client::connect(socket).map_err(failed)?;
    let before = client.stats().map_err(failed)?;
    let mut reader = LineReader::new(BufReader::new(file));
    let progress = progress_bar(len);
    let mut run = Run::default();
    while let Some(line) = reader.next_line().map_err(trace_error)? {
        progress.set_position(reader.consumed());
        let Line::Bytes(mut bytes) = line else {
            // The server would skip it the same way; it never needs to see the line.
            run.requests += 1;
            *run.errors.entry("line-too-long".into()).or_default() += 1;
            continue;
        };
        if bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let mut op = None;
        if let Ok(Value::Object(mut map)) = serde_json::from_slice::<Value>(&bytes) {
            op = map.get("op").and_then(Value::as_str).map(str::to_string);
            if let (Some(cwd), Some("judge" | "rates")) = (&cwd, op.as_deref())
                && map.get("cwd").is_none_or(Value::is_null)
            {
                map.insert("cwd".into(), Value::String(cwd.clone()));
                bytes = Value::Object(map).to_string().into_bytes();
            }
        }
        let start = Instant::now();
        let answer = client.send_line(&bytes);
        let elapsed = start.elapsed();
        run.requests += 1;
        match answer {
            Ok(_) if op.as_deref() == Some("judge") => run.judge_times.push(elapsed),
            Ok(_) => {}
            Err(ClientError::Refused { code, .. }) => *run.errors.entry(code).or_default() += 1,
            Err(e) => return Err(failed(e)),
        }
        if op.as_deref() == Some("close") {
            break;
        }
    }
    progress.finish_and_clear();
    // A `close` in the trace ended the first connection.
    drop(client);
    let after = Client::connect(socket)
        .and_then(|mut fresh| fresh.stats())
        .map_err(failed)?;
    let stats = stats_between(&before["stats"], &after["stats"]);
    let store = match after["store"].as_str() {
        Some("redb") => docsuggest_schema::StoreKind::Redb,
        _ => docsuggest_schema::StoreKind::Memory,
    };
    Ok(Summary::new(
        &stats,
        run.requests,
        run.errors,
        &run.judge_times,
        store,
    ))
}

/// The counts of a `stats` answer `after` less those of `before`.
#[cfg(unix)]
fn stats_between(
    before: &serde_json::Value,
    after: &serde_json::Value,
) -> docsuggest_engine::Stats {
    let count = |field: &str| {
        let n = |v: &serde_json::Value| v[field].as_u64().unwrap_or(0);
        n(after).saturating_sub(n(before))
    };
    let counts = |field: &str| -> BTreeMap<String, u64> {
        let Some(map) = after[field].as_object() else {
            return BTreeMap::new();
        };
        map.iter()
            .map(|(k, v)| {
                let was = before[field][k].as_u64().unwrap_or(0);
                (k.clone(), v.as_u64().unwrap_or(0).saturating_sub(was))
            })
            .filter(|(_, n)| *n > 0)
            .collect()
    };
    docsuggest_engine::Stats {
        judged: count("judged"),
        notes: count("notes"),
        accepted: count("accepted"),
        rejected: count("rejected"),
        abandoned: count("abandoned"),
        abstained: counts("abstained"),
        suppressed: counts("suppressed"),
    }
}
