//! The schema v3 → v4 upgrade: the `mined` table, empty.
//!
//! Schema v4 keeps, per workspace key, the pack mined from the workspace's git history
//! (zero-config). No other table changes and no value is rewritten, so the fold invariant
//! holds after the step exactly when it held before.

use crate::errors::ResultExt;
use crate::tables::MINED;
use docsuggest_schema::StoreError;
use redb::{ReadableTableMetadata, WriteTransaction};

/// Runs the upgrade inside the migration's write transaction.
pub(crate) fn apply(txn: &WriteTransaction, path: &str) -> Result<(), StoreError> {
    let doing = "creating the mined table";
    // A v3 file has no mined table; one that holds anything was not written by a v3 build.
    let mined = txn.open_table(MINED).at(path, doing)?;
    if mined.len().at(path, doing)? != 0 {
        return Err(StoreError::Corrupt {
            path: path.to_string(),
            detail: "a schema v3 store already holds a mined table".into(),
        });
    }
    Ok(())
}
