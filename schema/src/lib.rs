//! The vocabulary of docsuggest: config, packs, decision records, rate rows, the store traits
//! and the codec that alone defines stored bytes.
//!
//! Everything above this crate — the scoring engine, the stores, the CLI — speaks these types.
//! It does no I/O.
//!
//! ```
//! use docsuggest_schema::{Config, Pack, heuristic::Table};
//!
//! let config = Config::default()
//!     .patched(&serde_json::json!({"threshold": 0.6}), "example")
//!     .expect("a valid patch");
//! assert_eq!(config.threshold, 0.6);
//! assert_eq!(Pack::builtin().doc_families().count(), 7);
//! assert_eq!(Table::DEFAULT_WEIGHTS.to_string(),
//!     "scope=0.35,graph=0.00,prior=0.25,literal=0.25,history=0.15,accept=0.00");
//! ```
//!
//! It is not the engine: nothing here detects, scores or stores.
#![deny(missing_docs)]

pub mod beside;
pub mod codec;
pub mod config;
pub mod decision;
pub mod heuristic;
pub mod mined_pack;
pub mod pack;
pub mod rate;
pub mod store;
pub mod suggest;
pub mod text;

pub use config::{Config, ConfigError, Durability, NoteStyle, RateModel};
pub use decision::{
    CompanionRow, Decision, EntryHead, EntryMoves, HistoryEntry, Outcome, Resolution,
    SilenceReason, StoreKind,
};
pub use heuristic::{Heuristic, Table};
pub use pack::{Companion, Family, Pack, PackError};
pub use rate::{RateEvent, RateKey, RateMove, RateRow};
pub use store::{
    DecisionStore, MinedPack, RateSnapshot, Rekeyed, StoreContents, StoreError, StoreHealth,
};
