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

/// Times one snapshot and eight row reads, as a Plan call makes them: `keys` is read eight
/// at a time, cycling.
pub fn reads(store: &dyn DecisionStore, keys: &[RateKey], budget: Budget) -> Result<Samples> {
    let mut at = 0;
    run(budget, || {
        let batch: Vec<&RateKey> = (0..8).map(|i| &keys[(at + i) % keys.len()]).collect();
        at = (at + 8) % keys.len();
        let start = Instant::now();
        let snapshot = store.snapshot()?;
        for key in batch {
            black_box(snapshot.row(key)?);
        }
        drop(snapshot);
        Ok(start.elapsed())
    })
}

/// The eight reads of a Plan call in workspace `ws`, in the engine's order: each companion's
/// row, then the family's row.
pub fn plan_reads(ws: &str) -> Vec<RateKey> {
    let hot = crate::fill::hot_keys(ws);
    let family = hot[0].clone();
    hot[1..]
        .iter()
        .flat_map(|c| [c.clone(), family.clone()])
        .collect()
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
