//! The crash sweep: the workload on a fault-injecting disk, one fault per run at a chosen I/O
//! operation, then a restart on what the disk holds and every invariant of `invariants`.
//!
//! The version-1 file the workload upgrades is written once, without faults; a dry run counts
//! the workload's I/O operations, and each mode sweeps fault positions over them (all of them
//! in the long run, an even spread in CI).

use crate::faulty::{Cut, Disk, Fault};
use crate::invariants::{self, Expect, Landing};
use crate::scale::{self, Rng};
use crate::workload::{self, Model, PLAN_NEXT, RING, Runner, Step, Stop};
use docsuggest_store::PLAN;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The starting file, its model, the workload, and how many I/O operations it makes.
struct Base {
    variant: u64,
    image: Vec<u8>,
    model: Model,
    script: Vec<Step>,
    ops: u64,
}

/// How many workloads (each its own random session) a sweep runs: one in CI, four in the
/// long run.
fn variants() -> u64 {
    scale::pick(1, 4)
}

fn base(variant: u64) -> &'static Base {
    static BASES: OnceLock<Vec<OnceLock<Base>>> = OnceLock::new();
    let bases = BASES.get_or_init(|| (0..variants()).map(|_| OnceLock::new()).collect());
    bases[variant as usize].get_or_init(|| {
        let mut rng = Rng::new(1 + variant);
        let dir = tempfile::tempdir().expect("tempdir");
        let disk = Disk::new();
        let options = workload::options(&dir.path().join("s.redb"), Some(disk.factory()), RING);
        let mut setup = Runner::new(options, &PLAN, Model::default());
        setup
            .run(&workload::setup_script(&mut rng))
            .expect("the setup runs without faults");
        let image = disk.live_image();
        let model = setup.model.clone();
        let script = workload::workload_script(&mut rng);
        // The dry run: no fault, every step succeeds, and the disk counts the operations.
        let dry = Disk::from_image(&image);
        let dir = tempfile::tempdir().expect("tempdir");
        let options = workload::options(&dir.path().join("s.redb"), Some(dry.factory()), RING);
        let mut run = Runner::new(options, &PLAN_NEXT, model.clone());
        run.run(&script).expect("the workload runs without faults");
        assert!(
            dir.path()
                .join(format!("s.redb.v{}.bak", docsuggest_store::SCHEMA_VERSION))
                .exists(),
            "the workload upgrades"
        );
        Base {
            variant,
            image,
            model,
            script,
            ops: dry.ops(),
        }
    })
}

/// The positions (1-based operation numbers) a mode sweeps: every one in the long run, an
/// even spread with a seeded offset in CI.
fn positions(total: u64, short_budget: u64, salt: u64) -> Vec<u64> {
    if scale::long() || total <= short_budget {
        return (1..=total).collect();
    }
    let stride = total.div_ceil(short_budget);
    let offset = Rng::new(salt).below(stride);
    (0..short_budget)
        .map(|i| 1 + offset + i * stride)
        .filter(|&p| p <= total)
        .collect()
}

#[derive(Default)]
struct Tally {
    points: u64,
    fired: u64,
    landings: BTreeMap<Landing, u64>,
    upgraded_at_reopen: u64,
    abandoned_at_reopen: u64,
    failed_steps: u64,
    violations: Vec<String>,
}

fn sweep(fault: impl Fn(u64) -> Fault, salt: u64) {
    let name = fault(0).name();
    let mut tally = Tally::default();
    let mut ops = 0;
    for variant in 0..variants() {
        let base = base(variant);
        ops += base.ops;
        for at in positions(base.ops, 200, salt) {
            sweep_one(base, &fault, at, &mut tally);
        }
    }
    report(name, ops, &tally);
    assert!(
        tally.violations.is_empty(),
        "{name}: {} of {} crash points broke an invariant; the first ones:\n{}",
        tally.violations.len(),
        tally.points,
        tally.violations[..tally.violations.len().min(5)].join("\n")
    );
    // A full disk only bites while the file grows; the other faults fire wherever they are.
    if fault(0) == Fault::DiskFull {
        assert!(tally.fired > 0, "{name}: no write ever needed more space");
    } else {
        assert!(
            tally.fired * 10 >= tally.points * 9,
            "{name}: most faults must fire"
        );
    }
}

/// The largest ring bound a script sets (the workload starts at [`RING`]).
fn largest_ring(script: &[Step]) -> u64 {
    script
        .iter()
        .filter_map(|step| match step {
            Step::Ring(bound) => Some(*bound),
            _ => None,
        })
        .fold(RING, u64::max)
}

fn sweep_one(base: &Base, fault: &impl Fn(u64) -> Fault, at: u64, tally: &mut Tally) {
    let dir = tempfile::tempdir().expect("tempdir");
    let disk = Disk::from_image(&base.image);
    disk.arm(fault(at), at);
    let options = workload::options(&dir.path().join("s.redb"), Some(disk.factory()), RING);
    let mut run = Runner::new(options, &PLAN_NEXT, base.model.clone());
    let result = run.run(&base.script);
    let mut failure = None;
    // Dropping the store is what a host's exit does (it flushes, which may fail too).
    let dropped = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        drop(run.store.take());
    }));
    tally.points += 1;
    tally.fired += u64::from(disk.fired());
    match result {
        Ok(()) => {}
        Err(Stop::Failed(e)) => {
            tally.failed_steps += 1;
            failure = Some(e);
        }
        Err(Stop::Panicked(msg)) => {
            tally.violations.push(format!(
                "workload {} op {at}: the store panicked: {msg}",
                base.variant
            ));
        }
    }
    if dropped.is_err() {
        tally.violations.push(format!(
            "workload {} op {at}: dropping the store panicked",
            base.variant
        ));
    }
    let expect = Expect {
        log: &run.log,
        committed: run.committed,
        history: &run.model.history,
        acked: run.acked,
        ring_max: largest_ring(&base.script),
    };
    match invariants::check(&disk, dir.path(), &expect) {
        Ok(found) => {
            *tally.landings.entry(found.landing).or_default() += 1;
            tally.upgraded_at_reopen += u64::from(found.upgraded_at_reopen);
            tally.abandoned_at_reopen += found.abandoned as u64;
        }
        Err(v) => tally.violations.push(format!(
            "workload {} op {at} (after {} steps, then {failure:?}): {v}",
            base.variant, run.done
        )),
    }
}

fn report(name: &str, ops: u64, tally: &Tally) {
    let lost = tally
        .violations
        .iter()
        .filter(|v| v.contains("LOST ACKNOWLEDGED"))
        .count();
    let mut figures = vec![
        ("workloads", variants().to_string()),
        ("workload_ops", ops.to_string()),
        ("crash_points", tally.points.to_string()),
        ("faults_fired", tally.fired.to_string()),
        ("steps_failed", tally.failed_steps.to_string()),
    ];
    for landing in [
        Landing::AtDurable,
        Landing::PastDurable,
        Landing::Unacknowledged,
    ] {
        figures.push((
            landing.name(),
            tally
                .landings
                .get(&landing)
                .copied()
                .unwrap_or(0)
                .to_string(),
        ));
    }
    figures.push((
        "upgrade_redone_at_reopen",
        tally.upgraded_at_reopen.to_string(),
    ));
    figures.push((
        "windows_abandoned_at_reopen",
        tally.abandoned_at_reopen.to_string(),
    ));
    figures.push(("lost_acknowledged", lost.to_string()));
    figures.push(("violations", tally.violations.len().to_string()));
    scale::report(&format!("crash {name}"), &figures);
}

#[test]
fn io_error_once() {
    sweep(|_| Fault::IoOnce, 11);
}

#[test]
fn io_error_persistent() {
    sweep(|_| Fault::IoPersistent, 12);
}

#[test]
fn disk_full() {
    sweep(|_| Fault::DiskFull, 13);
}

#[test]
fn power_cut_dropping_unsynced_writes() {
    sweep(|_| Fault::PowerCut(Cut::Drop), 14);
}

#[test]
fn power_cut_applying_unsynced_writes() {
    sweep(|_| Fault::PowerCut(Cut::Apply), 15);
}

#[test]
fn power_cut_tearing_unsynced_writes() {
    sweep(|at| Fault::PowerCut(Cut::Tear(at)), 16);
}

/// The dry run itself: the workload covers what the sweep claims to cover.
#[test]
fn the_workload_covers_migration_group_commits_ring_wrap_and_recompute() {
    let base = base(0);
    let has = |f: fn(&Step) -> bool| base.script.iter().any(f);
    assert!(has(|s| matches!(s, Step::Open)));
    assert!(has(|s| matches!(s, Step::Recompute)));
    assert!(has(|s| matches!(s, Step::Durability(_))));
    assert!(has(|s| matches!(s, Step::Ring(_))));
    let resolutions = base.model.history.len() as u64;
    assert!(resolutions > RING, "the setup alone wraps the ring");
    assert!(
        base.ops > 200,
        "the workload makes {} I/O operations",
        base.ops
    );
}

/// What a host holds: the fail-open store over a disk that fails. Every operation still
/// answers (on memory after the switch), the reason is reported once, numbering continues,
/// and `flush` never claims more than a power cut keeps.
#[test]
fn fail_open_hosts_keep_working_through_io_faults() {
    use docsuggest_schema::{DecisionStore, Outcome, StoreKind};
    use docsuggest_store::{FailOpenStore, RedbStore};

    let base = base(0);
    let modes = [Fault::IoOnce, Fault::IoPersistent, Fault::DiskFull];
    let (mut points, mut switched, mut violations) = (0u64, 0u64, Vec::new());
    for fault in modes {
        for at in positions(base.ops / 2, scale::pick(40, 1_000), 21) {
            points += 1;
            let dir = tempfile::tempdir().expect("tempdir");
            let disk = Disk::from_image(&base.image);
            disk.arm(fault, at);
            let options = workload::options(&dir.path().join("s.redb"), Some(disk.factory()), RING);
            let mut store = FailOpenStore::open(options, 64);
            let mut rng = Rng::new(at);
            let (mut last_seq, mut claimed, mut reasons) = (0u64, 0u64, Vec::new());
            let mut open = Vec::new();
            let mut fail =
                |what: String| violations.push(format!("{} op {at}: {what}", fault.name()));
            for i in 0..60u64 {
                let step = match rng.below(4) {
                    0 | 1 => {
                        let mut d = workload::decision(workload::WORKSPACES[0], "Plan");
                        store.record_pending(d.clone()).map(|seq| {
                            d.seq = seq;
                            open.push(d);
                            Some(seq)
                        })
                    }
                    2 => store
                        .record_silent(workload::decision(workload::WORKSPACES[1], "Scheme"))
                        .map(Some),
                    _ => match open.pop() {
                        Some(d) => store
                            .resolve(workload::resolution(&d, Outcome::Rejected, None))
                            .map(|()| None),
                        None => Ok(None),
                    },
                };
                match step {
                    Ok(Some(seq)) if seq <= last_seq => {
                        fail(format!("decision {seq} numbered after {last_seq}"));
                    }
                    Ok(Some(seq)) => last_seq = seq,
                    Ok(None) => {}
                    Err(e) => fail(format!("an operation failed instead of falling back: {e}")),
                }
                if i % 9 == 8 {
                    match store.flush() {
                        Ok(seq) => claimed = claimed.max(seq),
                        Err(e) => fail(format!("flush failed: {e}")),
                    }
                }
                reasons.extend(store.take_degradation());
            }
            if reasons.iter().any(|r| r.contains("panicked")) {
                fail(format!("a panic was caught: {reasons:?}"));
            }
            if reasons.len() > 1 {
                fail(format!("the switch was reported {} times", reasons.len()));
            }
            if store.kind() == StoreKind::Memory {
                switched += 1;
                if reasons.is_empty() {
                    fail("switched to memory without a reason".into());
                }
            }
            drop(store);
            // What a power cut now keeps holds everything `flush` answered.
            let image = disk.durable_image();
            let options = workload::options(
                &dir.path().join("s.redb"),
                Some(Disk::from_image(&image).factory()),
                RING,
            );
            match RedbStore::open(options) {
                Ok(s) if s.committed().decision_seq >= claimed => {}
                Ok(s) => fail(format!(
                    "LOST ACKNOWLEDGED: flush answered {claimed}, the disk holds {:?}",
                    s.committed()
                )),
                Err(e) => fail(format!("the disk does not reopen: {e}")),
            }
        }
    }
    scale::report(
        "crash fail-open",
        &[
            ("crash_points", points.to_string()),
            ("switched_to_memory", switched.to_string()),
            ("violations", violations.len().to_string()),
        ],
    );
    assert!(
        violations.is_empty(),
        "{}",
        violations[..violations.len().min(5)].join("\n")
    );
    assert!(switched > 0, "some faults must force the switch");
}
