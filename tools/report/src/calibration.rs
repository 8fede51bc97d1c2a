//! Does a note's stated confidence mean what it says: the engines' scored notes by confidence
//! against how often they were followed (the backtest's `calibration` bins), with counts.

use crate::charts::{Axis, Chart, Series, Shape, Ticks};
use crate::figure::{self, Source, count, fraction, share};
use crate::{Input, ReportError};
use docsuggest_engine::evaluate::calibration_error;
use docsuggest_history::backtest::Run;
use maud::{Markup, PreEscaped, html};

/// The chart, the average gap per engine, and the bins.
pub fn section(input: &Input<'_>) -> Result<Markup, ReportError> {
    let engines: Vec<(usize, &Run)> = input
        .backtest
        .runs
        .iter()
        .enumerate()
        .filter(|(_, r)| r.figures.calibration.is_some())
        .collect();
    let svg = chart(&engines).svg()?;
    Ok(html! {
        figure.chart id="chart-calibration" {
            figcaption { "Stated confidence against how often such notes were followed" }
            (PreEscaped(svg))
        }
        p.glossary {
            em { "Stated confidence" } ": the number each note carries (0 to 1). Notes are grouped in tenths of it; each point is one group, at its notes' average confidence, labelled with how many notes it holds. "
            em { "Followed" } ": the note named at least one file its commit went on to change. "
            "A confidence that means what it says lies on the grey line."
        }
        ul {
            @for (_, r) in &engines {
                @let bins = r.figures.calibration.as_deref().unwrap_or_default();
                li {
                    (figure::suggester(&r.name)) ": "
                    @match calibration_error(bins) {
                        Some(gap) => { "stated confidence and the share followed differ by " (format!("{gap:.2}")) " on average over its notes." },
                        None => "no scored note.",
                    }
                }
            }
        }
        details {
            summary { "The figures behind this chart" }
            @for (_, r) in &engines { (bins_table(r)) }
        }
    })
}

/// A series of points per engine: (mean confidence, share followed), labelled with counts.
fn chart(engines: &[(usize, &Run)]) -> Chart {
    let series = engines
        .iter()
        .map(|&(i, r)| {
            let bins = r.figures.calibration.as_deref().unwrap_or_default();
            Series {
                name: figure::suggester(&r.name),
                points: bins
                    .iter()
                    .map(|b| (b.confidence, b.note_precision))
                    .collect(),
                colour: i,
                shape: Shape::LinePoints,
                labels: bins.iter().map(|b| format!("  {}", b.notes)).collect(),
            }
        })
        .collect();
    Chart {
        id: "chart-calibration".into(),
        x: Axis {
            label: "stated confidence".into(),
            range: 0.0..1.0,
            ticks: Ticks::Percent,
        },
        y: Axis {
            label: "share of notes followed".into(),
            range: 0.0..1.0,
            ticks: Ticks::Percent,
        },
        series,
        diagonal: Some("as stated".into()),
    }
}

/// An engine's bins.
fn bins_table(r: &Run) -> Markup {
    let at = Source::root().at("runs").at(&r.name).at("calibration");
    let bins = r.figures.calibration.as_deref().unwrap_or_default();
    html! {
        h4 { (figure::suggester(&r.name)) }
        table.compact {
            thead { tr { th.num { "average stated confidence" } th.num { "notes" } th.num { "followed" } } }
            tbody {
                @for (k, b) in bins.iter().enumerate() {
                    @let at = at.at(k);
                    tr {
                        td.num { (fraction(&at.at("confidence"), Some(b.confidence))) }
                        td.num { (count(&at.at("notes"), b.notes)) }
                        td.num { (share(&at.at("note_precision"), Some(b.note_precision))) }
                    }
                }
            }
        }
    }
}
