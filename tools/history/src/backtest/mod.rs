//! `backtest` and `bootstrap`: a repository's own git history replayed through the engine.
//!
//! Each kept first-parent commit becomes one turn of a simulated agent ([`trace`]); the turns
//! run through the same [`Dispatcher`] as `serve`, once with the static engine and once with
//! the config's learning engine, each on a throwaway memory store, in a scratch work tree that
//! holds each commit's tree as it was ([`scratch`]), and every note is scored against what its
//! commit really changed ([`score`]), next to a co-change baseline.
//! `bootstrap` runs the same turns into a real store, and `backtest --store` starts the
//! learning engine from a copy of such a store's learned rows ([`warm`]). docs/BACKTEST.md
//! describes every figure.
//!
//! [`Dispatcher`]: docsuggest_host::protocol::Dispatcher

mod bootstrap;
pub mod boundary;
mod error;
pub mod kinds;
pub use crate::history;
mod options;
mod pack;
mod peek;
mod prepare;
mod rekey;
mod report;
mod run;
pub mod score;
mod scratch;
pub mod stretches;
pub mod trace;
mod trace_file;
mod warm;

pub use bootstrap::{BootstrapReport, Replaced, bootstrap};
pub use error::BacktestError;
pub use options::{DEFAULT_MAX_FILES, Options, run_config};
pub use pack::MinedFrom;
pub use prepare::{Prepared, prepare};
pub use run::{EngineRun, memory_store, run_engine};
pub use trace_file::write_trace;
pub use warm::WarmStart;

use docsuggest_engine::BoxedStore;
use docsuggest_schema::Config;
use error::io;
use pack::compile_pack_file;
use score::{Bases, Figures, Matchers, Note, Scoring};
use std::collections::BTreeMap;
use trace::Skipped;

/// The co-change baseline names at most this many files.
pub const COCHANGE_MAX: usize = 7;
/// The co-change settings reported: (support k, confidence c).
pub const COCHANGE_SETTINGS: [(u64, f64); 2] = [(2, 0.5), (1, 0.2)];

/// One suggester's figures, with the engine's refusals.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Run {
    /// `static`, `learning`, or a co-change setting.
    pub name: String,
    /// The figures.
    #[serde(flatten)]
    pub figures: Figures,
    /// Requests the engine refused, by code (engines only).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub errors: BTreeMap<String, u64>,
}

/// What `docsuggest backtest` reports.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    /// The repository.
    pub repo: String,
    /// The tip commit.
    pub tip: String,
    /// Where the pack came from.
    pub pack: String,
    /// The workspace the runs recorded for: the work tree when it holds the pack in use, else
    /// the scratch work tree (the engine judges in a scratch work tree either way).
    pub workspace: String,
    /// Whether that is the scratch work tree: no work tree holds the pack in use.
    pub scratch_workspace: bool,
    /// First-parent commits read.
    pub first_parent_commits: usize,
    /// Commits skipped, by reason.
    pub skipped: Skipped,
    /// Commits kept (turns).
    pub kept: usize,
    /// Kept commits the learning engine trained on before scoring began.
    pub training_commits: usize,
    /// Kept commits scored.
    pub scored_commits: usize,
    /// The follow-through window and neutral reads per turn.
    pub learn_window: usize,
    /// The last commit the learning engine trained on before scoring (with `--since` or
    /// `--train-fraction`): `bootstrap --rev` it for a warm start that has seen no scored
    /// commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_training_commit: Option<String>,
    /// The pack was mined from the training commits: how many, up to which.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mined_from: Option<MinedFrom>,
    /// Whether some scored commit is one the pack in use records it was mined from: its
    /// figures are then in-sample, not what the pack does on commits it has not seen.
    pub in_sample: bool,
    /// How many scored commits the pack was mined from.
    #[serde(skip_serializing_if = "is_zero")]
    pub in_sample_commits: usize,
    /// The store whose learned rows the learning engine started from (`--store`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warm_start: Option<WarmStart>,
    /// The static engine (`learn: false`), the learning engine, then the co-change baselines.
    pub runs: Vec<Run>,
    /// The pack's companions by kind, and how often the learning engine's notes naming each
    /// kind were followed.
    pub kinds: Vec<kinds::KindFigures>,
    /// The change-boundary check's figures (`--boundary`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundary: Option<boundary::BoundaryReport>,
}

/// `docsuggest backtest`: the static and the learning engine over the history, scored.
pub fn backtest(options: &Options) -> Result<Report, BacktestError> {
    let learning = run_config(options, true)?;
    let fixed = run_config(options, false)?;
    let prepared = prepare(options, &learning)?;
    if let Some(file) = &options.trace_out {
        write_trace(&prepared, file)?;
    }
    let paths: Vec<Vec<String>> = prepared
        .turns
        .iter()
        .map(|t| score::scored_paths(t, &learning.exclude))
        .collect();
    let matchers = Matchers::new(&prepared.pack);
    let mut bases = Bases::new(&prepared.history.tip_paths);
    let (trigger_cov, any_cov) = score::coverable(&paths, &prepared.pack, &matchers, &mut bases);
    let scoring = Scoring {
        paths: &paths,
        split: prepared.split,
        trigger_cov: &trigger_cov,
        any_cov: &any_cov,
    };
    let (warm_start, warm_store) = match &options.store {
        Some(store) => {
            let (start, rows) = warm::learned(store, &prepared, &learning)?;
            (Some(start), Some(rows))
        }
        None => (None, None),
    };
    let mut boundary = options
        .boundary
        .then(|| Boundary::new(options, &prepared, &paths, &mut bases))
        .transpose()?;
    let mut scorer = Scorer {
        scoring,
        matchers,
        bases,
    };
    let engines = [("static", fixed), ("learning", learning)];
    let mut runs = engine_runs(
        options,
        &prepared,
        engines,
        warm_store,
        boundary.as_mut(),
        &mut scorer,
    )?;
    runs.extend(cochange_runs(&scorer.scoring));
    let boundary = boundary.map(|b| b.finish(&paths, prepared.split));
    Ok(report(options, &prepared, warm_start, runs, boundary))
}

/// What an engine's notes are scored with.
struct Scorer<'a> {
    scoring: Scoring<'a>,
    matchers: Matchers,
    bases: Bases,
}

impl Scorer<'_> {
    /// An engine's notes scored.
    fn engine(&mut self, notes: &[Note]) -> Figures {
        self.scoring.engine(notes, &self.matchers, &mut self.bases)
    }
}

/// The engines' runs over the prepared turns, scored (the static one left out with
/// `--learning-only`): the learning engine starts from `warm_store` when there is one.
fn engine_runs(
    options: &Options,
    prepared: &Prepared,
    engines: [(&'static str, Config); 2],
    mut warm_store: Option<BoxedStore>,
    mut boundary: Option<&mut Boundary>,
    scorer: &mut Scorer<'_>,
) -> Result<Vec<Run>, BacktestError> {
    let mut runs = Vec::new();
    for (name, config) in engines
        .into_iter()
        .filter(|(name, _)| !(options.learning_only && *name == "static"))
    {
        // Only the learning engine starts warm: the static one reads no rate.
        let store = match name {
            "learning" => warm_store.take(),
            _ => None,
        }
        .unwrap_or_else(|| memory_store(&config));
        // The companion files each scored commit is cut short by, when the learning engine
        // learns from the reminders it makes on them.
        let reminders = match (&boundary, name) {
            (Some(b), "learning") if options.boundary_learns => Some(b.misses.as_slice()),
            _ => None,
        };
        let peeks = boundary::Peeks {
            at_boundary: boundary.is_some(),
            reminders,
        };
        let run = run_engine(prepared, config, store, name, peeks)?;
        if let Some(b) = boundary.as_deref_mut() {
            b.check_engine(name, scorer.scoring.paths, prepared.split, &run.peeks);
        }
        runs.push(Run {
            name: name.into(),
            figures: scorer.engine(&run.notes),
            errors: run.errors,
        });
    }
    Ok(runs)
}

/// The co-change baselines, one per setting.
fn cochange_runs<'s>(scoring: &'s Scoring<'_>) -> impl Iterator<Item = Run> + 's {
    COCHANGE_SETTINGS.into_iter().map(|(k, c)| Run {
        name: format!("co-change k{k} c{c}"),
        figures: scoring.cochange(k, c, COCHANGE_MAX),
        errors: BTreeMap::new(),
    })
}

/// The report of the runs over `prepared`, with the pack's kinds as the learning engine's
/// notes met them.
fn report(
    options: &Options,
    prepared: &Prepared,
    warm_start: Option<WarmStart>,
    runs: Vec<Run>,
    boundary: Option<boundary::BoundaryReport>,
) -> Report {
    let kinds = runs
        .iter()
        .find(|r| r.name == "learning")
        .map(|r| kinds::figures(&prepared.pack, &r.figures))
        .unwrap_or_default();
    Report {
        kinds,
        repo: options.repo.display().to_string(),
        tip: prepared.history.tip.clone(),
        pack: prepared.pack_source.clone(),
        workspace: prepared.recorded_workspace(),
        scratch_workspace: prepared.shadowed(),
        first_parent_commits: prepared.history.commits.len(),
        skipped: prepared.skipped.clone(),
        kept: prepared.turns.len(),
        training_commits: prepared.split,
        scored_commits: prepared.turns.len() - prepared.split,
        learn_window: prepared.pad,
        last_training_commit: prepared
            .split
            .checked_sub(1)
            .and_then(|i| prepared.turns.get(i))
            .map(|t| t.id.clone()),
        mined_from: prepared.mined.clone(),
        in_sample: prepared.in_sample > 0,
        in_sample_commits: prepared.in_sample,
        warm_start,
        runs,
        boundary,
    }
}

/// The boundary scoring under way: the simulated misses and the checks scored so far.
struct Boundary {
    misses: Vec<std::collections::BTreeSet<usize>>,
    report: boundary::BoundaryReport,
}

impl Boundary {
    fn new(
        options: &Options,
        prepared: &Prepared,
        paths: &[Vec<String>],
        bases: &mut Bases,
    ) -> Result<Boundary, BacktestError> {
        let (reference, source) = match &options.reference_pack {
            Some(file) => (compile_pack_file(file)?, file.display().to_string()),
            None => (prepared.pack.clone(), prepared.pack_source.clone()),
        };
        let misses = boundary::companion_files(paths, prepared.split, &reference, bases);
        Ok(Boundary {
            report: boundary::BoundaryReport {
                reference: source,
                commits: paths.len() - prepared.split,
                simulated_misses: misses.iter().map(|m| m.len() as u64).sum(),
                false_alarm_budget: boundary::FALSE_ALARM_BUDGET,
                checks: Vec::new(),
            },
            misses,
        })
    }

    /// An engine's check scored from its peeks.
    fn check_engine(
        &mut self,
        name: &str,
        paths: &[Vec<String>],
        split: usize,
        peeks: &[Vec<boundary::Peeked>],
    ) {
        self.report.checks.push(boundary::engine_check(
            name,
            paths,
            split,
            peeks,
            &self.misses,
        ));
    }

    /// The report, co-change's check added after the engines'.
    fn finish(mut self, paths: &[Vec<String>], split: usize) -> boundary::BoundaryReport {
        // Co-change is also held to the learning engine's blocks' precision.
        let learning_precision = (self.report.checks.iter())
            .find(|c| c.name == "learning")
            .and_then(|c| c.cut.iter().find(|p| p.bar >= boundary::BLOCK_BAR))
            .and_then(|p| p.reminders_right_share);
        self.report.checks.push(boundary::cochange_check(
            paths,
            split,
            &self.misses,
            COCHANGE_MAX,
            learning_precision,
        ));
        self.report
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}
