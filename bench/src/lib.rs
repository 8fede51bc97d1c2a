//! Benchmarks of docsuggest: what one judged call costs on each store, what recording costs
//! under each durability mode, what the caching existence probe saves, and how fast the
//! offline recompute rebuilds rate rows from history.
//!
//! The crate holds the shared fixtures the criterion benches (`benches/`) and the `figures`
//! binary use: a sample workspace on disk with the PoC's doc graph ([`fixture`]), a fill of a
//! store with many rate rows through its own write API ([`fill`]), a SQLite-backed store with
//! the same traits for comparison ([`sqlite`]), a probe that switches between the naive and
//! the caching probe ([`probe`]), a rig that puts them under one engine ([`rig`]),
//! synthetic store contents for the recompute throughput ([`recompute`]), and synthetic git
//! histories for the backtest's scaling ([`history`], run by the `backtest` binary).
//!
//! ```
//! use docsuggest_bench::probe::ProbeMode;
//! use docsuggest_bench::rig::{Backend, Rig, Scenario};
//! use docsuggest_schema::Durability;
//!
//! let mut rig = Rig::new(Backend::Memory, 1_000)?;
//! rig.prepare(Scenario::Noted, ProbeMode::Caching, Durability::Group)?;
//! let verdict = rig.call(Scenario::Noted)?;
//! assert!(verdict.ledger[0].starts_with("doc-suggester: suppressed dedupe Plan"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! It is not a test suite: nothing here asserts a latency. Figures are measured by
//! `cargo run --release -p docsuggest-bench --bin figures` (see `bench/README.md`).
#![deny(missing_docs)]

pub mod fill;
pub mod fixture;
pub mod history;
pub mod measure;
pub mod probe;
pub mod recompute;
pub mod report;
pub mod rig;
#[cfg(feature = "sqlite")]
pub mod sqlite;

#[cfg(feature = "sqlite")]
pub use sqlite::{SqliteOptions, SqliteStore};
