//! The page: one HTML document with its style inline, a contents list, and the sections in
//! [`SECTIONS`] order. Nothing is loaded from anywhere else.

use crate::figure::short;
use crate::{Input, ReportError, SECTIONS};
use crate::{boundary, calibration, families, learned, over_time, scored};
use maud::{DOCTYPE, Markup, PreEscaped, html};

/// The page's style sheet, inlined.
const STYLE: &str = include_str!("page.css");

/// The whole document.
pub fn page(input: &Input<'_>) -> Result<Markup, ReportError> {
    let b = input.backtest;
    let bodies = [
        scored::section(input),
        families::section(input),
        over_time::section(input)?,
        calibration::section(input)?,
        boundary::section(input)?,
        learned::section(&input.learned)?,
    ];
    let name = repo_name(&b.repo);
    Ok(html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "docsuggest report: " (name) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                header {
                    h1 { "What docsuggest found in " (name) }
                    p.small {
                        "Repository " code { (b.repo) } " at " code { (short(&b.tip)) }
                        ". The conventions it found, how often following them was right on commits it had not seen, and what it has learned here since."
                    }
                }
                nav {
                    ol { @for (id, title) in SECTIONS { li { a href={ "#" (id) } { (title) } } } }
                }
                main {
                    @for ((id, title), body) in SECTIONS.iter().zip(bodies) {
                        section id=(id) {
                            h2 { (title) }
                            (body)
                        }
                    }
                }
                footer {
                    "Made by " code { "docsuggest report" } " from the repository's own history and this machine's store. "
                    "Every figure from the backtest carries where it came from in " code { "backtest --json" } "."
                }
            }
        }
    })
}

/// The last component of the repository's path, for the title.
fn repo_name(repo: &str) -> &str {
    repo.trim_end_matches('/')
        .rsplit('/')
        .next()
        .filter(|n| !n.is_empty())
        .unwrap_or(repo)
}
