//! Runs: which process's handle resolved each history entry, so a fleet can tell a store file
//! from a copy of it (docs/FLEET.md, "Copies of a store").
//!
//! A restored backup, a cloned disk image or a synced home directory gives two machines one
//! store file, and both go on numbering their resolutions from the same counter: resolution
//! 81 of one is not resolution 81 of the other. Nothing inside a file can tell it was copied,
//! so each handle draws a random run id when it opens, and the first commit that resolves
//! anything records where its run starts in the `lineage` table (first resolution number →
//! run id). An entry's identity is then (store id, run, resolution number): the entries a
//! copy shares with its original (resolved before the copy) carry the same run in both and
//! count once; those resolved after it carry different runs and both count.
//!
//! The table is created by the first run recorded; a file without it (an older build's, or one
//! that never resolved anything since) holds run 0 from its first entry on, as before.

use crate::errors::ResultExt;
use docsuggest_schema::StoreError;
use redb::{ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};

/// First resolution number of a run → its id.
pub(crate) const LINEAGE: TableDefinition<u64, u64> = TableDefinition::new("lineage");

/// The run a handle writes under: drawn at open, recorded once it resolves something.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Run {
    pub id: u64,
    pub recorded: bool,
}

impl Run {
    /// The run `id`, or a fresh random one.
    pub(crate) fn new(id: Option<u64>) -> Run {
        Run {
            id: id.unwrap_or_else(fresh_id),
            recorded: false,
        }
    }
}

/// A run id, or a store id (`fleet.rs`): random enough that two machines never draw the same
/// (std's per-process random hash keys, the clock and the process id, mixed).
pub(crate) fn fresh_id() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    if let Ok(since) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(since.as_nanos());
    }
    hasher.write_u32(std::process::id());
    // Never 0, so a reader can tell "no id" from an id.
    hasher.finish().max(1)
}

/// Records that run `id` starts at resolution `first` (in the commit's transaction).
pub(crate) fn record(
    txn: &WriteTransaction,
    path: &str,
    first: u64,
    id: u64,
) -> Result<(), StoreError> {
    let mut table = txn.open_table(LINEAGE).at(path, "recording the run")?;
    table.insert(first, id).at(path, "recording the run")?;
    Ok(())
}

/// Where each run of a store file starts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lineage {
    /// (first resolution number, run id), in order.
    starts: Vec<(u64, u64)>,
}

impl Lineage {
    /// Reads the file's lineage (empty when no run was recorded).
    pub(crate) fn read(db: &impl ReadableDatabase, path: &str) -> Result<Lineage, StoreError> {
        let txn = db.begin_read().at(path, "reading the lineage")?;
        let table = match txn.open_table(LINEAGE) {
            Ok(table) => table,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Lineage::default()),
            Err(e) => return Err(e).at(path, "reading the lineage"),
        };
        let mut starts = Vec::new();
        for item in table.iter().at(path, "reading the lineage")? {
            let (first, id) = item.at(path, "reading the lineage")?;
            starts.push((first.value(), id.value()));
        }
        Ok(Lineage { starts })
    }

    /// The run that resolved entry `resolution_seq` (0: one resolved before any run was
    /// recorded).
    pub fn run_of(&self, resolution_seq: u64) -> u64 {
        let after = self
            .starts
            .partition_point(|&(first, _)| first <= resolution_seq);
        after
            .checked_sub(1)
            .and_then(|i| self.starts.get(i))
            .map_or(0, |&(_, id)| id)
    }

    /// The runs recorded, as (first resolution number, run id).
    pub fn starts(&self) -> &[(u64, u64)] {
        &self.starts
    }
}

#[cfg(test)]
mod tests {
    use super::Lineage;

    #[test]
    fn an_entry_belongs_to_the_last_run_started_at_or_before_it() {
        let lineage = Lineage {
            starts: vec![(5, 50), (9, 90)],
        };
        let runs: Vec<u64> = (1..=11).map(|seq| lineage.run_of(seq)).collect();
        assert_eq!(runs, [0, 0, 0, 0, 50, 50, 50, 50, 90, 90, 90]);
        assert_eq!(Lineage::default().run_of(7), 0);
    }
}
