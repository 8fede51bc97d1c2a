//! The docsuggest host: the JSON-lines protocol server (stdio and a Unix socket, with a
//! client for the socket), trace replay with a summary, the demo, the harness hooks, and the
//! commands that inspect, check, migrate, export and import a store.
//!
//! The binary `docsuggest` is a thin layer over this library: each subcommand parses its
//! arguments and calls one function here.
//!
//! ```
//! use docsuggest_tools::host::{self, StoreChoice};
//! use docsuggest_tools::ledger_log::LedgerLog;
//! use docsuggest_tools::protocol::{Dispatcher, Line};
//! # use docsuggest_schema::Config;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir_all(dir.path().join("Documentation/Plans"))?;
//! for f in ["Documentation/ARCHIVE-STYLE.md", "Documentation/INDEX.md", "POC-BRIEF.md"] {
//!     std::fs::write(dir.path().join(f), "")?;
//! }
//! let config = Config { log: false, ..Config::default() };
//! let host = host::start(config, &StoreChoice::Memory, false);
//! let mut server = Dispatcher::new(host.engine, LedgerLog::new());
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
//! engine, which reads no clock. The protocol and the commands are described in
//! `docs/PROTOCOL.md`.
#![deny(missing_docs)]

pub mod backtest;
#[cfg(unix)]
pub mod client;
#[cfg(unix)]
pub mod daemon;
pub mod demo;
pub mod evaluate;
pub mod home;
#[cfg(unix)]
pub mod hook;
pub mod host;
pub mod init;
pub mod inspect;
pub mod ledger_log;
pub mod maintain;
#[cfg(unix)]
pub mod mcp;
pub mod mining;
pub mod protocol;
pub mod replay;
#[cfg(unix)]
pub mod status;
pub mod summary;
pub mod table;
pub mod transfer;
