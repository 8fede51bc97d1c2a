//! The SQLite store against the memory store: the same operations give the same rows,
//! history, base and pending decisions, bit for bit.

use super::*;
use docsuggest_schema::RateEvent;
use docsuggest_store::{MemoryStore, check_fold, same_bits, testkit};

/// One store operation of a script.
#[derive(Clone, Debug)]
enum Op {
    Pending,
    Silent,
    /// Accept the `n`-th pending decision (oldest first) naming `companion`, moving it and the
    /// family row.
    Accept(usize, &'static str),
    /// Reject the `n`-th pending decision, moving every listed companion and the family row.
    Reject(usize, &'static [&'static str]),
    Abandon(usize),
}

/// A Plan decision in `ws-00c0ffee` at kappa 0.9, naming no companion.
fn decision() -> Decision {
    Decision {
        workspace: "ws-00c0ffee".into(),
        kappa: 0.9,
        ..testkit::decision("Plan")
    }
}

fn mv(companion: &str, event: RateEvent) -> RateMove {
    RateMove {
        key: RateKey::companion("ws-00c0ffee", "Plan", companion),
        event,
        step: if event == RateEvent::Accept {
            0.1
        } else {
            -0.2
        },
    }
}

fn run(store: &mut dyn DecisionStore, script: &[Op]) {
    let mut open: Vec<u64> = Vec::new();
    for op in script {
        match op {
            Op::Pending => open.push(store.record_pending(decision()).expect("pending")),
            Op::Silent => {
                store.record_silent(decision()).expect("silent");
            }
            Op::Accept(n, companion) => {
                let seq = open.remove(*n);
                let moves = vec![mv(companion, RateEvent::Accept), mv("", RateEvent::Accept)];
                store
                    .resolve(Resolution {
                        decision_seq: seq,
                        outcome: Outcome::Accepted,
                        accepted: Some(companion.to_string()),
                        moves,
                    })
                    .expect("accept");
            }
            Op::Reject(n, companions) => {
                let seq = open.remove(*n);
                let mut moves: Vec<RateMove> = companions
                    .iter()
                    .map(|c| mv(c, RateEvent::Reject))
                    .collect();
                moves.push(mv("", RateEvent::Reject));
                store
                    .resolve(Resolution {
                        decision_seq: seq,
                        outcome: Outcome::Rejected,
                        accepted: None,
                        moves,
                    })
                    .expect("reject");
            }
            Op::Abandon(n) => {
                let seq = open.remove(*n);
                store
                    .resolve(Resolution {
                        decision_seq: seq,
                        outcome: Outcome::Abandoned,
                        accepted: None,
                        moves: Vec::new(),
                    })
                    .expect("abandon");
            }
        }
    }
}

fn open_sqlite(dir: &Path, ring: u64, durability: Durability) -> SqliteStore {
    SqliteStore::open(SqliteOptions {
        path: dir.join("s.sqlite"),
        durability,
        flush_interval: Duration::from_millis(1000),
        ring_capacity: ring,
    })
    .expect("open")
}

fn same_rows(a: &[(RateKey, RateRow)], b: &[(RateKey, RateRow)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|((ka, ra), (kb, rb))| ka == kb && same_bits(ra, rb))
}

const A: &str = "Documentation/INDEX.md";
const B: &str = "POC-BRIEF.md";
const C: &str = "CHANGELOG.md";

/// Clamping at both ends, an eviction of several entries into base, and a silence between.
const SCRIPT: &[Op] = &[
    Op::Pending,
    Op::Pending,
    Op::Silent,
    Op::Reject(0, &[A, B]),
    Op::Pending,
    Op::Reject(0, &[A, B, C]),
    Op::Accept(0, C),
    Op::Pending,
    Op::Pending,
    Op::Abandon(1),
    Op::Reject(0, &[A]),
    Op::Pending,
    Op::Silent,
    Op::Pending,
    Op::Accept(1, B),
    Op::Pending,
    Op::Accept(0, A),
    Op::Accept(0, A),
    Op::Pending,
];

#[test]
fn agrees_with_the_memory_store() {
    for durability in [Durability::Immediate, Durability::Group] {
        let dir = tempfile::tempdir().expect("tempdir");
        // The ring (4) is smaller than the script's history, so both stores evict into base;
        // the memory store's key bound (also 4) holds the script's four keys.
        let mut sqlite = open_sqlite(dir.path(), 4, durability);
        let mut memory = MemoryStore::new(4);
        run(&mut sqlite, SCRIPT);
        run(&mut memory, SCRIPT);
        let (s, m): (&dyn StoreContents, &dyn StoreContents) = (&sqlite, &memory);
        assert!(same_rows(
            &s.rate_rows().expect("rows"),
            &m.rate_rows().expect("rows")
        ));
        assert!(same_rows(
            &s.base_rows().expect("base"),
            &m.base_rows().expect("base")
        ));
        assert!(!s.base_rows().expect("base").is_empty(), "the ring evicted");
        assert_eq!(s.history().expect("history"), m.history().expect("history"));
        assert_eq!(s.pending().expect("pending"), m.pending().expect("pending"));
        assert!(check_fold(&sqlite).expect("fold").is_clean());
        let snapshot = sqlite.snapshot().expect("snapshot");
        for (key, row) in m.rate_rows().expect("rows") {
            let got = snapshot.row(&key).expect("read").expect("a row");
            assert!(same_bits(&got, &row), "{key:?}");
        }
        let missing = RateKey::family("elsewhere", "Plan");
        assert_eq!(snapshot.row(&missing).expect("read"), None);
    }
}

#[test]
fn refuses_bad_resolutions_and_changes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut store = open_sqlite(dir.path(), 8, Durability::Group);
    let seq = store.record_pending(decision()).expect("pending");
    let err = store
        .resolve(Resolution {
            decision_seq: seq + 1,
            outcome: Outcome::Rejected,
            accepted: None,
            moves: Vec::new(),
        })
        .expect_err("unknown");
    assert!(matches!(err, StoreError::UnknownDecision(2)), "{err}");
    let err = store
        .resolve(Resolution {
            decision_seq: seq,
            outcome: Outcome::Abandoned,
            accepted: None,
            moves: vec![mv(A, RateEvent::Reject)],
        })
        .expect_err("invalid");
    assert!(matches!(err, StoreError::Invalid(_)), "{err}");
    assert_eq!(store.pending().expect("pending").len(), 1);
    assert!(store.rate_rows().expect("rows").is_empty());
}

#[test]
fn reopening_keeps_rows_and_abandons_open_windows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rows = {
        let mut store = open_sqlite(dir.path(), 8, Durability::Group);
        run(&mut store, &[Op::Pending, Op::Reject(0, &[A]), Op::Pending]);
        assert_eq!(store.flush().expect("flush"), 2);
        store.rate_rows().expect("rows")
    };
    let store = open_sqlite(dir.path(), 8, Durability::Group);
    assert!(same_rows(&store.rate_rows().expect("rows"), &rows));
    assert!(store.pending().expect("pending").is_empty());
    let history = store.history().expect("history");
    assert_eq!(history.len(), 2);
    assert_eq!(history[1].decision.outcome, Outcome::Abandoned);
    assert!(check_fold(&store).expect("fold").is_clean());
}
