//! `docsuggest hook`: one Claude Code or Codex CLI hook event in, the harness's answer out.
//!
//! Each hook is a new process, so the engine lives in the user's socket daemon
//! (`serve --socket`), which the hook starts when none answers. The hook fails open: any
//! problem (bad input, an unknown event or tool, a daemon that cannot start or answer) ends
//! in silence and exit 0 within the time budget, with the reason appended to the hook log.
//!
//! ```
//! use docsuggest_tools::hook::{self, Harness};
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

use crate::home;
use event::{Action, Skip};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
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

/// The state directory: the socket, the hook log and the remembered turn ids live here.
pub const STATE_DIR: &str = "~/.dsh/playform";

/// The default socket of the user's daemon.
pub fn default_socket() -> PathBuf {
    home::expand(&format!("{STATE_DIR}/docsuggest.sock"))
}

/// The most a hook keeps the agent waiting.
pub const DEFAULT_BUDGET: Duration = Duration::from_millis(500);

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
        }
    }

    /// The hook log, where every silence for a reason is recorded.
    pub fn log(&self) -> PathBuf {
        beside(&self.socket, ".log")
    }

    fn daemon(&self) -> Daemon {
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
    let started = Instant::now();
    let deadline = started + options.budget;
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
    let mut connected = match transport::connect_or_start(&options.daemon(), deadline) {
        Ok(connected) => connected,
        Err(e) => {
            log(options, "no-daemon", &e.to_string());
            return None;
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
        return None;
    }
    // The connection is dropped, not closed: `close` would flush (an fsync) on every call,
    // and the daemon flushes on its own interval anyway.
    match answer(
        options.harness,
        &action,
        &mut connected.client,
        &options.turns(),
    ) {
        Ok(output) => output,
        Err(e) => {
            log(options, "failed", &e.to_string());
            None
        }
    }
}

/// Sends `action` to the engine and answers the hook's stdout.
pub fn answer(
    harness: Harness,
    action: &Action,
    engine: &mut dyn Transport,
    turns: &Turns,
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

    fn is_new(&self, agent: &str, turn_id: &str) -> bool {
        std::fs::read_to_string(self.file(agent)).map_or(true, |last| last != turn_id)
    }

    fn remember(&self, agent: &str, turn_id: &str) {
        // Losing this only costs one extra turn reset at the next tool call.
        let _ = std::fs::create_dir_all(&self.0);
        let _ = std::fs::write(self.file(agent), turn_id);
    }
}

fn beside(socket: &Path, suffix: &str) -> PathBuf {
    let mut name = socket.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Appends one line to the hook log; a log that cannot be written is given up on silently,
/// since the agent must never wait for it.
fn log(options: &HookOptions, kind: &str, detail: &str) {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let line = format!("{secs} hook {} {kind}: {detail}\n", options.harness.name());
    let path = options.log();
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = file.write_all(line.as_bytes());
    }
}
