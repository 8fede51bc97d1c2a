//! `docsuggest backtest` over synthetic histories of growing length: how its wall time scales
//! with the number of commits (the target: a 5,000-commit history in under 30 s on 2 cores).
//!
//! `cargo run --release -p docsuggest-bench --bin backtest [-- --sizes 500,1000 --out PATH]`
//! builds each repository with gix in a scratch directory (not timed), then times the
//! library's `backtest` (reading the history, the static and the learning engine, both
//! co-change baselines: what the command does) and, apart, reading the history into turns
//! alone. Writes
//! `bench/backtest.json` and prints a Markdown table. The repositories are written as loose
//! objects under the temporary directory (`TMPDIR`; a tmpfs such as `/dev/shm` keeps their
//! creation and removal off the disk).

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use docsuggest_bench::history;
use docsuggest_bench::report::{self, Machine};
use docsuggest_history::backtest::{self, DEFAULT_MAX_FILES, Options};
use serde_json::json;
use std::path::PathBuf;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const DEFAULT_SIZES: [usize; 5] = [500, 1_000, 2_000, 5_000, 10_000];
const SEED: u64 = 17;

struct Args {
    sizes: Vec<usize>,
    out: PathBuf,
    /// Build the repositories here (`DIR/<commits>`) and keep them, for `docsuggest backtest`.
    keep: Option<PathBuf>,
}

fn args() -> Result<Args> {
    let mut out = Args {
        sizes: DEFAULT_SIZES.to_vec(),
        out: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("backtest.json"),
        keep: None,
    };
    let usage = "usage: backtest [--sizes N,N,...] [--out PATH] [--keep DIR]";
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(usage)?;
        match flag.as_str() {
            "--sizes" => {
                out.sizes = value
                    .split(',')
                    .map(|n| n.trim().parse::<usize>())
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|e| format!("--sizes {value}: {e}"))?;
                if out.sizes.iter().any(|&n| n < 2) {
                    return Err("--sizes: every history needs at least 2 commits".into());
                }
            }
            "--out" => out.out = PathBuf::from(value),
            "--keep" => out.keep = Some(PathBuf::from(value)),
            _ => return Err(usage.into()),
        }
    }
    Ok(out)
}

/// The CPU time this process has used (user + system, all threads), from `/proc/self/stat`
/// in clock ticks of 1/100 s (Linux's fixed `USER_HZ`): less sensitive than wall time to other
/// work on the machine. `None` off Linux.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) may hold spaces; the fields after its `)` are plain.
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i)?.parse::<f64>().ok();
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
    Some((ticks(11)? + ticks(12)?) / 100.0)
}

fn main() -> Result<()> {
    let args = args()?;
    let machine = Machine::probe();
    let date = report::utc_timestamp(SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs());
    let mut rows = Vec::new();
    println!(
        "| commits | kept | judge requests per engine | read s | backtest s | CPU s | commits/s | load |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---|");
    for &n in &args.sizes {
        let dir = tempfile::tempdir()?;
        let repo = match &args.keep {
            Some(keep) => keep.join(n.to_string()),
            None => dir.path().join("repo"),
        };
        let built = history::build(&repo, n, SEED)?;

        let options = Options {
            repo: repo.clone(),
            max_files: DEFAULT_MAX_FILES,
            ..Options::default()
        };
        let load = report::load_average();
        let started = Instant::now();
        let config = backtest::run_config(&options, true)?;
        let prepared = backtest::prepare(&options, &config)?;
        let read_seconds = started.elapsed().as_secs_f64();
        let judges: usize = prepared
            .turns
            .iter()
            .map(|t| t.files.len() + prepared.pad)
            .sum();
        drop(prepared);

        let (started, cpu) = (Instant::now(), cpu_seconds());
        let report = backtest::backtest(&options)?;
        let seconds = started.elapsed().as_secs_f64();
        let cpu = cpu.zip(cpu_seconds()).map(|(a, b)| b - a);
        if report.scratch_workspace {
            return Err("the synthetic work tree was not used".into());
        }
        let row = json!({
            "commits": built.commits,
            "tip_paths": built.tip_paths,
            "kept": report.kept,
            "judge_requests_per_engine": judges,
            "read_seconds": read_seconds,
            "seconds": seconds,
            "cpu_seconds": cpu,
            "commits_per_second": built.commits as f64 / seconds,
            "load_before": load,
        });
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {} | {:.0} | {} |",
            built.commits,
            report.kept,
            judges,
            read_seconds,
            seconds,
            cpu.map_or("-".into(), |c| format!("{c:.2}")),
            built.commits as f64 / seconds,
            load
        );
        rows.push(row);
    }
    let out = json!({
        "date": date,
        "machine": machine,
        "load_after": report::load_average(),
        "seed": SEED,
        "max_files": DEFAULT_MAX_FILES,
        "runs": rows,
    });
    std::fs::write(
        &args.out,
        format!("{}\n", serde_json::to_string_pretty(&out)?),
    )?;
    eprintln!("wrote {}", args.out.display());
    Ok(())
}
