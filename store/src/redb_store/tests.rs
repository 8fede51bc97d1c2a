use super::*;
use crate::crash::CrashHook;
use crate::migrate::Step;
use crate::tables::{self, META, RATES, meta};
use crate::testkit::{accept, decision, mv, reject};
use docsuggest_schema::Outcome;
use redb::{ReadableDatabase, ReadableTable, TableDefinition, WriteTransaction};
use std::path::Path;

/// Immediate durability unless a test says otherwise: most tests check what one commit
/// leaves on disk.
fn options(path: &Path) -> StoreOptions {
    StoreOptions {
        ring_capacity: 2,
        durability: Durability::Immediate,
        ..StoreOptions::new(path)
    }
}

/// Writes straight into a file with redb, as another program (or a newer build) would.
fn raw_write(path: &Path, f: impl FnOnce(&WriteTransaction)) {
    let db = Database::create(path).expect("raw open");
    let txn = db.begin_write().expect("raw txn");
    f(&txn);
    txn.commit().expect("raw commit");
}

fn set_version(path: &Path, version: u64) {
    raw_write(path, |txn| {
        let mut meta = txn.open_table(META).expect("meta");
        meta.insert(meta::SCHEMA_VERSION, version).expect("insert");
    });
}

/// Rewrites a store this build wrote as a schema v4 build would have left it: every rate row
/// in the v4 layout (no recent evidence), schema version 4.
fn as_v4(path: &Path) {
    raw_write(path, |txn| {
        for table in [RATES, tables::BASE] {
            let mut table = txn.open_table(table).expect("rows");
            let rows: Vec<((String, String, String), Vec<u8>)> = table
                .iter()
                .expect("iter")
                .map(|item| {
                    let (k, v) = item.expect("row");
                    let (w, f, c) = k.value();
                    let row: RateRow = docsuggest_schema::codec::decode(v.value()).expect("row");
                    let v4 = docsuggest_schema::codec::encode_v4_row(&row).expect("v4");
                    ((w.to_string(), f.to_string(), c.to_string()), v4)
                })
                .collect();
            for ((w, f, c), bytes) in rows {
                table
                    .insert((w.as_str(), f.as_str(), c.as_str()), bytes.as_slice())
                    .expect("insert");
            }
        }
    });
    set_version(path, 4);
}

/// A store with one rejection, one acceptance and one silence; closed.
fn learned(path: &Path) {
    let mut s = RedbStore::open(options(path)).expect("open");
    let a = s.record_pending(decision("Plan")).expect("pending");
    let b = s.record_pending(decision("Plan")).expect("pending");
    s.resolve(reject(a, vec![mv("Plan", "", -0.2)]))
        .expect("reject");
    s.resolve(accept(
        b,
        "A.md",
        vec![mv("Plan", "A.md", 0.1), mv("Plan", "", 0.1)],
    ))
    .expect("accept");
    s.record_silent(decision("Plan")).expect("silent");
    s.close().expect("close");
}

#[test]
fn a_new_store_is_created_owner_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("nested/dir/s.redb");
    let s = RedbStore::open(options(&path)).expect("open");
    assert!(s.open_report().created);
    assert_eq!(s.kind(), StoreKind::Redb);
    assert_eq!(s.committed(), SeqMarks::default());
    assert_eq!(s.ring_len().expect("ring"), 0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(path.parent().expect("parent"))
            .expect("meta")
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
    }
}

#[test]
fn records_resolve_in_one_sequence_and_the_ring_folds_into_base() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let s = RedbStore::open(options(&path)).expect("reopen");
    let history: Vec<(u64, u64, Outcome)> = s
        .history()
        .expect("history")
        .iter()
        .map(|e| (e.resolution_seq, e.decision.seq, e.decision.outcome))
        .collect();
    // Ring of 2: the rejection (resolution 1) was folded into base.
    assert_eq!(
        history,
        [(2, 2, Outcome::Accepted), (3, 3, Outcome::Silent)]
    );
    let base = s.base_rows().expect("base");
    assert_eq!(base.len(), 1);
    assert_eq!(base[0].1.rejects, 1);
    let rows = s.rate_rows().expect("rows");
    let family = &rows[0];
    assert_eq!(family.0, RateKey::family("ws", "Plan"));
    assert_eq!(family.1.step, 1.0 / 3.0 - 0.2 + 0.1);
    assert_eq!((family.1.accepts, family.1.rejects), (1, 1));
    assert_eq!(rows[1].0, RateKey::companion("ws", "Plan", "A.md"));
    assert!(check_fold(&s).expect("fold").is_clean());
    assert_eq!(
        s.committed(),
        SeqMarks {
            decision_seq: 3,
            resolution_seq: 3
        }
    );
}

#[test]
fn unknown_and_invalid_resolutions_commit_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(options(&dir.path().join("s.redb"))).expect("open");
    let seq = s.record_pending(decision("Plan")).expect("pending");
    let err = s.resolve(reject(seq + 1, vec![])).expect_err("unknown");
    assert!(matches!(err, StoreError::UnknownDecision(2)), "{err}");
    let mut bad = accept(seq, "A.md", vec![]);
    bad.accepted = None;
    assert!(matches!(s.resolve(bad), Err(StoreError::Invalid(_))));
    assert_eq!(s.pending().expect("pending").len(), 1);
    assert_eq!(s.committed().resolution_seq, 0);
    assert!(s.history().expect("history").is_empty());
}

#[test]
fn a_second_opener_is_told_the_file_is_locked() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let _first = RedbStore::open(options(&path)).expect("open");
    let err = RedbStore::open(options(&path)).expect_err("locked");
    assert_eq!(
        err.to_string(),
        format!(
            "store {} is locked by another process (redb allows one process per file; see docs/STORE.md)",
            path.display()
        )
    );
}

#[test]
fn a_redb_file_of_another_program_is_not_a_store() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("other.redb");
    const OTHER: TableDefinition<u64, u64> = TableDefinition::new("other");
    raw_write(&path, |txn| {
        txn.open_table(OTHER)
            .expect("table")
            .insert(1, 2)
            .expect("insert");
    });
    let err = RedbStore::open(options(&path)).expect_err("foreign");
    assert_eq!(
        err.to_string(),
        format!(
            "store {} is corrupt or not a docsuggest store: not a docsuggest store: it holds \
             tables other but no meta table (expected rates, base, history, moves, pending, \
             meta, mined)",
            path.display()
        )
    );
}

#[test]
fn a_newer_schema_is_refused_naming_both_versions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    set_version(&path, 7);
    let err = RedbStore::open(options(&path)).expect_err("too new");
    assert_eq!(
        err.to_string(),
        format!(
            "store {} has schema version 7, newer than the supported version 5",
            path.display()
        )
    );
}

#[test]
fn an_undecodable_value_names_its_table_and_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    raw_write(&path, |txn| {
        let mut rates = txn.open_table(RATES).expect("rates");
        rates
            .insert(("ws", "Plan", ""), &[9u8, 1][..])
            .expect("insert");
    });
    let s = RedbStore::open(options(&path)).expect("open");
    let err = s.rate_rows().expect_err("codec");
    assert_eq!(
        err.to_string(),
        "stored value rates[(\"ws\", \"Plan\", \"\")] cannot be decoded: unknown value version 9 \
         (this build reads version 2)"
    );
    let snapshot = s.snapshot().expect("snapshot");
    assert!(snapshot.row(&RateKey::family("ws", "Plan")).is_err());
    let fine = snapshot
        .row(&RateKey::companion("ws", "Plan", "A.md"))
        .expect("row");
    assert_eq!(fine.map(|r| r.accepts), Some(1));
}

#[test]
fn group_durability_reports_what_is_flushed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(StoreOptions {
        durability: Durability::Group,
        flush_interval: Duration::from_secs(3600),
        ..options(&dir.path().join("s.redb"))
    })
    .expect("open");
    for _ in 0..3 {
        s.record_silent(decision("Plan")).expect("silent");
    }
    assert_eq!(s.committed().decision_seq, 3);
    assert_eq!(s.last_durable_seq(), 0);
    assert_eq!(s.flush().expect("flush"), 3);
    assert_eq!(s.last_durable(), s.committed());
    // Past the interval, the next commit is the durable one.
    s.apply_config(&Config {
        durability: Durability::Group,
        flush_interval_ms: 1,
        ..Config::default()
    })
    .expect("configure");
    std::thread::sleep(Duration::from_millis(5));
    s.record_silent(decision("Plan")).expect("silent");
    assert_eq!(s.last_durable_seq(), 4);
    // Switching to immediate makes every later commit durable at once.
    s.apply_config(&Config {
        durability: Durability::Immediate,
        ..Config::default()
    })
    .expect("configure");
    s.record_silent(decision("Plan")).expect("silent");
    assert_eq!(s.last_durable_seq(), 5);
}

#[test]
fn shrinking_the_ring_evicts_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(StoreOptions {
        ring_capacity: 10,
        ..options(&dir.path().join("s.redb"))
    })
    .expect("open");
    for step in [-0.2, 0.1, -0.2, 0.1] {
        let seq = s.record_pending(decision("Plan")).expect("pending");
        s.resolve(reject(seq, vec![mv("Plan", "", step)]))
            .expect("resolve");
    }
    assert_eq!(s.ring_len().expect("ring"), 4);
    s.configure(&Config {
        ring_capacity: 1,
        ..Config::default()
    });
    assert_eq!(s.ring_capacity(), 1);
    assert_eq!(s.ring_len().expect("ring"), 1);
    assert_eq!(s.base_rows().expect("base")[0].1.rejects, 2);
    let report = s.check_integrity().expect("integrity");
    assert!(report.is_ok(), "{report:?}");
    assert_eq!(report.fold.keys_checked, 1);
}

#[test]
fn multi_process_handles_share_the_counters_and_keep_pending() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("shared.redb");
    let shared = StoreOptions {
        multi_process: true,
        durability: Durability::Group,
        ..options(&path)
    };
    let mut a = RedbStore::open(shared.clone()).expect("open a");
    let mut b = RedbStore::open(shared.clone()).expect("open b");
    assert_eq!(a.durability(), Durability::Immediate);
    assert_eq!(a.record_pending(decision("Plan")).expect("a"), 1);
    assert_eq!(b.record_pending(decision("Plan")).expect("b"), 2);
    assert_eq!(a.record_silent(decision("Plan")).expect("a"), 3);
    // Every commit is durable in this mode.
    assert_eq!(a.last_durable_seq(), 3);
    b.resolve(reject(1, vec![mv("Plan", "", -0.2)]))
        .expect("b resolves a's window");
    drop(a);
    // A third opener must not abandon windows another live process may own.
    let c = RedbStore::open(shared).expect("open c");
    assert_eq!(c.open_report().abandoned, 0);
    assert_eq!(
        c.pending()
            .expect("pending")
            .iter()
            .map(|d| d.seq)
            .collect::<Vec<_>>(),
        [2]
    );
    assert!(check_fold(&c).expect("fold").is_clean());
}

#[test]
fn a_closed_store_answers_errors_not_panics() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let mut s = RedbStore::open(options(&path)).expect("open");
    s.record_silent(decision("Plan")).expect("silent");
    assert_eq!(s.close().expect("close"), 1);
    let err = s.record_silent(decision("Plan")).expect_err("closed");
    assert_eq!(
        err.to_string(),
        format!(
            "store backend failed: {}: the store is closed",
            path.display()
        )
    );
    // The file was released: it opens again.
    assert_eq!(
        RedbStore::open(options(&path))
            .expect("reopen")
            .committed()
            .decision_seq,
        1
    );
}

fn add_marker(txn: &WriteTransaction, path: &str) -> Result<(), StoreError> {
    let mut meta = txn.open_table(META).at(path, "test step")?;
    meta.insert("test_marker", 42).at(path, "test step")?;
    Ok(())
}

fn fail_step(_: &WriteTransaction, path: &str) -> Result<(), StoreError> {
    Err(StoreError::Backend(format!("{path}: test step failed")))
}

// Test-only steps one version past this build's, so the framework is tested over stores
// this build writes.
const TO_V6: [Step; 1] = [Step {
    from: 5,
    to: 6,
    name: "test: add a marker",
    apply: add_marker,
}];

const FAILING_TO_V6: [Step; 1] = [Step {
    from: 5,
    to: 6,
    name: "test: fail",
    apply: fail_step,
}];

/// Upgrades a copy of `source` (a store this build wrote) with the test step and checks what
/// the framework promises.
fn upgrade_copy(source: &Path) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    std::fs::copy(source, &path).expect("copy");
    let v5 = RedbStore::open(options(&path)).expect("open v5");
    let (rows_before, history_before) = (
        v5.rate_rows().expect("rows"),
        v5.history().expect("history"),
    );
    drop(v5);
    let plan = Plan {
        current: 6,
        steps: &TO_V6,
    };
    let s = RedbStore::open_with_plan(options(&path), &plan).expect("upgrade");
    let upgrade = s.open_report().upgraded.clone().expect("upgraded");
    assert_eq!((upgrade.from, upgrade.to), (5, 6));
    assert_eq!(upgrade.backup, dir.path().join("s.redb.v5.bak"));
    assert_eq!(s.rate_rows().expect("rows"), rows_before);
    assert_eq!(s.history().expect("history"), history_before);
    let txn = s.db().expect("open").begin_read().expect("read");
    let meta_table = txn.open_table(META).expect("meta");
    assert_eq!(
        tables::read_meta("t", &meta_table, "test_marker").expect("marker"),
        42
    );
    assert_eq!(
        tables::read_meta("t", &meta_table, meta::SCHEMA_VERSION).expect("version"),
        6
    );
    drop((meta_table, txn, s));
    // This build reads version 5 at most.
    let err = RedbStore::open(options(&path)).expect_err("too new");
    assert!(
        matches!(
            err,
            StoreError::TooNew {
                found: 6,
                supported: 5,
                ..
            }
        ),
        "{err}"
    );
    // The backup is the version-5 store as it was.
    let restored = dir.path().join("restored.redb");
    std::fs::copy(&upgrade.backup, &restored).expect("copy backup");
    let old = RedbStore::open(options(&restored)).expect("backup opens as v5");
    assert_eq!(old.rate_rows().expect("rows"), rows_before);
    assert_eq!(old.history().expect("history"), history_before);
}

#[test]
fn an_upgrade_copies_the_file_then_runs_its_steps() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    upgrade_copy(&path);
}

#[test]
fn the_committed_v1_fixture_upgrades_to_v5_keeping_its_history() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/store-v1.redb");
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    std::fs::copy(&fixture, &path).expect("copy");
    let ring_of_four = StoreOptions {
        ring_capacity: 4,
        ..options(&path)
    };
    let s = RedbStore::open(ring_of_four).expect("upgrade");
    let upgrade = s.open_report().upgraded.clone().expect("upgraded");
    assert_eq!((upgrade.from, upgrade.to), (1, 5));
    assert!(upgrade.backup.exists());
    // Four resolutions live in the ring (the fixture's ring is 4), one pending closes.
    assert_eq!(s.history().expect("history").len(), 4);
    assert!(crate::check_fold(&s).expect("fold").is_clean());
    for (_, row) in s.rate_rows().expect("rows") {
        assert_eq!((row.shadow_hits, row.shadow_misses), (0, 0));
        // v1 learned accepts and rejects only: the evidence model starts from them, each
        // weighing at most one.
        assert!(row.recent_hits <= row.accepts as f64 && row.recent_misses <= row.rejects as f64);
        assert_eq!(
            (row.recent_hits > 0.0, row.recent_misses > 0.0),
            (row.accepts > 0, row.rejects > 0)
        );
    }
    // The upgraded file is a plain v5 store: it upgrades further with the test step.
    drop(s);
    upgrade_copy(&path);
}

#[test]
fn a_failed_upgrade_leaves_the_file_at_its_version() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let plan = Plan {
        current: 6,
        steps: &FAILING_TO_V6,
    };
    let err = RedbStore::open_with_plan(options(&path), &plan).expect_err("fails");
    assert!(err.to_string().contains("test step failed"), "{err}");
    assert!(dir.path().join("s.redb.v5.bak").exists());
    let s = RedbStore::open(options(&path)).expect("still v5");
    assert_eq!(s.committed().decision_seq, 3);
    // Without a step from 6, a plan for version 7 refuses before touching the file.
    drop(s);
    let err = RedbStore::open_with_plan(
        options(&path),
        &Plan {
            current: 7,
            steps: &TO_V6,
        },
    )
    .expect_err("no path");
    assert!(err.to_string().contains("no step from version 6"), "{err}");
}

#[test]
fn a_shared_file_is_not_upgraded() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let shared = StoreOptions {
        multi_process: true,
        ..options(&path)
    };
    let plan = Plan {
        current: 6,
        steps: &TO_V6,
    };
    let err = RedbStore::open_with_plan(shared, &plan).expect_err("refused");
    assert_eq!(
        err.to_string(),
        format!(
            "invalid store request: store {} has schema version 5; upgrading it to 6 needs \
             exclusive access: open it once without multi-process mode",
            path.display()
        )
    );
    assert!(!dir.path().join("s.redb.v5.bak").exists());
}

#[test]
fn initialising_twice_never_resets_the_counters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let db = Database::create(&path).expect("raw open");
    migrate::initialise(&db, "s", 1, &CrashHook::default()).expect("second initialise");
    drop(db);
    let s = RedbStore::open(options(&path)).expect("open");
    assert_eq!(s.committed().decision_seq, 3);
}

#[test]
fn replacing_the_rates_swaps_them_in_one_transaction() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let mut s = RedbStore::open(options(&path)).expect("open");
    let folded: Vec<(RateKey, RateRow)> = crate::fold::folded_rates(&s)
        .expect("fold")
        .into_iter()
        .collect();
    assert_eq!(folded, s.rate_rows().expect("rows"));
    let drifted = vec![(RateKey::family("ws", "Plan"), RateRow::default())];
    s.replace_rates(&drifted).expect("replace");
    assert_eq!(s.rate_rows().expect("rows"), drifted);
    let report = check_fold(&s).expect("fold");
    let keys: Vec<&str> = report
        .mismatches
        .iter()
        .map(|m| m.key.companion.as_str())
        .collect();
    assert_eq!(keys, ["", "A.md"]);
    s.replace_rates(&folded).expect("replace back");
    assert!(check_fold(&s).expect("fold").is_clean());
}

#[test]
fn a_new_file_appears_complete_or_not_at_all() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    // What a creation that died before its link leaves: ignored.
    std::fs::write(dir.path().join("s.redb.1-0.tmp"), b"half a file").expect("leftover");
    let s = RedbStore::open(options(&path)).expect("open");
    assert!(s.open_report().created);
    drop(s);
    let bytes = std::fs::read(&path).expect("read");
    // redb writes its magic number last when it creates a file.
    assert_eq!(&bytes[..4], b"redb");
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["s.redb", "s.redb.1-0.tmp"]);
}

#[test]
fn two_creators_of_one_new_file_share_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("shared.redb");
    let shared = StoreOptions {
        multi_process: true,
        ..options(&path)
    };
    let barrier = std::sync::Barrier::new(2);
    let seqs: Vec<u64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    let mut s = RedbStore::open(shared.clone()).expect("open");
                    s.record_silent(decision("Plan")).expect("silent")
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("creator"))
            .collect()
    });
    let mut seqs = seqs;
    seqs.sort();
    assert_eq!(seqs, [1, 2]);
    let s = RedbStore::open(options(&path)).expect("reopen");
    assert_eq!(s.committed().decision_seq, 2);
}

#[test]
fn readers_see_whole_commits_and_never_block_the_writer() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let mut s = RedbStore::open(options(&path)).expect("open");
    let seq = s.record_pending(decision("Plan")).expect("pending");
    let reader = s.reader().expect("reader");
    let before = reader.view().expect("view");
    // The writer commits while a view is open on another thread.
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let view = reader.view().expect("view");
                assert_eq!(view.marks().expect("marks").decision_seq, 1);
            })
            .join()
            .expect("reader thread");
    });
    s.resolve(reject(seq, vec![mv("Plan", "", -0.2)]))
        .expect("resolve");
    assert_eq!(
        before.marks().expect("marks"),
        SeqMarks {
            decision_seq: 1,
            resolution_seq: 0
        }
    );
    assert_eq!(before.pending().expect("pending").len(), 1);
    assert!(before.rate_rows().expect("rows").is_empty());
    let after = reader.view().expect("view");
    assert_eq!(after.marks().expect("marks").resolution_seq, 1);
    assert!(check_fold(&after).expect("fold").is_clean());
    assert_eq!(after.ring_len().expect("ring"), 1);
    drop((before, after));
    // The integrity check needs the database alone.
    let err = s.check_integrity().expect_err("a reader is alive");
    assert!(
        err.to_string().ends_with("store readers are still open"),
        "{err}"
    );
    // Closing with a reader alive leaves the file open until the reader goes.
    s.close().expect("close");
    assert_eq!(
        reader
            .view()
            .expect("still readable")
            .marks()
            .expect("marks")
            .resolution_seq,
        1
    );
    drop(reader);
    let s = RedbStore::open(options(&path)).expect("reopen");
    assert_eq!(s.committed().resolution_seq, 1);
}

/// A storage shared by every handle, as a crash test's simulated disk is.
#[derive(Debug, Default, Clone)]
struct SharedBytes(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl redb::StorageBackend for SharedBytes {
    fn len(&self) -> std::io::Result<u64> {
        Ok(self.0.lock().expect("lock").len() as u64)
    }
    fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        let bytes = self.0.lock().expect("lock");
        let start = offset as usize;
        let src = bytes
            .get(start..start + out.len())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
        out.copy_from_slice(src);
        Ok(())
    }
    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.0.lock().expect("lock").resize(len as usize, 0);
        Ok(())
    }
    fn sync_data(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn write(&self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        let mut bytes = self.0.lock().expect("lock");
        let end = offset as usize + data.len();
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        bytes[offset as usize..end].copy_from_slice(data);
        Ok(())
    }
}

#[test]
fn a_store_on_a_backend_upgrades_and_backs_up_through_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let storage = SharedBytes::default();
    let handle = storage.clone();
    let on_backend = StoreOptions {
        backend: Some(crate::BackendFactory::new(move || {
            Ok(Box::new(handle.clone()) as Box<dyn redb::StorageBackend>)
        })),
        ..options(&path)
    };
    let mut s = RedbStore::open(on_backend.clone()).expect("open");
    let seq = s.record_pending(decision("Plan")).expect("pending");
    s.resolve(reject(seq, vec![mv("Plan", "", -0.2)]))
        .expect("resolve");
    s.close().expect("close");
    drop(s);
    // Nothing touched the file system: the bytes live in the backend.
    assert!(!path.exists());
    assert!(!storage.0.lock().expect("lock").is_empty());
    let plan = Plan {
        current: 6,
        steps: &TO_V6,
    };
    let s = RedbStore::open_with_plan(on_backend, &plan).expect("upgrade");
    let upgrade = s.open_report().upgraded.clone().expect("upgraded");
    assert_eq!(upgrade.backup, dir.path().join("s.redb.v5.bak"));
    assert_eq!(s.committed().resolution_seq, 1);
    drop(s);
    // The backup is the version-5 store, openable as a file.
    let old = RedbStore::open(options(&upgrade.backup)).expect("backup opens");
    assert_eq!(old.committed().resolution_seq, 1);
}

/// Removes `seq` from one of the two history tables, as damage or another writer would.
fn remove_raw(path: &Path, table: TableDefinition<u64, &[u8]>, seq: u64) {
    raw_write(path, |txn| {
        txn.open_table(table)
            .expect("table")
            .remove(seq)
            .expect("remove")
            .expect("present");
    });
}

#[test]
fn history_and_its_moves_must_pair_up() {
    for (table, seq, expect) in [
        (tables::MOVES, 2, "history[2] has no moves entry beside it"),
        (tables::MOVES, 3, "history[3] has no moves entry beside it"),
        (
            tables::HISTORY,
            2,
            "moves[2] has no history entry beside it",
        ),
        (
            tables::HISTORY,
            3,
            "moves[3] has no history entry beside it",
        ),
    ] {
        // `learned` leaves entries 2 and 3 in a ring of 2.
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.redb");
        learned(&path);
        remove_raw(&path, table, seq);
        let mut s = RedbStore::open(StoreOptions {
            ring_capacity: 8,
            ..options(&path)
        })
        .expect("open");
        let err = s.history().expect_err("unpaired");
        assert_eq!(
            err.to_string(),
            format!(
                "store {} is corrupt or not a docsuggest store: {expect}",
                path.display()
            ),
            "{table}[{seq}] removed"
        );
        assert!(s.check_integrity().is_err(), "{table}[{seq}] removed");
        drop(s);
        if seq == 3 {
            continue;
        }
        // Evicting the oldest pairs them too, and refuses rather than fold the wrong moves.
        let evicting = RedbStore::open(StoreOptions {
            ring_capacity: 1,
            ..options(&path)
        })
        .and_then(|mut s| {
            let d = s.record_pending(decision("Plan"))?;
            s.resolve(reject(d, vec![]))
        });
        let err = evicting.expect_err("evicting unpaired");
        assert!(err.to_string().contains(expect), "{err}");
    }
}

#[test]
fn a_history_entry_is_stored_as_its_decision_and_its_moves() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let s = RedbStore::open(StoreOptions {
        ring_capacity: 8,
        ..options(&path)
    })
    .expect("open");
    let entries = s.history().expect("history");
    let txn = s.db().expect("open").begin_read().expect("read");
    let history = txn.open_table(tables::HISTORY).expect("history");
    let moves = txn.open_table(tables::MOVES).expect("moves");
    // A ring of 2 kept the last two.
    assert_eq!(entries.len(), 2);
    for entry in &entries {
        let seq = entry.resolution_seq;
        let head = history.get(seq).expect("get").expect("head");
        let stored: docsuggest_schema::EntryHead =
            docsuggest_schema::codec::decode(head.value()).expect("head decodes");
        assert_eq!(stored.decision, entry.decision);
        let stored: docsuggest_schema::EntryMoves =
            docsuggest_schema::codec::decode(moves.get(seq).expect("get").expect("moves").value())
                .expect("moves decode");
        assert_eq!((stored.resolution_seq, &stored.moves), (seq, &entry.moves));
    }
}

#[test]
fn waiting_resolutions_read_as_their_commit_will_leave_the_ring() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = RedbStore::open(StoreOptions {
        durability: Durability::Group,
        flush_interval: std::time::Duration::from_secs(3600),
        ..options(&dir.path().join("s.redb"))
    })
    .expect("open");
    // Ring capacity 2: the first two resolutions evict nothing, the next two evict two.
    for (round, steps) in [[-0.2, 0.1], [0.1, -0.2]].into_iter().enumerate() {
        for step in steps {
            let seq = s.record_pending(decision("Plan")).expect("pending");
            s.resolve(reject(seq, vec![mv("Plan", "", step)]))
                .expect("resolve");
        }
        assert!(s.waiting() > 0, "round {round}: the resolutions wait");
        let (base, history) = (s.base_rows().expect("base"), s.history().expect("history"));
        s.flush().expect("flush");
        assert_eq!(s.waiting(), 0);
        assert_eq!(s.base_rows().expect("base"), base, "round {round}");
        assert_eq!(s.history().expect("history"), history, "round {round}");
        assert_eq!(base.len(), round, "round {round}: {base:?}");
    }
}

fn mined(head: &str) -> MinedPack {
    MinedPack {
        pack: r#"{"families": []}"#.into(),
        head: head.into(),
        commits: 12,
        miner: 1,
    }
}

#[test]
fn a_mined_pack_is_durable_at_once_and_kept_per_workspace() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let group = StoreOptions {
        durability: Durability::Group,
        flush_interval: Duration::from_secs(3600),
        ..options(&path)
    };
    let mut s = RedbStore::open(group.clone()).expect("open");
    assert_eq!(s.mined_pack("ws").expect("read"), None);
    // A record waits for the next commit under group durability ...
    s.record_pending(decision("Plan")).expect("pending");
    assert_eq!(s.waiting(), 1);
    s.put_mined_pack("ws", mined("a1")).expect("put");
    // ... which the mined pack's own durable commit is.
    assert_eq!(s.waiting(), 0);
    assert_eq!(s.last_durable(), s.handed_out());
    assert_eq!(s.mined_pack("ws").expect("read"), Some(mined("a1")));
    assert_eq!(s.mined_pack("other").expect("read"), None);
    s.put_mined_pack("other", mined("b1")).expect("put");
    s.put_mined_pack("ws", mined("a2")).expect("overwrite");
    assert_eq!(s.mined_pack("ws").expect("read"), Some(mined("a2")));
    assert_eq!(s.mined_pack("other").expect("read"), Some(mined("b1")));
    assert_eq!(
        s.mined_packs().expect("all"),
        [
            ("other".to_string(), mined("b1")),
            ("ws".to_string(), mined("a2"))
        ]
    );
    // Forgetting a workspace's learning keeps its mined pack: it is not learned state.
    s.forget_workspace("ws").expect("forget");
    assert_eq!(s.mined_pack("ws").expect("read"), Some(mined("a2")));
    // An oversized record is refused as the request's fault, and nothing changes.
    let big = MinedPack {
        pack: "x".repeat(docsuggest_schema::store::MAX_MINED_PACK_BYTES + 1),
        ..mined("a3")
    };
    assert!(matches!(
        s.put_mined_pack("ws", big),
        Err(StoreError::Invalid(_))
    ));
    drop(s);
    let s = RedbStore::open(group).expect("reopen");
    assert_eq!(s.mined_pack("ws").expect("read"), Some(mined("a2")));
    assert_eq!(s.mined_pack("other").expect("read"), Some(mined("b1")));
    assert!(crate::check_fold(&s).expect("fold").is_clean());
}

#[test]
fn an_undecodable_mined_pack_is_a_codec_error_naming_its_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let limit = docsuggest_schema::store::MAX_MINED_PACK_BYTES;
    let too_long = {
        let mut bytes = vec![docsuggest_schema::codec::VALUE_VERSION];
        bytes.resize(limit + 4096, 0);
        bytes
    };
    raw_write(&path, |txn| {
        let mut table = txn.open_table(tables::MINED).expect("mined");
        table.insert("short", &[2u8, 7][..]).expect("insert");
        table.insert("huge", too_long.as_slice()).expect("insert");
    });
    let s = RedbStore::open(options(&path)).expect("open");
    for (workspace, expect) in [
        (
            "short",
            "stored value mined[\"short\"] cannot be decoded: malformed value",
        ),
        (
            "huge",
            "stored value mined[\"huge\"] cannot be decoded: malformed value: a mined pack value of",
        ),
    ] {
        let err = s.mined_pack(workspace).expect_err("undecodable");
        assert!(matches!(err, StoreError::Codec { .. }), "{err:?}");
        assert!(err.to_string().starts_with(expect), "{err}");
    }
    // The rest of the store is unaffected, and a write replaces the bad value.
    assert!(crate::check_fold(&s).expect("fold").is_clean());
    let mut s = s;
    s.put_mined_pack("short", mined("c")).expect("put");
    assert_eq!(s.mined_pack("short").expect("read"), Some(mined("c")));
}

#[test]
fn a_v4_file_gains_recent_evidence_and_one_already_holding_it_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    let today = RedbStore::open(options(&path)).expect("open");
    let (rows, base) = (
        today.rate_rows().expect("rows"),
        today.base_rows().expect("base"),
    );
    drop(today);
    let copy = dir.path().join("copy.redb");
    std::fs::copy(&path, &copy).expect("copy");
    as_v4(&path);
    let s = RedbStore::open(options(&path)).expect("upgrade");
    let upgrade = s.open_report().upgraded.clone().expect("upgraded");
    assert_eq!((upgrade.from, upgrade.to), (4, 5));
    assert!(check_fold(&s).expect("fold").is_clean());
    // The base row holds one rejection: seeded, it weighs one, as the move it was; so every
    // row is the one this build wrote, bit for bit.
    let same = |a: &[(RateKey, RateRow)], b: &[(RateKey, RateRow)]| {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.0 == y.0 && crate::same_bits(&x.1, &y.1))
    };
    assert!(same(&s.base_rows().expect("base"), &base));
    assert!(same(&s.rate_rows().expect("rows"), &rows));
    assert_eq!((base[0].1.recent_hits, base[0].1.recent_misses), (0.0, 1.0));
    drop(s);
    // A "v4" file holding rows of today's layout was not written by a v4 build: refused,
    // naming the row, and left at version 4.
    set_version(&copy, 4);
    let err = RedbStore::open(options(&copy)).expect_err("refused");
    assert!(
        matches!(err, StoreError::Codec { .. })
            && err.to_string().contains("rates[(\"ws\", \"Plan\", \"\")]")
            && err.to_string().contains("16 trailing bytes"),
        "{err}"
    );
    assert!(dir.path().join("copy.redb.v4.bak").exists());
    set_version(&copy, 5);
    assert!(RedbStore::open(options(&copy)).is_ok());
}

#[test]
fn a_v4_base_row_of_many_observations_is_seeded_with_at_most_a_window() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let mut s = RedbStore::open(options(&path)).expect("open");
    for i in 0..60 {
        let seq = s.record_pending(decision("Plan")).expect("pending");
        let r = if i % 3 == 0 {
            accept(
                seq,
                "A.md",
                vec![mv("Plan", "A.md", 0.1), mv("Plan", "", 0.1)],
            )
        } else {
            reject(seq, vec![mv("Plan", "A.md", -0.2), mv("Plan", "", -0.2)])
        };
        s.resolve(r).expect("resolve");
    }
    s.close().expect("close");
    drop(s);
    as_v4(&path);
    let s = RedbStore::open(options(&path)).expect("upgrade");
    assert_eq!(s.open_report().upgraded.as_ref().map(|u| u.from), Some(4));
    let base = s.base_rows().expect("base");
    assert_eq!(base.len(), 2);
    let window = 1.0 / (1.0 - docsuggest_schema::rate::FORGET);
    for (key, row) in &base {
        // 58 observations evicted from a ring of 2: 20 hits, 38 misses.
        assert_eq!((row.hits(), row.misses()), (20, 38), "{key:?}");
        let seeded = crate::upgrade_v5::seeded(RateRow {
            recent_hits: 0.0,
            recent_misses: 0.0,
            ..*row
        });
        assert!(crate::same_bits(row, &seeded), "{key:?}");
        let weight = row.recent_hits + row.recent_misses;
        assert!(
            weight < window && weight > 0.85 * window,
            "{key:?}: {weight}"
        );
        assert!((row.recent_hits / row.recent_misses - 20.0 / 38.0).abs() < 1e-12);
    }
    assert!(check_fold(&s).expect("fold").is_clean());
}

#[test]
fn a_v3_file_gains_an_empty_mined_table_and_one_already_holding_it_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    learned(&path);
    // What a v3 build leaves: v4 rows, no mined table, schema version 3.
    as_v4(&path);
    raw_write(&path, |txn| {
        assert!(txn.delete_table(tables::MINED).expect("delete"));
    });
    set_version(&path, 3);
    let copy = dir.path().join("copy.redb");
    std::fs::copy(&path, &copy).expect("copy");
    let s = RedbStore::open(options(&path)).expect("upgrade");
    let upgrade = s.open_report().upgraded.clone().expect("upgraded");
    assert_eq!((upgrade.from, upgrade.to), (3, 5));
    assert_eq!(s.mined_packs().expect("mined"), []);
    assert_eq!(s.committed().decision_seq, 3);
    drop(s);
    // A "v3" file holding mined rows was not written by a v3 build.
    raw_write(&copy, |txn| {
        txn.open_table(tables::MINED)
            .expect("mined")
            .insert("ws", &[2u8][..])
            .expect("insert");
    });
    let err = RedbStore::open(options(&copy)).expect_err("refused");
    assert!(
        err.to_string()
            .ends_with("a schema v3 store already holds a mined table"),
        "{err}"
    );
}
