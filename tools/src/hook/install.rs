//! `install-hooks` / `uninstall-hooks`: our entries in a harness's hook config, merged in or
//! taken out without disturbing anything else in the file.
//!
//! Both harnesses use the same layout: `{"hooks": {"<Event>": [{"matcher": "..", "hooks":
//! [{"type": "command", "command": ".."}]}]}}`, Claude Code in `.claude/settings.json`, Codex
//! in `.codex/hooks.json`. A handler is ours when its command runs a `docsuggest` executable
//! with the `hook` subcommand. Installing removes ours and appends them again, so a second
//! install changes nothing; every other key, event, group and handler stays as it was.

use super::Harness;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// Where the hook config lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The project in this directory.
    Project(PathBuf),
    /// The user's own config under `home`.
    User(PathBuf),
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
}

/// What an install or uninstall did (or, dry, would do).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    /// The config file.
    pub path: PathBuf,
    /// Its text before (empty when it did not exist).
    pub before: String,
    /// Its text after.
    pub after: String,
}

impl Change {
    /// Whether the file changes.
    pub fn changed(&self) -> bool {
        self.before != self.after
    }

    /// A line diff of the change (`-` removed, `+` added, two lines of context).
    pub fn diff(&self) -> String {
        let mut out = format!("--- {0}\n+++ {0}\n", self.path.display());
        out.push_str(&line_diff(&self.before, &self.after));
        out
    }
}

/// The hook config file of `harness` in `scope`.
pub fn config_path(harness: Harness, scope: &Scope) -> PathBuf {
    let (dir, file) = match harness {
        Harness::ClaudeCode => (".claude", "settings.json"),
        Harness::Codex => (".codex", "hooks.json"),
    };
    match scope {
        Scope::Project(root) | Scope::User(root) => root.join(dir).join(file),
    }
}

/// The hook command for `harness`, running `exe`.
pub fn command(exe: &Path, harness: Harness) -> String {
    format!(
        "{} hook --harness {}",
        shell_quote(&exe.display().to_string()),
        harness.name()
    )
}

/// The events ours are installed for, with their matcher.
fn events(harness: Harness) -> &'static [(&'static str, Option<&'static str>)] {
    match harness {
        Harness::ClaudeCode => &[
            (
                "PostToolUse",
                Some("Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob"),
            ),
            ("UserPromptSubmit", None),
            ("SessionEnd", None),
        ],
        // Codex has no SessionEnd; its Stop ends each turn.
        Harness::Codex => &[
            (
                "PostToolUse",
                Some("apply_patch|Read|Write|Edit|Grep|Glob|read_file|grep_files"),
            ),
            ("UserPromptSubmit", None),
            ("Stop", None),
        ],
    }
}

/// Installs ours into the config at `path` (written unless `dry_run`).
pub fn install(
    path: &Path,
    harness: Harness,
    command: &str,
    dry_run: bool,
) -> Result<Change, InstallError> {
    edit(path, dry_run, |settings| merged(settings, harness, command))
}

/// Removes ours from the config at `path` (written unless `dry_run`).
pub fn uninstall(path: &Path, dry_run: bool) -> Result<Change, InstallError> {
    edit(path, dry_run, removed)
}

fn edit(
    path: &Path,
    dry_run: bool,
    change: impl FnOnce(Value) -> Result<Value, String>,
) -> Result<Change, InstallError> {
    let name = path.display().to_string();
    let io = |source| InstallError::Io {
        path: name.clone(),
        source,
    };
    let before = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(io(e)),
    };
    let settings = if before.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(&before).map_err(|e| InstallError::Shape {
            path: name.clone(),
            why: e.to_string(),
        })?
    };
    let next = change(settings.clone()).map_err(|why| InstallError::Shape {
        path: name.clone(),
        why,
    })?;
    // An unchanged config keeps its bytes, formatting included.
    let after = if next == settings && !before.is_empty() {
        before.clone()
    } else {
        pretty(&next)
    };
    let change = Change {
        path: path.to_path_buf(),
        before,
        after,
    };
    if change.changed() && !dry_run {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        // Written aside and renamed, so the harness never reads half a file.
        let staged = path.with_extension("json.docsuggest-tmp");
        std::fs::write(&staged, &change.after).map_err(io)?;
        std::fs::rename(&staged, path).map_err(io)?;
    }
    Ok(change)
}

/// `settings` with ours (re)installed for `harness`.
pub fn merged(settings: Value, harness: Harness, command: &str) -> Result<Value, String> {
    let mut settings = removed(settings)?;
    let root = settings
        .as_object_mut()
        .ok_or("the top level is not an object")?;
    let hooks = root
        .entry("hooks")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .ok_or("\"hooks\" is not an object")?;
    for (event, matcher) in events(harness) {
        let groups = hooks
            .entry(event.to_string())
            .or_insert_with(|| json!([]))
            .as_array_mut()
            .ok_or_else(|| format!("hooks.{event} is not an array"))?;
        let mut group = Map::new();
        if let Some(m) = matcher {
            group.insert("matcher".into(), json!(m));
        }
        group.insert(
            "hooks".into(),
            json!([{"type": "command", "command": command, "timeout": 5}]),
        );
        groups.push(Value::Object(group));
    }
    Ok(settings)
}

/// `settings` without our handlers; a group left empty goes, and so does an event left
/// without groups and a `hooks` left empty, when ours made them.
pub fn removed(mut settings: Value) -> Result<Value, String> {
    let root = settings
        .as_object_mut()
        .ok_or("the top level is not an object")?;
    let Some(hooks) = root.get_mut("hooks") else {
        return Ok(settings);
    };
    let hooks = hooks.as_object_mut().ok_or("\"hooks\" is not an object")?;
    let mut emptied = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let had = groups.len();
        let mut touched = false;
        groups.retain_mut(|group| {
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let before = handlers.len();
            handlers.retain(|h| !is_ours(h));
            if handlers.len() == before {
                return true;
            }
            touched = true;
            !handlers.is_empty()
        });
        if touched && groups.is_empty() && had > 0 {
            emptied.push(event.clone());
        }
    }
    for event in &emptied {
        hooks.remove(event);
    }
    if !emptied.is_empty() && hooks.is_empty() {
        root.remove("hooks");
    }
    Ok(settings)
}

/// Whether a handler runs `docsuggest hook`.
fn is_ours(handler: &Value) -> bool {
    let Some(command) = handler.get("command").and_then(Value::as_str) else {
        return false;
    };
    let words = shell_words(command);
    let program = words.first().map(|w| Path::new(w).file_name());
    matches!(program, Some(Some(name)) if name == "docsuggest")
        && words.get(1).map(String::as_str) == Some("hook")
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

/// Splits a command line into words, honouring single and double quotes and backslashes
/// closely enough to recognise our own commands.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    text.push('\n');
    text
}

/// A line diff by longest common subsequence (configs are small), with two lines of
/// context around each change.
fn line_diff(before: &str, after: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // Removals before additions, as diff(1) prints them.
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    let near = |k: usize| {
        let lo = k.saturating_sub(2);
        let hi = (k + 2).min(ops.len() - 1);
        ops[lo..=hi].iter().any(|(op, _)| *op != ' ')
    };
    let mut out = String::new();
    let mut skipped = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if *op != ' ' || near(k) {
            if skipped {
                out.push_str("@@\n");
                skipped = false;
            }
            out.push_str(&format!("{op}{line}\n"));
        } else {
            skipped = true;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMD: &str = "/usr/local/bin/docsuggest hook --harness claude-code";

    fn others() -> Value {
        json!({
            "model": "opus",
            "permissions": {"allow": ["Bash(ls:*)"]},
            "hooks": {
                "PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}],
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "guard.sh"}]}]
            }
        })
    }

    #[test]
    fn install_keeps_the_others_and_is_idempotent() {
        let once = merged(others(), Harness::ClaudeCode, CMD).expect("merges");
        let twice = merged(once.clone(), Harness::ClaudeCode, CMD).expect("merges");
        assert_eq!(once, twice);
        assert_eq!(
            once["hooks"]["PostToolUse"][0],
            others()["hooks"]["PostToolUse"][0]
        );
        assert_eq!(once["hooks"]["PostToolUse"][1]["hooks"][0]["command"], CMD);
        assert_eq!(once["hooks"]["PreToolUse"], others()["hooks"]["PreToolUse"]);
        assert_eq!(removed(once).expect("removes"), others());
    }

    #[test]
    fn uninstall_leaves_an_empty_file_empty_of_ours_only() {
        let once =
            merged(json!({}), Harness::Codex, "docsuggest hook --harness codex").expect("merges");
        assert_eq!(removed(once).expect("removes"), json!({}));
        // Hooks a person left empty are theirs to keep.
        assert_eq!(
            removed(json!({"hooks": {}})).expect("removes"),
            json!({"hooks": {}})
        );
    }

    #[test]
    fn ours_is_recognised_by_program_and_subcommand() {
        let check = |command: &str, expect: bool| {
            assert_eq!(
                is_ours(&json!({"type": "command", "command": command})),
                expect,
                "{command}"
            );
        };
        check("docsuggest hook", true);
        check(
            "'/home/a b/.cargo/bin/docsuggest' hook --harness codex",
            true,
        );
        check("\"/opt/docsuggest\" hook", true);
        check("docsuggest serve", false);
        check("my-docsuggest hook", false);
        check("echo docsuggest hook", false);
        assert_eq!(
            command(Path::new("/a b/docsuggest"), Harness::Codex),
            "'/a b/docsuggest' hook --harness codex"
        );
    }

    #[test]
    fn the_diff_shows_only_changes_with_context() {
        let diff = line_diff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nd\ne\nF\ng\n");
        assert_eq!(diff, "@@\n d\n e\n-f\n+F\n g\n");
    }
}
