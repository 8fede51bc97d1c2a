//! `docsuggest report`: one self-contained HTML page of what docsuggest found in a repository
//! and how well it did there (docs/REPORT.md).
//!
//! The page is made from two things the caller gathers: the repository's backtest (the
//! [`Report`] `backtest --json` prints, run as `init` runs it: out-of-sample) and what the
//! store has recorded for the repository ([`Learned`]). Every figure it shows that the
//! backtest holds is read from that structure, never counted again, and carries where it came
//! from ([`figure`]), so a test can hold the page to `backtest --json`. Charts are drawn by
//! plotters' SVG backend ([`charts`]), the page by maud's templates ([`page`]); nothing is
//! loaded from anywhere else (no script, no font, no image), so the file works offline and from
//! `file://`.

mod boundary;
mod calibration;
pub mod charts;
mod families;
pub mod figure;
mod learned;
mod over_time;
mod page;
mod scored;

use docsuggest_history::backtest::Report;
use docsuggest_schema::{HistoryEntry, Pack, RateKey, RateRow};

/// The sections of the page, by id, in order, with their headings.
pub const SECTIONS: [(&str, &str); 6] = [
    ("scored", "What was learned from, and what was scored"),
    ("families", "Conventions found"),
    (
        "over-time",
        "How often notes were right, commit after commit",
    ),
    (
        "calibration",
        "Does the stated confidence mean what it says?",
    ),
    ("boundary", "Reminders at the end of a change"),
    ("store", "What this machine has recorded"),
];

/// What the page is made from.
pub struct Input<'a> {
    /// The backtest, as `backtest --json` prints it.
    pub backtest: &'a Report,
    /// The command that prints the same backtest as JSON, shown on the page.
    pub backtest_command: String,
    /// The pack whose families the page lists.
    pub pack: PackShown,
    /// What the store has recorded for the repository.
    pub learned: Learned,
}

/// The pack whose families the page lists: the one in use in the work tree, else the one the
/// backtest mined.
pub struct PackShown {
    /// Where it is, in words (`.dsh/doc-pack.json in the work tree`).
    pub source: String,
    /// The pack.
    pub pack: Pack,
}

/// What the store has recorded for the repository.
pub enum Learned {
    /// There is no store file yet.
    Missing {
        /// The store file looked for.
        store: String,
    },
    /// The store could not be read, or the repository is no workspace it could key.
    Unreadable {
        /// The store file.
        store: String,
        /// Why, in one line.
        reason: String,
    },
    /// What it holds for the repository's workspace key.
    Read(Recorded),
}

/// A store's rows and history for one workspace key.
pub struct Recorded {
    /// The store file.
    pub store: String,
    /// The repository's workspace key.
    pub workspace_key: String,
    /// Its rate rows.
    pub rows: Vec<(RateKey, RateRow)>,
    /// Its resolved history, in resolution order.
    pub history: Vec<HistoryEntry>,
}

/// Why a page could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// A chart could not be drawn.
    #[error("cannot draw the chart {chart}: {reason}")]
    Chart {
        /// The chart's id.
        chart: String,
        /// Why.
        reason: String,
    },
}

/// The page, as one HTML document.
pub fn render(input: &Input<'_>) -> Result<String, ReportError> {
    page::page(input).map(|markup| markup.into_string())
}
