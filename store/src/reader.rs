//! Reading a store from other threads while its one writer commits.
//!
//! A [`RedbStore`](crate::RedbStore) writes through `&mut self`; a [`StoreReader`] shares its
//! database (an `Arc`) so any thread can begin a [`StoreView`]: one redb read transaction, a
//! snapshot of every table as of one commit, never blocked by the writer and never seeing a
//! commit half applied.

use crate::errors::ResultExt;
use crate::record::SeqMarks;
use crate::tables::{self, BASE, HISTORY, KeyTuple, META, MINED, MOVES, PENDING, RATES, key_tuple};
use docsuggest_schema::{
    Decision, HistoryEntry, MinedPack, RateKey, RateRow, RateSnapshot, StoreContents, StoreError,
};
use redb::{Database, ReadOnlyTable, ReadTransaction, ReadableDatabase, ReadableTableMetadata};
use std::sync::Arc;

/// A read handle on an open store, for other threads (`Clone + Send + Sync`).
#[derive(Clone)]
pub struct StoreReader {
    db: Arc<Database>,
    label: Arc<str>,
}

impl std::fmt::Debug for StoreReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreReader")
            .field("path", &self.label)
            .finish()
    }
}

impl StoreReader {
    pub(crate) fn new(db: Arc<Database>, label: Arc<str>) -> StoreReader {
        StoreReader { db, label }
    }

    /// A snapshot of every table as of the last commit.
    pub fn view(&self) -> Result<StoreView, StoreError> {
        StoreView::begin(&self.db, &self.label)
    }
}

/// One read transaction: every read through it sees the same commit. The rates table is
/// opened once (a judge call's snapshot reads only rates); the others when first asked for.
pub struct StoreView {
    label: Arc<str>,
    rates: ReadOnlyTable<KeyTuple<'static>, &'static [u8]>,
    txn: ReadTransaction,
}

impl std::fmt::Debug for StoreView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreView")
            .field("path", &self.label)
            .finish()
    }
}

impl StoreView {
    pub(crate) fn begin(db: &Database, label: &Arc<str>) -> Result<StoreView, StoreError> {
        StoreView::begin_on(db, label)
    }

    /// [`StoreView::begin`] on any redb database, a read-only one included.
    pub(crate) fn begin_on(
        db: &impl ReadableDatabase,
        label: &Arc<str>,
    ) -> Result<StoreView, StoreError> {
        let doing = "starting a snapshot";
        let txn = db.begin_read().at(label, doing)?;
        let rates = txn.open_table(RATES).at(label, doing)?;
        Ok(StoreView {
            label: label.clone(),
            rates,
            txn,
        })
    }

    /// The sequence numbers handed out as of this snapshot.
    pub fn marks(&self) -> Result<SeqMarks, StoreError> {
        let table = self.txn.open_table(META).at(&self.label, "reading meta")?;
        tables::read_marks(&self.label, &table)
    }

    /// How many entries the history ring holds.
    pub fn ring_len(&self) -> Result<u64, StoreError> {
        let doing = "counting history";
        let table = self.txn.open_table(HISTORY).at(&self.label, doing)?;
        table.len().at(&self.label, doing)
    }

    /// The pack mined for the workspace key `workspace`, as of this snapshot.
    pub fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        let table = self
            .txn
            .open_table(MINED)
            .at(&self.label, "reading mined")?;
        tables::read_mined(&self.label, &table, workspace)
    }

    /// Every mined pack of this snapshot, by workspace key.
    pub fn mined_packs(&self) -> Result<Vec<(String, MinedPack)>, StoreError> {
        let table = self
            .txn
            .open_table(MINED)
            .at(&self.label, "reading mined")?;
        tables::read_all_mined(&self.label, &table)
    }

    /// The committed pending decision numbered `seq`, if it is still pending.
    pub(crate) fn pending_decision(&self, seq: u64) -> Result<Option<Decision>, StoreError> {
        let doing = "reading pending";
        let table = self.txn.open_table(PENDING).at(&self.label, doing)?;
        match table.get(seq).at(&self.label, doing)? {
            Some(bytes) => tables::decode_pending(&self.label, seq, bytes.value()).map(Some),
            None => Ok(None),
        }
    }

    /// The moves table of this snapshot, for reads that split it (see `history_read`).
    pub(crate) fn moves_table(&self) -> Result<ReadOnlyTable<u64, &'static [u8]>, StoreError> {
        self.txn
            .open_table(MOVES)
            .at(&self.label, "reading history")
    }

    /// The store file, as errors name it.
    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    /// Whether anything is recorded under the workspace key `workspace` as of this snapshot:
    /// a rate row, a pending decision or a mined pack (an entry with moves has a rate row).
    pub(crate) fn holds_workspace(&self, workspace: &str) -> Result<bool, StoreError> {
        let doing = "reading rates";
        let mut rows = self
            .rates
            .range((workspace, "", "")..)
            .at(&self.label, doing)?;
        if let Some(item) = rows.next() {
            let (k, _) = item.at(&self.label, doing)?;
            if k.value().0 == workspace {
                return Ok(true);
            }
        }
        if self.mined_pack(workspace)?.is_some() {
            return Ok(true);
        }
        Ok(self.pending()?.iter().any(|d| d.workspace == workspace))
    }

    pub(crate) fn pending_len(&self) -> Result<u64, StoreError> {
        let doing = "counting pending";
        let table = self.txn.open_table(PENDING).at(&self.label, doing)?;
        table.len().at(&self.label, doing)
    }
}

impl RateSnapshot for StoreView {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        let key = key_tuple(key);
        match self.rates.get(key).at(&self.label, "reading rates")? {
            Some(bytes) => tables::decode_row("rates", key, bytes.value()).map(Some),
            None => Ok(None),
        }
    }
}

impl StoreContents for StoreView {
    fn rate_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        tables::read_rows(&self.label, "rates", &self.rates)
    }

    fn base_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        let table = self.txn.open_table(BASE).at(&self.label, "reading base")?;
        tables::read_rows(&self.label, "base", &table)
    }

    fn history(&self) -> Result<Vec<HistoryEntry>, StoreError> {
        let doing = "reading history";
        let history = self.txn.open_table(HISTORY).at(&self.label, doing)?;
        let moves = self.txn.open_table(MOVES).at(&self.label, doing)?;
        tables::read_history(&self.label, &history, &moves)
    }

    fn pending(&self) -> Result<Vec<Decision>, StoreError> {
        let table = self
            .txn
            .open_table(PENDING)
            .at(&self.label, "reading pending")?;
        tables::read_pending(&self.label, &table)
    }
}
