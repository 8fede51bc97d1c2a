//! Peeking for the boundary: at the end of a scored turn, a peek at each of its scored files,
//! as the change-boundary check (`--boundary`) asks, each note's companions scored by the
//! workspace's rates.

use super::boundary;
use super::prepare::Prepared;
use super::score::{self, note_companions};
use super::trace::Turn;
use docsuggest_engine::compiled::{change_covers, companion_matcher};
use docsuggest_host::protocol::Dispatcher;
use globset::GlobMatcher;
use serde_json::Value;
use std::collections::BTreeMap;

/// The boundary's work at the end of turn `t`: its peeks (`None` when it does not peek; empty
/// for a training turn), then, with `boundary.reminders`, the reminder on the turn cut short.
pub(super) fn end_of_turn(
    prepared: &Prepared,
    t: usize,
    turn: &Turn,
    exclude: &[String],
    boundary: boundary::Peeks<'_>,
    dispatcher: &mut Dispatcher,
    errors: &mut BTreeMap<String, u64>,
) -> Option<Vec<boundary::Peeked>> {
    let scored = t >= prepared.split;
    let peeked = boundary.at_boundary.then(|| match scored {
        true => peek_turn(prepared, turn, exclude, dispatcher, errors),
        false => Vec::new(),
    });
    // The reminder comes after the peeks: the check at a commit knows only the reminders of
    // the commits before it. A commit with no companion file to leave out is not cut, and no
    // reminder comes.
    if let Some(companions) = boundary.reminders.and_then(|r| r.get(t))
        && scored
        && !companions.is_empty()
    {
        let left_out = boundary::left_out(t, companions);
        remind_turn(prepared, turn, exclude, &left_out, dispatcher, errors);
    }
    peeked
}

/// The notes a check of the whole turn reads: a peek at each scored file, the commit's tree in
/// place, as a fresh agent asks (nothing recorded).
fn peek_turn(
    prepared: &Prepared,
    turn: &Turn,
    exclude: &[String],
    dispatcher: &mut Dispatcher,
    errors: &mut BTreeMap<String, u64>,
) -> Vec<boundary::Peeked> {
    let mut peeked = Vec::new();
    for (file, path) in score::scored_paths(turn, exclude).iter().enumerate() {
        let request = serde_json::json!({
            "op": "peek", "agent": boundary::AGENT, "tool": "edit", "boundary": true, "path": path,
            "cwd": prepared.workspace,
        });
        match dispatcher.handle_value(&request) {
            Ok(answer) => {
                if let Some(note) = answer.get("note").filter(|n| n.is_object()) {
                    let confidence = note
                        .get("confidence")
                        .and_then(Value::as_f64)
                        .unwrap_or_default();
                    let companions = note_companions(note);
                    let claims = answer.get("claims").and_then(Value::as_array);
                    let scores = (0..companions.len())
                        .map(|k| boundary::claim_score(claims.and_then(|c| c.get(k))))
                        .collect();
                    peeked.push(boundary::Peeked {
                        file,
                        family: note
                            .get("family")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        scores,
                        confidence,
                        companions,
                    });
                }
            }
            Err(e) => *errors.entry(e.code().to_string()).or_default() += 1,
        }
    }
    peeked
}

/// A reminder at the end of a scored turn cut short (its files but `left_out`), as a Stop
/// reminder comes, then the simulated agent's answer: it adds each named file its commit has
/// and declines the rest, and the engine settles the reminder on that change, learning from
/// it as from a real one.
fn remind_turn(
    prepared: &Prepared,
    turn: &Turn,
    exclude: &[String],
    left_out: &[usize],
    dispatcher: &mut Dispatcher,
    errors: &mut BTreeMap<String, u64>,
) {
    let files = score::scored_paths(turn, exclude);
    let cut: Vec<&String> = (files.iter().enumerate())
        .filter(|(j, _)| !left_out.contains(j))
        .map(|(_, f)| f)
        .collect();
    let mut ask = |paths: &[&String], name: bool| {
        let request = serde_json::json!({
            "op": "boundary", "agent": boundary::REMINDED, "paths": paths,
            "cwd": prepared.workspace, "name": name,
        });
        dispatcher
            .handle_value(&request)
            .map_err(|e| *errors.entry(e.code().to_string()).or_default() += 1)
            .ok()
    };
    let Some(answer) = ask(&cut, true) else {
        return;
    };
    let named: Vec<GlobMatcher> = (answer.get("notes").and_then(Value::as_array))
        .into_iter()
        .flatten()
        .filter_map(|n| n.get("note"))
        .flat_map(note_companions)
        .filter_map(|c| companion_matcher(&c).ok())
        .collect();
    // Every file of the commit not in the cut is a left-out one: a named file the commit has.
    let added = left_out
        .iter()
        .filter_map(|&j| files.get(j))
        .filter(|f| named.iter().any(|m| change_covers(m, f)));
    let answered: Vec<&String> = cut.iter().copied().chain(added).collect();
    ask(&answered, false);
}
