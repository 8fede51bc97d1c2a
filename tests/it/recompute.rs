//! Recompute over a redb store after a long random workload of the default (evidence) model:
//! zero drift read under `step` and under `evidence`, parallel equal to sequential, and a
//! damaged live row found and repaired.

use docsuggest_engine::Engine;
use docsuggest_engine::probe::OsProbe;
use docsuggest_schema::{DecisionStore, RateModel, StoreContents};
use docsuggest_store::recompute::{RecomputeOptions, recompute};
use docsuggest_store::{RedbStore, StoreOptions, check_fold};
use docsuggest_tests::{Fixture, config};
use proptest::prelude::*;
use serde_json::json;
use std::sync::atomic::AtomicU64;

const PATHS: &[&str] = &[
    "Documentation/Plans/SEARCH.md",
    "Documentation/INDEX.md",
    "Documentation/ARCHIVE-STYLE.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
    "packages/core/SCHEME.md",
    "packages/core/package.json",
    "packages/web/SCHEME.md",
    "README.md",
    "src/lib.rs",
];

fn run_workload(store_path: &std::path::Path, ops: &[(u8, u8)]) {
    let cfg = config(json!({"threshold": 0.5, "cooldownCalls": 1, "ringCapacity": 32}));
    let options = StoreOptions::from_config(store_path, &cfg);
    let store = RedbStore::open(options).expect("open the store");
    let mut engine = Engine::new(cfg, Box::new(store), OsProbe);
    let fixture = Fixture::poc();
    for (agent, pick) in ops {
        if *pick == u8::MAX {
            engine.turn(&format!("a{agent}"));
            continue;
        }
        let path = PATHS[usize::from(*pick) % PATHS.len()];
        engine
            .judge(&fixture.call(&format!("a{agent}"), "read", path))
            .expect("a valid call");
    }
    engine.close().expect("close");
}

fn drift(
    store: &RedbStore,
    model: RateModel,
    parallel: bool,
) -> docsuggest_store::recompute::Recomputed {
    let options = RecomputeOptions { model, parallel };
    recompute(store, options, &AtomicU64::new(0)).expect("recompute")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4, ..ProptestConfig::default() })]

    #[test]
    fn a_long_random_workload_recomputes_with_zero_drift(
        ops in prop::collection::vec((0u8..3, prop_oneof![9 => 0u8..10, 1 => Just(u8::MAX)]), 400..800),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.redb");
        run_workload(&path, &ops);
        let store = RedbStore::open(StoreOptions::new(&path)).expect("reopen");
        prop_assert!(store.ring_len().expect("ring") <= 32);
        let shadowed = store
            .history()
            .expect("history")
            .iter()
            .flat_map(|e| &e.moves)
            .any(|m| m.event == docsuggest_schema::RateEvent::ShadowMiss);
        prop_assert!(shadowed, "the workload gathers shadow evidence");
        for model in [RateModel::Step, RateModel::Evidence] {
            let parallel = drift(&store, model, true);
            prop_assert_eq!(parallel.report.rows_differing, 0, "{:?}", parallel.report);
            prop_assert!(parallel.report.rows_compared > 0);
            prop_assert_eq!(&parallel, &drift(&store, model, false));
        }
    }
}

#[test]
fn a_damaged_live_row_is_found_and_repaired_by_writing_the_recompute() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let ops: Vec<(u8, u8)> = (0..600u32)
        .map(|i| ((i % 3) as u8, ((i * 7 + i / 5) % 10) as u8))
        .collect();
    run_workload(&path, &ops);
    let mut store = RedbStore::open(StoreOptions::new(&path)).expect("reopen");
    let mut rows = store.rate_rows().expect("rows");
    assert!(rows.len() > 3, "the workload learned something: {rows:?}");
    let damaged_key = rows[1].0.clone();
    rows[1].1.step = 0.99;
    store.replace_rates(&rows).expect("damage one row");
    let found = drift(&store, RateModel::Step, true);
    assert_eq!(found.report.rows_differing, 1);
    assert_eq!(found.report.differing[0].key, damaged_key);
    assert!(found.report.max_difference > 0.0);
    assert!(!check_fold(&store).expect("fold check").is_clean());
    store
        .replace_rates(&found.rows)
        .expect("write the recompute");
    assert_eq!(
        drift(&store, RateModel::Step, false).report.rows_differing,
        0
    );
    assert!(check_fold(&store).expect("fold check").is_clean());
    assert_eq!(store.kind(), docsuggest_schema::StoreKind::Redb);
}
