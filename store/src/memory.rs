//! The bounded memory fallback: the same records and rates as the redb store, lost at exit.
//!
//! Everything is bounded by `store_limit` (from the config, changeable at run time):
//!
//! - the resolved history is a ring of at most `store_limit` entries; an evicted entry's moves
//!   are folded into the base map, exactly as the redb store does, so
//!   `live == fold(base, history)` holds for every key;
//! - at most `store_limit` keys have a rate row. When a move would add one more, the key moved
//!   least recently is *forgotten*: its live row, its base row and its moves in the ring are
//!   dropped together, so the invariant still holds and the key reads neutral (1/3) again;
//! - at most `store_limit` decisions are pending; recording one more closes the oldest as
//!   abandoned (no rate move), as a restart would.
//!
//! Mined packs (zero-config) are kept for at most [`MemoryStore::MINED_BOUND`] workspaces;
//! past it the one stored least recently is dropped.
//!
//! Sequence numbers start at 1 and never repeat within the store's life: decision numbers for
//! pending and silent records alike, resolution numbers in history order.

use crate::record::{self, SeqMarks};
use docsuggest_schema::{
    Decision, DecisionStore, HistoryEntry, MinedPack, RateKey, RateRow, RateSnapshot, Resolution,
    StoreContents, StoreError, StoreKind,
};
use std::collections::{BTreeMap, VecDeque};

/// A live row and the tick of its last move (for least-recently-moved eviction).
#[derive(Clone, Copy, Debug)]
struct Live {
    row: RateRow,
    tick: u64,
}

/// What a memory store takes over when the redb store fails mid-session.
#[derive(Clone, Debug, Default)]
pub struct Resume {
    /// The sequence numbers already handed out; new ones continue after them.
    pub marks: SeqMarks,
    /// Live rows to keep (they become base rows too, so the invariant holds).
    pub rates: Vec<(RateKey, RateRow)>,
    /// Decisions still pending.
    pub pending: Vec<Decision>,
}

/// The bounded in-memory store.
#[derive(Debug)]
pub struct MemoryStore {
    limit: usize,
    rates: BTreeMap<RateKey, Live>,
    by_tick: BTreeMap<u64, RateKey>,
    tick: u64,
    base: BTreeMap<RateKey, RateRow>,
    history: VecDeque<HistoryEntry>,
    pending: BTreeMap<u64, Decision>,
    marks: SeqMarks,
    /// Mined packs by workspace key, the one stored least recently first.
    mined: VecDeque<(String, MinedPack)>,
}

impl MemoryStore {
    /// The most workspaces whose mined pack is kept (each up to 1 MiB of JSON text).
    pub const MINED_BOUND: usize = 64;

    /// An empty store bounded by `limit` (at least 1).
    pub fn new(limit: usize) -> MemoryStore {
        MemoryStore {
            limit: limit.max(1),
            rates: BTreeMap::new(),
            by_tick: BTreeMap::new(),
            tick: 0,
            base: BTreeMap::new(),
            history: VecDeque::new(),
            pending: BTreeMap::new(),
            marks: SeqMarks::default(),
            mined: VecDeque::new(),
        }
    }

    /// A store that continues where another left off (see [`Resume`]); rows past the bound are
    /// dropped, last keys first.
    pub fn resume(limit: usize, from: Resume) -> MemoryStore {
        let mut store = MemoryStore::new(limit);
        store.marks = from.marks;
        for (key, row) in from.rates.into_iter().take(store.limit) {
            store.base.insert(key.clone(), row);
            store.touch(key, row);
        }
        for decision in from.pending {
            store.pending.insert(decision.seq, decision);
        }
        store.trim_pending();
        store
    }

    /// The bound.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Changes the bound; shrinking evicts at once.
    pub fn set_limit(&mut self, limit: usize) {
        self.limit = limit.max(1);
        self.trim_history();
        while self.rates.len() > self.limit {
            self.forget_oldest();
        }
        self.trim_pending();
    }

    /// How many entries the history ring holds.
    pub fn ring_len(&self) -> usize {
        self.history.len()
    }

    /// The sequence numbers handed out so far.
    pub fn marks(&self) -> SeqMarks {
        self.marks
    }

    /// The numbers of the pending decisions, in order.
    pub(crate) fn pending_seqs(&self) -> Vec<u64> {
        self.pending.keys().copied().collect()
    }

    /// Closes every pending decision as abandoned (no moves), oldest first; answers how many.
    pub fn abandon_pending(&mut self) -> usize {
        let seqs: Vec<u64> = self.pending.keys().copied().collect();
        for &seq in &seqs {
            self.close(record::abandoned(seq));
        }
        seqs.len()
    }

    fn next_decision(&mut self) -> u64 {
        self.marks.decision_seq += 1;
        self.marks.decision_seq
    }

    fn next_resolution(&mut self) -> u64 {
        self.marks.resolution_seq += 1;
        self.marks.resolution_seq
    }

    /// Sets a key's live row and marks it as moved now.
    fn touch(&mut self, key: RateKey, row: RateRow) {
        self.tick += 1;
        let tick = self.tick;
        if let Some(old) = self.rates.insert(key.clone(), Live { row, tick }) {
            self.by_tick.remove(&old.tick);
        }
        self.by_tick.insert(tick, key);
    }

    /// Forgets the key moved least recently: live row, base row and its moves in the ring.
    fn forget_oldest(&mut self) {
        let Some((_, key)) = self.by_tick.pop_first() else {
            return;
        };
        self.rates.remove(&key);
        self.base.remove(&key);
        for entry in &mut self.history {
            entry.moves.retain(|m| m.key != key);
        }
    }

    fn trim_history(&mut self) {
        while self.history.len() > self.limit {
            let Some(entry) = self.history.pop_front() else {
                break;
            };
            for mv in &entry.moves {
                let base = self.base.get(&mv.key).copied().unwrap_or_default();
                self.base.insert(mv.key.clone(), base.apply(mv));
            }
        }
    }

    fn trim_pending(&mut self) {
        while self.pending.len() > self.limit {
            let Some(&seq) = self.pending.keys().next() else {
                break;
            };
            self.close(record::abandoned(seq));
        }
    }

    /// Closes a pending decision that is known to exist, with a checked resolution.
    fn close(&mut self, resolution: Resolution) {
        let Some(decision) = self.pending.remove(&resolution.decision_seq) else {
            return;
        };
        let seq = self.next_resolution();
        let mut entry = record::close(decision, resolution, seq);
        // Moves join the entry one by one, so forgetting a key part-way through this
        // resolution drops exactly the moves already applied to it.
        let moves = std::mem::take(&mut entry.moves);
        self.history.push_back(entry);
        for mv in moves {
            let live = match self.rates.get(&mv.key) {
                Some(live) => live.row,
                None => {
                    if self.rates.len() >= self.limit {
                        self.forget_oldest();
                    }
                    RateRow::default()
                }
            };
            let row = live.apply(&mv);
            let key = mv.key.clone();
            if let Some(entry) = self.history.back_mut() {
                entry.moves.push(mv);
            }
            self.touch(key, row);
        }
        self.trim_history();
    }
}

struct MemorySnapshot<'a>(&'a BTreeMap<RateKey, Live>);

impl RateSnapshot for MemorySnapshot<'_> {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        Ok(self.0.get(key).map(|l| l.row))
    }
}

impl DecisionStore for MemoryStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Memory
    }

    fn contents(&self) -> Option<&dyn StoreContents> {
        Some(self)
    }

    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        Ok(Box::new(MemorySnapshot(&self.rates)))
    }

    fn record_pending(&mut self, mut decision: Decision) -> Result<u64, StoreError> {
        let seq = self.next_decision();
        decision.seq = seq;
        self.pending.insert(seq, decision);
        self.trim_pending();
        Ok(seq)
    }

    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        let seq = self.next_decision();
        let resolution_seq = self.next_resolution();
        self.history
            .push_back(record::silent(decision, seq, resolution_seq));
        self.trim_history();
        Ok(seq)
    }

    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        record::check_resolution(&resolution)?;
        if !self.pending.contains_key(&resolution.decision_seq) {
            return Err(StoreError::UnknownDecision(resolution.decision_seq));
        }
        self.close(resolution);
        Ok(())
    }

    /// Nothing in memory is durable: answers 0.
    fn flush(&mut self) -> Result<u64, StoreError> {
        Ok(0)
    }

    fn configure(&mut self, config: &docsuggest_schema::Config) {
        self.set_limit(config.store_limit);
    }

    fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        Ok(self
            .mined
            .iter()
            .find(|(w, _)| w == workspace)
            .map(|(_, m)| m.clone()))
    }

    /// Replaces the workspace's record and makes it the most recent; past
    /// [`MemoryStore::MINED_BOUND`] workspaces the least recently stored is dropped.
    fn put_mined_pack(&mut self, workspace: &str, mined: MinedPack) -> Result<(), StoreError> {
        if let Some(problem) = mined.problem() {
            return Err(StoreError::Invalid(format!(
                "mined pack of {workspace:?}: {problem}"
            )));
        }
        self.mined.retain(|(w, _)| w != workspace);
        self.mined.push_back((workspace.to_string(), mined));
        while self.mined.len() > MemoryStore::MINED_BOUND {
            self.mined.pop_front();
        }
        Ok(())
    }
}

impl StoreContents for MemoryStore {
    fn rate_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        Ok(self.rates.iter().map(|(k, l)| (k.clone(), l.row)).collect())
    }

    fn base_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        Ok(self.base.iter().map(|(k, r)| (k.clone(), *r)).collect())
    }

    fn history(&self) -> Result<Vec<HistoryEntry>, StoreError> {
        Ok(self.history.iter().cloned().collect())
    }

    fn pending(&self) -> Result<Vec<Decision>, StoreError> {
        Ok(self.pending.values().cloned().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fold::check_fold;
    use crate::testkit::{accept, decision, mv, reject};
    use docsuggest_schema::Outcome;

    fn keys(store: &MemoryStore) -> Vec<String> {
        store
            .rate_rows()
            .expect("rows")
            .into_iter()
            .map(|(k, _)| format!("{}/{}", k.family, k.companion))
            .collect()
    }

    fn history(store: &MemoryStore) -> Vec<(u64, u64, Outcome, usize)> {
        store
            .history()
            .expect("history")
            .iter()
            .map(|e| {
                (
                    e.resolution_seq,
                    e.decision.seq,
                    e.decision.outcome,
                    e.moves.len(),
                )
            })
            .collect()
    }

    fn clean(store: &MemoryStore) -> bool {
        check_fold(store).expect("fold").is_clean()
    }

    #[test]
    fn sequences_start_at_one_and_follow_history_order() {
        let mut s = MemoryStore::new(8);
        assert_eq!(s.record_pending(decision("Plan")).expect("pending"), 1);
        assert_eq!(s.record_silent(decision("Plan")).expect("silent"), 2);
        assert_eq!(s.record_pending(decision("Plan")).expect("pending"), 3);
        s.resolve(reject(3, vec![mv("Plan", "", -0.2)]))
            .expect("resolve");
        s.resolve(accept(1, "A.md", vec![mv("Plan", "A.md", 0.1)]))
            .expect("resolve");
        assert_eq!(
            history(&s),
            [
                (1, 2, Outcome::Silent, 0),
                (2, 3, Outcome::Rejected, 1),
                (3, 1, Outcome::Accepted, 1),
            ]
        );
        assert_eq!(
            s.marks(),
            SeqMarks {
                decision_seq: 3,
                resolution_seq: 3
            }
        );
        assert_eq!(
            s.history().expect("history")[2]
                .decision
                .accepted
                .as_deref(),
            Some("A.md")
        );
        assert!(s.pending().expect("pending").is_empty());
        assert_eq!(s.kind(), StoreKind::Memory);
        assert_eq!(s.flush().expect("flush"), 0);
    }

    #[test]
    fn unknown_and_invalid_resolutions_change_nothing() {
        let mut s = MemoryStore::new(8);
        s.record_pending(decision("Plan")).expect("pending");
        let err = s.resolve(reject(9, vec![])).expect_err("unknown");
        assert_eq!(err.to_string(), "no pending decision 9");
        let mut bad = reject(1, vec![]);
        bad.outcome = Outcome::Pending;
        let err = s.resolve(bad).expect_err("invalid");
        assert!(matches!(err, StoreError::Invalid(_)), "{err}");
        assert_eq!(s.pending().expect("pending").len(), 1);
        assert_eq!(s.marks().resolution_seq, 0);
    }

    #[test]
    fn the_ring_folds_evicted_moves_into_base() {
        let mut s = MemoryStore::new(2);
        for step in [-0.2, -0.2, 0.1, -0.2] {
            let seq = s.record_pending(decision("Plan")).expect("pending");
            s.resolve(reject(seq, vec![mv("Plan", "", step)]))
                .expect("resolve");
        }
        assert_eq!(s.ring_len(), 2);
        assert_eq!(history(&s).iter().map(|h| h.0).collect::<Vec<_>>(), [3, 4]);
        let base = s.base_rows().expect("base");
        assert_eq!(base.len(), 1);
        // Two rejects from 1/3 clamp at 0.
        assert_eq!(base[0].1.step, 0.0);
        assert_eq!(base[0].1.rejects, 2);
        let live = s.rate_rows().expect("rows")[0].1;
        assert_eq!(live.step, 0.0);
        assert_eq!((live.accepts, live.rejects), (1, 3));
        assert!(clean(&s));
    }

    #[test]
    fn the_least_recently_moved_key_is_forgotten() {
        let mut s = MemoryStore::new(2);
        let mut moves = |c: &str| {
            let seq = s.record_pending(decision("Plan")).expect("pending");
            s.resolve(reject(seq, vec![mv("Plan", c, -0.2)]))
                .expect("resolve");
        };
        moves("A.md");
        moves("B.md");
        moves("A.md");
        moves("C.md");
        // B was moved least recently: its row and its moves in the ring are gone.
        assert_eq!(keys(&s), ["Plan/A.md", "Plan/C.md"]);
        let b = docsuggest_schema::RateKey::companion("ws", "Plan", "B.md");
        assert_eq!(s.snapshot().expect("snapshot").row(&b).expect("row"), None);
        assert!(clean(&s));
        assert_eq!(history(&s).iter().map(|h| h.3).collect::<Vec<_>>(), [1, 1]);
    }

    #[test]
    fn a_key_forgotten_mid_resolution_keeps_its_later_moves() {
        let mut s = MemoryStore::new(1);
        let seq = s.record_pending(decision("Plan")).expect("pending");
        let moves = vec![
            mv("Plan", "A.md", -0.2),
            mv("Plan", "B.md", -0.2),
            mv("Plan", "A.md", -0.2),
        ];
        s.resolve(reject(seq, moves)).expect("resolve");
        assert_eq!(keys(&s), ["Plan/A.md"]);
        assert_eq!(s.rate_rows().expect("rows")[0].1.rejects, 1);
        assert!(clean(&s));
    }

    #[test]
    fn pending_is_bounded_and_the_oldest_is_abandoned() {
        let mut s = MemoryStore::new(2);
        for _ in 0..3 {
            s.record_pending(decision("Plan")).expect("pending");
        }
        let pending: Vec<u64> = s
            .pending()
            .expect("pending")
            .iter()
            .map(|d| d.seq)
            .collect();
        assert_eq!(pending, [2, 3]);
        assert_eq!(history(&s), [(1, 1, Outcome::Abandoned, 0)]);
        assert_eq!(s.abandon_pending(), 2);
        assert_eq!(s.ring_len(), 2);
    }

    #[test]
    fn shrinking_the_limit_evicts_at_once() {
        let mut s = MemoryStore::new(8);
        for c in ["A.md", "B.md", "C.md", "D.md"] {
            let seq = s.record_pending(decision("Plan")).expect("pending");
            s.resolve(reject(seq, vec![mv("Plan", c, -0.2)]))
                .expect("resolve");
        }
        let config = docsuggest_schema::Config {
            store_limit: 2,
            ..Default::default()
        };
        s.configure(&config);
        assert_eq!(s.limit(), 2);
        assert_eq!(s.ring_len(), 2);
        assert_eq!(keys(&s), ["Plan/C.md", "Plan/D.md"]);
        assert!(clean(&s));
    }

    fn mined(head: &str) -> MinedPack {
        MinedPack {
            pack: r#"{"families": []}"#.into(),
            head: head.into(),
            commits: 1,
            miner: 1,
        }
    }

    #[test]
    fn mined_packs_are_kept_per_workspace_for_at_most_the_bound() {
        let mut s = MemoryStore::new(2);
        assert_eq!(s.mined_pack("w0").expect("read"), None);
        for i in 0..=MemoryStore::MINED_BOUND {
            s.put_mined_pack(&format!("w{i}"), mined("a")).expect("put");
        }
        // One past the bound: the first workspace stored is gone, the others are kept.
        assert_eq!(s.mined_pack("w0").expect("read"), None);
        assert_eq!(s.mined_pack("w1").expect("read"), Some(mined("a")));
        // Storing again replaces the record and makes it the most recent.
        s.put_mined_pack("w1", mined("b")).expect("put");
        s.put_mined_pack("one-more", mined("a")).expect("put");
        assert_eq!(s.mined_pack("w1").expect("read"), Some(mined("b")));
        assert_eq!(s.mined_pack("w2").expect("read"), None);
        assert_eq!(s.mined.len(), MemoryStore::MINED_BOUND);
        // A record past its bounds is a request error and changes nothing.
        let big = MinedPack {
            pack: "x".repeat(docsuggest_schema::store::MAX_MINED_PACK_BYTES + 1),
            ..mined("c")
        };
        assert!(matches!(
            s.put_mined_pack("w1", big),
            Err(StoreError::Invalid(_))
        ));
        assert_eq!(s.mined_pack("w1").expect("read"), Some(mined("b")));
    }

    #[test]
    fn resume_continues_sequences_and_keeps_rows_and_windows() {
        let mut pending = decision("Plan");
        pending.seq = 7;
        let row = RateRow {
            step: 0.5,
            accepts: 3,
            rejects: 1,
            ..RateRow::default()
        };
        let key = docsuggest_schema::RateKey::family("ws", "Plan");
        let mut s = MemoryStore::resume(
            4,
            Resume {
                marks: SeqMarks {
                    decision_seq: 9,
                    resolution_seq: 5,
                },
                rates: vec![(key.clone(), row)],
                pending: vec![pending],
            },
        );
        assert_eq!(
            s.snapshot().expect("snapshot").row(&key).expect("row"),
            Some(row)
        );
        assert!(clean(&s));
        s.resolve(reject(7, vec![mv("Plan", "", -0.2)]))
            .expect("resolve");
        assert_eq!(s.record_silent(decision("Plan")).expect("silent"), 10);
        assert_eq!(
            history(&s),
            [(6, 7, Outcome::Rejected, 1), (7, 10, Outcome::Silent, 0)]
        );
        assert!(clean(&s));
    }
}
