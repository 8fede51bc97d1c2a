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
//!
//! Running on memory is not the end: while the file could come back (it was locked, the disk
//! was full, an I/O failed — not a damaged or newer file), it is opened again on a backoff
//! ([`RETRY_FIRST`] doubling up to [`RETRY_MAX`]) at the next call, and what memory answered
//! meanwhile is written back into it in one transaction (see `crate::recovery`).
//! [`health`](DecisionStore::health) says where the store is and what became of those writes.

use crate::memory::{MemoryStore, Resume};
use crate::options::StoreOptions;
use crate::recovery::{self, Backoff, Journal, Numbers, Write};
use crate::redb_store::RedbStore;
use docsuggest_schema::{
    Config, Decision, DecisionStore, HistoryEntry, MinedPack, RateKey, RateRow, RateSnapshot,
    Rekeyed, Resolution, StoreContents, StoreError, StoreHealth, StoreKind,
};
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// The first retry of the file after a switch to memory.
pub const RETRY_FIRST: Duration = Duration::from_millis(50);

/// The longest wait between retries: a file that comes back is in use again at most this long
/// after (at the next call).
pub const RETRY_MAX: Duration = Duration::from_secs(5);

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
    /// How to open the file again: `None` on a memory-only store and after a failure that
    /// retrying cannot mend.
    reopen: Option<StoreOptions>,
    /// Why the store runs on memory, while it does and a file should be used.
    reason: Option<String>,
    /// What memory answered since the switch, for the write-back.
    journal: Journal,
    numbers: Numbers,
    backoff: Backoff,
    counts: Counts,
}

/// What the retries did, for [`DecisionStore::health`].
#[derive(Debug, Default)]
struct Counts {
    retries: u64,
    recoveries: u64,
    written_back: u64,
    lost: u64,
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
        let opened = catch_unwind(AssertUnwindSafe(|| RedbStore::open(options.clone())));
        let mut store = FailOpenStore::memory(store_limit);
        match opened {
            Ok(Ok(redb)) => {
                store.durable = redb.last_durable_seq();
                store.inner = Inner::Redb(Box::new(redb));
                store.reopen = Some(options);
            }
            Ok(Err(e)) => {
                if recovery::retryable(&e) {
                    store.reopen = Some(options);
                }
                store.degrade(e.to_string());
            }
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
            reopen: None,
            reason: None,
            journal: Journal::default(),
            numbers: Numbers::default(),
            backoff: Backoff::new(RETRY_FIRST, RETRY_MAX),
            counts: Counts::default(),
        }
    }

    /// Changes how soon and how often the file is retried after a switch to memory.
    pub fn set_retry(&mut self, first: Duration, max: Duration) {
        self.backoff = Backoff::new(first, max);
    }

    /// Tries the file now, whatever the backoff says, when the store runs on memory and the
    /// file may come back; answers whether the file is in use.
    pub fn retry_now(&mut self) -> bool {
        if matches!(self.inner, Inner::Memory(_)) && self.reopen.is_some() {
            self.recover();
        }
        matches!(self.inner, Inner::Redb(_))
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
        self.reason = Some(reason.clone());
        self.degradation = Some(reason);
    }

    /// Switches to memory, carrying over what redb still answers, until the file can be used
    /// again (never, when `retry` is false: a damaged file).
    fn fall_back(&mut self, reason: String, retry: bool) {
        let Inner::Redb(redb) = &mut self.inner else {
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
        // Everything answered since the last fsync is written back with what memory answers;
        // the handle gives up what waits, so dropping it commits none of that twice.
        let handed = catch_unwind(AssertUnwindSafe(|| redb.hand_over())).unwrap_or_default();
        let committed = handed.committed.decision_seq;
        self.durable = redb.last_durable_seq();
        let (resume, mined) = carried.unwrap_or_else(|_| {
            let resume = Resume {
                marks,
                pending: waiting,
                ..Resume::default()
            };
            (resume, Vec::new())
        });
        let carried = resume
            .pending
            .iter()
            .map(|d| d.seq)
            .filter(|&seq| seq <= committed)
            .collect();
        self.journal = Journal::new(handed, carried);
        self.backoff.restart(Instant::now());
        if !retry {
            self.reopen = None;
        }
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
            // A read that failed may be a damaged page as well as a passing I/O error: the
            // reopen (which checks the file) decides.
            self.fall_back(reason, true);
        }
    }

    /// Opens the file again and writes back what memory answered meanwhile; on failure the
    /// store stays on memory and the next retry waits longer.
    fn recover(&mut self) {
        let (Some(options), Inner::Memory(memory)) = (self.reopen.clone(), &self.inner) else {
            return;
        };
        let windows: Vec<u64> = memory.pending_seqs();
        let memory_last = memory.marks().decision_seq;
        self.counts.retries += 1;
        let now = Instant::now();
        let multi_process = options.multi_process;
        let mut redb = match catch_unwind(AssertUnwindSafe(|| RedbStore::reopen(options))) {
            Ok(Ok(redb)) => redb,
            Ok(Err(e)) => {
                if !recovery::retryable(&e) {
                    tracing::error!(error = %e, "the store file cannot be used again: staying on memory");
                    self.reopen = None;
                    self.reason = Some(e.to_string());
                }
                self.backoff.failed(now);
                return;
            }
            Err(payload) => {
                tracing::error!(reason = %panic_reason(payload.as_ref()), "the store file cannot be used again: staying on memory");
                self.reopen = None;
                return;
            }
        };
        let (journal, numbers) = (&self.journal, &mut self.numbers);
        let wrote = catch_unwind(AssertUnwindSafe(|| {
            recovery::write_back(
                &mut redb,
                journal,
                &windows,
                memory_last,
                multi_process,
                numbers,
            )
        }));
        let report = match wrote {
            Ok(Ok(report)) => report,
            failed => {
                let reason = match failed {
                    Ok(Err(e)) => e.to_string(),
                    Err(payload) => panic_reason(payload.as_ref()),
                    Ok(Ok(_)) => String::new(),
                };
                tracing::warn!(reason = %reason, "the store file is back but cannot be written yet");
                if catch_unwind(AssertUnwindSafe(move || drop(redb))).is_err() {
                    tracing::error!("store backend panicked while closing");
                }
                self.backoff.failed(now);
                return;
            }
        };
        tracing::info!(
            written_back = report.written,
            lost = report.lost,
            abandoned = report.abandoned,
            "the store file is in use again"
        );
        self.counts.recoveries += 1;
        self.counts.written_back += report.written;
        self.counts.lost += report.lost;
        self.durable = redb.last_durable_seq();
        self.inner = Inner::Redb(Box::new(redb));
        self.journal = Journal::default();
        self.reason = None;
    }

    /// Whether a write answered now is answered on memory while the file may come back.
    fn journaling(&self) -> bool {
        matches!(self.inner, Inner::Memory(_)) && self.reopen.is_some()
    }

    /// Runs `op` on redb, or on memory after a failure (retrying it there). On memory, the file
    /// is tried again first when a retry is due.
    fn run<R>(
        &mut self,
        op: impl Fn(&mut dyn DecisionStore) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        self.switch_if_read_failed();
        if matches!(self.inner, Inner::Memory(_))
            && self.reopen.is_some()
            && self.backoff.due(Instant::now())
        {
            self.recover();
        }
        if let Inner::Redb(redb) = &mut self.inner {
            let (reason, retry) = match catch_unwind(AssertUnwindSafe(|| op(redb.as_mut()))) {
                Ok(Ok(out)) => return Ok(out),
                Ok(Err(e)) if is_request_error(&e) => return Err(e),
                Ok(Err(e)) => (e.to_string(), recovery::retryable(&e)),
                Err(payload) => (panic_reason(payload.as_ref()), false),
            };
            self.fall_back(reason, retry);
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

    /// Answers the engine's number of the decision (see `crate::recovery`).
    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError> {
        let seq = self.run(|s| s.record_pending(decision.clone()))?;
        if self.journaling() {
            let mut decision = decision;
            decision.seq = seq;
            self.journal.push(Write::Pending(decision));
        }
        Ok(self.numbers.outward(seq))
    }

    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        let seq = self.run(|s| s.record_silent(decision.clone()))?;
        if self.journaling() {
            self.journal.push(Write::Silent(decision));
        }
        Ok(self.numbers.outward(seq))
    }

    /// Takes the engine's number; a decision answered on memory that the file could not take
    /// back is counted lost, and its resolution with it.
    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        let outward = resolution.decision_seq;
        let Some(seq) = self.numbers.inward(outward) else {
            self.counts.lost += 1;
            return Ok(());
        };
        let resolution = Resolution {
            decision_seq: seq,
            ..resolution
        };
        self.run(|s| s.resolve(resolution.clone()))?;
        self.numbers.resolved(outward);
        if self.journaling() {
            self.journal.push(Write::Resolve(resolution));
        }
        Ok(())
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

    /// On memory, the file is tried once more; what still cannot reach it is counted lost.
    fn close(&mut self) -> Result<u64, StoreError> {
        if !self.retry_now() && self.reopen.is_some() {
            let lost = self.journal.learning();
            if lost > 0 {
                tracing::error!(
                    lost,
                    "decisions and resolutions answered on memory never reached the store file"
                );
            }
            self.counts.lost += lost;
            self.journal = Journal::default();
            self.reopen = None;
        }
        self.run(|s| s.close())?;
        if let Inner::Redb(r) = &self.inner {
            self.durable = r.last_durable_seq();
        }
        Ok(self.durable)
    }

    fn configure(&mut self, config: &Config) {
        self.limit = config.store_limit;
        if let Some(options) = &mut self.reopen {
            options.durability = config.durability;
            options.flush_interval = Duration::from_millis(config.flush_interval_ms);
            options.ring_capacity = config.ring_capacity;
        }
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
            self.fall_back(reason, true);
            if let Inner::Memory(m) = &mut self.inner {
                m.configure(config);
            }
        }
    }

    fn take_degradation(&mut self) -> Option<String> {
        self.switch_if_read_failed();
        self.degradation.take()
    }

    fn health(&self) -> StoreHealth {
        let kind = self.kind();
        StoreHealth {
            kind,
            degraded: match kind {
                StoreKind::Memory => self
                    .reason
                    .clone()
                    .or_else(|| self.read_failure.borrow().clone()),
                StoreKind::Redb => None,
            },
            retries: self.counts.retries,
            recoveries: self.counts.recoveries,
            written_back: self.counts.written_back,
            lost: self.counts.lost,
        }
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

    /// On redb; on memory (which holds nothing of earlier processes) nothing moves, and
    /// nothing is journaled: the next process that finds the file moves it.
    fn rekey_workspace(&mut self, from: &str, to: &str) -> Result<Rekeyed, StoreError> {
        self.run(|s| s.rekey_workspace(from, to))
    }

    /// Written as every write is: on redb, or on memory after a failure there.
    fn put_mined_pack(&mut self, workspace: &str, mined: MinedPack) -> Result<(), StoreError> {
        self.run(|s| s.put_mined_pack(workspace, mined.clone()))?;
        if self.journaling() {
            self.journal
                .push(Write::Mined(workspace.to_string(), mined));
        }
        Ok(())
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
mod tests;
