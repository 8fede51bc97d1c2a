//! A host's store that lost its file comes back: the file is retried, and what memory answered
//! meanwhile is written back, so a full disk or a passing I/O error costs no learning.
//!
//! The same session runs on a healthy disk and on one that fails at a swept I/O operation (an
//! error once, or a full disk freed a few operations later). After the failure the store is on
//! memory; it is retried; at the end the file must hold exactly what the healthy run's holds —
//! every decision and resolution, live rows bit for bit — and the store must say what it wrote
//! back and that nothing was lost.

use crate::faulty::{Disk, Fault};
use crate::scale::{self, Rng};
use crate::workload;
use docsuggest_schema::{
    Decision, DecisionStore, Durability, Outcome, RateKey, RateRow, StoreContents, StoreKind,
};
use docsuggest_store::{FailOpenStore, RedbStore, check_fold};
use std::time::Duration;

/// What a run leaves in the file.
#[derive(Debug, PartialEq)]
struct Left {
    /// Every live row, as Debug prints it (floats print exactly: shortest round trip).
    rows: Vec<(RateKey, String)>,
    /// Per history entry: the decision's family, outcome and number of moves.
    history: Vec<(String, Outcome, usize)>,
}

fn left(store: &dyn StoreContents) -> Left {
    Left {
        rows: store
            .rate_rows()
            .expect("rows")
            .iter()
            .map(|(k, r): &(RateKey, RateRow)| (k.clone(), format!("{r:?}")))
            .collect(),
        history: store
            .history()
            .expect("history")
            .iter()
            .map(|e| (e.decision.family.clone(), e.decision.outcome, e.moves.len()))
            .collect(),
    }
}

/// One session of `steps` writes; `fault` strikes the disk at `at` and, for a full disk, is
/// lifted `free_after` steps later. Answers the store at the end (still open) and its disk.
fn session(
    durability: Durability,
    fault: Option<(Fault, u64)>,
    free_after: u64,
    steps: u64,
) -> (FailOpenStore, Disk, Vec<String>) {
    let dir = tempfile::tempdir().expect("tempdir");
    let disk = Disk::new();
    let mut options = workload::options(&dir.path().join("s.redb"), Some(disk.factory()), 4096);
    options.durability = durability;
    let mut store = FailOpenStore::open(options, 4096);
    // Retries only when the test says: the run is deterministic.
    store.set_retry(Duration::from_secs(3600), Duration::from_secs(3600));
    assert_eq!(store.kind(), StoreKind::Redb);
    if let Some((fault, at)) = fault {
        disk.arm(fault, at);
    }
    let mut rng = Rng::new(7);
    let mut open: Vec<Decision> = Vec::new();
    let mut problems = Vec::new();
    let mut freed_at = None;
    for i in 0..steps {
        let family = ["Plan", "Scheme", "Index"][rng.below(3) as usize];
        let answered = match rng.below(5) {
            0 | 1 => {
                let mut d = workload::decision(workload::WORKSPACES[0], family);
                store.record_pending(d.clone()).map(|seq| {
                    d.seq = seq;
                    open.push(d);
                })
            }
            2 => store
                .record_silent(workload::decision(workload::WORKSPACES[1], family))
                .map(|_| ()),
            n => match open.pop() {
                Some(d) if n == 3 => {
                    let accepted =
                        workload::resolution(&d, Outcome::Accepted, Some("CHANGELOG.md"));
                    store.resolve(accepted)
                }
                Some(d) => store.resolve(workload::resolution(&d, Outcome::Rejected, None)),
                None => Ok(()),
            },
        };
        if let Err(e) = answered {
            problems.push(format!("step {i} failed instead of falling back: {e}"));
        }
        if store.kind() == StoreKind::Memory && freed_at.is_none() {
            freed_at = Some(i + free_after);
        }
        if freed_at == Some(i) {
            disk.disarm();
        }
        if i % 16 == 15 {
            // What a host's idle flush does: the file is tried when a retry is due.
            store.retry_now();
            if let Err(e) = store.flush() {
                problems.push(format!("flush failed: {e}"));
            }
        }
    }
    disk.disarm();
    for d in open.drain(..) {
        if let Err(e) = store.resolve(workload::resolution(&d, Outcome::Rejected, None)) {
            problems.push(format!("closing window {}: {e}", d.seq));
        }
    }
    if !store.retry_now() {
        problems.push("the file never came back".into());
    }
    (store, disk, problems)
}

#[test]
fn a_store_that_lost_its_disk_writes_back_what_memory_answered() {
    let steps = scale::pick(160, 600);
    let mut tally = (0u64, 0u64, 0u64, 0u64);
    let mut violations = Vec::new();
    for durability in [Durability::Immediate, Durability::Group] {
        let (healthy, healthy_disk, problems) = session(durability, None, 0, steps);
        assert!(problems.is_empty(), "{problems:?}");
        let want = left(&healthy);
        let ops = healthy_disk.ops();
        drop(healthy);
        for fault in [Fault::IoOnce, Fault::DiskFull] {
            for at in (1..ops).step_by((ops / scale::pick(12, 60)).max(1) as usize) {
                tally.0 += 1;
                let (mut store, disk, problems) = session(durability, Some((fault, at)), 9, steps);
                let name = format!("{durability:?} {} at op {at}", fault.name());
                violations.extend(problems.into_iter().map(|p| format!("{name}: {p}")));
                let health = store.health();
                if health.recoveries > 0 {
                    tally.1 += 1;
                    tally.2 += health.written_back;
                }
                tally.3 += health.lost;
                if health.lost > 0 {
                    violations.push(format!("{name}: {} writes lost: {health:?}", health.lost));
                }
                let got = left(&store);
                if got != want {
                    violations.push(format!(
                        "{name}: the file differs from the healthy run's ({} vs {} entries, {} vs {} rows)",
                        got.history.len(),
                        want.history.len(),
                        got.rows.len(),
                        want.rows.len()
                    ));
                }
                match check_fold(&store) {
                    Ok(report) if report.is_clean() => {}
                    other => violations.push(format!("{name}: fold {other:?}")),
                }
                if let Err(e) = store.close() {
                    violations.push(format!("{name}: close {e}"));
                }
                drop(store);
                // A restart finds it all, intact.
                let dir = tempfile::tempdir().expect("tempdir");
                let options = workload::options(
                    &dir.path().join("s.redb"),
                    Some(disk.restarted().factory()),
                    4096,
                );
                match RedbStore::open(options) {
                    Ok(mut reopened) => {
                        if left(&reopened) != want {
                            violations.push(format!("{name}: the reopened file differs"));
                        }
                        match reopened.check_integrity() {
                            Ok(r) if r.is_ok() => {}
                            other => violations.push(format!("{name}: integrity {other:?}")),
                        }
                    }
                    Err(e) => violations.push(format!("{name}: does not reopen: {e}")),
                }
            }
        }
    }
    scale::report(
        "recovery",
        &[
            ("fault_points", tally.0.to_string()),
            ("recovered", tally.1.to_string()),
            ("written_back", tally.2.to_string()),
            ("lost", tally.3.to_string()),
        ],
    );
    assert!(violations.is_empty(), "{violations:#?}");
    assert!(tally.1 > 0, "no fault point sent the store to memory");
}
