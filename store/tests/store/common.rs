//! Builders and a small operation language shared by the store tests.

use docsuggest_schema::{
    Decision, DecisionStore, Durability, Outcome, Resolution, SilenceReason, StoreError,
};
use docsuggest_store::{MemoryStore, RedbStore, StoreOptions, testkit};
use std::path::Path;
use std::time::Duration;

pub const WORKSPACE: &str = "docs-3f9a";
pub const FAMILIES: [&str; 2] = ["Plan", "Scheme"];
pub const COMPANIONS: [&str; 2] = ["Documentation/INDEX.md", "README.md"];

/// A decision of `family` in [`WORKSPACE`] by `agent-1`, naming both companions.
pub fn decision(family: &str) -> Decision {
    Decision {
        workspace: WORKSPACE.into(),
        agent: "agent-1".into(),
        companions: testkit::companions(&COMPANIONS),
        ..testkit::decision(family)
    }
}

/// A gated silence of `family`.
pub fn silence(family: &str) -> Decision {
    Decision {
        outcome: Outcome::Silent,
        silence: Some(SilenceReason::LowConfidence),
        ..decision(family)
    }
}

pub use docsuggest_store::testkit::resolution;

/// Options for a store in `dir` with a small ring and the given durability.
pub fn options(path: &Path, ring: u64, durability: Durability) -> StoreOptions {
    StoreOptions {
        durability,
        ring_capacity: ring,
        flush_interval: Duration::from_secs(3600),
        ..StoreOptions::new(path)
    }
}

/// One step of a scripted or generated session.
#[derive(Clone, Debug)]
pub enum Op {
    /// Record a pending decision of family `f % 2`.
    Pending(u8),
    /// Record a silence of family `f % 2`.
    Silent(u8),
    /// Accept the `i`-th open decision (mod count) with companion `c % 2`.
    Accept(u8, u8),
    /// Reject the `i`-th open decision.
    Reject(u8),
    /// Abandon the `i`-th open decision.
    Abandon(u8),
    /// Close and reopen (redb); abandon every open decision (memory).
    Reopen,
}

/// A store under test, with the decisions it holds open.
pub trait Harness {
    fn store(&mut self) -> &mut dyn DecisionStore;
    fn reopen(&mut self);
}

/// A redb store that can be closed and reopened.
pub struct RedbHarness {
    pub options: StoreOptions,
    pub store: Option<RedbStore>,
}

impl RedbHarness {
    pub fn new(options: StoreOptions) -> RedbHarness {
        let store = RedbStore::open(options.clone()).expect("open");
        RedbHarness {
            options,
            store: Some(store),
        }
    }

    pub fn get(&self) -> &RedbStore {
        self.store.as_ref().expect("open")
    }
}

impl Harness for RedbHarness {
    fn store(&mut self) -> &mut dyn DecisionStore {
        self.store.as_mut().expect("open")
    }

    fn reopen(&mut self) {
        let mut old = self.store.take().expect("open");
        old.close().expect("close");
        drop(old);
        self.store = Some(RedbStore::open(self.options.clone()).expect("reopen"));
    }
}

impl Harness for MemoryStore {
    fn store(&mut self) -> &mut dyn DecisionStore {
        self
    }

    fn reopen(&mut self) {
        self.abandon_pending();
    }
}

/// Resolves, tolerating a window the store already closed (a bounded memory store abandons
/// its oldest pending decision); any other error fails the test.
fn resolve(h: &mut dyn Harness, r: Resolution) {
    match h.store().resolve(r) {
        Ok(()) | Err(StoreError::UnknownDecision(_)) => {}
        Err(e) => panic!("resolve failed: {e}"),
    }
}

/// Runs `ops` on `h`; answers every sequence number the store handed out, in order.
pub fn run(h: &mut dyn Harness, ops: &[Op]) -> Vec<u64> {
    let mut open: Vec<Decision> = Vec::new();
    let mut seqs = Vec::new();
    let pick = |open: &mut Vec<Decision>, i: u8| -> Option<Decision> {
        if open.is_empty() {
            None
        } else {
            let n = usize::from(i) % open.len();
            Some(open.remove(n))
        }
    };
    for op in ops {
        match *op {
            Op::Pending(f) => {
                let mut d = decision(FAMILIES[usize::from(f) % 2]);
                d.seq = h.store().record_pending(d.clone()).expect("record_pending");
                seqs.push(d.seq);
                open.push(d);
            }
            Op::Silent(f) => {
                let seq = h
                    .store()
                    .record_silent(silence(FAMILIES[usize::from(f) % 2]));
                seqs.push(seq.expect("record_silent"));
            }
            Op::Accept(i, c) => {
                if let Some(d) = pick(&mut open, i) {
                    let c = COMPANIONS[usize::from(c) % 2];
                    let r = resolution(&d, Outcome::Accepted, Some(c));
                    resolve(h, r);
                }
            }
            Op::Reject(i) => {
                if let Some(d) = pick(&mut open, i) {
                    resolve(h, resolution(&d, Outcome::Rejected, None));
                }
            }
            Op::Abandon(i) => {
                if let Some(d) = pick(&mut open, i) {
                    resolve(h, resolution(&d, Outcome::Abandoned, None));
                }
            }
            Op::Reopen => {
                h.reopen();
                open.clear();
            }
        }
    }
    seqs
}

/// Everything a store holds, as comparable values.
pub fn contents(s: &RedbStore) -> impl PartialEq + std::fmt::Debug + use<> {
    use docsuggest_schema::StoreContents;
    (
        s.rate_rows().expect("rates"),
        s.base_rows().expect("base"),
        s.history().expect("history"),
        s.pending().expect("pending"),
        s.handed_out(),
    )
}
