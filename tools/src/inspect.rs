//! Reading a store file from the command line: its rate rows and its decision history.
//!
//! These commands open the redb file directly (not fail-open) and read-only: a file that
//! cannot be opened is an error naming it and why, and the file's bytes never change. redb
//! allows no reader beside a writer process, so they cannot run while a `docsuggest serve`
//! holds the same file; the error says the store is locked by another process.
//!
//! A store file is verified before anything is read from it (redb's page check, see
//! `docsuggest_store::ReadOnlyStore::open`), and a panic inside redb while reading is caught
//! here: a damaged file is an error naming it as corrupt and saying what to do, never a crash
//! and never content read as if it were healthy.

use crate::home;
use crate::host::{self, StoreChoice};
use crate::protocol::{RateView, Reading};
use docsuggest_engine::locate::PackCache;
use docsuggest_engine::probe::OsProbe;
use docsuggest_schema::{
    Config, HistoryEntry, RateKey, RateModel, RateRow, StoreContents, StoreError,
};
use docsuggest_store::{ReadOnlyStore, RedbStore, StoreOptions, StoreView, catch_damage};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// A store that could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InspectError {
    /// No file at the path.
    #[error(
        "no store at {0} (nothing was recorded there yet: run `docsuggest demo` or \
         `docsuggest serve` first, or name a store with --store)"
    )]
    NoStore(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// `--workspace` names no workspace.
    #[error("{0} is not inside a workspace (no ancestor carries the pack signature)")]
    NotAWorkspace(String),
}

/// The store file a `--store` option names, or the default `storePath`.
pub fn store_file(store: Option<&Path>) -> PathBuf {
    let choice = store.map_or(StoreChoice::Configured, |p| {
        StoreChoice::File(p.to_path_buf())
    });
    host::store_path(&choice, &Config::default()).unwrap_or_default()
}

/// Opens an existing store file (never creates one).
pub fn open_existing(store: Option<&Path>) -> Result<RedbStore, InspectError> {
    let path = store_file(store);
    if !path.exists() {
        return Err(InspectError::NoStore(path.display().to_string()));
    }
    let label = path.display().to_string();
    Ok(catch_damage(&label, "opening", || {
        RedbStore::open(StoreOptions::new(path))
    })?)
}

/// Opens an existing store file read-only: its bytes never change (see
/// `docsuggest_store::ReadOnlyStore`).
pub fn open_read_only(store: Option<&Path>) -> Result<ReadOnlyStore, InspectError> {
    let path = store_file(store);
    if !path.exists() {
        return Err(InspectError::NoStore(path.display().to_string()));
    }
    let store = ReadOnlyStore::open(&path)?;
    if store.was_unclean() {
        tracing::warn!(
            store = %path.display(),
            "the store was not closed cleanly; reading a repaired private copy (the file is unchanged)"
        );
    }
    Ok(store)
}

/// Reads one snapshot of a read-only store (verified when opened), then releases the file. A
/// panic inside redb while reading is the file's corruption, reported as such.
pub(crate) fn read<T>(
    store: Option<&Path>,
    f: impl FnOnce(&ReadOnlyStore, &StoreView) -> Result<T, StoreError>,
) -> Result<T, InspectError> {
    let store = open_read_only(store)?;
    let label = store.path().display().to_string();
    let answer = catch_damage(&label, "reading", || {
        store.view().and_then(|view| f(&store, &view))
    });
    let closed = catch_damage(&label, "closing", || store.close());
    if let Err(e) = closed {
        tracing::warn!(error = %e, "closing the store failed");
    }
    Ok(answer?)
}

/// Which rows `rates` shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RatesFilter {
    /// Every workspace.
    All,
    /// The workspace a directory lies in.
    Workspace(PathBuf),
    /// One workspace key.
    Key(String),
}

/// The workspace key of the workspace `dir` lies in, found as the engine finds it.
pub fn workspace_key(dir: &Path) -> Result<String, InspectError> {
    let abs = home::absolute(&home::expand(&dir.to_string_lossy()))
        .map_err(|_| InspectError::NotAWorkspace(dir.display().to_string()))?;
    let mut warnings = Vec::new();
    PackCache::default()
        .locate(&abs, &OsProbe, &mut warnings)
        .map(|w| w.key)
        .ok_or_else(|| InspectError::NotAWorkspace(abs.display().to_string()))
}

/// The rate rows of a store, filtered.
pub fn rates(
    store: Option<&Path>,
    filter: &RatesFilter,
) -> Result<Vec<(RateKey, RateRow)>, InspectError> {
    let key = match filter {
        RatesFilter::All => None,
        RatesFilter::Workspace(dir) => Some(workspace_key(dir)?),
        RatesFilter::Key(key) => Some(key.clone()),
    };
    let rows = read(store, |_, view| view.rate_rows())?;
    Ok(rows
        .into_iter()
        .filter(|(k, _)| key.as_ref().is_none_or(|key| &k.workspace == key))
        .collect())
}

/// Rows as JSON: one object per row with its workspace key. `rate` is the step-rule value (as
/// it always was); `evidence` is the evidence model's rate, with the counts behind it and
/// whether `reading` leaves the companion out.
pub fn rates_json(rows: &[(RateKey, RateRow)], reading: Reading) -> String {
    let views: Vec<serde_json::Value> = rows
        .iter()
        .map(|(k, r)| {
            let view = RateView::new(k, r, reading);
            serde_json::json!({
                "workspace": k.workspace,
                "family": view.family,
                "companion": view.companion,
                "rate": r.step,
                "step": view.step,
                "accepts": view.accepts,
                "rejects": view.rejects,
                "evidence": r.rate(RateModel::Evidence),
                "shadowHits": view.shadow_hits,
                "shadowMisses": view.shadow_misses,
                "recentHits": view.recent_hits,
                "recentMisses": view.recent_misses,
                "leftOut": view.left_out,
            })
        })
        .collect();
    serde_json::to_string_pretty(&views).unwrap_or_default()
}

/// Rows as a table for people: the step value, the evidence rate and its counts, and
/// whether the companion is left out now.
pub fn rates_table(rows: &[(RateKey, RateRow)], reading: Reading) -> String {
    if rows.is_empty() {
        return "no rate rows (nothing learned yet)\n".into();
    }
    let mut out = format!(
        "{:<28} {:<10} {:<32} {:>6} {:>8} {:>8} {:>8} {:>7} {:>7} {:>8}\n",
        "workspace",
        "family",
        "companion",
        "rate",
        "accepts",
        "rejects",
        "evidence",
        "shadow+",
        "shadow-",
        "left-out"
    );
    for (k, r) in rows {
        let companion = if k.companion.is_empty() {
            "(family)"
        } else {
            &k.companion
        };
        let left_out = if reading.leaves_out(k, r) { "yes" } else { "" };
        let _ = writeln!(
            out,
            "{:<28} {:<10} {:<32} {:>6.2} {:>8} {:>8} {:>8.2} {:>7} {:>7} {:>8}",
            k.workspace,
            k.family,
            companion,
            r.step,
            r.accepts,
            r.rejects,
            r.rate(RateModel::Evidence),
            r.shadow_hits,
            r.shadow_misses,
            left_out
        );
    }
    out
}

/// The last `limit` entries of the resolved history, oldest first.
pub fn history(store: Option<&Path>, limit: usize) -> Result<Vec<HistoryEntry>, InspectError> {
    let mut entries = read(store, |_, view| view.history())?;
    let skip = entries.len().saturating_sub(limit);
    entries.drain(..skip);
    Ok(entries)
}

/// History entries as a JSON array.
pub fn history_json(entries: &[HistoryEntry]) -> String {
    serde_json::to_string_pretty(entries).unwrap_or_default()
}

/// History entries as a table for people.
pub fn history_table(entries: &[HistoryEntry]) -> String {
    if entries.is_empty() {
        return "no history (no decision resolved yet)\n".into();
    }
    let mut out = format!(
        "{:>6} {:>6} {:<9} {:<10} {:>5} {:<28} {:<12} {}\n",
        "res", "dec", "outcome", "family", "kappa", "workspace", "agent", "companions"
    );
    for e in entries {
        let d = &e.decision;
        let companions: Vec<String> = d
            .companions
            .iter()
            .map(|c| {
                if d.accepted.as_deref() == Some(c.path.as_str()) {
                    format!("{}*", c.path)
                } else {
                    c.path.clone()
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "{:>6} {:>6} {:<9} {:<10} {:>5.2} {:<28} {:<12} {}",
            e.resolution_seq,
            d.seq,
            d.outcome.name(),
            d.family,
            d.kappa,
            d.workspace,
            d.agent,
            companions.join(",")
        );
    }
    out.push_str("(* = the accepted companion)\n");
    out
}

/// Closes a store opened for reading; a failure only matters to the log.
pub(crate) fn close(store: &mut RedbStore) {
    use docsuggest_schema::DecisionStore;
    if let Err(e) = store.close() {
        tracing::warn!(error = %e, "closing the store failed");
    }
}
