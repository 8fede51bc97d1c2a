//! The judgement over what `status` found: whether a call on the path can get a note and the
//! first reason it cannot, and the hints about what else stands between the engine and a
//! harness.

use super::{Status, Verdict, WorkspaceStatus};
use docsuggest_host::daemon::DaemonState;
use std::path::Path;

/// Whether a call on the path can get a note, and the first reason it cannot.
pub(super) fn verdict(status: &Status) -> Verdict {
    let silent = |reason: String| Verdict {
        notes: false,
        reason,
    };
    if !status.config.enabled {
        return silent("the config turns the engine off (enabled: false)".into());
    }
    if let Some(component) = &status.excluded {
        return silent(format!(
            "`{component}` is excluded by the config's exclude list ({})",
            status.config.exclude.join(", ")
        ));
    }
    let pack = match (&status.workspace, &status.pack) {
        (WorkspaceStatus::None { .. }, _) | (_, None) => {
            let reason = match &status.workspace {
                WorkspaceStatus::None { reason } => reason.clone(),
                _ => "no workspace".into(),
            };
            return silent(reason);
        }
        (_, Some(pack)) => pack,
    };
    if pack.source == "mining-failed" {
        return silent(format!(
            "the daemon could not give this git work tree a pack ({}); calls here abstain \
             `foreign-workspace` until the cause is gone and the daemon restarts; `docsuggest \
             init` mines it into .dsh/doc-pack.json and says why it cannot",
            pack.error.as_deref().unwrap_or("no reason given")
        ));
    }
    if pack.source == "no-history" {
        return silent(
            "this git work tree has no commits yet, so no pack can be mined from its history \
             and calls here are silent (`abstained foreign-workspace`); once it has commits, \
             `docsuggest init` mines one into .dsh/doc-pack.json (a daemon that already found \
             no history mines it once restarted), or write .dsh/doc-pack.json by hand \
             (docs/PACK.md)"
                .into(),
        );
    }
    if pack.source == "mining-pending" {
        return silent(match &status.store.error {
            Some(e) => format!(
                "whether a pack was mined for this git work tree cannot be told: the store \
                 cannot be read ({e})"
            ),
            None => "the pack for this git work tree is not mined yet: the first judged call \
                     here starts mining it in the daemon, and calls are silent until it is \
                     done (`abstained pack-mining`); `docsuggest init` mines it now into \
                     .dsh/doc-pack.json"
                .into(),
        });
    }
    let families = pack.families.join(", ");
    let Some(family) = &status.family else {
        return silent("no workspace".into());
    };
    match (&family.name, status.path_kind) {
        (None, "directory") => Verdict {
            notes: true,
            reason: format!(
                "calls on this workspace's documentation paths are judged with the {} pack \
                 (families: {families})",
                pack.source
            ),
        },
        (None, _) => silent(format!(
            "this path is in no family of the {} pack (families: {families}); a note follows \
             a call on a family's documentation path",
            pack.source
        )),
        (Some(name), _) => {
            let named: Vec<&str> = family
                .companions
                .iter()
                .filter(|c| c.exists && !c.left_out)
                .map(|c| c.path.as_str())
                .collect();
            if named.is_empty() {
                let why = if family.companions.iter().any(|c| c.exists) {
                    "learning leaves out every companion that exists here"
                } else {
                    "none of its companions exists here (a note names only existing files)"
                };
                silent(format!("a call on this path is a {name} task, but {why}"))
            } else {
                Verdict {
                    notes: true,
                    reason: format!(
                        "a call on this path is a {name} task: a note can name {} when its \
                         confidence passes the gate",
                        named.join(", ")
                    ),
                }
            }
        }
    }
}

/// What else stands between the engine and a harness.
pub(super) fn hints(status: &Status) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(e) = &status.config.error {
        out.push(format!(
            "the config file cannot be used ({e}); the defaults are shown"
        ));
    }
    if !status.hooks.any_installed() {
        out.push(
            "no Claude Code or Codex hooks call docsuggest for this project or user (no \
             hook entries, no plugin enabled): `docsuggest install-hooks --harness claude-code` \
             or the plugins (docs/HARNESSES.md)"
                .into(),
        );
    } else if status.hooks.on_path.is_none() {
        out.push(
            "hooks are installed but no `docsuggest` is on PATH: hooks that run it by name do \
             nothing (`cargo install --locked --path tools/cli`)"
                .into(),
        );
    }
    let store = Path::new(&status.store.path);
    match &status.daemon.state {
        DaemonState::Running { store_health, .. } if store_health.degraded.is_some() => {
            out.push(format!(
                "the daemon's store runs on memory: {}",
                store_health.degraded.as_deref().unwrap_or_default()
            ));
        }
        DaemonState::Running { .. } if !status.daemon.serves(store) => out.push(format!(
            "the daemon serves another store than {}: what it learns is not in this one",
            store.display()
        )),
        _ => {}
    }
    out
}
