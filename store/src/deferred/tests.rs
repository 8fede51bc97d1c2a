use super::*;
use crate::crash::CrashHook;
use crate::migrate;
use crate::tables::PENDING;
use crate::testkit::decision;
use redb::{Database, ReadableDatabase};

/// A new store database in `dir`.
fn database(dir: &tempfile::TempDir) -> Database {
    let db = Database::create(dir.path().join("s.redb")).expect("create");
    migrate::initialise(&db, "s", 1, &CrashHook::default()).expect("initialise");
    db
}

#[test]
fn records_are_numbered_after_everything_handed_out() {
    let mut q = Deferred::default();
    assert_eq!(q.last_seq(7), 7);
    assert_eq!(q.push("s", 7, decision("Plan")).expect("push"), 8);
    assert_eq!(q.push("s", 7, decision("Plan")).expect("push"), 9);
    assert_eq!(q.last_seq(7), 9);
    let seqs: Vec<u64> = q.decisions().map(|d| d.seq).collect();
    assert_eq!(seqs, [8, 9]);
    let err = Deferred::default()
        .push("s", u64::MAX, decision("Plan"))
        .expect_err("no number left");
    assert_eq!(
        err.to_string(),
        "store s is corrupt or not a docsuggest store: meta next_decision_seq is at its maximum"
    );
    q.clear();
    assert!(q.is_empty());
}

#[test]
fn waiting_records_are_written_as_record_pending_writes_them() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = database(&dir);
    let mut q = Deferred::default();
    q.push("s", 0, decision("Plan")).expect("push");
    q.push("s", 0, decision("Scheme")).expect("push");
    let txn = db.begin_write().expect("txn");
    {
        let mut tx = Tx::open(&txn, "s").expect("tables");
        q.write_into(&mut tx).expect("write");
        // A record made the ordinary way after them takes the next number.
        assert_eq!(tx.record_pending(decision("Plan")).expect("record"), 3);
    }
    txn.commit().expect("commit");
    let read = db.begin_read().expect("read");
    let pending =
        tables::read_pending("s", &read.open_table(PENDING).expect("pending")).expect("decode");
    let got: Vec<(u64, &str)> = pending.iter().map(|d| (d.seq, d.family.as_str())).collect();
    assert_eq!(got, [(1, "Plan"), (2, "Scheme"), (3, "Plan")]);
    let mut want = decision("Scheme");
    want.seq = 2;
    assert_eq!(pending[1], want);
}

#[test]
fn numbers_the_counter_would_not_hand_out_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = database(&dir);
    let mut q = Deferred::default();
    // Numbered as if five decisions had been committed; the file has none.
    q.push("s", 5, decision("Plan")).expect("push");
    let txn = db.begin_write().expect("txn");
    let mut tx = Tx::open(&txn, "s").expect("tables");
    let err = q.write_into(&mut tx).expect_err("mismatch");
    assert_eq!(
        err.to_string(),
        "store s is corrupt or not a docsuggest store: decision 6 was handed out ahead of \
         its commit, but meta next_decision_seq would number it 1"
    );
    assert_eq!(q.len(), 1, "a failed write leaves the record waiting");
}
