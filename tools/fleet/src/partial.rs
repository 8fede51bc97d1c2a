//! What the merge keeps of each run, so that a day's exports fold onto yesterday's merge and
//! give the rows of a merge of everything, bit for bit (docs/FLEET.md, "Merging by the day").
//!
//! A run's moves of one key come in resolution order, and a later export of the run only
//! adds later resolutions: so the fold of a key's moves *within a run* (a [`Partial`]) can be
//! continued from where the last merge left it. The fleet's row of a key is its partials
//! combined in one order — store id, then run — which is the row one store would hold had it
//! seen every run in turn: counts added, the recent evidence of each partial aged by the
//! observations after it, the step through each run's clamped walk ([`Walk`]). A merge of
//! everything and a merge by the day build the same partials and combine them alike.

use docsuggest_schema::rate::{FORGET, step_rule};
use docsuggest_schema::{RateMove, RateRow};

/// A run's clamped walk of the step, as one function: `x ↦ min(high, max(low, x + shift))`.
/// Each move's step rule, `x ↦ clamp(x + d, 0, 1)`, is such a function, and so is any
/// composition of them, so a run's walk applies to whatever step the runs before it left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Walk {
    /// The sum of the steps.
    pub shift: f64,
    /// The least value the walk leaves.
    pub low: f64,
    /// The greatest.
    pub high: f64,
}

impl Walk {
    /// No move yet.
    pub const IDENTITY: Walk = Walk {
        shift: 0.0,
        low: f64::NEG_INFINITY,
        high: f64::INFINITY,
    };

    /// This walk, then one more step of `delta`.
    pub fn then(self, delta: f64) -> Walk {
        Walk {
            shift: self.shift + delta,
            low: step_rule(self.low, delta),
            high: step_rule(self.high, delta),
        }
    }

    /// Where the walk takes `step`.
    pub fn apply(self, step: f64) -> f64 {
        (step + self.shift).max(self.low).min(self.high)
    }
}

/// One key's moves of one run, folded: the row they make from a fresh row, the walk of the
/// step, and the last resolution folded.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Partial {
    /// The row the moves make from a fresh row (its step is not used: the walk is).
    pub row: RateRow,
    /// The step's walk.
    pub walk: Walk,
    /// The last resolution folded in.
    pub through: i64,
}

impl Default for Partial {
    fn default() -> Partial {
        Partial {
            row: RateRow::default(),
            walk: Walk::IDENTITY,
            through: 0,
        }
    }
}

impl Partial {
    /// This partial after one more move, of resolution `seq`.
    pub fn apply(&mut self, mv: &RateMove, seq: i64) {
        self.row = self.row.apply(mv);
        self.walk = self.walk.then(mv.step);
        self.through = seq;
    }
}

/// The fleet's row of a key from its partials, in order (store id, then run).
#[derive(Clone, Copy, Debug, Default)]
pub struct Combined(RateRow);

impl Combined {
    /// The row after `partial`'s run.
    pub fn add(&mut self, partial: &Partial) {
        let (row, p) = (&mut self.0, &partial.row);
        let aged = FORGET.powi(i32::try_from(p.observations()).unwrap_or(i32::MAX));
        row.accepts += p.accepts;
        row.rejects += p.rejects;
        row.shadow_hits += p.shadow_hits;
        row.shadow_misses += p.shadow_misses;
        row.recent_hits = row.recent_hits * aged + p.recent_hits;
        row.recent_misses = row.recent_misses * aged + p.recent_misses;
        row.step = partial.walk.apply(row.step);
    }

    /// The row.
    pub fn row(&self) -> RateRow {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::rate::NEUTRAL;
    use docsuggest_schema::{RateEvent, RateKey};

    fn mv(event: RateEvent, step: f64) -> RateMove {
        RateMove {
            key: RateKey::family("w", "F"),
            event,
            step,
        }
    }

    #[test]
    fn runs_combined_in_turn_make_the_row_of_one_store_that_saw_them_in_turn() {
        let runs: Vec<Vec<RateMove>> = vec![
            vec![
                mv(RateEvent::Reject, -0.2),
                mv(RateEvent::Reject, -0.2),
                mv(RateEvent::Accept, 0.1),
            ],
            vec![mv(RateEvent::ShadowHit, 0.05); 30],
            vec![
                mv(RateEvent::Accept, 0.4),
                mv(RateEvent::ShadowMiss, -0.9),
                mv(RateEvent::Reject, 0.0),
            ],
        ];
        let mut one = RateRow::default();
        let mut combined = Combined::default();
        for moves in &runs {
            let mut partial = Partial::default();
            for (seq, m) in moves.iter().enumerate() {
                one = one.apply(m);
                partial.apply(m, seq as i64 + 1);
            }
            combined.add(&partial);
        }
        let got = combined.row();
        assert_eq!(
            (got.accepts, got.rejects, got.shadow_hits, got.shadow_misses),
            (one.accepts, one.rejects, one.shadow_hits, one.shadow_misses)
        );
        for (a, b) in [
            (got.step, one.step),
            (got.recent_hits, one.recent_hits),
            (got.recent_misses, one.recent_misses),
        ] {
            assert!((a - b).abs() < 1e-12, "{got:?} against {one:?}");
        }
        // The clamps bit: the walk is not the sum of the steps.
        assert!(one.step > 0.0 && one.step < NEUTRAL + 0.1);
    }

    #[test]
    fn a_walk_is_every_clamped_step_composed() {
        let steps = [0.3, 0.5, -0.05, -1.0, 0.2, 0.7, 0.4, -0.3];
        for start in [0.0, 0.2, NEUTRAL, 0.9, 1.0] {
            let mut walk = Walk::IDENTITY;
            let mut step = start;
            for d in steps {
                walk = walk.then(d);
                step = step_rule(step, d);
                assert!((walk.apply(start) - step).abs() < 1e-12, "{start} {d}");
            }
        }
    }
}
