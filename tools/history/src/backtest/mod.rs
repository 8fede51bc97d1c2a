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

mod bootstrap;
pub mod boundary;
pub mod kinds;
pub use crate::history;
mod rekey;
mod report;
pub mod score;
mod scratch;
pub mod trace;
mod warm;

pub use bootstrap::{BootstrapReport, Replaced, bootstrap};
pub use warm::WarmStart;

use docsuggest_engine::BoxedStore;
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_host::host::{self, HostError};
use docsuggest_host::protocol::Dispatcher;
use docsuggest_host::stores::InspectError;
use docsuggest_schema::Config;
use docsuggest_schema::pack::{DEFAULT_SIGNATURE, Pack, REPO_PACK_PATH};
use history::{History, HistoryError};
use score::{Bases, Figures, Matchers, Note, Scoring};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use trace::{Skipped, Turn};

/// Commits with more files than this are skipped by default (a bulk change is no task).
pub const DEFAULT_MAX_FILES: usize = 40;
/// The co-change baseline names at most this many files.
pub const COCHANGE_MAX: usize = 7;
/// The co-change settings reported: (support k, confidence c).
pub const COCHANGE_SETTINGS: [(u64, f64); 2] = [(2, 0.5), (1, 0.2)];

/// What a backtest or bootstrap is given.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The repository (a work tree or a bare repository).
    pub repo: PathBuf,
    /// A JSON config file (a patch over the defaults).
    pub config_file: Option<PathBuf>,
    /// The tip revision (default `HEAD`).
    pub rev: Option<String>,
    /// Learn before this commit, score after it.
    pub since: Option<String>,
    /// Learn over this share of the kept commits, score the rest.
    pub train_fraction: Option<f64>,
    /// Commits with more files are skipped.
    pub max_files: usize,
    /// The pack to use instead of the repository's.
    pub pack_file: Option<PathBuf>,
    /// Where to write the trace as protocol lines.
    pub trace_out: Option<PathBuf>,
    /// Start the learning engine from a copy of this store's learned rows (backtest only;
    /// the file is only read).
    pub store: Option<PathBuf>,
    /// Mine a pack from the training commits even when the repository has one (`--pack`
    /// still wins).
    pub mine_always: bool,
    /// Run the learning engine only (and the co-change baselines), not the static one.
    pub learning_only: bool,
    /// Read only the newest this many first-parent commits.
    pub newest: Option<usize>,
    /// The history already read with these options (`init` reads it once for both).
    pub history: Option<History>,
    /// Also score the change-boundary check (`check-change`) on the scored commits.
    pub boundary: bool,
    /// The pack whose companions are the boundary's simulated misses (default: the pack in
    /// use).
    pub reference_pack: Option<PathBuf>,
}

/// A backtest or bootstrap that could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BacktestError {
    /// The history could not be read.
    #[error(transparent)]
    History(#[from] HistoryError),
    /// The config file is unusable.
    #[error(transparent)]
    Host(#[from] HostError),
    /// The pack does not parse or is invalid.
    #[error("the pack {file} is unusable: {reason}")]
    Pack {
        /// Which pack.
        file: String,
        /// Why.
        reason: String,
    },
    /// An argument is out of range.
    #[error("{0}")]
    Argument(String),
    /// A file could not be written or a scratch directory made.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The store already holds history for this workspace.
    #[error(
        "the store {store} already holds history for {workspace}: pass --force to replay into it anyway"
    )]
    Refused {
        /// The store file.
        store: String,
        /// The workspace.
        workspace: String,
    },
    /// The store could not be closed cleanly.
    #[error("closing the store failed: {0}")]
    Close(String),
    /// A store to start from or replay into cannot be used.
    #[error("cannot use the store {store}: {reason}")]
    Store {
        /// The store file.
        store: String,
        /// Why.
        reason: String,
    },
    /// The store to start from holds nothing learned for the workspace.
    #[error(
        "the store {store} holds no learned rates for {workspace} (key {key}; it holds {held}): \
         fill it with `docsuggest bootstrap {workspace} --store {store} --rev REV` first"
    )]
    OtherWorkspace {
        /// The store file.
        store: String,
        /// The workspace judged in.
        workspace: String,
        /// Its key.
        key: String,
        /// The keys the store does hold, or "no rates at all".
        held: String,
    },
    /// The workspace the engine judges in is no workspace of the pack.
    #[error(transparent)]
    Workspace(InspectError),
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> BacktestError {
    let what = what.into();
    move |source| BacktestError::Io { what, source }
}

/// A history ready to run: the turns, the pack, the workspace the engine judges in.
pub struct Prepared {
    /// The repository the trees are read from.
    repo: PathBuf,
    /// The history read.
    pub history: History,
    /// Where the pack came from.
    pub pack_source: String,
    /// The pack.
    pub pack: CompiledPack,
    /// The kept commits as turns.
    pub turns: Vec<Turn>,
    /// What was skipped.
    pub skipped: Skipped,
    /// The workspace every call is judged in (absolute): the scratch work tree.
    pub workspace: String,
    /// The scratch work tree, following the history.
    scratch: scratch::Scratch,
    /// When the work tree holds the pack in use: its keys, under which every run records.
    keys: Option<scratch::Keys>,
    /// The neutral file of the trailing reads.
    pub neutral: String,
    /// Neutral reads after each turn's files.
    pub pad: usize,
    /// Turns before this index train only.
    pub split: usize,
    /// The pack was mined from the training commits (no pack was given or found).
    pub mined: Option<MinedFrom>,
}

impl Prepared {
    /// Whether what the engine learns is keyed to the scratch work tree rather than to the
    /// repository's work tree (a bare repository, or a work tree whose pack differs from the
    /// one in use): then no store of the work tree can be filled or started from.
    pub fn shadowed(&self) -> bool {
        self.keys.is_none()
    }

    /// The workspace the runs record for: the work tree when it holds the pack in use, else
    /// the scratch work tree.
    pub fn recorded_workspace(&self) -> String {
        match &self.keys {
            Some(keys) => keys.work_tree().display().to_string(),
            None => self.workspace.clone(),
        }
    }
}

/// The pack file in the work tree, when it is a regular file (a symlink is not followed).
fn work_tree_pack(dir: &Path) -> Option<String> {
    let file = dir.join(REPO_PACK_PATH);
    let meta = std::fs::symlink_metadata(&file).ok()?;
    if !meta.is_file() || meta.len() > history::MAX_PACK_BYTES {
        return None;
    }
    std::fs::read_to_string(file).ok()
}

/// The engine's config for a run: the file's fields, then what the trace needs: a window
/// as long as the largest kept commit (so a companion changed in the same commit counts as
/// followed), and no ledger file.
pub fn run_config(options: &Options, learn: bool) -> Result<Config, BacktestError> {
    let mut config = host::load_config(options.config_file.as_deref())?;
    config.learn_window = config
        .learn_window
        .max(u32::try_from(options.max_files).unwrap_or(u32::MAX));
    config.log = false;
    if !learn {
        config.learn = false;
    }
    Ok(config)
}

/// Reads the history and builds the turns.
pub fn prepare(options: &Options, config: &Config) -> Result<Prepared, BacktestError> {
    if options.max_files == 0 {
        return Err(BacktestError::Argument(
            "--max-files must be at least 1".into(),
        ));
    }
    if let Some(f) = options.train_fraction
        && !(0.0..1.0).contains(&f)
    {
        return Err(BacktestError::Argument(format!(
            "--train-fraction {f} is not in [0, 1)"
        )));
    }
    let history = match &options.history {
        Some(history) => history.clone(),
        None => read_history(options)?,
    };
    let mut mined = None;
    let (pack_text, pack_source) = match &options.pack_file {
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| BacktestError::Pack {
                file: file.display().to_string(),
                reason: e.to_string(),
            })?;
            (Some(text), file.display().to_string())
        }
        None => match &history.tip_pack {
            // A pack in the work tree that the tip does not hold (not committed yet, or
            // changed since) is the one the user means.
            _ if !options.mine_always
                && let Some(text) = history.work_tree.as_deref().and_then(work_tree_pack)
                && history.tip_pack.as_deref() != Some(text.as_str()) =>
            {
                let how = if history.tip_pack.is_some() {
                    "changed since the tip"
                } else {
                    "not committed"
                };
                (
                    Some(text),
                    format!("{REPO_PACK_PATH} in the work tree ({how})"),
                )
            }
            Some(text) if !options.mine_always => {
                (Some(text.clone()), format!("{REPO_PACK_PATH} at the tip"))
            }
            _ if !options.mine_always
                && history.tip_paths.iter().any(|p| p == DEFAULT_SIGNATURE) =>
            {
                (None, "built-in".to_string())
            }
            _ => {
                let from = mine_training(options, &history)?;
                let source = format!(
                    "mined from the first {} first-parent commits (up to {}); no scored commit was mined",
                    from.commits, from.last_commit
                );
                let text = from.pack.clone();
                mined = Some(from);
                (Some(text), source)
            }
        },
    };
    let (source, pack) = parse_pack(pack_text.as_deref(), &pack_source)?;
    let (turns, skipped) = trace::turns(&history.commits, &pack, options.max_files);
    if turns.is_empty() {
        return Err(BacktestError::Argument(format!(
            "no commit of {} touches a family of the pack ({} first-parent commits read)",
            options.repo.display(),
            history.commits.len()
        )));
    }
    // The engine judges in a scratch work tree that follows the history, with the pack in use
    // at its root; when the work tree holds that same pack, what it records is keyed as the
    // work tree's.
    let scratch = scratch::Scratch::new(&source)?;
    let workspace = scratch.path().to_path_buf();
    let keys = history
        .work_tree
        .as_deref()
        .filter(|w| work_tree_pack(w) == pack_text)
        .map(|w| {
            let work = docsuggest_host::home::absolute(w).unwrap_or_else(|_| w.to_path_buf());
            scratch::Keys::new(&workspace, &work)
        });
    let repo = history
        .work_tree
        .clone()
        .unwrap_or_else(|| options.repo.clone());
    let neutral = neutral_file(&history.tip_paths, &pack, &config.exclude);
    let split = match (&history.since, options.train_fraction) {
        // A mined pack has seen the first commits of the chain, whatever the pack keeps.
        _ if mined.is_some() => {
            let mined_commits = mined.as_ref().map_or(0, |m| m.commits);
            turns.iter().filter(|t| t.position < mined_commits).count()
        }
        (Some(since), _) => {
            let at = history
                .commits
                .iter()
                .position(|c| &c.id == since)
                .unwrap_or(0);
            turns.iter().filter(|t| t.position <= at).count()
        }
        (None, Some(f)) => (f * turns.len() as f64).floor() as usize,
        (None, None) => 0,
    };
    if split >= turns.len() {
        return Err(BacktestError::Argument(format!(
            "no kept commit is left to score after the first {split}"
        )));
    }
    Ok(Prepared {
        repo,
        pad: config.learn_window as usize,
        workspace: workspace.display().to_string(),
        history,
        pack_source,
        pack,
        turns,
        skipped,
        scratch,
        keys,
        neutral,
        split,
        mined,
    })
}

/// Reads the history `options` name, with a progress bar on a terminal.
fn read_history(options: &Options) -> Result<History, BacktestError> {
    let bar = crate::progress::bar_for(u64::MAX, 0, "reading history {spinner} {pos} commits");
    let history = history::read_with(
        &options.repo,
        &history::ReadOptions {
            rev: options.rev.as_deref(),
            since: options.since.as_deref(),
            max_files: options.max_files,
            newest: options.newest,
        },
        |n| {
            if n % 256 == 0 {
                bar.set_position(n as u64)
            }
        },
    )?;
    bar.finish_and_clear();
    Ok(history)
}

/// The commits a pack is mined from when a backtest has no pack: those up to `--since`, or
/// the first `--train-fraction` of the first-parent commits (half when neither is given),
/// mined against the paths of the last of them. The commits after them are scored.
fn mine_training(options: &Options, history: &History) -> Result<MinedFrom, BacktestError> {
    let n = history.commits.len();
    let (commits, default_fraction) = match (&history.since, options.train_fraction) {
        (Some(since), _) => (
            history
                .commits
                .iter()
                .position(|c| &c.id == since)
                .map_or(0, |at| at + 1),
            false,
        ),
        (None, Some(f)) => ((f * n as f64).floor() as usize, false),
        (None, None) => (n / 2, true),
    };
    if commits == 0 || commits >= n {
        return Err(BacktestError::Argument(format!(
            "the repository has no pack to backtest and none can be mined without scoring the \
             commits it was mined from: {commits} of {n} first-parent commits would train \
             (pass --pack FILE, or --since REV / --train-fraction F leaving commits on both sides)"
        )));
    }
    let last = &history.commits[commits - 1];
    let work_tree = history.work_tree.as_deref().unwrap_or(&options.repo);
    let tip_paths = history::paths_at(work_tree, &last.id)?;
    let mine_options = crate::MineOptions {
        max_files: options.max_files,
        ..Default::default()
    };
    let mined = crate::mine(&history.commits[..commits], &tip_paths, &mine_options);
    Ok(MinedFrom {
        commits,
        last_commit: last.id.clone(),
        default_fraction,
        families: mined.families.len(),
        pack: mined.pack_json(),
    })
}

/// The pack a backtest mined because it was given none.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MinedFrom {
    /// First-parent commits mined (the oldest ones).
    pub commits: usize,
    /// The last commit mined.
    pub last_commit: String,
    /// Whether the split is the default half (neither `--since` nor `--train-fraction`).
    pub default_fraction: bool,
    /// Families mined.
    pub families: usize,
    /// The mined pack (JSON).
    #[serde(skip)]
    pub pack: String,
}

/// A tip file in no family (a licence first, as the development set uses), for the reads
/// that age windows out. It need not exist at every commit: a read is judged by its path.
fn neutral_file(paths: &[String], pack: &CompiledPack, exclude: &[String]) -> String {
    let usable = |p: &str| {
        trace::family_of(pack, p).is_none()
            && !p.split('/').any(|c| exclude.iter().any(|e| e == c))
            && paths.binary_search_by(|q| q.as_str().cmp(p)).is_ok()
    };
    let preferred = [
        "LICENSE",
        "LICENSE-MIT",
        "LICENSE.md",
        "LICENSE.txt",
        "COPYING",
    ];
    preferred
        .iter()
        .map(|s| s.to_string())
        .chain(paths.iter().cloned())
        .find(|p| usable(p))
        .unwrap_or_else(|| REPO_PACK_PATH.to_string())
}

/// What one engine run produced.
pub struct EngineRun {
    /// The notes, in order.
    pub notes: Vec<Note>,
    /// Requests the engine refused, by error code.
    pub errors: BTreeMap<String, u64>,
    /// The first `store unavailable` ledger line: the store failed and the engine went on in
    /// memory.
    pub degraded: Option<String>,
    /// The dispatcher, still open (its store can be read or closed).
    pub dispatcher: Dispatcher,
    /// Per turn, each scored file's note as a peek at the end of the turn answered it (when
    /// asked for: the boundary check's view; empty for a training turn).
    pub peeks: Vec<Vec<boundary::Peeked>>,
}

/// The scored-file index after each call of a turn (excluded files are not scored).
fn starts(turn: &Turn, exclude: &[String]) -> Vec<usize> {
    let mut upto = 0;
    turn.files
        .iter()
        .map(|(_, p)| {
            if !p.split('/').any(|c| exclude.iter().any(|e| e == c)) {
                upto += 1;
            }
            upto
        })
        .collect()
}

/// A throwaway memory store bounded as the config bounds one.
pub fn memory_store(config: &Config) -> BoxedStore {
    Box::new(docsuggest_store::FailOpenStore::memory(config.store_limit))
}

/// The first ledger line of `answer` saying the store became unavailable.
fn degradation(answer: &Value) -> Option<String> {
    answer
        .get("ledger")?
        .as_array()?
        .iter()
        .filter_map(Value::as_str)
        .find(|l| l.contains("store unavailable"))
        .map(String::from)
}

/// Runs every turn through a dispatcher on `store` under `config`, each against the tree its
/// commit was made on (the scratch work tree follows the history as the turns go). With
/// `peek_boundary`, each scored turn ends with a peek at each of its scored files, as the
/// change-boundary check asks.
pub fn run_engine(
    prepared: &Prepared,
    config: Config,
    store: BoxedStore,
    label: &str,
    peek_boundary: bool,
) -> Result<EngineRun, BacktestError> {
    let exclude = config.exclude.clone();
    let store: BoxedStore = match &prepared.keys {
        Some(keys) => Box::new(rekey::Rekeyed::new(store, keys.clone())),
        None => store,
    };
    let mut follow = prepared
        .scratch
        .follow(&prepared.repo, prepared.keys.as_ref())?;
    let built = host::start_on(config, store, None);
    let mut dispatcher = Dispatcher::for_host(built);
    let bar = crate::progress::bar_for(
        prepared.turns.len() as u64,
        200,
        &format!("{label} {{bar:40}} {{pos}}/{{len}} commits ({{eta}} left)"),
    );
    let mut notes = Vec::new();
    let mut errors = BTreeMap::new();
    let mut degraded = None;
    let mut peeks = Vec::new();
    for (t, turn) in prepared.turns.iter().enumerate() {
        let starts = starts(turn, &exclude);
        let scored = starts.last().copied().unwrap_or(0);
        let requests = trace::requests(turn, &prepared.neutral, prepared.pad, &prepared.workspace);
        follow.before(&turn.id)?;
        for (r, request) in requests.iter().enumerate() {
            // Request 0 is the `turn`; 1..=files are the commit's files, then pads. A file the
            // commit adds is there when its call is judged, one it deletes is gone.
            if let Some((status, path)) = r.checked_sub(1).and_then(|i| turn.files.get(i)) {
                follow.call(*status, path)?;
            }
            match dispatcher.handle_value(request) {
                Ok(answer) => {
                    if degraded.is_none() {
                        degraded = degradation(&answer);
                    }
                    if r == 0 {
                        continue;
                    }
                    if let Some(note) = answer.get("note").filter(|n| n.is_object()) {
                        let (start, path) = match turn.files.get(r - 1) {
                            Some((_, p)) => (starts[r - 1], p.clone()),
                            None => (scored, prepared.neutral.clone()),
                        };
                        notes.push(Note {
                            turn: t,
                            start,
                            path,
                            confidence: note.get("confidence").and_then(Value::as_f64),
                            family: note
                                .get("family")
                                .and_then(Value::as_str)
                                .unwrap_or_default()
                                .to_string(),
                            companions: note_companions(note),
                        });
                    }
                }
                Err(e) => *errors.entry(e.code().to_string()).or_default() += 1,
            }
        }
        if peek_boundary {
            let peeked = match t >= prepared.split {
                true => peek_turn(prepared, turn, &exclude, &mut dispatcher, &mut errors),
                false => Vec::new(),
            };
            peeks.push(peeked);
        }
        follow.after();
        bar.inc(1);
    }
    // Windows still open close as abandoned, as at the end of a replay.
    let end = serde_json::json!({"op": "turn", "agent": trace::AGENT});
    match dispatcher.handle_value(&end) {
        Ok(answer) if degraded.is_none() => degraded = degradation(&answer),
        Ok(_) => {}
        Err(e) => *errors.entry(e.code().to_string()).or_default() += 1,
    }
    bar.finish_and_clear();
    Ok(EngineRun {
        notes,
        errors,
        degraded,
        dispatcher,
        peeks,
    })
}

/// The notes a check of the whole turn reads: a peek at each scored file, the commit's tree in
/// place, as a fresh agent asks (nothing recorded).
fn peek_turn(
    prepared: &Prepared,
    turn: &Turn,
    exclude: &[String],
    dispatcher: &mut Dispatcher,
    errors: &mut BTreeMap<String, u64>,
) -> Vec<boundary::Peeked> {
    let mut peeked = Vec::new();
    for (file, path) in score::scored_paths(turn, exclude).iter().enumerate() {
        let request = serde_json::json!({
            "op": "peek", "agent": boundary::AGENT, "tool": "edit", "path": path,
            "cwd": prepared.workspace,
        });
        match dispatcher.handle_value(&request) {
            Ok(answer) => {
                if let Some(note) = answer.get("note").filter(|n| n.is_object()) {
                    let confidence = note
                        .get("confidence")
                        .and_then(Value::as_f64)
                        .unwrap_or_default();
                    let companions = note_companions(note);
                    peeked.push(boundary::Peeked {
                        file,
                        family: note
                            .get("family")
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        scores: vec![confidence; companions.len()],
                        confidence,
                        companions,
                    });
                }
            }
            Err(e) => *errors.entry(e.code().to_string()).or_default() += 1,
        }
    }
    if !peeked.is_empty() {
        let request = serde_json::json!({"op": "rates", "workspace": prepared.workspace});
        match dispatcher.handle_value(&request) {
            Ok(answer) => boundary::score_by_rates(&mut peeked, &answer),
            Err(e) => *errors.entry(e.code().to_string()).or_default() += 1,
        }
    }
    peeked
}

/// A note's companions, in rank order.
fn note_companions(note: &Value) -> Vec<String> {
    note.get("companions")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect()
        })
        .unwrap_or_default()
}

/// Writes the turns as protocol lines (ids from 1, no `cwd`: replay them with
/// `docsuggest replay --workspace REPO`), ending with a `turn`.
pub fn write_trace(prepared: &Prepared, file: &Path) -> Result<(), BacktestError> {
    let what = format!("cannot write trace {}", file.display());
    let out = std::fs::File::create(file).map_err(io(what.clone()))?;
    let mut out = std::io::BufWriter::new(out);
    let mut id = 0u64;
    for turn in &prepared.turns {
        for mut request in trace::requests(turn, &prepared.neutral, prepared.pad, "") {
            if let Some(obj) = request.as_object_mut() {
                obj.remove("cwd");
                if obj.get("op").and_then(Value::as_str) == Some("judge") {
                    id += 1;
                    obj.insert("id".into(), id.into());
                }
            }
            writeln!(out, "{request}").map_err(io(what.clone()))?;
        }
    }
    writeln!(
        out,
        "{}",
        serde_json::json!({"op": "turn", "agent": trace::AGENT})
    )
    .map_err(io(what.clone()))?;
    out.flush().map_err(io(what))
}

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
    let (warm_start, mut warm_store) = match &options.store {
        Some(store) => {
            let (start, rows) = warm::learned(store, &prepared, &learning)?;
            (Some(start), Some(rows))
        }
        None => (None, None),
    };
    let mut runs = Vec::new();
    let mut boundary = options
        .boundary
        .then(|| Boundary::new(options, &prepared, &paths, &mut bases))
        .transpose()?;
    let engines = [("static", fixed), ("learning", learning.clone())];
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
        let run = run_engine(&prepared, config, store, name, boundary.is_some())?;
        if let Some(b) = &mut boundary {
            b.report.checks.push(boundary::engine_check(
                name,
                &paths,
                prepared.split,
                &run.peeks,
                &b.misses,
            ));
        }
        runs.push(Run {
            name: name.into(),
            figures: scoring.engine(&run.notes, &matchers, &mut bases),
            errors: run.errors,
        });
    }
    for (k, c) in COCHANGE_SETTINGS {
        runs.push(Run {
            name: format!("co-change k{k} c{c}"),
            figures: scoring.cochange(k, c, COCHANGE_MAX),
            errors: BTreeMap::new(),
        });
    }
    let boundary = boundary.map(|mut b| {
        b.report.checks.push(boundary::cochange_check(
            &paths,
            prepared.split,
            &b.misses,
            COCHANGE_MAX,
        ));
        b.report
    });
    let kinds = runs
        .iter()
        .find(|r| r.name == "learning")
        .map(|r| kinds::figures(&prepared.pack, &r.figures))
        .unwrap_or_default();
    Ok(Report {
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
        warm_start,
        runs,
        boundary,
    })
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
}

/// The pack in `file`, compiled.
fn compile_pack_file(file: &Path) -> Result<CompiledPack, BacktestError> {
    let name = file.display().to_string();
    let text = std::fs::read_to_string(file).map_err(|e| BacktestError::Pack {
        file: name.clone(),
        reason: e.to_string(),
    })?;
    parse_pack(Some(&text), &name).map(|(_, pack)| pack)
}

/// The pack `text` (the built-in one for `None`) from `source`, parsed and compiled.
fn parse_pack(text: Option<&str>, source: &str) -> Result<(Pack, CompiledPack), BacktestError> {
    let unusable = |reason: String| BacktestError::Pack {
        file: source.to_string(),
        reason,
    };
    let pack = match text {
        Some(text) => Pack::from_json_str(text, source).map_err(|e| unusable(e.to_string()))?,
        None => Pack::builtin(),
    };
    let compiled = CompiledPack::compile(&pack, source).map_err(|e| unusable(e.to_string()))?;
    Ok((pack, compiled))
}
