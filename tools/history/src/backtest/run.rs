//! Running the engine over the turns: every turn through a [`Dispatcher`] on a store, each
//! against the tree its commit was made on, collecting the notes, the refused requests and a
//! store's degradation ([`EngineRun`]).

use super::boundary;
use super::error::BacktestError;
use super::peek::end_of_turn;
use super::prepare::Prepared;
use super::rekey;
use super::score::{Note, note_companions};
use super::trace::{self, Turn};
use docsuggest_engine::BoxedStore;
use docsuggest_host::host;
use docsuggest_host::protocol::Dispatcher;
use docsuggest_schema::Config;
use serde_json::Value;
use std::collections::BTreeMap;

/// What one engine run produced.
pub struct EngineRun {
    /// The notes, in order.
    pub notes: Vec<Note>,
    /// Requests the engine refused, by error code.
    pub errors: BTreeMap<String, u64>,
    /// The first `store unavailable` ledger line: the store failed and the engine went on in
    /// memory.
    pub degraded: Option<String>,
    /// The dispatcher, still open (its store can be read or closed).
    pub dispatcher: Dispatcher,
    /// Per turn, each scored file's note as a peek at the end of the turn answered it (when
    /// asked for: the boundary check's view; empty for a training turn).
    pub peeks: Vec<Vec<boundary::Peeked>>,
}

/// The scored-file index after each call of a turn (excluded files are not scored).
fn starts(turn: &Turn, exclude: &[String]) -> Vec<usize> {
    let mut upto = 0;
    turn.files
        .iter()
        .map(|(_, p)| {
            if !p.split('/').any(|c| exclude.iter().any(|e| e == c)) {
                upto += 1;
            }
            upto
        })
        .collect()
}

/// A throwaway memory store bounded as the config bounds one.
pub fn memory_store(config: &Config) -> BoxedStore {
    Box::new(docsuggest_store::FailOpenStore::memory(config.store_limit))
}

/// The first ledger line of `answer` saying the store became unavailable.
fn degradation(answer: &Value) -> Option<String> {
    answer
        .get("ledger")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find(|l| l.contains("store unavailable"))
        .map(String::from)
}

/// Runs every turn through a dispatcher on `store` under `config`, each against the tree its
/// commit was made on (the scratch work tree follows the history as the turns go). With
/// `at_boundary`, each scored turn ends with a peek at each of its scored files, as the
/// change-boundary check asks; with `reminders`, then with a reminder on the turn cut short,
/// which the engine learns from.
pub fn run_engine(
    prepared: &Prepared,
    config: Config,
    store: BoxedStore,
    label: &str,
    boundary: boundary::Peeks<'_>,
) -> Result<EngineRun, BacktestError> {
    let exclude = config.exclude.clone();
    let store: BoxedStore = match &prepared.keys {
        Some(keys) => Box::new(rekey::Rekeyed::new(store, keys.clone())),
        None => store,
    };
    let mut follow = prepared
        .scratch
        .follow(&prepared.repo, prepared.keys.as_ref())?;
    let built = host::start_on(config, store, None);
    let mut dispatcher = Dispatcher::for_host(built);
    let bar = crate::progress::bar_for(
        prepared.turns.len() as u64,
        200,
        &format!("{label} {{bar:40}} {{pos}}/{{len}} commits ({{eta}} left)"),
    );
    let mut notes = Vec::new();
    let mut errors = BTreeMap::new();
    let mut degraded = None;
    let mut peeks = Vec::new();
    for (t, turn) in prepared.turns.iter().enumerate() {
        let starts = starts(turn, &exclude);
        let scored = starts.last().copied().unwrap_or(0);
        let requests = trace::requests(turn, &prepared.neutral, prepared.pad, &prepared.workspace);
        follow.before(&turn.id)?;
        for (r, request) in requests.iter().enumerate() {
            // Request 0 is the `turn`; 1..=files are the commit's files, then pads. A file the
            // commit adds is there when its call is judged, one it deletes is gone.
            if let Some((status, path)) = r.checked_sub(1).and_then(|i| turn.files.get(i)) {
                follow.call(*status, path)?;
            }
            match dispatcher.handle_value(request) {
                Ok(answer) => {
                    if degraded.is_none() {
                        degraded = degradation(&answer);
                    }
                    if r == 0 {
                        continue;
                    }
                    if let Some(note) = answer.get("note").filter(|n| n.is_object()) {
                        let (start, path) = match turn.files.get(r - 1) {
                            Some((_, p)) => (starts[r - 1], p.clone()),
                            None => (scored, prepared.neutral.clone()),
                        };
                        notes.push(Note {
                            turn: t,
                            start,
                            path,
                            confidence: note.get("confidence").and_then(Value::as_f64),
                            family: note
                                .get("family")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            companions: note_companions(note),
                        });
                    }
                }
                Err(e) => *errors.entry(e.code().to_string()).or_default() += 1,
            }
        }
        let at = end_of_turn(
            prepared,
            t,
            turn,
            &exclude,
            boundary,
            &mut dispatcher,
            &mut errors,
        );
        if let Some(peeked) = at {
            peeks.push(peeked);
        }
        follow.after();
        bar.inc(1);
    }
    // Windows still open close as abandoned, as at the end of a replay.
    let end = serde_json::json!({"op": "turn", "agent": trace::AGENT});
    match dispatcher.handle_value(&end) {
        Ok(answer) if degraded.is_none() => degraded = degradation(&answer),
        Ok(_) => {}
        Err(e) => *errors.entry(e.code().to_string()).or_default() += 1,
    }
    bar.finish_and_clear();
    Ok(EngineRun {
        notes,
        errors,
        degraded,
        dispatcher,
        peeks,
    })
}
