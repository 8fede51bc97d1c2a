//! Rate rows, rate moves, the models that read a rate from a row, and the fold that defines
//! live rates from history.
//!
//! A row keeps both the step-rule value and the accept/reject counts, so every rate model
//! reads the same rows and the central invariant `live == fold(base, history)` does not
//! depend on the model.

use serde::{Deserialize, Serialize};

/// The neutral rate every row starts from.
pub const NEUTRAL: f64 = 1.0 / 3.0;

/// The evidence model's half-life, in observations of one row: an observation weighs half as
/// much once 20 newer ones of the same row have arrived. A row then holds about 29
/// observations' worth of evidence (`1 / (1 − FORGET)`) — enough that one rate is known to
/// about ±0.09, few enough that a changed convention shows within tens of observations, not the
/// thousands the plain counts needed (docs/LEARNING.md, "Forgetting").
pub const HALF_LIFE: f64 = 20.0;

/// What one observation's weight is multiplied by when a newer one of the same row arrives:
/// `0.5^(1/HALF_LIFE)`, written out so that every platform folds the same bits.
pub const FORGET: f64 = 0.9659363289248456;

/// How a learned rate is read from its row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateModel {
    /// The PoC rule: start at 1/3, `+acceptBonus` / `−rejectPenalty`, clamped to 0..1.
    Step,
    /// The posterior mean of Beta(1,2) updated by accepts and rejects.
    Beta,
    /// Per-companion evidence (the default): a posterior mean over every observation of the
    /// companion — accepts and rejects of notes that named it, and the shadow hits and misses
    /// of windows that watched it unnamed — each weighed by its age, with a prior worth
    /// [`PRIOR_WEIGHT`] observations centred on what the row has already forgotten (Beta(1,2)
    /// over its counts less their weighed part): 1/3 with no evidence.
    /// A companion whose rate falls under `pruneBelow` is left out of the note, each named
    /// companion's score is scaled by `(rate / (1/3))^evidenceExponent`, and once the family
    /// has evidence the gate reads the probability that the note is followed. With no
    /// evidence every rate is 1/3 and the note is the PoC's.
    Evidence,
}

/// A learned rate's key: a workspace's family row (`companion` empty) or companion row.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RateKey {
    /// The workspace key.
    pub workspace: String,
    /// The family.
    pub family: String,
    /// The companion, or empty for the family's own row.
    pub companion: String,
}

impl RateKey {
    /// The family row of `family` in `workspace`.
    pub fn family(workspace: &str, family: &str) -> RateKey {
        RateKey {
            workspace: workspace.into(),
            family: family.into(),
            companion: String::new(),
        }
    }

    /// The row of one companion of `family` in `workspace`.
    pub fn companion(workspace: &str, family: &str, companion: &str) -> RateKey {
        RateKey {
            workspace: workspace.into(),
            family: family.into(),
            companion: companion.into(),
        }
    }

    /// The row of one companion of `family` in `workspace` as change boundaries see it: what
    /// became of their claims that a change lacks it, kept apart from its own row so that a
    /// declined reminder is no verdict on the notes given on edits.
    pub fn at_boundary(workspace: &str, family: &str, companion: &str) -> RateKey {
        RateKey {
            workspace: workspace.into(),
            family: family.into(),
            companion: format!("{companion}{BOUNDARY_MARK}"),
        }
    }

    /// The companion whose boundary row this is (`None`: a family's or a companion's own row).
    pub fn boundary_companion(&self) -> Option<&str> {
        self.companion.strip_suffix(BOUNDARY_MARK)
    }
}

/// What the companion of a boundary row ([`RateKey::at_boundary`]) ends with. It begins with
/// a control character, which no pack path holds (a pack refuses them), so no companion's own
/// row can be taken for a boundary row, and a store keeps both without a new field.
pub const BOUNDARY_MARK: &str = "\u{1f}boundary";

/// What happened to a key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RateEvent {
    /// A named companion was opened.
    Accept,
    /// The window closed untouched.
    Reject,
    /// A watched companion that no note named was touched within the window (a shadow
    /// window of a silence, or a companion the note left out).
    ShadowHit,
    /// A watched companion that no note named was not touched within the window.
    ShadowMiss,
}

/// One move of one row, as committed with a resolution.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateMove {
    /// The row.
    pub key: RateKey,
    /// Accept or reject.
    pub event: RateEvent,
    /// The signed step of the step rule (`+acceptBonus` or `−rejectPenalty`; 0 for a shadow
    /// observation).
    pub step: f64,
}

/// A learned row.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct RateRow {
    /// The step-rule value, in 0..1.
    pub step: f64,
    /// Accepts seen.
    pub accepts: u64,
    /// Rejects seen.
    pub rejects: u64,
    /// Shadow hits seen (schema v2).
    pub shadow_hits: u64,
    /// Shadow misses seen (schema v2).
    pub shadow_misses: u64,
    /// Hits (accepts and shadow hits) weighed by age: each newer observation of the row
    /// multiplies the earlier ones' weight by [`FORGET`] (schema v5).
    pub recent_hits: f64,
    /// Misses (rejects and shadow misses), weighed the same way (schema v5).
    pub recent_misses: f64,
}

impl Default for RateRow {
    fn default() -> Self {
        RateRow {
            step: NEUTRAL,
            accepts: 0,
            rejects: 0,
            shadow_hits: 0,
            shadow_misses: 0,
            recent_hits: 0.0,
            recent_misses: 0.0,
        }
    }
}

impl RateRow {
    /// This row after one move. The step rule clamps and the recent evidence ages, so moves
    /// do not commute: a replay keeps each key's order (live and fold apply a key's moves in
    /// resolution order, so they agree bit for bit).
    pub fn apply(self, mv: &RateMove) -> RateRow {
        let mut next = self;
        next.step = step_rule(self.step, mv.step);
        match mv.event {
            RateEvent::Accept => next.accepts += 1,
            RateEvent::Reject => next.rejects += 1,
            RateEvent::ShadowHit => next.shadow_hits += 1,
            RateEvent::ShadowMiss => next.shadow_misses += 1,
        }
        let hit = matches!(mv.event, RateEvent::Accept | RateEvent::ShadowHit);
        next.recent_hits = self.recent_hits * FORGET + f64::from(u8::from(hit));
        next.recent_misses = self.recent_misses * FORGET + f64::from(u8::from(!hit));
        next
    }

    /// Every observation this row has seen, followed or not.
    pub fn observations(&self) -> u64 {
        self.hits().saturating_add(self.misses())
    }

    /// Every observation that the companion (or family) was followed.
    pub fn hits(&self) -> u64 {
        self.accepts.saturating_add(self.shadow_hits)
    }

    /// Every observation that it was not.
    pub fn misses(&self) -> u64 {
        self.rejects.saturating_add(self.shadow_misses)
    }

    /// Whether the row's recent evidence outweighs the evidence model's prior
    /// ([`PRIOR_WEIGHT`] observations): its rate is then mostly what was seen, not the prior.
    pub fn outweighs_prior(&self) -> bool {
        self.recent_hits + self.recent_misses >= PRIOR_WEIGHT
    }

    /// The rate this row stands for under `model`.
    pub fn rate(&self, model: RateModel) -> f64 {
        match model {
            RateModel::Step => self.step,
            // Posterior mean of Beta(1, 2): neutral 1/3, order-independent, never stuck at 0.
            RateModel::Beta => beta_mean(self.accepts as f64, self.rejects as f64),
            // The recent evidence, named or shadowed, each observation weighed by its age (a
            // convention that changed shows within tens of observations), shrunk towards what
            // the row has already forgotten rather than towards 1/3: a companion followed nine
            // times in ten for years is not judged by a fixed prior when a few misses come.
            // Nothing forgotten yet (a young row): the centre is 1/3, Beta(1, 2) as before.
            RateModel::Evidence => {
                let forgotten_hits = (self.hits() as f64 - self.recent_hits).max(0.0);
                let forgotten_misses = (self.misses() as f64 - self.recent_misses).max(0.0);
                let centre = beta_mean(forgotten_hits, forgotten_misses);
                (PRIOR_WEIGHT * centre + self.recent_hits)
                    / (PRIOR_WEIGHT + self.recent_hits + self.recent_misses)
            }
        }
    }
}

/// How many observations the evidence model's prior is worth: as many as Beta(1,2)'s (so a
/// fresh row reads 1/3, as before), about a tenth of the ~29 a row's recent evidence holds,
/// so the prior steadies a rate without holding back a change of convention.
pub const PRIOR_WEIGHT: f64 = 3.0;

/// The posterior mean of Beta(1, 2) after `hits` and `misses` (weighed counts for the evidence
/// model): 1/3 with no evidence, never 0 or 1.
fn beta_mean(hits: f64, misses: f64) -> f64 {
    (1.0 + hits) / (3.0 + hits + misses)
}

/// The step rule: `step` moved by the signed `delta`, clamped to 0..1. The clamp is why moves
/// do not commute (and why a replay must keep each key's order).
pub fn step_rule(step: f64, delta: f64) -> f64 {
    (step + delta).clamp(0.0, 1.0)
}

/// Whether two rows are the same bit for bit (`==` on `f64` would equate `0.0` and `-0.0`):
/// what `live == fold(base, history)` means.
pub fn same_bits(a: &RateRow, b: &RateRow) -> bool {
    a.step.to_bits() == b.step.to_bits()
        && a.accepts == b.accepts
        && a.rejects == b.rejects
        && a.shadow_hits == b.shadow_hits
        && a.shadow_misses == b.shadow_misses
        && a.recent_hits.to_bits() == b.recent_hits.to_bits()
        && a.recent_misses.to_bits() == b.recent_misses.to_bits()
}

/// `fold(base, moves)`: the row that results from replaying `moves` in order over `base`.
pub fn fold<'a>(base: Option<RateRow>, moves: impl IntoIterator<Item = &'a RateMove>) -> RateRow {
    moves
        .into_iter()
        .fold(base.unwrap_or_default(), |row, mv| row.apply(mv))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(event: RateEvent, step: f64) -> RateMove {
        RateMove {
            key: RateKey::family("ws", "Plan"),
            event,
            step,
        }
    }

    #[test]
    fn step_rule_clamps_and_does_not_commute() {
        let down = mv(RateEvent::Reject, -0.2);
        let up = mv(RateEvent::Accept, 0.1);
        let a = fold(None, [&down, &down, &up]);
        let b = fold(None, [&up, &down, &down]);
        assert_eq!(a.step, 0.1);
        assert!((b.step - (NEUTRAL + 0.1 - 0.4)).abs() < 1e-12);
        assert_ne!(a.step, b.step);
        assert_eq!(a.rate(RateModel::Beta), b.rate(RateModel::Beta));
    }

    #[test]
    fn beta_starts_neutral_and_never_reaches_zero() {
        let row = RateRow::default();
        assert_eq!(row.rate(RateModel::Beta), NEUTRAL);
        let down = mv(RateEvent::Reject, -0.2);
        let row = fold(None, std::iter::repeat_n(&down, 50));
        assert_eq!(row.step, 0.0);
        assert!(row.rate(RateModel::Beta) > 0.0);
    }

    #[test]
    fn evidence_counts_every_observation_and_weighs_the_recent_more() {
        let moves = [
            mv(RateEvent::Accept, 0.1),
            mv(RateEvent::ShadowHit, 0.0),
            mv(RateEvent::ShadowMiss, 0.0),
            mv(RateEvent::Reject, -0.2),
            mv(RateEvent::ShadowMiss, 0.0),
        ];
        let forward = fold(None, &moves);
        let backward = fold(None, moves.iter().rev());
        assert_eq!((forward.hits(), forward.misses()), (2, 3));
        assert_eq!(forward.observations(), backward.observations());
        // The hits came first, so they weigh less than the misses after them; in the other
        // order, more.
        let f = FORGET;
        assert_eq!(forward.recent_hits, (f + 1.0) * f * f * f);
        assert_eq!(forward.recent_misses, ((f + 1.0) * f) + 1.0);
        let rate = forward.rate(RateModel::Evidence);
        assert!(rate > NEUTRAL, "{rate}");
        assert!(backward.rate(RateModel::Evidence) > rate);
        // Shadow observations leave the step rule and the Beta model where they were.
        assert_eq!(forward.rate(RateModel::Beta), 2.0 / 5.0);
        assert_eq!(RateRow::default().rate(RateModel::Evidence), NEUTRAL);
    }

    #[test]
    fn the_prior_is_centred_on_what_was_forgotten() {
        let hit = mv(RateEvent::ShadowHit, 0.0);
        let miss = mv(RateEvent::ShadowMiss, 0.0);
        // Nothing forgotten yet: the posterior mean of Beta(1,2), as before forgetting.
        let one = fold(None, [&hit]);
        assert!((one.rate(RateModel::Evidence) - 0.5).abs() < 1e-15);
        // Followed 500 times, then ignored 20: the recent evidence reads half and half, and
        // the prior is centred near 1 instead of 1/3, so the rate stays above the plain mean
        // of the same recent counts, by at most PRIOR_WEIGHT observations' worth.
        let faithful = fold(
            None,
            std::iter::repeat_n(&hit, 500).chain(std::iter::repeat_n(&miss, 20)),
        );
        let plain =
            (1.0 + faithful.recent_hits) / (3.0 + faithful.recent_hits + faithful.recent_misses);
        let rate = faithful.rate(RateModel::Evidence);
        assert!(rate > plain + 0.05, "{rate} vs {plain}");
        assert!(
            rate < plain + PRIOR_WEIGHT / (3.0 + faithful.recent_hits + faithful.recent_misses)
        );
        // Ignored for long enough, it still falls: the prior weighs only PRIOR_WEIGHT.
        let gone = fold(Some(faithful), std::iter::repeat_n(&miss, 200));
        assert!(
            gone.rate(RateModel::Evidence) < 0.1,
            "{}",
            gone.rate(RateModel::Evidence)
        );
    }

    #[test]
    fn a_boundary_row_is_kept_apart_from_its_companions_own() {
        let own = RateKey::companion("ws", "Plan", "INDEX.md");
        let boundary = RateKey::at_boundary("ws", "Plan", "INDEX.md");
        assert_ne!(own, boundary);
        assert_eq!(boundary.boundary_companion(), Some("INDEX.md"));
        assert_eq!(own.boundary_companion(), None);
        assert_eq!(RateKey::family("ws", "Plan").boundary_companion(), None);
        // No pack names a companion whose own row would be a boundary row.
        let path = serde_json::to_string(&boundary.companion).expect("a JSON string");
        let pack = format!(
            r#"{{"families": [{{"name": "Plan", "rules": ["p/*.md"],
                "companions": [{{"path": {path}, "prior": 1.0}}]}}]}}"#
        );
        let err = crate::Pack::from_json_str(&pack, "p.json").expect_err("refused");
        assert!(err.to_string().contains("control character"), "{err}");
    }

    #[test]
    fn forget_is_the_half_life_written_out() {
        assert!((FORGET - 0.5f64.powf(1.0 / HALF_LIFE)).abs() < 1e-15);
        // After HALF_LIFE newer observations an old one weighs half.
        let hit = mv(RateEvent::ShadowHit, 0.0);
        let miss = mv(RateEvent::ShadowMiss, 0.0);
        let row = fold(
            None,
            std::iter::once(&hit).chain(std::iter::repeat_n(&miss, HALF_LIFE as usize)),
        );
        assert!((row.recent_hits - 0.5).abs() < 1e-12, "{}", row.recent_hits);
    }
}
