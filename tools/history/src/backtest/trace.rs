//! Commits into turns of a simulated agent, and turns into protocol requests.
//!
//! The order is the development set's (`shared/learning/extract.py`): the trigger first (the
//! commit's first family file, by pack family order and then by path), then the other changed
//! files in path order; each a judged `write` (added file) or `edit`, then `pad` neutral
//! `read` calls so a window nobody followed ages out before the next turn.

use super::history::{Commit, Status};
use docsuggest_engine::compiled::{CompiledPack, Detection};
use serde_json::{Value, json};

/// The agent every request of a backtest trace speaks for.
pub const AGENT: &str = "backtest";

/// Why commits were left out.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Skipped {
    /// Commits that changed nothing against their first parent (odd paths aside: such a
    /// commit is `odd`).
    pub empty: usize,
    /// Commits with more than `--max-files` files.
    pub bulk: usize,
    /// Commits with a path that is not plain UTF-8 or could climb.
    pub odd: usize,
    /// Commits that touch no path of a pack family.
    pub no_family: usize,
}

/// One kept commit as a turn.
#[derive(Clone, Debug)]
pub struct Turn {
    /// The commit id.
    pub id: String,
    /// Its position among all first-parent commits (oldest 0).
    pub position: usize,
    /// The calls in order: how the commit changed the path, and the path.
    pub files: Vec<(Status, String)>,
}

/// The family of a workspace-relative path: a tie between families is none, as the
/// development set treats it.
pub fn family_of(pack: &CompiledPack, path: &str) -> Option<usize> {
    match pack.detect(path) {
        Detection::Family(f) => Some(f),
        Detection::NoSignal | Detection::Ambiguous(_) => None,
    }
}

/// The kept commits as turns, and what was skipped.
pub fn turns(commits: &[Commit], pack: &CompiledPack, max_files: usize) -> (Vec<Turn>, Skipped) {
    let mut skipped = Skipped::default();
    let mut out = Vec::new();
    for (position, commit) in commits.iter().enumerate() {
        if commit.bulk || commit.files.len() > max_files {
            skipped.bulk += 1;
            continue;
        }
        // Before `empty`: the odd paths are not in `files`, so a commit that only adds odd
        // paths lists none.
        if commit.odd {
            skipped.odd += 1;
            continue;
        }
        if commit.files.is_empty() {
            skipped.empty += 1;
            continue;
        }
        let trigger = commit
            .files
            .iter()
            .filter_map(|(s, p)| family_of(pack, p).map(|f| (f, p, *s)))
            .min();
        let Some((_, trigger, status)) = trigger else {
            skipped.no_family += 1;
            continue;
        };
        let mut files = vec![(status, trigger.clone())];
        // `commit.files` is already in path order.
        files.extend(commit.files.iter().filter(|(_, p)| p != trigger).cloned());
        out.push(Turn {
            id: commit.id.clone(),
            position,
            files,
        });
    }
    (out, skipped)
}

/// The protocol requests of one turn: `turn`, one judge per file, `pad` neutral reads.
pub fn requests(turn: &Turn, neutral: &str, pad: usize, cwd: &str) -> Vec<Value> {
    let mut out = Vec::with_capacity(turn.files.len() + pad + 1);
    out.push(json!({"op": "turn", "agent": AGENT}));
    for (status, path) in &turn.files {
        let tool = if *status == Status::Added {
            "write"
        } else {
            "edit"
        };
        out.push(json!({"op": "judge", "agent": AGENT, "tool": tool, "path": path, "cwd": cwd}));
    }
    for _ in 0..pad {
        out.push(
            json!({"op": "judge", "agent": AGENT, "tool": "read", "path": neutral, "cwd": cwd}),
        );
    }
    out
}
