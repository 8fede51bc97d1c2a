//! Recompute throughput, in decisions per second: `recompute` over synthetic in-memory store
//! contents of 10^5 and 10^6 decisions (the fold without redb's I/O) on one core
//! (`parallel: false`, and a one-thread rayon pool), on a two-thread pool and on all cores;
//! and end to end over a redb store of 10^6 decisions filled through the public write API
//! (the store the targets are judged on).
//!
//! `cargo bench -p docsuggest-bench --bench recompute` (about 5 minutes on 2 cores, a minute
//! of it filling the redb store). Contents are built only for the benchmarks a filter
//! selects, so `cargo bench -p docsuggest-bench --bench recompute -- 'synthetic/.*/100000$'`
//! skips the 10^6 histories and the fill.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{
    BenchmarkGroup, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group,
    criterion_main, measurement::WallTime,
};
use docsuggest_bench::recompute::{Recomputer, SyntheticContents, Threads, fill_decisions};
use docsuggest_schema::Durability;
use docsuggest_store::recompute::RecomputeSource;
use docsuggest_store::{RedbStore, StoreOptions};
use std::cell::OnceCell;
use std::hint::black_box;
use std::time::Duration;

/// One benchmark per setting over contents made on first use by `make`.
fn measure<C: RecomputeSource + Sync>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    runner: &Recomputer,
    decisions: u64,
    settings: &[Threads],
    make: impl Fn() -> C,
) {
    let contents = OnceCell::new();
    group.throughput(Throughput::Elements(decisions));
    for &threads in settings {
        let id = BenchmarkId::new(threads.id(), decisions);
        group.bench_function(id, |b| {
            let contents = contents.get_or_init(&make);
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| {
                        let (out, took) = runner.run(contents, threads).expect("a recompute");
                        black_box(out);
                        took
                    })
                    .sum()
            })
        });
    }
}

fn recompute(c: &mut Criterion) {
    let runner = Recomputer::new().expect("a one-thread pool");
    let mut group = c.benchmark_group("recompute/synthetic");
    // One recompute per sample: a run takes 0.05 to 2 s.
    group.sampling_mode(SamplingMode::Flat);
    for decisions in [100_000u64, 1_000_000] {
        measure(&mut group, &runner, decisions, &Threads::ALL, || {
            SyntheticContents::new(decisions)
        });
    }
    group.finish();

    let mut group = c.benchmark_group("recompute/redb");
    group.sampling_mode(SamplingMode::Flat);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let decisions = 1_000_000;
    let settings = [Threads::Sequential, Threads::TwoThreads, Threads::AllCores];
    measure(&mut group, &runner, decisions, &settings, || {
        let mut options = StoreOptions::new(dir.path().join("s.redb"));
        options.durability = Durability::Group;
        options.ring_capacity = 1 << 20;
        let mut store = RedbStore::open(options).expect("a redb store");
        fill_decisions(&mut store, decisions).expect("a fill");
        store
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(5));
    targets = recompute
}
criterion_main!(benches);
