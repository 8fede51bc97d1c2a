//! The answer to one event: [`answer`] sends the event's action to the engine (a turn, the
//! judged calls, a flush, a Stop hook's change-boundary check and its settling, a commit's
//! check) and [`output`] shapes what the harness reads on stdout.

use super::event::Action;
use super::options::{Boundary, Harness};
use super::transport::{Transport, TransportError};
use super::turns::Turns;
use crate::check_change::CheckReport;
use serde_json::{Value, json};
use std::path::Path;
use std::time::Instant;

/// Sends `action` to the engine and answers the hook's stdout.
pub fn answer(
    harness: Harness,
    action: &Action,
    engine: &mut dyn Transport,
    turns: &Turns,
    boundary: Boundary,
) -> Result<Option<String>, TransportError> {
    match action {
        Action::Turn { agent, turn_id } => {
            engine.request(json!({"op": "turn", "agent": agent}))?;
            if let Some(id) = turn_id {
                turns.remember(agent, id);
            }
            Ok(None)
        }
        Action::Flush => {
            engine.request(json!({"op": "flush"}))?;
            Ok(None)
        }
        Action::Stop { agent, cwd, active } => {
            let note = at_boundary(engine, turns, boundary, agent.as_deref(), cwd, *active);
            engine.request(json!({"op": "flush"}))?;
            Ok(note.map(|text| at_stop(boundary, &text)))
        }
        Action::Judge {
            agent,
            cwd,
            turn_id,
            calls,
        } => {
            // Codex starts a turn with a new turn id, which may arrive before any prompt hook.
            if let Some(id) = turn_id
                && turns.is_new(agent, id)
            {
                engine.request(json!({"op": "turn", "agent": agent}))?;
                turns.remember(agent, id);
            }
            let mut notes = Vec::new();
            for call in calls {
                let answer = engine.request(json!({
                    "op": "judge", "agent": agent, "tool": call.tool, "path": call.path, "cwd": cwd,
                }))?;
                if let Some(text) = answer["note"]["text"].as_str() {
                    notes.push(text.to_string());
                }
            }
            Ok(output(harness, "PostToolUse", &notes))
        }
        Action::Commit { agent, cwd } => {
            let note = at_commit(engine, turns, agent.as_deref(), Path::new(cwd));
            Ok(note.and_then(|text| output(harness, "PreToolUse", &[text])))
        }
    }
}

/// Asks the engine through `engine`, in `check_change`'s terms.
fn asker(
    engine: &mut dyn Transport,
) -> impl FnMut(&Value) -> Result<Value, crate::check_change::CheckError> + '_ {
    |request: &Value| {
        engine
            .request(request.clone())
            .map_err(|e| crate::check_change::CheckError::Ask(e.to_string()))
    }
}

/// A `git commit`'s boundary: what the staged change lacks (`None`: nothing to say, or it
/// could not be checked — a commit is never held up). Under the session's commit agent, what
/// its last commit named is first settled against everything done since that commit's parent,
/// and what this one names is recorded, to be settled at its next commit or the turn's end.
fn at_commit(
    engine: &mut dyn Transport,
    turns: &Turns,
    session: Option<&str>,
    cwd: &Path,
) -> Option<String> {
    let learn_as = session.map(commit_agent);
    let mut ask = asker(engine);
    if let Some(agent) = &learn_as {
        settle_since_commit(cwd, turns, agent, &mut ask);
    }
    // The commit is made on top of today's HEAD: what follows it counts.
    let staged = crate::check_change::ChangeSet::Staged;
    let said = |report: &CheckReport| report.before_commit();
    check_remembering_head(cwd, &staged, learn_as.as_deref(), turns, &mut ask, said)
}

/// The check of `set` as `learn_as` (`None`: peeks only), what `say` makes of its report, and,
/// when a learning check says something, today's HEAD remembered for it: its next boundary
/// settles against everything done since. No wait for a pack being mined: a hook answers
/// within its budget, and what cannot be checked is not said.
fn check_remembering_head(
    cwd: &Path,
    set: &crate::check_change::ChangeSet,
    learn_as: Option<&str>,
    turns: &Turns,
    ask: &mut impl FnMut(&Value) -> Result<Value, crate::check_change::CheckError>,
    say: impl FnOnce(&CheckReport) -> Option<String>,
) -> Option<String> {
    let checked = crate::check_change::check_with(cwd, set, Instant::now(), learn_as, ask);
    let said = checked.ok().and_then(|report| say(&report));
    if let (Some(agent), Some(_)) = (learn_as, &said) {
        match crate::check_change::head(cwd) {
            Some(head) => turns.remember(agent, &head),
            None => turns.forget(agent),
        }
    }
    said
}

/// Settles what the commit agent `agent` last named against the change since the commit it
/// was named before (that commit, what came after it, the work tree), when one is remembered.
fn settle_since_commit(
    cwd: &Path,
    turns: &Turns,
    agent: &str,
    ask: &mut impl FnMut(&Value) -> Result<Value, crate::check_change::CheckError>,
) {
    let Some(head) = turns.recall(agent) else {
        return;
    };
    let since = crate::check_change::ChangeSet::Since(head);
    if let Err(e) = crate::check_change::settle(cwd, &since, agent, ask) {
        tracing::debug!(error = %e, "the commit boundary was not settled");
    }
    turns.forget(agent);
}

/// The agent a session's commit boundaries speak for: apart from its Stop reminders, so each
/// is settled by its own next boundary.
fn commit_agent(session: &str) -> String {
    format!("{session}/commit")
}

/// A Stop's change boundary: the reminder the work tree's change calls for (`None`: nothing
/// to say), or, at the stop after a reminder (`active`), the reminder settled against what
/// was done since. What cannot be checked or settled is not: a stop is never held up.
fn at_boundary(
    engine: &mut dyn Transport,
    turns: &Turns,
    boundary: Boundary,
    agent: Option<&str>,
    cwd: &Option<String>,
    active: bool,
) -> Option<String> {
    // An event without `cwd` (older Claude Code builds sent none on Stop): the project
    // directory the harness runs its hooks for.
    let cwd = cwd
        .clone()
        .or_else(|| std::env::var("CLAUDE_PROJECT_DIR").ok())?;
    let cwd = Path::new(&cwd);
    let mut ask = asker(engine);
    // The turn ends: what its last commit named is settled against what was done since.
    if let Some(session) = agent {
        settle_since_commit(cwd, turns, &commit_agent(session), &mut ask);
    }
    // Only a reminder the agent reads is learned from: its boundary agent names what the turn
    // lacks, and the stop after it settles what the agent then added.
    let learn_as = agent
        .filter(|_| boundary == Boundary::Remind)
        .map(boundary_agent);
    let work_tree = crate::check_change::ChangeSet::WorkTree;
    if active || boundary == Boundary::Off {
        if let Some(agent) = &learn_as {
            // The change since the reminder's commit: what the agent committed after the
            // reminder is part of what it did about it.
            let since = turns
                .recall(agent)
                .map_or(work_tree, crate::check_change::ChangeSet::Since);
            if let Err(e) = crate::check_change::settle(cwd, &since, agent, ask) {
                tracing::debug!(error = %e, "the boundary was not settled");
            }
        }
        return None;
    }
    let said = |report: &CheckReport| report.at_stop();
    check_remembering_head(cwd, &work_tree, learn_as.as_deref(), turns, &mut ask, said)
}

/// The agent a session's change boundaries speak for: its own, so a boundary's notes are
/// settled only by the session's next boundary, never by its calls.
fn boundary_agent(session: &str) -> String {
    format!("{session}/boundary")
}

/// A Stop hook's answer: the harness's documented way to keep the agent going with a reason
/// (`remind`), or a message for the user alone (`inform`).
fn at_stop(boundary: Boundary, text: &str) -> String {
    match boundary {
        Boundary::Remind => json!({"decision": "block", "reason": text}).to_string(),
        Boundary::Inform | Boundary::Off => json!({"systemMessage": text}).to_string(),
    }
}

/// The harness's answer carrying `notes` as additional context; `None` without notes.
pub fn output(harness: Harness, event: &str, notes: &[String]) -> Option<String> {
    if notes.is_empty() {
        return None;
    }
    // Both harnesses read the same shape (Codex's post-tool-use output schema copies it).
    let _ = harness;
    // Written by hand to keep the documented key order; the strings are JSON-escaped.
    let quote = |s: &str| Value::from(s).to_string();
    Some(format!(
        r#"{{"hookSpecificOutput":{{"hookEventName":{},"additionalContext":{}}}}}"#,
        quote(event),
        quote(&notes.join("\n\n"))
    ))
}
