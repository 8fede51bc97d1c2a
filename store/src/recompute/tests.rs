use super::*;
use crate::history_read::read_moves_in;
use crate::testkit::decision;
use crate::{MemoryStore, RedbStore, StoreOptions};
use docsuggest_schema::rate::fold;
use docsuggest_schema::{
    DecisionStore, Durability, HistoryEntry, Outcome, RateEvent, RateMove, Resolution,
};
use redb::ReadableTable;
use std::sync::atomic::Ordering;

const MODELS: [RateModel; 3] = [RateModel::Step, RateModel::Beta, RateModel::Evidence];

/// Resolution `i` of an order-sensitive workload over few keys, so every chunk boundary cuts
/// through some key's moves: accepts and rejects clamp the step value at both ends, shadow
/// observations move it by ±0.0, and a key may move twice in one entry.
fn resolution(i: u64) -> Resolution {
    let r = i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40;
    let key = |c: u64| {
        let companion = if c == 0 {
            String::new()
        } else {
            format!("c{c}")
        };
        RateKey::companion(["ws", "other"][(r % 2) as usize], "Plan", &companion)
    };
    let (event, step) = match r % 7 {
        0 | 1 => (RateEvent::Accept, 0.3),
        2..=4 => (RateEvent::Reject, -0.45),
        5 => (RateEvent::ShadowHit, 0.0),
        _ => (RateEvent::ShadowMiss, -0.0),
    };
    let mut moves = vec![
        RateMove {
            key: key(r % 4),
            event,
            step,
        },
        RateMove {
            key: key(0),
            event,
            step: step / 3.0,
        },
    ];
    if r.is_multiple_of(5) {
        moves.push(RateMove {
            key: key(r % 4),
            event: RateEvent::Reject,
            step: -0.1,
        });
    }
    Resolution {
        decision_seq: 0,
        outcome: Outcome::Rejected,
        accepted: None,
        moves,
    }
}

fn workload(store: &mut dyn DecisionStore, n: u64) {
    for i in 0..n {
        let mut r = resolution(i);
        r.decision_seq = store.record_pending(decision("Plan")).expect("record");
        store.resolve(r).expect("resolve");
    }
}

/// Today's definition: `rate::fold(base, that key's moves in history order)`, key by key.
fn reference(base: &[(RateKey, RateRow)], history: &[HistoryEntry]) -> Vec<(RateKey, RateRow)> {
    let base: BTreeMap<RateKey, RateRow> = base.iter().cloned().collect();
    let keys: BTreeSet<&RateKey> = base
        .keys()
        .chain(history.iter().flat_map(|e| e.moves.iter().map(|m| &m.key)))
        .collect();
    keys.into_iter()
        .map(|key| {
            let moves = history
                .iter()
                .flat_map(|e| &e.moves)
                .filter(|m| m.key == *key);
            (key.clone(), fold(base.get(key).copied(), moves))
        })
        .collect()
}

fn same_rows(a: &[(RateKey, RateRow)], b: &[(RateKey, RateRow)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.0 == y.0 && same_bits(&x.1, &y.1))
}

/// Every model, parallel and sequential: the same rows as the reference, and no drift.
fn check_recompute(source: &(impl RecomputeSource + ?Sized), expect: &[(RateKey, RateRow)]) {
    for model in MODELS {
        for parallel in [false, true] {
            let done = AtomicU64::new(0);
            let out =
                recompute(source, RecomputeOptions { model, parallel }, &done).expect("recompute");
            assert!(
                same_rows(&out.rows, expect),
                "{model:?} parallel={parallel}"
            );
            assert_eq!(
                out.report.rows_differing, 0,
                "{model:?} parallel={parallel}"
            );
            assert_eq!(out.report.rows_compared, expect.len());
            assert_eq!(done.load(Ordering::Relaxed), expect.len() as u64);
        }
    }
}

#[test]
fn memory_store_recomputes_today_s_fold_bit_for_bit() {
    let mut store = MemoryStore::new(300);
    workload(&mut store, 1_000);
    let (base, history) = (
        store.base_rows().expect("base"),
        store.history().expect("history"),
    );
    assert_eq!(history.len(), 300);
    assert!(!base.is_empty(), "the ring evicted into base");
    let expect = reference(&base, &history);
    assert!(same_rows(&expect, &store.rate_rows().expect("live")));
    check_recompute(&store, &expect);
    check_recompute(&store as &dyn StoreContents, &expect);
}

#[test]
fn chunks_of_any_size_fold_like_one_pass() {
    let mut store = MemoryStore::new(10_000);
    workload(&mut store, 700);
    let history = store.history().expect("history");
    let base = BTreeMap::new();
    let expect = reference(&[], &history);
    for chunk in [1, 2, 3, 64, 699, 700, 5_000] {
        for parallel in [false, true] {
            let moves = HistoryMoves::from_entries_in(&history, parallel, chunk);
            assert_eq!(moves.decisions(), 700);
            let rows = moves
                .fold(&base, parallel, &AtomicU64::new(0))
                .expect("fold");
            assert!(
                same_rows(&rows, &expect),
                "chunk {chunk}, parallel={parallel}"
            );
        }
    }
    // The steps clamp, so the order of one key's moves shows in its row.
    let family = RateKey::family("ws", "Plan");
    let mut moves: Vec<&RateMove> = history
        .iter()
        .flat_map(|e| &e.moves)
        .filter(|m| m.key == family)
        .collect();
    let forward = fold(None, moves.iter().copied());
    moves.reverse();
    let backward = fold(None, moves);
    assert_ne!(forward.step, backward.step);
    // So does the recent evidence: each move ages the ones before it.
    assert_ne!(
        (
            forward.recent_hits.to_bits(),
            forward.recent_misses.to_bits()
        ),
        (
            backward.recent_hits.to_bits(),
            backward.recent_misses.to_bits()
        )
    );
    let live = store.rate_rows().expect("live");
    assert!(
        live.iter()
            .all(|(_, r)| r.recent_hits > 0.0 && r.recent_misses > 0.0)
    );
}

/// A move of key `k` (one of four, interleaved) with event `e`.
fn arbitrary_move(k: u8, e: u8) -> RateMove {
    let companion = ["", "a", "b", "c"][usize::from(k % 4)];
    let (event, step) = match e % 4 {
        0 => (RateEvent::Accept, 0.3),
        1 => (RateEvent::Reject, -0.45),
        2 => (RateEvent::ShadowHit, 0.0),
        _ => (RateEvent::ShadowMiss, -0.0),
    };
    RateMove {
        key: RateKey::companion("ws", "Plan", companion),
        event,
        step,
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig {
        cases: 256,
        ..proptest::prelude::ProptestConfig::default()
    })]

    /// Interleaved keys, base rows with recent evidence of their own, chunks of any size:
    /// every recomputed row — its recent evidence included — is the sequential fold's, bit
    /// for bit, parallel or not.
    #[test]
    fn interleaved_keys_recompute_their_recent_evidence_bit_for_bit(
        entries in proptest::collection::vec(
            proptest::collection::vec((0u8..4, 0u8..4), 0..4),
            0..120,
        ),
        base in proptest::collection::vec((0u8..4, 0u32..40, 0u32..40), 0..4),
        chunk in 1usize..16,
    ) {
        let history: Vec<HistoryEntry> = entries
            .iter()
            .enumerate()
            .map(|(i, moves)| HistoryEntry {
                resolution_seq: i as u64 + 1,
                decision: decision("Plan"),
                moves: moves.iter().map(|&(k, e)| arbitrary_move(k, e)).collect(),
            })
            .collect();
        let base: BTreeMap<RateKey, RateRow> = base
            .iter()
            .map(|&(k, hits, misses)| {
                let row = RateRow {
                    accepts: u64::from(hits),
                    rejects: u64::from(misses),
                    recent_hits: f64::from(hits) * 0.37,
                    recent_misses: f64::from(misses) * 0.61,
                    ..RateRow::default()
                };
                (arbitrary_move(k, 0).key, row)
            })
            .collect();
        let base_rows: Vec<(RateKey, RateRow)> =
            base.iter().map(|(k, r)| (k.clone(), *r)).collect();
        let expect = reference(&base_rows, &history);
        for parallel in [false, true] {
            let rows = HistoryMoves::from_entries_in(&history, parallel, chunk)
                .fold(&base, parallel, &AtomicU64::new(0))
                .expect("fold");
            proptest::prop_assert_eq!(rows.len(), expect.len());
            for ((k, got), (_, want)) in rows.iter().zip(&expect) {
                proptest::prop_assert_eq!(
                    (got.recent_hits.to_bits(), got.recent_misses.to_bits()),
                    (want.recent_hits.to_bits(), want.recent_misses.to_bits()),
                    "{:?}, chunk {}, parallel={}", k, chunk, parallel
                );
            }
            proptest::prop_assert!(same_rows(&rows, &expect));
        }
    }
}

#[test]
fn redb_store_recomputes_today_s_fold_bit_for_bit() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = StoreOptions {
        ring_capacity: 400,
        durability: Durability::Group,
        ..StoreOptions::new(dir.path().join("s.redb"))
    };
    let mut store = RedbStore::open(options).expect("open");
    workload(&mut store, 1_500);
    store.flush().expect("flush");
    let (base, history) = (
        store.base_rows().expect("base"),
        store.history().expect("history"),
    );
    assert_eq!(history.len(), 400);
    assert!(!base.is_empty(), "the ring evicted into base");
    let expect = reference(&base, &history);
    check_recompute(&store, &expect);
    check_recompute(&store.view().expect("view"), &expect);
    check_recompute(&store.reader().expect("reader"), &expect);
    // Ranges of every width over one snapshot, boundaries cutting through keys' moves.
    let view = store.view().expect("view");
    let base: BTreeMap<RateKey, RateRow> = base.into_iter().collect();
    for chunks in [1, 2, 3, 7, 64, 399, 400, 1_000] {
        let moves = read_moves_in(&view, chunks).expect("read");
        assert_eq!(moves.decisions(), 400, "{chunks} chunks");
        let rows = moves.fold(&base, true, &AtomicU64::new(0)).expect("fold");
        assert!(same_rows(&rows, &expect), "{chunks} chunks");
    }
}

#[test]
fn an_empty_store_recomputes_to_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = RedbStore::open(StoreOptions::new(dir.path().join("s.redb"))).expect("open");
    check_recompute(&store, &[]);
    check_recompute(&MemoryStore::new(4), &[]);
}

/// A redb store at `path` with `decisions` of the workload, its `moves` table then rewritten
/// by `rewrite` straight through redb (as damage or another program would), reopened.
fn rewritten_moves(
    path: &std::path::Path,
    decisions: u64,
    rewrite: impl FnOnce(&mut redb::Table<u64, &'static [u8]>),
) -> RedbStore {
    let mut store = RedbStore::open(StoreOptions::new(path)).expect("open");
    workload(&mut store, decisions);
    store.close().expect("close");
    drop(store);
    let db = redb::Database::create(path).expect("raw open");
    let txn = db.begin_write().expect("raw txn");
    {
        let mut moves = txn.open_table(crate::tables::MOVES).expect("moves");
        rewrite(&mut moves);
    }
    txn.commit().expect("raw commit");
    drop(db);
    RedbStore::open(StoreOptions::new(path)).expect("reopen")
}

#[test]
fn moves_under_another_number_are_corrupt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let store = rewritten_moves(&path, 3, |moves| {
        let moved = moves
            .get(2)
            .expect("get")
            .expect("entry 2")
            .value()
            .to_vec();
        moves.insert(3, moved.as_slice()).expect("insert");
    });
    for parallel in [false, true] {
        let options = RecomputeOptions {
            model: RateModel::Step,
            parallel,
        };
        let err = recompute(&store, options, &AtomicU64::new(0)).expect_err("corrupt");
        assert_eq!(
            err.to_string(),
            format!(
                "store {} is corrupt or not a docsuggest store: moves[3] holds resolution \
                 sequence 2",
                path.display()
            )
        );
    }
}

#[test]
fn a_recompute_beside_a_writer_reads_one_snapshot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let options = StoreOptions {
        ring_capacity: 300,
        durability: Durability::Group,
        ..StoreOptions::new(dir.path().join("s.redb"))
    };
    let mut store = RedbStore::open(options).expect("open");
    workload(&mut store, 200);
    let reader = store.reader().expect("reader");
    let stop = std::sync::atomic::AtomicBool::new(false);
    let seen = std::thread::scope(|scope| {
        let checker = scope.spawn(|| {
            let mut seen = BTreeSet::new();
            while !stop.load(Ordering::Relaxed) {
                // Many small ranges read by the pool while commits land: any range read from a
                // later commit than the live rows would show as drift or a wrong count.
                let view = reader.view().expect("view");
                let input = RecomputeInput {
                    base: view.base_rows().expect("base"),
                    live: view.rate_rows().expect("live"),
                    history: read_moves_in(&view, 16).expect("read"),
                };
                let ring = view.ring_len().expect("ring");
                let out = recompute_read(input, step(true), &AtomicU64::new(0)).expect("fold");
                assert_eq!(out.report.rows_differing, 0, "{:?}", out.report);
                assert_eq!(out.report.decisions as u64, ring);
                let out = recompute(&reader, step(true), &AtomicU64::new(0)).expect("recompute");
                assert_eq!(out.report.rows_differing, 0, "{:?}", out.report);
                seen.insert(view.marks().expect("marks").resolution_seq);
            }
            seen
        });
        let mut i = 200;
        while !checker.is_finished() && i < 3_000 {
            let mut r = resolution(i);
            r.decision_seq = store.record_pending(decision("Plan")).expect("record");
            store.resolve(r).expect("resolve");
            i += 1;
        }
        stop.store(true, Ordering::Relaxed);
        checker.join().expect("the checker")
    });
    assert!(
        seen.len() > 1,
        "the recompute ran beside several commits: {seen:?}"
    );
}

fn step(parallel: bool) -> RecomputeOptions {
    RecomputeOptions {
        model: RateModel::Step,
        parallel,
    }
}

/// `moves` written the way bincode also reads them, each string's length in the three-byte
/// varint form instead of the shortest: what a foreign writer (or damage that keeps the
/// value readable) may leave.
fn longer_form(moves: &docsuggest_schema::EntryMoves) -> Vec<u8> {
    let mut out = vec![docsuggest_schema::codec::VALUE_VERSION];
    out.push(u8::try_from(moves.resolution_seq).expect("a small number"));
    out.push(u8::try_from(moves.moves.len()).expect("a few moves"));
    for mv in &moves.moves {
        for part in [&mv.key.workspace, &mv.key.family, &mv.key.companion] {
            out.push(251);
            out.extend_from_slice(&u16::try_from(part.len()).expect("short").to_le_bytes());
            out.extend_from_slice(part.as_bytes());
        }
        out.push(match mv.event {
            RateEvent::Accept => 0,
            RateEvent::Reject => 1,
            RateEvent::ShadowHit => 2,
            RateEvent::ShadowMiss => 3,
        });
        out.extend_from_slice(&mv.step.to_le_bytes());
    }
    out
}

#[test]
fn a_key_stored_in_a_longer_form_is_the_same_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let store = rewritten_moves(&path, 60, |table| {
        // Every third entry rewritten, so a chunk meets both forms of the same keys.
        for seq in (1..=60).step_by(3) {
            let moves: docsuggest_schema::EntryMoves = docsuggest_schema::codec::decode(
                table.get(seq).expect("get").expect("entry").value(),
            )
            .expect("decode");
            let long = longer_form(&moves);
            let back: docsuggest_schema::EntryMoves =
                docsuggest_schema::codec::decode(&long).expect("bincode reads it");
            assert_eq!(back, moves);
            table.insert(seq, long.as_slice()).expect("insert");
        }
    });
    let view = store.view().expect("view");
    let base: BTreeMap<RateKey, RateRow> = view.base_rows().expect("base").into_iter().collect();
    let expect = reference(
        &view.base_rows().expect("base"),
        &view.history().expect("history"),
    );
    for chunks in [1, 2, 7, 60] {
        let moves = read_moves_in(&view, chunks).expect("read");
        let rows = moves.fold(&base, true, &AtomicU64::new(0)).expect("fold");
        assert!(same_rows(&rows, &expect), "{chunks} chunks");
    }
    drop(view);
    check_recompute(&store, &expect);
}
