use super::*;
use crate::testkit::{accept, decision, mv, reject};
use crate::{check_fold, folded_rates};

/// A store whose retries only happen when a test asks (`retry_now`).
fn patient(store: &mut FailOpenStore) {
    store.set_retry(Duration::from_secs(3600), Duration::from_secs(3600));
}

#[test]
fn a_memory_store_reports_no_degradation() {
    let mut s = FailOpenStore::memory(4);
    assert_eq!(s.kind(), StoreKind::Memory);
    assert_eq!(s.take_degradation(), None);
    assert!(s.redb().is_none());
    assert_eq!(s.record_silent(decision("Plan")).expect("silent"), 1);
    assert_eq!(s.flush().expect("flush"), 0);
}

#[test]
fn request_errors_pass_through_without_a_switch() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = FailOpenStore::open(StoreOptions::new(dir.path().join("s.redb")), 4);
    let seq = s.record_pending(decision("Plan")).expect("pending");
    let err = s.resolve(reject(seq + 5, vec![])).expect_err("unknown");
    assert!(matches!(err, StoreError::UnknownDecision(6)), "{err}");
    let mut bad = reject(seq, vec![mv("Plan", "", -0.2)]);
    bad.outcome = docsuggest_schema::Outcome::Silent;
    assert!(matches!(s.resolve(bad), Err(StoreError::Invalid(_))));
    assert_eq!(s.kind(), StoreKind::Redb);
    assert_eq!(s.take_degradation(), None);
    s.resolve(reject(seq, vec![mv("Plan", "", -0.2)]))
        .expect("the window is still open");
}

#[test]
fn a_closed_redb_store_hands_over_to_memory_with_its_numbering() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = FailOpenStore::open(StoreOptions::new(dir.path().join("s.redb")), 4);
    patient(&mut s);
    s.record_silent(decision("Plan")).expect("silent");
    s.redb_mut().expect("redb").close().expect("close");
    assert_eq!(s.record_silent(decision("Plan")).expect("on memory"), 2);
    assert_eq!(s.kind(), StoreKind::Memory);
    let reason = s.take_degradation().expect("reason");
    assert!(reason.ends_with("the store is closed"), "{reason}");
    assert_eq!(s.take_degradation(), None);
    assert_eq!(s.flush().expect("flush"), 1);
}

#[test]
fn mined_packs_follow_the_store_to_memory() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = FailOpenStore::open(StoreOptions::new(dir.path().join("s.redb")), 4);
    patient(&mut s);
    let record = MinedPack {
        pack: r#"{"families": []}"#.into(),
        head: "ab".into(),
        commits: 2,
        miner: 1,
    };
    s.put_mined_pack("ws", record.clone()).expect("put");
    assert_eq!(s.mined_pack("ws").expect("read"), Some(record.clone()));
    // An oversized record is the request's fault: no switch.
    let big = MinedPack {
        pack: "x".repeat(docsuggest_schema::store::MAX_MINED_PACK_BYTES + 1),
        ..record.clone()
    };
    assert!(matches!(
        s.put_mined_pack("ws", big),
        Err(StoreError::Invalid(_))
    ));
    assert_eq!(s.kind(), StoreKind::Redb);
    // A failure: the write lands in memory, with what redb held carried over.
    s.redb_mut().expect("redb").close().expect("close");
    let other = MinedPack {
        head: "cd".into(),
        ..record.clone()
    };
    s.put_mined_pack("other", other.clone()).expect("on memory");
    assert_eq!(s.kind(), StoreKind::Memory);
    assert_eq!(s.mined_pack("other").expect("read"), Some(other));
    assert!(s.take_degradation().is_some());
}

#[test]
fn panics_become_reasons() {
    let payload = catch_unwind(|| panic!("bad page {}", 7)).expect_err("panics");
    assert_eq!(
        panic_reason(payload.as_ref()),
        "store backend panicked: bad page 7"
    );
    let payload = catch_unwind(|| std::panic::panic_any(3_u8)).expect_err("panics");
    assert_eq!(
        panic_reason(payload.as_ref()),
        "store backend panicked: unknown panic"
    );
}

#[test]
fn a_store_locked_at_start_is_taken_when_released_with_what_memory_answered() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    // Another process's handle, with history of its own.
    let mut holder = RedbStore::open(StoreOptions::new(&path)).expect("holder");
    for _ in 0..3 {
        holder.record_silent(decision("Plan")).expect("silent");
    }
    let mut s = FailOpenStore::open(StoreOptions::new(&path), 64);
    patient(&mut s);
    assert_eq!(s.kind(), StoreKind::Memory);
    assert!(s.take_degradation().is_some());
    assert!(!s.retry_now(), "still locked");
    let accepted = s.record_pending(decision("Plan")).expect("pending");
    s.resolve(accept(accepted, "a.md", vec![mv("Plan", "a.md", 0.1)]))
        .expect("accept");
    let open = s.record_pending(decision("Plan")).expect("pending");
    s.record_silent(decision("Plan")).expect("silent");
    let health = s.health();
    assert_eq!(health.kind, StoreKind::Memory);
    assert!(health.degraded.is_some());
    assert_eq!(health.retries, 1);

    drop(holder);
    assert!(s.retry_now());
    assert_eq!(s.kind(), StoreKind::Redb);
    let health = s.health();
    assert_eq!(
        (health.recoveries, health.written_back, health.lost),
        (1, 4, 0)
    );
    assert_eq!(health.degraded, None);
    // The window opened on memory is resolved under the number the engine holds.
    s.resolve(reject(open, vec![mv("Plan", "a.md", -0.2)]))
        .expect("the open window survived the write-back");
    // New numbers never repeat one the engine was given.
    let next = s.record_pending(decision("Plan")).expect("pending");
    assert!(next > open, "{next} after {open}");
    s.resolve(reject(next, vec![])).expect("resolve");
    let history = s.history().expect("history");
    assert_eq!(history.len(), 3 + 2 + 2);
    assert!(check_fold(&s).expect("fold").is_clean());
    let rows = folded_rates(&s).expect("rates");
    assert_eq!(rows.len(), 1);
    s.close().expect("close");
    let reopened = RedbStore::open(StoreOptions::new(&path)).expect("reopen");
    assert_eq!(reopened.history().expect("history").len(), 7);
}

/// Bytes in memory that refuse to grow while `full` is set: a disk that fills up and is
/// freed again.
#[derive(Debug, Default)]
struct Shelf {
    bytes: std::sync::Mutex<Vec<u8>>,
    full: std::sync::atomic::AtomicBool,
}

#[derive(Debug)]
struct OnShelf(std::sync::Arc<Shelf>);

impl OnShelf {
    fn bytes(&self) -> std::sync::MutexGuard<'_, Vec<u8>> {
        self.0.bytes.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn refuse_growth(&self, len: u64) -> std::io::Result<()> {
        let grows = len > self.bytes().len() as u64;
        if grows && self.0.full.load(std::sync::atomic::Ordering::SeqCst) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::StorageFull,
                "no space left on device",
            ));
        }
        Ok(())
    }
}

impl redb::StorageBackend for OnShelf {
    fn len(&self) -> std::io::Result<u64> {
        Ok(self.bytes().len() as u64)
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> std::io::Result<()> {
        let bytes = self.bytes();
        let start = offset as usize;
        let src = bytes
            .get(start..start + out.len())
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))?;
        out.copy_from_slice(src);
        Ok(())
    }

    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.refuse_growth(len)?;
        self.bytes().resize(len as usize, 0);
        Ok(())
    }

    fn sync_data(&self) -> std::io::Result<()> {
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        self.refuse_growth(offset + data.len() as u64)?;
        let mut bytes = self.bytes();
        let end = offset as usize + data.len();
        if bytes.len() < end {
            bytes.resize(end, 0);
        }
        bytes[offset as usize..end].copy_from_slice(data);
        Ok(())
    }
}

fn on_shelf(dir: &std::path::Path, shelf: &std::sync::Arc<Shelf>) -> StoreOptions {
    let shelf = std::sync::Arc::clone(shelf);
    StoreOptions {
        backend: Some(crate::BackendFactory::new(move || {
            Ok(Box::new(OnShelf(std::sync::Arc::clone(&shelf))) as Box<dyn redb::StorageBackend>)
        })),
        ..StoreOptions::new(dir.join("s.redb"))
    }
}

#[test]
fn a_full_disk_is_retried_and_what_memory_answered_is_written_back() {
    for durability in [
        docsuggest_schema::Durability::Group,
        docsuggest_schema::Durability::Immediate,
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        let shelf = std::sync::Arc::new(Shelf::default());
        let mut options = on_shelf(dir.path(), &shelf);
        options.durability = durability;
        let mut s = FailOpenStore::open(options, 4096);
        patient(&mut s);
        assert_eq!(s.kind(), StoreKind::Redb);
        let before = s.record_pending(decision("Plan")).expect("pending");
        shelf.full.store(true, std::sync::atomic::Ordering::SeqCst);
        // Written until a commit needs space the disk no longer has.
        let mut during = Vec::new();
        let mut n = 0;
        while s.kind() == StoreKind::Redb {
            n += 1;
            assert!(n < 20_000, "the disk never filled ({durability:?})");
            let seq = s
                .record_pending(decision(&format!("F{n}")))
                .expect("pending");
            s.resolve(accept(seq, "a.md", vec![mv(&format!("F{n}"), "a.md", 0.1)]))
                .expect("answered");
        }
        for _ in 0..5 {
            during.push(s.record_pending(decision("Plan")).expect("on memory"));
        }
        assert!(!s.retry_now(), "the disk is still full");
        let health = s.health();
        assert!(health.degraded.is_some(), "{health:?}");
        assert!(health.retries >= 1);
        s.resolve(accept(before, "a.md", vec![mv("Plan", "a.md", 0.1)]))
            .expect("the window opened before the disk filled");
        shelf.full.store(false, std::sync::atomic::Ordering::SeqCst);
        assert!(s.retry_now(), "space was freed");
        let health = s.health();
        assert_eq!(health.lost, 0, "{health:?}");
        assert!(health.written_back >= 6, "{health:?}");
        for seq in during {
            s.resolve(reject(seq, vec![mv("Plan", "a.md", -0.2)]))
                .expect("a window opened on memory");
        }
        assert!(check_fold(&s).expect("fold").is_clean());
        // Every decision answered is in the file: n notes, the one before, the five on memory.
        let history = s.history().expect("history");
        assert_eq!(history.len(), n + 1 + 5, "{durability:?}");
        let mut seqs: Vec<u64> = history.iter().map(|e| e.resolution_seq).collect();
        seqs.dedup();
        assert_eq!(seqs.len(), history.len());
        s.close().expect("close");
    }
}

#[test]
fn a_damaged_file_is_not_retried_and_memory_only_stores_never_are() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("s.redb");
    std::fs::write(&file, b"not a store, just text").expect("write");
    let mut s = FailOpenStore::open(StoreOptions::new(&file), 8);
    assert_eq!(s.kind(), StoreKind::Memory);
    assert!(!s.retry_now());
    assert_eq!(s.health().retries, 0);
    let mut m = FailOpenStore::memory(8);
    assert!(!m.retry_now());
    assert_eq!(m.health(), StoreHealth::steady(StoreKind::Memory));
}

#[test]
fn what_never_reached_the_file_is_counted_lost_at_close() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let holder = RedbStore::open(StoreOptions::new(&path)).expect("holder");
    let mut s = FailOpenStore::open(StoreOptions::new(&path), 64);
    patient(&mut s);
    let seq = s.record_pending(decision("Plan")).expect("pending");
    s.resolve(reject(seq, vec![])).expect("reject");
    s.close().expect("close");
    assert_eq!(s.health().lost, 2);
    drop(holder);
}
