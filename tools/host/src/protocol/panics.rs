//! Panic isolation: a request that panics inside the engine is answered `internal`; a
//! read-only one leaves the dispatcher serving, one that may have half-changed the engine
//! flushes, poisons the dispatcher and stops the server.

use super::*;
use crate::ledger_log::LedgerLog;
use docsuggest_engine::Engine;
use docsuggest_engine::probe_cache::CachingProbe;
use docsuggest_schema::store::StoreHealth;
use docsuggest_schema::{
    Config, Decision, DecisionStore, RateSnapshot, Resolution, StoreError, StoreKind,
};
use docsuggest_store::MemoryStore;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Where the store panics: nowhere, when asked its health (`stats`), or when a call reads
/// rates (`judge`, `peek`).
const NOWHERE: u8 = 0;
const IN_HEALTH: u8 = 1;
const IN_SNAPSHOT: u8 = 2;

/// A memory store that panics where it is told to, standing for a bug in any part.
struct PanickingStore {
    inner: MemoryStore,
    at: Arc<AtomicU8>,
    flushes: Arc<AtomicU8>,
}

impl PanickingStore {
    fn check(&self, here: u8) {
        if self.at.load(Ordering::SeqCst) == here {
            panic!("a planted bug (\u{202e}right-to-left)");
        }
    }
}

impl DecisionStore for PanickingStore {
    fn kind(&self) -> StoreKind {
        self.inner.kind()
    }
    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        self.check(IN_SNAPSHOT);
        self.inner.snapshot()
    }
    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.inner.record_pending(decision)
    }
    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.inner.record_silent(decision)
    }
    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        self.inner.resolve(resolution)
    }
    fn flush(&mut self) -> Result<u64, StoreError> {
        self.flushes.fetch_add(1, Ordering::SeqCst);
        self.inner.flush()
    }
    fn health(&self) -> StoreHealth {
        self.check(IN_HEALTH);
        self.inner.health()
    }
}

struct Planted {
    dir: tempfile::TempDir,
    server: Dispatcher,
    at: Arc<AtomicU8>,
    flushes: Arc<AtomicU8>,
}

fn planted() -> Planted {
    let dir = tempfile::tempdir().expect("tempdir");
    for f in [
        "Documentation/ARCHIVE-STYLE.md",
        "Documentation/INDEX.md",
        "Documentation/Plans/X.md",
        "POC-BRIEF.md",
        "CHANGELOG.md",
    ] {
        let path = dir.path().join(f);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, "").expect("write");
    }
    let at = Arc::new(AtomicU8::new(NOWHERE));
    let flushes = Arc::new(AtomicU8::new(0));
    let store = PanickingStore {
        inner: MemoryStore::new(64),
        at: at.clone(),
        flushes: flushes.clone(),
    };
    let config = Config {
        log: false,
        ..Config::default()
    };
    let engine = Engine::new(config, Box::new(store), CachingProbe::new());
    Planted {
        dir,
        server: Dispatcher::new(engine, LedgerLog::new()),
        at,
        flushes,
    }
}

impl Planted {
    fn send(&mut self, request: Value) -> (Value, Handled) {
        let handled = self
            .server
            .handle_line(&Line::Bytes(request.to_string().into_bytes()));
        let answer = serde_json::from_str(&handled.answer).expect("every answer is JSON");
        (answer, handled)
    }

    fn judge(&mut self, id: u64) -> (Value, Handled) {
        let ws = self.dir.path().display().to_string();
        self.send(
            json!({"id": id, "op": "judge", "agent": "a", "tool": "read",
            "path": "Documentation/Plans/X.md", "cwd": ws}),
        )
    }
}

#[test]
fn a_read_only_request_that_panics_is_answered_internal_and_serving_goes_on() {
    let mut p = planted();
    p.at.store(IN_HEALTH, Ordering::SeqCst);
    let (answer, handled) = p.send(json!({"id": 1, "op": "stats"}));
    assert_eq!(answer["error"]["code"], "internal", "{answer}");
    assert_eq!(answer["id"], 1);
    let detail = answer["error"]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("a planted bug"), "{detail}");
    assert!(!detail.contains('\u{202e}'), "{detail}");
    assert!(!handled.stop && !handled.fatal);
    assert!(!p.server.is_poisoned());

    p.at.store(NOWHERE, Ordering::SeqCst);
    let (answer, _) = p.judge(2);
    assert_eq!(answer["note"]["family"], "Plan", "{answer}");
    let (answer, _) = p.send(json!({"id": 3, "op": "stats"}));
    assert_eq!(answer["ok"], true, "{answer}");
}

#[test]
fn a_request_that_may_have_changed_the_engine_flushes_and_stops_the_server() {
    let mut p = planted();
    let (answer, _) = p.judge(1);
    assert_eq!(answer["note"]["family"], "Plan", "{answer}");
    let flushed_before = p.flushes.load(Ordering::SeqCst);

    p.at.store(IN_SNAPSHOT, Ordering::SeqCst);
    let (answer, handled) = p.judge(2);
    assert_eq!(answer["error"]["code"], "internal", "{answer}");
    assert_eq!(answer["id"], 2);
    assert!(handled.stop && handled.fatal, "{handled:?}");
    assert!(p.server.is_poisoned() && p.server.is_closed());
    assert!(
        p.flushes.load(Ordering::SeqCst) > flushed_before,
        "nothing was flushed"
    );

    // Nothing more is served, even once the bug is gone; finishing does not touch the engine.
    p.at.store(NOWHERE, Ordering::SeqCst);
    let (answer, handled) = p.send(json!({"id": 3, "op": "hello"}));
    assert_eq!(answer["error"]["code"], "closed", "{answer}");
    assert!(handled.stop && handled.fatal);
    assert_eq!(p.server.finish().ok(), Some(0));
}

#[test]
fn the_server_loop_answers_a_panicking_request_and_stops() {
    let mut p = planted();
    p.at.store(IN_SNAPSHOT, Ordering::SeqCst);
    let ws = p.dir.path().display().to_string();
    let input = format!(
        "{}\n{}\n",
        json!({"id": 1, "op": "judge", "agent": "a", "tool": "read",
            "path": "Documentation/Plans/X.md", "cwd": ws}),
        json!({"id": 2, "op": "hello"})
    );
    let mut output = Vec::new();
    let answered = serve(&mut p.server, input.as_bytes(), &mut output).expect("served");
    assert_eq!(answered, 1, "{}", String::from_utf8_lossy(&output));
    let answer: Value = serde_json::from_slice(&output).expect("one answer");
    assert_eq!(answer["error"]["code"], "internal", "{answer}");
}
