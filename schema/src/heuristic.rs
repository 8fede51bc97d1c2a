//! The six pickable heuristics, the weight table and the canonical `name=value` table.

use serde::{Deserialize, Serialize};
use std::fmt;

/// One of the six pickable heuristics, in canonical (table) order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Heuristic {
    /// 1.00 when the call matched the family's rules.
    Scope,
    /// The neutral graph-distance placeholder (0.50).
    Graph,
    /// The pack's prior for the companion.
    Prior,
    /// The neutral literal (0.50).
    Literal,
    /// The learned accept rate of the companion.
    History,
    /// The learned accept rate of the family.
    Accept,
}

impl Heuristic {
    /// All six, in canonical order.
    pub const ALL: [Heuristic; 6] = [
        Heuristic::Scope,
        Heuristic::Graph,
        Heuristic::Prior,
        Heuristic::Literal,
        Heuristic::History,
        Heuristic::Accept,
    ];

    /// The name used in config files and ledger tables.
    pub fn name(self) -> &'static str {
        match self {
            Heuristic::Scope => "scope",
            Heuristic::Graph => "graph",
            Heuristic::Prior => "prior",
            Heuristic::Literal => "literal",
            Heuristic::History => "history",
            Heuristic::Accept => "accept",
        }
    }

    /// Parses a heuristic name; `None` for anything else.
    pub fn from_name(name: &str) -> Option<Heuristic> {
        Heuristic::ALL.into_iter().find(|h| h.name() == name)
    }

    /// Position in canonical order (index into a [`Table`]).
    pub fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Heuristic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Six numbers in canonical heuristic order: a weight table or a companion's values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table(pub [f64; 6]);

impl Table {
    /// The PoC's default weights: `scope:0.35, graph:0, prior:0.25, literal:0.25, history:0.15, accept:0`.
    pub const DEFAULT_WEIGHTS: Table = Table([0.35, 0.0, 0.25, 0.25, 0.15, 0.0]);

    /// The value for one heuristic.
    pub fn get(&self, h: Heuristic) -> f64 {
        self.0[h.index()]
    }

    /// Sets the value for one heuristic.
    pub fn set(&mut self, h: Heuristic, value: f64) {
        self.0[h.index()] = value;
    }

    /// The effective table: the weight of every heuristic not in `enabled` becomes 0.
    pub fn effective(&self, enabled: &[Heuristic]) -> Table {
        let mut out = Table([0.0; 6]);
        for h in enabled {
            out.set(*h, self.get(*h));
        }
        out
    }

    /// `Σ self[h] × values[h]` over all six (use an effective table for the enabled sum).
    pub fn dot(&self, values: &Table) -> f64 {
        self.0.iter().zip(values.0.iter()).map(|(w, v)| w * v).sum()
    }
}

impl fmt::Display for Table {
    /// The canonical byte-stable form: `scope=1.00,graph=0.50,...`, two decimals, no spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, h) in Heuristic::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}={:.2}", h.name(), self.0[i])?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_prints_canonically() {
        let values = Table([1.0, 0.5, 1.0, 0.5, 1.0 / 3.0, 1.0 / 3.0]);
        assert_eq!(
            values.to_string(),
            "scope=1.00,graph=0.50,prior=1.00,literal=0.50,history=0.33,accept=0.33"
        );
    }

    #[test]
    fn effective_zeroes_disabled_names() {
        let eff = Table::DEFAULT_WEIGHTS.effective(&[Heuristic::Scope, Heuristic::Literal]);
        assert_eq!(eff.0, [0.35, 0.0, 0.0, 0.25, 0.0, 0.0]);
    }

    #[test]
    fn names_round_trip() {
        for h in Heuristic::ALL {
            assert_eq!(Heuristic::from_name(h.name()), Some(h));
        }
        assert_eq!(Heuristic::from_name("Scope"), None);
    }
}
