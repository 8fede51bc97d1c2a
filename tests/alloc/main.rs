//! What a call allocates, counted by an allocator that only this test binary installs.
//!
//! A harness calls the engine after every tool call, and most calls touch no doc family: those
//! must allocate nothing, take no store snapshot and make no system call beyond what change
//! detection needs. Counting allocations is exact, unlike timing, so it can be a test.

#[global_allocator]
static ALLOCATOR: dhat::Alloc = dhat::Alloc;

use docsuggest_engine::probe_cache::CachingProbe;
use docsuggest_engine::{BoxedStore, Call, Engine};
use docsuggest_schema::{
    Decision, DecisionStore, RateSnapshot, Resolution, StoreContents, StoreError, StoreKind,
};
use docsuggest_store::{MemoryStore, RedbStore, StoreOptions};
use docsuggest_tests::{Fixture, config};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A store that counts what the engine asks of it: snapshots and writes.
struct Counted {
    inner: BoxedStore,
    asks: Arc<AtomicU64>,
}

impl Counted {
    fn ask(&self) {
        self.asks.fetch_add(1, Ordering::Relaxed);
    }
}

impl DecisionStore for Counted {
    fn kind(&self) -> StoreKind {
        self.inner.kind()
    }
    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        self.ask();
        self.inner.snapshot()
    }
    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.ask();
        self.inner.record_pending(decision)
    }
    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.ask();
        self.inner.record_silent(decision)
    }
    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        self.ask();
        self.inner.resolve(resolution)
    }
    fn flush(&mut self) -> Result<u64, StoreError> {
        self.ask();
        self.inner.flush()
    }
    fn contents(&self) -> Option<&dyn StoreContents> {
        self.inner.contents()
    }
    fn take_degradation(&mut self) -> Option<String> {
        self.inner.take_degradation()
    }
}

/// Calls judged before counting: the first calls read the scene, meet the agent and close
/// the window the Plan call opened (`rejected` after three calls).
const WARM_UP: usize = 4;
/// Calls counted.
const COUNTED: u64 = 200;

/// The blocks allocated and the store requests made while `call` is judged [`COUNTED`]
/// times, once it answers only `expect`.
fn costs(
    engine: &mut Engine<CachingProbe>,
    asks: &AtomicU64,
    call: &Call,
    expect: &str,
) -> (u64, u64) {
    for _ in 0..WARM_UP {
        engine.judge(call).expect("a well-formed call");
    }
    let verdict = engine.judge(call).expect("a well-formed call");
    assert_eq!(*verdict.ledger, [expect], "{call:?}");
    assert!(verdict.note.is_none());
    let asked = asks.load(Ordering::Relaxed);
    let before = dhat::HeapStats::get().total_blocks;
    let mut lines = 0;
    for _ in 0..COUNTED {
        let verdict = engine.judge(call).expect("a well-formed call");
        lines += verdict.ledger.len();
    }
    let blocks = dhat::HeapStats::get().total_blocks - before;
    // The calls did run: each wrote its one line.
    assert_eq!(lines as u64, COUNTED, "{call:?}");
    (blocks, asks.load(Ordering::Relaxed) - asked)
}

/// An engine over each store, with the count of what it asked of its store.
type Counting = (&'static str, Engine<CachingProbe>, Arc<AtomicU64>);

fn engines(store_dir: &std::path::Path) -> Vec<Counting> {
    let config = config(serde_json::json!({"learn": true, "durability": "group"}));
    let options = StoreOptions::from_config(store_dir.join("s.redb"), &config);
    let stores: [(&str, BoxedStore); 2] = [
        ("memory", Box::new(MemoryStore::new(config.store_limit))),
        (
            "redb",
            Box::new(RedbStore::open(options).expect("a new redb store")),
        ),
    ];
    stores
        .into_iter()
        .map(|(name, inner)| {
            let asks = Arc::new(AtomicU64::new(0));
            let store = Box::new(Counted {
                inner,
                asks: Arc::clone(&asks),
            });
            let engine = Engine::new(config.clone(), store, CachingProbe::default());
            (name, engine, asks)
        })
        .collect()
}

// One test: the allocator's profiler is one per process.
#[test]
fn calls_that_touch_no_family_allocate_nothing_and_leave_the_store_alone() {
    let _profiler = dhat::Profiler::builder().testing().build();
    let workspace = Fixture::poc();
    workspace.write("src/lib.rs", "");
    let outside = Fixture::empty();
    outside.write("notes/x.md", "");
    let store_dir = tempfile::tempdir().expect("a temporary directory");
    for (store, mut engine, asks) in engines(store_dir.path()) {
        // A Plan call first, so the store holds a decision and the agent has a window open.
        let plan = engine
            .judge(&workspace.call("a", "read", "Documentation/Plans/SEARCH.md"))
            .expect("a well-formed call");
        assert!(plan.note.is_some(), "{store}: {:?}", plan.ledger);
        assert!(
            asks.load(Ordering::Relaxed) > 0,
            "{store}: the Plan call read its rates"
        );
        let cases = [
            (
                workspace.call("a", "read", "src/lib.rs"),
                "doc-suggester: abstained no-signal 0.00",
            ),
            (
                outside.call("a", "read", "notes/x.md"),
                "doc-suggester: abstained foreign-workspace 0.00",
            ),
        ];
        for (call, expect) in &cases {
            let (blocks, asked) = costs(&mut engine, &asks, call, expect);
            assert_eq!(
                blocks, 0,
                "{store}: {COUNTED} calls of {call:?} allocated {blocks} blocks"
            );
            assert_eq!(
                asked, 0,
                "{store}: {COUNTED} calls of {call:?} asked the store {asked} times"
            );
        }
    }
}
