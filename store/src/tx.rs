//! The write side of a store file: each operation runs inside one redb write transaction, so a
//! record, a resolution with its moves, and the evictions they cause commit together or not at
//! all.
//!
//! Counters are read from `meta` inside the transaction rather than cached, so several writer
//! processes (multi-process mode) never hand out the same sequence number.

use crate::errors::{self, RedbFailure, ResultExt};
use crate::record::{self, SeqMarks};
use crate::tables::{
    self, BASE, HISTORY, KeyTuple, META, MINED, MOVES, PENDING, RATES, ShowKey, decode_moves,
    decode_pending, decode_row, key_tuple, meta,
};
use docsuggest_schema::codec;
use docsuggest_schema::{Decision, HistoryEntry, RateMove, RateRow, Resolution, StoreError};
use redb::{ReadableTable, ReadableTableMetadata, Table, WriteTransaction};

/// The six tables of a store every write touches, open in one write transaction (the rarely
/// written `mined` table is opened when written).
pub(crate) struct Tx<'t> {
    pub(crate) txn: &'t WriteTransaction,
    pub(crate) path: &'t str,
    pub(crate) rates: Table<'t, KeyTuple<'static>, &'static [u8]>,
    pub(crate) base: Table<'t, KeyTuple<'static>, &'static [u8]>,
    pub(crate) history: Table<'t, u64, &'static [u8]>,
    pub(crate) moves: Table<'t, u64, &'static [u8]>,
    pub(crate) pending: Table<'t, u64, &'static [u8]>,
    pub(crate) meta: Table<'t, &'static str, u64>,
}

impl<'t> Tx<'t> {
    /// Opens (creating if needed) every table in `txn`.
    pub(crate) fn open(txn: &'t WriteTransaction, path: &'t str) -> Result<Tx<'t>, StoreError> {
        let doing = "opening the tables";
        Ok(Tx {
            txn,
            path,
            rates: txn.open_table(RATES).at(path, doing)?,
            base: txn.open_table(BASE).at(path, doing)?,
            history: txn.open_table(HISTORY).at(path, doing)?,
            moves: txn.open_table(MOVES).at(path, doing)?,
            pending: txn.open_table(PENDING).at(path, doing)?,
            meta: txn.open_table(META).at(path, doing)?,
        })
    }

    /// Writes a meta value.
    pub(crate) fn set_meta(&mut self, key: &str, value: u64) -> Result<(), StoreError> {
        self.meta.insert(key, value).at(self.path, "writing meta")?;
        Ok(())
    }

    /// A meta value, which must be present.
    pub(crate) fn meta(&self, key: &str) -> Result<u64, StoreError> {
        tables::read_meta(self.path, &self.meta, key)
    }

    /// Hands out the next number of the counter `key`.
    fn take(&mut self, key: &str) -> Result<u64, StoreError> {
        let seq = self.meta(key)?;
        let next = seq.checked_add(1).ok_or_else(|| StoreError::Corrupt {
            path: self.path.to_string(),
            detail: format!("meta {key} is at its maximum"),
        })?;
        self.set_meta(key, next)?;
        Ok(seq)
    }

    /// The sequence numbers handed out so far.
    pub(crate) fn marks(&self) -> Result<SeqMarks, StoreError> {
        tables::read_marks(self.path, &self.meta)
    }

    /// Records an emitted note as pending.
    pub(crate) fn record_pending(&mut self, mut decision: Decision) -> Result<u64, StoreError> {
        let seq = self.take(meta::NEXT_DECISION_SEQ)?;
        decision.seq = seq;
        let bytes = tables::encode_decision(&decision)?;
        self.insert_pending(seq, &bytes)?;
        Ok(seq)
    }

    /// Takes `count` numbers of the counter `key` at once, from `first`, which must be the one
    /// it hands out next (numbers handed out ahead of their commit under `group` durability,
    /// see [`crate::deferred`]). Anything else means the numbering went wrong, and writing
    /// under other numbers would break it.
    pub(crate) fn take_numbers(
        &mut self,
        key: &str,
        what: &str,
        first: u64,
        count: usize,
    ) -> Result<(), StoreError> {
        let next = self.meta(key)?;
        if next != first {
            return Err(StoreError::Corrupt {
                path: self.path.to_string(),
                detail: format!(
                    "{what} {first} was handed out ahead of its commit, but meta {key} would \
                     number it {next}"
                ),
            });
        }
        let after = u64::try_from(count)
            .ok()
            .and_then(|n| first.checked_add(n))
            .ok_or_else(|| StoreError::Corrupt {
                path: self.path.to_string(),
                detail: format!("meta {key} is at its maximum"),
            })?;
        self.set_meta(key, after)
    }

    /// Removes a committed pending decision, which must be there.
    pub(crate) fn remove_pending(&mut self, seq: u64) -> Result<(), StoreError> {
        match self.pending.remove(seq).at(self.path, "removing pending")? {
            Some(_) => Ok(()),
            None => Err(StoreError::UnknownDecision(seq)),
        }
    }

    /// Writes the live row of `key`.
    pub(crate) fn set_row(
        &mut self,
        key: &docsuggest_schema::RateKey,
        row: &RateRow,
    ) -> Result<(), StoreError> {
        write_row(self.path, "rates", &mut self.rates, key_tuple(key), row)
    }

    pub(crate) fn insert_pending(&mut self, seq: u64, bytes: &[u8]) -> Result<(), StoreError> {
        self.pending
            .insert(seq, bytes)
            .at(self.path, "writing pending")?;
        Ok(())
    }

    /// Records a gated silence straight into the history.
    pub(crate) fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        let seq = self.take(meta::NEXT_DECISION_SEQ)?;
        let resolution_seq = self.take(meta::NEXT_RESOLUTION_SEQ)?;
        self.append(&record::silent(decision, seq, resolution_seq))?;
        Ok(seq)
    }

    /// Closes a pending decision: history entry and moves together.
    pub(crate) fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        record::check_resolution(&resolution)?;
        let seq = resolution.decision_seq;
        let decision = match self.pending.remove(seq).at(self.path, "removing pending")? {
            Some(bytes) => decode_pending(self.path, seq, bytes.value())?,
            None => return Err(StoreError::UnknownDecision(seq)),
        };
        let resolution_seq = self.take(meta::NEXT_RESOLUTION_SEQ)?;
        let entry = record::close(decision, resolution, resolution_seq);
        for mv in &entry.moves {
            self.apply_move(mv)?;
        }
        self.append(&entry)
    }

    /// Closes every pending decision as abandoned (no moves), oldest first.
    pub(crate) fn abandon_pending(&mut self) -> Result<usize, StoreError> {
        let seqs = self.pending_seqs()?;
        for &seq in &seqs {
            self.resolve(record::abandoned(seq))?;
        }
        Ok(seqs.len())
    }

    /// The numbers of the pending decisions, in order.
    pub(crate) fn pending_seqs(&self) -> Result<Vec<u64>, StoreError> {
        let mut seqs = Vec::new();
        for item in self.pending.iter().at(self.path, "reading pending")? {
            seqs.push(item.at(self.path, "reading pending")?.0.value());
        }
        Ok(seqs)
    }

    pub(crate) fn append(&mut self, entry: &HistoryEntry) -> Result<(), StoreError> {
        let bytes = tables::encode_entry(entry)?;
        self.history
            .insert(entry.resolution_seq, bytes.head.as_slice())
            .at(self.path, "appending history")?;
        self.moves
            .insert(entry.resolution_seq, bytes.moves.as_slice())
            .at(self.path, "appending history")?;
        Ok(())
    }

    /// Applies one move to the live row of its key.
    fn apply_move(&mut self, mv: &RateMove) -> Result<(), StoreError> {
        let key = key_tuple(&mv.key);
        let live = read_row(self.path, "rates", &self.rates, key)?;
        let next = live.unwrap_or_default().apply(mv);
        write_row(self.path, "rates", &mut self.rates, key, &next)
    }

    /// Evicts the oldest history entries past `capacity`, folding their moves into `base`;
    /// answers how many were evicted.
    pub(crate) fn evict(&mut self, capacity: u64) -> Result<u64, StoreError> {
        let len = self.history.len().at(self.path, "counting history")?;
        let mut evicted = 0;
        // Each base row is read once and written once however many evicted moves fold into
        // it (a group commit may evict hundreds of entries); per key the moves keep their
        // history order, so the rows are the same as folding entry by entry.
        let mut folded: std::collections::HashMap<docsuggest_schema::RateKey, RateRow> =
            std::collections::HashMap::new();
        while len - evicted > capacity {
            let Some((k, _)) = self.history.pop_first().at(self.path, "evicting history")? else {
                break;
            };
            let seq = k.value();
            // Both tables hold the same numbers, so the oldest moves are this entry's.
            let moves = match self.moves.pop_first().at(self.path, "evicting history")? {
                Some((m, v)) if m.value() == seq => decode_moves(self.path, seq, v.value())?,
                Some((m, _)) if m.value() < seq => {
                    return Err(tables::unpaired(self.path, "moves", m.value(), "history"));
                }
                _ => return Err(tables::unpaired(self.path, "history", seq, "moves")),
            };
            for mv in moves {
                let row = match folded.get(&mv.key) {
                    Some(row) => *row,
                    None => read_row(self.path, "base", &self.base, key_tuple(&mv.key))?
                        .unwrap_or_default(),
                };
                let next = row.apply(&mv);
                folded.insert(mv.key, next);
            }
            evicted += 1;
        }
        for (key, row) in &folded {
            write_row(self.path, "base", &mut self.base, key_tuple(key), row)?;
        }
        Ok(evicted)
    }

    /// Keeps `bytes` (an encoded mined pack) as the mined pack of `workspace`.
    pub(crate) fn put_mined(&mut self, workspace: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let doing = "writing mined";
        let mut table = self.txn.open_table(MINED).at(self.path, doing)?;
        table.insert(workspace, bytes).at(self.path, doing)?;
        Ok(())
    }

    /// Replaces every live row (the offline recompute's swap), in this one transaction.
    pub(crate) fn replace_rates(
        &mut self,
        rows: &[(docsuggest_schema::RateKey, RateRow)],
    ) -> Result<(), StoreError> {
        self.rates
            .retain(|_, _| false)
            .at(self.path, "clearing rates")?;
        for (key, row) in rows {
            write_row(self.path, "rates", &mut self.rates, key_tuple(key), row)?;
        }
        Ok(())
    }
}

fn read_row(
    path: &str,
    name: &str,
    table: &Table<'_, KeyTuple<'static>, &'static [u8]>,
    key: KeyTuple<'_>,
) -> Result<Option<RateRow>, StoreError> {
    let got = table
        .get(key)
        .map_err(|e| e.into_store(path, &format!("reading {name}")))?;
    match got {
        Some(bytes) => decode_row(name, key, bytes.value()).map(Some),
        None => Ok(None),
    }
}

pub(crate) fn write_row(
    path: &str,
    name: &str,
    table: &mut Table<'_, KeyTuple<'static>, &'static [u8]>,
    key: KeyTuple<'_>,
    row: &RateRow,
) -> Result<(), StoreError> {
    let bytes = codec::encode(row)
        .map_err(|e| errors::encode_failed(&format!("{name}{}", ShowKey(key)), e))?;
    table
        .insert(key, bytes.as_slice())
        .map_err(|e| e.into_store(path, &format!("writing {name}")))?;
    Ok(())
}
