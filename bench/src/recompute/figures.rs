//! The recompute figures: what is measured (the [`Plan`]), the measurements, and the two
//! recompute targets.

use super::{
    COMPANIONS, KeySpace, RANKED, Recomputer, SyntheticContents, Threads, fill_decisions, median,
};
use crate::report::{Bound, Ratio};
use crate::rig::Result;
use docsuggest_schema::{RateKey, RateRow, StoreContents};
use docsuggest_store::recompute::{RecomputeSource, fold_all};
use serde::Serialize;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The synthetic key space, as figures report it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KeySpaceFigure {
    /// Workspaces.
    pub workspaces: usize,
    /// Families (the built-in pack's).
    pub families: usize,
    /// Companions per family.
    pub companions_per_family: usize,
    /// Keys (companion and family rows).
    pub keys: usize,
    /// Companion rows each decision records.
    pub companion_rows_per_decision: usize,
}

/// One recompute setting measured several times.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunFigure {
    /// History entries replayed.
    pub decisions: u64,
    /// Rate moves replayed.
    pub moves: u64,
    /// Rows recomputed.
    pub rows: u64,
    /// [`Threads::name`].
    pub threads: &'static str,
    /// Threads that folded.
    pub thread_count: usize,
    /// Every timed run, in seconds, in order.
    pub seconds: Vec<f64>,
    /// The median run.
    pub median_seconds: f64,
    /// Decisions per second of the median run.
    pub decisions_per_second: f64,
}

/// The time `StoreContents::history()` alone takes (a copy of the in-memory history, or
/// redb's read and decode).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HistoryReadFigure {
    /// History entries read.
    pub decisions: u64,
    /// Every timed read, in seconds.
    pub seconds: Vec<f64>,
    /// The median read.
    pub median_seconds: f64,
}

/// The end-to-end recompute over a redb store.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RedbFigure {
    /// The store's ring capacity (large enough that nothing was evicted).
    pub ring_capacity: u64,
    /// Filling the store: one `record_pending` and one `resolve` per decision, `group`
    /// durability, then a flush.
    pub fill_seconds: f64,
    /// The store file's size after the fill, in bytes.
    pub file_bytes: u64,
    /// `history()` alone.
    pub history_read: HistoryReadFigure,
    /// `rate_rows()` and `base_rows()` alone, median seconds.
    pub rows_read_median_seconds: f64,
    /// `recompute` over the store (reads included).
    pub runs: Vec<RunFigure>,
    /// What a recompute reads, alone (`RecomputeSource::recompute_input`: base and live rows,
    /// and the history read in parallel ranges of one snapshot and grouped by key), under
    /// each setting.
    pub input_read: Vec<InputReadFigure>,
}

/// `RecomputeSource::recompute_input` alone under one setting.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InputReadFigure {
    /// History entries read.
    pub decisions: u64,
    /// [`Threads::name`].
    pub threads: &'static str,
    /// Threads that read.
    pub thread_count: usize,
    /// Every timed read, in seconds.
    pub seconds: Vec<f64>,
    /// The median read.
    pub median_seconds: f64,
    /// Decisions per second of the median read.
    pub decisions_per_second: f64,
}

/// Everything the recompute benchmark measures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RecomputeFigures {
    /// The synthetic key space.
    pub key_space: KeySpaceFigure,
    /// `recompute` over synthetic in-memory contents.
    pub synthetic: Vec<RunFigure>,
    /// The synthetic contents' `history()` alone (a clone of the entries).
    pub synthetic_history_copy: Vec<HistoryReadFigure>,
    /// `fold_all` alone over the smallest synthetic history.
    pub synthetic_fold_all: FoldFigure,
    /// `recompute` over a redb store.
    pub redb: RedbFigure,
}

fn seconds(samples: &[Duration]) -> Vec<f64> {
    samples.iter().map(Duration::as_secs_f64).collect()
}

/// `rounds` timed recomputes of `contents` (holding `moves` rate moves) under each setting,
/// after one untimed run (the first run of a large history pays for first-touching the
/// memory it allocates), interleaved: each round runs every setting in turn, so a change of
/// machine load hits them alike. Every run must find no drift.
pub fn measure_runs<C>(
    runner: &Recomputer,
    contents: &C,
    moves: u64,
    settings: &[Threads],
    rounds: usize,
) -> Result<Vec<RunFigure>>
where
    C: RecomputeSource + Sync + ?Sized,
{
    drop(runner.run(contents, Threads::AllCores)?);
    let mut samples = vec![Vec::new(); settings.len()];
    let (mut decisions, mut rows) = (0, 0);
    for _ in 0..rounds {
        for (i, &threads) in settings.iter().enumerate() {
            let (out, took) = runner.run(contents, threads)?;
            if out.report.rows_differing != 0 {
                return Err(format!("{} rows drifted", out.report.rows_differing).into());
            }
            (decisions, rows) = (out.report.decisions as u64, out.rows.len() as u64);
            drop(out);
            samples[i].push(took);
        }
    }
    Ok(settings
        .iter()
        .zip(samples)
        .map(|(&threads, samples)| {
            let median = median(&samples).as_secs_f64();
            RunFigure {
                decisions,
                moves,
                rows,
                threads: threads.name(),
                thread_count: threads.threads(),
                seconds: seconds(&samples),
                median_seconds: median,
                decisions_per_second: decisions as f64 / median,
            }
        })
        .collect())
}

/// `rounds` timed `recompute_input` reads of `contents` under each setting, interleaved.
pub fn measure_reads<C>(
    runner: &Recomputer,
    contents: &C,
    settings: &[Threads],
    rounds: usize,
) -> Result<Vec<InputReadFigure>>
where
    C: RecomputeSource + Sync + ?Sized,
{
    let mut samples = vec![Vec::new(); settings.len()];
    let mut decisions = 0;
    for _ in 0..rounds {
        for (i, &threads) in settings.iter().enumerate() {
            let (read, took) = runner.read(contents, threads)?;
            decisions = read as u64;
            samples[i].push(took);
        }
    }
    Ok(settings
        .iter()
        .zip(samples)
        .map(|(&threads, samples)| {
            let median = median(&samples).as_secs_f64();
            InputReadFigure {
                decisions,
                threads: threads.name(),
                thread_count: threads.threads(),
                seconds: seconds(&samples),
                median_seconds: median,
                decisions_per_second: decisions as f64 / median,
            }
        })
        .collect())
}

/// `fold_all` alone — grouping the moves by key, then folding each key — over a history
/// already in memory, sequential and on all cores: the part of a recompute that `parallel`
/// changes.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FoldFigure {
    /// History entries whose moves are folded.
    pub decisions: u64,
    /// `parallel: false`, median seconds.
    pub sequential_median_seconds: f64,
    /// `parallel: true` on the global pool, median seconds.
    pub all_cores_median_seconds: f64,
}

/// `rounds` timed `fold_all` runs over `contents`' history, each setting in turn.
pub fn measure_fold(contents: &SyntheticContents, rounds: usize) -> Result<FoldFigure> {
    let base: BTreeMap<RateKey, RateRow> = contents.base.iter().cloned().collect();
    let mut samples = [Vec::new(), Vec::new()];
    for _ in 0..rounds {
        for (i, parallel) in [false, true].into_iter().enumerate() {
            let done = std::sync::atomic::AtomicU64::new(0);
            let start = Instant::now();
            let rows = fold_all(&base, &contents.history, parallel, &done);
            samples[i].push(start.elapsed());
            drop(rows);
        }
    }
    Ok(FoldFigure {
        decisions: contents.history.len() as u64,
        sequential_median_seconds: median(&samples[0]).as_secs_f64(),
        all_cores_median_seconds: median(&samples[1]).as_secs_f64(),
    })
}

/// `rounds` timed `history()` reads of `contents`.
pub fn measure_history<C>(contents: &C, rounds: usize) -> Result<HistoryReadFigure>
where
    C: StoreContents + ?Sized,
{
    let mut samples = Vec::new();
    let mut decisions = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        let history = contents.history()?;
        samples.push(start.elapsed());
        decisions = history.len() as u64;
        drop(history);
    }
    Ok(HistoryReadFigure {
        decisions,
        seconds: seconds(&samples),
        median_seconds: median(&samples).as_secs_f64(),
    })
}

/// What is measured, and how many times.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Plan {
    /// Synthetic history sizes, in decisions, and the rounds of each (a round runs every
    /// [`Threads`] setting once).
    pub synthetic: &'static [(u64, usize)],
    /// Decisions in the redb store.
    pub redb: u64,
    /// Rounds over the redb store.
    pub redb_rounds: usize,
}

impl Plan {
    /// What the `figures` binary measures: the targets are judged on the redb store of 10^6
    /// decisions.
    pub const FIGURES: Plan = Plan {
        synthetic: &[(100_000, 5), (1_000_000, 2)],
        redb: 1_000_000,
        redb_rounds: 5,
    };
}

/// The target throughput of a recompute end to end from redb on two threads.
pub const TARGET_TWO_THREADS: f64 = 2_000_000.0;
/// The target speed-up of all cores over one core, end to end from redb.
pub const TARGET_SCALING: f64 = 1.6;

/// The two recompute targets, judged on the redb runs: 2 threads ≥ [`TARGET_TWO_THREADS`]
/// decisions/s, and all cores ≥ [`TARGET_SCALING`] × the faster one-core setting.
pub fn targets(redb: &RedbFigure) -> Result<Vec<Ratio>> {
    let rate = |t: Threads| {
        redb.runs
            .iter()
            .find(|r| r.threads == t.name())
            .map(|r| r.decisions_per_second)
            .ok_or_else(|| format!("no redb run under {}", t.name()))
    };
    let decisions = redb.runs.first().map_or(0, |r| r.decisions);
    let one_core = rate(Threads::Sequential)?.max(rate(Threads::OneThreadPool)?);
    Ok(vec![
        Ratio::new(
            "recompute_2_threads_vs_target",
            &format!(
                "recompute end to end from redb, {decisions} decisions, decisions/s: 2-thread \
                 rayon pool / 2,000,000"
            ),
            rate(Threads::TwoThreads)?,
            TARGET_TWO_THREADS,
            Bound::AtLeast,
            1.0,
        ),
        Ratio::new(
            "recompute_all_cores_vs_one_core",
            &format!(
                "recompute end to end from redb, {decisions} decisions, decisions/s: all cores \
                 ({} threads) / the faster one-core setting (parallel=false or a 1-thread pool)",
                Threads::AllCores.threads()
            ),
            rate(Threads::AllCores)?,
            one_core,
            Bound::AtLeast,
            TARGET_SCALING,
        ),
    ])
}

/// Measures every recompute figure of `plan`; `log` hears progress.
pub fn measure_all(plan: Plan, log: &mut dyn FnMut(&str)) -> Result<RecomputeFigures> {
    let space = KeySpace::default();
    let runner = Recomputer::new()?;
    let mut synthetic = Vec::new();
    let mut copies = Vec::new();
    let mut fold = None;
    for &(decisions, rounds) in plan.synthetic {
        log(&format!(
            "recompute: {decisions} synthetic decisions, {rounds} rounds…"
        ));
        let contents = SyntheticContents::new(decisions);
        let moves = contents.moves();
        synthetic.extend(measure_runs(
            &runner,
            &contents,
            moves,
            &Threads::ALL,
            rounds,
        )?);
        copies.push(measure_history(&contents, rounds)?);
        if fold.is_none() {
            fold = Some(measure_fold(&contents, rounds)?);
        }
    }
    let fold = fold.ok_or("no synthetic size to measure")?;

    log(&format!(
        "recompute: filling redb with {} decisions…",
        plan.redb
    ));
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("s.redb");
    let mut options = docsuggest_store::StoreOptions::new(&path);
    options.durability = docsuggest_schema::Durability::Group;
    options.ring_capacity = 1 << 20;
    let ring_capacity = options.ring_capacity;
    let mut store = docsuggest_store::RedbStore::open(options)?;
    let (moves, fill) = fill_decisions(&mut store, plan.redb)?;
    let kept = store.ring_len()?;
    if kept != plan.redb {
        return Err(format!(
            "the ring of capacity {ring_capacity} kept {kept} of {} decisions",
            plan.redb
        )
        .into());
    }
    let file_bytes = std::fs::metadata(&path)?.len();
    log(&format!(
        "recompute: redb fill took {:.2} s",
        fill.as_secs_f64()
    ));
    // The offline recompute opens the file afresh (`docsuggest recompute`): so do the timed
    // runs, before the full-history reads below, whose gigabyte of decoded entries would
    // otherwise be the heap the runs allocate in.
    drop(store);
    let mut options = docsuggest_store::StoreOptions::new(&path);
    options.durability = docsuggest_schema::Durability::Group;
    options.ring_capacity = ring_capacity;
    let store = docsuggest_store::RedbStore::open(options)?;
    let runs = measure_runs(&runner, &store, moves, &Threads::ALL, plan.redb_rounds)?;
    let input_read = measure_reads(&runner, &store, &Threads::ALL, plan.redb_rounds)?;
    let history_read = measure_history(&store, plan.redb_rounds)?;
    let mut rows_read = Vec::new();
    for _ in 0..plan.redb_rounds {
        let start = Instant::now();
        std::hint::black_box((store.rate_rows()?, store.base_rows()?));
        rows_read.push(start.elapsed());
    }
    Ok(RecomputeFigures {
        key_space: KeySpaceFigure {
            workspaces: space.workspaces.len(),
            families: space.families.len(),
            companions_per_family: COMPANIONS,
            keys: space.len(),
            companion_rows_per_decision: RANKED,
        },
        synthetic,
        synthetic_history_copy: copies,
        synthetic_fold_all: fold,
        redb: RedbFigure {
            ring_capacity,
            fill_seconds: fill.as_secs_f64(),
            file_bytes,
            history_read,
            rows_read_median_seconds: median(&rows_read).as_secs_f64(),
            runs,
            input_read,
        },
    })
}
