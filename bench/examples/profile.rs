//! Runs one scenario in a loop, for a profiler or a system-call tracer:
//! `cargo run --release -p docsuggest-bench --example profile -- redb noted caching 10000`
//! then, for instance, `strace -c -f target/release/examples/profile redb noted caching 1000`.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use docsuggest_bench::probe::ProbeMode;
use docsuggest_bench::rig::{Backend, Result, Rig, Scenario};
use docsuggest_schema::Durability;
use std::time::Instant;

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: profile memory|redb|sqlite non-matching|noted|silence|recording \
                 os|caching|frozen ITERATIONS";
    let [backend, scenario, probe, iterations] = args.as_slice() else {
        return Err(usage.into());
    };
    let backend = match backend.as_str() {
        "memory" => Backend::Memory,
        "redb" => Backend::Redb,
        "sqlite" => Backend::Sqlite,
        _ => return Err(usage.into()),
    };
    let scenario = match scenario.as_str() {
        "non-matching" => Scenario::NonMatching,
        "noted" => Scenario::Noted,
        "silence" => Scenario::Silence,
        "recording" => Scenario::Recording,
        _ => return Err(usage.into()),
    };
    let probe = match probe.as_str() {
        "os" => ProbeMode::Os,
        "caching" => ProbeMode::Caching,
        "frozen" => ProbeMode::Frozen,
        _ => return Err(usage.into()),
    };
    let iterations: u64 = iterations.parse()?;
    let mut rig = Rig::new(backend, 1_000)?;
    rig.prepare(scenario, probe, Durability::Group)?;
    let start = Instant::now();
    for _ in 0..iterations {
        rig.before(scenario);
        rig.call(scenario)?;
    }
    let per_call = start.elapsed().as_secs_f64() * 1e6 / iterations as f64;
    eprintln!("{iterations} calls, {per_call:.2} µs per call (untimed steps included)");
    Ok(())
}
