//! The store the engine holds: redb when it can be used, the bounded memory fallback when not.
//!
//! [`FailOpenStore::open`] never fails. If the redb store cannot be opened (locked, corrupt,
//! not a store, too new, unreadable) it starts on memory; if a redb operation fails later, it
//! switches to memory for the rest of the session, carrying over what it can still read (rates,
//! pending decisions, sequence numbers), plus the pending records still waiting for redb's
//! next commit, and retrying the operation there. Either way the reason is logged with
//! `tracing::error!` and handed out once by
//! [`take_degradation`](DecisionStore::take_degradation), which the engine turns into
//! `doc-suggester: store unavailable (<reason>), using memory`.
//!
//! Mined packs go to redb while it is in use, to memory after the switch (those redb still
//! answered are carried over). A failed read of one is returned as an error, without a switch:
//! the engine then asks its miner without it, and the pack mined again overwrites the value.
//!
//! Errors that are about the request rather than the store ([`StoreError::UnknownDecision`],
//! [`StoreError::Invalid`]) are returned as they are and change nothing. A panic inside redb is
//! caught and treated like a failure, so none reaches the host.

use crate::memory::{MemoryStore, Resume};
use crate::options::StoreOptions;
use crate::redb_store::RedbStore;
use docsuggest_schema::{
    Config, Decision, DecisionStore, HistoryEntry, MinedPack, RateKey, RateRow, RateSnapshot,
    Resolution, StoreContents, StoreError, StoreKind,
};
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};

enum Inner {
    Redb(Box<RedbStore>),
    Memory(MemoryStore),
}

/// A store that degrades to memory instead of failing.
pub struct FailOpenStore {
    inner: Inner,
    limit: usize,
    /// The reason of the last switch to memory, until it is taken.
    degradation: Option<String>,
    /// A failure seen by a read (through `&self`): the next mutating call switches.
    read_failure: RefCell<Option<String>>,
    /// The last durable decision sequence of the redb store (what `flush` answers on memory).
    durable: u64,
}

impl std::fmt::Debug for FailOpenStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FailOpenStore")
            .field("kind", &self.kind())
            .field("limit", &self.limit)
            .field("degradation", &self.degradation)
            .finish()
    }
}

fn panic_reason(payload: &(dyn std::any::Any + Send)) -> String {
    let msg = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("store backend panicked: {msg}")
}

/// Errors about the request, not the store: they never trigger the fallback.
fn is_request_error(e: &StoreError) -> bool {
    matches!(e, StoreError::UnknownDecision(_) | StoreError::Invalid(_))
}

impl FailOpenStore {
    /// Opens the redb store at `options.path`, or starts on memory (bounded by `store_limit`)
    /// and remembers why.
    pub fn open(options: StoreOptions, store_limit: usize) -> FailOpenStore {
        let opened = catch_unwind(AssertUnwindSafe(|| RedbStore::open(options)));
        let mut store = FailOpenStore::memory(store_limit);
        match opened {
            Ok(Ok(redb)) => {
                store.durable = redb.last_durable_seq();
                store.inner = Inner::Redb(Box::new(redb));
            }
            Ok(Err(e)) => store.degrade(e.to_string()),
            Err(payload) => store.degrade(panic_reason(payload.as_ref())),
        }
        store
    }

    /// A memory-only store (no degradation to report).
    pub fn memory(store_limit: usize) -> FailOpenStore {
        FailOpenStore {
            inner: Inner::Memory(MemoryStore::new(store_limit)),
            limit: store_limit,
            degradation: None,
            read_failure: RefCell::new(None),
            durable: 0,
        }
    }

    /// The redb store, while it is in use.
    pub fn redb(&self) -> Option<&RedbStore> {
        match &self.inner {
            Inner::Redb(r) => Some(r),
            Inner::Memory(_) => None,
        }
    }

    /// The redb store, mutably, while it is in use (for checks and recompute).
    pub fn redb_mut(&mut self) -> Option<&mut RedbStore> {
        match &mut self.inner {
            Inner::Redb(r) => Some(r),
            Inner::Memory(_) => None,
        }
    }

    fn degrade(&mut self, reason: String) {
        tracing::error!(reason = %reason, "doc-suggester store unavailable, using memory");
        self.degradation = Some(reason);
    }

    /// Switches to memory for the rest of the session, carrying over what redb still answers.
    fn fall_back(&mut self, reason: String) {
        let Inner::Redb(redb) = &self.inner else {
            return;
        };
        // Records waiting for redb's next commit live in memory, so they carry over even when
        // the file answers nothing; the numbers continue after them, never reusing one.
        let marks = redb.handed_out();
        let waiting = redb.waiting_decisions();
        let carried = catch_unwind(AssertUnwindSafe(|| {
            // What redb's handle answers includes what waits for its next commit.
            let pending = redb.pending().unwrap_or_else(|_| waiting.clone());
            let resume = Resume {
                marks,
                rates: redb.rate_rows().unwrap_or_default(),
                pending,
            };
            (resume, redb.mined_packs().unwrap_or_default())
        }));
        self.durable = redb.last_durable_seq();
        let (resume, mined) = carried.unwrap_or_else(|_| {
            let resume = Resume {
                marks,
                pending: waiting,
                ..Resume::default()
            };
            (resume, Vec::new())
        });
        let mut memory = MemoryStore::resume(self.limit, resume);
        for (workspace, record) in mined {
            // Read from redb, so within bounds; the memory store keeps the last it can.
            let _ = memory.put_mined_pack(&workspace, record);
        }
        let old = std::mem::replace(&mut self.inner, Inner::Memory(memory));
        // Dropping flushes what redb committed; a panic there must not escape either.
        if catch_unwind(AssertUnwindSafe(move || drop(old))).is_err() {
            tracing::error!("store backend panicked while closing");
        }
        self.degrade(reason);
    }

    fn switch_if_read_failed(&mut self) {
        let failure = self.read_failure.borrow_mut().take();
        if let Some(reason) = failure {
            self.fall_back(reason);
        }
    }

    /// Runs `op` on redb, or on memory after a failure (retrying it there).
    fn run<R>(
        &mut self,
        op: impl Fn(&mut dyn DecisionStore) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        self.switch_if_read_failed();
        if let Inner::Redb(redb) = &mut self.inner {
            let reason = match catch_unwind(AssertUnwindSafe(|| op(redb.as_mut()))) {
                Ok(Ok(out)) => return Ok(out),
                Ok(Err(e)) if is_request_error(&e) => return Err(e),
                Ok(Err(e)) => e.to_string(),
                Err(payload) => panic_reason(payload.as_ref()),
            };
            self.fall_back(reason);
        }
        match &mut self.inner {
            Inner::Memory(memory) => op(memory),
            Inner::Redb(redb) => op(redb.as_mut()),
        }
    }

    fn note_read_failure(&self, reason: String) {
        let mut slot = self.read_failure.borrow_mut();
        if slot.is_none() {
            *slot = Some(reason);
        }
    }

    fn contents(&self) -> &dyn StoreContents {
        match &self.inner {
            Inner::Redb(r) => r.as_ref(),
            Inner::Memory(m) => m,
        }
    }
}

/// Reads through a redb snapshot; a failed read answers neutral and schedules the switch.
struct Guarded<'a> {
    inner: Box<dyn RateSnapshot + 'a>,
    store: &'a FailOpenStore,
}

impl RateSnapshot for Guarded<'_> {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        match catch_unwind(AssertUnwindSafe(|| self.inner.row(key))) {
            Ok(Ok(row)) => Ok(row),
            Ok(Err(e)) => {
                self.store.note_read_failure(e.to_string());
                Ok(None)
            }
            Err(payload) => {
                self.store.note_read_failure(panic_reason(payload.as_ref()));
                Ok(None)
            }
        }
    }
}

/// Every key neutral: what a failed snapshot reads.
struct Neutral;

impl RateSnapshot for Neutral {
    fn row(&self, _: &RateKey) -> Result<Option<RateRow>, StoreError> {
        Ok(None)
    }
}

impl DecisionStore for FailOpenStore {
    fn contents(&self) -> Option<&dyn StoreContents> {
        Some(self)
    }

    fn kind(&self) -> StoreKind {
        match &self.inner {
            Inner::Redb(_) if self.read_failure.borrow().is_none() => StoreKind::Redb,
            // A failed read already decided that the next write goes to memory.
            _ => StoreKind::Memory,
        }
    }

    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        match &self.inner {
            Inner::Memory(m) => m.snapshot(),
            Inner::Redb(_) if self.read_failure.borrow().is_some() => Ok(Box::new(Neutral)),
            Inner::Redb(r) => match catch_unwind(AssertUnwindSafe(|| r.snapshot())) {
                Ok(Ok(inner)) => Ok(Box::new(Guarded { inner, store: self })),
                Ok(Err(e)) => {
                    self.note_read_failure(e.to_string());
                    Ok(Box::new(Neutral))
                }
                Err(payload) => {
                    self.note_read_failure(panic_reason(payload.as_ref()));
                    Ok(Box::new(Neutral))
                }
            },
        }
    }

    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.run(|s| s.record_pending(decision.clone()))
    }

    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.run(|s| s.record_silent(decision.clone()))
    }

    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        self.run(|s| s.resolve(resolution.clone()))
    }

    /// Answers the last durable decision sequence; on memory, the one redb reached before the
    /// switch (nothing recorded since is durable).
    fn flush(&mut self) -> Result<u64, StoreError> {
        self.run(|s| s.flush())?;
        if let Inner::Redb(r) = &self.inner {
            self.durable = r.last_durable_seq();
        }
        Ok(self.durable)
    }

    fn close(&mut self) -> Result<u64, StoreError> {
        self.run(|s| s.close())?;
        if let Inner::Redb(r) = &self.inner {
            self.durable = r.last_durable_seq();
        }
        Ok(self.durable)
    }

    fn configure(&mut self, config: &Config) {
        self.limit = config.store_limit;
        self.switch_if_read_failed();
        let failure = match &mut self.inner {
            Inner::Memory(m) => {
                m.configure(config);
                None
            }
            Inner::Redb(r) => match catch_unwind(AssertUnwindSafe(|| r.apply_config(config))) {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e.to_string()),
                Err(payload) => Some(panic_reason(payload.as_ref())),
            },
        };
        if let Some(reason) = failure {
            self.fall_back(reason);
            if let Inner::Memory(m) = &mut self.inner {
                m.configure(config);
            }
        }
    }

    fn take_degradation(&mut self) -> Option<String> {
        self.switch_if_read_failed();
        self.degradation.take()
    }

    /// A failed read is returned, without a switch (a panic schedules one, as any read's).
    fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        match &self.inner {
            Inner::Memory(m) => m.mined_pack(workspace),
            Inner::Redb(r) => match catch_unwind(AssertUnwindSafe(|| r.mined_pack(workspace))) {
                Ok(read) => read,
                Err(payload) => {
                    let reason = panic_reason(payload.as_ref());
                    self.note_read_failure(reason.clone());
                    Err(StoreError::Backend(reason))
                }
            },
        }
    }

    /// Written as every write is: on redb, or on memory after a failure there.
    fn put_mined_pack(&mut self, workspace: &str, mined: MinedPack) -> Result<(), StoreError> {
        self.run(|s| s.put_mined_pack(workspace, mined.clone()))
    }
}

impl StoreContents for FailOpenStore {
    fn rate_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        self.contents().rate_rows()
    }

    fn base_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        self.contents().base_rows()
    }

    fn history(&self) -> Result<Vec<HistoryEntry>, StoreError> {
        self.contents().history()
    }

    fn pending(&self) -> Result<Vec<Decision>, StoreError> {
        self.contents().pending()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::{decision, mv, reject};

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
}
