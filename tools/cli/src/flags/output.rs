//! The one way a command prints its report: text for people, or with `--json` the report's
//! JSON (on one line, or pretty where the command always printed it so).

use anyhow::Result;
use serde::Serialize;
use std::fmt::Display;
use std::io::Write;

/// How `--json` prints.
#[derive(Clone, Copy, Debug)]
pub enum Json {
    /// One line.
    Line,
    /// Indented.
    Pretty,
}

/// Prints `value` as JSON when `json` says how, else `text` as it is. A reader that went away
/// is the caller's error to ignore ([`is_broken_pipe`]).
pub fn emit(json: Option<Json>, value: &impl Serialize, text: &impl Display) -> Result<()> {
    let mut out = std::io::stdout().lock();
    match json {
        Some(Json::Line) => writeln!(out, "{}", serde_json::to_string(value)?)?,
        Some(Json::Pretty) => writeln!(out, "{}", serde_json::to_string_pretty(value)?)?,
        None => write!(out, "{text}")?,
    }
    Ok(())
}

/// Whether `e` comes from writing to a reader that went away (`docsuggest history | head`).
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<docsuggest_host::protocol::ServeError>()
                .is_some_and(docsuggest_host::protocol::ServeError::is_broken_pipe)
    })
}
