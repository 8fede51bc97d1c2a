//! The reminders at the end of a change (`check-change`, the Stop and commit hooks), as
//! `backtest --boundary` scores them: how many were false alarms on the real commits, and how
//! many files left out of a commit they named.

use crate::charts::{Axis, Chart, Series, Shape, Ticks};
use crate::figure::{self, Source, count, fraction, per_100, share};
use crate::{Input, ReportError};
use docsuggest_history::backtest::boundary::{
    BLOCK_BAR, BoundaryReport, CheckFigures, CutPoint, Point,
};
use maud::{Markup, PreEscaped, html};

/// The checks' table and chart, or why there are none.
pub fn section(input: &Input<'_>) -> Result<Markup, ReportError> {
    let Some(b) = &input.backtest.boundary else {
        return Ok(html! { p {
            "The backtest did not score the end-of-change reminders (" code { "backtest --boundary" } " does)."
        } });
    };
    let root = Source::root().at("boundary");
    let svg = chart(b).svg()?;
    Ok(html! {
        p {
            "At the end of each of the " (count(&root.at("commits"), b.commits as u64))
            " scored commits the reminder lists the companion files the change left out. The real commits were complete as their authors made them, so everything it named there is a wrong reminder. Then each commit was replayed "
            (count(&root.at("simulated_misses"), b.simulated_misses)) " times in all, once per companion file with that file left out: a reminder naming it was right."
        }
        table {
            thead {
                tr { th {} th colspan="3" { "at its own bar" } th colspan="4" { "at the bar keeping wrong reminders under " (b.false_alarm_budget) " per 100 commits" } }
                tr {
                    th { "reminder" }
                    th.num { "wrong reminders per 100 commits" } th.num { "commits reminded, per 100" } th.num { "left-out files named" }
                    th.num { "bar" } th.num { "wrong reminders per 100 commits" } th.num { "commits reminded, per 100" } th.num { "left-out files named" }
                }
            }
            tbody {
                @for c in &b.checks { (check_row(&root, c)) }
            }
        }
        figure.chart id="chart-boundary" {
            figcaption { "Wrong reminders against left-out files named, for each kind of reminder" }
            (PreEscaped(svg))
        }
        (stop_table(&root, b))
        p.glossary {
            em { "Wrong reminder" } ": a file named at the end of a commit that was complete without it. "
            em { "Left-out files named" } ": of the companion files taken out of a commit one at a time, the share the reminder named. "
            em { "Bar" } ": the lowest score a file needs to be named; the higher point of each line is the reminder at its own bar, the other at the bar that keeps it within budget. "
            "Files are companions under " (b.reference) "."
        }
    })
}

/// What the Stop reminder would have blocked on: the claims clearing [`BLOCK_BAR`], on each
/// commit cut short as an agent leaves a change and at every Stop (the commits with nothing
/// to leave out met whole, where any block is wrong), and whether that lets it block here.
fn stop_table(root: &Source, b: &BoundaryReport) -> Markup {
    let learning = (b.checks.iter())
        .find(|c| c.name == "learning")
        .and_then(at_bar);
    html! {
        h3 { "Does the Stop reminder block here?" }
        p {
            "Each scored commit was also cut short as an agent leaves a change: a seeded half of its companion files left out. A block is right when every file it names is in the real commit. At every Stop, a commit with nothing to leave out is met whole, as a finished change, where any block is wrong. "
            @match learning {
                Some((_, p)) if p.every_stop_reminders_per_100_commits > 0.0
                    && p.every_stop_right_share.is_some_and(|s| s >= BLOCK_BAR) => {
                    "At least " (figure::percent(BLOCK_BAR)) " of the learning engine's blocks were right at every Stop: the Stop reminder may hold the agent up here."
                }
                Some((_, p)) if p.every_stop_reminders_per_100_commits > 0.0 => {
                    "Fewer than " (figure::percent(BLOCK_BAR)) " of the learning engine's blocks were right at every Stop: the Stop reminder only informs the user here."
                }
                _ => { "The learning engine never blocked: the Stop reminder only informs the user here." }
            }
        }
        table {
            thead {
                tr { th {} th colspan="3" { "changes cut short" } th colspan="2" { "every Stop" } }
                tr {
                    th { "reminder" }
                    th.num { "blocks per 100 cut commits" } th.num { "blocks right" } th.num { "left-out files named" }
                    th.num { "blocks per 100 commits" } th.num { "blocks right" }
                }
            }
            tbody {
                @for c in &b.checks {
                    @if let Some((index, p)) = at_bar(c) {
                        @let at = root.at("checks").at(&c.name).at("cut").at(index);
                        tr {
                            td { (figure::suggester(&c.name)) }
                            td.num { (per_100(&at.at("reminders_per_100_commits"), p.reminders_per_100_commits)) }
                            td.num { (share(&at.at("reminders_right_share"), p.reminders_right_share)) }
                            td.num { (share(&at.at("left_out_named_share"), p.left_out_named_share)) }
                            td.num { (per_100(&at.at("every_stop_reminders_per_100_commits"), p.every_stop_reminders_per_100_commits)) }
                            td.num { (share(&at.at("every_stop_right_share"), p.every_stop_right_share)) }
                        }
                    }
                }
            }
        }
    }
}

/// A check's point at the block bar, with its index in `cut`.
fn at_bar(c: &CheckFigures) -> Option<(usize, &CutPoint)> {
    let index = c.cut.iter().position(|p| p.bar >= BLOCK_BAR)?;
    Some((index, &c.cut[index]))
}

/// One check's row: at its default bar, then within the budget.
fn check_row(root: &Source, c: &CheckFigures) -> Markup {
    let at = root.at("checks").at(&c.name);
    let cells = |point: &Point, at: Source| {
        html! {
            td.num { (per_100(&at.at("false_alarms_per_100_commits"), point.false_alarms_per_100_commits)) }
            td.num { (per_100(&at.at("commits_alarmed_per_100"), point.commits_alarmed_per_100)) }
            td.num {
                (share(&at.at("caught_share"), point.caught_share))
                " (" (count(&at.at("misses_caught"), point.misses_caught)) ")"
            }
        }
    };
    let budget = at.at("within_budget");
    html! {
        tr {
            td { (figure::suggester(&c.name)) }
            (cells(&c.at_default, at.at("at_default")))
            td.num { (fraction(&budget.at("bar"), c.within_budget.bar.is_finite().then_some(c.within_budget.bar))) }
            (cells(&c.within_budget, budget))
        }
    }
}

/// A line per check from its default bar to its bar within the budget.
fn chart(b: &BoundaryReport) -> Chart {
    let series: Vec<Series> = b
        .checks
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let point = |p: &Point| {
                (
                    p.false_alarms_per_100_commits,
                    p.caught_share.unwrap_or(0.0),
                )
            };
            Series {
                name: figure::suggester(&c.name),
                points: vec![point(&c.at_default), point(&c.within_budget)],
                colour: i,
                shape: Shape::LinePoints,
                labels: vec!["  own bar".into(), "  within budget".into()],
            }
        })
        .collect();
    let right = series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold(b.false_alarm_budget, f64::max);
    Chart {
        id: "chart-boundary".into(),
        x: Axis {
            label: "wrong reminders per 100 commits".into(),
            range: 0.0..right * 1.2,
            ticks: Ticks::Number,
        },
        y: Axis {
            label: "left-out files named".into(),
            range: 0.0..1.0,
            ticks: Ticks::Percent,
        },
        series,
        diagonal: None,
    }
}
