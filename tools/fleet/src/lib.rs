//! Fleet learning: a team's machines learn together (docs/FLEET.md).
//!
//! Each machine exports its store's decision history as Apache Parquet ([`export`]: one file
//! set per workspace key, which in a git repository is the repository's, the same in every
//! clone); any machine merges the exports with Apache DataFusion ([`merge`]: SQL over the
//! Parquet files, which a Ballista or Spark cluster runs unchanged) into the fleet's rate
//! rows; and a store seeds its base rows from them ([`seed`]), its own history folding on
//! top. Each key's moves, deduplicated and put in one order (store id, run, resolution number,
//! move number), are folded run by run through `RateRow::apply`, the function every store
//! applies live, and the runs combined in that order ([`partial`]), so the fleet's row has the
//! counts of one store that saw every run in turn, and a merge by the day ([`state`]) gives
//! the bytes of a merge of everything.
//!
//! This crate links DataFusion; only the CLI links this crate (never the engine, the store or
//! the Node addon).
#![deny(missing_docs)]

pub mod columns;
pub mod coverage;
pub mod digest;
pub mod export;
pub mod merge;
mod merge_fold;
pub mod partial;
pub mod seed;
pub mod state;
pub mod verify;

use docsuggest_schema::StoreError;
use std::path::PathBuf;

/// A fleet operation that failed; nothing was written unless the variant says so.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FleetError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The store or a workspace could not be found.
    #[error(transparent)]
    Inspect(#[from] docsuggest_host::stores::InspectError),
    /// A file or directory could not be read or written.
    #[error("{doing} {}: {source}", path.display())]
    Io {
        /// What was being done.
        doing: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A Parquet file is not what this command reads: another schema, truncated, damaged.
    #[error("{}: {problem}", file.display())]
    BadFile {
        /// The file.
        file: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The input directories hold no export.
    #[error(
        "no docsuggest export (moves-*.parquet) in {0}; run `docsuggest export --format parquet --out DIR` on each machine first"
    )]
    NoExports(String),
    /// A rates file was made under another rate model than the store's config uses.
    #[error("{}: its rates are of the `{found}` model; this store's config uses `{expected}` (merge again with --model {expected})", file.display())]
    OtherModel {
        /// The rates file.
        file: PathBuf,
        /// Its model.
        found: String,
        /// The config's.
        expected: String,
    },
    /// A rates file names none of the workspaces to seed.
    #[error("{}: {problem}; nothing was imported", file.display())]
    UnknownRepository {
        /// The rates file.
        file: PathBuf,
        /// Which workspace is missing, and what the file and the store hold.
        problem: String,
    },
    /// Writing a Parquet file failed.
    #[error("writing {}: {source}", file.display())]
    Write {
        /// The file.
        file: PathBuf,
        /// Why.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// Two exports hold different moves under one entry's identity (store, run, resolution):
    /// two machines went on from one store file without either drawing a run of its own (a
    /// machine cloned while running), or a crafted file. Merging either would drop the other.
    #[error(
        "store {store}, run {run}: two exports hold different moves for resolution {resolution} (copies of one store file that kept running in one process, as a machine cloned while running, or a crafted file); nothing was written: leave one machine's exports of that store out"
    )]
    Diverged {
        /// The store id.
        store: String,
        /// The run.
        run: String,
        /// The resolution number.
        resolution: i64,
    },
    /// An export of a run reached a merge by the day after later resolutions of that run were
    /// merged: folded now, its moves would come after moves that follow them.
    #[error(
        "{}: store {store}, run {run}: resolutions {first}..{last} arrive after later ones of that run were merged; nothing was written: merge every export again without --state (a new state), which folds them in order", file.display()
    )]
    Late {
        /// The file.
        file: PathBuf,
        /// The store id.
        store: String,
        /// The run.
        run: String,
        /// The first resolution of the run the file covers.
        first: i64,
        /// The last.
        last: i64,
    },
    /// The merge query failed.
    #[error("the merge query failed: {0}")]
    Query(#[source] Box<datafusion::error::DataFusionError>),
}

impl FleetError {
    /// A result column the query was expected to shape otherwise (a bug, not bad input).
    pub(crate) fn unexpected(what: &str) -> FleetError {
        FleetError::Query(Box::new(datafusion::error::DataFusionError::Internal(
            format!("the merge query answered {what} of an unexpected type"),
        )))
    }
}

impl From<datafusion::error::DataFusionError> for FleetError {
    fn from(e: datafusion::error::DataFusionError) -> FleetError {
        FleetError::Query(Box::new(e))
    }
}
