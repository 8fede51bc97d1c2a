//! Forgetting one workspace: its live and base rows, its history entries and its pending
//! decisions, in one write transaction (what `docsuggest bootstrap --force` replaces).
//!
//! Every move of a history entry is keyed to the entry's own workspace, so removing all of a
//! workspace's rows together with all of its entries keeps `live == fold(base, history)` for
//! every key, theirs (gone) and everybody else's (untouched). Sequence counters are not wound
//! back: a number handed out is never handed out again. The workspace's mined pack (the
//! `mined` table) is kept: it is not learned state but what the workspace's git history says,
//! and costly to mine again.

use crate::errors::ResultExt;
use crate::redb_store::RedbStore;
use crate::tables::{decode_pending, read_history};
use crate::tx::Tx;
use docsuggest_schema::StoreError;
use redb::ReadableTable;

/// What [`RedbStore::forget_workspace`] removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Forgotten {
    /// Live rate rows.
    pub rates: usize,
    /// Base rows (the folded moves of evicted history).
    pub base: usize,
    /// History entries.
    pub history: usize,
    /// Pending decisions.
    pub pending: usize,
}

impl Tx<'_> {
    fn forget_workspace(&mut self, workspace: &str) -> Result<Forgotten, StoreError> {
        let path = self.path;
        let mut gone = Forgotten::default();
        self.rates
            .retain(|k, _| {
                let keep = k.0 != workspace;
                gone.rates += usize::from(!keep);
                keep
            })
            .at(path, "forgetting rates")?;
        self.base
            .retain(|k, _| {
                let keep = k.0 != workspace;
                gone.base += usize::from(!keep);
                keep
            })
            .at(path, "forgetting base rows")?;
        // Entries are decoded (not matched in the closure) so a damaged one is an error, not
        // silently kept or dropped.
        let mut entries = Vec::new();
        for entry in read_history(path, &self.history, &self.moves)? {
            if entry.decision.workspace == workspace {
                entries.push(entry.resolution_seq);
            }
        }
        for seq in &entries {
            self.history.remove(seq).at(path, "forgetting history")?;
            self.moves.remove(seq).at(path, "forgetting history")?;
        }
        gone.history = entries.len();
        let mut pending = Vec::new();
        for item in self.pending.iter().at(path, "reading pending")? {
            let (k, v) = item.at(path, "reading pending")?;
            if decode_pending(path, k.value(), v.value())?.workspace == workspace {
                pending.push(k.value());
            }
        }
        for seq in &pending {
            self.pending.remove(seq).at(path, "forgetting pending")?;
        }
        gone.pending = pending.len();
        Ok(gone)
    }
}

impl RedbStore {
    /// Removes everything the store learned and recorded for `workspace` (a workspace key),
    /// in one transaction; other workspaces are untouched.
    pub fn forget_workspace(&mut self, workspace: &str) -> Result<Forgotten, StoreError> {
        self.write("forgetting a workspace", |tx| {
            tx.forget_workspace(workspace)
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::testkit::{decision, mv, reject};
    use crate::{RedbStore, StoreOptions, check_fold};
    use docsuggest_schema::{DecisionStore, Durability, RateKey, StoreContents};

    /// A decision and its moves moved into workspace `ws`.
    fn rejected_in(store: &mut RedbStore, ws: &str) {
        let mut d = decision("Plan");
        d.workspace = ws.into();
        let seq = store.record_pending(d).expect("pending");
        let mut moves = vec![mv("Plan", "A.md", -0.2), mv("Plan", "", -0.2)];
        for m in &mut moves {
            m.key.workspace = ws.into();
        }
        store.resolve(reject(seq, moves)).expect("reject");
    }

    #[test]
    fn one_workspace_goes_and_the_others_and_the_fold_stay() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options = StoreOptions {
            // A ring of 2 evicts into base, so base rows are forgotten too.
            ring_capacity: 2,
            durability: Durability::Immediate,
            ..StoreOptions::new(dir.path().join("s.redb"))
        };
        let mut s = RedbStore::open(options).expect("open");
        for ws in ["a", "b", "a", "a"] {
            rejected_in(&mut s, ws);
        }
        let mut open = decision("Plan");
        open.workspace = "a".into();
        s.record_pending(open).expect("pending");
        let before = s.committed();
        let other: Vec<_> = s
            .rate_rows()
            .expect("rows")
            .into_iter()
            .filter(|(k, _)| k.workspace == "b")
            .collect();

        let gone = s.forget_workspace("a").expect("forget");
        assert_eq!(gone.rates, 2);
        assert_eq!(gone.history, 2, "the ring of 2 kept the last two, both a's");
        assert_eq!(gone.base, 2, "a's evicted moves were folded into base");
        assert_eq!(gone.pending, 1);
        let rows = s.rate_rows().expect("rows");
        assert_eq!(rows, other, "b's rows are untouched");
        assert!(
            s.base_rows()
                .expect("base")
                .iter()
                .all(|(k, _)| k.workspace == "b")
        );
        assert!(s.history().expect("history").is_empty());
        assert!(s.pending().expect("pending").is_empty());
        assert!(check_fold(&s).expect("fold").is_clean());
        assert_eq!(
            s.snapshot()
                .expect("snapshot")
                .row(&RateKey::family("a", "Plan"))
                .expect("row"),
            None
        );
        // Numbers go on where they were.
        rejected_in(&mut s, "a");
        assert!(s.committed().decision_seq > before.decision_seq);
        assert_eq!(
            s.forget_workspace("nobody").expect("forget"),
            Default::default()
        );
        s.close().expect("close");
    }
}
