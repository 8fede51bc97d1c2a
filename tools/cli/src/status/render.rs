//! `status` for people: one labelled section per thing found, the verdict first.

use super::hooks::HookFile;
use super::{FamilyStatus, PackStatus, Status, StoreStatus, WorkspaceStatus};
use docsuggest_engine::KeySource;
use docsuggest_host::daemon::{Daemon, DaemonState};
use std::fmt::{self, Write as _};
use std::path::Path;

/// The width of the section labels.
const LABEL: usize = 11;

/// Lines under one label: the first beside it, the rest indented under it.
struct Section<'a> {
    out: &'a mut String,
    first: Option<&'static str>,
}

impl Section<'_> {
    fn line(&mut self, text: impl fmt::Display) {
        let label = self.first.take().unwrap_or("");
        let _ = writeln!(self.out, "  {label:<LABEL$} {text}");
    }
}

fn section<'a>(out: &'a mut String, label: &'static str) -> Section<'a> {
    Section {
        out,
        first: Some(label),
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = format!("status of {} ({})\n", self.path, self.path_kind);
        let verdict = if self.verdict.notes { "yes" } else { "no" };
        section(&mut out, "notes").line(format_args!("{verdict}: {}", self.verdict.reason));
        workspace(&mut out, &self.workspace);
        if let Some(pack) = &self.pack {
            pack_lines(&mut out, pack);
        }
        if let Some(component) = &self.excluded {
            section(&mut out, "excluded").line(format_args!(
                "yes: `{component}` (the config's exclude list)"
            ));
        }
        if let Some(family) = &self.family {
            family_lines(&mut out, family);
        }
        store_lines(&mut out, &self.store);
        daemon_lines(&mut out, &self.daemon, Path::new(&self.store.path));
        let mut config = section(&mut out, "config");
        match &self.config.file {
            Some(file) => config.line(file),
            None => config.line("the defaults (no config file; the hooks' daemon runs with none)"),
        }
        if let Some(e) = &self.config.error {
            config.line(format_args!("cannot be used: {e}"));
        }
        hooks_lines(&mut out, self);
        if !self.hints.is_empty() {
            let mut hints = section(&mut out, "hints");
            for hint in &self.hints {
                hints.line(format_args!("- {hint}"));
            }
        }
        f.write_str(&out)
    }
}

fn workspace(out: &mut String, workspace: &WorkspaceStatus) {
    let mut s = section(out, "workspace");
    match workspace {
        WorkspaceStatus::Signature {
            root,
            key,
            signature,
            ..
        } => {
            s.line(format_args!("{root} (key {key})"));
            s.line(format_args!(
                "found by the pack signature at its root: {}",
                signature.join(", ")
            ));
        }
        WorkspaceStatus::GitWorkTree { root, key, .. } => {
            s.line(format_args!("{root} (key {key})"));
            s.line(
                "found as a git work tree with no pack signature and no pack file (zero-config)",
            );
        }
        WorkspaceStatus::None { .. } => {
            s.line("none (see notes)");
            return;
        }
    }
    let source = match workspace {
        WorkspaceStatus::Signature { key_source, .. }
        | WorkspaceStatus::GitWorkTree { key_source, .. } => key_source,
        WorkspaceStatus::None { .. } => return,
    };
    match source {
        KeySource::Path => {
            s.line("(the key is the root's directory name and a hash of its absolute path)")
        }
        KeySource::Repository { identity, inside } => {
            let at = if inside.is_empty() {
                "its root".to_string()
            } else {
                inside.clone()
            };
            s.line(format_args!(
                "(the key is the git repository's, {identity}, at {at}: the same in every clone)"
            ))
        }
    }
}

fn pack_lines(out: &mut String, pack: &PackStatus) {
    let mut s = section(out, "pack");
    let families = format!(
        "{} famil{}: {}",
        pack.families.len(),
        if pack.families.len() == 1 { "y" } else { "ies" },
        pack.families.join(", ")
    );
    match pack.source {
        "repo-file" => s.line(format_args!(
            "the repository's pack file {} ({families})",
            pack.file.as_deref().unwrap_or_default()
        )),
        "mined" => {
            let mined = pack.mined.as_ref();
            s.line(format_args!(
                "mined from the git history at {} ({} commits; {families})",
                mined.map_or("?", |m| &m.head[..m.head.len().min(12)]),
                mined.map_or(0, |m| m.commits)
            ));
            if let Some(m) = mined.filter(|m| !m.kinds.is_empty()) {
                let kinds: Vec<String> = m.kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
                s.line(format_args!("its companions by kind: {}", kinds.join(", ")));
            }
            if mined.is_some_and(|m| !m.current_miner) {
                s.line("mined by another version of the miner: mined again in the background, used meanwhile");
            }
        }
        "mining-pending" => s.line(
            "to be mined from the git history: none is stored yet (the first judged call \
             here starts mining in the daemon)",
        ),
        "no-history" => s.line(
            "none yet: the repository has no commits, so there is no history to mine a pack \
             from",
        ),
        "mining-failed" => s.line(format_args!(
            "none: the daemon could not mine one from the git history: {}",
            pack.error.as_deref().unwrap_or("no reason given")
        )),
        _ => s.line(format_args!("built-in ({families})")),
    }
    if let Some(stop) = &pack.stop {
        s.line(format_args!("the Stop reminder {}", stop.why));
    }
    if let Some(e) = pack
        .error
        .as_ref()
        .filter(|_| pack.source != "mining-failed")
    {
        s.line(format_args!(
            "the pack file {} cannot be used, so the built-in pack is: {e}",
            pack.file.as_deref().unwrap_or_default()
        ));
    }
}

fn family_lines(out: &mut String, family: &FamilyStatus) {
    let mut s = section(out, "family");
    let Some(name) = &family.name else {
        if family.relative.is_empty() {
            s.line("none: this is the workspace's root; a family's rules match the files in it");
        } else {
            s.line(format_args!(
                "none: no family's rules match {:?}",
                family.relative
            ));
        }
        return;
    };
    let ambiguous = if family.ambiguous {
        " (several families match equally; the first by pack order is named)"
    } else {
        ""
    };
    s.line(format_args!("{name} ({}){ambiguous}", family.relative));
    let width = family
        .companions
        .iter()
        .map(|c| c.path.chars().count())
        .max()
        .unwrap_or(0);
    for c in &family.companions {
        let state = match (c.exists, c.left_out) {
            (true, false) => "exists",
            (true, true) => "exists, left out by learning",
            (false, _) => "missing",
        };
        s.line(format_args!("  {:<width$}  {state}", c.path));
    }
}

fn store_lines(out: &mut String, store: &StoreStatus) {
    let mut s = section(out, "store");
    if !store.exists {
        s.line(format_args!(
            "{} (missing: nothing was learned there yet; the first `serve` or hook creates it)",
            store.path
        ));
        return;
    }
    let version = store
        .schema_version
        .map_or(String::new(), |v| format!("schema v{v}, "));
    s.line(format_args!(
        "{} ({version}{} bytes)",
        store.path,
        store.bytes.unwrap_or(0)
    ));
    if let Some(e) = &store.error {
        s.line(format_args!("cannot be read: {e}"));
        return;
    }
    if let Some(held) = &store.held {
        s.line(held);
    }
    s.line(format_args!(
        "this workspace: {} rate rows, {} history entries, {} open window(s)",
        store.rate_rows, store.history_entries, store.pending
    ));
    for note in &store.last_notes {
        let accepted = note
            .accepted
            .as_deref()
            .map_or(String::new(), |a| format!(" ({a} opened)"));
        s.line(format_args!(
            "note {}: {} {}{accepted}: {}",
            note.seq,
            note.family,
            note.outcome,
            note.companions.join(", ")
        ));
    }
}

fn daemon_lines(out: &mut String, daemon: &Daemon, store: &Path) {
    let mut s = section(out, "daemon");
    let socket = daemon.socket.display();
    match &daemon.state {
        DaemonState::Absent => s.line(format_args!(
            "not running (no socket {socket}; the first hook starts one)"
        )),
        DaemonState::NotAnswering { reason } => {
            s.line(format_args!("not answering on {socket}: {reason}"));
        }
        DaemonState::Untrusted { reason } => s.line(format_args!("not ours: {reason}")),
        DaemonState::Running {
            version,
            store: kind,
            store_path,
            store_health,
            ..
        } => {
            let pid = daemon
                .pid
                .map_or("pid unknown".to_string(), |p| format!("pid {p}"));
            s.line(format_args!(
                "running on {socket} ({pid}, docsuggest {version})"
            ));
            let which = if daemon.serves(store) {
                "this store".to_string()
            } else {
                store_path.clone().unwrap_or_else(|| "no file".to_string())
            };
            let health = match &store_health.degraded {
                Some(why) => format!("degraded: {why}"),
                None => "healthy".into(),
            };
            s.line(format_args!(
                "store {} ({which}), {health}; {} retries, {} recoveries, {} written back, {} lost",
                serde_json::to_value(kind)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                store_health.retries,
                store_health.recoveries,
                store_health.written_back,
                store_health.lost
            ));
        }
    }
}

fn hook_file(file: &HookFile) -> String {
    let state = if let Some(e) = &file.error {
        format!("unreadable ({e})")
    } else if !file.exists {
        "absent".into()
    } else if file.events.is_empty() {
        "no docsuggest hooks".into()
    } else {
        file.events.join(", ")
    };
    format!("{:<7} {}: {state}", file.scope, file.file)
}

fn hooks_lines(out: &mut String, status: &Status) {
    let hooks = &status.hooks;
    let mut s = section(out, "hooks");
    for file in &hooks.claude_code {
        s.line(format_args!("Claude Code {}", hook_file(file)));
    }
    for file in &hooks.codex {
        s.line(format_args!("Codex       {}", hook_file(file)));
    }
    for other in &hooks.others {
        s.line(format_args!(
            "{:<11} {}",
            other.harness,
            hook_file(&other.file)
        ));
    }
    for plugin in &hooks.plugins {
        s.line(format_args!("plugin: {plugin}"));
    }
    if let Some(note) = &hooks.codex_feature {
        s.line(note);
    }
    match &hooks.on_path {
        Some(path) => s.line(format_args!("docsuggest on PATH: {path}")),
        None => s.line("docsuggest is not on PATH"),
    }
}
