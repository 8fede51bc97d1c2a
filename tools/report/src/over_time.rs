//! How the figures moved over the scored commits: each suggester's precision, followed notes
//! and unfollowed notes per 100 commits, stretch by stretch (the backtest's `stretches`).

use crate::charts::{Axis, Chart, Series, Shape, Ticks};
use crate::figure::{self, Source, count, per_100, share};
use crate::{Input, ReportError};
use docsuggest_history::backtest::Run;
use docsuggest_history::backtest::stretches::Stretch;
use maud::{Markup, PreEscaped, html};

/// One chart of the section: its id, caption, vertical axis, how it reads a stretch, and its
/// glossary line.
struct Measure {
    id: &'static str,
    caption: &'static str,
    axis: &'static str,
    ticks: Ticks,
    value: fn(&Stretch) -> Option<f64>,
    glossary: &'static str,
}

const MEASURES: [Measure; 3] = [
    Measure {
        id: "chart-precision",
        caption: "Share of the named files that were followed",
        axis: "named files followed",
        ticks: Ticks::Percent,
        value: |s| s.companion_precision,
        glossary: "Precision: of the files the notes of a stretch named, the share its commits went on to change. \
                   Higher is better.",
    },
    Measure {
        id: "chart-followed",
        caption: "Notes that were followed, per 100 commits",
        axis: "followed notes per 100 commits",
        ticks: Ticks::Number,
        value: |s| Some(s.followed_per_100_commits),
        glossary: "A followed note named at least one file its commit went on to change: a note that helped.",
    },
    Measure {
        id: "chart-unfollowed",
        caption: "Notes with nothing followed, per 100 commits",
        axis: "unfollowed notes per 100 commits",
        ticks: Ticks::Number,
        value: |s| Some(s.nag_per_100_commits),
        glossary: "An unfollowed note named nothing its commit changed: noise an agent has to read past. Lower is better.",
    },
];

/// The three charts, then the figures behind them.
pub fn section(input: &Input<'_>) -> Result<Markup, ReportError> {
    let runs = &input.backtest.runs;
    let per = runs
        .first()
        .and_then(|r| r.figures.stretches.first())
        .map_or(0, |s| s.commits);
    let mut charts = Vec::new();
    for m in &MEASURES {
        charts.push((m, chart(m, runs).svg()?));
    }
    Ok(html! {
        p {
            "The " (input.backtest.scored_commits) " scored commits, oldest first, in stretches of about " (per)
            " commits; each point is one stretch. The learning engine learns as it goes; the static engine says what the conventions alone would; co-change needs no conventions."
        }
        @for (m, svg) in &charts {
            figure.chart id=(m.id) {
                figcaption { (m.caption) }
                (PreEscaped(svg))
            }
            p.glossary { (m.glossary) }
        }
        details {
            summary { "The figures behind these charts" }
            @for r in runs { (stretch_table(r)) }
        }
    })
}

/// One measure's chart: a line per suggester.
fn chart(m: &Measure, runs: &[Run]) -> Chart {
    let series: Vec<Series> = runs
        .iter()
        .enumerate()
        .map(|(i, r)| Series {
            name: figure::suggester(&r.name),
            points: r
                .figures
                .stretches
                .iter()
                .filter_map(|s| Some((middle(s), (m.value)(s)?)))
                .collect(),
            colour: i,
            shape: Shape::LinePoints,
            labels: Vec::new(),
        })
        .collect();
    let commits = runs
        .first()
        .and_then(|r| r.figures.stretches.last())
        .map_or(1, |s| s.from + s.commits);
    let top = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.1))
        .fold(0.0f64, f64::max);
    let y = match m.ticks {
        Ticks::Percent => 0.0..1.0,
        Ticks::Number => 0.0..(top * 1.15).max(1.0),
    };
    Chart {
        id: m.id.into(),
        x: Axis {
            label: "scored commits, oldest first".into(),
            range: 0.0..commits as f64,
            ticks: Ticks::Number,
        },
        y: Axis {
            label: m.axis.into(),
            range: y,
            ticks: m.ticks,
        },
        series,
        diagonal: None,
    }
}

/// Where a stretch is drawn: its middle commit.
fn middle(s: &Stretch) -> f64 {
    s.from as f64 + s.commits as f64 / 2.0
}

/// One suggester's stretches as a table.
fn stretch_table(r: &Run) -> Markup {
    let at = Source::root().at("runs").at(&r.name).at("stretches");
    html! {
        h4 { (figure::suggester(&r.name)) }
        table.compact {
            thead { tr {
                th.num { "commits" } th.num { "notes" } th.num { "followed notes" }
                th.num { "files named" } th.num { "followed files" } th.num { "precision" }
                th.num { "followed per 100" } th.num { "unfollowed per 100" }
            } }
            tbody {
                @for (k, s) in r.figures.stretches.iter().enumerate() {
                    @let at = at.at(k);
                    tr {
                        td.num { (count(&at.at("from"), s.from as u64)) "–" (s.from + s.commits) }
                        td.num { (count(&at.at("notes"), s.notes)) }
                        td.num { (count(&at.at("notes_followed"), s.notes_followed)) }
                        td.num { (count(&at.at("companions_named"), s.companions_named)) }
                        td.num { (count(&at.at("hits"), s.hits)) }
                        td.num { (share(&at.at("companion_precision"), s.companion_precision)) }
                        td.num { (per_100(&at.at("followed_per_100_commits"), s.followed_per_100_commits)) }
                        td.num { (per_100(&at.at("nag_per_100_commits"), s.nag_per_100_commits)) }
                    }
                }
            }
        }
    }
}
