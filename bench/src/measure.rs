//! Plain timing loops (no statistics framework): each runs warm-up iterations, then times
//! single operations with `Instant` until an iteration cap or a time budget is reached.

use crate::fixture::{PLAN, Workspace};
use crate::report::Samples;
use crate::rig::{Result, Rig, Scenario};
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_engine::filter::Bases;
use docsuggest_engine::probe::FileProbe;
use docsuggest_schema::{DecisionStore, RateKey};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long and how often one figure is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Budget {
    /// Untimed iterations first.
    pub warmup: usize,
    /// At most this many timed iterations.
    pub iterations: usize,
    /// Stop timing after this long even below the cap.
    pub time: Duration,
}

impl Budget {
    /// For sub-100 µs operations.
    pub const FAST: Budget = Budget {
        warmup: 1_000,
        iterations: 30_000,
        time: Duration::from_millis(700),
    };

    /// For operations that may fsync (milliseconds each).
    pub const SLOW: Budget = Budget {
        warmup: 20,
        iterations: 5_000,
        time: Duration::from_millis(1_500),
    };
}

fn run(budget: Budget, mut step: impl FnMut() -> Result<Duration>) -> Result<Samples> {
    for _ in 0..budget.warmup {
        step()?;
    }
    let mut samples = Samples::with_capacity(budget.iterations);
    let start = Instant::now();
    while samples.len() < budget.iterations && start.elapsed() < budget.time {
        samples.push(step()?);
    }
    Ok(samples)
}

/// Times single judged calls of a prepared scenario (its untimed step runs before each).
pub fn calls(rig: &mut Rig, scenario: Scenario, budget: Budget) -> Result<Samples> {
    run(budget, || {
        rig.before(scenario);
        let start = Instant::now();
        let verdict = rig.call(scenario)?;
        let elapsed = start.elapsed();
        black_box(verdict);
        Ok(elapsed)
    })
}

/// How many rows a Plan call reads through its snapshot: its four companions' and, once, the
/// family's.
pub const PLAN_READS: usize = 5;

/// Times one snapshot and [`PLAN_READS`] row reads, as a Plan call makes them: `keys` is read
/// that many at a time, cycling.
pub fn reads(store: &dyn DecisionStore, keys: &[RateKey], budget: Budget) -> Result<Samples> {
    let mut at = 0;
    run(budget, || {
        let batch: Vec<&RateKey> = (0..PLAN_READS)
            .map(|i| &keys[(at + i) % keys.len()])
            .collect();
        at = (at + PLAN_READS) % keys.len();
        let start = Instant::now();
        let snapshot = store.snapshot()?;
        for key in batch {
            black_box(snapshot.row(key)?);
        }
        drop(snapshot);
        Ok(start.elapsed())
    })
}

/// The reads of a Plan call in workspace `ws`, in the engine's order: the first companion's
/// row, the family's row (read once per call), then the other companions' rows.
pub fn plan_reads(ws: &str) -> Vec<RateKey> {
    let hot = crate::fill::hot_keys(ws);
    let (family, companions) = hot
        .split_first()
        .map_or((None, &hot[..]), |(f, c)| (Some(f), c));
    let mut out: Vec<RateKey> = companions.iter().take(1).cloned().collect();
    out.extend(family.cloned());
    out.extend(companions.iter().skip(1).cloned());
    out
}

/// Times the existence filter of a Plan call alone — finding the bases and keeping the
/// family's companions — through `probe`, one probe generation per iteration.
pub fn existence(workspace: &Workspace, probe: &dyn FileProbe, budget: Budget) -> Result<Samples> {
    let pack = CompiledPack::builtin();
    let plan = pack
        .families
        .iter()
        .find(|f| f.name == "Plan")
        .ok_or("the built-in pack has no Plan family")?;
    let root = workspace.root();
    let call_path = root.join(PLAN);
    run(budget, || {
        let start = Instant::now();
        probe.begin_call();
        let bases = Bases::find(root, &call_path, probe);
        let kept = plan
            .companions
            .iter()
            .filter(|c| bases.keeps(c, probe))
            .count();
        let elapsed = start.elapsed();
        if kept != plan.companions.len() {
            return Err(format!("the filter kept {kept} Plan companions").into());
        }
        Ok(elapsed)
    })
}

/// Sustained learning: [`Rig::learning_cycle`] for `duration`; answers decisions recorded,
/// cycles run and the time taken.
pub fn sustained(rig: &mut Rig, duration: Duration) -> Result<(u64, u64, Duration)> {
    let start = Instant::now();
    let (mut decisions, mut cycles) = (0, 0);
    while start.elapsed() < duration {
        decisions += rig.learning_cycle()?;
        cycles += 1;
    }
    Ok((decisions, cycles, start.elapsed()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::PLAN;
    use docsuggest_engine::{Engine, probe::OsProbe, testing::NullStore};
    use docsuggest_schema::Config;

    #[test]
    fn plan_reads_are_the_reads_of_a_plan_call() {
        let workspace = Workspace::create().expect("the sample workspace");
        let store = NullStore::default();
        let log = store.reads.clone();
        let mut engine = Engine::new(Config::default(), Box::new(store), OsProbe);
        let verdict = engine
            .judge(&workspace.call("a", PLAN))
            .expect("a well-formed call");
        assert!(verdict.note.is_some(), "{:?}", verdict.ledger);
        let ws = docsuggest_engine::locate::workspace_key(workspace.root());
        let seen = log.lock().expect("the read log").clone();
        assert_eq!(seen, vec![plan_reads(&ws)]);
        assert_eq!(plan_reads(&ws).len(), PLAN_READS);
    }
}
