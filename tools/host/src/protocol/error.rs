//! Why a request failed, with the stable code a host can match on.

use super::lines::MAX_LINE_BYTES;
use docsuggest_engine::CallError;
use docsuggest_schema::ConfigError;

/// A request that got an error answer instead of a result.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RequestError {
    /// The line is not UTF-8.
    #[error("the request line is not valid UTF-8 (invalid byte at offset {offset})")]
    InvalidUtf8 {
        /// Where the first invalid byte is.
        offset: usize,
    },
    /// The line is not JSON.
    #[error("the request line is not valid JSON: {0}")]
    InvalidJson(String),
    /// The line is past [`MAX_LINE_BYTES`].
    #[error("the request line is {len} bytes long (at most {MAX_LINE_BYTES}); it was skipped")]
    LineTooLong {
        /// Its length.
        len: usize,
    },
    /// The line is JSON but not an object.
    #[error("a request must be a JSON object, found {0}")]
    NotAnObject(&'static str),
    /// A required field is absent.
    #[error("field {field:?} is missing{}", for_op(op))]
    MissingField {
        /// The field.
        field: &'static str,
        /// The op that needs it.
        op: Option<&'static str>,
    },
    /// A field has the wrong JSON type.
    #[error("field {field:?} must be {expected}, found {found}")]
    WrongType {
        /// The field.
        field: &'static str,
        /// What it must be.
        expected: &'static str,
        /// What it is.
        found: &'static str,
    },
    /// Two fields that exclude each other were both given.
    #[error("fields {0:?} and {1:?} exclude each other; give one")]
    ConflictingFields(&'static str, &'static str),
    /// The op is not one of the protocol's.
    #[error(
        "unknown op {0:?} (known: hello, judge, peek, boundary, turn, configure, flush, rates, stats, close)"
    )]
    UnknownOp(String),
    /// The engine refused the call's fields.
    #[error("{0}")]
    Call(#[from] CallError),
    /// A config patch with problems; nothing was changed.
    #[error("{0}")]
    InvalidConfig(#[from] ConfigError),
    /// `rates` named a directory that is in no workspace.
    #[error("{0} is not inside a workspace (no ancestor carries the pack signature)")]
    UnknownWorkspace(String),
    /// The store failed; the engine keeps serving.
    #[error(transparent)]
    StoreFailed(#[from] docsuggest_schema::StoreError),
    /// The store keeps no rate rows to list (a store that only answers).
    #[error("this store cannot list its rate rows")]
    NoRateRows,
    /// A socket connection past the server's bound; the connection is closed after this.
    #[error("the server already serves {max} connections (its bound); try again later")]
    TooManyConnections {
        /// The bound.
        max: usize,
    },
    /// A `judge` or `peek` of a tool no config judges (a misspelt or foreign name).
    #[error("tool {tool} is not a tool the engine judges (this config judges: {judged})")]
    UnknownTool {
        /// The tool, quoted.
        tool: String,
        /// The tools the config judges.
        judged: String,
    },
    /// A request after `close`.
    #[error("the engine was closed; no further request is served")]
    Closed,
    /// An answer that could not be encoded (never expected: every answer field encodes).
    #[error("{0}")]
    Internal(String),
}

fn for_op(op: &Option<&'static str>) -> String {
    op.map(|op| format!(" (op {op} needs it)"))
        .unwrap_or_default()
}

impl RequestError {
    /// The stable kebab-case code of the error answer.
    ///
    /// `invalid-utf8`, `invalid-json`, `line-too-long`, `not-an-object`, `missing-field`,
    /// `wrong-type`, `conflicting-fields`, `unknown-op`, `unknown-tool`, `invalid-config`, `unknown-workspace`,
    /// `store-failed`, `too-many-connections`, `closed`, `internal`, and the engine's own call codes: `empty-field`, `nul-byte`,
    /// `path-too-long`, `relative-path-without-cwd`, `relative-cwd`, `path-above-root`.
    pub fn code(&self) -> &'static str {
        match self {
            RequestError::InvalidUtf8 { .. } => "invalid-utf8",
            RequestError::InvalidJson(_) => "invalid-json",
            RequestError::LineTooLong { .. } => "line-too-long",
            RequestError::NotAnObject(_) => "not-an-object",
            RequestError::MissingField { .. } => "missing-field",
            RequestError::WrongType { .. } => "wrong-type",
            RequestError::ConflictingFields(..) => "conflicting-fields",
            RequestError::UnknownOp(_) => "unknown-op",
            RequestError::Call(e) => e.code(),
            RequestError::InvalidConfig(_) => "invalid-config",
            RequestError::UnknownWorkspace(_) => "unknown-workspace",
            RequestError::StoreFailed(_) | RequestError::NoRateRows => "store-failed",
            RequestError::TooManyConnections { .. } => "too-many-connections",
            RequestError::UnknownTool { .. } => "unknown-tool",
            RequestError::Closed => "closed",
            RequestError::Internal(_) => "internal",
        }
    }
}
