//! The per-agent states of an engine, bounded: agents that stop calling are forgotten, least
//! recently seen first, once more than `maxAgents` are known.
//!
//! A host lives for days and agent ids come and go; without a bound every id ever seen would
//! keep its turn state and its open window (with compiled matchers) forever.

use crate::agent::{AgentState, Window};
use std::collections::HashMap;

struct Slot {
    state: AgentState,
    /// When the agent was last seen, on the engine's own call counter (no clock).
    seen: u64,
}

/// The agents an engine knows, with when each was last seen.
#[derive(Default)]
pub(crate) struct Agents {
    /// Looked up on every judged call: a fast hash (an id chosen to collide costs its sender
    /// slower lookups, nothing else).
    slots: HashMap<String, Slot, foldhash::fast::RandomState>,
    tick: u64,
}

impl Agents {
    /// Marks the agent as just seen, creating its state on first sight.
    pub(crate) fn seen(&mut self, agent: &str) {
        self.tick += 1;
        // The name is copied only the first time it is seen.
        match self.slots.get_mut(agent) {
            Some(slot) => slot.seen = self.tick,
            None => {
                let slot = Slot {
                    state: AgentState::default(),
                    seen: self.tick,
                };
                self.slots.insert(agent.to_string(), slot);
            }
        }
    }

    /// The agent's state, if it is known (not marked as seen).
    pub(crate) fn get(&self, agent: &str) -> Option<&AgentState> {
        self.slots.get(agent).map(|s| &s.state)
    }

    /// The agent's state, if it is known (not marked as seen), to change.
    pub(crate) fn get_mut(&mut self, agent: &str) -> Option<&mut AgentState> {
        self.slots.get_mut(agent).map(|s| &mut s.state)
    }

    /// Every known agent's state.
    pub(crate) fn states_mut(&mut self) -> impl Iterator<Item = &mut AgentState> {
        self.slots.values_mut().map(|s| &mut s.state)
    }

    /// Forgets the least recently seen agents while more than `max` are known, answering
    /// their open windows (to be closed as abandoned). It forgets down to 7/8 of `max` at
    /// once, so a stream of new agents pays for one sort every `max / 8` of them.
    pub(crate) fn evict_over(&mut self, max: usize) -> Vec<Window> {
        if self.slots.len() <= max {
            return Vec::new();
        }
        let keep = max - max / 8;
        let mut by_age: Vec<(u64, String)> = self
            .slots
            .iter()
            .map(|(name, slot)| (slot.seen, name.clone()))
            .collect();
        by_age.sort_unstable();
        let excess = self.slots.len() - keep.max(1);
        let mut windows = Vec::new();
        for (_, name) in by_age.into_iter().take(excess) {
            if let Some(mut slot) = self.slots.remove(&name) {
                windows.extend(slot.state.take_windows());
            }
        }
        windows
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sees `calls` in order with bound `max`; answers the agents left, sorted.
    fn check(calls: &[&str], max: usize, expect: &[&str]) {
        let mut agents = Agents::default();
        for agent in calls {
            agents.seen(agent);
            agents.evict_over(max);
        }
        let mut left: Vec<&str> = agents.slots.keys().map(String::as_str).collect();
        left.sort_unstable();
        assert_eq!(left, expect, "{calls:?} under {max}");
    }

    #[test]
    fn the_least_recently_seen_are_forgotten_first() {
        check(&["a", "b", "c"], 8, &["a", "b", "c"]);
        check(&["a", "b", "c"], 2, &["b", "c"]);
        // `a` was seen again, so `b` is the oldest.
        check(&["a", "b", "a", "c"], 2, &["a", "c"]);
        // Past the bound, down to 7/8 of it at once.
        let many: Vec<String> = (0..17).map(|i| format!("{i:02}")).collect();
        let names: Vec<&str> = many.iter().map(String::as_str).collect();
        check(&names, 16, &names[3..]);
        check(&["a", "b"], 1, &["b"]);
    }
}
