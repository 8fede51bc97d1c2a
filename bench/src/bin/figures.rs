//! Measures the headline figures of docsuggest in one run and writes them as JSON: judge
//! latency, store reads, the write path, the existence filter, the target ratios and the
//! recompute throughput.
//!
//! `cargo run --release -p docsuggest-bench --bin figures [-- --out PATH]` (default
//! `bench/results.json`). Prints the same figures as Markdown tables on stdout.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use docsuggest_bench::fill::{self, FillReport};
use docsuggest_bench::fixture::Workspace;
use docsuggest_bench::measure::{self, Budget};
use docsuggest_bench::probe::ProbeMode;
use docsuggest_bench::recompute::{self as recompute, RecomputeFigures};
use docsuggest_bench::report::{self, Bound, Machine, Ratio, Samples, Summary};
use docsuggest_bench::rig::{Backend, Result, Rig, Scenario};
use docsuggest_engine::probe::OsProbe;
use docsuggest_engine::probe_cache::CachingProbe;
use docsuggest_schema::{Durability, RateKey};
use serde::Serialize;
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const ROWS: [u64; 2] = [1_000, 1_000_000];
const SMALL: u64 = ROWS[0];
const LARGE: u64 = ROWS[1];
const SUSTAIN: Duration = Duration::from_millis(1_500);
/// Random keys drawn for the random-set reads.
const RANDOM_KEYS: usize = 65_536;

#[derive(Serialize)]
struct FillFigure {
    backend: &'static str,
    rows: u64,
    transactions: u64,
    seconds: f64,
    rows_per_second: f64,
}

#[derive(Serialize)]
struct JudgeFigure {
    backend: &'static str,
    rows: u64,
    call: &'static str,
    probe: &'static str,
    durability: &'static str,
    #[serde(flatten)]
    summary: Summary,
}

#[derive(Serialize)]
struct ReadFigure {
    backend: &'static str,
    rows: u64,
    keys: &'static str,
    #[serde(flatten)]
    summary: Summary,
}

#[derive(Serialize)]
struct SustainedFigure {
    backend: &'static str,
    durability: &'static str,
    decisions_per_second: f64,
    decisions: u64,
    cycles: u64,
    seconds: f64,
}

#[derive(Serialize)]
struct ExistenceFigure {
    probe: &'static str,
    #[serde(flatten)]
    summary: Summary,
}

#[derive(Default, Serialize)]
struct Figures {
    fills: Vec<FillFigure>,
    judge: Vec<JudgeFigure>,
    store_reads: Vec<ReadFigure>,
    write_path: Vec<JudgeFigure>,
    sustained: Vec<SustainedFigure>,
    existence_filter: Vec<ExistenceFigure>,
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
            let figure = judge(&mut rig, rows, call, probe, durability, budget)?;
            figures.write_path.push(figure);
        }
        rig.prepare_cycle(ProbeMode::Caching, durability)?;
        let (decisions, cycles, took) = measure::sustained(&mut rig, SUSTAIN)?;
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
            &mut rig,
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

/// What one cell of the interleaved headline measurement times.
#[derive(Clone, Copy)]
enum Timed {
    /// Single judged calls of a scenario through a probe.
    Call(Scenario, ProbeMode),
    /// One snapshot and the five reads of a Plan call, hot keys: the store's own cost.
    StoreReads,
}

/// One cell of the interleaved headline measurement.
struct Cell {
    rig: usize,
    timed: Timed,
    samples: Samples,
}

/// Sustained learning cycles, measured a slice per round like the cells.
#[derive(Default, Serialize)]
struct SustainedHeadline {
    backend: &'static str,
    rows: u64,
    durability: &'static str,
    decisions_per_second: f64,
    decisions: u64,
    cycles: u64,
    seconds: f64,
}

#[derive(Serialize)]
struct HeadlineFigure {
    backend: &'static str,
    rows: u64,
    call: &'static str,
    probe: &'static str,
    durability: &'static str,
    #[serde(flatten)]
    summary: Summary,
}

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
fn headline_json(
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

/// The ten target ratios, from cells measured interleaved on five rigs.
fn headline() -> Result<(Vec<HeadlineFigure>, SustainedHeadline, Vec<Ratio>)> {
    eprintln!("headline: filling five stores…");
    let mut rigs = headline_rigs()?;
    let mut cells = headline_cells();
    let hot = measure::plan_reads(rigs[1].workspace_key());
    let sustained = measure_rounds(&mut rigs, &mut cells, &hot)?;
    let ratios = target_ratios(&cells, &sustained)?;
    let figures = headline_figures(&cells, &rigs);
    Ok((figures, sustained, ratios))
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

/// The p50 (µs) of the cells the ratios compare.
struct HeadlineMedians {
    memory: f64,
    redb: f64,
    sqlite: f64,
    redb_large: f64,
    naive: f64,
    recording: f64,
    non_matching: f64,
    store_read: f64,
    silence: f64,
}

impl HeadlineMedians {
    /// The medians of `headline_cells`, by position.
    fn of(cells: &[Cell]) -> Result<HeadlineMedians> {
        let p50: Vec<f64> = cells
            .iter()
            .map(|c| c.samples.percentile_us(50.0))
            .collect();
        let [
            memory,
            redb,
            sqlite,
            redb_large,
            naive,
            recording,
            _,
            _,
            _,
            non_matching,
            store_read,
            silence,
        ] = <[f64; 12]>::try_from(p50).map_err(|_| "twelve cells")?;
        Ok(HeadlineMedians {
            memory,
            redb,
            sqlite,
            redb_large,
            naive,
            recording,
            non_matching,
            store_read,
            silence,
        })
    }
}

/// The ten target ratios, in the order `results.json` lists them.
fn target_ratios(cells: &[Cell], sustained: &SustainedHeadline) -> Result<Vec<Ratio>> {
    let p50 = HeadlineMedians::of(cells)?;
    let mut ratios = backend_ratios(&p50);
    ratios.extend(call_ratios(&p50, sustained.decisions_per_second));
    Ok(ratios)
}

/// The first four target ratios: one noted call across stores, sizes and probes.
fn backend_ratios(p50: &HeadlineMedians) -> Vec<Ratio> {
    vec![
        Ratio::new(
            "redb_vs_memory",
            "judge p50, noted call, 10^3 rows, caching probe: redb / memory",
            p50.redb,
            p50.memory,
            Bound::AtMost,
            1.5,
        ),
        Ratio::new(
            "sqlite_vs_redb",
            "judge p50, noted call, 10^3 rows, caching probe: sqlite / redb",
            p50.sqlite,
            p50.redb,
            Bound::AtLeast,
            2.0,
        ),
        Ratio::new(
            "rows_1e6_vs_1e3",
            "judge p50, noted call, redb, caching probe: 10^6 rows (hot set) / 10^3 rows",
            p50.redb_large,
            p50.redb,
            Bound::AtMost,
            1.5,
        ),
        Ratio::new(
            "naive_vs_cached",
            "judge p50, noted call, redb, 10^3 rows: os probe (stats every base) / caching probe",
            p50.naive,
            p50.redb,
            Bound::AtLeast,
            4.0,
        ),
    ]
}

/// The last six target ratios: the kinds of call on redb, against each other and the store's
/// own cost, and sustained learning (`decisions_per_second`).
fn call_ratios(p50: &HeadlineMedians, decisions_per_second: f64) -> Vec<Ratio> {
    vec![
        Ratio::new(
            "recording_vs_plain",
            "judge p50, redb, 10^3 rows, caching probe: recording call (group) / noted call",
            p50.recording,
            p50.redb,
            Bound::AtMost,
            2.0,
        ),
        Ratio::new(
            "nonmatching_vs_store_read",
            "p50, redb, 10^3 rows: non-matching call (caching probe) / one snapshot and the five reads of a Plan call (hot keys)",
            p50.non_matching,
            p50.store_read,
            Bound::AtMost,
            0.4,
        ),
        Ratio::new(
            "noted_vs_store_read",
            "p50, redb, 10^3 rows: noted call (caching probe) / one snapshot and the five reads of a Plan call (hot keys)",
            p50.redb,
            p50.store_read,
            Bound::AtMost,
            2.0,
        ),
        Ratio::new(
            "silence_vs_noted",
            "judge p50, redb, 10^3 rows, caching probe, group: recorded silence / noted call",
            p50.silence,
            p50.redb,
            Bound::AtMost,
            1.5,
        ),
        Ratio::new(
            "recording_vs_noted",
            "judge p50, redb, 10^3 rows, caching probe: recording call (group) / noted call",
            p50.recording,
            p50.redb,
            Bound::AtMost,
            1.5,
        ),
        Ratio::new(
            "sustained_learning_redb",
            "sustained learning on redb (group), decisions per second (not a ratio: the value itself), against 5x 13,900",
            decisions_per_second,
            1.0,
            Bound::AtLeast,
            69_500.0,
        ),
    ]
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
            HeadlineFigure {
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

fn print_recompute(r: &RecomputeFigures) {
    println!("\n| recompute | decisions | moves | threads | median s | decisions/s |");
    println!("|---|---:|---:|---|---:|---:|");
    let redb = r.redb.runs.iter().map(|x| ("redb", x));
    for (source, x) in r.synthetic.iter().map(|x| ("synthetic", x)).chain(redb) {
        println!(
            "| {source} | {} | {} | {} | {:.3} | {:.0} |",
            x.decisions, x.moves, x.threads, x.median_seconds, x.decisions_per_second
        );
    }
    for h in &r.synthetic_history_copy {
        println!(
            "synthetic history() copy of {} decisions: {:.3} s",
            h.decisions, h.median_seconds
        );
    }
    let f = &r.synthetic_fold_all;
    println!(
        "fold_all alone over {} decisions: {:.3} s sequential, {:.3} s all cores",
        f.decisions, f.sequential_median_seconds, f.all_cores_median_seconds
    );
    println!(
        "redb: fill {:.2} s, file {} bytes, history() {:.3} s, rate_rows()+base_rows() {:.4} s",
        r.redb.fill_seconds,
        r.redb.file_bytes,
        r.redb.history_read.median_seconds,
        r.redb.rows_read_median_seconds
    );
    for x in &r.redb.input_read {
        println!(
            "redb recompute_input alone, {}: {:.3} s ({:.0} decisions/s)",
            x.threads, x.median_seconds, x.decisions_per_second
        );
    }
}

fn print_headline(headline: &[HeadlineFigure], sustained: &SustainedHeadline, ratios: &[Ratio]) {
    println!("| headline | rows | call | probe | p50 µs | p99 µs | samples |");
    println!("|---|---:|---|---|---:|---:|---:|");
    for h in headline {
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} | {} |",
            h.backend,
            h.rows,
            h.call,
            h.probe,
            h.summary.p50_us,
            h.summary.p99_us,
            h.summary.samples
        );
    }
    println!(
        "\nsustained learning ({}, {}): {:.0} decisions/s ({} decisions, {} cycles, {:.2} s)",
        sustained.backend,
        sustained.durability,
        sustained.decisions_per_second,
        sustained.decisions,
        sustained.cycles,
        sustained.seconds
    );
    println!("\n| ratio | value | target | pass |");
    println!("|---|---:|---|---|");
    for r in ratios {
        let bound = match r.bound {
            Bound::AtMost => "≤",
            Bound::AtLeast => "≥",
        };
        let pass = if r.pass { "pass" } else { "FAIL" };
        println!(
            "| {} | {:.2} | {bound} {} | {pass} |",
            r.name, r.value, r.target
        );
    }
}

fn print_markdown(f: &Figures) {
    println!();
    println!("| store | rows | call | probe | p50 µs | p99 µs |");
    println!("|---|---:|---|---|---:|---:|");
    for j in &f.judge {
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.2} |",
            j.backend, j.rows, j.call, j.probe, j.summary.p50_us, j.summary.p99_us
        );
    }
    println!("\n| store | rows | keys | p50 µs | p99 µs |");
    println!("|---|---:|---|---:|---:|");
    for r in &f.store_reads {
        println!(
            "| {} | {} | {} | {:.2} | {:.2} |",
            r.backend, r.rows, r.keys, r.summary.p50_us, r.summary.p99_us
        );
    }
    println!("\n| store | call | durability | p50 µs | p99 µs | samples |");
    println!("|---|---|---|---:|---:|---:|");
    for w in &f.write_path {
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {} |",
            w.backend, w.call, w.durability, w.summary.p50_us, w.summary.p99_us, w.summary.samples
        );
    }
    println!("\n| store | durability | decisions/s | cycles |");
    println!("|---|---|---:|---:|");
    for s in &f.sustained {
        println!(
            "| {} | {} | {:.0} | {} |",
            s.backend, s.durability, s.decisions_per_second, s.cycles
        );
    }
    println!("\n| fill | rows | transactions | seconds | rows/s |");
    println!("|---|---:|---:|---:|---:|");
    for x in &f.fills {
        println!(
            "| {} | {} | {} | {:.2} | {:.0} |",
            x.backend, x.rows, x.transactions, x.seconds, x.rows_per_second
        );
    }
    println!("\n| existence filter | p50 µs | p99 µs |");
    println!("|---|---:|---:|");
    for e in &f.existence_filter {
        println!(
            "| {} | {:.2} | {:.2} |",
            e.probe, e.summary.p50_us, e.summary.p99_us
        );
    }
}

/// What the command line asks for.
struct Args {
    out: Option<PathBuf>,
    /// Only the interleaved headline (printed; written only with `--out`).
    headline_only: bool,
}

fn args() -> Result<Args> {
    let usage = "usage: figures [--headline-only] [--out PATH]";
    let mut parsed = Args {
        out: None,
        headline_only: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--out" => parsed.out = Some(PathBuf::from(args.next().ok_or(usage)?)),
            "--headline-only" => parsed.headline_only = true,
            _ => return Err(usage.into()),
        }
    }
    Ok(parsed)
}

fn default_out() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("results.json")
}

/// `figures --headline-only`: the interleaved cells and their ratios alone (~1 min).
fn headline_only(out: Option<PathBuf>) -> Result<()> {
    let machine = Machine::probe();
    let date = report::utc_timestamp(SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs());
    let (headline, sustained, ratios) = headline()?;
    print_headline(&headline, &sustained, &ratios);
    println!(
        "\nload before {}, after {}",
        machine.load_before,
        report::load_average()
    );
    if let Some(out) = out {
        let json = serde_json::json!({
            "generated_by": "cargo run --release -p docsuggest-bench --bin figures -- --headline-only",
            "date": date,
            "machine": machine,
            "load_after": report::load_average(),
            "headline": headline_json(&headline, &sustained, &ratios),
        });
        std::fs::write(&out, serde_json::to_string_pretty(&json)? + "\n")?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let args = args()?;
    if args.headline_only {
        return headline_only(args.out);
    }
    let out = args.out.unwrap_or_else(default_out);
    let started = Instant::now();
    let machine = Machine::probe();
    let date = report::utc_timestamp(SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs());
    let mut figures = Figures::default();

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
    drop(workspace);

    for rows in ROWS {
        for &backend in Backend::COMPARED {
            measure_backend(&mut figures, backend, rows)?;
        }
    }
    // The host's wiring: redb behind the fail-open wrapper.
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
    drop(rig);

    let (headline, sustained, mut ratios) = headline()?;
    let recompute_started = Instant::now();
    let recomputed =
        recompute::measure_all(recompute::Plan::FIGURES, &mut |line| eprintln!("{line}"))?;
    let recompute_seconds = recompute_started.elapsed().as_secs_f64();
    // The recompute targets are judged next to the ratios, on the redb runs.
    ratios.extend(recompute::targets(&recomputed.redb)?);
    let runtime = started.elapsed().as_secs_f64();
    let json = serde_json::json!({
        "generated_by": "cargo run --release -p docsuggest-bench --bin figures",
        "date": date,
        "machine": machine,
        "load_after": report::load_average(),
        "runtime_seconds": runtime,
        "settings": {
            "budget_fast": Budget::FAST,
            "budget_slow": Budget::SLOW,
            "fill_batch_moves": fill::BATCH,
            "judge_durability": "group",
            "flush_interval_ms": 1000,
            "sustained_seconds": SUSTAIN.as_secs_f64(),
            "random_keys": RANDOM_KEYS,
            "fixture_dir_age_seconds": docsuggest_bench::fixture::AGE.as_secs(),
        },
        "headline": headline_json(&headline, &sustained, &ratios),
        "figures": figures,
        "recompute": {
            "plan": recompute::Plan::FIGURES,
            "seconds": recompute_seconds,
            "figures": recomputed,
        },
        "not_measured": [
            "judge latency over the random key set through the pipeline (measured at the store level only)"
        ],
    });
    std::fs::write(&out, serde_json::to_string_pretty(&json)? + "\n")?;
    print_headline(&headline, &sustained, &ratios);
    print_markdown(&figures);
    print_recompute(&recomputed);
    println!(
        "\nruntime {runtime:.1} s; {} cores, {}; load before {}, after {}; wrote {}",
        machine.nproc,
        machine.cpu_model,
        machine.load_before,
        report::load_average(),
        out.display()
    );
    Ok(())
}
