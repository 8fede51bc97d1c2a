//! What fleet learning (docs/FLEET.md) needs of a store file: a store id that tells one
//! machine's exported history from another's, the last resolution exported (so a periodic
//! export writes only what is new), and seeding base rows from fleet rates.
//!
//! Seeding keeps `live == fold(base, history)` for every key: the seeded workspaces' base rows
//! are replaced by the fleet's, the history entries the fleet already holds (this store's own,
//! exported up to a mark the fleet reports) are dropped, and their live rows are folded again
//! from the new base and the history left — one write transaction, so a failure leaves the
//! file as it was.

use crate::errors::ResultExt;
use crate::lineage;
use crate::redb_store::RedbStore;
use crate::tables::{META, ShowKey, key_tuple, read_history};
use crate::tx::Tx;
use docsuggest_schema::{DecisionStore, RateKey, RateRow, StoreError, codec};
use redb::{ReadableDatabase, ReadableTable};
use std::collections::{BTreeMap, BTreeSet};

/// `meta` key: the store's id, drawn once, with its first history entry (or its first
/// export).
const STORE_ID: &str = "store_id";
/// `meta` key: the last resolution number an export wrote.
const EXPORTED_THROUGH: &str = "exported_through";

/// What [`RedbStore::seed_base`] changed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Seeded {
    /// Base rows written (the fleet's rows of the seeded workspaces).
    pub base: usize,
    /// Base rows the fleet's replaced or removed.
    pub replaced_base: usize,
    /// History entries dropped because the fleet already holds them.
    pub dropped_history: usize,
    /// Live rows of the seeded workspaces after the fold.
    pub rates: usize,
}

impl Tx<'_> {
    fn seed_base(
        &mut self,
        workspaces: &BTreeSet<String>,
        rows: &[(RateKey, RateRow)],
        held: &dyn Fn(u64) -> bool,
    ) -> Result<Seeded, StoreError> {
        let path = self.path;
        let mine = |workspace: &str| workspaces.contains(workspace);
        let mut seeded = Seeded::default();
        self.base
            .retain(|k, _| {
                let keep = !mine(k.0);
                seeded.replaced_base += usize::from(!keep);
                keep
            })
            .at(path, "replacing base rows")?;
        let mut base: BTreeMap<RateKey, RateRow> = BTreeMap::new();
        for (key, row) in rows.iter().filter(|(k, _)| mine(&k.workspace)) {
            let bytes = codec::encode(row).map_err(|e| {
                crate::errors::encode_failed(&format!("base{}", ShowKey(key_tuple(key))), e)
            })?;
            self.base
                .insert(key_tuple(key), bytes.as_slice())
                .at(path, "writing base rows")?;
            base.insert(key.clone(), *row);
        }
        seeded.base = base.len();
        // Entries are decoded (not matched in a closure) so a damaged one is an error.
        let mut kept = Vec::new();
        for entry in read_history(path, &self.history, &self.moves)? {
            if !mine(&entry.decision.workspace) {
                continue;
            }
            if held(entry.resolution_seq) {
                self.history
                    .remove(entry.resolution_seq)
                    .at(path, "dropping history the fleet holds")?;
                self.moves
                    .remove(entry.resolution_seq)
                    .at(path, "dropping history the fleet holds")?;
                seeded.dropped_history += 1;
            } else {
                kept.push(entry);
            }
        }
        // The live rows of the seeded workspaces: fold(new base, the history left).
        let mut live = base;
        for entry in &kept {
            for mv in &entry.moves {
                let row = live.get(&mv.key).copied().unwrap_or_default();
                live.insert(mv.key.clone(), row.apply(mv));
            }
        }
        self.rates
            .retain(|k, _| !mine(k.0))
            .at(path, "replacing live rows")?;
        for (key, row) in &live {
            self.set_row(key, row)?;
        }
        seeded.rates = live.len();
        Ok(seeded)
    }
}

impl Tx<'_> {
    /// The store's id, `fresh` if it has none yet (another process may have drawn one: the
    /// first one stays).
    pub(crate) fn draw_store_id(&mut self, fresh: u64) -> Result<u64, StoreError> {
        let existing = self
            .meta
            .get(STORE_ID)
            .at(self.path, "reading meta")?
            .map(|v| v.value());
        match existing {
            Some(existing) => Ok(existing),
            None => self.set_meta(STORE_ID, fresh).map(|()| fresh),
        }
    }
}

impl RedbStore {
    /// This store's id: drawn with the first history entry (so a copy of the file shares it,
    /// and the entries they share count once in a fleet), or at the first call on a store
    /// that has none; kept ever after. Tells its exported history from every other store's
    /// when a fleet merges them.
    pub fn store_id(&mut self) -> Result<u64, StoreError> {
        if let Some(id) = self.meta_value(STORE_ID)? {
            return Ok(id);
        }
        self.write("drawing the store id", |tx| {
            tx.draw_store_id(lineage::fresh_id())
        })
        .and_then(|id| self.flush().map(|_| id))
    }

    /// This store's id if one was drawn (`None`: it never exported).
    pub fn drawn_store_id(&self) -> Result<Option<u64>, StoreError> {
        self.meta_value(STORE_ID)
    }

    /// The last resolution number an export wrote (`None`: never exported).
    pub fn exported_through(&self) -> Result<Option<u64>, StoreError> {
        self.meta_value(EXPORTED_THROUGH)
    }

    /// Remembers that an export wrote every resolution up to `seq`, durably.
    pub fn set_exported_through(&mut self, seq: u64) -> Result<(), StoreError> {
        self.write("remembering the export", |tx| {
            tx.set_meta(EXPORTED_THROUGH, seq)
        })?;
        self.flush().map(|_| ())
    }

    /// Seeds the base rows of `workspaces` from fleet `rows` (rows of other workspaces are
    /// ignored), drops those workspaces' history entries `held` says the fleet already holds
    /// (given an entry's resolution number), and folds their live rows again, in one durable
    /// transaction. Other workspaces are untouched.
    pub fn seed_base(
        &mut self,
        workspaces: &BTreeSet<String>,
        rows: &[(RateKey, RateRow)],
        held: &dyn Fn(u64) -> bool,
    ) -> Result<Seeded, StoreError> {
        let seeded = self.write("seeding base rows from fleet rates", |tx| {
            tx.seed_base(workspaces, rows, held)
        })?;
        self.flush()?;
        Ok(seeded)
    }

    fn meta_value(&self, key: &str) -> Result<Option<u64>, StoreError> {
        let label = self.label();
        let txn = self.db()?.begin_read().at(label, "reading meta")?;
        let table = txn.open_table(META).at(label, "reading meta")?;
        Ok(table.get(key).at(label, "reading meta")?.map(|v| v.value()))
    }
}

#[cfg(test)]
mod tests {
    use crate::testkit::{decision, reject};
    use crate::{RedbStore, StoreOptions, check_fold};
    use docsuggest_schema::{DecisionStore, RateEvent, RateKey, RateMove, RateRow, StoreContents};
    use std::collections::BTreeSet;

    fn row(s: &RedbStore, key: &RateKey) -> Option<RateRow> {
        s.snapshot().expect("snapshot").row(key).expect("row")
    }

    fn mv(key: &RateKey, step: f64) -> RateMove {
        RateMove {
            key: key.clone(),
            event: RateEvent::Reject,
            step,
        }
    }

    #[test]
    fn the_store_id_is_drawn_once_and_kept_across_opens() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("s.redb");
        let id = {
            let mut s = RedbStore::open(StoreOptions::new(&file)).expect("open");
            assert_eq!(s.exported_through().expect("meta"), None);
            let id = s.store_id().expect("id");
            assert_eq!(s.store_id().expect("id"), id);
            s.set_exported_through(7).expect("mark");
            id
        };
        let mut s = RedbStore::open(StoreOptions::new(&file)).expect("open");
        assert_eq!(s.store_id().expect("id"), id);
        assert_eq!(s.exported_through().expect("meta"), Some(7));
        let other = dir.path().join("t.redb");
        let mut t = RedbStore::open(StoreOptions::new(&other)).expect("open");
        assert_ne!(t.store_id().expect("id"), id);
    }

    fn resolve_one(s: &mut RedbStore) {
        let seq = s.record_pending(decision("Plan")).expect("record");
        s.resolve(reject(seq, vec![mv(&RateKey::family("w", "Plan"), -0.1)]))
            .expect("resolve");
        s.flush().expect("flush");
    }

    #[test]
    fn each_handle_that_resolves_records_its_own_run_and_a_copy_parts_from_its_original() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("s.redb");
        let copy = dir.path().join("copy.redb");
        let first = {
            let mut s = RedbStore::open(StoreOptions::new(&file)).expect("open");
            assert_eq!(s.lineage().expect("lineage").starts(), []);
            resolve_one(&mut s);
            resolve_one(&mut s);
            let lineage = s.lineage().expect("lineage");
            assert_eq!(lineage.starts().len(), 1, "{lineage:?}");
            assert_eq!(lineage.starts()[0].0, 1);
            lineage.run_of(2)
        };
        assert_ne!(first, 0);
        // A handle that resolves nothing records no run.
        drop(RedbStore::open(StoreOptions::new(&file)).expect("open"));
        std::fs::copy(&file, &copy).expect("copy");
        let mut original = RedbStore::open(StoreOptions::new(&file)).expect("open");
        let mut copied = RedbStore::open(StoreOptions::new(&copy)).expect("open");
        resolve_one(&mut original);
        resolve_one(&mut copied);
        let (a, b) = (
            original.lineage().expect("lineage"),
            copied.lineage().expect("lineage"),
        );
        // Both numbered their new entry 3; the runs tell them apart, the shared ones agree.
        assert_eq!((a.starts().len(), b.starts().len()), (2, 2));
        assert_eq!((a.run_of(2), b.run_of(2)), (first, first));
        assert_ne!(a.run_of(3), b.run_of(3));
        assert!(a.run_of(3) != first && b.run_of(3) != first);
    }

    #[test]
    fn seeding_replaces_the_base_drops_what_the_fleet_holds_and_keeps_the_fold() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut s = RedbStore::open(StoreOptions::new(dir.path().join("s.redb"))).expect("open");
        for ws in ["a", "a", "b", "a"] {
            let mut d = decision("Plan");
            d.workspace = ws.into();
            let seq = s.record_pending(d).expect("record");
            s.resolve(reject(seq, vec![mv(&RateKey::family(ws, "Plan"), -0.1)]))
                .expect("resolve");
        }
        let b_before = row(&s, &RateKey::family("b", "Plan"));
        let fleet = RateRow {
            accepts: 10,
            rejects: 2,
            recent_hits: 8.5,
            recent_misses: 1.5,
            ..RateRow::default()
        };
        let rows = vec![
            (RateKey::family("a", "Plan"), fleet),
            (RateKey::family("b", "Plan"), RateRow::default()),
        ];
        let workspaces = BTreeSet::from(["a".to_string()]);
        // The fleet holds this store's first two entries (a, a).
        let seeded = s
            .seed_base(&workspaces, &rows, &|seq| seq <= 2)
            .expect("seed");
        assert_eq!(
            (seeded.base, seeded.dropped_history, seeded.rates),
            (1, 2, 1)
        );
        // a: the fleet's row with the one entry it does not hold folded on top.
        let live = row(&s, &RateKey::family("a", "Plan")).expect("a row");
        assert_eq!((live.accepts, live.rejects), (10, 3));
        // b: untouched.
        assert_eq!(row(&s, &RateKey::family("b", "Plan")), b_before);
        assert_eq!(s.history().expect("history").len(), 2);
        assert!(check_fold(&s).expect("check").is_clean());
    }
}
