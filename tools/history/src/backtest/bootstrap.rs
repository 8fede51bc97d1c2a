//! `docsuggest bootstrap`: a repository's history replayed into a store, so learning there
//! starts from it.
//!
//! The store is first read read-only: one that already holds anything for the workspace is
//! refused unless `force`, and then left byte for byte as it was. Replaying opens it for
//! writing strictly (a locked, damaged or newer store is an error, never the memory fallback a
//! session would use) and, with `force`, first forgets everything the workspace held (rates,
//! base rows, history, pending) in one transaction, so running it twice leaves what running it
//! once does.

use super::warm::workspace_key;
use super::{BacktestError, Options, prepare, run_config, run_engine};
use docsuggest_host::host::{self, StoreChoice};
use docsuggest_host::stores;
use docsuggest_schema::{DecisionStore, StoreContents};
use docsuggest_store::{FailOpenStore, StoreOptions};
use std::collections::BTreeMap;
use std::path::Path;

/// What `bootstrap --force` removed before replaying.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Replaced {
    /// Live rate rows.
    pub rates: usize,
    /// Base rows (folded evicted history).
    pub base: usize,
    /// History entries.
    pub history: usize,
    /// Pending decisions.
    pub pending: usize,
}

/// What `docsuggest bootstrap` did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BootstrapReport {
    /// The store file.
    pub store: String,
    /// The workspace the history was recorded for.
    pub workspace: String,
    /// Its key in the store.
    pub workspace_key: String,
    /// The tip replayed up to (`--rev`, default `HEAD`).
    pub tip: String,
    /// Commits replayed.
    pub commits: usize,
    /// Notes made.
    pub notes: usize,
    /// Requests the engine refused, by code.
    pub errors: BTreeMap<String, u64>,
    /// What the workspace held before and `--force` replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<Replaced>,
}

/// Whether the store file holds anything of `key` (read-only: its bytes never change).
fn holds(path: &Path, key: &str) -> Result<bool, BacktestError> {
    if !path.exists() {
        return Ok(false);
    }
    stores::read(Some(path), |_, view| {
        Ok(view.rate_rows()?.iter().any(|(k, _)| k.workspace == key)
            || view.base_rows()?.iter().any(|(k, _)| k.workspace == key)
            || view.history()?.iter().any(|e| e.decision.workspace == key)
            || view.pending()?.iter().any(|d| d.workspace == key))
    })
    .map_err(|e| BacktestError::Store {
        store: path.display().to_string(),
        reason: e.to_string(),
    })
}

/// `docsuggest bootstrap`: replays the history into the store at `store` under the config's
/// learning engine. A store that already holds anything for the workspace is refused unless
/// `force`, which replaces it. The engine must judge in the repository's own work tree, so
/// the store's keys are those a later session there uses.
pub fn bootstrap(
    options: &Options,
    store: &Path,
    force: bool,
) -> Result<BootstrapReport, BacktestError> {
    let config = run_config(options, true)?;
    let prepared = prepare(options, &config)?;
    if prepared.shadowed() {
        return Err(BacktestError::Argument(format!(
            "{} has no work tree holding the pack in use: bootstrap records for the work tree, check it out first",
            options.repo.display()
        )));
    }
    let key = workspace_key(&prepared)?;
    let path = host::store_path(&StoreChoice::File(store.to_path_buf()), &config)
        .unwrap_or_else(|| store.to_path_buf());
    let label = path.display().to_string();
    if !force && holds(&path, &key)? {
        return Err(BacktestError::Refused {
            store: label,
            workspace: prepared.recorded_workspace(),
        });
    }
    let mut opened = FailOpenStore::open(
        StoreOptions::from_config(&path, &config),
        config.store_limit,
    );
    if let Some(reason) = opened.take_degradation() {
        return Err(BacktestError::Store {
            store: label,
            reason,
        });
    }
    let mut replaced = None;
    if force && let Some(redb) = opened.redb_mut() {
        let gone = redb
            .forget_workspace(&key)
            .map_err(|e| BacktestError::Store {
                store: label.clone(),
                reason: e.to_string(),
            })?;
        let gone = Replaced {
            rates: gone.rates,
            base: gone.base,
            history: gone.history,
            pending: gone.pending,
        };
        replaced = (gone != Replaced::default()).then_some(gone);
    }
    let mut run = run_engine(
        &prepared,
        config,
        Box::new(opened),
        "bootstrap",
        Default::default(),
    )?;
    let finished = run.dispatcher.finish();
    if let Some(line) = run.degraded {
        return Err(BacktestError::Store {
            store: label,
            reason: format!(
                "it failed during the replay ({line}); what was written before is consistent, \
                 run bootstrap again with --force"
            ),
        });
    }
    finished.map_err(|e| BacktestError::Close(e.to_string()))?;
    Ok(BootstrapReport {
        store: label,
        workspace: prepared.recorded_workspace(),
        workspace_key: key,
        tip: prepared.history.tip.clone(),
        commits: prepared.turns.len(),
        notes: run.notes.len(),
        errors: run.errors,
        replaced,
    })
}
