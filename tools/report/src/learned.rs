//! What this machine's store has recorded for the repository: its notes' outcomes over time,
//! the rates it learned, and its latest notes.

use crate::charts::{Axis, Chart, Series, Shape, Ticks};
use crate::figure::{interval, percent};
use crate::{Learned, Recorded, ReportError};
use docsuggest_schema::rate::PRIOR_WEIGHT;
use docsuggest_schema::{HistoryEntry, Outcome, RateModel, RateRow};
use maud::{Markup, PreEscaped, html};

/// At most this many points per line of the chart over time.
const MAX_POINTS: usize = 300;
/// At most this many learned rows listed (`docsuggest rates` lists them all).
const MAX_ROWS: usize = 200;
/// The latest notes listed.
const LATEST: usize = 10;

/// The section: what the store holds for the repository, or why there is nothing to show.
pub fn section(learned: &Learned) -> Result<Markup, ReportError> {
    let r = match learned {
        Learned::Missing { store } => {
            return Ok(html! { p {
                "There is no store at " code { (store) } " yet: it is made when an agent's hooks first call docsuggest ("
                code { "docsuggest install-hooks" } "). Until then only the backtest above speaks for this repository."
            } });
        }
        Learned::Unreadable { store, reason } => {
            return Ok(
                html! { p.warning { "The store at " code { (store) } " could not be read: " (reason) } },
            );
        }
        Learned::Read(r) => r,
    };
    if r.rows.is_empty() && r.history.is_empty() {
        return Ok(html! { p {
            "The store at " code { (r.store) } " holds nothing for this repository yet (workspace key "
            code { (r.workspace_key) } "): it learns as agents work here with the hooks installed."
        } });
    }
    let tally = Tally::of(&r.history);
    Ok(html! {
        p {
            "The store at " code { (r.store) } " has settled " (r.history.len()) " decisions for this repository (workspace key "
            code { (r.workspace_key) } "): " (tally.accepted) " notes followed, " (tally.rejected) " not followed, "
            (tally.abandoned) " closed without a verdict, and " (tally.silent) " times it kept quiet."
        }
        figure.chart id="chart-store" {
            figcaption { "Notes followed and not followed so far, decision after decision" }
            (PreEscaped(over_time(&r.history).svg()?))
        }
        p.glossary {
            em { "Followed" } ": the agent opened or changed a file the note named before it moved on. "
            em { "Not followed" } ": the note's window closed with none of them touched. "
            "Decisions are in the order they were settled; the store keeps no clock."
        }
        (rows_table(r))
        (latest(&r.history))
    })
}

/// Counts of outcomes.
#[derive(Default)]
struct Tally {
    accepted: usize,
    rejected: usize,
    abandoned: usize,
    silent: usize,
}

impl Tally {
    fn of(history: &[HistoryEntry]) -> Tally {
        let mut t = Tally::default();
        for e in history {
            match e.decision.outcome {
                Outcome::Accepted => t.accepted += 1,
                Outcome::Rejected => t.rejected += 1,
                Outcome::Abandoned => t.abandoned += 1,
                Outcome::Silent => t.silent += 1,
                Outcome::Pending => {}
            }
        }
        t
    }
}

/// Running counts of followed and unfollowed notes over the settled decisions.
fn over_time(history: &[HistoryEntry]) -> Chart {
    let step = history.len().div_ceil(MAX_POINTS).max(1);
    let (mut followed, mut not) = (vec![(0.0, 0.0)], vec![(0.0, 0.0)]);
    let (mut a, mut r) = (0u64, 0u64);
    for (i, e) in history.iter().enumerate() {
        match e.decision.outcome {
            Outcome::Accepted => a += 1,
            Outcome::Rejected => r += 1,
            _ => {}
        }
        let n = i + 1;
        if n % step == 0 || n == history.len() {
            followed.push((n as f64, a as f64));
            not.push((n as f64, r as f64));
        }
    }
    let series = |name: &str, points: Vec<(f64, f64)>, colour| Series {
        name: name.into(),
        points,
        colour,
        shape: Shape::Line,
        labels: Vec::new(),
    };
    Chart {
        id: "chart-store".into(),
        x: Axis {
            label: "decisions settled, oldest first".into(),
            range: 0.0..history.len() as f64,
            ticks: Ticks::Number,
        },
        y: Axis {
            label: "notes so far".into(),
            range: 0.0..(a.max(r) as f64 * 1.1).max(1.0),
            ticks: Ticks::Number,
        },
        series: vec![
            series("followed", followed, 3),
            series("not followed", not, 1),
        ],
        diagonal: None,
    }
}

/// A learned rate with its 95 % interval, or a dash for none: the evidence model's rate over
/// as many observations as its recent evidence and prior are worth.
pub fn rate_cell(row: Option<&RateRow>) -> Markup {
    html! {
        @match row.filter(|r| r.observations() > 0) {
            Some(r) => {
                @let p = r.rate(RateModel::Evidence);
                (percent(p)) " " span.interval { "(" (interval(p, PRIOR_WEIGHT + r.recent_hits + r.recent_misses)) ")" }
            },
            None => span.none { "nothing yet" },
        }
    }
}

/// The learned rows.
fn rows_table(r: &Recorded) -> Markup {
    html! {
        h3 { "Rates learned" }
        table {
            thead { tr {
                th { "convention" } th { "companion" } th.num { "learned rate" }
                th.num { "followed" } th.num { "not followed" }
                th.num { "opened unprompted" } th.num { "left alone unprompted" }
            } }
            tbody {
                @for (k, row) in r.rows.iter().take(MAX_ROWS) {
                    tr {
                        td { (k.family) }
                        td {
                            @match (k.companion.as_str(), k.boundary_companion()) {
                                ("", _) => em { "(the convention as a whole)" },
                                (_, Some(c)) => { code { (c) } " " em { "(at the end of a change)" } },
                                (c, None) => code { (c) },
                            }
                        }
                        td.num { (rate_cell(Some(row))) }
                        td.num { (row.accepts) } td.num { (row.rejects) }
                        td.num { (row.shadow_hits) } td.num { (row.shadow_misses) }
                    }
                }
            }
        }
        @if r.rows.len() > MAX_ROWS {
            p.small { "and " (r.rows.len() - MAX_ROWS) " more rows: " code { "docsuggest rates" } " lists them all." }
        }
        p.glossary {
            em { "Opened unprompted" } ": the agent opened a companion no note had named (evidence all the same). "
            em { "Learned rate" } ": how often the companion is followed, recent evidence weighing more, with a 95 % interval; a rate under the prune line leaves the companion out of notes."
        }
    }
}

/// The latest notes and what became of them.
fn latest(history: &[HistoryEntry]) -> Markup {
    let notes: Vec<&HistoryEntry> = history
        .iter()
        .filter(|e| e.decision.outcome != Outcome::Silent)
        .collect();
    let notes = &notes[notes.len().saturating_sub(LATEST)..];
    html! {
        @if !notes.is_empty() {
            h3 { "Latest notes" }
            table {
                thead { tr { th.num { "#" } th { "convention" } th.num { "stated confidence" } th { "what happened" } th { "files named" } } }
                tbody {
                    @for e in notes {
                        @let d = &e.decision;
                        tr {
                            td.num { (e.resolution_seq) } td { (d.family) } td.num { (format!("{:.2}", d.kappa)) }
                            td { (outcome(d.outcome)) }
                            td { @for (i, c) in d.companions.iter().enumerate() {
                                @if i > 0 { ", " }
                                @if d.accepted.as_deref() == Some(c.path.as_str()) { strong { code { (c.path) } } } @else { code { (c.path) } }
                            } }
                        }
                    }
                }
            }
            p.glossary { "The file in bold is the one the agent followed." }
        }
    }
}

fn outcome(o: Outcome) -> &'static str {
    match o {
        Outcome::Accepted => "followed",
        Outcome::Rejected => "not followed",
        Outcome::Abandoned => "closed without a verdict",
        Outcome::Pending => "still open",
        Outcome::Silent => "kept quiet",
    }
}
