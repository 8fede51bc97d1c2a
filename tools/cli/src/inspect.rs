//! The store's contents for people and scripts: rate rows and history as JSON or tables
//! (reading the file is `docsuggest_host::stores`).

use crate::table::{self, Column};
use docsuggest_host::protocol::{RateView, Reading};
use docsuggest_schema::{HistoryEntry, RateKey, RateModel, RateRow};

/// Rows as JSON: one object per row with its workspace key. `rate` is the step-rule value (as
/// it always was); `evidence` is the evidence model's rate, with the counts behind it and
/// whether `reading` leaves the companion out; a companion's boundary row has `boundary`.
pub fn rates_json(rows: &[(RateKey, RateRow)], reading: Reading) -> String {
    serde_json::to_string_pretty(&rates_values(rows, reading)).unwrap_or_default()
}

/// The objects of [`rates_json`].
pub fn rates_values(rows: &[(RateKey, RateRow)], reading: Reading) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|(k, r)| {
            let view = RateView::new(k, r, reading);
            let mut value = serde_json::json!({
                "workspace": k.workspace,
                "family": view.family,
                "companion": view.companion,
                "rate": r.step,
                "step": view.step,
                "accepts": view.accepts,
                "rejects": view.rejects,
                "evidence": r.rate(RateModel::Evidence),
                "shadowHits": view.shadow_hits,
                "shadowMisses": view.shadow_misses,
                "recentHits": view.recent_hits,
                "recentMisses": view.recent_misses,
                "leftOut": view.left_out,
            });
            // Marked only where it is one, as the protocol's view is.
            if let (true, Some(object)) = (view.boundary, value.as_object_mut()) {
                object.insert("boundary".into(), true.into());
            }
            value
        })
        .collect()
}

/// Rows as a table for people: the step value, the evidence rate and its counts, and
/// whether the companion is left out now; every column as wide as its widest cell (a name past
/// its bound keeps its end behind `…`), then [`RATES_LEGEND`].
pub fn rates_table(rows: &[(RateKey, RateRow)], reading: Reading) -> String {
    if rows.is_empty() {
        return "no rate rows (nothing learned yet)\n".into();
    }
    let columns = [
        Column::text("workspace", 40),
        Column::text("family", 24),
        Column::text("companion", 64),
        Column::number("rate"),
        Column::number("accepts"),
        Column::number("rejects"),
        Column::number("evidence"),
        Column::number("shadow+"),
        Column::number("shadow-"),
        Column::text("left-out", 8),
    ];
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(k, r)| {
            let companion = match k.boundary_companion() {
                _ if k.companion.is_empty() => "(family)".to_string(),
                Some(companion) => format!("{companion} (boundary)"),
                None => k.companion.clone(),
            };
            vec![
                k.workspace.clone(),
                k.family.clone(),
                companion,
                format!("{:.2}", r.step),
                r.accepts.to_string(),
                r.rejects.to_string(),
                format!("{:.2}", r.rate(RateModel::Evidence)),
                r.shadow_hits.to_string(),
                r.shadow_misses.to_string(),
                if reading.leaves_out(k, r) { "yes" } else { "" }.to_string(),
            ]
        })
        .collect();
    let mut out = table::render(&columns, &cells, "");
    out.push_str(RATES_LEGEND);
    out
}

/// What the columns of a rates table mean, for a person reading it the first time.
pub const RATES_LEGEND: &str = "\
rate      the step rule's value (+acceptBonus per accept, -rejectPenalty per reject; 0.33 = never moved)
evidence  what notes use: (3c + hits) / (3 + hits + misses) over recent accepts, rejects and shadows,
          c being (1 + h) / (3 + h + m) over what is already forgotten (1/3 while nothing is)
shadow+/- a watched companion the agent opened / did not open within the window although no note
          named it (the would-be companions of a silence, or those a note left out): shadow
          evidence, which moves `evidence` with 0 accepts and 0 rejects
left-out  rated below pruneBelow: notes leave it out until its shadow hits bring it back
(boundary) what change boundaries saw of the companion, apart from its notes on edits: left out
          of what they name once seen, under followThreshold, until its shadow hits bring it back
";

/// History entries as a JSON array.
pub fn history_json(entries: &[HistoryEntry]) -> String {
    serde_json::to_string_pretty(entries).unwrap_or_default()
}

/// History entries as a table for people.
pub fn history_table(entries: &[HistoryEntry]) -> String {
    if entries.is_empty() {
        return "no history (no decision resolved yet)\n".into();
    }
    // Every column as wide as its widest cell, so a long family or workspace keeps the
    // columns after it aligned.
    let columns = [
        Column::number("res"),
        Column::number("dec"),
        Column::text("outcome", 9),
        Column::text("family", 64),
        Column::number("kappa"),
        Column::text("workspace", 48),
        Column::text("agent", 40),
        Column::text("companions", 400),
    ];
    let cells: Vec<Vec<String>> = entries
        .iter()
        .map(|e| {
            let d = &e.decision;
            let companions: Vec<String> = d
                .companions
                .iter()
                .map(|c| {
                    if d.accepted.as_deref() == Some(c.path.as_str()) {
                        format!("{}*", c.path)
                    } else {
                        c.path.clone()
                    }
                })
                .collect();
            vec![
                e.resolution_seq.to_string(),
                d.seq.to_string(),
                d.outcome.name().to_string(),
                d.family.clone(),
                format!("{:.2}", d.kappa),
                d.workspace.clone(),
                d.agent.clone(),
                companions.join(","),
            ]
        })
        .collect();
    let mut out = table::render(&columns, &cells, "");
    out.push_str("(* = the accepted companion)\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(family: &str, workspace: &str) -> HistoryEntry {
        serde_json::from_value(serde_json::json!({
            "resolution_seq": 1,
            "decision": {"seq": 1, "workspace": workspace, "agent": "a", "family": family,
                "kappa": 0.9, "companions": [{"path": "Documentation/INDEX.md", "score": 0.775,
                "values": [1.0, 0.5, 1.0, 0.5, 0.3, 0.3]}],
                "weights": [0.35, 0.0, 0.25, 0.25, 0.15, 0.0],
                "enabled": ["scope", "graph", "prior", "literal", "history", "accept"],
                "outcome": "accepted", "silence": null, "accepted": "Documentation/INDEX.md",
                "store": "redb"},
            "moves": []
        }))
        .expect("a history entry")
    }

    /// A long family or workspace name widens its column: every later column still starts at
    /// the same place on every line.
    #[test]
    fn history_columns_stay_aligned_on_long_names() {
        let long = "src-very-long-family-name-from-a-mined-pack";
        let text = history_table(&[
            entry("Plan", "ws-1"),
            entry(long, "workspace-with-a-long-key-1234"),
        ]);
        let lines: Vec<&str> = text.lines().collect();
        let at = [
            lines[0].find("workspace"),
            lines[1].find("ws-1"),
            lines[2].find("workspace-with"),
        ];
        assert!(at[0].is_some() && at.iter().all(|a| *a == at[0]), "{text}");
        assert!(lines[2].contains(long), "{text}");
        assert!(text.contains("Documentation/INDEX.md*"), "{text}");
    }
}
