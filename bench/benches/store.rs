//! Store reads alone (one snapshot and the five reads of a Plan call, hot and random key
//! sets) on each store at 10^3 and 10^6 rows, and the existence filter alone with each probe.
//!
//! `cargo bench -p docsuggest-bench --bench store`.

/// The allocator of every docsuggest binary (see `Cargo.toml`: glibc's arenas make a parallel
/// recompute trim and lock on every page it reads).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use docsuggest_bench::fill;
use docsuggest_bench::fixture::{PLAN, Workspace};
use docsuggest_bench::measure::{PLAN_READS, plan_reads};
use docsuggest_bench::rig::{Backend, Rig};
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_engine::filter::Bases;
use docsuggest_engine::probe::{FileProbe, OsProbe};
use docsuggest_engine::probe_cache::CachingProbe;
use docsuggest_schema::RateKey;
use std::hint::black_box;
use std::time::Duration;

fn reads(c: &mut Criterion) {
    for rows in [1_000u64, 1_000_000] {
        for &backend in Backend::COMPARED {
            let rig = Rig::new(backend, rows).expect("a filled store");
            let store = rig.engine().store();
            let hot = plan_reads(rig.workspace_key());
            let random = fill::random_keys(rows, 65_536);
            let mut group = c.benchmark_group(format!("reads/{}/{rows}", backend.name()));
            for (name, keys) in [("hot", &hot), ("random", &random)] {
                let mut at = 0;
                let id = format!("snapshot+{PLAN_READS}");
                group.bench_function(BenchmarkId::new(id, name), |b| {
                    b.iter(|| {
                        let snapshot = store.snapshot().expect("a snapshot");
                        for i in 0..PLAN_READS {
                            let key: &RateKey = &keys[(at + i) % keys.len()];
                            black_box(snapshot.row(key).expect("a read"));
                        }
                        at = (at + PLAN_READS) % keys.len();
                    })
                });
            }
            group.finish();
        }
    }
}

fn existence(c: &mut Criterion) {
    let workspace = Workspace::create().expect("the sample workspace");
    let pack = CompiledPack::builtin();
    let plan = pack
        .families
        .iter()
        .find(|f| f.name == "Plan")
        .expect("a Plan family");
    let root = workspace.root();
    let path = root.join(PLAN);
    let caching = CachingProbe::new();
    let mut group = c.benchmark_group("existence/plan");
    for (name, probe) in [("os", &OsProbe as &dyn FileProbe), ("caching", &caching)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                probe.begin_call();
                let bases = Bases::find(root, &path, probe);
                black_box(
                    plan.companions
                        .iter()
                        .filter(|c| bases.keeps(c, probe))
                        .count(),
                )
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(50)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = reads, existence
}
criterion_main!(benches);
