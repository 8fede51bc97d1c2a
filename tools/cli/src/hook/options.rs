//! How one hook invocation runs: the [`Harness`] it answers, the daemon's socket beside which
//! its state sits, the store a daemon it starts opens, its time budget, the idle timeout of
//! that daemon, and what a Stop hook does about a change's missing companions ([`Boundary`]).

use super::transport::Daemon;
use docsuggest_host::daemon::default_socket;
use docsuggest_schema::beside::beside;
use std::path::PathBuf;
use std::time::Duration;

/// The harness whose hook events are read and answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Harness {
    /// Anthropic's Claude Code (`.claude/settings.json`).
    ClaudeCode,
    /// OpenAI's Codex CLI (`.codex/hooks.json`).
    Codex,
    /// GitHub Copilot CLI (`.github/hooks/docsuggest.json`).
    Copilot,
    /// Cursor (`.cursor/hooks.json`).
    Cursor,
    /// OpenCode (a plugin, `.opencode/plugins/docsuggest.js`, that runs the hook).
    OpenCode,
}

impl Harness {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "claude-code",
            Harness::Codex => "codex",
            Harness::Copilot => "copilot",
            Harness::Cursor => "cursor",
            Harness::OpenCode => "opencode",
        }
    }

    /// The harness's own name, for people.
    pub fn title(self) -> &'static str {
        match self {
            Harness::ClaudeCode => "Claude Code",
            Harness::Codex => "Codex",
            Harness::Copilot => "Copilot CLI",
            Harness::Cursor => "Cursor",
            Harness::OpenCode => "OpenCode",
        }
    }
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
    /// What a Stop hook does about companions the work tree's change lacks.
    pub boundary: Boundary,
    /// The `docsuggest` executable a daemon is started from (`None`: this executable; the
    /// lean `docsuggest-hook` names the `docsuggest` beside it).
    pub program: Option<PathBuf>,
    /// The event the hook command line names (`--event`), for payloads that do not name it.
    pub event: Option<String>,
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
            program: None,
            event: None,
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
            program: self.program.clone(),
        }
    }
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
