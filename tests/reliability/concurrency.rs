//! Readers scoring while the writer records and resolves.
//!
//! The writer publishes, before each commit, the marks it will produce and a checksum of the
//! live rows the model says that commit holds. Reader threads take snapshots through a
//! `StoreReader` and check that each one is exactly one published commit (marks and checksum
//! agree), that it is consistent in itself (history contiguous and bounded, no decision both
//! pending and resolved, live rows the fold of base and history), that scoring from it is
//! well-defined, and that their sequence numbers never go back.

use crate::scale::{self, Rng};
use crate::workload::{self, Model};
use docsuggest_engine::compiled::{CompiledFamily, CompiledPack};
use docsuggest_engine::measure::{self, Rates};
use docsuggest_schema::rate::NEUTRAL;
use docsuggest_schema::{
    CompanionRow, Config, Decision, DecisionStore, Durability, Outcome, RateKey, RateRow,
    RateSnapshot, StoreContents, Table,
};
use docsuggest_store::{RedbStore, SeqMarks, StoreReader, StoreView, check_fold, testkit};
use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const WORKSPACE: &str = "docs-3f9a";
const RING: u64 = 16;

type Published = Arc<Mutex<HashMap<(u64, u64), u64>>>;

fn checksum<'a>(rows: impl IntoIterator<Item = (&'a RateKey, &'a RateRow)>) -> u64 {
    let mut h = DefaultHasher::new();
    for (k, r) in rows {
        k.hash(&mut h);
        r.step.to_bits().hash(&mut h);
        r.accepts.hash(&mut h);
        r.rejects.hash(&mut h);
    }
    h.finish()
}

/// A decision of a built-in family naming its companions, as the engine would record it:
/// each companion's prior measured as its third value.
fn decision(family: &CompiledFamily) -> Decision {
    Decision {
        companions: family
            .companions
            .iter()
            .map(|c| CompanionRow {
                values: Table([1.0, 0.5, c.prior, 0.5, NEUTRAL, NEUTRAL]),
                ..testkit::companion(&c.path)
            })
            .collect(),
        ..workload::decision(WORKSPACE, &family.name)
    }
}

/// The learned rates of one family as a judge call reads them: through one snapshot.
struct SnapshotRates<'a> {
    view: &'a StoreView,
    family: &'a str,
}

impl SnapshotRates<'_> {
    fn rate(&self, companion: &str) -> f64 {
        let key = RateKey::companion(WORKSPACE, self.family, companion);
        self.view
            .row(&key)
            .ok()
            .flatten()
            .map_or(NEUTRAL, |r| r.step)
    }
}

impl Rates for SnapshotRates<'_> {
    fn family(&self) -> f64 {
        self.rate("")
    }
    fn companion(&self, path: &str) -> f64 {
        self.rate(path)
    }
}

#[derive(Default)]
struct ReaderTally {
    views: u64,
    distinct: u64,
    violations: Vec<String>,
}

/// One reader: snapshots until told to stop; answers what it saw.
fn read_until(stop: &AtomicBool, reader: &StoreReader, published: &Published) -> ReaderTally {
    let pack = CompiledPack::builtin();
    let weights = Table::DEFAULT_WEIGHTS;
    let mut tally = ReaderTally::default();
    let mut last = SeqMarks::default();
    let fail = |t: &mut ReaderTally, what: String| {
        if t.violations.len() < 20 {
            t.violations.push(what);
        }
    };
    while !stop.load(Ordering::Relaxed) {
        let view = match reader.view() {
            Ok(v) => v,
            Err(e) => {
                fail(&mut tally, format!("view: {e}"));
                continue;
            }
        };
        tally.views += 1;
        let (marks, rows, history, pending) = match (
            view.marks(),
            view.rate_rows(),
            view.history(),
            view.pending(),
        ) {
            (Ok(m), Ok(r), Ok(h), Ok(p)) => (m, r, h, p),
            other => {
                fail(&mut tally, format!("reading a snapshot: {other:?}"));
                continue;
            }
        };
        if marks.decision_seq < last.decision_seq || marks.resolution_seq < last.resolution_seq {
            fail(
                &mut tally,
                format!("sequences went back: {last:?} then {marks:?}"),
            );
        }
        if marks != last {
            tally.distinct += 1;
        }
        last = marks;
        let sum = checksum(rows.iter().map(|(k, r)| (k, r)));
        let want = published
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(marks.decision_seq, marks.resolution_seq))
            .copied();
        if want != Some(sum) {
            fail(
                &mut tally,
                format!("snapshot at {marks:?} is no published commit ({want:?} vs {sum})"),
            );
        }
        let contiguous = history
            .iter()
            .rev()
            .zip((0..=marks.resolution_seq).rev())
            .all(|(e, seq)| e.resolution_seq == seq);
        if !contiguous || history.len() as u64 > RING {
            fail(
                &mut tally,
                format!("history at {marks:?} is not a contiguous ring"),
            );
        }
        let resolved: std::collections::HashSet<u64> =
            history.iter().map(|e| e.decision.seq).collect();
        if let Some(d) = pending
            .iter()
            .find(|d| d.seq > marks.decision_seq || resolved.contains(&d.seq))
        {
            fail(
                &mut tally,
                format!("decision {} is pending and resolved at {marks:?}", d.seq),
            );
        }
        match check_fold(&view) {
            Ok(report) if report.is_clean() => {}
            other => fail(&mut tally, format!("fold at {marks:?}: {other:?}")),
        }
        // Score every built-in family from this snapshot, and again from its rows read whole:
        // one snapshot answers the same either way.
        let by_key: BTreeMap<&RateKey, &RateRow> = rows.iter().map(|(k, r)| (k, r)).collect();
        for family in &pack.families {
            let rates = SnapshotRates {
                view: &view,
                family: &family.name,
            };
            let ranked = measure::rank(&family.companions, &rates, &weights);
            let kappa = measure::kappa(&ranked);
            if !(kappa > 0.0 && kappa < 1.0) {
                fail(&mut tally, format!("kappa {kappa} for {}", family.name));
            }
            for row in &ranked {
                let key = RateKey::companion(WORKSPACE, &family.name, &row.path);
                let step = by_key.get(&key).map_or(NEUTRAL, |r| r.step);
                if row.values.0[4].to_bits() != step.to_bits() {
                    fail(
                        &mut tally,
                        format!("{key:?} scored {} from {step}", row.values.0[4]),
                    );
                }
            }
        }
    }
    tally
}

#[test]
fn readers_see_whole_commits_while_the_writer_records_and_resolves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = workload::options(&dir.path().join("s.redb"), None, RING);
    let mut store = RedbStore::open(options).expect("open");
    let pack = CompiledPack::builtin();
    let published: Published = Arc::default();
    let publish = |model: &Model| {
        published.lock().unwrap_or_else(|e| e.into_inner()).insert(
            (model.marks.decision_seq, model.marks.resolution_seq),
            checksum(&model.rates),
        );
    };
    let mut model = Model::default();
    publish(&model);

    let stop = Arc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..3)
        .map(|_| {
            let (stop, reader, published) = (
                stop.clone(),
                store.reader().expect("reader"),
                published.clone(),
            );
            std::thread::spawn(move || read_until(&stop, &reader, &published))
        })
        .collect();

    let ops = scale::pick(2_000, 100_000);
    let mut rng = Rng::new(7);
    let mut open: Vec<Decision> = Vec::new();
    let commits = AtomicU64::new(0);
    let config = |durability, ring| Config {
        durability,
        flush_interval_ms: 3_600_000,
        ring_capacity: ring,
        ..Config::default()
    };
    for i in 0..ops {
        let family = &pack.families[rng.below(pack.families.len() as u64) as usize];
        match rng.below(10) {
            0..=3 => {
                let d = decision(family);
                let mut expected = d.clone();
                expected.seq = model.record_pending(d.clone());
                publish(&model);
                store.record_pending(d).expect("record");
                open.push(expected);
            }
            4 => {
                let d = decision(family);
                model.record_silent(d.clone());
                publish(&model);
                store.record_silent(d).expect("silence");
            }
            _ if open.is_empty() => continue,
            5..=7 => {
                let d = open.remove(rng.below(open.len() as u64) as usize);
                let r = if rng.chance(1, 2) {
                    let c = &d.companions[rng.below(d.companions.len() as u64) as usize];
                    workload::resolution(&d, Outcome::Accepted, Some(&c.path))
                } else {
                    workload::resolution(&d, Outcome::Rejected, None)
                };
                model.resolve(&r);
                publish(&model);
                store.resolve(r).expect("resolve");
            }
            8 => {
                let d = open.remove(0);
                let r = workload::resolution(&d, Outcome::Abandoned, None);
                model.resolve(&r);
                publish(&model);
                store.resolve(r).expect("abandon");
            }
            _ => {
                // Maintenance that must not change what readers see: durability switches,
                // flushes, recompute --write.
                let mode = if i % 2 == 0 {
                    Durability::Group
                } else {
                    Durability::Immediate
                };
                store.apply_config(&config(mode, RING)).expect("configure");
                store.flush().expect("flush");
                let rows: Vec<(RateKey, RateRow)> = docsuggest_store::folded_rates(&store)
                    .expect("fold")
                    .into_iter()
                    .collect();
                store.replace_rates(&rows).expect("recompute --write");
            }
        }
        commits.fetch_add(1, Ordering::Relaxed);
        if i % 64 == 0 {
            // Let the readers interleave with the commits even on two cores.
            std::thread::sleep(Duration::from_micros(200));
        }
    }
    // The integrity check needs the database to itself: refused plainly while readers live.
    let refused = store.check_integrity().expect_err("readers are open");
    assert!(
        refused.to_string().contains("readers are still open"),
        "{refused}"
    );
    stop.store(true, Ordering::Relaxed);
    let tallies: Vec<ReaderTally> = readers
        .into_iter()
        .map(|r| r.join().expect("a reader panicked"))
        .collect();
    let report = store
        .check_integrity()
        .expect("integrity once readers are gone");
    assert!(report.is_ok(), "{report:?}");
    store.close().expect("close");

    let views: u64 = tallies.iter().map(|t| t.views).sum();
    let distinct: u64 = tallies.iter().map(|t| t.distinct).sum();
    let violations: Vec<&String> = tallies.iter().flat_map(|t| &t.violations).collect();
    scale::report(
        "concurrency",
        &[
            (
                "writer_commits",
                commits.load(Ordering::Relaxed).to_string(),
            ),
            ("reader_threads", tallies.len().to_string()),
            ("snapshots_checked", views.to_string()),
            ("distinct_commits_seen", distinct.to_string()),
            ("violations", violations.len().to_string()),
        ],
    );
    assert!(violations.is_empty(), "{violations:#?}");
    assert!(
        views > 0 && distinct > 1,
        "the readers ran alongside the writer"
    );
}
