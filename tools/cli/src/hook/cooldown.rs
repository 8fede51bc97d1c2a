//! The Stop reminder's cool-down: a companion the agent declined at a stop — named by the
//! session's last blocking reminder and still missing — is not named again in that session
//! unless the change touches its family again (a file that called for it changed since, or
//! a new one calls for it). What each reminder blocked on is kept beside the turn ids, in
//! one owner-only file per session.

use super::turns::Turns;
use crate::check_change::CheckReport;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// What one reminder blocked on: each companion, with the files that called for it and
/// each file's stamp then.
type Blocked = Vec<(String, Vec<(String, String)>)>;

/// The remembered key of a session's last blocking reminder.
fn key(session: &str) -> String {
    format!("{session}/declined")
}

/// A file's stamp: its modification time and length, read without following a symlink
/// (`-` when it is gone).
fn stamp(root: &Path, file: &str) -> String {
    match std::fs::symlink_metadata(root.join(file)) {
        Ok(meta) => format!("{}.{}:{}", meta.mtime(), meta.mtime_nsec(), meta.len()),
        Err(_) => "-".to_string(),
    }
}

/// Each blocking companion of `report` with its files' stamps now.
fn blocked_now(report: &CheckReport) -> Blocked {
    let root = Path::new(&report.root);
    (report.missing.iter().filter(|m| m.blocks))
        .map(|m| {
            let files = (m.for_files.iter())
                .map(|f| (f.clone(), stamp(root, f)))
                .collect();
            (m.companion.clone(), files)
        })
        .collect()
}

/// `report` without the blocking companions the session declined: named by its last
/// blocking reminder, for the same files, none of which has changed since. What would block
/// now is remembered for the next stop (nothing blocking: forgotten).
pub(super) fn cool(report: &CheckReport, turns: &Turns, session: &str) -> CheckReport {
    let now = blocked_now(report);
    let last: Blocked = turns
        .recall(&key(session))
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or_default();
    match serde_json::to_string(&now) {
        Ok(text) if !now.is_empty() => turns.remember(&key(session), &text),
        _ => turns.forget(&key(session)),
    }
    let mut cooled = report.clone();
    cooled.missing.retain(|m| {
        let before = last.iter().find(|(c, _)| *c == m.companion);
        let now = now.iter().find(|(c, _)| *c == m.companion);
        match (before, now) {
            // Touched again: a file that called for it is new or changed.
            (Some((_, before)), Some((_, now))) => now.iter().any(|f| !before.contains(f)),
            _ => true,
        }
    });
    cooled
}
