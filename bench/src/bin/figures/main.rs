//! Measures the headline figures of docsuggest in one run and writes them as JSON: judge
//! latency, store reads, the write path, the existence filter, the target ratios and the
//! recompute throughput.
//!
//! `cargo run --release -p docsuggest-bench --bin figures [-- --out PATH]` (default
//! `bench/results.json`). Prints the same figures as Markdown tables on stdout.
//!
//! Here, the command line and the run; `backends`, the per-store figures; `headline`, the
//! interleaved headline cells, and `ratios`, the target ratios judged from them; `print`, the
//! Markdown tables.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod backends;
mod headline;
mod print;
mod ratios;

use docsuggest_bench::fill;
use docsuggest_bench::measure::Budget;
use docsuggest_bench::recompute;
use docsuggest_bench::report::{self, Machine, Ratio};
use docsuggest_bench::rig::Result;
use headline::{HeadlineFigure, SustainedHeadline, headline_json};
use print::{print_headline, print_markdown, print_recompute};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const ROWS: [u64; 2] = [1_000, 1_000_000];
const SMALL: u64 = ROWS[0];
const LARGE: u64 = ROWS[1];
const SUSTAIN: Duration = Duration::from_millis(1_500);
/// Random keys drawn for the random-set reads.
const RANDOM_KEYS: usize = 65_536;

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

/// The interleaved headline and the target ratios judged from its cells.
fn headline() -> Result<(Vec<HeadlineFigure>, SustainedHeadline, Vec<Ratio>)> {
    let (cells, figures, sustained) = headline::headline()?;
    let ratios = ratios::target_ratios(&cells, &sustained)?;
    Ok((figures, sustained, ratios))
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
    let figures = backends::measure_all()?;
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
