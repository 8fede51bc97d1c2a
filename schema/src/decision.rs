//! Decision records: one emitted note or one gated silence, and how it was resolved.

use crate::heuristic::{Heuristic, Table};
use crate::rate::RateMove;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Which store answered the rates of a decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StoreKind {
    /// The durable redb store.
    Redb,
    /// The bounded in-memory fallback.
    Memory,
}

impl StoreKind {
    /// The name the ledger and the JSON lines use.
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Redb => "redb",
            StoreKind::Memory => "memory",
        }
    }
}

impl fmt::Display for StoreKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a decision stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// An emitted note whose window is open.
    Pending,
    /// The agent opened a named companion within the window.
    Accepted,
    /// The window closed untouched (soft reject).
    Rejected,
    /// The window was closed by a turn reset or a restart: no verdict, no rate move.
    Abandoned,
    /// A gated silence (no note was emitted).
    Silent,
}

impl Outcome {
    /// The name used in records and reports.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Pending => "pending",
            Outcome::Accepted => "accepted",
            Outcome::Rejected => "rejected",
            Outcome::Abandoned => "abandoned",
            Outcome::Silent => "silent",
        }
    }
}

/// Why a gated silence was silent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SilenceReason {
    /// kappa was below the gate.
    LowConfidence,
    /// Every companion had already been touched this turn.
    AlreadyTouched,
}

/// One measured companion of a decision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CompanionRow {
    /// The companion as the pack writes it (never rewritten).
    pub path: String,
    /// Its weighted score.
    pub score: f64,
    /// Its six heuristic values in canonical order.
    pub values: Table,
}

/// The record of one emitted note or one gated silence.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// Monotonic decision sequence number, assigned by the store when recorded.
    pub seq: u64,
    /// The workspace key (root directory name + short hash of its absolute path).
    pub workspace: String,
    /// The agent the call came from.
    pub agent: String,
    /// The family.
    pub family: String,
    /// The confidence over the companions the note names (or would name).
    pub kappa: f64,
    /// The ranked companions, head first.
    pub companions: Vec<CompanionRow>,
    /// The effective weight table.
    pub weights: Table,
    /// The enabled heuristics.
    pub enabled: Vec<Heuristic>,
    /// Where it stands.
    pub outcome: Outcome,
    /// For a silence, why.
    pub silence: Option<SilenceReason>,
    /// The accepted companion, once accepted.
    pub accepted: Option<String>,
    /// The store that answered its rates.
    pub store: StoreKind,
}

/// How a pending decision closes: the outcome and the rate moves committed with it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resolution {
    /// The pending decision's sequence number.
    pub decision_seq: u64,
    /// `Accepted`, `Rejected` or `Abandoned`.
    pub outcome: Outcome,
    /// The accepted companion.
    pub accepted: Option<String>,
    /// The rate moves, applied in order.
    pub moves: Vec<RateMove>,
}

/// One entry of the resolved history, in resolution order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// The resolution sequence number (the history's order).
    pub resolution_seq: u64,
    /// The decision with its final outcome.
    pub decision: Decision,
    /// The rate moves committed with it.
    pub moves: Vec<RateMove>,
}

impl HistoryEntry {
    /// The entry numbered `resolution_seq` that closes `decision` with `resolution`: the
    /// decision takes the resolution's outcome and accepted companion, the entry its moves.
    pub fn closing(
        mut decision: Decision,
        resolution: Resolution,
        resolution_seq: u64,
    ) -> HistoryEntry {
        decision.outcome = resolution.outcome;
        decision.accepted = resolution.accepted;
        HistoryEntry {
            resolution_seq,
            decision,
            moves: resolution.moves,
        }
    }
}

/// A history entry's decision as the `history` table stores it (schema v3): the moves are
/// stored apart, as an [`EntryMoves`] under the same number, so a recompute reads the moves
/// alone.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntryHead {
    /// The resolution sequence number.
    pub resolution_seq: u64,
    /// The decision with its final outcome.
    pub decision: Decision,
}

/// A history entry's moves as the `moves` table stores them (schema v3).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntryMoves {
    /// The resolution sequence number.
    pub resolution_seq: u64,
    /// The rate moves committed with it, in order.
    pub moves: Vec<RateMove>,
}
