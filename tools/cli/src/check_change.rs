//! `docsuggest check-change`: what a whole change lacks. Given a change set — the work tree's
//! changes (default), the staged ones, those since a revision, or paths — it asks the engine,
//! for each changed file, which companions a change boundary would name now (a `peek` with
//! `"boundary": true`, through the user's daemon as `docsuggest mcp` asks it: the pack in
//! force, mined or written, and the learned rates; nothing recorded), and lists those the
//! change does not touch, each with
//! its family, confidence and the changed files that call for it. Nothing when the change is
//! complete.
//!
//! The change set is read with `git` (`diff --name-only`, `ls-files --others` for new files
//! of the work tree), bounded to [`MAX_FILES`] files.

use crate::mcp::reach::{Reach, ReachError};
use docsuggest_engine::compiled::change_covers;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// The most changed files one check asks about (a bulk change names nothing useful).
pub const MAX_FILES: usize = 500;

/// The agent the peeks are judged as: a fresh one, never remembered.
const AGENT: &str = "docsuggest-check-change";

/// How long the check waits for a repository's pack to be mined.
const MINING_WAIT: Duration = Duration::from_secs(60);

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
    /// `git` failed (not a repository, an unknown revision, no git).
    #[error("git {args}: {detail}")]
    Git {
        /// The arguments.
        args: String,
        /// What it said.
        detail: String,
    },
    /// The engine could not be asked.
    #[error(transparent)]
    Reach(#[from] ReachError),
    /// The engine could not be asked (through another transport).
    #[error("asking the engine failed: {0}")]
    Ask(String),
}

/// One companion the change lacks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Missing {
    /// The companion, as the note names it.
    pub companion: String,
    /// The family whose note names it.
    pub family: String,
    /// The highest confidence of those notes.
    pub confidence: f64,
    /// The changed files whose note names it.
    pub for_files: Vec<String>,
    /// The note's line for it (what to do and why in a plain note; the path in the PoC's).
    pub line: String,
}

impl Missing {
    /// Its line in a report: the note's own wording, then the family and the files that call
    /// for it.
    fn listed(&self) -> String {
        if self.line == self.companion {
            format!(
                "- {} ({} {:.2}; for {})",
                self.companion,
                self.family,
                self.confidence,
                self.for_files.join(", ")
            )
        } else {
            format!("- {}; for {}", self.line, self.for_files.join(", "))
        }
    }
}

/// What a check found.
#[derive(Clone, Debug, Serialize)]
pub struct CheckReport {
    /// The repository's root.
    pub root: String,
    /// The changed files asked about (relative to the root).
    pub changed: Vec<String>,
    /// Changed files past [`MAX_FILES`], not asked about.
    pub not_asked: usize,
    /// The companions the change lacks, most confident first.
    pub missing: Vec<Missing>,
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.missing.is_empty() {
            return writeln!(
                f,
                "the change ({} file{}) lacks no companion the engine names",
                self.changed.len(),
                if self.changed.len() == 1 { "" } else { "s" }
            );
        }
        writeln!(
            f,
            "the change ({} file{}) lacks {} companion{}:",
            self.changed.len(),
            if self.changed.len() == 1 { "" } else { "s" },
            self.missing.len(),
            if self.missing.len() == 1 { "" } else { "s" }
        )?;
        for m in &self.missing {
            writeln!(f, "{}", m.listed())?;
        }
        if self.not_asked > 0 {
            writeln!(
                f,
                "({} more changed files were not asked about)",
                self.not_asked
            )?;
        }
        Ok(())
    }
}

impl CheckReport {
    /// The report as the agent is told it when it stops: `None` when nothing is lacking.
    pub fn at_stop(&self) -> Option<String> {
        let list = self.listed()?;
        Some(format!(
            "[doc-suggester] before you finish: the change in the work tree may be missing \
             companions this repository's changes conventionally include:{list}\n\
             Add what the task needs, or say why it needs none of them."
        ))
    }

    /// The note before a commit: what the staged change lacks (`None`: nothing).
    pub fn before_commit(&self) -> Option<String> {
        let list = self.listed()?;
        Some(format!(
            "[doc-suggester] the staged change may be missing companions this repository's \
             changes conventionally include:{list}"
        ))
    }

    /// One line per missing companion, each after a line break (`None`: nothing missing).
    fn listed(&self) -> Option<String> {
        if self.missing.is_empty() {
            return None;
        }
        Some(
            self.missing
                .iter()
                .map(|m| format!("\n{}", m.listed()))
                .collect(),
        )
    }
}

fn git(dir: &Path, args: &[&str]) -> Result<String, CheckError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| CheckError::Git {
            args: args.join(" "),
            detail: e.to_string(),
        })?;
    if !out.status.success() {
        return Err(CheckError::Git {
            args: args.join(" "),
            detail: docsuggest_schema::text::bounded(
                String::from_utf8_lossy(&out.stderr).trim(),
                300,
            ),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The commit the work tree around `dir` is on (`None`: not a repository, or no commit yet).
pub fn head(dir: &Path) -> Option<String> {
    let head = git(dir, &["rev-parse", "--verify", "--quiet", "HEAD"]).ok()?;
    let head = head.trim();
    (!head.is_empty() && head.bytes().all(|b| b.is_ascii_hexdigit())).then(|| head.to_string())
}

/// The repository root of `dir` and the change set's files, relative to it.
pub fn changed_files(dir: &Path, set: &ChangeSet) -> Result<(PathBuf, Vec<String>), CheckError> {
    let root = PathBuf::from(git(dir, &["rev-parse", "--show-toplevel"])?.trim());
    let lines = |text: String| -> Vec<String> {
        text.lines()
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut files: BTreeSet<String> = BTreeSet::new();
    match set {
        ChangeSet::WorkTree => {
            files.extend(lines(git(&root, &["diff", "--name-only", "HEAD"])?));
            files.extend(lines(git(
                &root,
                &["ls-files", "--others", "--exclude-standard"],
            )?));
        }
        ChangeSet::Staged => {
            files.extend(lines(git(&root, &["diff", "--name-only", "--cached"])?));
        }
        ChangeSet::Since(rev) => {
            files.extend(lines(git(
                &root,
                &["diff", "--name-only", rev.as_str(), "--"],
            )?));
            // Not committed includes not yet added: a new file is part of the change.
            files.extend(lines(git(
                &root,
                &["ls-files", "--others", "--exclude-standard"],
            )?));
        }
        ChangeSet::Paths(paths) => {
            for p in paths {
                let abs = if p.is_absolute() {
                    p.clone()
                } else {
                    dir.join(p)
                };
                if let Ok(rel) = abs.strip_prefix(&root) {
                    files.insert(rel.to_string_lossy().into_owned());
                }
            }
        }
    }
    Ok((root, files.into_iter().collect()))
}

/// Checks the change set `set` of the repository around `dir`, asking through `reach`.
pub fn check(dir: &Path, set: &ChangeSet, reach: &Reach) -> Result<CheckReport, CheckError> {
    check_with(dir, set, Instant::now() + MINING_WAIT, None, |request| {
        reach
            .ask(request)
            .map(|(answer, _)| answer)
            .map_err(CheckError::from)
    })
}

/// [`check`], asking the engine through `ask` (a protocol request without `id` in, the success
/// answer out), waiting for a repository's pack to be mined until `deadline` at most. With
/// `learn_as`, the check is that boundary agent's (the `boundary` op): what its previous
/// boundary named is settled against the change, and what this one names is recorded, to be
/// settled at its next; without, each file is peeked and nothing is recorded.
pub fn check_with(
    dir: &Path,
    set: &ChangeSet,
    deadline: Instant,
    learn_as: Option<&str>,
    mut ask: impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<CheckReport, CheckError> {
    let (root, mut changed) = changed_files(dir, set)?;
    let not_asked = changed.len().saturating_sub(MAX_FILES);
    changed.truncate(MAX_FILES);
    let in_change: BTreeSet<&str> = changed.iter().map(String::as_str).collect();
    let notes = match learn_as {
        Some(agent) => boundary_notes(&root, &changed, agent, true, deadline, &mut ask)?,
        None => {
            let mut notes = Vec::new();
            for file in &changed {
                if let Some(note) = note_for(&root, file, deadline, &mut ask)? {
                    notes.push((file.clone(), note));
                }
            }
            notes
        }
    };
    // In the order the notes rank them (the most useful first), each companion once.
    let mut missing: Vec<Missing> = Vec::new();
    let mut index: BTreeMap<String, usize> = BTreeMap::new();
    for (file, note) in &notes {
        let family = note["family"].as_str().unwrap_or_default().to_string();
        let confidence = note["confidence"].as_f64().unwrap_or_default();
        let lines = note["lines"].as_array();
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
                    line: line.to_string(),
                });
                missing.len() - 1
            });
            let entry = &mut missing[at];
            entry.confidence = entry.confidence.max(confidence);
            entry.for_files.push(file.clone());
        }
    }
    missing.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    Ok(CheckReport {
        root: root.display().to_string(),
        changed,
        not_asked,
        missing,
    })
}

/// Settles what the boundary agent `agent`'s last check named against the change set `set`
/// as it stands now, naming nothing new (the boundary after a reminder).
pub fn settle(
    dir: &Path,
    set: &ChangeSet,
    agent: &str,
    mut ask: impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<(), CheckError> {
    let (root, mut changed) = changed_files(dir, set)?;
    changed.truncate(MAX_FILES);
    boundary_notes(&root, &changed, agent, false, Instant::now(), &mut ask).map(drop)
}

/// Whether an answer's ledger says the repository's pack is still being mined.
fn mining(answer: &Value) -> bool {
    answer["ledger"].as_array().into_iter().flatten().any(|l| {
        l.as_str()
            .is_some_and(|l| l.contains("abstained pack-mining"))
    })
}

/// The boundary agent `agent`'s check of the change `changed` (the `boundary` op): each
/// note with the changed file it was given for. Waits while the pack is being mined, until
/// `deadline`.
fn boundary_notes(
    root: &Path,
    changed: &[String],
    agent: &str,
    name: bool,
    deadline: Instant,
    ask: &mut impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<Vec<(String, Value)>, CheckError> {
    let request = json!({
        "op": "boundary", "agent": agent, "paths": changed, "name": name,
        "cwd": root.display().to_string(),
    });
    loop {
        let answer = ask(&request)?;
        if !mining(&answer) || Instant::now() > deadline {
            let notes = answer["notes"].as_array().into_iter().flatten();
            return Ok(notes
                .filter_map(|n| Some((n["path"].as_str()?.to_string(), n["note"].clone())))
                .filter(|(_, note)| note.is_object())
                .collect());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The note a change boundary would give `file` now (a boundary peek), waiting while the
/// repository's pack is being mined, until `deadline`.
fn note_for(
    root: &Path,
    file: &str,
    deadline: Instant,
    ask: &mut impl FnMut(&Value) -> Result<Value, CheckError>,
) -> Result<Option<Value>, CheckError> {
    let request = json!({
        "op": "peek", "agent": AGENT, "tool": "edit", "boundary": true,
        "path": root.join(file).display().to_string(),
        "cwd": root.display().to_string(),
    });
    loop {
        let answer = ask(&request)?;
        if !mining(&answer) || Instant::now() > deadline {
            return Ok(Some(answer["note"].clone()).filter(|n| n.is_object()));
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
