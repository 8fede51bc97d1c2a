//! `backtest --boundary`: the change-boundary check (`check-change`, the `Stop` and commit
//! hooks) scored on the held-back commits.
//!
//! The check asks, for every file of a change, which companions a note would name (a peek at
//! the end of the commit's turn, the commit's tree in the scratch work tree) and lists those
//! the change does not touch. Scored two ways (docs/BACKTEST.md):
//!
//! - **false alarms**: each real commit as it was made: everything the check names is a false
//!   alarm (the commit was complete as its author made it);
//! - **simulated misses**: each commit with one of its companion files left out — a file a
//!   family of another file of the commit names under the *reference* pack (the hand-written
//!   one when given) — did the check of the rest name it?
//!
//! Each check is scored at its default bar and at the lowest bar of its own score (a note's
//! confidence; a co-change confidence) that keeps false alarms within the budget.

mod cut;

pub use cut::{BLOCK_BAR, CutPoint, left_out};

use super::score::{Bases, CommitFamilies, ranked};
use cut::{CutCommit, CutSaid};
use docsuggest_engine::compiled::{CompiledPack, change_covers, companion_matcher};
use globset::GlobMatcher;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The agent the boundary's peeks speak for: a fresh one, never remembered.
pub const AGENT: &str = "backtest-boundary";

/// False alarms per 100 commits the operating point may make.
pub const FALSE_ALARM_BUDGET: f64 = 10.0;

/// The co-change check's support and default confidence (the baseline's `k2 c0.5`).
pub const COCHANGE_SUPPORT: u64 = 2;
/// See [`COCHANGE_SUPPORT`].
pub const COCHANGE_CONFIDENCE: f64 = 0.5;

/// What an engine run does at the end of each scored commit for the boundary.
#[derive(Clone, Copy, Debug, Default)]
pub struct Peeks<'a> {
    /// Peek at each scored file as the check asks.
    pub at_boundary: bool,
    /// Per turn, the companion files its cut leaves out: the engine is reminded of what the
    /// cut change lacks and learns from it (`None`: no reminder).
    pub reminders: Option<&'a [BTreeSet<usize>]>,
}

/// The agent the simulated reminders speak to (their windows apart from the trace's).
pub const REMINDED: &str = "backtest-reminded";

/// One scored file's note, as a peek at the end of its commit's turn answered it.
#[derive(Clone, Debug, PartialEq)]
pub struct Peeked {
    /// The file's index in the turn's scored paths.
    pub file: usize,
    /// The note's family.
    pub family: String,
    /// The note's confidence.
    pub confidence: f64,
    /// The companions it named.
    pub companions: Vec<String>,
    /// Each companion's score at the boundary: its claim's ([`claim_score`]).
    pub scores: Vec<f64>,
}

/// A named companion's score at the boundary, from its claim (a boundary peek's `claims`):
/// its evidence where the claim blocks, else under [`BLOCK_BAR`] (its evidence at most, 0
/// when nothing is known). So what clears that bar is what the Stop reminder blocks on, at
/// the default `blockBar`, and what the pack's `boundary` lets block.
pub fn claim_score(claim: Option<&serde_json::Value>) -> f64 {
    let evidence = claim
        .and_then(|c| c.get("evidence")?.as_f64())
        .unwrap_or(0.0);
    let blocks = claim.and_then(|c| c.get("blocks")?.as_bool()) == Some(true);
    if blocks {
        evidence
    } else {
        evidence.min(NOT_BLOCKING)
    }
}

/// The highest score of a claim that does not block: just under [`BLOCK_BAR`].
const NOT_BLOCKING: f64 = BLOCK_BAR - 1e-9;

/// A check's figures at one bar.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Point {
    /// The bar: what the check names scores at least this.
    pub bar: f64,
    /// Companions named for real commits, per 100 scored commits.
    pub false_alarms_per_100_commits: f64,
    /// Real commits with anything named, per 100 scored commits.
    pub commits_alarmed_per_100: f64,
    /// Simulated misses the check named.
    pub misses_caught: u64,
    /// … as a share of all simulated misses.
    pub caught_share: Option<f64>,
}

/// One check's figures.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CheckFigures {
    /// `static`, `learning` or `co-change k2`.
    pub name: String,
    /// At the check's default bar (the engine's gate; co-change confidence 0.5).
    pub at_default: Point,
    /// At the lowest bar with at most [`FALSE_ALARM_BUDGET`] false alarms per 100 commits.
    pub within_budget: Point,
    /// On each commit cut short as an agent leaves a change: at the default bar, then at
    /// [`BLOCK_BAR`] (the bar a claim must clear to block).
    pub cut: Vec<CutPoint>,
    /// Co-change's only: on the cut commits, at its lowest bar whose reminders are right as
    /// often as the learning engine's blocks (at [`BLOCK_BAR`]), so what each names of the
    /// left-out files compares at the same precision; where no bar gets there, at its most
    /// precise bar (its `reminders_right_share` then says how far short). `None` for the
    /// engines, or where the learning engine never blocked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at_learning_precision: Option<CutPoint>,
}

/// The boundary figures of a backtest.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BoundaryReport {
    /// Where the simulated misses' companion files come from.
    pub reference: String,
    /// Scored commits.
    pub commits: usize,
    /// Simulated misses: (commit, companion file) pairs.
    pub simulated_misses: u64,
    /// The false-alarm budget of `within_budget`.
    pub false_alarm_budget: f64,
    /// The engines' checks, then co-change's.
    pub checks: Vec<CheckFigures>,
}

/// The simulated misses: per turn, the scored files that a companion of another file's family
/// names under `reference`.
pub fn companion_files(
    paths: &[Vec<String>],
    split: usize,
    reference: &CompiledPack,
    bases: &mut Bases,
) -> Vec<BTreeSet<usize>> {
    let matchers = super::score::Matchers::new(reference);
    paths
        .iter()
        .enumerate()
        .map(|(t, files)| {
            if t < split {
                return BTreeSet::new();
            }
            let commit = CommitFamilies::new(files, reference);
            (0..files.len())
                .filter(|&j| {
                    (0..files.len()).any(|i| commit.names(reference, &matchers, bases, i, j))
                })
                .collect()
        })
        .collect()
}

/// What one check said over the scored commits: the scores of what it named for real commits,
/// and the best score with which it named each simulated miss (`None`: never).
#[derive(Default)]
struct Said {
    /// Per scored commit, the scores of what was named.
    alarms: Vec<Vec<f64>>,
    /// Per simulated miss.
    misses: Vec<Option<f64>>,
    /// Per commit with a companion file, what was named on it cut short.
    cut: CutSaid,
}

impl Said {
    fn at(&self, bar: f64) -> Point {
        let commits = self.alarms.len();
        let per100 = |x: usize| {
            if commits == 0 {
                0.0
            } else {
                100.0 * x as f64 / commits as f64
            }
        };
        let named: usize = self
            .alarms
            .iter()
            .map(|a| a.iter().filter(|&&s| s >= bar).count())
            .sum();
        let alarmed = self
            .alarms
            .iter()
            .filter(|a| a.iter().any(|&s| s >= bar))
            .count();
        let caught = self
            .misses
            .iter()
            .filter(|m| m.is_some_and(|s| s >= bar))
            .count() as u64;
        Point {
            bar,
            false_alarms_per_100_commits: per100(named),
            commits_alarmed_per_100: per100(alarmed),
            misses_caught: caught,
            caught_share: (!self.misses.is_empty())
                .then(|| caught as f64 / self.misses.len() as f64),
        }
    }

    /// The lowest bar (`default` or above) within the budget: the lowest of the scores named,
    /// each tried, and past the highest, a bar that names nothing.
    fn within_budget(&self, default: f64) -> Point {
        let mut bars: Vec<f64> = self
            .alarms
            .iter()
            .flatten()
            .chain(self.misses.iter().flatten())
            .copied()
            .filter(|&s| s >= default)
            .chain(std::iter::once(default))
            .collect();
        bars.sort_by(f64::total_cmp);
        bars.dedup();
        for bar in bars {
            let point = self.at(bar);
            if point.false_alarms_per_100_commits <= FALSE_ALARM_BUDGET {
                return point;
            }
        }
        self.at(f64::INFINITY)
    }

    /// The commit just scored has no companion file to leave out: a Stop meets it whole, and
    /// what was named on it is what that Stop names.
    fn met_whole(&mut self) {
        let named = self.alarms.last().cloned().unwrap_or_default();
        self.cut.whole.push(named);
    }

    fn figures(&self, name: &str, default: f64) -> CheckFigures {
        let at_default = self.at(default);
        let block = self.at(BLOCK_BAR.max(default));
        CheckFigures {
            name: name.to_string(),
            cut: vec![
                self.cut.at(default, at_default.commits_alarmed_per_100),
                self.cut.at(block.bar, block.commits_alarmed_per_100),
            ],
            at_learning_precision: None,
            at_default,
            within_budget: self.within_budget(default),
        }
    }
}

/// A named thing and its score, by what it names.
type Named<K> = BTreeMap<K, f64>;

fn keep_best<K: Ord>(named: &mut Named<K>, key: K, score: f64) {
    let best = named.entry(key).or_insert(score);
    *best = best.max(score);
}

/// The engine's check scored from its peeks (`peeks[t]`: turn `t`'s, empty for a training
/// turn).
pub fn engine_check(
    name: &str,
    paths: &[Vec<String>],
    split: usize,
    peeks: &[Vec<Peeked>],
    misses: &[BTreeSet<usize>],
) -> CheckFigures {
    let mut matchers = Matchers::default();
    let mut said = Said::default();
    for (t, files) in paths.iter().enumerate().skip(split) {
        let peeked = peeks.get(t).map_or(&[][..], Vec::as_slice);
        let named = lacking(peeked, files, &[], &mut matchers);
        said.alarms.push(named.into_values().collect());
        let Some(companions) = misses.get(t) else {
            continue;
        };
        if companions.is_empty() {
            said.met_whole();
        } else {
            let left_out = left_out(t, companions);
            let named = lacking(peeked, files, &left_out, &mut matchers);
            let mut commit = CutCommit::default();
            for (c, &score) in &named {
                let Some(m) = matchers.of(c) else { continue };
                let right = files.iter().any(|f| change_covers(m, f));
                commit.named.push((score, right));
            }
            for &x in &left_out {
                let best = (named.iter())
                    .filter(|(c, _)| matchers.of(c).is_some_and(|m| change_covers(m, &files[x])))
                    .map(|(_, &s)| s)
                    .reduce(f64::max);
                commit.left_out.push(best);
            }
            said.cut.commits.push(commit);
        }
        for &x in companions {
            let best = lacking(peeked, files, &[x], &mut matchers)
                .iter()
                .filter(|(c, _)| matchers.of(c).is_some_and(|m| change_covers(m, &files[x])))
                .map(|(_, &s)| s)
                .reduce(f64::max);
            said.misses.push(best);
        }
    }
    said.figures(name, 0.0)
}

/// Each companion's matcher, compiled once (`None`: not a glob).
#[derive(Default)]
struct Matchers(HashMap<String, Option<GlobMatcher>>);

impl Matchers {
    fn of(&mut self, companion: &str) -> Option<&GlobMatcher> {
        if !self.0.contains_key(companion) {
            let compiled = companion_matcher(companion).ok();
            self.0.insert(companion.to_string(), compiled);
        }
        self.0.get(companion).and_then(Option::as_ref)
    }
}

/// What the engine's check of the change `files` without `left_out` names: each companion a
/// peek of the rest named that no file of the rest covers, with its best confidence.
fn lacking(
    peeked: &[Peeked],
    files: &[String],
    left_out: &[usize],
    matchers: &mut Matchers,
) -> Named<String> {
    let mut named = Named::new();
    for p in peeked.iter().filter(|p| !left_out.contains(&p.file)) {
        for (c, &score) in p.companions.iter().zip(&p.scores) {
            let Some(matcher) = matchers.of(c) else {
                continue;
            };
            let touched = files
                .iter()
                .enumerate()
                .any(|(j, f)| !left_out.contains(&j) && change_covers(matcher, f));
            if !touched {
                keep_best(&mut named, c.clone(), score);
            }
        }
    }
    named
}

/// The co-change check: for every file of the change, the files that changed with it in at
/// least [`COCHANGE_SUPPORT`] earlier kept commits (at most `max`, best confidence first),
/// those the change lacks named with their confidence.
pub fn cochange_check(
    paths: &[Vec<String>],
    split: usize,
    misses: &[BTreeSet<usize>],
    max: usize,
    learning_precision: Option<f64>,
) -> CheckFigures {
    let candidates = cochange_candidates(paths, split, max);
    let mut said = Said::default();
    for (t, files) in paths.iter().enumerate().skip(split) {
        let of = &candidates[t];
        let check = |left_out: &[usize]| -> Named<&str> {
            let in_change: BTreeSet<&str> = files
                .iter()
                .enumerate()
                .filter(|(j, _)| !left_out.contains(j))
                .map(|(_, f)| f.as_str())
                .collect();
            let mut named = Named::new();
            for (_, list) in of.iter().enumerate().filter(|(i, _)| !left_out.contains(i)) {
                for (conf, path) in list {
                    if !in_change.contains(path.as_str()) {
                        keep_best(&mut named, path.as_str(), *conf);
                    }
                }
            }
            named
        };
        said.alarms.push(check(&[]).into_values().collect());
        let Some(companions) = misses.get(t) else {
            continue;
        };
        if companions.is_empty() {
            said.met_whole();
        } else {
            let left_out = left_out(t, companions);
            let named = check(&left_out);
            let real: BTreeSet<&str> = files.iter().map(String::as_str).collect();
            said.cut.commits.push(CutCommit {
                named: (named.iter())
                    .map(|(path, &score)| (score, real.contains(path)))
                    .collect(),
                left_out: (left_out.iter())
                    .map(|&x| named.get(files[x].as_str()).copied())
                    .collect(),
            });
        }
        for &x in companions {
            said.misses
                .push(check(&[x]).get(files[x].as_str()).copied());
        }
    }
    let mut figures = said.figures(
        &format!("co-change k{COCHANGE_SUPPORT}"),
        COCHANGE_CONFIDENCE,
    );
    figures.at_learning_precision = learning_precision.and_then(|right| {
        let uncut = |bar| said.at(bar).commits_alarmed_per_100;
        said.cut.at_precision(right, COCHANGE_CONFIDENCE, uncut)
    });
    figures
}

/// Per turn, per scored file, its co-change candidates (confidence, path) from the kept
/// commits before the turn (empty for a training turn). Support is counted one file at a
/// time, as the baseline counts it, so what is held at once stays linear in the history.
fn cochange_candidates(
    paths: &[Vec<String>],
    split: usize,
    max: usize,
) -> Vec<Vec<Vec<(f64, String)>>> {
    let unique: Vec<Vec<&str>> = paths
        .iter()
        .map(|files| {
            let set: BTreeSet<&str> = files.iter().map(String::as_str).collect();
            set.into_iter().collect()
        })
        .collect();
    let mut out: Vec<Vec<Vec<(f64, String)>>> = paths
        .iter()
        .map(|files| vec![Vec::new(); files.len()])
        .collect();
    // The scored (turn, index) of each file, in order.
    let mut asked: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
    for (t, files) in paths.iter().enumerate().skip(split) {
        for (i, f) in files.iter().enumerate() {
            asked.entry(f.as_str()).or_default().push((t, i));
        }
    }
    let mut holding: HashMap<&str, Vec<usize>> = asked.keys().map(|&a| (a, Vec::new())).collect();
    for (t, files) in unique.iter().enumerate() {
        for f in files {
            if let Some(at) = holding.get_mut(f) {
                at.push(t);
            }
        }
    }
    for (file, turns) in &asked {
        let commits = &holding[file];
        let mut with: HashMap<&str, u64> = HashMap::new();
        let (mut n, mut next) = (0u64, 0);
        for &(t, i) in turns {
            while let Some(&e) = commits.get(next).filter(|&&e| e < t) {
                n += 1;
                for &b in unique[e].iter().filter(|&&b| b != *file) {
                    *with.entry(b).or_default() += 1;
                }
                next += 1;
            }
            out[t][i] = ranked(
                with.iter().map(|(f, s)| (*f, *s)),
                n,
                COCHANGE_SUPPORT,
                0.0,
                max,
            )
            .into_iter()
            .map(|(conf, _, path)| (conf, path.to_string()))
            .collect();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::Pack;

    fn strings(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|s| s.to_string()).collect()
    }

    fn pack() -> CompiledPack {
        let json = r#"{"families":[{"name":"Src","kind":"doc","rules":["src/*.py"],
            "companions":[{"path":"tests/test_{}.py","prior":1.0},{"path":"CHANGES.md","prior":1.0}]}]}"#;
        let pack = Pack::from_json_str(json, "test").expect("a pack");
        CompiledPack::compile(&pack, "test").expect("compiles")
    }

    #[test]
    fn a_companion_file_is_one_another_file_of_the_commit_names() {
        let paths = vec![
            strings(&["src/a.py", "tests/test_a.py", "CHANGES.md", "README"]),
            strings(&["tests/test_b.py", "CHANGES.md"]),
        ];
        let mut bases = Bases::new(&[]);
        let misses = companion_files(&paths, 0, &pack(), &mut bases);
        // Commit 2 has no source file: nothing names its files.
        assert_eq!(misses, vec![BTreeSet::from([1, 2]), BTreeSet::new()]);
    }

    #[test]
    fn the_engine_check_names_what_the_change_lacks_and_catches_a_left_out_companion() {
        let paths = vec![strings(&["src/a.py", "tests/test_a.py", "CHANGES.md"])];
        let peeks = vec![vec![Peeked {
            file: 0,
            family: "F".into(),
            confidence: 0.8,
            companions: strings(&["tests/test_a.py", "CHANGES.md", "docs/a.md"]),
            scores: vec![0.8; 3],
        }]];
        let misses = vec![BTreeSet::from([1, 2])];
        let figures = engine_check("learning", &paths, 0, &peeks, &misses);
        // The real commit lacks docs/a.md only: one false alarm in one commit.
        assert_eq!(figures.at_default.false_alarms_per_100_commits, 100.0);
        assert_eq!(figures.at_default.misses_caught, 2);
        // Within 10 per 100 the bar rises past 0.8 and names nothing.
        assert_eq!(figures.within_budget.misses_caught, 0);
        assert!(figures.within_budget.bar > 0.8);
    }

    #[test]
    fn a_left_out_file_whose_note_named_it_is_not_caught_by_its_own_note() {
        // Only the test's own note names the source: leaving the test out, nothing names it.
        let paths = vec![strings(&["src/a.py", "tests/test_a.py"])];
        let peeks = vec![vec![Peeked {
            file: 1,
            family: "F".into(),
            confidence: 0.9,
            companions: strings(&["tests/test_a.py"]),
            scores: vec![0.9],
        }]];
        let figures = engine_check("learning", &paths, 0, &peeks, &[BTreeSet::from([1])]);
        assert_eq!(figures.at_default.misses_caught, 0);
        assert_eq!(figures.at_default.false_alarms_per_100_commits, 0.0);
    }

    #[test]
    fn a_claim_scores_its_evidence_where_it_blocks_and_under_the_block_bar_elsewhere() {
        let claim = |v: serde_json::Value| claim_score(Some(&v));
        assert_eq!(
            claim(serde_json::json!({"evidence": 0.9, "blocks": true})),
            0.9
        );
        assert_eq!(
            claim(serde_json::json!({"evidence": 0.4, "blocks": false})),
            0.4
        );
        // Evidence past the bar in a repository whose boundary may not block.
        let held = claim(serde_json::json!({"evidence": 0.95, "blocks": false}));
        assert!(held < BLOCK_BAR && held > 0.69, "{held}");
        assert_eq!(
            claim(serde_json::json!({"evidence": null, "blocks": false})),
            0.0
        );
        assert_eq!(claim_score(None), 0.0);
    }

    #[test]
    fn the_cochange_check_names_files_changed_together_before() {
        let pair = strings(&["src/a.py", "tests/test_a.py"]);
        let paths = vec![pair.clone(), pair.clone(), strings(&["src/a.py"]), pair];
        // Scored: commits 2 and 3. At 2 the test went with the source in 2 of 2 commits.
        let misses = vec![
            BTreeSet::new(),
            BTreeSet::new(),
            BTreeSet::new(),
            BTreeSet::from([1]),
        ];
        let figures = cochange_check(&paths, 2, &misses, 7, Some(0.9));
        // Commit 2 lacks the test (confidence 1.0): 1 alarm over 2 commits; commit 3, with the
        // test left out, is caught (2 of 3).
        assert_eq!(figures.at_default.false_alarms_per_100_commits, 50.0);
        assert_eq!(figures.at_default.misses_caught, 1);
        // Held to 90 % right: commit 3's reminder (the test, 2 of 3) is right, so the lowest
        // bar that names it does; every left-out file named there.
        let held = figures.at_learning_precision.expect("a bar gets there");
        assert!((held.bar - 2.0 / 3.0).abs() < 1e-9, "{held:?}");
        assert_eq!(held.reminders_right_share, Some(1.0));
        assert_eq!(held.left_out_named_share, Some(1.0));
        // Without the learning engine's precision it is not asked.
        assert!((cochange_check(&paths, 2, &misses, 7, None).at_learning_precision).is_none());
    }
}
