//! The traits the engine reads and writes learned state through.
//!
//! The engine sees a store only through [`DecisionStore`]; the durable redb store and the
//! memory fallback live in the `docsuggest-store` crate.

use crate::decision::{Decision, HistoryEntry, Resolution, StoreKind};
use crate::rate::{RateKey, RateRow};
use serde::{Deserialize, Serialize};

pub use crate::mined_pack::{MAX_MINED_HEAD_BYTES, MAX_MINED_PACK_BYTES, MinedPack};

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
    #[error("store I/O failed on {path}: {doing}: {source}")]
    Io {
        /// The store file.
        path: String,
        /// What was being done.
        doing: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A pending decision that the store does not hold was resolved.
    #[error("no pending decision {0}")]
    UnknownDecision(u64),
    /// A request that breaks the record's rules (say, a resolution to `pending`); the store
    /// is unchanged and still usable.
    #[error("invalid store request: {0}")]
    Invalid(String),
    /// The database library failed in a way none of the above names; its error is kept.
    #[error("store backend failed: {path}: {doing}: {source}")]
    Database {
        /// The store file.
        path: String,
        /// What was being done.
        doing: String,
        /// The library's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Any other backend failure.
    #[error("store backend failed: {0}")]
    Backend(String),
}

/// How a store is doing, as `stats` reports it: which store answers, and what became of the
/// writes made on memory while the file could not be used.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreHealth {
    /// Which store answers now.
    pub kind: StoreKind,
    /// Why the store runs on memory, while a file it should use cannot be used.
    pub degraded: Option<String>,
    /// Attempts to open the file again since the process started.
    pub retries: u64,
    /// Times the file came back after running on memory.
    pub recoveries: u64,
    /// Writes made on memory, later written to the file when it came back.
    pub written_back: u64,
    /// Writes made on memory that did not reach the file (past the bound of what waits, a
    /// decision the file no longer held, or still on memory at close).
    pub lost: u64,
}

impl StoreHealth {
    /// A store of `kind` that never degraded.
    pub fn steady(kind: StoreKind) -> StoreHealth {
        StoreHealth {
            kind,
            degraded: None,
            retries: 0,
            recoveries: 0,
            written_back: 0,
            lost: 0,
        }
    }
}

/// What [`DecisionStore::rekey_workspace`] moved from one workspace key to another.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rekeyed {
    /// Live rate rows moved (merged ones included).
    pub rates: usize,
    /// Of those, rows the new key held too: folded again from both keys' moves.
    pub merged: usize,
    /// Base rows moved.
    pub base: usize,
    /// History entries moved.
    pub history: usize,
    /// Pending decisions moved.
    pub pending: usize,
    /// Whether the mined pack moved too.
    pub mined: bool,
}

impl Rekeyed {
    /// Whether anything moved.
    pub fn moved(&self) -> bool {
        *self != Rekeyed::default()
    }
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

    /// How the store is doing (the default: of its kind, never degraded).
    fn health(&self) -> StoreHealth {
        StoreHealth::steady(self.kind())
    }

    /// A store that switched to its fallback since the last call answers why, once.
    fn take_degradation(&mut self) -> Option<String> {
        None
    }

    /// The pack mined for the workspace `workspace` (its key), if the store keeps one. The
    /// default keeps none.
    fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        let _ = workspace;
        Ok(None)
    }

    /// Moves everything learned and recorded under the workspace key `from` — live and base
    /// rows, history entries and their moves, pending decisions, the mined pack — to the key
    /// `to`, in one durable transaction (a workspace whose key changed, from its path's to its
    /// repository's: docs/FLEET.md). A row `to` holds too is folded again from both keys'
    /// moves in history order, so `live == fold(base, history)` still holds for every key;
    /// where that cannot be exact (a base row on either side of such a key) nothing moves and
    /// the answer is [`StoreError::Invalid`]. The default, a store that keeps nothing across
    /// processes, has nothing to move.
    fn rekey_workspace(&mut self, from: &str, to: &str) -> Result<Rekeyed, StoreError> {
        let _ = (from, to);
        Ok(Rekeyed::default())
    }

    /// Keeps `mined` as the workspace's mined pack, replacing any earlier one, durably at
    /// once (it is rare and costly to recompute). A record past its bounds
    /// ([`MinedPack::problem`]) is refused as [`StoreError::Invalid`]. The default, a store
    /// that keeps no mined packs, refuses every record as [`StoreError::Invalid`] (a request
    /// error: a fail-open wrapper does not fall back over it).
    fn put_mined_pack(&mut self, workspace: &str, mined: MinedPack) -> Result<(), StoreError> {
        let _ = (workspace, mined);
        Err(StoreError::Invalid(
            "this store keeps no mined packs".into(),
        ))
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
