//! The per-store figures: each backend filled at each size, its store reads, judged calls,
//! write path and sustained learning, the existence filter, and the host's fail-open wiring.

use crate::{RANDOM_KEYS, ROWS, SMALL, SUSTAIN};
use docsuggest_bench::fill::{self, FillReport};
use docsuggest_bench::fixture::Workspace;
use docsuggest_bench::measure::{self, Budget};
use docsuggest_bench::probe::ProbeMode;
use docsuggest_bench::report::Summary;
use docsuggest_bench::rig::{Backend, Result, Rig, Scenario};
use docsuggest_engine::probe::OsProbe;
use docsuggest_engine::probe_cache::CachingProbe;
use docsuggest_schema::Durability;
use serde::Serialize;
use std::time::Instant;

/// One store filled: its rows, transactions and rate.
#[derive(Serialize)]
pub(crate) struct FillFigure {
    pub(crate) backend: &'static str,
    pub(crate) rows: u64,
    pub(crate) transactions: u64,
    pub(crate) seconds: f64,
    pub(crate) rows_per_second: f64,
}

/// Judged calls of one scenario through one probe, on one store.
#[derive(Serialize)]
pub(crate) struct JudgeFigure {
    pub(crate) backend: &'static str,
    pub(crate) rows: u64,
    pub(crate) call: &'static str,
    pub(crate) probe: &'static str,
    pub(crate) durability: &'static str,
    #[serde(flatten)]
    pub(crate) summary: Summary,
}

/// Store reads of one key set, on one store.
#[derive(Serialize)]
pub(crate) struct ReadFigure {
    pub(crate) backend: &'static str,
    pub(crate) rows: u64,
    pub(crate) keys: &'static str,
    #[serde(flatten)]
    pub(crate) summary: Summary,
}

/// Sustained learning cycles on one store, at one durability.
#[derive(Serialize)]
pub(crate) struct SustainedFigure {
    pub(crate) backend: &'static str,
    pub(crate) durability: &'static str,
    pub(crate) decisions_per_second: f64,
    pub(crate) decisions: u64,
    pub(crate) cycles: u64,
    pub(crate) seconds: f64,
}

/// The existence filter through one probe.
#[derive(Serialize)]
pub(crate) struct ExistenceFigure {
    pub(crate) probe: &'static str,
    #[serde(flatten)]
    pub(crate) summary: Summary,
}

/// The `figures` object of `results.json`: every per-store figure.
#[derive(Default, Serialize)]
pub(crate) struct Figures {
    pub(crate) fills: Vec<FillFigure>,
    pub(crate) judge: Vec<JudgeFigure>,
    pub(crate) store_reads: Vec<ReadFigure>,
    pub(crate) write_path: Vec<JudgeFigure>,
    pub(crate) sustained: Vec<SustainedFigure>,
    pub(crate) existence_filter: Vec<ExistenceFigure>,
}

fn durability_name(d: Durability) -> &'static str {
    match d {
        Durability::Immediate => "immediate",
        Durability::Group => "group",
    }
}

fn fill_figure(backend: Backend, report: FillReport) -> FillFigure {
    let seconds = report.elapsed.as_secs_f64();
    FillFigure {
        backend: backend.name(),
        rows: report.rows,
        transactions: report.transactions,
        seconds,
        rows_per_second: report.rows as f64 / seconds,
    }
}

fn judge(
    rig: &mut Rig,
    rows: u64,
    call: Scenario,
    probe: ProbeMode,
    durability: Durability,
    budget: Budget,
) -> Result<JudgeFigure> {
    rig.prepare(call, probe, durability)?;
    let samples = measure::calls(rig, call, budget)?;
    rig.flush()?;
    Ok(JudgeFigure {
        backend: rig.backend().name(),
        rows,
        call: call.name(),
        probe: probe.name(),
        durability: durability_name(durability),
        summary: samples.summary(),
    })
}

/// Everything measured on one filled store.
fn measure_backend(figures: &mut Figures, backend: Backend, rows: u64) -> Result<()> {
    eprintln!("filling {} with {rows} rows…", backend.name());
    let mut rig = Rig::new(backend, rows)?;
    figures.fills.push(fill_figure(backend, rig.fill_report()));
    eprintln!(
        "  fill took {:.2} s",
        rig.fill_report().elapsed.as_secs_f64()
    );

    let hot = measure::plan_reads(rig.workspace_key());
    let random = fill::random_keys(rows, RANDOM_KEYS);
    for (name, keys) in [("hot", &hot), ("random", &random)] {
        let samples = measure::reads(rig.engine().store(), keys, Budget::FAST)?;
        figures.store_reads.push(ReadFigure {
            backend: backend.name(),
            rows,
            keys: name,
            summary: samples.summary(),
        });
    }

    for call in Scenario::JUDGE {
        for probe in ProbeMode::ALL {
            let figure = judge(&mut rig, rows, call, probe, Durability::Group, Budget::FAST)?;
            figures.judge.push(figure);
        }
    }

    if rows != SMALL {
        return Ok(());
    }
    measure_write_path(figures, &mut rig, backend, rows)
}

/// The write path and sustained learning, on the small store: every durability the backend
/// has, and on memory the noted call that records nothing.
fn measure_write_path(
    figures: &mut Figures,
    rig: &mut Rig,
    backend: Backend,
    rows: u64,
) -> Result<()> {
    let modes: &[Durability] = if backend.is_durable() {
        &[Durability::Group, Durability::Immediate]
    } else {
        &[Durability::Group]
    };
    for &durability in modes {
        let budget = match durability {
            Durability::Group => Budget::FAST,
            Durability::Immediate => Budget::SLOW,
        };
        for call in [Scenario::Recording, Scenario::Silence] {
            let probe = ProbeMode::Caching;
            let figure = judge(rig, rows, call, probe, durability, budget)?;
            figures.write_path.push(figure);
        }
        rig.prepare_cycle(ProbeMode::Caching, durability)?;
        let (decisions, cycles, took) = measure::sustained(rig, SUSTAIN)?;
        // Timed with the run, as in the headline: the decisions are written and fsynced.
        let flushing = Instant::now();
        rig.flush()?;
        let seconds = (took + flushing.elapsed()).as_secs_f64();
        figures.sustained.push(SustainedFigure {
            backend: backend.name(),
            durability: durability_name(durability),
            decisions_per_second: decisions as f64 / seconds,
            decisions,
            cycles,
            seconds,
        });
    }
    if backend == Backend::Memory {
        let call = Scenario::NotedLearnOff;
        let figure = judge(
            rig,
            rows,
            call,
            ProbeMode::Caching,
            Durability::Group,
            Budget::FAST,
        )?;
        figures.write_path.push(figure);
    }
    Ok(())
}

/// Every per-store figure: the existence filter, each backend at each size, then the host's
/// wiring.
pub(crate) fn measure_all() -> Result<Figures> {
    let mut figures = Figures::default();
    measure_existence(&mut figures)?;
    for rows in ROWS {
        for &backend in Backend::COMPARED {
            measure_backend(&mut figures, backend, rows)?;
        }
    }
    measure_fail_open(&mut figures)?;
    Ok(figures)
}

/// The existence filter through the OS probe and the caching one, on the sample workspace.
fn measure_existence(figures: &mut Figures) -> Result<()> {
    let workspace = Workspace::create()?;
    for (probe, name) in [
        (
            &OsProbe as &dyn docsuggest_engine::probe::FileProbe,
            ProbeMode::Os,
        ),
        (&CachingProbe::new(), ProbeMode::Caching),
    ] {
        let samples = measure::existence(&workspace, probe, Budget::FAST)?;
        figures.existence_filter.push(ExistenceFigure {
            probe: name.name(),
            summary: samples.summary(),
        });
    }
    Ok(())
}

/// The host's wiring: redb behind the fail-open wrapper.
fn measure_fail_open(figures: &mut Figures) -> Result<()> {
    let mut rig = Rig::new(Backend::FailOpenRedb, SMALL)?;
    for probe in ProbeMode::ALL {
        let figure = judge(
            &mut rig,
            SMALL,
            Scenario::Noted,
            probe,
            Durability::Group,
            Budget::FAST,
        )?;
        figures.judge.push(figure);
    }
    Ok(())
}
