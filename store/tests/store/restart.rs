//! What a store learned survives closing and reopening; windows left open are abandoned.

use crate::common::{Harness, Op, RedbHarness, decision, options, run, silence};
use docsuggest_schema::{DecisionStore, Durability, Outcome, StoreContents, StoreKind};
use docsuggest_store::{FailOpenStore, SeqMarks, check_fold};

#[test]
fn rates_and_sequences_survive_a_restart_and_open_windows_are_abandoned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut h = RedbHarness::new(options(
        &dir.path().join("s.redb"),
        8,
        Durability::Immediate,
    ));
    let seqs = run(
        &mut h,
        &[
            Op::Pending(0),
            Op::Accept(0, 1),
            Op::Pending(1),
            Op::Reject(0),
            Op::Silent(0),
            Op::Pending(0),
            Op::Pending(1),
        ],
    );
    assert_eq!(seqs, [1, 2, 3, 4, 5]);
    let rates = h.get().rate_rows().expect("rates");
    let history = h.get().history().expect("history");
    assert_eq!(rates.len(), 5);

    h.reopen();
    let s = h.get();
    assert_eq!(s.rate_rows().expect("rates"), rates);
    assert_eq!(s.open_report().abandoned, 2);
    assert!(s.pending().expect("pending").is_empty());
    let after = s.history().expect("history");
    assert_eq!(after[..history.len()], history[..]);
    let closed: Vec<(u64, u64, Outcome, usize)> = after[history.len()..]
        .iter()
        .map(|e| {
            (
                e.resolution_seq,
                e.decision.seq,
                e.decision.outcome,
                e.moves.len(),
            )
        })
        .collect();
    assert_eq!(
        closed,
        [(4, 4, Outcome::Abandoned, 0), (5, 5, Outcome::Abandoned, 0)]
    );
    assert_eq!(
        s.committed(),
        SeqMarks {
            decision_seq: 5,
            resolution_seq: 5
        }
    );
    assert!(check_fold(s).expect("fold").is_clean());

    // Numbering continues where it stopped.
    assert_eq!(
        h.store().record_pending(decision("Plan")).expect("pending"),
        6
    );
    assert_eq!(h.store().record_silent(silence("Plan")).expect("silent"), 7);
    assert_eq!(
        h.get().committed(),
        SeqMarks {
            decision_seq: 7,
            resolution_seq: 6
        }
    );
}

#[test]
fn the_fail_open_store_reopens_what_it_learned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let opts = options(&dir.path().join("s.redb"), 8, Durability::Group);
    let mut first = FailOpenStore::open(opts.clone(), 16);
    assert_eq!(first.kind(), StoreKind::Redb);
    let mut d = decision("Plan");
    d.seq = first.record_pending(d.clone()).expect("pending");
    let r = crate::common::resolution(&d, Outcome::Rejected, None);
    first.resolve(r).expect("resolve");
    let rates = first.rate_rows().expect("rates");
    assert_eq!(first.close().expect("close"), 1);
    drop(first);

    let mut second = FailOpenStore::open(opts, 16);
    assert_eq!(second.kind(), StoreKind::Redb);
    assert_eq!(second.take_degradation(), None);
    assert_eq!(second.rate_rows().expect("rates"), rates);
    assert_eq!(second.record_silent(silence("Plan")).expect("silent"), 2);
}
