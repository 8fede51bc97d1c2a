//! The store, read-only as a host's store command reads it (a copy when a writer holds it):
//! its file, and what it holds for the workspace (learned rows, history, pending notes, the
//! mined pack, the companions learning leaves out).

use super::{LAST_NOTES, LastNote, StatusOptions, StoreStatus};
use docsuggest_engine::locate::Workspace;
use docsuggest_host::protocol::Reading;
use docsuggest_host::stores::{self, Holder};
use docsuggest_schema::{Config, MinedPack, Outcome, RateModel, StoreContents};
use std::path::{Path, PathBuf};

/// What the store said about a workspace.
#[derive(Default)]
pub(super) struct Learned {
    pub(super) mined: Option<MinedPack>,
    pub(super) left_out: Vec<(String, String)>,
}

/// The store file: the one given, else the config's.
pub(super) fn store_path(options: &StatusOptions, config: &Config) -> PathBuf {
    stores::store_file(
        options
            .store
            .as_deref()
            .or(Some(Path::new(&config.store_path))),
    )
}

/// Reads what the store holds for the workspace (read-only; a copy when a writer holds it).
pub(super) fn read_store(
    path: &Path,
    workspace: Option<&Workspace>,
    config: &Config,
) -> (StoreStatus, Learned) {
    let mut status = StoreStatus {
        path: path.display().to_string(),
        exists: path.exists(),
        bytes: std::fs::metadata(path).ok().map(|m| m.len()),
        schema_version: None,
        held: None,
        error: None,
        rate_rows: 0,
        history_entries: 0,
        pending: 0,
        last_notes: Vec::new(),
    };
    let mut learned = Learned::default();
    if !status.exists {
        return (status, learned);
    }
    let key = workspace.map(|w| w.key.clone());
    let reading = Reading {
        model: RateModel::Evidence,
        prune_below: config.prune_below,
        follow_threshold: config.follow_threshold,
    };
    let read = stores::read_holding(Some(path), |store, view, holder| {
        let held = holder.map(Holder::to_string);
        let Some(key) = key.as_deref() else {
            return Ok((held, Learned::default(), 0, Vec::new(), 0));
        };
        let rows: Vec<_> = view
            .rate_rows()?
            .into_iter()
            .filter(|(k, _)| k.workspace == key)
            .collect();
        let left_out = rows
            .iter()
            .filter(|(k, r)| reading.leaves_out(k, r))
            .map(|(k, _)| (k.family.clone(), k.companion.clone()))
            .collect();
        let history: Vec<_> = view
            .history()?
            .into_iter()
            .filter(|e| e.decision.workspace == key)
            .collect();
        let pending = view
            .pending()?
            .iter()
            .filter(|d| d.workspace == key)
            .count();
        let learned = Learned {
            mined: store.mined_pack(key)?,
            left_out,
        };
        Ok((held, learned, rows.len(), history, pending))
    });
    match read {
        Ok((held, found, rows, history, pending)) => {
            status.schema_version = Some(docsuggest_store::SCHEMA_VERSION);
            status.held = held;
            status.rate_rows = rows;
            status.history_entries = history.len();
            status.pending = pending;
            let notes: Vec<_> = history
                .iter()
                .filter(|e| e.decision.outcome != Outcome::Silent)
                .collect();
            status.last_notes = notes[notes.len().saturating_sub(LAST_NOTES)..]
                .iter()
                .map(|e| LastNote {
                    seq: e.decision.seq,
                    family: e.decision.family.clone(),
                    outcome: e.decision.outcome.name(),
                    accepted: e.decision.accepted.clone(),
                    companions: e
                        .decision
                        .companions
                        .iter()
                        .map(|c| c.path.clone())
                        .collect(),
                })
                .collect();
            learned = found;
        }
        Err(e) => status.error = Some(e.to_string()),
    }
    (status, learned)
}
