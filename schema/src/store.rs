//! The traits the engine reads and writes learned state through.
//!
//! The engine sees a store only through [`DecisionStore`]; the durable redb store and the
//! memory fallback live in the `docsuggest-store` crate.

use crate::decision::{Decision, HistoryEntry, Resolution, StoreKind};
use crate::rate::{RateKey, RateRow};

/// A store operation that failed, with what a person needs to act on it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Another process holds the file.
    #[error(
        "store {path} is locked by another process (redb allows one process per file; see docs/STORE.md)"
    )]
    Locked {
        /// The store file.
        path: String,
    },
    /// The file was written by a newer schema.
    #[error(
        "store {path} has schema version {found}, newer than the supported version {supported}"
    )]
    TooNew {
        /// The store file.
        path: String,
        /// The file's version.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The file is not a docsuggest store, or its bytes are damaged.
    #[error("store {path} is corrupt or not a docsuggest store: {detail}")]
    Corrupt {
        /// The store file.
        path: String,
        /// What was found wrong.
        detail: String,
    },
    /// A stored value could not be decoded.
    #[error("stored value {what} cannot be decoded: {source}")]
    Codec {
        /// Which value (table and key).
        what: String,
        /// Why.
        source: crate::codec::CodecError,
    },
    /// The operating system refused a read or write.
    #[error("store I/O failed on {path}: {detail}")]
    Io {
        /// The store file.
        path: String,
        /// The error.
        detail: String,
    },
    /// A pending decision that the store does not hold was resolved.
    #[error("no pending decision {0}")]
    UnknownDecision(u64),
    /// A request that breaks the record's rules (say, a resolution to `pending`); the store
    /// is unchanged and still usable.
    #[error("invalid store request: {0}")]
    Invalid(String),
    /// Any other backend failure.
    #[error("store backend failed: {0}")]
    Backend(String),
}

/// A consistent read view of the rate rows: one per judge call.
pub trait RateSnapshot {
    /// The row for `key`, or `None` when nothing was learned for it.
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError>;
}

/// Where the engine records decisions and resolves them.
pub trait DecisionStore {
    /// Which kind of store this is right now (it may have fallen back to memory).
    fn kind(&self) -> StoreKind;

    /// One read view for every rate a call needs.
    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError>;

    /// Records an emitted note as pending; answers its decision sequence number.
    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError>;

    /// Records a gated silence straight into the resolved history; answers its sequence number.
    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError>;

    /// Closes a pending decision; the history entry and its moves commit together.
    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError>;

    /// Makes every commit so far durable; answers the last durable sequence number.
    fn flush(&mut self) -> Result<u64, StoreError>;

    /// Makes every commit so far durable, then releases the store (the file stays valid).
    fn close(&mut self) -> Result<u64, StoreError> {
        self.flush()
    }

    /// Takes the store-related fields of a changed config (`durability`, `flushIntervalMs`,
    /// `ringCapacity`, `storeLimit`); the default ignores them.
    fn configure(&mut self, config: &crate::Config) {
        let _ = config;
    }

    /// Read access to everything the store holds, when it offers it.
    fn contents(&self) -> Option<&dyn StoreContents> {
        None
    }

    /// A store that switched to its fallback since the last call answers why, once.
    fn take_degradation(&mut self) -> Option<String> {
        None
    }
}

/// Read access to everything a store holds, for inspection, checks and recompute.
pub trait StoreContents {
    /// Every live rate row, in key order.
    fn rate_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError>;
    /// Every base row (state folded from evicted history), in key order.
    fn base_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError>;
    /// The resolved history, oldest first.
    fn history(&self) -> Result<Vec<HistoryEntry>, StoreError>;
    /// The pending decisions, by sequence number.
    fn pending(&self) -> Result<Vec<Decision>, StoreError>;
}
