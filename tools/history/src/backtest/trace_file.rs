//! Writing the trace (`--trace-out`): the turns as protocol lines a `docsuggest replay` reads.

use super::error::{BacktestError, io};
use super::prepare::Prepared;
use super::trace;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// Writes the turns as protocol lines (ids from 1, no `cwd`: replay them with
/// `docsuggest replay --workspace REPO`), ending with a `turn`.
pub fn write_trace(prepared: &Prepared, file: &Path) -> Result<(), BacktestError> {
    let what = format!("cannot write trace {}", file.display());
    let out = std::fs::File::create(file).map_err(io(what.clone()))?;
    let mut out = std::io::BufWriter::new(out);
    let mut id = 0u64;
    for turn in &prepared.turns {
        for mut request in trace::requests(turn, &prepared.neutral, prepared.pad, "") {
            if let Some(obj) = request.as_object_mut() {
                obj.remove("cwd");
                if obj.get("op").and_then(Value::as_str) == Some("judge") {
                    id += 1;
                    obj.insert("id".into(), id.into());
                }
            }
            writeln!(out, "{request}").map_err(io(what.clone()))?;
        }
    }
    writeln!(
        out,
        "{}",
        serde_json::json!({"op": "turn", "agent": trace::AGENT})
    )
    .map_err(io(what.clone()))?;
    out.flush().map_err(io(what))
}
