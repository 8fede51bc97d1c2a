//! `backtest --store`: the learning engine starts from a copy of a store's learned rows.
//!
//! The store file is opened read-only (its bytes never change, see
//! `docsuggest_store::ReadOnlyStore`) and only the live rate rows of the workspace the
//! backtest judges in are copied, into a memory store the learning engine then trains and is
//! scored on. The engine reads nothing else of a store when it judges, so this is the whole
//! learned layer a session there would start from.

use super::{BacktestError, Prepared};
use docsuggest_engine::BoxedStore;
use docsuggest_host::stores::{self, InspectError};
use docsuggest_schema::Config;
use docsuggest_store::{MemoryStore, Resume};
use std::collections::BTreeSet;
use std::path::Path;

/// The learned rows a backtest's learning engine started from.
#[derive(Clone, Debug, serde::Serialize)]
pub struct WarmStart {
    /// The store file (read only).
    pub store: String,
    /// The workspace key whose rows were copied.
    pub workspace_key: String,
    /// Rate rows copied (at most the config's `storeLimit`, the memory store's bound).
    pub rows: usize,
}

/// The key of the workspace a backtest records for (the work tree's, when it holds the pack).
pub(super) fn workspace_key(prepared: &Prepared) -> Result<String, BacktestError> {
    stores::workspace_key(Path::new(&prepared.recorded_workspace()))
        .map_err(BacktestError::Workspace)
}

fn unusable(store: &Path, e: &InspectError) -> BacktestError {
    let reason = match e {
        InspectError::NoStore(_) => "no such file".to_string(),
        other => other.to_string(),
    };
    BacktestError::Store {
        store: store.display().to_string(),
        reason,
    }
}

/// Reads the learned rows of `prepared`'s workspace from `store` into a memory store for the
/// learning engine under `config`.
pub(super) fn learned(
    store: &Path,
    prepared: &Prepared,
    config: &Config,
) -> Result<(WarmStart, BoxedStore), BacktestError> {
    if prepared.shadowed() {
        return Err(BacktestError::Argument(format!(
            "--store needs the repository's work tree holding the pack in use: a store's rates \
             are keyed by the work tree, as bootstrap records them, and {} has none",
            prepared.history.work_tree.as_deref().map_or_else(
                || "this repository".to_string(),
                |w| w.display().to_string()
            )
        )));
    }
    let key = workspace_key(prepared)?;
    let all =
        stores::rates(Some(store), &stores::RatesFilter::All).map_err(|e| unusable(store, &e))?;
    let (mine, others): (Vec<_>, Vec<_>) = all.into_iter().partition(|(k, _)| k.workspace == key);
    if mine.is_empty() {
        let held: BTreeSet<&str> = others.iter().map(|(k, _)| k.workspace.as_str()).collect();
        return Err(BacktestError::OtherWorkspace {
            store: store.display().to_string(),
            workspace: prepared.recorded_workspace(),
            key,
            held: if held.is_empty() {
                "no rates at all".into()
            } else {
                format!(
                    "rates of {}",
                    held.into_iter().collect::<Vec<_>>().join(", ")
                )
            },
        });
    }
    let rows = mine.len().min(config.store_limit.max(1));
    let memory = MemoryStore::resume(
        config.store_limit,
        Resume {
            rates: mine,
            ..Resume::default()
        },
    );
    Ok((
        WarmStart {
            store: store.display().to_string(),
            workspace_key: key,
            rows,
        },
        Box::new(memory),
    ))
}
