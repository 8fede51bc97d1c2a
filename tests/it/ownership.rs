//! The judge flow's ownership rules (ARCHITECTURE.md, "The judge flow"): who composes the
//! ledger's lines, who opens the rate snapshot, who changes an agent's state.

use crate::tidy::{architecture, read, root};
use std::path::{Path, PathBuf};

/// The engine's source files, relative to `engine/src`, with their text up to their unit
/// tests (a `#[cfg(test)]` module is not the engine).
fn engine_sources() -> Vec<(String, String)> {
    let src = root().join("engine/src");
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("engine/src is readable") {
            let path: PathBuf = entry.expect("an entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = read(&path);
            let code = match text.find("#[cfg(test)]") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            (relative(&path, &src), code)
        })
        .filter(|(path, _)| !path.ends_with("tests.rs") && path != "testing.rs")
        .collect()
}

fn relative(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).expect("under engine/src");
    rel.iter()
        .map(|c| c.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// The files among `files` whose code (comment lines skipped) has a line `matches`.
fn holders(files: &[(String, String)], matches: impl Fn(&str) -> bool) -> Vec<String> {
    files
        .iter()
        .filter(|(_, code)| {
            code.lines()
                .filter(|l| !l.trim_start().starts_with("//"))
                .any(&matches)
        })
        .map(|(path, _)| path.clone())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

fn says(statement: &str) {
    let doc = architecture(&root());
    let flat = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(statement),
        "ARCHITECTURE.md no longer says {statement:?}: update this test to what it says now"
    );
}

/// A call into `line_format` that composes a line (a lowercase function), not a type.
fn composes_a_line(line: &str) -> bool {
    line.match_indices("line_format::").any(|(at, needle)| {
        let rest = &line[at + needle.len()..];
        rest.starts_with(|c: char| c.is_ascii_lowercase())
            && rest.find('(').is_some_and(|open| {
                rest[..open]
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c == '_')
            })
    })
}

#[test]
fn only_lines_rs_composes_a_judged_calls_ledger_lines() {
    says("only `judge/lines.rs` composes a judged call's ledger lines");
    let files = engine_sources();
    // `engine.rs` writes the startup lines (`activated`, `disabled`, a store's degradation).
    let composers = holders(&files, composes_a_line);
    assert_eq!(
        composers,
        ["engine.rs", "judge/lines.rs"],
        "a judged call's ledger lines are composed outside judge/lines.rs"
    );
}

#[test]
fn only_the_ranking_step_opens_the_snapshot() {
    says("only the ranking step (`judge/rank.rs`) opens the rate snapshot");
    let judge: Vec<(String, String)> = engine_sources()
        .into_iter()
        .filter(|(path, _)| path == "judge.rs" || path.starts_with("judge/"))
        .collect();
    assert_eq!(
        holders(&judge, |l| l.contains(".snapshot()")),
        ["judge/rank.rs"]
    );
}

#[test]
fn only_emit_rs_changes_an_agents_state() {
    says("only `judge/emit.rs` changes an agent's state");
    let judge: Vec<(String, String)> = engine_sources()
        .into_iter()
        .filter(|(path, _)| path == "judge.rs" || path.starts_with("judge/"))
        .collect();
    // The flow holds the agent's state mutably only to hand it to the emit step: no other
    // step takes it mutably.
    assert_eq!(
        holders(&judge, |l| l.contains("&mut AgentState")),
        ["judge.rs", "judge/emit.rs"]
    );
}

#[test]
fn the_follow_through_returns_what_it_resolved_and_one_file_applies_it() {
    says(
        "`follow` takes the agent's state read-only, and only `follow/apply.rs` applies its answer",
    );
    let follow: Vec<(String, String)> = engine_sources()
        .into_iter()
        .filter(|(path, _)| path == "follow.rs" || path.starts_with("follow/"))
        .collect();
    assert!(
        follow.iter().any(|(path, _)| path == "follow.rs"),
        "engine/src/follow.rs moved: update this test"
    );
    // Changing a window means holding the state or a window mutably, or taking one out.
    let changes = |l: &str| {
        l.contains("&mut AgentState")
            || l.contains("&mut Window")
            || l.contains(".get_mut(")
            || l.contains(".as_mut()")
            || l.contains(".take()")
            || l.contains(".remove(")
    };
    assert_eq!(holders(&follow, changes), ["follow/apply.rs"]);
    let root = &follow
        .iter()
        .find(|(path, _)| path == "follow.rs")
        .expect("found")
        .1;
    assert!(
        root.contains("pub fn follow<'w>(state: &AgentState"),
        "`follow` no longer takes the agent's state read-only"
    );
}
