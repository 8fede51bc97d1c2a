//! The answer to one event: [`answer`] sends the event's action to the engine (a turn, the
//! judged calls, a flush, a Stop hook's change-boundary check and its settling, a commit's
//! check) and [`output`] shapes what the harness reads on stdout.

use super::cooldown;
use super::event::Action;
use super::log::log;
use super::options::{Boundary, Harness, HookOptions};
use super::transport::{Transport, TransportError};
use super::turns::Turns;
use crate::check_change::{
    ANSWER_LIMIT, ChangeSet, CheckError, CheckReport, Deadlines, ask_waiting, mining,
};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// The most of a hook's budget kept from git for the engine's answers after it.
const ENGINE_RESERVE: Duration = Duration::from_millis(250);

/// One event's answer in the making: the hook's options, its engine and when it must end.
struct Answering<'a> {
    options: &'a HookOptions,
    turns: Turns,
    /// git is stopped by then, leaving the engine time to answer before the hook's deadline.
    git_deadline: Instant,
}

impl Answering<'_> {
    /// A check made now: git, and a pack being mined (a small history's finishes in time),
    /// waited for within the hook's budget.
    fn deadlines(&self) -> Deadlines {
        Deadlines {
            git: self.git_deadline,
            mining: self.git_deadline,
        }
    }

    /// Records why a boundary said nothing, in the hook log.
    fn unchecked(&self, what: &str, e: &CheckError) {
        log(self.options, "no-boundary", &format!("{what}: {e}"));
    }
}

/// Sends `action` to the engine and answers the hook's stdout, by `deadline`.
pub fn answer(
    options: &HookOptions,
    action: &Action,
    engine: &mut dyn Transport,
    deadline: Instant,
) -> Result<Option<String>, TransportError> {
    let reserve = ENGINE_RESERVE.min(options.budget / 4);
    let answering = Answering {
        options,
        turns: Turns::of(options),
        git_deadline: deadline.checked_sub(reserve).unwrap_or(deadline),
    };
    let (harness, turns) = (options.harness, &answering.turns);
    match action {
        Action::Turn { agent, turn_id } => {
            engine.request(json!({"op": "turn", "agent": agent}))?;
            // A new turn: the session may be reminded again at its end.
            turns.forget(&reminded(agent));
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
            let answer = stop(&answering, engine, agent.as_deref(), cwd, *active);
            engine.request(json!({"op": "flush"}))?;
            Ok(answer)
        }
        Action::Peek { cwd, calls } => {
            for call in calls {
                engine.request(json!({
                    "op": "peek", "agent": "peek", "tool": call.tool, "path": call.path, "cwd": cwd,
                }))?;
            }
            Ok(None)
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
                let judge = json!({
                    "op": "judge", "agent": agent, "tool": call.tool, "path": call.path, "cwd": cwd,
                });
                let mut answer = engine.request(judge.clone())?;
                if mining(&answer) && mined_in_time(engine, &judge, answering.git_deadline) {
                    // The repository's first call is not lost to mining a small history.
                    answer = engine.request(judge)?;
                }
                if let Some(text) = answer["note"]["text"].as_str() {
                    notes.push(text.to_string());
                }
                for warning in answer["warnings"].as_array().into_iter().flatten() {
                    log(options, "pack-error", warning.as_str().unwrap_or_default());
                }
            }
            Ok(output(harness, "PostToolUse", &notes))
        }
        Action::Commit { agent, cwd } => {
            let note = at_commit(&answering, engine, agent.as_deref(), Path::new(cwd));
            Ok(note.and_then(|text| output(harness, "PreToolUse", &[text])))
        }
    }
}

/// Whether the pack `judge`'s repository is being mined is ready by `deadline` (asked with
/// peeks, which record nothing).
fn mined_in_time(engine: &mut dyn Transport, judge: &Value, deadline: Instant) -> bool {
    let mut peek = judge.clone();
    peek["op"] = json!("peek");
    ask_waiting(&peek, deadline, &mut asker(engine)).is_ok_and(|answer| !mining(&answer))
}

/// Asks the engine through `engine`, in `check_change`'s terms.
fn asker(engine: &mut dyn Transport) -> impl FnMut(&Value) -> Result<Value, CheckError> + '_ {
    |request: &Value| {
        engine
            .request(request.clone())
            .map_err(|e| CheckError::Ask(e.to_string()))
    }
}

/// A `git commit`'s boundary: what the staged change lacks (`None`: nothing to say, or it
/// could not be checked — a commit is never held up). Under the session's commit agent, what
/// its last commit named is first settled against everything done since that commit's parent,
/// and what this one names is recorded, to be settled at its next commit or the turn's end.
fn at_commit(
    answering: &Answering<'_>,
    engine: &mut dyn Transport,
    session: Option<&str>,
    cwd: &Path,
) -> Option<String> {
    let learn_as = session.map(commit_agent);
    let mut ask = asker(engine);
    if let Some(agent) = &learn_as {
        settle_since_commit(answering, cwd, agent, &mut ask);
    }
    // The commit is made on top of today's HEAD: what follows it counts.
    let said = |report: &CheckReport| report.before_commit().or_else(|| report.cannot_check());
    check_remembering_head(
        answering,
        cwd,
        &ChangeSet::Staged,
        learn_as.as_deref(),
        &mut ask,
        said,
    )
}

/// The check of `set` as `learn_as` (`None`: peeks only), what `say` makes of its report
/// (bounded, as every answer a model reads), and, when a learning check says something,
/// today's HEAD remembered for it: its next boundary settles against everything done since.
/// No wait for a pack being mined: a hook answers within its budget, and what cannot be
/// checked in it is not said (the hook log says why).
fn check_remembering_head(
    answering: &Answering<'_>,
    cwd: &Path,
    set: &ChangeSet,
    learn_as: Option<&str>,
    ask: &mut impl FnMut(&Value) -> Result<Value, CheckError>,
    say: impl FnOnce(&CheckReport) -> Option<String>,
) -> Option<String> {
    let checked = crate::check_change::check_with(cwd, set, answering.deadlines(), learn_as, ask);
    let report = match checked {
        Ok(report) => report.bounded(ANSWER_LIMIT),
        Err(e) => {
            answering.unchecked("the change was not checked", &e);
            return None;
        }
    };
    for error in &report.errors {
        log(answering.options, "no-boundary", error);
    }
    let said = say(&report);
    if let (Some(agent), Some(_)) = (learn_as, &said) {
        match crate::check_change::head(cwd, answering.git_deadline) {
            Some(head) => answering.turns.remember(agent, &head),
            None => answering.turns.forget(agent),
        }
    }
    said
}

/// Settles what the commit agent `agent` last named against the change since the commit it
/// was named before (that commit, what came after it, the work tree), when one is remembered.
fn settle_since_commit(
    answering: &Answering<'_>,
    cwd: &Path,
    agent: &str,
    ask: &mut impl FnMut(&Value) -> Result<Value, CheckError>,
) {
    let Some(head) = answering.turns.recall(agent) else {
        return;
    };
    let since = ChangeSet::Since(head);
    let settled = crate::check_change::settle(cwd, &since, agent, answering.git_deadline, ask);
    if let Err(e) = settled {
        answering.unchecked("the commit boundary was not settled", &e);
    }
    answering.turns.forget(agent);
}

/// The agent a session's commit boundaries speak for: apart from its Stop reminders, so each
/// is settled by its own next boundary.
fn commit_agent(session: &str) -> String {
    format!("{session}/commit")
}

/// A Stop: its change boundary, once per turn. An event that does not say whether the agent
/// already goes on from a stop hook (`active` is `None`: Copilot CLI) is answered from what
/// this hook remembers: the session's reminder given at its last stop in this turn.
fn stop(
    answering: &Answering<'_>,
    engine: &mut dyn Transport,
    agent: Option<&str>,
    cwd: &Option<String>,
    active: Option<bool>,
) -> Option<String> {
    let (Some(session), None) = (agent, active) else {
        return at_boundary(answering, engine, agent, cwd, active.unwrap_or(false));
    };
    let marker = reminded(session);
    let active = answering.turns.recall(&marker).is_some();
    answering.turns.forget(&marker);
    let answer = at_boundary(answering, engine, agent, cwd, active);
    if !active && answer.as_deref().is_some_and(blocks) {
        answering.turns.remember(&marker, "reminded");
    }
    answer
}

/// Whether a Stop hook's answer keeps the agent going.
fn blocks(answer: &str) -> bool {
    serde_json::from_str::<Value>(answer).is_ok_and(|v| {
        v.get("decision").and_then(Value::as_str) == Some("block")
            || v.get("followup_message").is_some()
    })
}

/// The remembered mark of a session's reminder in the turn.
fn reminded(session: &str) -> String {
    format!("{session}/reminded")
}

/// A Stop's change boundary: the reminder the work tree's change calls for (`None`: nothing
/// to say), or, at the stop after a reminder (`active`), the reminder settled against what
/// was done since. What cannot be checked or settled is not: a stop is never held up.
fn at_boundary(
    answering: &Answering<'_>,
    engine: &mut dyn Transport,
    agent: Option<&str>,
    cwd: &Option<String>,
    active: bool,
) -> Option<String> {
    let boundary = answering.options.boundary;
    // An event without `cwd` (older Claude Code builds sent none on Stop): the project
    // directory the harness runs its hooks for.
    let cwd = cwd
        .clone()
        .or_else(|| std::env::var("CLAUDE_PROJECT_DIR").ok())?;
    let cwd = Path::new(&cwd);
    let mut ask = asker(engine);
    // The turn ends: what its last commit named is settled against what was done since.
    if let Some(session) = agent {
        settle_since_commit(answering, cwd, &commit_agent(session), &mut ask);
    }
    // Only a reminder the agent reads is learned from: its boundary agent names what the turn
    // lacks, and the stop after it settles what the agent then added.
    let learn_as = agent
        .filter(|_| boundary == Boundary::Remind)
        .map(boundary_agent);
    let work_tree = ChangeSet::WorkTree;
    if active || boundary == Boundary::Off {
        if let Some(agent) = &learn_as {
            // The change since the reminder's commit: what the agent committed after the
            // reminder is part of what it did about it.
            let since = answering
                .turns
                .recall(agent)
                .map_or(work_tree, ChangeSet::Since);
            let settled =
                crate::check_change::settle(cwd, &since, agent, answering.git_deadline, ask);
            if let Err(e) = settled {
                answering.unchecked("the boundary was not settled", &e);
            }
        }
        return None;
    }
    let harness = answering.options.harness;
    // Only a claim whose evidence clears the bar holds the agent up; the weaker ones, and
    // why a change could not be checked, are told to the user, never the agent.
    let said = |report: &CheckReport| {
        // What the session declined at an earlier stop, on an unchanged change, is not
        // named again.
        let reminding = agent.filter(|_| boundary == Boundary::Remind);
        let cooled = reminding.map(|session| cooldown::cool(report, &answering.turns, session));
        let report = cooled.as_ref().unwrap_or(report);
        let told = report.informing();
        match report.at_stop() {
            Some(reminder) => at_stop(harness, boundary, &reminder, told.as_deref()),
            None => (told.or_else(|| report.cannot_check()))
                .and_then(|text| at_stop(harness, Boundary::Inform, &text, None)),
        }
    };
    check_remembering_head(
        answering,
        cwd,
        &work_tree,
        learn_as.as_deref(),
        &mut ask,
        said,
    )
}

/// The agent a session's change boundaries speak for: its own, so a boundary's notes are
/// settled only by the session's next boundary, never by its calls.
fn boundary_agent(session: &str) -> String {
    format!("{session}/boundary")
}

/// A Stop hook's answer: the harness's documented way to keep the agent going with a reason
/// (`remind`: Cursor's is a follow-up message), or a message for the user alone (`inform`;
/// Cursor's stop hook has none, so it says nothing); `for_user` is told the user beside it.
fn at_stop(
    harness: Harness,
    boundary: Boundary,
    text: &str,
    for_user: Option<&str>,
) -> Option<String> {
    match (harness, boundary) {
        (Harness::Cursor, Boundary::Remind) => Some(json!({"followup_message": text}).to_string()),
        (Harness::Cursor, _) => None,
        (_, Boundary::Remind) => {
            let mut answer = json!({"decision": "block", "reason": text});
            if let Some(told) = for_user {
                answer["systemMessage"] = told.into();
            }
            Some(answer.to_string())
        }
        (_, Boundary::Inform | Boundary::Off) => {
            let text = match for_user {
                Some(told) => format!("{text}\n\n{told}"),
                None => text.to_string(),
            };
            Some(json!({"systemMessage": text}).to_string())
        }
    }
}

/// The harness's answer carrying `notes` as additional context; `None` without notes.
pub fn output(harness: Harness, event: &str, notes: &[String]) -> Option<String> {
    if notes.is_empty() {
        return None;
    }
    // Written by hand to keep the documented key order; the strings are JSON-escaped.
    let quote = |s: &str| Value::from(s).to_string();
    match harness {
        // Copilot CLI reads only a top-level `additionalContext`.
        Harness::Copilot => {
            return Some(format!(
                r#"{{"additionalContext":{}}}"#,
                quote(&notes.join("\n\n"))
            ));
        }
        // Cursor shows nothing a hook prints after a call.
        Harness::Cursor => return None,
        // Codex's post-tool-use output schema copies Claude Code's; the OpenCode plugin
        // reads the same.
        Harness::ClaudeCode | Harness::Codex | Harness::OpenCode => {}
    }
    Some(format!(
        r#"{{"hookSpecificOutput":{{"hookEventName":{},"additionalContext":{}}}}}"#,
        quote(event),
        quote(&notes.join("\n\n"))
    ))
}
