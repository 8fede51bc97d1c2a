//! `docsuggest demo`: a sample workspace, a simulated agent session, and what the engine
//! learned from it — kept in an embedded store of the demo's own, so a second run starts where
//! the first ended.
//!
//! The workspace lives at [`DEFAULT_DIR`] (recreated identically on every run, so its
//! workspace key is stable); the store is [`DEFAULT_STORE`] unless `--store` names another —
//! never the store the hooks learn in, unless `--store` names it. The trace is written to
//! `<workspace>/.dsh/demo-trace.jsonl`, ready for `docsuggest replay`.

pub mod session;
pub mod workspace;

use crate::replay::{self, Run};
use crate::table::{self, Column};
use docsuggest_host::home;
use docsuggest_host::host::{self, StoreChoice};
use docsuggest_host::protocol::{Dispatcher, LineReader, RateView, Reading};
use docsuggest_host::summary::Summary;
use docsuggest_schema::{Config, StoreError, StoreKind};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

/// Where the demo workspace is built by default.
pub const DEFAULT_DIR: &str = "~/.dsh/playform/demo-workspace";

/// The demo's own store, beside the hooks' (`~/.dsh/playform/hook-dsh-doc-suggester.redb`),
/// which it leaves alone.
pub const DEFAULT_STORE: &str = "~/.dsh/playform/demo.redb";

/// The default seed of the simulated session.
pub const DEFAULT_SEED: u64 = 7;

/// The default number of judge requests in the session.
pub const DEFAULT_CALLS: usize = 300;

/// How many ledger lines the excerpt shows (`no-signal` abstentions, the bulk of any session,
/// are left out).
pub const EXCERPT_LINES: usize = 16;

/// What `docsuggest demo` is given.
#[derive(Clone, Debug)]
pub struct DemoOptions {
    /// The store file (default: [`DEFAULT_STORE`]).
    pub store: Option<PathBuf>,
    /// The workspace directory (default: [`DEFAULT_DIR`]).
    pub dir: Option<PathBuf>,
    /// The session's seed.
    pub seed: u64,
    /// Judge requests in the session.
    pub calls: usize,
}

impl Default for DemoOptions {
    fn default() -> Self {
        DemoOptions {
            store: None,
            dir: None,
            seed: DEFAULT_SEED,
            calls: DEFAULT_CALLS,
        }
    }
}

/// A demo that could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DemoError {
    /// The workspace or the trace could not be written.
    #[error("cannot prepare the demo workspace {dir}: {source}")]
    Workspace {
        /// The directory.
        dir: String,
        /// Why.
        source: std::io::Error,
    },
    /// The built workspace was not recognised as one (a bug: its signature file is written).
    #[error("{0} was not recognised as a workspace")]
    NotAWorkspace(String),
    /// Reading the store failed.
    #[error("reading the store failed: {0}")]
    Store(#[from] StoreError),
}

/// What one demo run did.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DemoReport {
    /// The workspace directory.
    pub workspace: String,
    /// Its workspace key.
    pub key: String,
    /// The store file (`None` is never the case for the demo, kept for symmetry).
    pub store_path: Option<String>,
    /// The store the session ran on (`memory` when the file was unavailable).
    pub store: StoreKind,
    /// The seed.
    pub seed: u64,
    /// The trace file written.
    pub trace: String,
    /// The first ledger lines of the session (startup lines first, no-signal lines left out).
    pub ledger_excerpt: Vec<String>,
    /// The workspace's rows before the session.
    pub rates_before: Vec<RateView>,
    /// The workspace's rows after it.
    pub rates_after: Vec<RateView>,
    /// The session's summary.
    pub summary: Summary,
}

fn workspace_error(dir: &Path) -> impl FnOnce(std::io::Error) -> DemoError + '_ {
    move |source| DemoError::Workspace {
        dir: dir.display().to_string(),
        source,
    }
}

/// Runs the demo.
pub fn run(options: &DemoOptions) -> Result<DemoReport, DemoError> {
    let dir = match &options.dir {
        Some(d) => home::expand(&d.to_string_lossy()),
        None => home::expand(DEFAULT_DIR),
    };
    let dir = home::absolute(&dir).map_err(workspace_error(&dir))?;
    workspace::build(&dir).map_err(workspace_error(&dir))?;
    let cwd = dir.display().to_string();
    let trace = session::generate(options.seed, options.calls, &cwd);
    let trace_file = dir.join(".dsh/demo-trace.jsonl");
    write_trace(&trace_file, &trace).map_err(workspace_error(&dir))?;

    // Its own store unless told otherwise: a demo's rows never land in the store the hooks
    // learn in, and the hooks' daemon holding that one is no concern of the demo's.
    let store = match &options.store {
        Some(path) => path.clone(),
        None => home::expand(DEFAULT_STORE),
    };
    let host = host::start(Config::default(), &StoreChoice::File(store), false);
    let startup = host.startup.clone();
    let store_path = host.store_path.clone();
    let mut dispatcher = Dispatcher::for_host(host);
    let key = dispatcher
        .engine_mut()
        .workspace_key_of(&dir)
        .ok_or_else(|| DemoError::NotAWorkspace(cwd.clone()))?;
    let model = Reading::of(dispatcher.engine().config());
    let rates_before = rates_of(&dispatcher, &key, model)?;

    let mut excerpt = startup;
    let text = trace.join("\n");
    let mut reader = LineReader::new(text.as_bytes());
    let run = replay::run_lines(
        &mut dispatcher,
        &mut reader,
        &indicatif::ProgressBar::hidden(),
        |h| {
            let room = EXCERPT_LINES.saturating_sub(excerpt.len());
            let telling = h
                .ledger
                .iter()
                .filter(|l| !l.contains(" abstained no-signal "));
            excerpt.extend(telling.take(room).cloned());
        },
    )
    // Reading lines from memory cannot fail.
    .unwrap_or_else(|_| Run::default());
    let rates_after = rates_of(&dispatcher, &key, model)?;
    let summary = replay::finish(&mut dispatcher, run)?;
    Ok(DemoReport {
        workspace: cwd,
        key,
        store_path: store_path.map(|p| p.display().to_string()),
        store: summary.store,
        seed: options.seed,
        trace: trace_file.display().to_string(),
        ledger_excerpt: excerpt,
        rates_before,
        rates_after,
        summary,
    })
}

fn write_trace(file: &Path, lines: &[String]) -> std::io::Result<()> {
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(file, text)
}

fn rates_of(
    dispatcher: &Dispatcher,
    key: &str,
    model: Reading,
) -> Result<Vec<RateView>, StoreError> {
    let Some(contents) = dispatcher.engine().store().contents() else {
        return Ok(Vec::new());
    };
    Ok(RateView::of_workspace(&contents.rate_rows()?, key, model))
}

impl DemoReport {
    /// The report as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
    }
}

/// What the demo's ledger lines and rates mean, for a person seeing them the first time.
pub const LEGEND: &str = "  suggest <family> <kappa>      a note was made; kappa, its confidence, is sigmoid(sum of the named
                                companions' scores - 0.6) until the family has evidence, then the
                                likelihood that the note is followed; the note speaks when it
                                reaches `threshold` (`followThreshold` once the family has evidence)
  decided ... scope=1.00,...    the head companion's six values, each in 0..1: scope (1: in the
                                workspace), graph and literal (0.5: not measured), prior (the
                                pack's), history (its learned rate), accept (the family's learned
                                rate); weights=... how much each counts in its score
  abstained <reason>            no note: low-confidence (under the gate), no-signal (no family),
                                already-touched, no-companions, foreign-workspace, pack-mining
  accepts / rejects             a note named the companion and the agent opened it / did not
  shadow+ / shadow-             a companion watched without being named (a silence's would-be
                                companions, or those a note left out) was opened / not: shadow
                                evidence, which moves a rate with 0 accepts and 0 rejects";

fn label(view: &RateView) -> (String, String) {
    (
        view.family.clone(),
        view.companion.clone().unwrap_or_else(|| "(family)".into()),
    )
}

impl fmt::Display for DemoReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let _ = writeln!(out, "docsuggest demo (seed {})", self.seed);
        let _ = writeln!(out, "  workspace  {} (key {})", self.workspace, self.key);
        let store = self.store_path.as_deref().unwrap_or("(memory)");
        let _ = writeln!(out, "  store      {store} ({})", self.store);
        let _ = writeln!(out, "  trace      {}", self.trace);
        let _ = writeln!(
            out,
            "             replay it: docsuggest replay {}",
            self.trace
        );
        let _ = writeln!(
            out,
            "\nledger excerpt (first {} lines, no-signal abstentions left out)",
            self.ledger_excerpt.len()
        );
        for line in &self.ledger_excerpt {
            let _ = writeln!(out, "  {line}");
        }
        let before: BTreeMap<(String, String), &RateView> =
            self.rates_before.iter().map(|v| (label(v), v)).collect();
        let _ = writeln!(
            out,
            "\nlearned rates of {} (start = before this run, 0.33 = never moved)",
            self.key
        );
        let columns = [
            Column::text("family", 24),
            Column::text("companion", 64),
            Column::number("start"),
            Column::number("now"),
            Column::number("accepts"),
            Column::number("rejects"),
            Column::number("shadow+"),
            Column::number("shadow-"),
        ];
        let rows: Vec<Vec<String>> = self
            .rates_after
            .iter()
            .map(|view| {
                let (family, companion) = label(view);
                let start = before
                    .get(&(family.clone(), companion.clone()))
                    .map_or(docsuggest_schema::rate::NEUTRAL, |v| v.rate);
                vec![
                    family,
                    companion,
                    format!("{start:.2}"),
                    format!("{:.2}", view.rate),
                    view.accepts.to_string(),
                    view.rejects.to_string(),
                    view.shadow_hits.to_string(),
                    view.shadow_misses.to_string(),
                ]
            })
            .collect();
        if self.rates_after.is_empty() {
            let _ = writeln!(out, "  (nothing learned yet)");
        } else {
            out.push_str(&table::render(&columns, &rows, "  "));
        }
        let _ = writeln!(out, "\nsummary\n{}", self.summary);
        let _ = writeln!(out, "how to read it\n{LEGEND}\n");
        let _ = write!(
            out,
            "{}",
            match self.store {
                StoreKind::Redb => "Run the demo again: the rates start where this run ended.",
                StoreKind::Memory => {
                    "This run learned on memory (its store file could not be used: the first \
                     lines say why), so nothing it learned was kept; pass --store PATH to keep \
                     what a run learns."
                }
            }
        );
        f.write_str(&out)
    }
}
