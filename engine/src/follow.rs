//! Step 4, the follow-through: every judged in-workspace call either accepts the agent's open
//! window (it names a companion), ages it, or closes it as a soft reject; shadow windows of
//! gated silences are followed the same way but only observe.
//!
//! Under the evidence model a window — a note's or a silence's — stays open for its whole
//! length (or until every companion it watches is touched), so each named and watched
//! companion gets a hit or a miss: named ones as accepts and rejects, unnamed ones as shadow
//! hits and misses. The `accepted` line is still written at the first touch of a named
//! companion.
//!
//! [`follow`] reads the agent's windows and returns what the call resolved ([`Followed`]);
//! [`apply`] (`follow/apply.rs`) is the one place that carries it out on the agent's state.

mod apply;
mod close;

pub use apply::apply;
pub use close::{abandon, close_with_evidence, cut_short, soft_reject};

use crate::agent::{AgentState, CallUnder};
use crate::pipeline::Located;
use docsuggest_schema::Config;

/// What the follow-through reads of the config (a `Copy` view, so a boundary's settling
/// widens its window without copying the config).
#[derive(Clone, Copy, Debug)]
pub struct FollowView {
    /// The calls a window stays open.
    pub learn_window: u32,
    /// What an accept moves a rate by.
    pub accept_bonus: f64,
    /// What a reject moves a rate by.
    pub reject_penalty: f64,
}

impl FollowView {
    /// The view of `config`.
    pub fn of(config: &Config) -> FollowView {
        FollowView {
            learn_window: config.learn_window,
            accept_bonus: config.accept_bonus,
            reject_penalty: config.reject_penalty,
        }
    }
}

/// What one in-workspace call resolved of the agent's open windows, found without changing
/// them. Every window of the call's workspace that no step closes ages by one call.
#[derive(Debug)]
#[must_use = "the follow-through changes nothing until it is applied"]
pub struct Followed<'w> {
    /// The call's workspace: its windows are the ones the call ages.
    workspace: &'w str,
    /// What became of the note's window (none open in the workspace: `None`).
    note: Option<NoteStep>,
    /// The shadow windows the call touched or closes, by their place in the agent's list,
    /// in order. Empty (no allocation) on a call that touches and closes none.
    shadows: Vec<ShadowStep>,
}

/// What a call did to the note's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NoteStep {
    /// It touched the named companion at this index: the note is accepted.
    Accepted(usize),
    /// It touched none and the window stays open.
    Aged,
    /// It touched none and the window ran out: a soft reject.
    Expired,
}

/// What a call did to one shadow window.
#[derive(Debug, PartialEq, Eq)]
struct ShadowStep {
    /// Its place in the agent's shadow list when the call came.
    at: usize,
    /// What the call touched of it.
    seen: Seen,
    /// Whether the window closes with this call.
    closes: bool,
}

/// What a call touched of one shadow window.
#[derive(Debug, PartialEq, Eq)]
enum Seen {
    /// An evidence window: the companions (named, then watched) first touched now.
    Evidence(Vec<usize>),
    /// A silence's window outside the evidence model: the named companion touched, if any.
    Named(Option<usize>),
}

/// Step 4: what an in-workspace call resolves of the agent's open window and shadow windows.
/// Reads the state only; [`apply`] carries the answer out.
pub fn follow<'w>(state: &AgentState, located: &Located<'w>, config: FollowView) -> Followed<'w> {
    let workspace = located.workspace.key.as_str();
    // The call path under each window's bases, taken once for the windows that share them.
    let mut under = CallUnder::new(located.path);
    let note = state
        .window
        .as_ref()
        .filter(|window| window.workspace == workspace)
        .map(|window| match window.named_by(under.under(&window.bases)) {
            Some(named) => NoteStep::Accepted(named),
            None if expires(window.age, config) => NoteStep::Expired,
            None => NoteStep::Aged,
        });
    let mut shadows = Vec::new();
    let ours = state.shadows.iter().enumerate();
    for (at, shadow) in ours.filter(|(_, s)| s.workspace == workspace) {
        let under = under.under(&shadow.bases);
        let expires = expires(shadow.age, config);
        let (seen, closes) = if shadow.evidence {
            let touches = shadow.touched_by(under);
            let closes = expires || shadow.all_touched_with(&touches);
            if touches.is_empty() && !closes {
                continue;
            }
            (Seen::Evidence(touches), closes)
        } else {
            let named = shadow.named_by(under);
            if named.is_none() && !expires {
                continue;
            }
            (Seen::Named(named), true)
        };
        shadows.push(ShadowStep { at, seen, closes });
    }
    Followed {
        workspace,
        note,
        shadows,
    }
}

/// Whether a window of `age` calls runs out with this one.
fn expires(age: u32, config: FollowView) -> bool {
    age.saturating_add(1) >= config.learn_window
}
