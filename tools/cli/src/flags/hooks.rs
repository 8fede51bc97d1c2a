//! The harness's side: `hook` (one event, never an error to the agent), `install-hooks` and
//! `uninstall-hooks`.

use anyhow::{Result, bail};
use clap::Args;
use docsuggest_cli::hook::command::HookArgs;
use docsuggest_cli::hook::{self, install, install::Scope};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `install-hooks --harness`: a harness's hook config, or git's `pre-commit`.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InstallHarnessArg {
    #[value(alias = "claude")]
    ClaudeCode,
    Codex,
    /// GitHub Copilot CLI (`.github/hooks/docsuggest.json`).
    Copilot,
    /// Cursor (`.cursor/hooks.json`).
    Cursor,
    /// OpenCode (a plugin, `.opencode/plugins/docsuggest.js`).
    #[value(name = "opencode")]
    OpenCode,
    /// A `pre-commit` hook in the repository (`--project`), where git runs hooks.
    Git,
}

/// Which hook config `install-hooks` and `uninstall-hooks` edit, and whether only to show it.
#[derive(Args)]
pub struct ConfigArgs {
    /// The harness whose config is edited (`git`: the repository's `pre-commit` hook).
    #[arg(long, value_enum)]
    harness: InstallHarnessArg,
    /// The project's config (`DIR/.claude/settings.json`, `DIR/.codex/hooks.json`)
    /// [default: the current directory].
    #[arg(long, value_name = "DIR", conflicts_with = "user")]
    project: Option<PathBuf>,
    /// The user's config (`~/.claude/settings.json`, `~/.codex/hooks.json`).
    #[arg(long)]
    user: bool,
    /// Claude Code's personal project settings, `DIR/.claude/settings.local.json` (not
    /// committed) instead of `settings.json`.
    #[arg(long, conflicts_with = "user")]
    local: bool,
    /// Print the diff without writing.
    #[arg(long)]
    dry_run: bool,
}

/// `install-hooks`: the config, and the program its hooks run (`uninstall-hooks` has none).
#[derive(Args)]
pub struct InstallArgs {
    #[command(flatten)]
    config: ConfigArgs,
    /// The program the hooks run: `docsuggest` (the one on PATH) or an absolute path to pin
    /// [default: `docsuggest` when the one on PATH is this binary, else this binary's path].
    #[arg(long, value_name = "PATH")]
    command: Option<PathBuf>,
}

impl ConfigArgs {
    fn request(&self, command: Option<&Path>) -> Result<install::Request> {
        let scope = if self.user {
            let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
            let Some(home) = home else {
                bail!("--user needs HOME to find the user's config");
            };
            Scope::User(PathBuf::from(home))
        } else {
            let dir = match &self.project {
                Some(dir) => dir.clone(),
                None => std::env::current_dir()?,
            };
            Scope::Project(dir)
        };
        let harness = match self.harness {
            InstallHarnessArg::ClaudeCode => hook::Harness::ClaudeCode,
            InstallHarnessArg::Codex => hook::Harness::Codex,
            InstallHarnessArg::Copilot => hook::Harness::Copilot,
            InstallHarnessArg::Cursor => hook::Harness::Cursor,
            InstallHarnessArg::OpenCode => hook::Harness::OpenCode,
            InstallHarnessArg::Git => bail!("git's hook is not a harness config"),
        };
        Ok(install::Request {
            harness,
            scope,
            local: self.local,
            command: command.map(Path::to_path_buf),
            dry_run: self.dry_run,
        })
    }
}

/// `docsuggest install-hooks`.
pub fn install(args: &InstallArgs) -> Result<()> {
    edit(&args.config, args.command.as_deref(), true)
}

/// `docsuggest uninstall-hooks`.
pub fn uninstall(args: &ConfigArgs) -> Result<()> {
    edit(args, None, false)
}

/// Installs (`install`, running `command`) or uninstalls ours in the config `args` names.
fn edit(args: &ConfigArgs, command: Option<&Path>, install: bool) -> Result<()> {
    let report = if args.harness == InstallHarnessArg::Git {
        git_hook(args, command, install)?
    } else {
        let request = args.request(command)?;
        if install {
            install::install_hooks(&request)?
        } else {
            install::uninstall_hooks(&request)?
        }
    };
    let change = &report.change;
    if change.before.is_none() && change.after.is_none() {
        // Nothing there before and nothing after: not a file left unchanged.
        writeln!(
            std::io::stdout().lock(),
            "nothing to uninstall: there is no {}",
            change.path.display()
        )?;
        return notes(&report);
    }
    let verb = match (
        install,
        args.dry_run,
        change.changed(),
        change.after.is_some(),
    ) {
        (_, _, false, _) => "unchanged",
        (true, true, true, _) => "would install into",
        (false, true, true, true) => "would uninstall from",
        (false, true, true, false) => "would remove (it holds only ours)",
        (true, false, true, _) => "installed into",
        (false, false, true, true) => "uninstalled from",
        (false, false, true, false) => "removed (it held only ours)",
    };
    if args.dry_run && change.changed() {
        write!(std::io::stdout().lock(), "{}", change.diff())?;
    }
    writeln!(std::io::stdout().lock(), "{verb} {}", change.path.display())?;
    notes(&report)
}

fn notes(report: &install::Report) -> Result<()> {
    for note in &report.notes {
        eprintln!("docsuggest: {note}");
    }
    Ok(())
}

/// `install-hooks --harness git` and its uninstall: the repository's `pre-commit`.
fn git_hook(args: &ConfigArgs, command: Option<&Path>, install: bool) -> Result<install::Report> {
    if args.user || args.local {
        bail!("--harness git installs into a repository (--project DIR), not --user or --local");
    }
    let project = match &args.project {
        Some(dir) => dir.clone(),
        None => std::env::current_dir()?,
    };
    if install {
        let program = install::program(command)?;
        let change = install::git::install(&project, &program.word, args.dry_run)?;
        Ok(install::Report {
            change,
            notes: program.warning.into_iter().collect(),
        })
    } else {
        let (change, note) = install::git::uninstall(&project, args.dry_run)?;
        Ok(install::Report {
            change,
            notes: note.into_iter().collect(),
        })
    }
}

/// `docsuggest hook`: the event on stdin, answered through the daemon, which is this
/// executable's `serve --socket`.
pub fn hook(args: &HookArgs) -> ExitCode {
    hook::command::run(args, None)
}

/// A command line clap refuses: `hook`'s still exits 0 ([`hook::command::refused`]); any
/// other command's exits with clap's message and status.
pub fn refused(error: clap::Error) -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|a| a == "hook") {
        return hook::command::refused(error, "docsuggest hook");
    }
    error.exit()
}
