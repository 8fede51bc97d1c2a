//! Builders of decisions and resolutions, shared by the unit tests and, behind the `testkit`
//! feature, by other crates' tests and the benchmarks' fills.
//!
//! [`decision`] is the one decision fixture: a caller states only what its decision differs
//! in, with struct-update syntax over it, e.g. another workspace and agent naming measured
//! companions:
//!
//! ```
//! # use docsuggest_schema::Decision;
//! use docsuggest_store::testkit;
//!
//! let d = Decision {
//!     workspace: "docs-3f9a".into(),
//!     agent: "agent-1".into(),
//!     companions: testkit::companions(&["README.md"]),
//!     ..testkit::decision("Plan")
//! };
//! assert_eq!(d.companions[0].score, 0.775);
//! ```

use docsuggest_schema::{
    CompanionRow, Decision, Heuristic, Outcome, RateEvent, RateKey, RateMove, Resolution,
    StoreKind, Table,
};

/// A pending decision of `family` in workspace `ws`, by agent `a`, at kappa 0.8, naming no
/// companion, with the default weights, every heuristic enabled, answered by redb; `seq` 0
/// (the store numbers it).
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

/// A measured companion `path`: score 0.775, values `[1, 0.5, 1, 0.5, 1/3, 1/3]` (a prior of 1,
/// neutral rates).
pub fn companion(path: &str) -> CompanionRow {
    CompanionRow {
        path: path.into(),
        score: 0.775,
        values: Table([1.0, 0.5, 1.0, 0.5, 1.0 / 3.0, 1.0 / 3.0]),
    }
}

/// The measured [`companion`] rows of `paths`, in order.
pub fn companions(paths: &[&str]) -> Vec<CompanionRow> {
    paths.iter().map(|p| companion(p)).collect()
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

/// The engine's moves for a resolution of `d`: an accept moves the companion and the family
/// up by 0.1; a reject moves every named companion and the family down by 0.2; nothing else
/// moves.
pub fn resolution(d: &Decision, outcome: Outcome, accepted: Option<&str>) -> Resolution {
    let family = RateKey::family(&d.workspace, &d.family);
    let companion = |c: &str| RateKey::companion(&d.workspace, &d.family, c);
    let mv = |key, event, step| RateMove { key, event, step };
    let moves = match (outcome, accepted) {
        (Outcome::Accepted, Some(c)) => vec![
            mv(companion(c), RateEvent::Accept, 0.1),
            mv(family, RateEvent::Accept, 0.1),
        ],
        (Outcome::Rejected, _) => d
            .companions
            .iter()
            .map(|c| mv(companion(&c.path), RateEvent::Reject, -0.2))
            .chain([mv(family, RateEvent::Reject, -0.2)])
            .collect(),
        _ => vec![],
    };
    Resolution {
        decision_seq: d.seq,
        outcome,
        accepted: accepted.map(String::from),
        moves,
    }
}
