//! The schema v2 → v3 upgrade: each history entry's moves move to the `moves` table.
//!
//! A v2 history value is a whole `HistoryEntry`; v3 stores its decision (`EntryHead`) in
//! `history` and its moves (`EntryMoves`) in `moves`, under the same resolution sequence
//! number, so a recompute reads the moves without the decisions. Every entry is rewritten one
//! for one, its moves unchanged, so `live == fold(base, history)` holds after the step exactly
//! when it held before; no other table changes.

use crate::errors::{self, ResultExt};
use crate::tables::{self, HISTORY, MOVES};
use crate::tx::Tx;
use docsuggest_schema::codec;
use docsuggest_schema::{HistoryEntry, StoreError};
use redb::{ReadableTable, ReadableTableMetadata, WriteTransaction};

/// Runs the upgrade inside the migration's write transaction.
pub(crate) fn apply(txn: &WriteTransaction, path: &str) -> Result<(), StoreError> {
    let doing = "upgrading history";
    let entries = {
        // A v2 file has no moves table; one that holds anything was not written by a v2 build.
        let moves = txn.open_table(MOVES).at(path, doing)?;
        if moves.len().at(path, doing)? != 0 {
            return Err(StoreError::Corrupt {
                path: path.to_string(),
                detail: "a schema v2 store already holds a moves table".into(),
            });
        }
        let history = txn.open_table(HISTORY).at(path, doing)?;
        let mut entries = Vec::new();
        for item in history.iter().at(path, doing)? {
            let (k, v) = item.at(path, doing)?;
            let seq = k.value();
            let entry: HistoryEntry =
                codec::decode(v.value()).map_err(|e| errors::codec("history", seq, e))?;
            tables::check_seq(path, "history", seq, entry.resolution_seq)?;
            entries.push(entry);
        }
        entries
    };
    // Written back the way every resolution is: its decision and its moves, apart.
    let mut tx = Tx::open(txn, path)?;
    for entry in &entries {
        tx.append(entry)?;
    }
    Ok(())
}
