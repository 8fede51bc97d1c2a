//! `docsuggest fleet merge` over a synthetic fleet: decisions/s and peak memory of the
//! DataFusion merge, next to the in-process `recompute` of the same history on one store.
//!
//! `cargo run --release -p docsuggest-bench --bin fleet [-- --decisions N --machines M
//! --workspaces W --out PATH]` (defaults 10^7, 10, 200) writes the synthetic history — the
//! recompute benchmark's decisions, over W workspaces — as M machines' Parquet exports (M
//! contiguous runs of it, each machine's resolution numbers its own) in a scratch directory
//! (not timed), then runs each measurement in a child process of its own (this binary again,
//! with `--child`), so each peak resident size (`VmHWM`) is that measurement's alone:
//!
//! - `merge`: `fleet merge` of every export into a rates file;
//! - `daily`: the same exports merged in ten steps, a day's at a time, each continuing the
//!   last one's state (`--state`), its rows compared with the single merge's, byte for byte;
//! - `recompute`: the same decisions held in memory as one store's history (their companion
//!   rows left out: a recompute reads moves), then `recompute` on all cores, timed alone; its
//!   peak includes the history it holds.
//!
//! Writes `bench/fleet.json` and prints a Markdown table. With `--exports-only DIR` it writes
//! the exports into `DIR` and stops (to merge them by hand, under a descriptor limit).

/// The allocator of every docsuggest binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use docsuggest_bench::recompute::{KeySpace, SyntheticContents};
use docsuggest_bench::report::{self, Machine};
use docsuggest_fleet::export::{Ran, write_export};
use docsuggest_fleet::merge::{DEFAULT_MEMORY_LIMIT, MergeOptions, merge};
use docsuggest_schema::{HistoryEntry, RateModel};
use docsuggest_store::recompute::{RecomputeOptions, recompute};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Entries written per export call (per machine, one file per workspace each).
const CHUNK: u64 = 1_000_000;

/// The days the exports are written over: the merge by the day takes one day's at a time.
const DAYS: u64 = 10;

/// The peak resident size of this process, in MiB (`VmHWM`; `None` off Linux).
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// Resets `VmHWM` to the current resident size (Linux; elsewhere the peak keeps the setup's).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

struct Args {
    decisions: u64,
    machines: u64,
    workspaces: usize,
    out: PathBuf,
    exports_only: Option<PathBuf>,
}

fn args() -> Result<Args> {
    let mut args = Args {
        decisions: 10_000_000,
        machines: 10,
        workspaces: 200,
        out: PathBuf::from("bench/fleet.json"),
        exports_only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--decisions" => args.decisions = value.parse()?,
            "--machines" => args.machines = value.parse()?,
            "--workspaces" => args.workspaces = value.parse()?,
            "--out" => args.out = value.into(),
            "--exports-only" => args.exports_only = Some(value.into()),
            _ => return Err(format!("unknown option {flag}").into()),
        }
    }
    Ok(args)
}

/// Writes the synthetic history as `machines` machines' exports under `dir`, each machine's
/// in `days` contiguous parts (`dir/day<d>/machine<m>`).
fn write_fleet(dir: &Path, args: &Args) -> Result<()> {
    let space = KeySpace::with_workspaces(args.workspaces);
    let per_machine = args.decisions.div_ceil(args.machines);
    let per_day = per_machine.div_ceil(DAYS).max(1);
    for machine in 0..args.machines {
        let first = machine * per_machine;
        let last = (first + per_machine).min(args.decisions);
        let id = format!("{:016x}", machine + 1);
        let mut start = first;
        while start < last {
            let day = (start - first) / per_day;
            let end = (start + CHUNK).min(last).min(first + (day + 1) * per_day);
            let dir = dir.join(format!("day{day}"));
            let entries: Vec<HistoryEntry> = (start..end)
                .map(|i| {
                    let (mut decision, resolution) = space.decision(i);
                    let seq = i - first + 1;
                    decision.seq = seq;
                    HistoryEntry::closing(decision, resolution, seq)
                })
                .collect();
            let ran = Ran::all_in(&entries, machine + 1);
            write_export(&dir.join(format!("machine{machine}")), &id, &ran)?;
            start = end;
        }
    }
    Ok(())
}

/// One measurement, in this (child) process: prints its figures as one JSON line.
fn child(what: &str, dir: &Path, args: &Args) -> Result<()> {
    match what {
        "merge" => {
            let started = Instant::now();
            let merged = merge(&MergeOptions {
                inputs: vec![dir.join("exports")],
                out: dir.join("fleet-rates.parquet"),
                model: RateModel::Evidence,
                memory_limit: DEFAULT_MEMORY_LIMIT,
                state: None,
            })?;
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "{}",
                json!({"seconds": seconds, "peak_mib": peak_mib(), "moves": merged.moves,
                    "rows": merged.rows, "files": merged.files,
                    "memory_limit_mib": DEFAULT_MEMORY_LIMIT >> 20,
                    "spills": merged.spilled.spills,
                    "spilled_mib": merged.spilled.spilled_bytes as f64 / f64::from(1 << 20)})
            );
        }
        "daily" => {
            let started = Instant::now();
            let (mut moves, mut steps) = (0, Vec::new());
            for day in 0..DAYS {
                let step = Instant::now();
                let merged = merge(&MergeOptions {
                    inputs: vec![dir.join("exports").join(format!("day{day}"))],
                    out: dir.join("fleet-rates-daily.parquet"),
                    model: RateModel::Evidence,
                    memory_limit: DEFAULT_MEMORY_LIMIT,
                    state: Some(dir.join("fleet-state.parquet")),
                })?;
                moves += merged.moves;
                steps.push(step.elapsed().as_secs_f64());
            }
            let seconds = started.elapsed().as_secs_f64();
            let same = std::fs::read(dir.join("fleet-rates-daily.parquet"))?
                == std::fs::read(dir.join("fleet-rates.parquet"))?;
            println!(
                "{}",
                json!({"seconds": seconds, "peak_mib": peak_mib(), "moves": moves,
                    "days": DAYS, "seconds_per_day": steps, "same_bytes_as_one_merge": same})
            );
        }
        "recompute" => {
            let space = KeySpace::with_workspaces(args.workspaces);
            let contents = SyntheticContents::over(args.decisions, &space, false);
            reset_peak();
            let started = Instant::now();
            let done = std::sync::atomic::AtomicU64::new(0);
            let out = recompute(
                &contents,
                RecomputeOptions {
                    model: RateModel::Evidence,
                    parallel: true,
                },
                &done,
            )?;
            let seconds = started.elapsed().as_secs_f64();
            println!(
                "{}",
                json!({"seconds": seconds, "peak_mib": peak_mib(), "moves": contents.moves(),
                    "rows": out.rows.len()})
            );
        }
        _ => return Err(format!("unknown measurement {what}").into()),
    }
    Ok(())
}

fn measure(what: &str, dir: &Path, args: &Args) -> Result<Value> {
    let out = std::process::Command::new(std::env::current_exe()?)
        .args(["--child", what])
        .arg(dir)
        .args(["--decisions", &args.decisions.to_string()])
        .args(["--workspaces", &args.workspaces.to_string()])
        .output()?;
    if !out.status.success() {
        return Err(format!("{what}: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

fn main() -> Result<()> {
    let mut raw: Vec<String> = std::env::args().collect();
    if raw.get(1).map(String::as_str) == Some("--child") && raw.len() >= 4 {
        let what = raw.remove(2);
        let dir = PathBuf::from(raw.remove(2));
        raw.remove(1);
        let mut args = Args {
            decisions: 0,
            machines: 1,
            workspaces: 0,
            out: PathBuf::new(),
            exports_only: None,
        };
        let mut it = raw.into_iter().skip(1);
        while let (Some(flag), Some(value)) = (it.next(), it.next()) {
            match flag.as_str() {
                "--decisions" => args.decisions = value.parse()?,
                "--workspaces" => args.workspaces = value.parse()?,
                _ => {}
            }
        }
        return child(&what, &dir, &args);
    }
    let args = args()?;
    if let Some(dir) = &args.exports_only {
        return write_fleet(dir, &args);
    }
    let scratch = tempfile::tempdir()?;
    let started = Instant::now();
    write_fleet(&scratch.path().join("exports"), &args)?;
    eprintln!(
        "wrote the exports in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let merge_figure = measure("merge", scratch.path(), &args)?;
    let daily_figure = measure("daily", scratch.path(), &args)?;
    let recompute_figure = measure("recompute", scratch.path(), &args)?;
    let rate = |v: &Value| args.decisions as f64 / v["seconds"].as_f64().unwrap_or(f64::NAN);
    let (merge_rate, recompute_rate) = (rate(&merge_figure), rate(&recompute_figure));
    let date = report::utc_timestamp(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)?
            .as_secs(),
    );
    let report = json!({
        "date": date,
        "machine": Machine::probe(),
        "load_before": report::load_average(),
        "decisions": args.decisions,
        "machines": args.machines,
        "workspaces": args.workspaces,
        "merge": merge_figure,
        "merge_by_the_day": daily_figure,
        "recompute": recompute_figure,
        "merge_decisions_per_s": merge_rate,
        "recompute_decisions_per_s": recompute_rate,
        "recompute_over_merge": recompute_rate / merge_rate,
    });
    std::fs::write(&args.out, serde_json::to_string_pretty(&report)? + "\n")?;
    println!("| measurement | decisions/s | seconds | peak MiB |");
    println!("| --- | ---: | ---: | ---: |");
    for (name, figure, rate) in [
        ("fleet merge (DataFusion)", &merge_figure, merge_rate),
        (
            "fleet merge by the day (ten steps, --state)",
            &daily_figure,
            rate(&daily_figure),
        ),
        (
            "recompute (one store, all cores)",
            &recompute_figure,
            recompute_rate,
        ),
    ] {
        println!(
            "| {name} | {rate:.0} | {:.2} | {:.0} |",
            figure["seconds"].as_f64().unwrap_or(f64::NAN),
            figure["peak_mib"].as_f64().unwrap_or(f64::NAN)
        );
    }
    println!(
        "recompute / merge throughput: {:.1}; by the day, the same rows: {}",
        recompute_rate / merge_rate,
        daily_figure["same_bytes_as_one_merge"]
    );
    println!("written to {}", args.out.display());
    Ok(())
}
