//! Under `group` durability pending records and resolutions wait in memory and are written by
//! the next commit: the same numbers and contents as commits of their own, without the
//! commits.

use crate::common::{COMPANIONS, Op, RedbHarness, contents, decision, options, resolution, run};
use crate::common::{Harness, silence};
use docsuggest_schema::{
    Config, Decision, DecisionStore, Durability, Outcome, RateKey, StoreContents, StoreError,
};
use docsuggest_store::{RedbStore, SeqMarks, StoreOptions, StoreReader, check_fold};
use std::path::Path;
use std::time::Duration;

fn group(path: &Path) -> StoreOptions {
    options(path, 16, Durability::Group)
}

/// Records a pending decision of `family`; answers it as the store numbered it.
fn record(s: &mut RedbStore, family: &str) -> Decision {
    let mut d = decision(family);
    d.seq = s.record_pending(d.clone()).expect("record_pending");
    d
}

fn seqs(pending: &[Decision]) -> Vec<u64> {
    pending.iter().map(|d| d.seq).collect()
}

/// The decision numbers the file holds as pending, as another thread reads them.
fn on_file(reader: &StoreReader) -> Vec<u64> {
    seqs(&reader.view().expect("view").pending().expect("pending"))
}

#[test]
fn a_group_pending_record_waits_for_the_next_commit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(group(&dir.path().join("s.redb"))).expect("open");
    let reader = s.reader().expect("reader");
    let a = record(&mut s, "Plan");
    let b = record(&mut s, "Scheme");
    assert_eq!((a.seq, b.seq), (1, 2));
    assert_eq!(s.waiting(), 2);
    // No commit: neither another thread nor this handle's own view sees them on the file.
    assert_eq!(s.committed(), SeqMarks::default());
    assert_eq!(
        reader.view().expect("view").marks().expect("marks"),
        SeqMarks::default()
    );
    assert!(on_file(&reader).is_empty());
    assert!(
        s.view()
            .expect("view")
            .pending()
            .expect("pending")
            .is_empty()
    );
    // The handle lists what it handed out, numbered and whole.
    assert_eq!(s.pending().expect("pending"), [a, b]);
    assert_eq!(
        s.handed_out(),
        SeqMarks {
            decision_seq: 2,
            resolution_seq: 0
        }
    );
    // The next commit writes them first.
    assert_eq!(s.record_silent(silence("Plan")).expect("silent"), 3);
    assert_eq!(s.waiting(), 0);
    assert_eq!(on_file(&reader), [1, 2]);
    assert_eq!(
        s.committed(),
        SeqMarks {
            decision_seq: 3,
            resolution_seq: 1
        }
    );
    assert_eq!(s.handed_out(), s.committed());
    assert_eq!(s.last_durable_seq(), 0, "that commit was not fsynced");
}

#[test]
fn group_numbers_and_contents_equal_immediate_ones() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ops = [
        Op::Pending(0),
        Op::Pending(1),
        Op::Silent(0),
        Op::Accept(0, 1),
        Op::Pending(0),
        Op::Reject(1),
        Op::Silent(1),
        Op::Pending(1),
        Op::Pending(0),
        Op::Abandon(0),
        Op::Silent(0),
        Op::Pending(1),
        Op::Reopen,
        Op::Pending(0),
        Op::Silent(1),
        Op::Reject(0),
        Op::Pending(1),
        Op::Pending(0),
    ];
    let mut immediate = RedbHarness::new(options(
        &dir.path().join("i.redb"),
        2,
        Durability::Immediate,
    ));
    let mut group = RedbHarness::new(options(&dir.path().join("g.redb"), 2, Durability::Group));
    let a = run(&mut immediate, &ops);
    let b = run(&mut group, &ops);
    assert_eq!(a, (1..=13).collect::<Vec<u64>>());
    assert_eq!(a, b);
    // Since the last commit (the last silence): a resolution and two records.
    assert_eq!(group.get().waiting(), 3);
    assert_eq!(contents(immediate.get()), contents(group.get()));
    assert_eq!(
        group.get().pending().expect("pending"),
        immediate.get().pending().expect("pending")
    );
    assert_eq!(group.get().handed_out(), immediate.get().committed());
    group.store().flush().expect("flush");
    assert_eq!(contents(immediate.get()), contents(group.get()));
    assert!(check_fold(group.get()).expect("fold").is_clean());
}

#[test]
fn a_waiting_decision_and_its_resolution_are_written_by_one_commit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(group(&dir.path().join("s.redb"))).expect("open");
    let reader = s.reader().expect("reader");
    let d = record(&mut s, "Plan");
    let r = resolution(&d, Outcome::Accepted, Some(COMPANIONS[0]));
    s.resolve(r.clone()).expect("resolve");
    // The resolution waits with its record: nothing on the file yet, everything in the
    // handle's own reads, the judge's snapshot included.
    assert_eq!(s.waiting(), 2);
    assert!(
        reader
            .view()
            .expect("view")
            .history()
            .expect("h")
            .is_empty()
    );
    assert_eq!(s.committed(), SeqMarks::default());
    assert_eq!(
        s.handed_out(),
        SeqMarks {
            decision_seq: 1,
            resolution_seq: 1
        }
    );
    assert!(s.pending().expect("pending").is_empty());
    let waiting_history = s.history().expect("history");
    let waiting_rows = s.rate_rows().expect("rows");
    let family = RateKey::family(&d.workspace, "Plan");
    let snapshot_row = s.snapshot().expect("snapshot").row(&family).expect("row");
    assert_eq!(snapshot_row.map(|r| r.accepts), Some(1));
    assert!(check_fold(&s).expect("fold").is_clean());
    // A second resolution of the same decision is refused as the commit would refuse it.
    let again = s.resolve(r.clone()).expect_err("already closed");
    assert!(matches!(again, StoreError::UnknownDecision(1)), "{again}");
    assert_eq!(s.waiting(), 2);
    s.flush().expect("flush");
    assert_eq!(s.waiting(), 0);
    let view = reader.view().expect("view");
    assert_eq!(view.history().expect("history"), waiting_history);
    assert_eq!(view.rate_rows().expect("rows"), waiting_rows);
    assert_eq!(
        view.marks().expect("marks"),
        SeqMarks {
            decision_seq: 1,
            resolution_seq: 1
        }
    );
    assert!(view.pending().expect("pending").is_empty());
    let history = view.history().expect("history");
    assert_eq!(history.len(), 1);
    let entry = &history[0];
    assert_eq!(entry.resolution_seq, 1);
    assert_eq!(entry.decision.seq, 1);
    assert_eq!(entry.decision.outcome, Outcome::Accepted);
    assert_eq!(entry.decision.accepted.as_deref(), Some(COMPANIONS[0]));
    assert_eq!(entry.moves, r.moves);
    let rows = view.rate_rows().expect("rows");
    let row = |key: RateKey| {
        rows.iter()
            .find(|(k, _)| *k == key)
            .map(|(_, r)| (r.accepts, r.step))
    };
    let up = Some((1, 1.0 / 3.0 + 0.1));
    assert_eq!(row(RateKey::family(&d.workspace, "Plan")), up);
    assert_eq!(
        row(RateKey::companion(&d.workspace, "Plan", COMPANIONS[0])),
        up
    );
    assert!(check_fold(&view).expect("fold").is_clean());
}

/// A failed write commits nothing, the waiting records included; they stay waiting and a
/// later commit writes them once.
#[test]
fn a_failed_write_leaves_the_records_waiting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(group(&dir.path().join("s.redb"))).expect("open");
    let reader = s.reader().expect("reader");
    let a = record(&mut s, "Plan");
    record(&mut s, "Plan");
    let err = s
        .resolve(resolution(&decision("Plan"), Outcome::Rejected, None))
        .expect_err("decision 0 was never recorded");
    assert!(matches!(err, StoreError::UnknownDecision(0)), "{err}");
    let mut bad = resolution(&a, Outcome::Accepted, Some(COMPANIONS[0]));
    bad.accepted = None;
    assert!(matches!(s.resolve(bad), Err(StoreError::Invalid(_))));
    assert_eq!(s.waiting(), 2);
    assert!(on_file(&reader).is_empty());
    assert_eq!(s.committed(), SeqMarks::default());
    assert_eq!(s.flush().expect("flush"), 2);
    assert_eq!(on_file(&reader), [1, 2]);
    // Written once: the counter on the file continues right after them.
    s.apply_config(&Config {
        durability: Durability::Immediate,
        ..Config::default()
    })
    .expect("configure");
    assert_eq!(record(&mut s, "Plan").seq, 3);
    assert_eq!(on_file(&reader), [1, 2, 3]);
}

#[test]
fn flush_writes_the_waiting_records_durably() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = dir.path().join("live.redb");
    let mut s = RedbStore::open(group(&live)).expect("open");
    record(&mut s, "Plan");
    record(&mut s, "Scheme");
    // What a process kill now would leave: neither record.
    let image = dir.path().join("before.redb");
    std::fs::copy(&live, &image).expect("copy");
    let before = RedbStore::open(group(&image)).expect("open image");
    assert_eq!(before.committed(), SeqMarks::default());
    assert_eq!(before.open_report().abandoned, 0);
    drop(before);

    assert_eq!(s.flush().expect("flush"), 2);
    assert_eq!(s.last_durable(), s.committed());
    assert_eq!(
        on_file(&s.reader().expect("a fresh reader")),
        [1, 2],
        "flushed records are on the file"
    );
    // What a process kill after the flush would leave: both, closed as abandoned at reopen.
    let image = dir.path().join("after.redb");
    std::fs::copy(&live, &image).expect("copy");
    let after = RedbStore::open(group(&image)).expect("open image");
    assert_eq!(after.open_report().abandoned, 2);
    let history = after.history().expect("history");
    let closed: Vec<(u64, Outcome)> = history
        .iter()
        .map(|e| (e.decision.seq, e.decision.outcome))
        .collect();
    assert_eq!(closed, [(1, Outcome::Abandoned), (2, Outcome::Abandoned)]);
    drop(after);

    // Dropped without close: the reopen finds them too.
    drop(s);
    let reopened = RedbStore::open(group(&live)).expect("reopen");
    assert_eq!(reopened.open_report().abandoned, 2);
    assert_eq!(
        reopened.committed(),
        SeqMarks {
            decision_seq: 2,
            resolution_seq: 2
        }
    );
}

#[test]
fn dropping_the_store_writes_its_waiting_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let mut s = RedbStore::open(group(&path)).expect("open");
    for _ in 0..3 {
        record(&mut s, "Plan");
    }
    assert_eq!(s.last_durable_seq(), 0);
    drop(s);
    let reopened = RedbStore::open(group(&path)).expect("reopen");
    assert_eq!(reopened.open_report().abandoned, 3);
    assert_eq!(reopened.committed().decision_seq, 3);
}

#[test]
fn the_bound_writes_the_waiting_records_in_one_commit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(group(&dir.path().join("s.redb"))).expect("open");
    let reader = s.reader().expect("reader");
    let bound = RedbStore::WAITING_BOUND as u64;
    for seq in 1..=bound {
        assert_eq!(record(&mut s, "Plan").seq, seq);
    }
    assert_eq!(s.waiting(), RedbStore::WAITING_BOUND);
    assert!(on_file(&reader).is_empty());
    // One more: the full queue goes out first, then this one waits.
    assert_eq!(record(&mut s, "Plan").seq, bound + 1);
    assert_eq!(s.waiting(), 1);
    assert_eq!(on_file(&reader), (1..=bound).collect::<Vec<u64>>());
    assert_eq!(s.committed().decision_seq, bound);
    assert_eq!(s.handed_out().decision_seq, bound + 1);
    assert_eq!(s.last_durable_seq(), 0, "that commit was not fsynced");
}

/// When the fsync is due is decided by the clock (`fsync_policy.rs` tests it at given instants);
/// here the interval is set so that no sleep and no slow machine changes the answer: an hour
/// (never due within the test) and zero (always due).
#[test]
fn a_record_made_when_an_fsync_is_due_is_written_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let hour = Duration::from_secs(3600);
    let mut s = RedbStore::open(StoreOptions {
        flush_interval: hour,
        ..group(&dir.path().join("s.redb"))
    })
    .expect("open");
    record(&mut s, "Plan");
    assert_eq!((s.waiting(), s.last_durable_seq()), (1, 0));
    let every = |ms: u64| Config {
        durability: Durability::Group,
        flush_interval_ms: ms,
        ..Config::default()
    };
    // Due now: the next record writes the waiting one and itself, durably.
    s.apply_config(&every(0)).expect("configure");
    assert_eq!(s.waiting(), 1, "changing the interval writes nothing");
    record(&mut s, "Plan");
    assert_eq!((s.waiting(), s.last_durable_seq()), (0, 2));
    // The interval starts again at that fsync: the next record waits.
    s.apply_config(&every(3_600_000)).expect("configure");
    record(&mut s, "Plan");
    assert_eq!((s.waiting(), s.last_durable_seq()), (1, 2));
}

#[test]
fn switching_to_immediate_and_checking_integrity_write_the_waiting_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(group(&dir.path().join("s.redb"))).expect("open");
    record(&mut s, "Plan");
    let report = s.check_integrity().expect("integrity");
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(s.waiting(), 0);
    assert_eq!(s.last_durable_seq(), 1);
    record(&mut s, "Plan");
    assert_eq!(s.waiting(), 1);
    s.apply_config(&Config {
        durability: Durability::Immediate,
        ..Config::default()
    })
    .expect("configure");
    assert_eq!(s.waiting(), 0);
    assert_eq!(s.last_durable_seq(), 2);
    let reader = s.reader().expect("reader");
    assert_eq!(on_file(&reader), [1, 2]);
}

#[test]
fn immediate_and_multi_process_modes_commit_each_record() {
    let dir = tempfile::tempdir().expect("tempdir");
    let immediate = options(&dir.path().join("i.redb"), 16, Durability::Immediate);
    let shared = StoreOptions {
        multi_process: true,
        ..group(&dir.path().join("m.redb"))
    };
    for opts in [immediate, shared] {
        let mut s = RedbStore::open(opts).expect("open");
        assert_eq!(s.durability(), Durability::Immediate);
        let reader = s.reader().expect("reader");
        for seq in 1..=2 {
            assert_eq!(record(&mut s, "Plan").seq, seq);
            assert_eq!(s.waiting(), 0);
            assert_eq!(on_file(&reader).last(), Some(&seq));
            assert_eq!(s.last_durable_seq(), seq);
        }
    }
}

/// A resolution of a decision committed earlier waits too; the handle stops listing the
/// decision as pending at once, the file when the resolution is written.
#[test]
fn a_committed_pending_decision_resolves_while_waiting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(group(&dir.path().join("s.redb"))).expect("open");
    let reader = s.reader().expect("reader");
    let a = record(&mut s, "Plan");
    let b = record(&mut s, "Plan");
    s.flush().expect("flush");
    assert_eq!(on_file(&reader), [1, 2]);
    s.resolve(resolution(&a, Outcome::Rejected, None))
        .expect("resolve");
    assert_eq!(s.waiting(), 1);
    assert_eq!(seqs(&s.pending().expect("pending")), [2]);
    assert_eq!(on_file(&reader), [1, 2]);
    let err = s
        .resolve(resolution(&a, Outcome::Rejected, None))
        .expect_err("closed already");
    assert!(matches!(err, StoreError::UnknownDecision(1)), "{err}");
    s.resolve(resolution(&b, Outcome::Accepted, Some(COMPANIONS[1])))
        .expect("resolve");
    assert!(s.pending().expect("pending").is_empty());
    let rows = s.rate_rows().expect("rows");
    s.flush().expect("flush");
    assert!(on_file(&reader).is_empty());
    let view = reader.view().expect("view");
    assert_eq!(view.rate_rows().expect("rows"), rows);
    let order: Vec<(u64, u64)> = view
        .history()
        .expect("history")
        .iter()
        .map(|e| (e.resolution_seq, e.decision.seq))
        .collect();
    assert_eq!(order, [(1, 1), (2, 2)]);
    assert!(check_fold(&view).expect("fold").is_clean());
}

/// The queue bound counts resolutions too: one more write first commits the full queue.
#[test]
fn resolutions_count_toward_the_bound() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(group(&dir.path().join("s.redb"))).expect("open");
    let reader = s.reader().expect("reader");
    let half = RedbStore::WAITING_BOUND / 2;
    for _ in 0..half {
        let d = record(&mut s, "Plan");
        s.resolve(resolution(&d, Outcome::Rejected, None))
            .expect("resolve");
    }
    assert_eq!(s.waiting(), RedbStore::WAITING_BOUND);
    assert!(
        reader
            .view()
            .expect("view")
            .history()
            .expect("h")
            .is_empty()
    );
    record(&mut s, "Plan");
    assert_eq!(s.waiting(), 1);
    let marks = reader.view().expect("view").marks().expect("marks");
    assert_eq!(marks.resolution_seq, half as u64);
    assert_eq!(marks.decision_seq, half as u64);
    assert!(on_file(&reader).is_empty(), "closed in the same commit");
    assert_eq!(s.last_durable_seq(), 0, "that commit was not fsynced");
}

/// A recompute over the handle sees the waiting resolutions: no drift, and swapping its rows
/// in keeps their moves.
#[test]
fn a_recompute_sees_and_keeps_the_waiting_moves() {
    use docsuggest_schema::RateModel;
    use docsuggest_store::recompute::{RecomputeOptions, recompute};
    use std::sync::atomic::AtomicU64;
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(group(&dir.path().join("s.redb"))).expect("open");
    for i in 0..5 {
        let d = record(&mut s, "Plan");
        let r = if i % 2 == 0 {
            resolution(&d, Outcome::Accepted, Some(COMPANIONS[0]))
        } else {
            resolution(&d, Outcome::Rejected, None)
        };
        s.resolve(r).expect("resolve");
    }
    assert!(s.waiting() > 0);
    let live = s.rate_rows().expect("rows");
    for parallel in [false, true] {
        let options = RecomputeOptions {
            model: RateModel::Step,
            parallel,
        };
        let done = AtomicU64::new(0);
        let got = recompute(&s, options, &done).expect("recompute");
        assert_eq!(got.report.rows_differing, 0, "{:?}", got.report);
        assert_eq!(got.report.decisions, 5);
        assert_eq!(got.rows, live);
    }
    let done = AtomicU64::new(0);
    let options = RecomputeOptions {
        model: RateModel::Step,
        parallel: true,
    };
    let rows = recompute(&s, options, &done).expect("recompute").rows;
    s.replace_rates(&rows).expect("swap");
    s.flush().expect("flush");
    assert_eq!(s.view().expect("view").rate_rows().expect("rows"), live);
    assert!(check_fold(&s).expect("fold").is_clean());
}
