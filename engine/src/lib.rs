//! The gate/score core of docsuggest: given one tool call of an agent, it locates the
//! workspace, detects the doc family, filters and measures the family's companions, gates on
//! kappa, and answers at most one note plus byte-stable ledger lines. It follows each note
//! through the agent's next calls and records accepts and soft rejects in a store.
//!
//! ```
//! use docsuggest_engine::{Call, Engine, probe::OsProbe};
//! # use docsuggest_schema::{Config, DecisionStore};
//! # fn memory_store() -> docsuggest_engine::BoxedStore { docsuggest_engine::testing::NullStore::boxed() }
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir_all(dir.path().join("Documentation/Plans"))?;
//! for f in ["Documentation/ARCHIVE-STYLE.md", "Documentation/INDEX.md", "POC-BRIEF.md", "CHANGELOG.md"] {
//!     std::fs::write(dir.path().join(f), "")?;
//! }
//! let mut engine = Engine::new(Config::default(), memory_store(), OsProbe);
//! let verdict = engine.judge(&Call {
//!     agent: "a".into(),
//!     tool: "read".into(),
//!     path: "Documentation/Plans/SEARCH.md".into(),
//!     cwd: Some(dir.path().display().to_string()),
//! })?;
//! let note = verdict.note.expect("a Plan note");
//! assert_eq!(note.companions[0], "Documentation/INDEX.md");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! It is not a store and not a protocol: it names no database and never speaks JSON lines. Its
//! decisions read no clock (follow-through windows count calls, not seconds); it touches the
//! disk only through [`probe::FileProbe`], whose caching form ([`probe_cache`]) reads the
//! clock once per directory listing to tell a settled listing from one still changing.
#![deny(missing_docs)]

pub mod action;
pub mod agent;
mod agents;
pub mod call_ledger;
pub mod compiled;
mod decision;
mod engine;
pub mod evaluate;
pub mod filter;
mod follow;
pub mod identity;
pub mod judge;
pub mod line_format;
pub mod locate;
pub mod matcher;
pub mod measure;
pub mod mined;
pub mod note;
pub mod paths;
mod pipeline;
pub mod plain_note;
pub mod probe;
pub mod probe_cache;
mod probe_watch;
pub mod scene;
mod stats;
pub mod testing;

pub use call_ledger::{Ledger, Line};
pub use engine::{BoundaryVerdict, BoxedStore, Call, Engine, VERSION, Verdict};
pub use identity::{Identified, KeySource, RepoIdentifier};
pub use mined::{MinedAnswer, PackMiner};
pub use note::Note;
pub use paths::CallError;
pub use stats::Stats;
