//! The docsuggest host library: what every skin needs to run the engine for a harness. The
//! JSON-lines protocol and its one [`protocol::Dispatcher`] (behind `serve` on stdio, the
//! socket daemon, the hook's client and the Node addon's [`protocol::embed`]), the engine built
//! from a config and a store choice ([`host`]), the ledger log, the session summary, the pack
//! miner's background jobs ([`mining`]) and opening store files for the commands that read
//! them ([`stores`]).
//!
//! ```
//! use docsuggest_host::host::{self, StoreChoice};
//! use docsuggest_host::protocol::{Dispatcher, Line};
//! # use docsuggest_schema::Config;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir_all(dir.path().join("Documentation/Plans"))?;
//! for f in ["Documentation/ARCHIVE-STYLE.md", "Documentation/INDEX.md", "POC-BRIEF.md"] {
//!     std::fs::write(dir.path().join(f), "")?;
//! }
//! let config = Config { log: false, ..Config::default() };
//! let host = host::start(config, &StoreChoice::Memory, false);
//! let mut server = Dispatcher::for_host(host);
//! let request = format!(
//!     r#"{{"id":1,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md","cwd":{:?}}}"#,
//!     dir.path().display().to_string(),
//! );
//! let answer = server.handle_line(&Line::Bytes(request.into_bytes())).answer;
//! assert!(answer.starts_with(r#"{"id":1,"ok":true,"note":{"family":"Plan","#), "{answer}");
//!
//! let bad = server.handle_line(&Line::Bytes(br#"{"id":2,"op":"dance"}"#.to_vec()));
//! assert_eq!(bad.error, Some("unknown-op"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! It is not the engine and not the store: it holds no scoring rule and defines no stored
//! byte. It is the only crate that speaks JSON lines; it times judge calls from outside the
//! engine, which reads no clock. It links no git reader, no argument parser and no terminal
//! code: the Node addon links all of it and nothing more. The protocol is described in
//! `docs/PROTOCOL.md`.
#![deny(missing_docs)]

#[cfg(unix)]
pub mod client;
#[cfg(unix)]
pub mod daemon;
pub mod home;
pub mod host;
pub mod ledger_log;
pub mod mining;
pub mod panic_text;
pub mod protocol;
pub mod stores;
pub mod summary;

/// The declarations of the engine's counters and note, for a binding that must declare its
/// own types for them (the Node addon's are JavaScript objects with JavaScript numbers).
pub use docsuggest_engine::{note_struct, stats_struct};
