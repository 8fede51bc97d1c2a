//! The hook's command line, shared by `docsuggest hook` and the lean `docsuggest-hook` entry
//! point (one definition of the arguments, one way to run them): [`HookArgs`], [`run`], and
//! [`refused`] for a command line clap refuses (still exit 0: a hook never breaks its agent).

use super::{Boundary, Harness, HookOptions};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// `--harness`: the harness sending the event.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum HarnessArg {
    /// Claude Code.
    #[value(alias = "claude")]
    ClaudeCode,
    /// The Codex CLI.
    Codex,
    /// GitHub Copilot CLI.
    Copilot,
    /// Cursor.
    Cursor,
    /// OpenCode (through its plugin).
    #[value(name = "opencode")]
    OpenCode,
}

impl From<HarnessArg> for Harness {
    fn from(h: HarnessArg) -> Harness {
        match h {
            HarnessArg::ClaudeCode => Harness::ClaudeCode,
            HarnessArg::Codex => Harness::Codex,
            HarnessArg::Copilot => Harness::Copilot,
            HarnessArg::Cursor => Harness::Cursor,
            HarnessArg::OpenCode => Harness::OpenCode,
        }
    }
}

/// `--boundary`: what a Stop hook does about companions the work tree's change lacks.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum BoundaryArg {
    /// Keep the agent going once, with the reason.
    Remind,
    /// Only tell the user.
    Inform,
    /// Say nothing.
    Off,
}

impl From<BoundaryArg> for Boundary {
    fn from(b: BoundaryArg) -> Boundary {
        match b {
            BoundaryArg::Remind => Boundary::Remind,
            BoundaryArg::Inform => Boundary::Inform,
            BoundaryArg::Off => Boundary::Off,
        }
    }
}

/// The hook's arguments, the same for `docsuggest hook` and `docsuggest-hook`.
#[derive(Args)]
pub struct HookArgs {
    /// The harness sending the event.
    #[arg(long, value_enum, default_value = "claude-code")]
    harness: HarnessArg,
    /// The daemon's socket [default: ~/.dsh/playform/docsuggest.sock].
    #[arg(long, value_name = "PATH")]
    socket: Option<PathBuf>,
    /// The store of a daemon this hook starts [default: the config's storePath].
    #[arg(long, value_name = "PATH")]
    store: Option<PathBuf>,
    /// The most the hook keeps the agent waiting, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = super::DEFAULT_BUDGET.as_millis() as u64)]
    timeout_ms: u64,
    /// A daemon this hook starts stops after this many seconds without a request.
    #[arg(long, value_name = "SECS", default_value_t = super::DEFAULT_IDLE_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    idle_timeout: u64,
    /// When the agent stops and the work tree's change lacks companions: remind it once
    /// (the harness keeps it going with the reason), only tell the user, or say nothing.
    #[arg(long, value_enum, default_value = "remind")]
    boundary: BoundaryArg,
    /// The event, for harnesses whose payload does not name it (Copilot CLI's camelCase
    /// events: `postToolUse`, `agentStop`, …); a `hook_event_name` in the payload wins.
    #[arg(long, value_name = "NAME")]
    event: Option<String>,
}

/// Runs the event on stdin with `args`; a daemon it starts is `serve --socket` of `program`
/// (`None`: this executable). Never fails: the agent must not be held up or shown an error
/// by its hook.
pub fn run(args: &HookArgs, program: Option<PathBuf>) -> ExitCode {
    let mut options = HookOptions::new(args.harness.into());
    if let Some(socket) = &args.socket {
        options.socket = socket.clone();
    }
    options.store = args.store.clone();
    options.budget = Duration::from_millis(args.timeout_ms);
    options.idle_timeout = Duration::from_secs(args.idle_timeout);
    options.boundary = args.boundary.into();
    options.program = program;
    options.event = args.event.clone();
    if let Some(answer) = super::run_stdin(&options) {
        let _ = writeln!(std::io::stdout().lock(), "{answer}");
    }
    ExitCode::SUCCESS
}

/// A hook command line clap refuses: exit 0 with nothing on stdout (a hook must never break
/// its agent), saying why in one line on stderr (after `who`, the command) and in the hook
/// log. Help and version are printed as asked.
pub fn refused(error: clap::Error, who: &str) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        error.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
    ) {
        error.exit()
    }
    let text = error.to_string();
    let line = text.lines().next().unwrap_or_default();
    let detail = line.strip_prefix("error: ").unwrap_or(line);
    super::log_refused_arguments(detail);
    eprintln!("{who}: ignored the event: {detail}");
    ExitCode::SUCCESS
}
