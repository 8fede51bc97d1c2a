//! Which harness configs would send a project's tool calls to docsuggest: our hook entries in
//! Claude Code's and Codex's hook files (project, personal and user), the plugins enabled, and
//! whether the `docsuggest` the hooks run by name is on PATH. Read only.

use crate::hook::Harness;
use crate::hook::install::{self, Scope, is_ours};
use docsuggest_engine::locate::{Workspace, git_root};
use docsuggest_engine::probe::FileProbe;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// What the harness configs say.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hooks {
    /// Claude Code's settings files.
    pub claude_code: Vec<HookFile>,
    /// Codex's hook files.
    pub codex: Vec<HookFile>,
    /// Copilot CLI's, Cursor's and OpenCode's (its plugin), each with the harness's name:
    /// only those that exist.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<HarnessFile>,
    /// Our plugins enabled, each with the file that says so.
    pub plugins: Vec<String>,
    /// Codex's feature flag, when it may keep Codex from running hooks.
    pub codex_feature: Option<String>,
    /// The `docsuggest` on PATH.
    pub on_path: Option<String>,
}

/// One hook config file of a harness named beside it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HarnessFile {
    /// The harness.
    pub harness: &'static str,
    /// Its file.
    #[serde(flatten)]
    pub file: HookFile,
}

/// One hook config file.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookFile {
    /// The file.
    pub file: String,
    /// `project`, `local` (Claude Code's personal project settings) or `user`.
    pub scope: &'static str,
    /// Whether it exists.
    pub exists: bool,
    /// The events with one of our handlers.
    pub events: Vec<String>,
    /// Why it could not be read.
    pub error: Option<String>,
}

impl Hooks {
    /// Whether any file has one of our handlers, or one of our plugins is enabled.
    pub fn any_installed(&self) -> bool {
        !self.plugins.is_empty()
            || self
                .claude_code
                .iter()
                .chain(&self.codex)
                .chain(self.others.iter().map(|o| &o.file))
                .any(|f| !f.events.is_empty())
    }
}

/// The hook configs of the project at `root` and of the user.
pub fn scan(root: &Path) -> Hooks {
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let codex_home = std::env::var_os("CODEX_HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".codex")));
    let project = Scope::Project(root.to_path_buf());
    let claude_project = install::config_path(Harness::ClaudeCode, &project);
    let mut claude = vec![
        (claude_project.clone(), "project"),
        (
            claude_project.with_file_name("settings.local.json"),
            "local",
        ),
    ];
    if let Some(home) = &home {
        let user = install::config_path(Harness::ClaudeCode, &Scope::User(home.clone()));
        claude.push((user, "user"));
    }
    let mut codex = vec![(install::config_path(Harness::Codex, &project), "project")];
    if let Some(dir) = &codex_home {
        codex.push((dir.join("hooks.json"), "user"));
    }
    let mut hooks = Hooks::default();
    for (file, scope) in claude {
        let (entry, plugin) = read(&file, scope);
        if plugin {
            hooks.plugins.push(format!(
                "Claude Code: docsuggest enabled in {}",
                file.display()
            ));
        }
        hooks.claude_code.push(entry);
    }
    for (file, scope) in codex {
        hooks.codex.push(read(&file, scope).0);
    }
    let mut others = vec![
        (
            Harness::Copilot,
            install::config_path(Harness::Copilot, &project),
            "project",
        ),
        (
            Harness::Cursor,
            install::config_path(Harness::Cursor, &project),
            "project",
        ),
        (
            Harness::OpenCode,
            install::config_path(Harness::OpenCode, &project),
            "project",
        ),
    ];
    if let Some(home) = &home {
        let user = install::config_path(Harness::Cursor, &Scope::User(home.clone()));
        others.push((Harness::Cursor, user, "user"));
    }
    for (harness, file, scope) in others {
        if std::fs::symlink_metadata(&file).is_err() {
            continue;
        }
        let entry = if harness == Harness::OpenCode {
            plugin_file(&file, scope)
        } else {
            read(&file, scope).0
        };
        hooks.others.push(HarnessFile {
            harness: harness.title(),
            file: entry,
        });
    }
    if let Some(config) = codex_home.map(|d| d.join("config.toml"))
        && install::stage::read_linked(&config).is_ok_and(|text| codex_plugin(&text))
    {
        hooks
            .plugins
            .push(format!("Codex: docsuggest listed in {}", config.display()));
    }
    if hooks.codex.iter().any(|f| !f.events.is_empty())
        || hooks.plugins.iter().any(|p| p.starts_with("Codex"))
    {
        hooks.codex_feature = install::codex_note(&project);
    }
    hooks.on_path = on_path().map(|p| p.display().to_string());
    hooks
}

/// One file: the events with our handlers, and whether it enables our Claude Code plugin.
fn read(file: &Path, scope: &'static str) -> (HookFile, bool) {
    let mut entry = HookFile {
        file: file.display().to_string(),
        scope,
        exists: file.exists(),
        events: Vec::new(),
        error: None,
    };
    if !entry.exists {
        return (entry, false);
    }
    let value = install::stage::read_linked(file)
        .map_err(|e| e.to_string())
        .and_then(|text| serde_json::from_str::<Value>(&text).map_err(|e| e.to_string()));
    match value {
        Ok(value) => {
            entry.events = our_events(&value);
            (entry, claude_plugin(&value))
        }
        Err(e) => {
            entry.error = Some(e);
            (entry, false)
        }
    }
}

/// OpenCode's plugin file: `plugin` when it is ours.
fn plugin_file(file: &Path, scope: &'static str) -> HookFile {
    let mut entry = HookFile {
        file: file.display().to_string(),
        scope,
        exists: true,
        events: Vec::new(),
        error: None,
    };
    match install::stage::read_linked(file) {
        Ok(text) if text.starts_with(install::opencode::MARK) => entry.events.push("plugin".into()),
        Ok(_) => {}
        Err(e) => entry.error = Some(e.to_string()),
    }
    entry
}

/// The events of a hook config with one of our handlers (a `docsuggest … hook` command):
/// `{"hooks": {"<Event>": [{"hooks": [{"command": ..}]}]}}` (Claude Code, Codex), or with
/// the handlers listed directly, their command under `command` (Cursor) or `bash` (Copilot).
pub fn our_events(config: &Value) -> Vec<String> {
    let Some(events) = config.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    let ours = |handler: &Value| {
        ["command", "bash"].iter().any(|key| {
            handler
                .get(key)
                .and_then(Value::as_str)
                .is_some_and(is_ours)
        })
    };
    events
        .iter()
        .filter(|(_, groups)| {
            groups.as_array().is_some_and(|groups| {
                groups.iter().any(|g| {
                    ours(g)
                        || g.get("hooks")
                            .and_then(Value::as_array)
                            .is_some_and(|handlers| handlers.iter().any(ours))
                })
            })
        })
        .map(|(event, _)| event.clone())
        .collect()
}

/// Whether a Claude Code settings object enables a plugin named `docsuggest` (from any
/// marketplace): `"enabledPlugins": {"docsuggest@<marketplace>": true}`.
pub fn claude_plugin(config: &Value) -> bool {
    config
        .get("enabledPlugins")
        .and_then(Value::as_object)
        .is_some_and(|plugins| {
            plugins
                .iter()
                .any(|(name, on)| name.starts_with("docsuggest@") && on.as_bool() == Some(true))
        })
}

/// Whether Codex's `config.toml` names a plugin `docsuggest@<marketplace>` in a table header.
fn codex_plugin(toml: &str) -> bool {
    toml.lines().any(|line| {
        let line = line.trim();
        line.starts_with("[plugins.") && line.contains("docsuggest@")
    })
}

/// The executable named `docsuggest` that a hook running it by name would find on PATH.
fn on_path() -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join("docsuggest"))
        .find(|file| {
            std::fs::metadata(file)
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        })
}

/// Where the hooks' project config is looked for: the workspace root, else the git work
/// tree's, else the directory itself (a file's parent).
pub(super) fn hooks_root(
    located: Option<&Workspace>,
    path: &Path,
    probe: &dyn FileProbe,
    path_kind: &str,
) -> PathBuf {
    located
        .map(|w| w.root.clone())
        .or_else(|| git_root(path, probe).map(Path::to_path_buf))
        .unwrap_or_else(|| match path_kind {
            "directory" => path.to_path_buf(),
            _ => path.parent().unwrap_or(path).to_path_buf(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn our_handlers_are_found_by_their_command() {
        let config = json!({"hooks": {
            "PostToolUse": [{"matcher": "Read", "hooks": [
                {"type": "command", "command": "other-tool"},
                {"type": "command", "command": "/opt/bin/docsuggest hook --harness codex"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "docsuggest hook"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "docsuggest status"}]}],
            "SessionEnd": "not an array"
        }});
        assert_eq!(our_events(&config), ["PostToolUse", "UserPromptSubmit"]);
        assert!(our_events(&json!({"hooks": []})).is_empty());
        assert!(our_events(&json!([])).is_empty());
    }

    #[test]
    fn plugins_are_found_where_the_harnesses_enable_them() {
        assert!(claude_plugin(
            &json!({"enabledPlugins": {"docsuggest@docsuggest": true}})
        ));
        assert!(!claude_plugin(
            &json!({"enabledPlugins": {"docsuggest@docsuggest": false}})
        ));
        assert!(!claude_plugin(
            &json!({"enabledPlugins": {"other@x": true}})
        ));
        assert!(codex_plugin(
            "[features]\nhooks = true\n\n[plugins.\"docsuggest@docsuggest\"]\nenabled = true\n"
        ));
        assert!(!codex_plugin(
            "# [plugins.\"docsuggest@x\"]\n[plugins.\"other@x\"]\n"
        ));
    }
}
