//! A repository's git history and what is learned from it: the first-parent history read
//! with gix ([`history`]), the pack mined from it ([`mine`]) for `docsuggest init` ([`init`])
//! and the zero-config path ([`miner`], which hosts run in the background), and the replay of
//! the history through the engine, scored against what each commit changed ([`backtest`], and
//! `bootstrap`, which replays it into a store).
//!
//! ```
//! use docsuggest_history::history::{Commit, Status};
//! use docsuggest_history::{MineOptions, mine};
//!
//! // Every change of a module comes with its test file.
//! let commits: Vec<Commit> = (0..12)
//!     .map(|i| Commit {
//!         id: format!("{i:040x}"),
//!         files: vec![
//!             (Status::Modified, format!("src/mod{}.py", i % 3)),
//!             (Status::Modified, format!("tests/test_mod{}.py", i % 3)),
//!         ],
//!         bulk: false,
//!         odd: false,
//!     })
//!     .collect();
//! let tip: Vec<String> = (0..3)
//!     .flat_map(|i| [format!("src/mod{i}.py"), format!("tests/test_mod{i}.py")])
//!     .collect();
//! let mined = mine(&commits, &tip, &MineOptions::default());
//! let family = &mined.families[0];
//! assert_eq!(family.rule, "src/*.py");
//! assert_eq!(family.companions[0].path, "tests/test_{}.py");
//! ```
#![deny(missing_docs)]

pub mod backtest;
mod components;
pub mod history;
pub mod init;
pub mod mine;
pub mod miner;
pub mod progress;
pub mod repo_identity;
#[cfg(any(test, feature = "testkit"))]
pub mod testkit;

pub use mine::{
    MAX_MINED_COMMITS, MINED_THRESHOLD, MINER_VERSION, MineOptions, Mined, MinedCompanion,
    MinedFamily, mine,
};
