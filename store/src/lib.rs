//! The learned state of docsuggest: a durable redb store, its bounded memory fallback, and the
//! fail-open wrapper the engine holds.
//!
//! All three implement the schema's [`DecisionStore`] (what the engine writes and reads through)
//! and [`StoreContents`] (what checks, recompute and inspection read). The central invariant —
//! for every key, the live rate row equals `fold(base row, that key's moves in history order)`
//! bit for bit — holds for both stores and is checked by [`check_fold`].
//!
//! ```
//! use docsuggest_schema::{Decision, DecisionStore, Outcome, RateEvent, RateKey, RateMove,
//!     Resolution, StoreKind, Table};
//! use docsuggest_store::{FailOpenStore, StoreOptions, check_fold};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let mut store = FailOpenStore::open(StoreOptions::new(dir.path().join("s.redb")), 512);
//! assert_eq!(store.kind(), StoreKind::Redb);
//! assert_eq!(store.take_degradation(), None);
//!
//! let decision = Decision {
//!     seq: 0, workspace: "ws-1a2b".into(), agent: "a".into(), family: "Plan".into(),
//!     kappa: 0.8, companions: vec![], weights: Table::DEFAULT_WEIGHTS, enabled: vec![],
//!     outcome: Outcome::Pending, silence: None, accepted: None, store: StoreKind::Redb,
//! };
//! let seq = store.record_pending(decision).unwrap();
//! let key = RateKey::family("ws-1a2b", "Plan");
//! store.resolve(Resolution {
//!     decision_seq: seq,
//!     outcome: Outcome::Rejected,
//!     accepted: None,
//!     moves: vec![RateMove { key: key.clone(), event: RateEvent::Reject, step: -0.2 }],
//! }).unwrap();
//!
//! let row = store.snapshot().unwrap().row(&key).unwrap().unwrap();
//! assert_eq!(row.rejects, 1);
//! assert!((row.step - (1.0 / 3.0 - 0.2)).abs() < 1e-12);
//! assert!(check_fold(&store).unwrap().is_clean());
//! assert_eq!(store.close().unwrap(), 1);
//! ```
//!
//! A [`RedbStore`] writes through `&mut self`; other threads read consistent snapshots through
//! a [`StoreReader`].
//!
//! This crate is not the engine: it never scores, gates or decides which moves a resolution
//! makes; it records them. It names redb so the engine does not have to. The file layout,
//! versions, durability modes and process model are described in `docs/STORE.md`.
#![deny(missing_docs)]

mod crash;
mod deferred;
mod errors;
mod fail_open;
mod file;
mod fleet;
mod fold;
mod forget;
mod fsync_policy;
mod handover;
mod history_read;
mod lineage;
mod memory;
mod migrate;
mod options;
mod per_key_moves;
mod read_only;
mod reader;
pub mod recompute;
mod record;
mod recovery;
mod redb_store;
mod rekey;
mod tables;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;
mod tx;
mod upgrade_v2;
mod upgrade_v3;
mod upgrade_v4;
mod upgrade_v5;

pub use errors::{catch_damage, quiet_caught_panics};
pub use fail_open::FailOpenStore;
pub use fleet::Seeded;
pub use fold::{FoldMismatch, FoldReport, check_fold, folded_rates, same_bits};
pub use forget::Forgotten;
pub use lineage::Lineage;
pub use memory::{MemoryStore, Resume};
pub use migrate::{PLAN, Plan, SCHEMA_VERSION, Step};
pub use options::{BackendFactory, StoreOptions};
pub use read_only::ReadOnlyStore;
pub use reader::{StoreReader, StoreView};
pub use record::{SeqMarks, check_resolution};
pub use redb_store::{IntegrityReport, OpenReport, RedbCheck, RedbStore, Upgrade};

#[doc(no_inline)]
pub use docsuggest_schema::{DecisionStore, RateSnapshot, StoreContents, StoreError};
