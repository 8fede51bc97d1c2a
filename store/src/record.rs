//! Rules both stores share: what a resolution may say, and how a decision becomes a history
//! entry. Keeping them in one place is what lets the memory fallback and the redb store give
//! identical rates for the same operations.

use docsuggest_schema::{Decision, HistoryEntry, Outcome, RateEvent, Resolution, StoreError};

/// The sequence numbers a store has handed out: the last decision and the last resolution
/// (`0` before the first).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeqMarks {
    /// The last decision sequence number assigned (pending and silent records share it).
    pub decision_seq: u64,
    /// The last resolution sequence number assigned (the history's order).
    pub resolution_seq: u64,
}

/// Checks a resolution before anything is changed: the store refuses a malformed one whole.
/// The rules: an accepted outcome names its companion, a rejected or abandoned one names none,
/// an abandoned window moves no rate, a silent one only counts shadow hits and misses (step
/// 0), every step is finite, and `pending` is no resolution. An import checks each entry of
/// a history export by the same rules before it writes anything.
pub fn check_resolution(r: &Resolution) -> Result<(), StoreError> {
    let seq = r.decision_seq;
    let bad = |why: String| {
        Err(StoreError::Invalid(format!(
            "resolution of decision {seq}: {why}"
        )))
    };
    match (r.outcome, &r.accepted) {
        (Outcome::Accepted, None) => return bad("accepted without a companion".into()),
        (Outcome::Accepted, Some(_)) => {}
        (Outcome::Rejected | Outcome::Abandoned, Some(c)) => {
            return bad(format!(
                "{} names accepted companion {c:?}",
                r.outcome.name()
            ));
        }
        (Outcome::Rejected | Outcome::Abandoned, None) => {}
        // A silence's shadow window closes as silent, naming the would-be companion the
        // agent touched, if any.
        (Outcome::Silent, _) => {}
        (Outcome::Pending, _) => {
            return bad(
                "outcome pending (expected accepted, rejected, abandoned or silent)".into(),
            );
        }
    }
    if r.outcome == Outcome::Abandoned && !r.moves.is_empty() {
        return bad("an abandoned window moves no rate".into());
    }
    // A silence's shadow window only counts what it saw (the evidence model's observations).
    let shadow = |m: &docsuggest_schema::RateMove| {
        matches!(m.event, RateEvent::ShadowHit | RateEvent::ShadowMiss) && m.step == 0.0
    };
    if r.outcome == Outcome::Silent && !r.moves.iter().all(shadow) {
        return bad("a silent window moves no rate, it only counts shadow hits and misses".into());
    }
    if let Some(mv) = r.moves.iter().find(|m| !m.step.is_finite()) {
        return bad(format!("move of {:?} has a non-finite step", mv.key));
    }
    Ok(())
}

/// The history entry that closes `decision` with `resolution` (already checked).
pub(crate) fn close(decision: Decision, resolution: Resolution, seq: u64) -> HistoryEntry {
    HistoryEntry::closing(decision, resolution, seq)
}

/// The history entry of a gated silence: outcome `silent`, no moves.
pub(crate) fn silent(mut decision: Decision, decision_seq: u64, seq: u64) -> HistoryEntry {
    decision.seq = decision_seq;
    decision.outcome = Outcome::Silent;
    decision.accepted = None;
    HistoryEntry {
        resolution_seq: seq,
        decision,
        moves: Vec::new(),
    }
}

/// The resolution that closes a window left open by a previous process or a turn reset.
pub(crate) fn abandoned(decision_seq: u64) -> Resolution {
    Resolution {
        decision_seq,
        outcome: Outcome::Abandoned,
        accepted: None,
        moves: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::{RateKey, RateMove};

    fn resolution(outcome: Outcome, accepted: Option<&str>, step: Option<f64>) -> Resolution {
        Resolution {
            decision_seq: 7,
            outcome,
            accepted: accepted.map(String::from),
            moves: step
                .map(|step| RateMove {
                    key: RateKey::family("ws", "Plan"),
                    event: RateEvent::Reject,
                    step,
                })
                .into_iter()
                .collect(),
        }
    }

    fn check(r: Resolution, expect: &str) {
        let got = match check_resolution(&r) {
            Ok(()) => "ok".to_string(),
            Err(e) => e.to_string(),
        };
        assert_eq!(got, expect);
    }

    #[test]
    fn resolutions_are_checked() {
        check(
            resolution(Outcome::Accepted, Some("INDEX.md"), Some(0.1)),
            "ok",
        );
        check(resolution(Outcome::Rejected, None, Some(-0.2)), "ok");
        check(resolution(Outcome::Abandoned, None, None), "ok");
        check(
            resolution(Outcome::Accepted, None, None),
            "invalid store request: resolution of decision 7: accepted without a companion",
        );
        check(
            resolution(Outcome::Rejected, Some("x"), None),
            "invalid store request: resolution of decision 7: rejected names accepted companion \"x\"",
        );
        check(
            resolution(Outcome::Pending, None, None),
            "invalid store request: resolution of decision 7: outcome pending (expected accepted, rejected, abandoned or silent)",
        );
        check(resolution(Outcome::Silent, None, None), "ok");
        check(resolution(Outcome::Silent, Some("x"), None), "ok");
        check(
            resolution(Outcome::Silent, None, Some(0.1)),
            "invalid store request: resolution of decision 7: a silent window moves no rate, it only counts shadow hits and misses",
        );
        let mut shadow = resolution(Outcome::Silent, Some("x"), Some(0.0));
        shadow.moves[0].event = RateEvent::ShadowHit;
        check(shadow.clone(), "ok");
        shadow.outcome = Outcome::Abandoned;
        shadow.accepted = None;
        check(
            shadow,
            "invalid store request: resolution of decision 7: an abandoned window moves no rate",
        );
        check(
            resolution(Outcome::Abandoned, None, Some(-0.2)),
            "invalid store request: resolution of decision 7: an abandoned window moves no rate",
        );
        check(
            resolution(Outcome::Rejected, None, Some(f64::NAN)),
            "invalid store request: resolution of decision 7: move of RateKey { workspace: \"ws\", family: \"Plan\", companion: \"\" } has a non-finite step",
        );
    }
}
