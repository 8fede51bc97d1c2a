//! The docsuggest commands: trace replay, the demo, the harness hooks and their installer, the
//! MCP server, status, backtest and init, and the commands that inspect, check, migrate,
//! export and import a store. The protocol, its servers and the engine's host are
//! `docsuggest_host`'s.
//!
//! The binary `docsuggest` is a thin layer over this library: each subcommand parses its
//! arguments and calls one function here.
//!
//! The commands are described in `docs/PROTOCOL.md`.
#![deny(missing_docs)]

pub mod check_change;
pub mod demo;
pub mod evaluate;
pub mod fleet_bin;
#[cfg(unix)]
pub mod hook;
pub mod inspect;
pub mod log_writer;
pub mod maintain;
#[cfg(unix)]
pub mod mcp;
pub mod replay;
pub mod report;
#[cfg(unix)]
pub mod status;
pub mod table;
pub mod transfer;
