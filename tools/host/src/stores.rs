//! Opening a store file for the commands that read it: its rate rows and its decision history.
//!
//! These commands open the redb file directly (not fail-open) and read-only: a file that
//! cannot be opened is an error naming it and why, and the file's bytes never change. redb
//! allows no reader beside a writer process; while one (a `docsuggest serve`, the socket
//! daemon) holds the file, they read a private copy holding its last durable commit
//! (`docsuggest_store::ReadOnlyStore::open_beside_writer`), after asking the user's daemon to
//! flush when it is the one serving the file, so the copy holds every decision it answered.
//!
//! A store file is verified before anything is read from it (redb's page check, see
//! `docsuggest_store::ReadOnlyStore::open`), and a panic inside redb while reading is caught
//! here: a damaged file is an error naming it as corrupt and saying what to do, never a crash
//! and never content read as if it were healthy.

use crate::home;
use crate::host::{self, StoreChoice};
use docsuggest_engine::locate::PackCache;
use docsuggest_engine::probe::OsProbe;
use docsuggest_schema::{Config, HistoryEntry, RateKey, RateRow, StoreContents, StoreError};
use docsuggest_store::{ReadOnlyStore, RedbStore, StoreOptions, StoreView, catch_damage};
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
    #[error(
        "{0} is not inside a workspace (no ancestor carries the pack signature, and it is in \
         no git work tree without a pack file)"
    )]
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

/// Who held a store file that was read through a copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The user's daemon socket that was asked.
    pub socket: PathBuf,
    /// The pid of the daemon on it that serves the file and flushed before the copy (0: its
    /// pid file was unreadable); `None` when no daemon there serves it (another `serve`
    /// holds the file, and the copy may miss its last `flushIntervalMs` of decisions).
    pub flushed_by: Option<u32>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.flushed_by {
            Some(pid) => write!(
                f,
                "held by the daemon on {} (pid {pid}), which flushed first: read a copy holding \
                 every decision it answered",
                self.socket.display()
            ),
            None => write!(
                f,
                "held by another process (no daemon on {} serves it): read a copy holding its \
                 last durable commit (decisions of its last flush interval may be missing)",
                self.socket.display()
            ),
        }
    }
}

/// Opens an existing store file read-only: its bytes never change (see
/// `docsuggest_store::ReadOnlyStore`). A file another process holds is read through a copy
/// (see the module's documentation).
pub fn open_read_only(store: Option<&Path>) -> Result<ReadOnlyStore, InspectError> {
    open_holding(store).map(|(store, _)| store)
}

/// [`open_read_only`], with who held the file when it was read through a copy.
pub fn open_holding(store: Option<&Path>) -> Result<(ReadOnlyStore, Option<Holder>), InspectError> {
    let path = store_file(store);
    if !path.exists() {
        return Err(InspectError::NoStore(path.display().to_string()));
    }
    let (store, holder) = match ReadOnlyStore::open(&path) {
        Err(StoreError::Locked { .. }) => {
            let holder = flush_holder(&path);
            (ReadOnlyStore::open_beside_writer(&path)?, holder)
        }
        opened => (opened?, None),
    };
    if store.was_unclean() {
        tracing::warn!(
            store = %path.display(),
            "the store was not closed cleanly; reading a repaired private copy (the file is unchanged)"
        );
    }
    let holder = holder.filter(|_| store.was_held());
    if let Some(holder) = &holder {
        if holder.flushed_by.is_some() {
            tracing::info!(store = %path.display(), "{holder}");
        } else {
            tracing::warn!(store = %path.display(), "{holder}");
        }
    }
    Ok((store, holder))
}

/// Asks the user's daemon to flush when it serves `path`.
#[cfg(unix)]
fn flush_holder(path: &Path) -> Option<Holder> {
    let socket = crate::daemon::default_socket();
    let flushed_by = crate::daemon::flush_holder(&socket, path);
    Some(Holder { socket, flushed_by })
}

#[cfg(not(unix))]
fn flush_holder(_: &Path) -> Option<Holder> {
    None
}

/// Reads one snapshot of a read-only store (verified when opened), then releases the file. A
/// panic inside redb while reading is the file's corruption, reported as such.
pub fn read<T>(
    store: Option<&Path>,
    f: impl FnOnce(&ReadOnlyStore, &StoreView) -> Result<T, StoreError>,
) -> Result<T, InspectError> {
    read_holding(store, |store, view, _| f(store, view))
}

/// [`read`], telling `f` who held the file when it was read through a copy.
pub fn read_holding<T>(
    store: Option<&Path>,
    f: impl FnOnce(&ReadOnlyStore, &StoreView, Option<&Holder>) -> Result<T, StoreError>,
) -> Result<T, InspectError> {
    let (store, holder) = open_holding(store)?;
    let label = store.path().display().to_string();
    let answer = catch_damage(&label, "reading", || {
        store
            .view()
            .and_then(|view| f(&store, &view, holder.as_ref()))
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
    // A git work tree without a pack is a workspace to every host (they all mine packs).
    let mut packs = PackCache::default();
    packs.set_zero_config(Config::default().zero_config);
    packs.set_repo_identifier(Some(crate::mining::repo_identifier()));
    packs
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

/// The last `limit` entries of the resolved history, oldest first.
pub fn history(store: Option<&Path>, limit: usize) -> Result<Vec<HistoryEntry>, InspectError> {
    let mut entries = read(store, |_, view| view.history())?;
    let skip = entries.len().saturating_sub(limit);
    entries.drain(..skip);
    Ok(entries)
}

/// Closes a store opened for reading; a failure only matters to the log.
pub fn close(store: &mut RedbStore) {
    use docsuggest_schema::DecisionStore;
    if let Err(e) = store.close() {
        tracing::warn!(error = %e, "closing the store failed");
    }
}
