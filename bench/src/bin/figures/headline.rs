//! The interleaved headline: twelve cells on five stores, measured in turn round after round
//! so a change of load affects them alike, sustained learning a slice per round, and the
//! `headline` object of `results.json`.

use crate::{LARGE, SMALL};
use docsuggest_bench::measure::{self, Budget};
use docsuggest_bench::probe::ProbeMode;
use docsuggest_bench::report::{Ratio, Samples};
use docsuggest_bench::rig::{Backend, Result, Rig, Scenario};
use docsuggest_schema::{Durability, RateKey};
use serde::Serialize;
use std::time::{Duration, Instant};

/// What one cell of the interleaved headline measurement times.
#[derive(Clone, Copy)]
enum Timed {
    /// Single judged calls of a scenario through a probe.
    Call(Scenario, ProbeMode),
    /// One snapshot and the five reads of a Plan call, hot keys: the store's own cost.
    StoreReads,
}

/// One cell of the interleaved headline measurement.
pub(crate) struct Cell {
    rig: usize,
    timed: Timed,
    pub(crate) samples: Samples,
}

/// Sustained learning cycles, measured a slice per round like the cells.
#[derive(Default, Serialize)]
pub(crate) struct SustainedHeadline {
    pub(crate) backend: &'static str,
    pub(crate) rows: u64,
    pub(crate) durability: &'static str,
    pub(crate) decisions_per_second: f64,
    pub(crate) decisions: u64,
    pub(crate) cycles: u64,
    pub(crate) seconds: f64,
}

/// One cell of the headline, named by its store and what it timed: the same record as a
/// judged-call figure.
pub(crate) type HeadlineFigure = crate::backends::JudgeFigure;

/// Rounds of the headline measurement; every cell is measured once per round, in turn, so a
/// change of machine load affects every cell alike.
const ROUNDS: usize = 8;
const ROUND: Budget = Budget {
    warmup: 200,
    iterations: 1_500,
    time: Duration::from_millis(400),
};

/// How long sustained learning runs in each round of the headline.
const SUSTAIN_SLICE: Duration = Duration::from_millis(250);

/// The `headline` object of `results.json` (both runs write the same one).
pub(crate) fn headline_json(
    cells: &[HeadlineFigure],
    sustained: &SustainedHeadline,
    ratios: &[Ratio],
) -> serde_json::Value {
    serde_json::json!({
        "rounds": ROUNDS,
        "round_budget": ROUND,
        "cells": cells,
        "sustained": sustained,
        "ratios": ratios,
    })
}

/// The headline's stores, by rig number: (backend, rows).
const HEADLINE_RIGS: [(Backend, u64); 5] = [
    (Backend::Memory, SMALL),
    (Backend::Redb, SMALL),
    (Backend::Sqlite, SMALL),
    (Backend::Redb, LARGE),
    // The silences and the learning cycles record and move rates: on their own store, so
    // the other cells time the same rows in every round.
    (Backend::Redb, SMALL),
];

/// The headline's cells, measured interleaved on five rigs (the target ratios are judged from
/// them), each as a figure, and sustained learning.
pub(crate) fn headline() -> Result<([Cell; 12], Vec<HeadlineFigure>, SustainedHeadline)> {
    eprintln!("headline: filling five stores…");
    let mut rigs = headline_rigs()?;
    let mut cells = headline_cells();
    let hot = measure::plan_reads(rigs[1].workspace_key());
    let sustained = measure_rounds(&mut rigs, &mut cells, &hot)?;
    let figures = headline_figures(&cells, &rigs);
    Ok((cells, figures, sustained))
}

/// Fills the headline's stores, in rig order.
fn headline_rigs() -> Result<Vec<Rig>> {
    let mut rigs = Vec::new();
    for (backend, rows) in HEADLINE_RIGS {
        rigs.push(Rig::new(backend, rows)?);
    }
    Ok(rigs)
}

/// The cells of the headline, in the order `HeadlineMedians::of` names them.
fn headline_cells() -> [Cell; 12] {
    use ProbeMode::{Caching, Frozen, Os};
    use Scenario::{NonMatching, Noted, Recording, Silence};
    let cell = |rig, call, probe| Cell {
        rig,
        timed: Timed::Call(call, probe),
        samples: Samples::default(),
    };
    [
        cell(0, Noted, Caching),
        cell(1, Noted, Caching),
        cell(2, Noted, Caching),
        cell(3, Noted, Caching),
        cell(1, Noted, Os),
        cell(1, Recording, Caching),
        // Context, not targets: the same calls without any file-system call.
        cell(0, Noted, Frozen),
        cell(1, Noted, Frozen),
        cell(2, Noted, Frozen),
        // The call targets of issue #18, against the store's own cost.
        cell(1, NonMatching, Caching),
        Cell {
            rig: 1,
            timed: Timed::StoreReads,
            samples: Samples::default(),
        },
        cell(4, Silence, Caching),
    ]
}

/// Every round: each cell in turn, then a slice of sustained learning on the last rig.
fn measure_rounds(
    rigs: &mut [Rig],
    cells: &mut [Cell],
    hot: &[RateKey],
) -> Result<SustainedHeadline> {
    let mut sustained = SustainedHeadline {
        backend: Backend::Redb.name(),
        rows: SMALL,
        durability: "group",
        ..SustainedHeadline::default()
    };
    let mut sustained_time = Duration::ZERO;
    for round in 0..ROUNDS {
        eprintln!("headline: round {}/{ROUNDS}", round + 1);
        measure_cells(rigs, cells, hot)?;
        let (decisions, cycles, took) = sustained_slice(&mut rigs[4])?;
        sustained.decisions += decisions;
        sustained.cycles += cycles;
        sustained_time += took;
    }
    sustained.seconds = sustained_time.as_secs_f64();
    sustained.decisions_per_second = sustained.decisions as f64 / sustained.seconds;
    Ok(sustained)
}

/// One round of every cell, in turn.
fn measure_cells(rigs: &mut [Rig], cells: &mut [Cell], hot: &[RateKey]) -> Result<()> {
    for c in cells {
        let rig = &mut rigs[c.rig];
        match c.timed {
            Timed::Call(call, probe) => {
                rig.prepare(call, probe, Durability::Group)?;
                c.samples.append(measure::calls(rig, call, ROUND)?);
                rig.flush()?;
            }
            Timed::StoreReads => {
                c.samples
                    .append(measure::reads(rig.engine().store(), hot, ROUND)?);
            }
        }
    }
    Ok(())
}

/// One slice of sustained learning: decisions, cycles and the time they took, flush included.
fn sustained_slice(rig: &mut Rig) -> Result<(u64, u64, Duration)> {
    rig.prepare_cycle(ProbeMode::Caching, Durability::Group)?;
    let (decisions, cycles, took) = measure::sustained(rig, SUSTAIN_SLICE)?;
    // The slice's flush is timed with it: what its decisions cost includes writing and
    // fsyncing them (under `group` they wait in memory until a commit).
    let flushing = Instant::now();
    rig.flush()?;
    let flushed = flushing.elapsed();
    Ok((decisions, cycles, took + flushed))
}

/// Each cell's figure, named by its rig and what it timed.
fn headline_figures(cells: &[Cell], rigs: &[Rig]) -> Vec<HeadlineFigure> {
    cells
        .iter()
        .map(|c| {
            let (call, probe) = match c.timed {
                Timed::Call(call, probe) => (call.name(), probe.name()),
                Timed::StoreReads => ("store-reads-hot", "none"),
            };
            crate::backends::JudgeFigure {
                backend: rigs[c.rig].backend().name(),
                rows: HEADLINE_RIGS[c.rig].1,
                call,
                probe,
                durability: "group",
                summary: c.samples.summary(),
            }
        })
        .collect()
}
