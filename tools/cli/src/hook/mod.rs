//! `docsuggest hook`: one Claude Code or Codex CLI hook event in, the harness's answer out.
//!
//! Each hook is a new process, so the engine lives in the user's socket daemon
//! (`serve --socket`), which the hook starts when none answers. The hook fails open: any
//! problem (bad input, an unknown event or tool, a daemon that cannot start or answer) ends
//! in silence and exit 0 within the time budget, with the reason appended to the hook log.
//!
//! ```
//! use docsuggest_cli::hook::{self, Harness};
//!
//! let answer = hook::output(Harness::ClaudeCode, "PostToolUse", &["Read the index too.".into()]);
//! assert_eq!(
//!     answer.as_deref(),
//!     Some(r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Read the index too."}}"#)
//! );
//! ```

pub mod event;
pub mod install;
pub mod patch;
pub mod transport;

use docsuggest_schema::beside::beside;
use event::{Action, Skip};
use serde_json::{Value, json};
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};
use transport::{Daemon, Transport, TransportError};

/// The harness whose hook events are read and answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harness {
    /// Anthropic's Claude Code (`.claude/settings.json`).
    ClaudeCode,
    /// OpenAI's Codex CLI (`.codex/hooks.json`).
    Codex,
}

impl Harness {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
        }
    }
}

pub use docsuggest_host::daemon::{STATE_DIR, default_socket};

/// The most a hook keeps the agent waiting.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(500);

/// The largest event the hook reads from stdin. A real event is a few KB (a `Write` carries
/// the file's content, so a large one can reach a few hundred KB); past this the hook stops
/// reading and stays silent.
pub const MAX_EVENT: usize = 4 << 20;

/// Remembered turn ids older than this are removed from `<socket>.turns/`.
pub const TURNS_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// At most this many remembered turn ids are kept (the newest).
pub const TURNS_MAX_FILES: usize = 1024;

/// How long a daemon the hook started keeps running without requests.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// How one hook invocation runs.
#[derive(Clone, Debug)]
pub struct HookOptions {
    /// The harness.
    pub harness: Harness,
    /// The daemon's socket; the hook log (`<socket>.log`), the daemon's stderr
    /// (`<socket>.daemon.log`) and the turn ids (`<socket>.turns/`) sit beside it.
    pub socket: PathBuf,
    /// The store a daemon started here opens (`None`: the config's storePath).
    pub store: Option<PathBuf>,
    /// The whole invocation's time budget.
    pub budget: Duration,
    /// The idle timeout of a daemon started here.
    pub idle_timeout: Duration,
    /// What a Stop hook does about companions the work tree's change lacks.
    pub boundary: Boundary,
}

impl HookOptions {
    /// The defaults for `harness`: the default socket, the configured store.
    pub fn new(harness: Harness) -> HookOptions {
        HookOptions {
            harness,
            socket: default_socket(),
            store: None,
            budget: DEFAULT_BUDGET,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            boundary: Boundary::Remind,
        }
    }

    /// The hook log, where every silence for a reason is recorded.
    pub fn log(&self) -> PathBuf {
        beside(&self.socket, ".log")
    }

    /// The daemon this hook connects to, or starts when none answers.
    pub fn daemon(&self) -> Daemon {
        Daemon {
            socket: self.socket.clone(),
            store: self.store.clone(),
            idle_timeout: self.idle_timeout,
            log: beside(&self.socket, ".daemon.log"),
        }
    }

    fn turns(&self) -> Turns {
        Turns(beside(&self.socket, ".turns"))
    }
}

/// Runs one event: answers what to print on stdout (`None`: nothing). Never fails; a reason
/// for silence goes to the hook log.
pub fn run(options: &HookOptions, input: &[u8]) -> Option<String> {
    run_until(options, input, Instant::now() + options.budget)
}

/// [`run`] on the event this process reads from stdin, as `docsuggest hook` does: files it
/// and the daemon it starts create are owner-only (umask `077`), and stdin is read within
/// the budget and up to [`MAX_EVENT`] (see [`read_event`]).
pub fn run_stdin(options: &HookOptions) -> Option<String> {
    let deadline = Instant::now() + options.budget;
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    match read_event(io::stdin(), deadline, MAX_EVENT) {
        Ok(input) => run_until(options, &input, deadline),
        Err(e) => {
            if state_dir(options).is_ok() {
                log(options, "bad-input", &e.to_string());
            }
            None
        }
    }
}

/// Why no event was read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// More than the limit arrived.
    #[error("the event is larger than {0} bytes; not read further")]
    TooLarge(usize),
    /// The budget ran out before the input closed or held a whole JSON value.
    #[error(
        "stdin neither closed nor held a whole JSON value within the hook's time budget ({0} bytes read)"
    )]
    Timeout(usize),
    /// Reading failed.
    #[error("reading stdin failed: {0}")]
    Read(io::Error),
}

/// Reads one event from `input` until end of input or until what arrived is one whole JSON
/// value (a harness may keep stdin open after writing the event), whichever comes first; gives
/// up at `deadline` or past `max` bytes. The reading happens on a thread of its own, left
/// blocked on a stdin that never closes: the process exits without it.
pub fn read_event<R: Read + Send + 'static>(
    mut input: R,
    deadline: Instant,
    max: usize,
) -> Result<Vec<u8>, InputError> {
    let (sender, chunks) = mpsc::sync_channel::<io::Result<Vec<u8>>>(4);
    let reader = std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let mut read = 0usize;
            loop {
                let mut chunk = vec![0; 64 << 10];
                let chunk = match input.read(&mut chunk) {
                    Ok(n) => {
                        chunk.truncate(n);
                        Ok(chunk)
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let end = !matches!(&chunk, Ok(c) if !c.is_empty());
                read += chunk.as_ref().map_or(0, Vec::len);
                // Past the limit nothing more is read: the receiver stops at it.
                if sender.send(chunk).is_err() || end || read > max {
                    return;
                }
            }
        });
    if let Err(e) = reader {
        return Err(InputError::Read(e));
    }
    let mut event = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match chunks.recv_timeout(left) {
            Ok(Ok(chunk)) if chunk.is_empty() => return Ok(event),
            Ok(Ok(chunk)) => {
                event.extend_from_slice(&chunk);
                if event.len() > max {
                    return Err(InputError::TooLarge(max));
                }
                if whole_json(&event) {
                    return Ok(event);
                }
            }
            Ok(Err(e)) => return Err(InputError::Read(e)),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(event),
            Err(mpsc::RecvTimeoutError::Timeout) => return Err(InputError::Timeout(event.len())),
        }
    }
}

/// Whether `bytes` hold exactly one JSON object (the shape of every event), tried only when
/// the last byte that is not white space closes one.
fn whole_json(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .rev()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'}')
        && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}

fn run_until(options: &HookOptions, input: &[u8], deadline: Instant) -> Option<String> {
    // Nothing is written (not even the log) where the state directory is not ours alone.
    if state_dir(options).is_err() {
        return None;
    }
    let action = match event::parse(input) {
        Ok(action) => action,
        Err(skip) => {
            // Events and tools the hook was not installed for are expected; only say so.
            let quiet = matches!(skip, Skip::UnknownEvent(_) | Skip::UnknownTool(_));
            log(
                options,
                if quiet { "skip" } else { "bad-input" },
                &skip.to_string(),
            );
            return None;
        }
    };
    // A daemon that goes away under the hook (killed, or stopping as it idled out) is asked
    // once more, through the next one, while the budget lasts.
    let mut attempts = 0;
    loop {
        attempts += 1;
        match ask(options, &action, deadline) {
            Asked::Answer(output) => return output,
            Asked::Gone(e) if attempts < 2 && Instant::now() < deadline => {
                log(options, "retry", &e.to_string());
            }
            Asked::Gone(e) => {
                log(options, "failed", &e.to_string());
                return None;
            }
        }
    }
}

/// What one attempt to answer an event came to.
enum Asked {
    /// The hook's output (`None`: silent, the reason logged).
    Answer(Option<String>),
    /// The daemon went away mid-request: nothing was answered.
    Gone(TransportError),
}

/// Whether `e` says the daemon went away under the request (its process ended).
fn daemon_gone(e: &TransportError) -> bool {
    use docsuggest_host::client::ClientError;
    match e {
        TransportError::Client(ClientError::Hangup) => true,
        TransportError::Client(ClientError::Io(io)) => matches!(
            io.kind(),
            std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::BrokenPipe
                | std::io::ErrorKind::UnexpectedEof
        ),
        _ => false,
    }
}

/// Connects to the daemon (starting one when none runs) and answers `action` through it.
fn ask(options: &HookOptions, action: &Action, deadline: Instant) -> Asked {
    let mut connected = match transport::connect_or_start(&options.daemon(), deadline) {
        Ok(connected) => connected,
        Err(e @ TransportError::Client(docsuggest_host::client::ClientError::Untrusted { .. })) => {
            log(options, "untrusted", &e.to_string());
            return Asked::Answer(None);
        }
        Err(e) => {
            log(options, "no-daemon", &e.to_string());
            return Asked::Answer(None);
        }
    };
    if let Some(pid) = connected.started {
        log(
            options,
            "started",
            &format!("daemon pid {pid} on {}", options.socket.display()),
        );
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if let Err(e) = connected
        .client
        .set_timeout(Some(left.max(Duration::from_millis(1))))
    {
        log(options, "no-daemon", &e.to_string());
        return Asked::Answer(None);
    }
    // The connection is dropped, not closed: `close` would flush (an fsync) on every call,
    // and the daemon flushes on its own interval anyway.
    match answer(
        options.harness,
        action,
        &mut connected.client,
        &options.turns(),
        options.boundary,
    ) {
        Ok(output) => Asked::Answer(output),
        Err(e) if daemon_gone(&e) => Asked::Gone(e),
        Err(e) => {
            log(options, "failed", &e.to_string());
            Asked::Answer(None)
        }
    }
}

/// Sends `action` to the engine and answers the hook's stdout.
pub fn answer(
    harness: Harness,
    action: &Action,
    engine: &mut dyn Transport,
    turns: &Turns,
    boundary: Boundary,
) -> Result<Option<String>, TransportError> {
    match action {
        Action::Turn { agent, turn_id } => {
            engine.request(json!({"op": "turn", "agent": agent}))?;
            if let Some(id) = turn_id {
                turns.remember(agent, id);
            }
            Ok(None)
        }
        Action::Flush => {
            engine.request(json!({"op": "flush"}))?;
            Ok(None)
        }
        Action::Stop { agent, cwd, active } => {
            // An event without `cwd` (older Claude Code builds sent none on Stop): the
            // project directory the harness runs its hooks for.
            let cwd = cwd
                .clone()
                .or_else(|| std::env::var("CLAUDE_PROJECT_DIR").ok());
            // Only a reminder the agent reads is learned from: its boundary agent names what
            // the turn lacks, and the stop after it settles what the agent then added.
            let learn_as = agent
                .as_deref()
                .filter(|_| boundary == Boundary::Remind)
                .map(boundary_agent);
            let mut ask = |request: &Value| {
                engine
                    .request(request.clone())
                    .map_err(|e| crate::check_change::CheckError::Ask(e.to_string()))
            };
            let work_tree = crate::check_change::ChangeSet::WorkTree;
            let note = match (cwd, *active || boundary == Boundary::Off) {
                (Some(cwd), true) => {
                    if let Some(agent) = &learn_as {
                        // The change since the reminder's commit: what the agent committed
                        // after the reminder is part of what it did about it.
                        let since = turns
                            .recall(agent)
                            .map_or(work_tree, crate::check_change::ChangeSet::Since);
                        // What cannot be settled is not: a stop is never held up.
                        let settled =
                            crate::check_change::settle(Path::new(&cwd), &since, agent, ask);
                        if let Err(e) = settled {
                            tracing::debug!(error = %e, "the boundary was not settled");
                        }
                    }
                    None
                }
                (Some(cwd), false) => {
                    let checked = crate::check_change::check_with(
                        Path::new(&cwd),
                        &work_tree,
                        Instant::now(),
                        learn_as.as_deref(),
                        &mut ask,
                    );
                    // What cannot be checked is not said: a stop is never held up by it.
                    let reminder = checked.ok().and_then(|report| report.at_stop());
                    if let (Some(agent), Some(_)) = (&learn_as, &reminder) {
                        match crate::check_change::head(Path::new(&cwd)) {
                            Some(head) => turns.remember(agent, &head),
                            None => turns.forget(agent),
                        }
                    }
                    reminder
                }
                (None, _) => None,
            };
            engine.request(json!({"op": "flush"}))?;
            Ok(note.map(|text| at_stop(boundary, &text)))
        }
        Action::Judge {
            agent,
            cwd,
            turn_id,
            calls,
        } => {
            // Codex starts a turn with a new turn id, which may arrive before any prompt hook.
            if let Some(id) = turn_id
                && turns.is_new(agent, id)
            {
                engine.request(json!({"op": "turn", "agent": agent}))?;
                turns.remember(agent, id);
            }
            let mut notes = Vec::new();
            for call in calls {
                let answer = engine.request(json!({
                    "op": "judge", "agent": agent, "tool": call.tool, "path": call.path, "cwd": cwd,
                }))?;
                if let Some(text) = answer["note"]["text"].as_str() {
                    notes.push(text.to_string());
                }
            }
            Ok(output(harness, "PostToolUse", &notes))
        }
        Action::Commit { cwd } => {
            // No wait for a pack being mined: a hook answers within its budget.
            let checked = crate::check_change::check_with(
                Path::new(cwd),
                &crate::check_change::ChangeSet::Staged,
                Instant::now(),
                None,
                |request| {
                    engine
                        .request(request.clone())
                        .map_err(|e| crate::check_change::CheckError::Ask(e.to_string()))
                },
            );
            // A commit is never held up: what cannot be checked is not said.
            let note = checked.ok().and_then(|report| report.before_commit());
            Ok(note.and_then(|text| output(harness, "PreToolUse", &[text])))
        }
    }
}

/// The agent a session's change boundaries speak for: its own, so a boundary's notes are
/// settled only by the session's next boundary, never by its calls.
fn boundary_agent(session: &str) -> String {
    format!("{session}/boundary")
}

/// What a Stop hook does about companions the work tree's change lacks (`--boundary`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Boundary {
    /// Keep the agent going once, with the reason (the harness's own way), unless it already
    /// went on from a stop hook.
    #[default]
    Remind,
    /// Only tell the user.
    Inform,
    /// Say nothing.
    Off,
}

/// A Stop hook's answer: the harness's documented way to keep the agent going with a reason
/// (`remind`), or a message for the user alone (`inform`).
fn at_stop(boundary: Boundary, text: &str) -> String {
    match boundary {
        Boundary::Remind => json!({"decision": "block", "reason": text}).to_string(),
        Boundary::Inform | Boundary::Off => json!({"systemMessage": text}).to_string(),
    }
}

/// The harness's answer carrying `notes` as additional context; `None` without notes.
pub fn output(harness: Harness, event: &str, notes: &[String]) -> Option<String> {
    if notes.is_empty() {
        return None;
    }
    // Both harnesses read the same shape (Codex's post-tool-use output schema copies it).
    let _ = harness;
    // Written by hand to keep the documented key order; the strings are JSON-escaped.
    let quote = |s: &str| Value::from(s).to_string();
    Some(format!(
        r#"{{"hookSpecificOutput":{{"hookEventName":{},"additionalContext":{}}}}}"#,
        quote(event),
        quote(&notes.join("\n\n"))
    ))
}

/// The last turn id seen per agent, one small file each, so a turn starts once per id
/// across hook processes.
pub struct Turns(pub PathBuf);

impl Turns {
    fn file(&self, agent: &str) -> PathBuf {
        // Session ids are UUIDs; anything else is hex-encoded to stay one safe file name.
        let safe = !agent.is_empty()
            && agent.len() <= 128
            && agent
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        let name = if safe {
            agent.to_string()
        } else {
            agent.bytes().take(64).map(|b| format!("{b:02x}")).collect()
        };
        self.0.join(name)
    }

    /// What was last remembered for `agent` (`None`: nothing, or unreadable).
    fn recall(&self, agent: &str) -> Option<String> {
        let mut last = String::new();
        private_file(&self.file(agent), Open::Read)
            .and_then(|mut file| file.read_to_string(&mut last))
            .ok()?;
        Some(last).filter(|l| !l.is_empty())
    }

    /// Forgets what was remembered for `agent`.
    fn forget(&self, agent: &str) {
        let _ = std::fs::remove_file(self.file(agent));
    }

    fn is_new(&self, agent: &str, turn_id: &str) -> bool {
        let mut last = String::new();
        let read = private_file(&self.file(agent), Open::Read)
            .and_then(|mut file| file.read_to_string(&mut last));
        read.is_err() || last != turn_id
    }

    fn remember(&self, agent: &str, turn_id: &str) {
        // Losing this only costs one extra turn reset at the next tool call.
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&self.0);
        match std::fs::symlink_metadata(&self.0) {
            Ok(meta) if meta.is_dir() && meta.uid() == rustix::process::geteuid().as_raw() => {}
            _ => return,
        }
        if let Ok(mut file) = private_file(&self.file(agent), Open::Truncate) {
            let _ = file.write_all(turn_id.as_bytes());
        }
        self.prune(SystemTime::now());
    }

    /// Removes the turn ids older than [`TURNS_MAX_AGE`], then the oldest past
    /// [`TURNS_MAX_FILES`].
    pub fn prune(&self, now: SystemTime) {
        let Ok(entries) = std::fs::read_dir(&self.0) else {
            return;
        };
        let mut kept = Vec::new();
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            let modified = meta.modified().unwrap_or(now);
            if now.duration_since(modified).unwrap_or_default() > TURNS_MAX_AGE {
                let _ = std::fs::remove_file(entry.path());
            } else {
                kept.push((modified, entry.path()));
            }
        }
        if kept.len() > TURNS_MAX_FILES {
            kept.sort();
            for (_, path) in &kept[..kept.len() - TURNS_MAX_FILES] {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

/// How [`private_file`] opens.
#[derive(Clone, Copy)]
pub(crate) enum Open {
    Read,
    Append,
    Truncate,
    /// Created if missing, its content left alone (a lock).
    Keep,
}

/// Opens a file in the state directory: never through a symlink (`O_NOFOLLOW`), created
/// owner-only (`0600`).
pub(crate) fn private_file(path: &Path, how: Open) -> io::Result<File> {
    let mut options = OpenOptions::new();
    match how {
        Open::Read => options.read(true),
        Open::Append => options.append(true).create(true),
        Open::Truncate => options.write(true).truncate(true).create(true),
        Open::Keep => options.write(true).truncate(false).create(true),
    };
    options
        .mode(0o600)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

/// Makes sure the socket's directory is this user's alone before anything is written there:
/// created `0700` if missing; refused if it belongs to another user or others may write to it.
/// The default state directory, which earlier versions made `0755`, is narrowed to `0700`.
pub fn state_dir(options: &HookOptions) -> Result<PathBuf, String> {
    let dir = match options.socket.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let meta = match std::fs::metadata(&dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(&dir)
                .map_err(|e| format!("creating {}: {e}", dir.display()))?;
            std::fs::metadata(&dir).map_err(|e| format!("{}: {e}", dir.display()))?
        }
        Err(e) => return Err(format!("{}: {e}", dir.display())),
    };
    let me = rustix::process::geteuid().as_raw();
    if !meta.is_dir() {
        return Err(format!("{} is not a directory", dir.display()));
    }
    if meta.uid() != me {
        return Err(format!(
            "{} is owned by uid {}, not {me}",
            dir.display(),
            meta.uid()
        ));
    }
    let default = default_socket();
    if meta.mode() & 0o077 != 0 && Some(dir.as_path()) == default.parent() {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("narrowing {}: {e}", dir.display()))?;
    } else if meta.mode() & 0o022 != 0 {
        return Err(format!("{} is writable by other users", dir.display()));
    }
    Ok(dir)
}

/// Records a `hook` command line that could not be used (`bad-arguments`) in the default
/// hook log, since a harness may show nobody the hook's stderr.
pub fn log_refused_arguments(detail: &str) {
    let options = HookOptions::new(Harness::ClaudeCode);
    if state_dir(&options).is_ok() {
        append_log(&options, "-", "bad-arguments", detail);
    }
}

/// Appends one line to the hook log; a log that cannot be written is given up on silently,
/// since the agent must never wait for it.
fn log(options: &HookOptions, kind: &str, detail: &str) {
    append_log(options, options.harness.name(), kind, detail);
}

fn append_log(options: &HookOptions, harness: &str, kind: &str, detail: &str) {
    let secs = SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let line = format!("{} hook {harness} {kind}: {detail}\n", rfc3339(secs));
    if let Ok(mut file) = private_file(&options.log(), Open::Append) {
        let _ = file.write_all(line.as_bytes());
    }
}

/// `secs` after the Unix epoch as an RFC 3339 UTC time to the second,
/// `2026-12-03T01:48:41Z` (jiff's formatting; past year 9999, `@<secs>`). The one formatter
/// of the hook log and the bench reports.
pub fn rfc3339(secs: u64) -> String {
    i64::try_from(secs)
        .ok()
        .and_then(|secs| jiff::Timestamp::from_second(secs).ok())
        .map_or_else(|| format!("@{secs}"), |t| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::{TransportError, daemon_gone, rfc3339};

    #[test]
    fn only_a_daemon_that_went_away_is_asked_again() {
        use docsuggest_host::client::ClientError;
        use std::io::{Error, ErrorKind};
        let io = |kind| TransportError::Client(ClientError::Io(Error::from(kind)));
        for kind in [
            ErrorKind::ConnectionReset,
            ErrorKind::BrokenPipe,
            ErrorKind::UnexpectedEof,
        ] {
            assert!(daemon_gone(&io(kind)), "{kind:?}");
        }
        assert!(daemon_gone(&TransportError::Client(ClientError::Hangup)));
        // Slow, refused or garbled answers come from a daemon that is there: not asked again.
        assert!(!daemon_gone(&io(ErrorKind::TimedOut)));
        assert!(!daemon_gone(&io(ErrorKind::WouldBlock)));
        let refused = TransportError::Client(ClientError::Refused {
            code: "invalid-request".into(),
            detail: String::new(),
        });
        assert!(!daemon_gone(&refused));
    }

    #[test]
    fn log_times_are_rfc3339_utc() {
        for (secs, expect) in [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_709_294_400, "2024-03-01T12:00:00Z"),
            (1_796_262_521, "2026-12-03T01:48:41Z"),
            (4_102_444_799, "2099-12-31T23:59:59Z"),
        ] {
            assert_eq!(rfc3339(secs), expect, "{secs}");
        }
    }
}
