//! Why a backtest or bootstrap could not run: [`BacktestError`], and the one way an I/O
//! failure becomes one, naming what was being done.

use super::history::HistoryError;
use docsuggest_host::host::HostError;
use docsuggest_host::stores::InspectError;

/// A backtest or bootstrap that could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BacktestError {
    /// The history could not be read.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// The config file is unusable.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The pack does not parse or is invalid.
    #[error("the pack {file} is unusable: {reason}")]
    Pack {
        /// Which pack.
        file: String,
        /// Why.
        reason: String,
    },
    /// An argument is out of range.
    #[error("{0}")]
    Argument(String),
    /// A file could not be written or a scratch directory made.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The store already holds history for this workspace.
    #[error(
        "the store {store} already holds history for {workspace}: pass --force to replay into it anyway"
    )]
    Refused {
        /// The store file.
        store: String,
        /// The workspace.
        workspace: String,
    },
    /// The store could not be closed cleanly.
    #[error("closing the store failed: {0}")]
    Close(String),
    /// A store to start from or replay into cannot be used.
    #[error("cannot use the store {store}: {reason}")]
    Store {
        /// The store file.
        store: String,
        /// Why.
        reason: String,
    },
    /// The store to start from holds nothing learned for the workspace.
    #[error(
        "the store {store} holds no learned rates for {workspace} (key {key}; it holds {held}): \
         fill it with `docsuggest bootstrap {workspace} --store {store} --rev REV` first"
    )]
    OtherWorkspace {
        /// The store file.
        store: String,
        /// The workspace judged in.
        workspace: String,
        /// Its key.
        key: String,
        /// The keys the store does hold, or "no rates at all".
        held: String,
    },
    /// The workspace the engine judges in is no workspace of the pack.
    #[error(transparent)]
    Workspace(InspectError),
}

pub(super) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BacktestError {
    let what = what.into();
    move |source| BacktestError::Io { what, source }
}
