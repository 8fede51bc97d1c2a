use super::{MergeOptions, merge};
use crate::export::{Ran, write_export};
use crate::seed::read_rates;
use docsuggest_schema::{
    Decision, HistoryEntry, Outcome, RateEvent, RateKey, RateModel, RateMove, RateRow, StoreKind,
    Table,
};
use std::collections::BTreeMap;
use std::path::Path;

/// Entries per store.
const ENTRIES: u64 = 40_000;
/// The tight memory limit.
const LIMIT: usize = 48 << 20;

/// `entries` resolutions of one store: notes in two workspaces, each moving three of a
/// family's rows one of four ways, so every key sees every event in a store-specific order.
fn history(store: u64, entries: u64) -> Vec<HistoryEntry> {
    (1..=entries)
        .map(|seq| {
            let n = seq * 7 + store * 13;
            let workspace = format!("ws-{}", n % 2);
            let family = format!("F{}", n % 3);
            let moves = (0..3)
                .map(|j| RateMove {
                    key: RateKey::companion(&workspace, &family, &format!("c{}", (n + j) % 4)),
                    event: match (n / 3 + j) % 4 {
                        0 => RateEvent::Accept,
                        1 => RateEvent::Reject,
                        2 => RateEvent::ShadowHit,
                        _ => RateEvent::ShadowMiss,
                    },
                    step: ((n + j) % 5) as f64 * 0.05 - 0.1,
                })
                .collect();
            HistoryEntry {
                resolution_seq: seq,
                decision: Decision {
                    seq,
                    workspace,
                    agent: "a".into(),
                    family,
                    kappa: 0.8,
                    companions: Vec::new(),
                    weights: Table::DEFAULT_WEIGHTS,
                    enabled: Vec::new(),
                    outcome: Outcome::Rejected,
                    silence: None,
                    accepted: None,
                    store: StoreKind::Redb,
                },
                moves,
            }
        })
        .collect()
}

fn export(dir: &Path, id: &str, entries: &[HistoryEntry]) {
    write_export(dir, id, &Ran::all_in(entries, 1)).expect("export");
}

#[test]
fn a_merge_past_its_memory_limit_spills_and_gives_the_same_exact_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let stores: Vec<(String, Vec<HistoryEntry>)> = (1..=3)
        .map(|s| (format!("{s:016x}"), history(s, ENTRIES)))
        .collect();
    for (id, entries) in &stores {
        export(&dir.path().join("exports").join(id), id, entries);
    }
    // The first store's export given twice counts once.
    export(&dir.path().join("again"), &stores[0].0, &stores[0].1);

    // What one store that saw every history, store after store, would hold.
    let mut expected: BTreeMap<RateKey, RateRow> = BTreeMap::new();
    for (_, entries) in &stores {
        for mv in entries.iter().flat_map(|e| &e.moves) {
            let row = expected.entry(mv.key.clone()).or_default();
            *row = row.apply(mv);
        }
    }

    let run = |name: &str, memory_limit: usize| {
        let out = dir.path().join(name);
        let merged = merge(&MergeOptions {
            inputs: vec![dir.path().join("exports"), dir.path().join("again")],
            out: out.clone(),
            model: RateModel::Evidence,
            memory_limit,
            state: None,
        })
        .expect("merge");
        assert_eq!(merged.moves, 3 * ENTRIES * 3);
        assert_eq!(merged.stores, 3);
        (
            std::fs::read(out).expect("rates file"),
            merged.spilled.spills,
        )
    };
    let (roomy, none) = run("roomy.parquet", 1 << 30);
    assert_eq!(none, 0);
    // 120 000 entries' 360 000 moves (some 36 MB as Arrow arrays) do not sort in 48 MiB: the
    // sort spills.
    let (tight, spills) = run("tight.parquet", LIMIT);
    assert!(spills > 0);
    assert_eq!(roomy, tight, "the same bytes either way");

    let rates = read_rates(&dir.path().join("roomy.parquet")).expect("rates");
    assert_eq!(rates.rows.len(), expected.len());
    for ((key, row), (want_key, want)) in rates.rows.iter().zip(&expected) {
        assert_eq!(key, want_key);
        close(row, want, key);
    }
    assert_eq!(
        rates
            .held
            .values()
            .flat_map(|runs| runs.values().copied())
            .collect::<Vec<_>>(),
        vec![ENTRIES as i64; 3]
    );
}

/// A merged row against one store's fold of the same moves, run after run: the same counts,
/// the recent evidence and the step to rounding (each run's partial is combined, not replayed).
fn close(row: &RateRow, want: &RateRow, key: &RateKey) {
    assert_eq!(
        (row.accepts, row.rejects, row.shadow_hits, row.shadow_misses),
        (
            want.accepts,
            want.rejects,
            want.shadow_hits,
            want.shadow_misses
        ),
        "{key:?}"
    );
    for (a, b) in [
        (row.step, want.step),
        (row.recent_hits, want.recent_hits),
        (row.recent_misses, want.recent_misses),
    ] {
        assert!((a - b).abs() < 1e-9, "{key:?}: {row:?} against {want:?}");
    }
}

/// Merges `dir` into `dir/rates.parquet` with room to spare.
fn merge_dir(dir: &Path) -> Result<super::Merged, crate::FleetError> {
    merge(&MergeOptions {
        inputs: vec![dir.join("exports")],
        out: dir.join("rates.parquet"),
        model: RateModel::Evidence,
        memory_limit: super::DEFAULT_MEMORY_LIMIT,
        state: None,
    })
}

#[test]
fn a_copy_of_a_store_counts_what_it_shares_once_and_what_it_learned_apart_in_full() {
    let dir = tempfile::tempdir().expect("tempdir");
    let id = format!("{:016x}", 7);
    // Entries 1..=20 resolved before the copy (run 1); then each went on from 21 under a run
    // of its own, with different moves.
    let shared = history(1, 20);
    let original: Vec<HistoryEntry> = history(1, 30).split_off(20);
    let copied: Vec<HistoryEntry> = history(2, 30).split_off(20);
    let exports = dir.path().join("exports");
    for (machine, run, tail) in [("a", 11, &original), ("b", 12, &copied)] {
        let mut ran = Ran::all_in(&shared, 1);
        ran.extend(Ran::all_in(tail, run));
        write_export(&exports.join(machine), &id, &ran).expect("export");
    }
    let merged = merge_dir(dir.path()).expect("merge");
    assert_eq!((merged.stores, merged.runs), (1, 3));
    let moves: usize = [&shared, &original, &copied]
        .iter()
        .map(|entries| entries.iter().map(|e| e.moves.len()).sum::<usize>())
        .sum();
    assert_eq!(merged.moves, moves as u64, "every observation once");
    let rates = read_rates(&dir.path().join("rates.parquet")).expect("rates");
    let runs = &rates.held[&id];
    let marks: Vec<(String, i64)> = runs.iter().map(|(r, n)| (r.clone(), *n)).collect();
    assert_eq!(
        marks,
        [
            (format!("{:016x}", 1), 20),
            (format!("{:016x}", 11), 30),
            (format!("{:016x}", 12), 30)
        ]
    );
}

#[test]
fn two_histories_under_one_entry_identity_refuse_the_merge() {
    let dir = tempfile::tempdir().expect("tempdir");
    let id = format!("{:016x}", 7);
    let exports = dir.path().join("exports");
    // One run, numbered alike, moving the same rows differently: a machine cloned while
    // running.
    for (machine, nudge) in [("a", 0.0), ("b", 0.01)] {
        let mut entries = history(1, 10);
        for mv in entries.iter_mut().flat_map(|e| &mut e.moves) {
            mv.step += nudge;
        }
        write_export(&exports.join(machine), &id, &Ran::all_in(&entries, 5)).expect("export");
    }
    let error = merge_dir(dir.path()).expect_err("refused");
    assert!(
        matches!(error, crate::FleetError::Diverged { ref store, .. } if *store == id),
        "{error}"
    );
    assert!(!dir.path().join("rates.parquet").exists());
}

#[test]
fn more_files_than_one_query_reads_merge_in_levels_into_the_same_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exports = dir.path().join("exports");
    // Three stores, each exporting its history in 30 parts of two workspaces' files: 180
    // moves files, three groups of one query's files, and a part given twice in a group of
    // its own.
    let mut expected: BTreeMap<RateKey, RateRow> = BTreeMap::new();
    let mut files = 0;
    for s in 1..=3 {
        let id = format!("{s:016x}");
        let entries = history(s, 600);
        for (part, chunk) in entries.chunks(20).enumerate() {
            let out = exports.join(format!("{id}/{part}"));
            files += write_export(&out, &id, &Ran::all_in(chunk, 1))
                .expect("export")
                .len()
                / 2;
        }
        for mv in entries.iter().flat_map(|e| &e.moves) {
            let row = expected.entry(mv.key.clone()).or_default();
            *row = row.apply(mv);
        }
    }
    assert!(files > 2 * super::query::FILES_PER_QUERY, "{files} files");
    let again = history(2, 600);
    write_export(
        &exports.join("zz-again"),
        &format!("{:016x}", 2),
        &Ran::all_in(&again[100..120], 1),
    )
    .expect("export");
    let merged = merge_dir(dir.path()).expect("merge");
    assert_eq!(merged.files, files + 2);
    assert_eq!(
        merged.moves,
        3 * 600 * 3,
        "the part given twice counts once"
    );
    let rates = read_rates(&dir.path().join("rates.parquet")).expect("rates");
    assert_eq!(rates.rows.len(), expected.len());
    for ((key, row), (want_key, want)) in rates.rows.iter().zip(&expected) {
        assert_eq!(key, want_key);
        close(row, want, key);
    }
}

#[test]
fn a_merge_by_the_day_makes_the_bytes_of_a_merge_of_everything_and_refuses_a_late_day() {
    let dir = tempfile::tempdir().expect("tempdir");
    let exports = dir.path().join("exports");
    // Three stores' histories, each exported over four days (a part given twice on day 3).
    for s in 1..=3u64 {
        let id = format!("{s:016x}");
        let entries = history(s, 400);
        for (day, part) in entries.chunks(100).enumerate() {
            let out = exports.join(format!("day{day}/{id}"));
            write_export(&out, &id, &Ran::all_in(part, 10 + s)).expect("export");
        }
        let again = exports.join(format!("day3/again-{id}"));
        write_export(&again, &id, &Ran::all_in(&entries[100..200], 10 + s)).expect("export");
    }
    let full = dir.path().join("full.parquet");
    let everything = merge(&MergeOptions {
        inputs: vec![exports.clone()],
        out: full.clone(),
        model: RateModel::Evidence,
        memory_limit: super::DEFAULT_MEMORY_LIMIT,
        state: None,
    })
    .expect("merge");
    let state = dir.path().join("state.parquet");
    let daily = dir.path().join("daily.parquet");
    let by_day = |day: usize| {
        merge(&MergeOptions {
            inputs: vec![exports.join(format!("day{day}"))],
            out: daily.clone(),
            model: RateModel::Evidence,
            memory_limit: super::DEFAULT_MEMORY_LIMIT,
            state: Some(state.clone()),
        })
    };
    let mut moves = 0;
    for day in 0..4 {
        let merged = by_day(day).expect("a day's merge");
        moves += merged.moves;
        if day == 3 {
            // The part given again was merged on day 1: left unread.
            assert_eq!(merged.read + 6, merged.files, "{merged:?}");
        }
    }
    assert_eq!(moves, everything.moves, "each move folded once");
    assert_eq!(
        std::fs::read(&daily).expect("rates"),
        std::fs::read(&full).expect("rates"),
        "the same bytes"
    );
    // Day 2 again changes nothing; a day that missed its turn is refused, nothing written.
    assert_eq!(by_day(2).expect("merged already").moves, 0);
    std::fs::remove_file(&state).expect("remove");
    by_day(0).expect("day 0");
    by_day(2).expect("day 2, after a gap");
    let before = std::fs::read(&daily).expect("rates");
    let late = by_day(1).expect_err("day 1 comes late");
    assert!(matches!(late, crate::FleetError::Late { .. }), "{late}");
    assert_eq!(std::fs::read(&daily).expect("rates"), before);
}
