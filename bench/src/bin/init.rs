//! `docsuggest init` (mining a pack from the history) over synthetic histories: its wall time,
//! commits per second and peak memory, next to `backtest` on the same history (the target: a
//! 10,000-commit history mined within 10 s and 500 MiB on 2 cores).
//!
//! `cargo run --release -p docsuggest-bench --bin init [-- --sizes 10000 --out PATH]` builds
//! each repository with gix in a scratch directory (not timed), then runs each measurement in
//! a child process of its own (this binary again, with `--child`), so each peak resident size
//! (`VmHWM`) is that measurement's alone:
//!
//! - `init`: what `docsuggest init --print` does — read the newest first-parent commits and
//!   mine them;
//! - `init-report`: what `docsuggest init` does by default — the same, then the report's
//!   backtest of a pack mined from the oldest 3/4 on the newest 1/4;
//! - `backtest`: `docsuggest backtest` with the repository's pack.
//!
//! Writes `bench/init.json` and prints a Markdown table.

/// The allocator of every docsuggest binary.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use docsuggest_bench::history;
use docsuggest_bench::report::{self, Machine};
use docsuggest_history::backtest::{self, DEFAULT_MAX_FILES, Options};
use docsuggest_history::init::{InitOptions, init};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime, UNIX_EPOCH};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const DEFAULT_SIZES: [usize; 3] = [1_000, 5_000, 10_000];
const SEED: u64 = 17;
// `init-report` writes the mined pack into the work tree: last, so the others see the history's.
const MEASUREMENTS: [&str; 3] = ["backtest", "init", "init-report"];

/// The peak resident size of this process, in MiB (`VmHWM`; `None` off Linux).
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// One measurement, in this (child) process: prints `{"seconds", "peak_mib"}`.
fn child(what: &str, repo: &Path) -> Result<()> {
    let started = Instant::now();
    match what {
        "init" | "init-report" => {
            let report = init(&InitOptions {
                repo: repo.to_path_buf(),
                rev: None,
                print: what == "init",
                force: true,
                no_backtest: false,
                max_commits: docsuggest_history::init::MAX_MINED_COMMITS,
                full_backtest: false,
            })?;
            if report.mined.families.is_empty() {
                return Err("nothing mined".into());
            }
        }
        "backtest" => {
            backtest::backtest(&Options {
                repo: repo.to_path_buf(),
                max_files: DEFAULT_MAX_FILES,
                ..Options::default()
            })?;
        }
        _ => return Err(format!("unknown measurement {what}").into()),
    }
    let seconds = started.elapsed().as_secs_f64();
    println!("{}", json!({"seconds": seconds, "peak_mib": peak_mib()}));
    Ok(())
}

fn measure(what: &str, repo: &Path) -> Result<Value> {
    let exe = std::env::current_exe()?;
    let out = std::process::Command::new(exe)
        .args(["--child", what])
        .arg(repo)
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

fn main() -> Result<()> {
    let mut argv = std::env::args().skip(1);
    let mut sizes = DEFAULT_SIZES.to_vec();
    let mut out = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("init.json");
    let usage = "usage: init [--sizes N,N,...] [--out PATH]";
    while let Some(flag) = argv.next() {
        let value = argv.next().ok_or(usage)?;
        match flag.as_str() {
            "--child" => {
                let repo = argv.next().ok_or(usage)?;
                return child(&value, Path::new(&repo));
            }
            "--sizes" => {
                sizes = value
                    .split(',')
                    .map(|n| n.trim().parse::<usize>())
                    .collect::<std::result::Result<_, _>>()
                    .map_err(|e| format!("--sizes {value}: {e}"))?
            }
            "--out" => out = PathBuf::from(value),
            _ => return Err(usage.into()),
        }
    }
    let machine = Machine::probe();
    let date = report::utc_timestamp(SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs());
    println!(
        "| commits | measurement | seconds | commits/s | peak MiB | ÷ backtest (time) | ÷ backtest (memory) | load |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---|");
    let mut rows = Vec::new();
    for &n in &sizes {
        let dir = tempfile::tempdir()?;
        let repo = dir.path().join("repo");
        let built = history::build(&repo, n, SEED)?;
        let mut figures = serde_json::Map::new();
        for what in MEASUREMENTS {
            let load = report::load_average();
            let mut m = measure(what, &repo)?;
            m["load_before"] = json!(load);
            figures.insert(what.to_string(), m);
        }
        let get = |what: &str, field: &str| figures[what][field].as_f64();
        for what in MEASUREMENTS {
            let seconds = get(what, "seconds").unwrap_or(f64::NAN);
            let ratio = |field: &str| {
                get(what, field)
                    .zip(get("backtest", field))
                    .map_or("-".to_string(), |(a, b)| format!("{:.2}", a / b))
            };
            println!(
                "| {} | {what} | {seconds:.2} | {:.0} | {} | {} | {} | {} |",
                built.commits,
                built.commits as f64 / seconds,
                get(what, "peak_mib").map_or("-".into(), |m| format!("{m:.0}")),
                ratio("seconds"),
                ratio("peak_mib"),
                figures[what]["load_before"],
            );
        }
        rows.push(json!({"commits": built.commits, "tip_paths": built.tip_paths, "runs": figures}));
    }
    let doc = json!({"date": date, "machine": machine, "sizes": rows});
    std::fs::write(&out, serde_json::to_string_pretty(&doc)? + "\n")?;
    println!("\nwritten to {}", out.display());
    Ok(())
}
