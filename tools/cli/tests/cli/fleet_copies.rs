//! Copies of a store file in a fleet: a store copied to another machine (a cloned image, a
//! synced home directory) and an older copy restored over a store go on learning under one
//! store id; the merge counts what a copy shares with its original once and what each
//! learned apart in full, and each machine's import drops only its own exported entries.

use crate::backtest::small_history;
use crate::common::Env;
use crate::fleet::{history, merge, parquet_export, path, rows, session};
use docsuggest_fleet::seed::read_rates;
use docsuggest_schema::{RateEvent, RateKey, RateMove};
use docsuggest_store::{RedbStore, StoreOptions};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A history entry's identity across copies (run, resolution number) and its moves.
type Entries = BTreeMap<(u64, u64), Vec<RateMove>>;

fn entries(store: &Path) -> Entries {
    let lineage = RedbStore::open(StoreOptions::new(store))
        .expect("opens")
        .lineage()
        .expect("lineage");
    history(store)
        .into_iter()
        .map(|e| {
            (
                (lineage.run_of(e.resolution_seq), e.resolution_seq),
                e.moves,
            )
        })
        .collect()
}

/// Per key, (accepts, rejects, shadow hits, shadow misses) of every observation once.
type Counts = BTreeMap<RateKey, [u64; 4]>;

fn counts<'a>(entries: impl IntoIterator<Item = &'a Vec<RateMove>>) -> Counts {
    let mut out = Counts::new();
    for mv in entries.into_iter().flatten() {
        let slot = match mv.event {
            RateEvent::Accept => 0,
            RateEvent::Reject => 1,
            RateEvent::ShadowHit => 2,
            RateEvent::ShadowMiss => 3,
        };
        out.entry(mv.key.clone()).or_default()[slot] += 1;
    }
    out
}

fn merged_counts(file: &Path) -> Counts {
    read_rates(file)
        .expect("the merge reads")
        .rows
        .into_iter()
        .map(|(key, r)| (key, [r.accepts, r.rejects, r.shadow_hits, r.shadow_misses]))
        .filter(|(_, c)| c.iter().any(|&n| n > 0))
        .collect()
}

fn learn(env: &Env, clone: &Path, store: &Path, agent: &str, rounds: usize, every: usize) {
    env.ok(
        &["serve", "--store", path(store)],
        session(clone, agent, rounds, every).as_bytes(),
    );
}

fn merge_ok(env: &Env, dirs: &[&Path], out: &Path) -> Value {
    let run = merge(env, dirs, out);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut args = vec!["fleet", "merge", "--json"];
    args.extend(dirs.iter().map(|d| path(d)));
    args.extend(["--out", path(out)]);
    serde_json::from_str(&env.ok(&args, b"")).expect("a JSON report")
}

#[test]
fn a_store_copied_to_another_machine_counts_what_it_shares_once_and_what_it_learned_in_full() {
    let env = Env::new();
    let (clone_a, clone_b) = (env.home().join("a/repo"), env.home().join("b/repo"));
    small_history(&clone_a);
    small_history(&clone_b);
    let (store_a, store_b) = (env.home().join("a.redb"), env.home().join("b.redb"));
    let (out_a, out_b) = (env.home().join("exports/a"), env.home().join("exports/b"));

    learn(&env, &clone_a, &store_a, "agent-a", 8, 2);
    parquet_export(&env, &store_a, &out_a);
    // Learned on and not exported, then the file is copied to machine b.
    learn(&env, &clone_a, &store_a, "agent-a", 4, 1);
    std::fs::copy(&store_a, &store_b).expect("copy");
    // Both go on, numbering their entries from one counter.
    learn(&env, &clone_a, &store_a, "agent-a", 6, 3);
    learn(&env, &clone_b, &store_b, "agent-b", 7, 1);
    let (a, b) = (entries(&store_a), entries(&store_b));
    let shared: BTreeSet<_> = a.keys().filter(|k| b.get(k) == a.get(k)).collect();
    assert!(!shared.is_empty(), "the copy shares the entries before it");
    let seqs = |e: &Entries| -> BTreeSet<u64> { e.keys().map(|k| k.1).collect() };
    assert!(
        seqs(&a).intersection(&seqs(&b)).count() > shared.len(),
        "both numbered new entries alike"
    );
    let id_a = parquet_export(&env, &store_a, &out_a)["store_id"].clone();
    let id_b = parquet_export(&env, &store_b, &out_b)["store_id"].clone();
    assert_eq!(id_a, id_b, "one store id on both machines");

    let merged = env.home().join("fleet.parquet");
    let report = merge_ok(&env, &[&env.home().join("exports")], &merged);
    assert_eq!(report["stores"], 1, "{report}");
    let union: Entries = a.clone().into_iter().chain(b.clone()).collect();
    let moves: usize = union.values().map(Vec::len).sum();
    assert_eq!(report["moves"], moves, "every observation once: {report}");
    assert_eq!(merged_counts(&merged), counts(union.values()));

    // Each machine imports: its own exported entries are the fleet's, nothing else goes.
    for store in [&store_a, &store_b] {
        env.ok(
            &["import", "--rates", path(&merged), "--store", path(store)],
            b"",
        );
        assert!(
            entries(store).is_empty(),
            "all of it was exported and merged"
        );
        env.ok(&["check", "--store", path(store)], b"");
        let live: Counts = rows(store)
            .into_iter()
            .map(|(key, r)| (key, [r.accepts, r.rejects, r.shadow_hits, r.shadow_misses]))
            .filter(|(_, c)| c.iter().any(|&n| n > 0))
            .collect();
        assert_eq!(live, counts(union.values()), "the fleet's counts, once");
    }
}

#[test]
fn an_older_copy_restored_over_a_store_exports_beside_its_original_and_loses_nothing() {
    let env = Env::new();
    let clone = env.home().join("repo");
    small_history(&clone);
    let store = env.home().join("s.redb");
    let backup = env.home().join("s.redb.backup");
    let out = env.home().join("exports/this-machine");

    learn(&env, &clone, &store, "agent", 6, 2);
    parquet_export(&env, &store, &out);
    std::fs::copy(&store, &backup).expect("back up");
    learn(&env, &clone, &store, "agent", 8, 1);
    parquet_export(&env, &store, &out);
    let original = entries(&store);

    // Restored in place (the same file, the same machine), it numbers on from the backup.
    std::fs::copy(&backup, &store).expect("restore");
    learn(&env, &clone, &store, "agent", 5, 3);
    parquet_export(&env, &store, &out);
    let restored = entries(&store);
    let seqs = |e: &Entries| -> BTreeSet<u64> { e.keys().map(|k| k.1).collect() };
    let renumbered: BTreeSet<u64> = seqs(&original)
        .intersection(&seqs(&restored))
        .copied()
        .filter(|s| {
            original
                .keys()
                .any(|k| k.1 == *s && !restored.contains_key(k))
        })
        .collect();
    assert!(!renumbered.is_empty(), "the restored store reuses numbers");

    let merged = env.home().join("fleet.parquet");
    let report = merge_ok(&env, &[&env.home().join("exports")], &merged);
    let union: Entries = original.into_iter().chain(restored).collect();
    let moves: usize = union.values().map(Vec::len).sum();
    assert_eq!(report["moves"], moves, "every observation once: {report}");
    assert_eq!(merged_counts(&merged), counts(union.values()));
}
