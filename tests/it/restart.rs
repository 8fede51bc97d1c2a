//! Learning survives a restart of the engine over the same redb file.

use docsuggest_engine::Engine;
use docsuggest_engine::probe::OsProbe;
use docsuggest_store::{FailOpenStore, StoreOptions};
use docsuggest_tests::{Fixture, config, judge};
use serde_json::json;

fn engine_on(path: &std::path::Path) -> Engine<OsProbe> {
    let cfg = config(json!({"rateModel": "step"}));
    let store = FailOpenStore::open(StoreOptions::from_config(path, &cfg), cfg.store_limit);
    Engine::new(cfg, Box::new(store), OsProbe)
}

#[test]
fn rates_and_sequence_numbers_carry_across_a_restart() {
    let f = Fixture::poc();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("learned.redb");
    let mut first = engine_on(&path);
    assert_eq!(
        first.startup(),
        ["doc-suggester: activated (bundle 0.1.0, families 7, threshold 0.75)"]
    );
    judge(&mut first, &f, "a", "Documentation/Plans/SEARCH.md");
    judge(&mut first, &f, "a", "Documentation/INDEX.md");
    // A window left open at close is abandoned, not lost.
    judge(&mut first, &f, "b", "Documentation/Plans/LEARN.md");
    first.close().expect("close");
    drop(first);

    let mut second = engine_on(&path);
    assert_eq!(second.startup().len(), 1, "no degradation");
    let v = judge(&mut second, &f, "c", "Documentation/Plans/SEARCH.md");
    assert_eq!(
        v.ledger[1],
        "doc-suggester: decided Plan 0.91 Documentation/INDEX.md \
         scope=1.00,graph=0.50,prior=1.00,literal=0.50,history=0.43,accept=0.43 \
         weights scope=0.35,graph=0.00,prior=0.25,literal=0.25,history=0.15,accept=0.00 store=redb"
    );
    let contents = second.store().contents().expect("contents");
    let pending = contents.pending().expect("pending");
    let history = contents.history().expect("history");
    let last_before = history.iter().map(|e| e.decision.seq).max().unwrap_or(0);
    assert_eq!(pending.len(), 1);
    assert!(
        pending[0].seq > last_before,
        "sequence numbers continue: {} > {last_before}",
        pending[0].seq
    );
    let outcomes: Vec<&str> = history.iter().map(|e| e.decision.outcome.name()).collect();
    assert_eq!(
        outcomes,
        ["accepted", "abandoned", "abandoned"],
        "{history:#?}"
    );
}
