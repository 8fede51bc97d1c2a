//! Pinned cases: each is a way a store could plausibly go wrong at an edge.

use crate::common::{decision, options, resolution, silence};
use docsuggest_schema::{Config, DecisionStore, Durability, Outcome, StoreContents, StoreError};
use docsuggest_store::{FailOpenStore, MemoryStore, RedbStore, check_fold};

fn stores(dir: &std::path::Path) -> Vec<Box<dyn DecisionStoreContents>> {
    vec![
        Box::new(
            RedbStore::open(options(&dir.join("r.redb"), 4, Durability::Group)).expect("open"),
        ),
        Box::new(MemoryStore::new(4)),
    ]
}

trait DecisionStoreContents: DecisionStore + StoreContents {}
impl<T: DecisionStore + StoreContents> DecisionStoreContents for T {}

#[test]
fn a_decision_resolves_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    for mut s in stores(dir.path()) {
        let mut d = decision("Plan");
        d.seq = s.record_pending(d.clone()).expect("pending");
        s.resolve(resolution(&d, Outcome::Rejected, None))
            .expect("first");
        let again = s.resolve(resolution(&d, Outcome::Accepted, Some("README.md")));
        assert!(matches!(again, Err(StoreError::UnknownDecision(1))));
        assert_eq!(s.history().expect("history").len(), 1);
        assert!(check_fold(s.as_ref()).expect("fold").is_clean());
    }
}

#[test]
fn the_store_assigns_sequence_numbers_and_the_silent_outcome() {
    let dir = tempfile::tempdir().expect("tempdir");
    for mut s in stores(dir.path()) {
        let mut d = decision("Plan");
        d.seq = 99;
        assert_eq!(s.record_pending(d).expect("pending"), 1);
        assert_eq!(s.pending().expect("pending")[0].seq, 1);
        let mut quiet = silence("Plan");
        quiet.outcome = Outcome::Pending;
        quiet.accepted = Some("README.md".into());
        assert_eq!(s.record_silent(quiet).expect("silent"), 2);
        let entry = &s.history().expect("history")[0];
        assert_eq!(
            (entry.decision.seq, entry.decision.outcome),
            (2, Outcome::Silent)
        );
        assert_eq!(entry.decision.accepted, None);
    }
}

#[test]
fn a_smaller_ring_through_the_fail_open_store_evicts_at_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = FailOpenStore::open(
        options(&dir.path().join("s.redb"), 16, Durability::Group),
        16,
    );
    for _ in 0..6 {
        s.record_silent(silence("Plan")).expect("silent");
    }
    s.configure(&Config {
        ring_capacity: 2,
        durability: Durability::Immediate,
        ..Config::default()
    });
    assert_eq!(s.redb().expect("redb").ring_len().expect("ring"), 2);
    assert_eq!(s.take_degradation(), None);
    // Group → immediate through configure makes what was pending durable.
    assert_eq!(s.redb().expect("redb").last_durable_seq(), 6);
}
