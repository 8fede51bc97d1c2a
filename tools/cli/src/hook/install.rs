//! `install-hooks` / `uninstall-hooks`: our entries in a harness's hook config, merged in or
//! taken out without disturbing anything else in the file.
//!
//! Both harnesses use the same layout: `{"hooks": {"<Event>": [{"matcher": "..", "hooks":
//! [{"type": "command", "command": ".."}]}]}}`, Claude Code in `.claude/settings.json` (or
//! `settings.local.json`), Codex in `.codex/hooks.json`. A handler is ours when its command
//! runs a `docsuggest` executable with the `hook` subcommand. The file is edited as text
//! ([`entries`]): ours are appended after everything else in the file's own indentation, and
//! every other byte stays as it was, so uninstalling after installing gives back the file
//! byte for byte, and removes a file that installing created.

pub mod codex_features;
mod diff;
mod edit;
pub mod entries;
pub mod flat;
pub mod git;
pub mod opencode;
pub mod plugin_command;
mod spans;
pub mod stage;

use super::Harness;
pub use entries::{events, fresh, hooks_value, is_ours};
use std::ffi::OsStr;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Where the hook config lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The project in this directory.
    Project(PathBuf),
    /// The user's own config under `home`.
    User(PathBuf),
}

impl Scope {
    /// The directory the config lives under, and that nothing it leads to may leave.
    pub fn root(&self) -> &Path {
        let (Scope::Project(root) | Scope::User(root)) = self;
        root
    }
}

impl std::fmt::Display for Scope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scope::Project(root) => write!(f, "the project {}", root.display()),
            Scope::User(home) => write!(f, "the home directory {}", home.display()),
        }
    }
}

/// Why the config could not be changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InstallError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not JSON of the expected shape; it is left untouched.
    #[error("{path} is not a hook config this command can edit ({why}); fix or move it first")]
    Shape {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// The project (or home) directory does not exist; nothing is created.
    #[error("{path} is not an existing directory; nothing was written")]
    NoDirectory {
        /// The directory.
        path: String,
    },
    /// The file is not a regular file (a link where none may be followed, a FIFO, a
    /// directory, …); it is left as it is.
    #[error("{path} is {what}, not a regular file; it is left as it is")]
    NotRegular {
        /// The file.
        path: String,
        /// What it is.
        what: String,
    },
    /// The file may not be written; it is left as it is.
    #[error(
        "{path} is read-only; it is left as it is (make it writable to let this command edit it)"
    )]
    ReadOnly {
        /// The file.
        path: String,
    },
    /// The file, or a directory on the way to it, is a link leading out of the scope's
    /// directory; nothing is written.
    #[error(
        "{path} leads to {target}, outside {scope}; it is left as it is (edit that file yourself, or replace the link)"
    )]
    Outside {
        /// The file as the command names it.
        path: String,
        /// Where its links lead.
        target: String,
        /// The project or home directory it leaves.
        scope: String,
    },
    /// `--local` names Claude Code's `settings.local.json`; the other harnesses have no
    /// such file.
    #[error("--local is Claude Code's .claude/settings.local.json; {harness} reads only {file}")]
    LocalIsClaudeOnly {
        /// The harness asked for.
        harness: &'static str,
        /// Its one config file.
        file: String,
    },
    /// The program given to run the hooks cannot be used.
    #[error("--command {command}: {why}")]
    Command {
        /// The program as given.
        command: String,
        /// Why not.
        why: String,
    },
}

/// One `install-hooks` or `uninstall-hooks` request.
#[derive(Clone, Debug)]
pub struct Request {
    /// The harness whose config is edited.
    pub harness: Harness,
    /// The project's config or the user's.
    pub scope: Scope,
    /// Claude Code's `settings.local.json` instead of `settings.json`.
    pub local: bool,
    /// The program the hooks run (install only; `None`: see [`program`]).
    pub command: Option<PathBuf>,
    /// Only say what would change.
    pub dry_run: bool,
}

/// What a request did, and what the user should know about it.
#[derive(Clone, Debug)]
pub struct Report {
    /// The change of the config file.
    pub change: Change,
    /// Warnings and notes, one line each.
    pub notes: Vec<String>,
}

/// What an install or uninstall did (or, dry, would do).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The config file.
    pub path: PathBuf,
    /// Its text before (`None`: there was no file).
    pub before: Option<String>,
    /// Its text after (`None`: no file is left).
    pub after: Option<String>,
}

impl Change {
    /// Whether the file changes.
    pub fn changed(&self) -> bool {
        self.before != self.after
    }

    /// A line diff of the change (`-` removed, `+` added, two lines of context).
    pub fn diff(&self) -> String {
        let name = |text: &Option<String>| match text {
            Some(_) => self.path.display().to_string(),
            None => "/dev/null".into(),
        };
        let mut out = format!("--- {}\n+++ {}\n", name(&self.before), name(&self.after));
        out.push_str(&diff::line_diff(
            self.before.as_deref().unwrap_or_default(),
            self.after.as_deref().unwrap_or_default(),
        ));
        out
    }
}

/// Installs ours for `request.harness` into its config: the file and its directory are
/// created when missing, the project directory never.
pub fn install_hooks(request: &Request) -> Result<Report, InstallError> {
    let path = config_file(request.harness, &request.scope, request.local)?;
    let program = program(request.command.as_deref())?;
    let command = command(&program, request.harness);
    let change = install(
        &path,
        &request.scope,
        request.harness,
        &command,
        request.dry_run,
    )?;
    let mut notes: Vec<String> = program.warning.into_iter().collect();
    if request.harness == Harness::Codex {
        notes.extend(codex_note(&request.scope));
    }
    if request.harness == Harness::Copilot {
        notes.extend(copilot_note(&request.scope));
    }
    Ok(Report { change, notes })
}

/// Takes ours out of the config `request` names.
pub fn uninstall_hooks(request: &Request) -> Result<Report, InstallError> {
    let path = config_file(request.harness, &request.scope, request.local)?;
    Ok(Report {
        change: uninstall(&path, &request.scope, request.harness, request.dry_run)?,
        notes: Vec::new(),
    })
}

/// The hook config file of `harness` in `scope`.
pub fn config_path(harness: Harness, scope: &Scope) -> PathBuf {
    let (dir, file) = match harness {
        Harness::ClaudeCode => (".claude", "settings.json"),
        Harness::Codex => (".codex", "hooks.json"),
        Harness::Copilot => (".github/hooks", "docsuggest.json"),
        Harness::Cursor => (".cursor", "hooks.json"),
        Harness::OpenCode => (".opencode/plugins", "docsuggest.js"),
    };
    match scope {
        Scope::Project(root) | Scope::User(root) => root.join(dir).join(file),
    }
}

/// The hook config file a request edits, after checking that its project (or home)
/// directory exists: a mistyped `--project` must not become a new directory tree.
pub fn config_file(harness: Harness, scope: &Scope, local: bool) -> Result<PathBuf, InstallError> {
    let root = scope.root();
    if !root.is_dir() {
        return Err(InstallError::NoDirectory {
            path: root.display().to_string(),
        });
    }
    let path = config_path(harness, scope);
    match (local, harness) {
        (false, _) => Ok(path),
        (true, Harness::ClaudeCode) => Ok(path.with_file_name("settings.local.json")),
        (true, other) => Err(InstallError::LocalIsClaudeOnly {
            harness: other.title(),
            file: config_path(other, &Scope::Project(PathBuf::new()))
                .display()
                .to_string(),
        }),
    }
}

/// The lean hook entry point installed beside `docsuggest` (cargo, the wheel and the npm
/// package all install it): what an installed hook runs when it is there.
pub const LEAN_HOOK: &str = "docsuggest-hook";

/// The program word of our hook command, and a warning when it is not the plain name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Program {
    /// The first word of the command line, shell-quoted.
    pub word: String,
    /// Why the hooks run something else than the `docsuggest` on PATH, when they do.
    pub warning: Option<String>,
    /// The word of the lean entry point beside that `docsuggest` (`docsuggest-hook`, or its
    /// path), when one is there: a hook then starts a smaller process.
    pub lean: Option<String>,
}

/// The program our hooks run. `pinned` is `--command`: the bare name `docsuggest` (the one
/// on the harness's PATH) or an absolute path to a `docsuggest` executable. Without it, the
/// plain name `docsuggest` when the one on PATH is this binary (settings files are committed;
/// a build path is of no use on another machine), else this binary's absolute path, with a
/// warning.
pub fn program(pinned: Option<&Path>) -> Result<Program, InstallError> {
    let exe = std::env::current_exe().map_err(|e| InstallError::Io {
        path: "the running docsuggest".into(),
        source: e,
    })?;
    program_in(pinned, &exe, std::env::var_os("PATH").as_deref())
}

fn program_in(
    pinned: Option<&Path>,
    exe: &Path,
    path_var: Option<&OsStr>,
) -> Result<Program, InstallError> {
    let on_path = first_on_path("docsuggest", path_var);
    if let Some(pinned) = pinned {
        let refuse = |why: &str| InstallError::Command {
            command: pinned.display().to_string(),
            why: why.into(),
        };
        if pinned == Path::new("docsuggest") {
            let warning = on_path.is_none().then(|| {
                "docsuggest is not on PATH here; the hooks do nothing until it is".to_string()
            });
            return Ok(Program {
                word: "docsuggest".into(),
                warning,
                lean: lean_on_path(on_path.as_deref(), path_var),
            });
        }
        if !pinned.is_absolute() {
            return Err(refuse(
                "give an absolute path, or the bare name docsuggest for the one on PATH",
            ));
        }
        if pinned.file_name() != Some(OsStr::new("docsuggest")) {
            return Err(refuse(
                "the program must be named docsuggest (uninstall-hooks recognises its hooks by that name)",
            ));
        }
        if !is_executable(pinned) {
            return Err(refuse("no executable file there"));
        }
        return Ok(Program {
            word: shell_quote(&pinned.display().to_string()),
            warning: None,
            lean: lean_beside(pinned),
        });
    }
    let exe_word = shell_quote(&exe.display().to_string());
    match on_path {
        Some(found) if same_file(&found, exe) => Ok(Program {
            word: "docsuggest".into(),
            warning: None,
            lean: lean_on_path(Some(&found), path_var),
        }),
        Some(found) => Ok(Program {
            lean: lean_beside(exe),
            word: exe_word,
            warning: Some(format!(
                "warning: the docsuggest on PATH ({}) is not this binary, so the hooks run {} by its path; --command docsuggest writes the one on PATH instead",
                found.display(),
                exe.display()
            )),
        }),
        None => Ok(Program {
            lean: lean_beside(exe),
            word: exe_word,
            warning: Some(format!(
                "warning: docsuggest is not on PATH, so the hooks run {} by its path; put it on PATH (cargo install --locked --path tools/cli) and install again, or pin a path with --command",
                exe.display()
            )),
        }),
    }
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.mode() & 0o111 != 0)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// The lean entry point beside `docsuggest` (a path to it, shell-quoted), when there.
fn lean_beside(docsuggest: &Path) -> Option<String> {
    let lean = docsuggest.parent()?.join(LEAN_HOOK);
    is_executable(&lean).then(|| shell_quote(&lean.display().to_string()))
}

/// The bare name `docsuggest-hook`, when the first one on PATH sits beside `found`, the
/// `docsuggest` on PATH (the pair one install put there, not another version's).
fn lean_on_path(found: Option<&Path>, path_var: Option<&OsStr>) -> Option<String> {
    let dir = found?.parent()?;
    let lean = first_on_path(LEAN_HOOK, path_var)?;
    (lean.parent() == Some(dir)).then(|| LEAN_HOOK.to_string())
}

/// The executable `name` the shell would run from `path_var` (its absolute entries only).
fn first_on_path(name: &str, path_var: Option<&OsStr>) -> Option<PathBuf> {
    std::env::split_paths(path_var?)
        .filter(|dir| dir.is_absolute())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
}

/// The hook command for `harness`: the lean entry point when `program` has one beside it,
/// else `docsuggest hook`.
pub fn command(program: &Program, harness: Harness) -> String {
    match &program.lean {
        Some(lean) => format!("{lean} --harness {}", harness.name()),
        None => format!("{} hook --harness {}", program.word, harness.name()),
    }
}

/// A note when Copilot CLI will run ours twice: it runs the project's Claude Code hooks as
/// well as its own, so a project with both gets every note twice.
fn copilot_note(scope: &Scope) -> Option<String> {
    let claude = config_path(Harness::ClaudeCode, scope);
    let text = stage::read_linked(&claude).ok()?;
    let value = serde_json::from_str::<serde_json::Value>(&text).ok()?;
    let ours = value
        .get("hooks")
        .and_then(serde_json::Value::as_object)?
        .values()
        .filter_map(serde_json::Value::as_array)
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(serde_json::Value::as_array))
        .flatten()
        .any(|h| {
            h.get("command")
                .and_then(serde_json::Value::as_str)
                .is_some_and(is_ours)
        });
    ours.then(|| {
        format!(
            "note: Copilot CLI also runs the Claude Code hooks in {}, so with both every note arrives twice; uninstall one of them (uninstall-hooks --harness claude-code) if the project is used with Copilot CLI only",
            claude.display()
        )
    })
}

/// A note when Codex may not run hooks: its `config.toml` (the user's, `$CODEX_HOME` or
/// `~/.codex`, then the project's) turns them off, or does not set the feature that releases
/// before hooks were on by default need.
pub fn codex_note(scope: &Scope) -> Option<String> {
    use codex_features::{HooksFlag, hooks_flag};
    let home = std::env::var_os("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".codex"))
        });
    let mut files: Vec<PathBuf> = home.into_iter().map(|h| h.join("config.toml")).collect();
    if let Scope::Project(root) = scope {
        files.push(root.join(".codex/config.toml"));
    }
    let mut flag = (HooksFlag::Unset, None);
    for file in &files {
        let text = stage::read_linked(file).unwrap_or_default();
        match hooks_flag(&text) {
            HooksFlag::Unset => {}
            set => flag = (set, Some(file)),
        }
    }
    let user = files
        .first()
        .map_or("~/.codex/config.toml".into(), |f| f.display().to_string());
    match flag {
        (HooksFlag::On, _) => None,
        (HooksFlag::Off, file) => Some(format!(
            "warning: Codex runs no hooks: its hooks feature is false in {}; set `hooks = true` under [features] there",
            file.map_or(user, |f| f.display().to_string())
        )),
        (HooksFlag::Unset, _) => Some(format!(
            "note: Codex releases before hooks were on by default run them only with `codex_hooks = true` under [features] in {user}, which is not set there (this command leaves that file alone)"
        )),
    }
}

/// Installs ours into the config at `path` in `scope` (written unless `dry_run`).
pub fn install(
    path: &Path,
    scope: &Scope,
    harness: Harness,
    command: &str,
    dry_run: bool,
) -> Result<Change, InstallError> {
    edit::edit(path, scope, dry_run, |text| {
        match harness {
            Harness::OpenCode => opencode::installed(text, command),
            h if flat::is_flat(h) => flat::installed(text, harness, command),
            _ => entries::installed(text, harness, command),
        }
        .map(Some)
    })
}

/// Removes ours from the config at `path` in `scope` (written unless `dry_run`); a file left
/// holding only what installing put there is removed, and so is its directory when that
/// leaves it empty (a linked file is emptied instead: [`edit::edit`]).
pub fn uninstall(
    path: &Path,
    scope: &Scope,
    harness: Harness,
    dry_run: bool,
) -> Result<Change, InstallError> {
    edit::edit(path, scope, dry_run, |text| match text {
        Some(text) if harness == Harness::OpenCode => Ok(opencode::uninstalled(text)),
        Some(text) if !text.trim().is_empty() && flat::is_flat(harness) => flat::uninstalled(text),
        Some(text) if !text.trim().is_empty() => entries::uninstalled(text),
        other => Ok(other.map(str::to_string)),
    })
}

fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+:@%".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_is_the_plain_name_only_when_path_finds_this_binary() {
        let dir = tempfile::tempdir().expect("a directory");
        let bin = dir.path().join("bin");
        let other = dir.path().join("other");
        std::fs::create_dir_all(&bin).expect("mkdir");
        std::fs::create_dir_all(&other).expect("mkdir");
        let exe = dir.path().join("a b").join("docsuggest");
        std::fs::create_dir_all(exe.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&exe, "").expect("write");
        std::fs::set_permissions(&exe, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .expect("chmod");
        std::os::unix::fs::symlink(&exe, bin.join("docsuggest")).expect("link");
        std::fs::copy(&exe, other.join("docsuggest")).expect("copy");

        let path = |dirs: &[&Path]| std::env::join_paths(dirs).expect("a PATH");
        let found = program_in(None, &exe, Some(&path(&[&other, &bin]))).expect("a program");
        assert_eq!(found.word, format!("'{}'", exe.display()));
        assert!(
            found
                .warning
                .expect("a warning")
                .contains("is not this binary")
        );
        let found = program_in(None, &exe, Some(&path(&[&bin, &other]))).expect("a program");
        assert_eq!(
            found,
            Program {
                word: "docsuggest".into(),
                warning: None,
                lean: None,
            }
        );
        let found = program_in(None, &exe, None).expect("a program");
        assert!(found.warning.expect("a warning").contains("not on PATH"));

        let pinned = program_in(Some(&other.join("docsuggest")), &exe, None).expect("pinned");
        assert_eq!(pinned.word, other.join("docsuggest").display().to_string());
        assert_eq!(
            program_in(Some(Path::new("docsuggest")), &exe, Some(&path(&[&bin]))).expect("pinned"),
            Program {
                word: "docsuggest".into(),
                warning: None,
                lean: None,
            }
        );
        for bad in ["bin/docsuggest", "/usr/bin/env", "/no/such/docsuggest"] {
            assert!(
                matches!(
                    program_in(Some(Path::new(bad)), &exe, None),
                    Err(InstallError::Command { .. })
                ),
                "{bad}"
            );
        }
        let program = |word: &str, lean: Option<&str>| Program {
            word: word.into(),
            warning: None,
            lean: lean.map(str::to_string),
        };
        assert_eq!(
            command(&program("'/a b/docsuggest'", None), Harness::Codex),
            "'/a b/docsuggest' hook --harness codex"
        );
        assert_eq!(
            command(&program("docsuggest", Some(LEAN_HOOK)), Harness::Codex),
            "docsuggest-hook --harness codex"
        );
    }

    #[test]
    fn the_lean_entry_point_is_run_only_from_beside_its_docsuggest() {
        let dir = tempfile::tempdir().expect("a directory");
        let executable = |path: &Path| {
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, "").expect("write");
            std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .expect("chmod");
        };
        let bin = dir.path().join("a b");
        let exe = bin.join("docsuggest");
        executable(&exe);
        let path = |dirs: &[&Path]| std::env::join_paths(dirs).expect("a PATH");
        // No lean entry point beside it: `docsuggest hook`, as before.
        let found = program_in(None, &exe, Some(&path(&[&bin]))).expect("a program");
        assert_eq!(found.lean, None);
        executable(&bin.join(LEAN_HOOK));
        let found = program_in(None, &exe, Some(&path(&[&bin]))).expect("a program");
        assert_eq!(found.lean.as_deref(), Some(LEAN_HOOK));
        assert_eq!(
            command(&found, Harness::ClaudeCode),
            "docsuggest-hook --harness claude-code"
        );
        // Another install's entry point first on PATH: not this docsuggest's, so not run.
        let other = dir.path().join("other");
        executable(&other.join(LEAN_HOOK));
        let found = program_in(None, &exe, Some(&path(&[&other, &bin]))).expect("a program");
        assert_eq!(found.lean, None);
        // Not on PATH: both by path.
        let found = program_in(None, &exe, None).expect("a program");
        let lean = format!("'{}'", bin.join(LEAN_HOOK).display());
        assert_eq!(found.lean.as_deref(), Some(lean.as_str()));
        assert_eq!(
            command(&found, Harness::Codex),
            format!("{lean} --harness codex")
        );
        // Pinned by path: the one beside the pin.
        let pinned = program_in(Some(&exe), &exe, None).expect("pinned");
        assert_eq!(pinned.lean.as_deref(), Some(lean.as_str()));
    }
}
