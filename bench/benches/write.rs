//! The write path at 10^3 rows: a recording call (a note recorded, one commit) and a gated
//! silence (two commits) under `group` and `immediate` durability, and sustained learning
//! cycles (two decisions and four commits each) as decisions per second.
//!
//! `cargo bench -p docsuggest-bench --bench write`.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use docsuggest_bench::probe::ProbeMode;
use docsuggest_bench::rig::{Backend, Rig, Scenario};
use docsuggest_schema::Durability;
use std::hint::black_box;
use std::time::{Duration, Instant};

fn durabilities(backend: Backend) -> Vec<(Durability, &'static str)> {
    let mut modes = vec![(Durability::Group, "group")];
    if backend.is_durable() {
        modes.push((Durability::Immediate, "immediate"));
    }
    modes
}

fn calls(c: &mut Criterion) {
    for &backend in Backend::COMPARED {
        let mut rig = Rig::new(backend, 1_000).expect("a filled store");
        let mut group = c.benchmark_group(format!("write/{}", backend.name()));
        for (durability, mode) in durabilities(backend) {
            for scenario in [Scenario::Recording, Scenario::Silence] {
                rig.prepare(scenario, ProbeMode::Caching, durability)
                    .expect("the scenario's steady state");
                let id = BenchmarkId::new(scenario.name(), mode);
                group.bench_function(id, |b| {
                    b.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            rig.before(scenario);
                            let start = Instant::now();
                            black_box(rig.call(scenario).expect("a judged call"));
                            total += start.elapsed();
                        }
                        total
                    })
                });
            }
            rig.flush().expect("a flush");
        }
        group.finish();
        // A learning cycle records two decisions: throughput is in decisions per second.
        let mut group = c.benchmark_group(format!("sustained/{}", backend.name()));
        group.throughput(Throughput::Elements(2));
        for (durability, mode) in durabilities(backend) {
            rig.prepare_cycle(ProbeMode::Caching, durability)
                .expect("learning cycles");
            group.bench_function(BenchmarkId::new("learning-cycle", mode), |b| {
                b.iter(|| black_box(rig.learning_cycle().expect("a cycle")))
            });
            rig.flush().expect("a flush");
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = calls
}
criterion_main!(benches);
