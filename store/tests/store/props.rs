//! Random sessions: the invariants hold, and both stores agree.

use crate::common::{Harness, Op, RedbHarness, options, run};
use docsuggest_schema::{Durability, HistoryEntry, RateModel, StoreContents};
use docsuggest_store::recompute::{RecomputeOptions, recompute};
use docsuggest_store::{MemoryStore, check_fold, same_bits};
use proptest::prelude::*;
use std::sync::atomic::AtomicU64;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => any::<u8>().prop_map(Op::Pending),
        2 => any::<u8>().prop_map(Op::Silent),
        2 => (any::<u8>(), any::<u8>()).prop_map(|(i, c)| Op::Accept(i, c)),
        2 => any::<u8>().prop_map(Op::Reject),
        1 => any::<u8>().prop_map(Op::Abandon),
        1 => Just(Op::Reopen),
    ]
}

fn strictly_increasing(seqs: &[u64]) -> bool {
    seqs.windows(2).all(|w| w[0] < w[1])
}

fn resolution_seqs(history: &[HistoryEntry]) -> Vec<u64> {
    history.iter().map(|e| e.resolution_seq).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn redb_and_memory_agree_and_keep_the_invariants(
        ring in 1u64..6,
        ops in prop::collection::vec(op(), 1..80),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut redb = RedbHarness::new(options(&dir.path().join("p.redb"), ring, Durability::Group));
        // Larger than the six keys and any ring here: the memory store forgets nothing.
        let mut memory = MemoryStore::new(64);
        let seqs = run(&mut redb, &ops);
        prop_assert_eq!(&run(&mut memory, &ops), &seqs);
        prop_assert!(strictly_increasing(&seqs));

        let store = redb.get();
        prop_assert!(check_fold(store).expect("fold").is_clean());
        prop_assert!(check_fold(&memory).expect("fold").is_clean());
        prop_assert!(store.ring_len().expect("ring") <= ring);

        let (r, m) = (store.rate_rows().expect("rates"), memory.rate_rows().expect("rates"));
        prop_assert_eq!(r.len(), m.len());
        for ((rk, rr), (mk, mr)) in r.iter().zip(&m) {
            prop_assert_eq!(rk, mk);
            prop_assert!(same_bits(rr, mr), "{:?}: {:?} vs {:?}", rk, rr, mr);
        }

        // The redb ring is the newest part of the memory store's longer one.
        let (rh, mh) = (store.history().expect("history"), memory.history().expect("history"));
        prop_assert!(strictly_increasing(&resolution_seqs(&rh)));
        prop_assert!(strictly_increasing(&resolution_seqs(&mh)));
        prop_assert_eq!(&mh[mh.len() - rh.len()..], &rh[..]);
        prop_assert_eq!(store.pending().expect("pending"), memory.pending().expect("pending"));
        // Group durability: pending records may still wait for redb's next commit.
        prop_assert_eq!(store.handed_out(), memory.marks());
        let waited = store.waiting() > 0;
        redb.store().flush().expect("flush");
        let store = redb.get();
        prop_assert_eq!(store.committed(), memory.marks());
        prop_assert_eq!(store.waiting(), 0);
        if waited {
            prop_assert_eq!(store.view().expect("view").pending().expect("pending"), memory.pending().expect("pending"));
        }
    }

    /// Keys interleave in history (two families, each with its companions) and the ring
    /// folds the oldest into base: recompute, parallel or not, rebuilds every live row —
    /// its recent evidence, which ages with each move of its key, included — bit for bit.
    #[test]
    fn recompute_rebuilds_live_rows_and_their_recent_evidence(
        ring in 1u64..8,
        ops in prop::collection::vec(op(), 1..120),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut redb = RedbHarness::new(options(&dir.path().join("r.redb"), ring, Durability::Group));
        run(&mut redb, &ops);
        redb.store().flush().expect("flush");
        let store = redb.get();
        let live = store.rate_rows().expect("rates");
        for model in [RateModel::Step, RateModel::Beta, RateModel::Evidence] {
            for parallel in [false, true] {
                let out = recompute(store, RecomputeOptions { model, parallel }, &AtomicU64::new(0))
                    .expect("recompute");
                prop_assert_eq!(out.report.rows_differing, 0);
                prop_assert_eq!(out.rows.len(), live.len());
                for ((rk, rr), (lk, lr)) in out.rows.iter().zip(&live) {
                    prop_assert_eq!(rk, lk);
                    prop_assert_eq!(
                        (rr.recent_hits.to_bits(), rr.recent_misses.to_bits()),
                        (lr.recent_hits.to_bits(), lr.recent_misses.to_bits()),
                        "{:?}", rk
                    );
                    prop_assert!(same_bits(rr, lr), "{:?}: {:?} vs {:?}", rk, rr, lr);
                }
            }
        }
    }

    #[test]
    fn a_small_memory_store_stays_bounded(
        limit in 1usize..5,
        ops in prop::collection::vec(op(), 1..80),
    ) {
        let mut memory = MemoryStore::new(limit);
        let seqs = run(&mut memory, &ops);
        prop_assert!(strictly_increasing(&seqs));
        prop_assert!(memory.ring_len() <= limit);
        prop_assert!(memory.rate_rows().expect("rates").len() <= limit);
        prop_assert!(memory.pending().expect("pending").len() <= limit);
        prop_assert!(strictly_increasing(&resolution_seqs(&memory.history().expect("history"))));
        prop_assert!(check_fold(&memory).expect("fold").is_clean());
    }
}
