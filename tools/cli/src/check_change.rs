//! `docsuggest check-change`: what a whole change lacks. Given a change set — the work tree's
//! changes (default), the staged ones, those since a revision, or paths — it asks the engine,
//! for each changed file, which companions a change boundary would name now (a `peek` with
//! `"boundary": true`, through the user's daemon as `docsuggest mcp` asks it: the pack in
//! force, mined or written, and the learned rates; nothing recorded), and lists those the
//! change does not touch, each with
//! its family, confidence and the changed files that call for it. Nothing when the change is
//! complete.
//!
//! The change set is read with `git` (`diff --name-only -z`, `ls-files --others -z` for new
//! files of the work tree; [`git`]: bounded in time and size, nothing from outside read as an
//! option), bounded to [`MAX_FILES`] files. A changed file whose name prints other than it
//! reads (a right-to-left override, a line separator) is part of the change but never named,
//! as a note never names one. A pack that cannot be used, or is still being mined when the
//! check ends, is said in the report's `errors`, never read as a complete change.

pub mod git;
mod report;

use crate::mcp::reach::{Reach, ReachError};
use docsuggest_engine::compiled::change_covers;
use git::{Git, GitError};
pub use report::{ANSWER_LIMIT, CheckReport, Missing, STOP_REMINDER};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The most changed files one check asks about (a bulk change names nothing useful).
pub const MAX_FILES: usize = 500;

/// The agent the peeks are judged as: a fresh one, never remembered.
const AGENT: &str = "docsuggest-check-change";

/// How long the command waits for a repository's pack to be mined.
const MINING_WAIT: Duration = Duration::from_secs(60);

/// How long the command gives git.
const GIT_WAIT: Duration = Duration::from_secs(60);

/// Which change is checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChangeSet {
    /// The work tree's changes against HEAD, untracked files included.
    WorkTree,
    /// The staged changes.
    Staged,
    /// The changes since a revision (committed or not, new files included).
    Since(String),
    /// These files.
    Paths(Vec<PathBuf>),
}

/// Why a check could not run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckError {
    /// `git` failed (not a repository, an unknown revision, no git, no answer in time).
    #[error(transparent)]
    Git(#[from] GitError),
    /// The engine could not be asked.
    #[error(transparent)]
    Reach(#[from] ReachError),
    /// The engine could not be asked (through another transport).
    #[error("asking the engine failed: {0}")]
    Ask(String),
}

/// How long a check may take.
#[derive(Clone, Copy, Debug)]
pub struct Deadlines {
    /// Every git call is stopped by then (and the check fails).
    pub git: Instant,
    /// A pack still being mined is waited for until then.
    pub mining: Instant,
}

impl Deadlines {
    /// git given `git`, a pack being mined waited for `mining`, from now.
    pub fn after(git: Duration, mining: Duration) -> Deadlines {
        let now = Instant::now();
        Deadlines {
            git: now + git,
            mining: now + mining,
        }
    }
}

/// One changed file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Changed {
    /// Its path relative to the root (a name that is not UTF-8, lossily).
    pub path: String,
    /// Whether it may be shown to a model, as a note's names must: UTF-8, and no code point
    /// that prints nothing ([`docsuggest_schema::text::has_invisible`]).
    pub shown: bool,
}

/// The changed files of git's `-z` answers (`outputs`), each once, in path order.
pub fn read_changed<'a>(outputs: impl IntoIterator<Item = &'a [u8]>) -> Vec<Changed> {
    let files: BTreeSet<Changed> = outputs
        .into_iter()
        .flat_map(git::split_names)
        .map(|name| Changed::of(&name))
        .collect();
    files.into_iter().collect()
}

impl Changed {
    /// The file git names `name`.
    pub fn of(name: &[u8]) -> Changed {
        match std::str::from_utf8(name) {
            Ok(path) => Changed {
                path: path.to_string(),
                shown: !docsuggest_schema::text::has_invisible(path),
            },
            Err(_) => Changed {
                path: String::from_utf8_lossy(name).into_owned(),
                shown: false,
            },
        }
    }
}

/// The commit the work tree around `dir` is on (`None`: not a repository, no commit yet, or
/// no answer by `deadline`).
pub fn head(dir: &Path, deadline: Instant) -> Option<String> {
    Git::new(dir, deadline).head()
}

/// The repository root of `dir` and the change set's files, relative to it.
fn changed_files(git: Git<'_>, set: &ChangeSet) -> Result<(PathBuf, Vec<Changed>), CheckError> {
    let cwd = git.dir();
    let root = git.toplevel()?;
    let git = git.at(&root);
    // Not committed includes not yet added: a new file is part of the change.
    let untracked = ["ls-files", "-z", "--others", "--exclude-standard"];
    let outputs: Vec<Vec<u8>> = match set {
        ChangeSet::WorkTree => vec![
            match git.head() {
                Some(head) => git.run(&["diff", "-z", "--name-only", &head, "--"])?,
                // No commit yet: everything added is new.
                None => git.run(&["ls-files", "-z", "--cached"])?,
            },
            git.run(&untracked)?,
        ],
        ChangeSet::Staged => vec![git.run(&["diff", "-z", "--name-only", "--cached", "--"])?],
        ChangeSet::Since(rev) => {
            let commit = git.commit(rev)?;
            vec![
                git.run(&["diff", "-z", "--name-only", &commit, "--"])?,
                git.run(&untracked)?,
            ]
        }
        ChangeSet::Paths(paths) => {
            let mut named = Vec::new();
            for p in paths {
                let abs = if p.is_absolute() {
                    p.clone()
                } else {
                    cwd.join(p)
                };
                if let Ok(rel) = abs.strip_prefix(&root) {
                    named.extend_from_slice(rel.as_os_str().as_bytes());
                    named.push(0);
                }
            }
            vec![named]
        }
    };
    Ok((root, read_changed(outputs.iter().map(Vec::as_slice))))
}
/// Checks the change set `set` of the repository around `dir`, asking through `reach`.
pub fn check(dir: &Path, set: &ChangeSet, reach: &Reach) -> Result<CheckReport, CheckError> {
    let deadlines = Deadlines::after(GIT_WAIT, MINING_WAIT);
    check_with(dir, set, deadlines, None, |request| {
        reach
            .ask(request)
            .map(|(answer, _)| answer)
            .map_err(CheckError::from)
    })
}

/// [`check`], asking the engine through `ask` (a protocol request without `id` in, the success
/// answer out), within `deadlines`. With `learn_as`, the check is that boundary agent's (the
/// `boundary` op): what its previous boundary named is settled against the change, and what
/// this one names is recorded, to be settled at its next; without, each file is peeked and
/// nothing is recorded.
pub fn check_with(
    dir: &Path,
    set: &ChangeSet,
    deadlines: Deadlines,
    learn_as: Option<&str>,
    mut ask: impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<CheckReport, CheckError> {
    let (root, changed) = changed_files(Git::new(dir, deadlines.git), set)?;
    let in_change: BTreeSet<&str> = changed.iter().map(|c| c.path.as_str()).collect();
    let unshown = changed.iter().filter(|c| !c.shown).count();
    let mut asked: Vec<String> = changed
        .iter()
        .filter(|c| c.shown)
        .map(|c| c.path.clone())
        .collect();
    let not_asked = asked.len().saturating_sub(MAX_FILES);
    asked.truncate(MAX_FILES);
    let notes = match learn_as {
        Some(agent) => boundary_notes(&root, &asked, agent, true, deadlines.mining, &mut ask)?,
        None => {
            let (mut notes, mut heard) = (Vec::new(), Heard::default());
            for file in &asked {
                let answer = peek(&root, file, deadlines.mining, &mut ask)?;
                heard.read(&answer);
                notes.extend(note_of(&answer).map(|note| (file.clone(), note)));
            }
            Answered { notes, heard }
        }
    };
    let missing = missing(&notes.notes, &in_change);
    let Heard {
        errors,
        still_mining,
    } = notes.heard;
    Ok(CheckReport {
        root: root.display().to_string(),
        changed: asked,
        not_asked,
        unshown,
        missing,
        errors,
        still_mining,
        ..CheckReport::default()
    })
}

/// The companions `notes` name that no file of the change covers, in the order the notes
/// rank them (the most useful first), each once.
fn missing(notes: &[(String, Value)], in_change: &BTreeSet<&str>) -> Vec<Missing> {
    let mut missing: Vec<Missing> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (file, note) in notes {
        let family = note["family"].as_str().unwrap_or_default().to_string();
        let confidence = note["confidence"].as_f64().unwrap_or_default();
        let lines = note["lines"].as_array();
        let claims = note["claims"].as_array();
        for (at, companion) in note["companions"]
            .as_array()
            .into_iter()
            .flatten()
            .enumerate()
        {
            let Some(companion) = companion.as_str() else {
                continue;
            };
            let line = lines.and_then(|l| l.get(at)?.as_str()).unwrap_or(companion);
            let claim = claims.and_then(|c| c.get(at));
            let evidence = claim.and_then(|c| c["evidence"].as_f64());
            let blocks = claim.is_some_and(|c| c["blocks"].as_bool() == Some(true));
            // Compiled once per companion, matched against every changed file.
            let touched = docsuggest_engine::compiled::companion_matcher(companion)
                .is_ok_and(|matcher| in_change.iter().any(|file| change_covers(&matcher, file)));
            if touched {
                continue;
            }
            let at = *index.entry(companion.to_string()).or_insert_with(|| {
                missing.push(Missing {
                    companion: companion.to_string(),
                    family: family.clone(),
                    confidence,
                    for_files: Vec::new(),
                    for_more: 0,
                    line: line.to_string(),
                    evidence,
                    blocks,
                });
                missing.len() - 1
            });
            let entry = &mut missing[at];
            entry.confidence = entry.confidence.max(confidence);
            entry.evidence = [entry.evidence, evidence]
                .into_iter()
                .flatten()
                .reduce(f64::max);
            entry.blocks |= blocks;
            entry.for_files.push(file.clone());
        }
    }
    missing.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    missing
}

/// Settles what the boundary agent `agent`'s last check named against the change set `set`
/// as it stands now, naming nothing new (the boundary after a reminder); git is stopped at
/// `deadline`.
pub fn settle(
    dir: &Path,
    set: &ChangeSet,
    agent: &str,
    deadline: Instant,
    mut ask: impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<(), CheckError> {
    let (root, changed) = changed_files(Git::new(dir, deadline), set)?;
    // Every file of the change settles what it covers, shown or not: nothing is named here.
    let mut paths: Vec<String> = changed.into_iter().map(|c| c.path).collect();
    paths.truncate(MAX_FILES);
    boundary_notes(&root, &paths, agent, false, Instant::now(), &mut ask).map(drop)
}

/// What the engine's answers said besides their notes.
#[derive(Debug, Default)]
struct Heard {
    /// Their warnings (a pack that cannot be used or mined), each once.
    errors: Vec<String>,
    /// Whether the pack was still being mined at the last answer.
    still_mining: bool,
}

impl Heard {
    fn read(&mut self, answer: &Value) {
        for warning in answer["warnings"].as_array().into_iter().flatten() {
            if let Some(warning) = warning.as_str()
                && !self.errors.iter().any(|e| e == warning)
            {
                self.errors.push(warning.to_string());
            }
        }
        if mining(answer) && !self.still_mining {
            self.still_mining = true;
            self.errors.push(
                "the repository's pack is still being mined from its history; \
                 check again in a moment"
                    .to_string(),
            );
        }
    }
}

/// Notes with the file of the change each was given for, and what else was heard.
struct Answered {
    notes: Vec<(String, Value)>,
    heard: Heard,
}

/// Whether an answer's ledger says the repository's pack is still being mined.
pub(crate) fn mining(answer: &Value) -> bool {
    answer["ledger"].as_array().into_iter().flatten().any(|l| {
        l.as_str()
            .is_some_and(|l| l.contains("abstained pack-mining"))
    })
}

/// The note of an answer, when it holds one, with the answer's claims (a boundary's) in it.
fn note_of(answer: &Value) -> Option<Value> {
    let mut note = Some(answer["note"].clone()).filter(Value::is_object)?;
    if let Some(claims) = answer.get("claims") {
        note["claims"] = claims.clone();
    }
    Some(note)
}

/// Asks `request` until the repository's pack is no longer being mined, or `deadline`.
pub(crate) fn ask_waiting(
    request: &Value,
    deadline: Instant,
    ask: &mut impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<Value, CheckError> {
    loop {
        let answer = ask(request)?;
        if !mining(&answer) || Instant::now() > deadline {
            return Ok(answer);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The boundary agent `agent`'s check of the change `changed` (the `boundary` op): each
/// note with the changed file it was given for (`name` false: only settle). Waits while the
/// pack is being mined, until `deadline`.
fn boundary_notes(
    root: &Path,
    changed: &[String],
    agent: &str,
    name: bool,
    deadline: Instant,
    ask: &mut impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<Answered, CheckError> {
    let request = json!({
        "op": "boundary", "agent": agent, "paths": changed, "name": name,
        "cwd": root.display().to_string(),
    });
    let answer = ask_waiting(&request, deadline, ask)?;
    let mut heard = Heard::default();
    heard.read(&answer);
    let notes = answer["notes"].as_array().into_iter().flatten();
    let notes = notes
        .filter_map(|n| Some((n["path"].as_str()?.to_string(), note_of(n)?)))
        .collect();
    Ok(Answered { notes, heard })
}

/// What a change boundary would answer for `file` now (a boundary peek), waiting while the
/// repository's pack is being mined, until `deadline`.
fn peek(
    root: &Path,
    file: &str,
    deadline: Instant,
    ask: &mut impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<Value, CheckError> {
    let request = json!({
        "op": "peek", "agent": AGENT, "tool": "edit", "boundary": true,
        "path": root.join(file).display().to_string(),
        "cwd": root.display().to_string(),
    });
    ask_waiting(&request, deadline, ask)
}
