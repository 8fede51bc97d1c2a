//! Every way the redb store can be unavailable puts the engine on memory, with a plain reason.

use crate::common::{decision, options, resolution, silence};
use docsuggest_schema::{DecisionStore, Durability, Outcome, RateKey, StoreContents, StoreKind};
use docsuggest_store::{FailOpenStore, RedbStore, SCHEMA_VERSION, StoreOptions, check_fold};
use redb::{Database, ReadableDatabase, ReadableTable, TableDefinition};
use std::path::Path;

const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const RATES: TableDefinition<(&str, &str, &str), &[u8]> = TableDefinition::new("rates");
const PENDING: TableDefinition<u64, &[u8]> = TableDefinition::new("pending");
const BASE: TableDefinition<(&str, &str, &str), &[u8]> = TableDefinition::new("base");

fn opts(path: &Path) -> StoreOptions {
    options(path, 1, Durability::Immediate)
}

/// Opens `path` fail-open and answers the reason it fell back (or `None` if it did not).
fn degraded(path: &Path) -> Option<String> {
    let mut store = FailOpenStore::open(opts(path), 8);
    let reason = store.take_degradation();
    assert_eq!(
        store.take_degradation(),
        None,
        "the reason is reported once"
    );
    let expect = if reason.is_some() {
        StoreKind::Memory
    } else {
        StoreKind::Redb
    };
    assert_eq!(store.kind(), expect);
    // Whatever happened, the store records and resolves.
    let mut d = decision("Plan");
    d.seq = store.record_pending(d.clone()).expect("pending");
    store
        .resolve(resolution(&d, Outcome::Rejected, None))
        .expect("resolve");
    assert!(check_fold(&store).expect("fold").is_clean());
    reason
}

/// A closed store with a little history.
fn learned(path: &Path) {
    let mut s = RedbStore::open(opts(path)).expect("open");
    for _ in 0..3 {
        let mut d = decision("Plan");
        d.seq = s.record_pending(d.clone()).expect("pending");
        s.resolve(resolution(&d, Outcome::Rejected, None))
            .expect("resolve");
    }
    s.close().expect("close");
}

#[test]
fn a_file_locked_by_another_handle() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let mut first = FailOpenStore::open(opts(&path), 8);
    assert_eq!(first.kind(), StoreKind::Redb);
    assert_eq!(
        degraded(&path),
        Some(format!(
            "store {} is locked by another process (redb allows one process per file; see docs/STORE.md)",
            path.display()
        ))
    );
    // The holder is untouched.
    assert_eq!(first.kind(), StoreKind::Redb);
    assert_eq!(first.record_silent(silence("Plan")).expect("silent"), 1);
}

#[test]
fn a_file_that_is_not_redb() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    std::fs::write(&path, vec![0x42; 8192]).expect("write");
    assert_eq!(
        degraded(&path),
        Some(format!(
            "store {} is corrupt or not a docsuggest store: opening: Not a redb database: magic number mismatch",
            path.display()
        ))
    );
    // The file is left as it was for a person to look at.
    assert_eq!(std::fs::read(&path).expect("read"), vec![0x42; 8192]);
}

#[test]
fn a_truncated_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let len = std::fs::metadata(&path).expect("meta").len();
    for cut in [len / 2, 100] {
        let copy = dir.path().join(format!("cut-{cut}.redb"));
        std::fs::copy(&path, &copy).expect("copy");
        std::fs::OpenOptions::new()
            .write(true)
            .open(&copy)
            .and_then(|f| f.set_len(cut))
            .expect("truncate");
        let reason = degraded(&copy).expect("falls back");
        let prefix = format!(
            "store {} is corrupt or not a docsuggest store: opening: ",
            copy.display()
        );
        assert!(reason.starts_with(&prefix), "{reason}");
    }
}

/// A zero-length file is what a crash between creating the file and initialising it leaves,
/// so it is initialised as a new store rather than refused.
#[test]
fn a_zero_length_file_becomes_a_new_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    std::fs::File::create(&path).expect("create");
    assert_eq!(degraded(&path), None);
    let store = FailOpenStore::open(opts(&path), 8);
    assert_eq!(store.redb().map(|r| r.committed().decision_seq), Some(1));
}

#[test]
fn a_newer_schema_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    {
        let db = Database::create(&path).expect("raw open");
        let txn = db.begin_write().expect("txn");
        txn.open_table(META)
            .expect("meta")
            .insert("schema_version", u64::from(SCHEMA_VERSION) + 1)
            .expect("insert");
        txn.commit().expect("commit");
    }
    let bytes = std::fs::read(&path).expect("read");
    assert_eq!(
        degraded(&path),
        Some(format!(
            "store {} has schema version {}, newer than the supported version {SCHEMA_VERSION}",
            path.display(),
            SCHEMA_VERSION + 1
        ))
    );
    // Refused before redb writes anything: not a header byte of the file changes.
    assert!(matches!(
        docsuggest_store::RedbStore::open(opts(&path)),
        Err(docsuggest_store::StoreError::TooNew { .. })
    ));
    assert!(
        std::fs::read(&path).expect("read") == bytes,
        "the file was written"
    );

    // The same file left unclean (a copy taken while a writer held it): still refused, still
    // not repaired in place.
    let unclean = dir.path().join("unclean.redb");
    {
        let db = Database::create(&path).expect("raw open");
        let txn = db.begin_write().expect("txn");
        txn.open_table(META)
            .expect("meta")
            .insert("schema_version", u64::from(SCHEMA_VERSION) + 2)
            .expect("insert");
        txn.commit().expect("commit");
        std::fs::copy(&path, &unclean).expect("copy while held");
    }
    let bytes = std::fs::read(&unclean).expect("read");
    assert!(matches!(
        docsuggest_store::RedbStore::open(opts(&unclean)),
        Err(docsuggest_store::StoreError::TooNew { found, .. }) if found == SCHEMA_VERSION + 2
    ));
    assert!(
        std::fs::read(&unclean).expect("read") == bytes,
        "the unclean file was written"
    );
}

#[test]
fn a_redb_file_of_another_program() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    {
        let db = Database::create(&path).expect("raw open");
        let txn = db.begin_write().expect("txn");
        txn.open_table(RATES)
            .expect("rates")
            .insert(("a", "b", "c"), &[1u8][..])
            .expect("insert");
        txn.commit().expect("commit");
    }
    let reason = degraded(&path).expect("falls back");
    assert!(
        reason.ends_with(
            "it holds tables rates but no meta table (expected rates, base, history, moves, pending, meta, mined)"
        ),
        "{reason}"
    );
}

#[test]
fn a_path_that_cannot_be_opened() {
    let dir = tempfile::tempdir().expect("tempdir");
    assert_eq!(
        degraded(dir.path()),
        Some(format!(
            "store I/O failed on {}: opening: Is a directory (os error 21)",
            dir.path().display()
        ))
    );
}

/// A value that cannot be decoded is found by a snapshot: the read answers neutral and the
/// store switches to memory for the rest of the session, carrying over what it can.
#[test]
fn a_failed_read_switches_to_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let readme = RateKey::companion("docs-3f9a", "Plan", "README.md");
    {
        let db = Database::create(&path).expect("raw open");
        let txn = db.begin_write().expect("txn");
        txn.open_table(RATES)
            .expect("rates")
            .insert(("docs-3f9a", "Plan", ""), &[9u8][..])
            .expect("insert");
        txn.commit().expect("commit");
    }
    let mut store = FailOpenStore::open(opts(&path), 8);
    assert_eq!(store.kind(), StoreKind::Redb);
    let family = RateKey::family("docs-3f9a", "Plan");
    {
        let snapshot = store.snapshot().expect("snapshot");
        assert_eq!(snapshot.row(&family).expect("neutral"), None);
        assert_eq!(
            snapshot.row(&readme).expect("row").map(|r| r.rejects),
            Some(3)
        );
    }
    assert_eq!(store.kind(), StoreKind::Memory);
    assert_eq!(
        store.take_degradation().as_deref(),
        Some(
            "stored value rates[(\"docs-3f9a\", \"Plan\", \"\")] cannot be decoded: unknown value version 9 (this build reads version 2)"
        )
    );
    // Numbering continues after what redb handed out (3 decisions, 3 resolutions).
    assert_eq!(store.record_silent(silence("Plan")).expect("silent"), 4);
    assert_eq!(store.history().expect("history")[0].resolution_seq, 4);
    assert_eq!(
        store.flush().expect("flush"),
        3,
        "nothing recorded on memory is durable"
    );
}

/// The decision numbers in the file's pending table, read past the store.
fn pending_on_file(db: &Database) -> Vec<u64> {
    let txn = db.begin_read().expect("txn");
    let pending = txn.open_table(PENDING).expect("pending");
    pending
        .iter()
        .expect("iter")
        .map(|kv| kv.expect("entry").0.value())
        .collect()
}

/// Damages the base row that the next eviction must update, so the next write fails.
fn damage_base_row(path: &std::path::Path) {
    let db = Database::create(path).expect("raw open");
    let txn = db.begin_write().expect("txn");
    txn.open_table(BASE)
        .expect("base")
        .insert(("docs-3f9a", "Plan", ""), &[2u8, 0][..])
        .expect("insert");
    txn.commit().expect("commit");
}

/// A write that fails mid-transaction commits nothing on disk; the operation is retried on
/// memory, which took over the rates and the pending windows.
#[test]
fn a_failed_write_is_retried_on_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    damage_base_row(&path);
    let mut store = FailOpenStore::open(opts(&path), 8);
    assert_eq!(store.kind(), StoreKind::Redb);
    let before = store.rate_rows().expect("rates");
    let mut d = decision("Plan");
    d.seq = store.record_pending(d.clone()).expect("pending");
    assert_eq!(d.seq, 4);
    store
        .resolve(resolution(&d, Outcome::Rejected, None))
        .expect("retried on memory");
    assert_eq!(store.kind(), StoreKind::Memory);
    let reason = store.take_degradation().expect("reason");
    assert!(
        reason.starts_with(
            "stored value base[(\"docs-3f9a\", \"Plan\", \"\")] cannot be decoded: malformed value"
        ),
        "{reason}"
    );
    let after = store.rate_rows().expect("rates");
    assert_eq!(after.len(), before.len());
    for ((k, a), (_, b)) in after.iter().zip(&before) {
        assert_eq!((a.rejects, k), (b.rejects + 1, k));
    }
    drop(store);
    // The failed resolution left the file as it was: decision 4 is still pending there.
    let db = Database::create(&path).expect("raw open");
    assert_eq!(pending_on_file(&db), [4]);
}

/// Damage anywhere in the file — header, tree pages, free space — never escapes as a panic:
/// the store opens (the damage was in free space, or redb repaired it) or falls back with a
/// reason, and either way keeps answering with consistent contents.
#[test]
fn damaged_bytes_never_reach_the_host_as_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let clean = std::fs::read(&path).expect("read");
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut fell_back = 0;
    for seed in 0..48 {
        let mut bytes = clean.clone();
        // A 64-byte run of noise at a pseudo-random place.
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        let at = (x >> 16) as usize % (bytes.len() - 64);
        for b in &mut bytes[at..at + 64] {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            *b = (x >> 56) as u8;
        }
        let damaged = dir.path().join(format!("damaged-{seed}.redb"));
        std::fs::write(&damaged, &bytes).expect("write");
        let mut store = FailOpenStore::open(opts(&damaged), 8);
        let _ = store
            .snapshot()
            .map(|s| s.row(&RateKey::family("docs-3f9a", "Plan")).map(|_| ()));
        let mut d = decision("Plan");
        d.seq = store.record_pending(d.clone()).expect("records");
        store
            .resolve(resolution(&d, Outcome::Rejected, None))
            .expect("resolves");
        let fold = check_fold(&store).map(|r| r.is_clean());
        assert!(matches!(fold, Ok(true)), "seed {seed} at {at}: {fold:?}");
        if let Some(reason) = store.take_degradation() {
            assert!(!reason.is_empty());
            assert_eq!(store.kind(), StoreKind::Memory);
            fell_back += 1;
        }
    }
    eprintln!("damaged files: {fell_back} of 48 fell back to memory");
}

/// Under `group` durability, records and resolutions wait in memory for redb's next commit.
/// When that commit fails, the switch to memory carries them and their numbers over: none is
/// lost, nothing is applied twice, and no number is handed out twice.
#[test]
fn a_failed_write_carries_the_waiting_writes_to_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    damage_base_row(&path);
    let mut store = FailOpenStore::open(options(&path, 1, Durability::Group), 8);
    let family = RateKey::family("docs-3f9a", "Plan");
    let rejects = |s: &FailOpenStore| {
        s.rate_rows()
            .expect("rates")
            .iter()
            .find(|(k, _)| *k == family)
            .map(|(_, r)| r.rejects)
    };
    assert_eq!(rejects(&store), Some(3));
    let mut a = decision("Plan");
    a.seq = store.record_pending(a.clone()).expect("pending");
    let b = store.record_pending(decision("Scheme")).expect("pending");
    assert_eq!((a.seq, b), (4, 5));
    store
        .resolve(resolution(&a, Outcome::Rejected, None))
        .expect("waits");
    assert_eq!(store.redb().map(|r| r.waiting()), Some(3));
    assert_eq!(rejects(&store), Some(4), "the handle reads what waits");
    // The next commit writes the waiting records and the resolution, then fails at the
    // eviction its history entry causes; the silence is retried on memory.
    assert_eq!(store.record_silent(silence("Plan")).expect("silent"), 6);
    assert_eq!(store.kind(), StoreKind::Memory);
    let reason = store.take_degradation().expect("reason");
    assert!(
        reason.contains("base[(\"docs-3f9a\", \"Plan\", \"\")]"),
        "{reason}"
    );
    // Decision 4 was closed while waiting, once; 5 is still open.
    let pending: Vec<u64> = store
        .pending()
        .expect("pending")
        .iter()
        .map(|d| d.seq)
        .collect();
    assert_eq!(pending, [5]);
    assert_eq!(rejects(&store), Some(4));
    let history = store.history().expect("history");
    let last = history.last().expect("an entry");
    assert_eq!((last.resolution_seq, last.decision.seq), (5, 6));
    assert!(check_fold(&store).expect("fold").is_clean());
    assert_eq!(
        store.flush().expect("flush"),
        3,
        "nothing recorded since is durable"
    );
    drop(store);
    // The redb handle could not write them when it was dropped either: the file holds its
    // last commit, as a process kill would have left it.
    let db = Database::create(&path).expect("raw open");
    assert!(pending_on_file(&db).is_empty());
    let txn = db.begin_read().expect("txn");
    let meta = txn.open_table(META).expect("meta");
    assert_eq!(
        meta.get("next_decision_seq")
            .expect("get")
            .map(|v| v.value()),
        Some(4)
    );
}
