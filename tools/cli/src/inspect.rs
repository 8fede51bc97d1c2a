//! The store's contents for people and scripts: rate rows and history as JSON or tables
//! (reading the file is `docsuggest_host::stores`).

use crate::table::{self, Column};
use docsuggest_host::protocol::{RateView, Reading};
use docsuggest_schema::{HistoryEntry, RateKey, RateModel, RateRow};
use std::fmt::Write as _;

/// Rows as JSON: one object per row with its workspace key. `rate` is the step-rule value (as
/// it always was); `evidence` is the evidence model's rate, with the counts behind it and
/// whether `reading` leaves the companion out.
pub fn rates_json(rows: &[(RateKey, RateRow)], reading: Reading) -> String {
    serde_json::to_string_pretty(&rates_values(rows, reading)).unwrap_or_default()
}

/// The objects of [`rates_json`].
pub fn rates_values(rows: &[(RateKey, RateRow)], reading: Reading) -> Vec<serde_json::Value> {
    rows.iter()
        .map(|(k, r)| {
            let view = RateView::new(k, r, reading);
            serde_json::json!({
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
            })
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
            let companion = if k.companion.is_empty() {
                "(family)"
            } else {
                &k.companion
            };
            vec![
                k.workspace.clone(),
                k.family.clone(),
                companion.to_string(),
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
    let mut out = format!(
        "{:>6} {:>6} {:<9} {:<10} {:>5} {:<28} {:<12} {}\n",
        "res", "dec", "outcome", "family", "kappa", "workspace", "agent", "companions"
    );
    for e in entries {
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
        let _ = writeln!(
            out,
            "{:>6} {:>6} {:<9} {:<10} {:>5.2} {:<28} {:<12} {}",
            e.resolution_seq,
            d.seq,
            d.outcome.name(),
            d.family,
            d.kappa,
            d.workspace,
            d.agent,
            companions.join(",")
        );
    }
    out.push_str("(* = the accepted companion)\n");
    out
}
