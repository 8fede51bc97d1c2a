//! Builders of decisions and resolutions, shared by the unit tests and, behind the `testkit`
//! feature, by other crates' tests.

use docsuggest_schema::{
    Decision, Heuristic, Outcome, RateEvent, RateKey, RateMove, Resolution, StoreKind, Table,
};

/// A pending decision of `family` in workspace `ws`.
pub fn decision(family: &str) -> Decision {
    Decision {
        seq: 0,
        workspace: "ws".into(),
        agent: "a".into(),
        family: family.into(),
        kappa: 0.8,
        companions: vec![],
        weights: Table::DEFAULT_WEIGHTS,
        enabled: Heuristic::ALL.to_vec(),
        outcome: Outcome::Pending,
        silence: None,
        accepted: None,
        store: StoreKind::Redb,
    }
}

/// A move of the row of `companion` (empty: the family row) of `family`.
pub fn mv(family: &str, companion: &str, step: f64) -> RateMove {
    RateMove {
        key: RateKey::companion("ws", family, companion),
        event: if step > 0.0 {
            RateEvent::Accept
        } else {
            RateEvent::Reject
        },
        step,
    }
}

/// A rejection of decision `seq` with the given moves.
pub fn reject(seq: u64, moves: Vec<RateMove>) -> Resolution {
    Resolution {
        decision_seq: seq,
        outcome: Outcome::Rejected,
        accepted: None,
        moves,
    }
}

/// An acceptance of decision `seq` naming `companion`, with the given moves.
pub fn accept(seq: u64, companion: &str, moves: Vec<RateMove>) -> Resolution {
    Resolution {
        decision_seq: seq,
        outcome: Outcome::Accepted,
        accepted: Some(companion.into()),
        moves,
    }
}
