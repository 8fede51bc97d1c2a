//! Judge latency: (non-matching, noted, gated silence) × (memory, redb, sqlite) ×
//! (10^3, 10^6 rate rows, hot set) × (naive OS probe, caching probe).
//!
//! `cargo bench -p docsuggest-bench --bench judge`. See `bench/README.md` for what each call
//! does and why a noted call is measured through the dedupe suppression.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use docsuggest_bench::probe::ProbeMode;
use docsuggest_bench::rig::{Backend, Rig, Scenario};
use docsuggest_schema::Durability;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Times `iters` calls of a prepared scenario, its untimed step excluded.
fn timed_calls(rig: &mut Rig, scenario: Scenario, iters: u64) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        rig.before(scenario);
        let start = Instant::now();
        let verdict = rig.call(scenario).expect("a judged call");
        total += start.elapsed();
        black_box(verdict);
    }
    total
}

fn judge(c: &mut Criterion) {
    for rows in [1_000u64, 1_000_000] {
        for &backend in Backend::COMPARED {
            let mut rig = Rig::new(backend, rows).expect("a filled store");
            let mut group = c.benchmark_group(format!("judge/{}/{rows}", backend.name()));
            for scenario in Scenario::JUDGE {
                for probe in ProbeMode::ALL {
                    rig.prepare(scenario, probe, Durability::Group)
                        .expect("the scenario's steady state");
                    let id = BenchmarkId::new(scenario.name(), probe.name());
                    group.bench_function(id, |b| {
                        b.iter_custom(|iters| timed_calls(&mut rig, scenario, iters))
                    });
                }
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = judge
}
criterion_main!(benches);
