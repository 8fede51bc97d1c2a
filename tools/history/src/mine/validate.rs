//! Validated selection: the repository's own history chooses what its pack says.
//!
//! The history is split in time. Every companion the older part supports — a rule's literal,
//! glob, new-file and template companions, and each file's per-file companions, which are
//! plain co-change — is a candidate; each is then scored on the newer part the way `backtest`
//! scores a note (named when a file of its rule changes, followed when the commit changes it
//! too) and kept only when it does better there than plain co-change does on the same
//! commits (and never below the fixed rules' 40 % floor). The bar is that co-change precision, measured on the repository itself, not a
//! constant: where co-change is precise the pack must be more so, and where it is not, weaker
//! companions the agent still follows may speak. The kept set is then counted again on the
//! whole history for the priors (`super::mine`).

use super::MineOptions;
use super::count::{Counts, counted_files};
use super::kept::{Figures, Kept};
use super::per_file::FileCompanion;
use super::rules::{Shape, proposals};
use super::select::{self, Candidate, covers};
use super::tip::Tip;
use crate::history::{Commit, Status};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The newest share of the history read that validates what the older part proposes.
pub const VALIDATION_SHARE: f64 = 0.25;

/// Fewer commits than this in either part and the history is too short to split: mined by
/// the fixed rules alone.
pub const MIN_PART_COMMITS: usize = 40;

/// How much a candidate's rate on the older part weighs against its figures on the newer
/// part, in commits: a companion named twice there and followed once is not yet a 50 % one.
const PSEUDO_COMMITS: f64 = 2.0;

/// The co-change baseline the bar is measured from: support, confidence, most named
/// (`backtest`'s `co-change k2 c0.5`).
const COCHANGE: (u32, f64, usize) = (2, 0.5, 7);

// Counting and scoring are validation's own: the figures are plain data elsewhere.
impl Figures {
    fn count(&mut self, followed: bool) {
        self.named += 1;
        self.followed += u32::from(followed);
    }

    /// The share followed, shrunk toward `rate` (the older part's) by [`PSEUDO_COMMITS`].
    fn score(&self, rate: f64) -> f64 {
        (f64::from(self.followed) + PSEUDO_COMMITS * rate)
            / (f64::from(self.named) + PSEUDO_COMMITS)
    }
}

/// What the validation did, for the report.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Validation {
    /// The first commit the candidates were counted from.
    pub proposed_from: String,
    /// The first commit of the newer part, which scored them.
    pub validated_from: String,
    /// The last commit read.
    pub to: String,
    /// Commits in the older part.
    pub proposing_commits: usize,
    /// Commits in the newer part.
    pub validating_commits: usize,
    /// Co-change's companion precision on the newer part (at each commit's first file of a
    /// proposed rule), from the older part's counts; `None` when it named nothing.
    pub cochange_precision: Option<f64>,
    /// The bar a candidate's shrunk precision there had to clear.
    pub bar: f64,
    /// Candidates scored.
    pub candidates: usize,
    /// Candidates kept.
    pub kept: usize,
}

/// Where the history read splits into the part that proposes and the part that validates,
/// or `None` when either part would be too short to say anything.
pub fn split(commits: usize) -> Option<usize> {
    let validating = (commits as f64 * VALIDATION_SHARE) as usize;
    let proposing = commits - validating;
    (validating >= MIN_PART_COMMITS && proposing >= MIN_PART_COMMITS).then_some(proposing)
}

/// The options candidates are proposed with: wider than the fixed rules, since the newer
/// part, not a threshold, decides.
pub fn proposing(options: &MineOptions) -> MineOptions {
    MineOptions {
        min_commits: options.min_commits.min(3),
        min_hits: options.min_hits.min(COCHANGE.0 as usize),
        min_rate: options.min_rate.min(0.2),
        max_companions: options.max_companions.max(8),
        ..options.clone()
    }
}

/// The options the kept set is counted again with on the whole history: the fixed rules'
/// rate floor over the whole history still holds (what the newer part kept must also be
/// what the history as a whole shows), at most `max_companions` per family as ever.
pub fn keeping(options: &MineOptions) -> MineOptions {
    MineOptions {
        min_rate: options.min_rate,
        max_companions: options.max_companions,
        ..proposing(options)
    }
}

/// What a part of the history proposes: each rule's pattern companions, each file's per-file
/// companions (with their text numbers in the counts).
pub struct Proposals {
    rules: Vec<Candidate>,
    files: BTreeMap<String, Vec<FileCompanion>>,
}

impl Proposals {
    /// What `counts` propose under the wider [`proposing`] options.
    pub fn of(counts: &Counts, tip: &Tip<'_>, options: &MineOptions) -> Proposals {
        let (rules, files) = select::proposed(counts, tip, &proposing(options));
        Proposals { rules, files }
    }

    /// Both parts' proposals: a convention that began in the newer part is proposed by the
    /// whole history only. Where both propose a companion, the older part's rate stays (it
    /// is the one the newer part did not see).
    pub fn with(mut self, whole: Proposals) -> Proposals {
        let mut at: HashMap<Shape, usize> = self
            .rules
            .iter()
            .enumerate()
            .map(|(i, c)| (c.shape.clone(), i))
            .collect();
        for rule in whole.rules {
            match at.get(&rule.shape) {
                Some(&i) => {
                    let mine = &mut self.rules[i].companions;
                    for c in rule.companions {
                        if !mine.iter().any(|m| m.path == c.path) {
                            mine.push(c);
                        }
                    }
                }
                None => {
                    at.insert(rule.shape.clone(), self.rules.len());
                    self.rules.push(rule);
                }
            }
        }
        for (file, companions) in whole.files {
            let mine = self.files.entry(file).or_default();
            for c in companions {
                if !mine.iter().any(|m| m.companion == c.companion) {
                    mine.push(c);
                }
            }
        }
        self
    }

    fn index(&self) -> HashMap<&Shape, usize> {
        self.rules
            .iter()
            .enumerate()
            .map(|(i, c)| (&c.shape, i))
            .collect()
    }
}

/// The commits of `newer` that are scored: their counted files, if not too many.
fn scored_commits<'c>(
    newer: &'c [Commit],
    options: &'c MineOptions,
) -> impl Iterator<Item = Vec<(Status, &'c str)>> + 'c {
    newer
        .iter()
        .filter_map(|c| counted_files(c).filter(|f| f.len() <= options.max_files))
}

/// Co-change's companion precision on `newer`, at each commit's first file of a rule the
/// older part proposed (where the pack would be asked), from the older part's `counts`.
pub fn cochange_reference(
    counts: &Counts,
    older: &Proposals,
    newer: &[Commit],
    options: &MineOptions,
) -> Option<f64> {
    let index = older.index();
    let triggers: Vec<(&str, BTreeSet<&str>)> = scored_commits(newer, options)
        .filter_map(|changed| {
            let trigger = changed.iter().map(|(_, p)| *p).find(|p| {
                proposals(p)
                    .iter()
                    .any(|(shape, _)| index.contains_key(shape))
            })?;
            Some((trigger, changed.iter().map(|(_, p)| *p).collect()))
        })
        .collect();
    cochange_precision(counts, &triggers)
}

/// Scores every proposal on `newer` (the commits from `at` on) and keeps what clears the
/// bar: co-change's precision there (`reference`), or `min_rate` where co-change named
/// nothing.
pub fn keep(
    counts: &Counts,
    proposals: &Proposals,
    commits: &[Commit],
    at: usize,
    reference: Option<f64>,
    options: &MineOptions,
) -> (Kept, Validation) {
    let newer = &commits[at..];
    let index = proposals.index();
    let mut rule_figures: Vec<Vec<Figures>> = proposals
        .rules
        .iter()
        .map(|c| vec![Figures::default(); c.companions.len()])
        .collect();
    let mut file_figures: BTreeMap<&str, Vec<Figures>> = proposals
        .files
        .iter()
        .map(|(f, cs)| (f.as_str(), vec![Figures::default(); cs.len()]))
        .collect();
    for changed in scored_commits(newer, options) {
        score_rules(&index, &proposals.rules, &mut rule_figures, &changed);
        let set: BTreeSet<&str> = changed.iter().map(|(_, p)| *p).collect();
        for (_, path) in &changed {
            let Some(figures) = file_figures.get_mut(path) else {
                continue;
            };
            for (c, f) in proposals.files[*path].iter().zip(figures.iter_mut()) {
                f.count(set.contains(counts.texts[c.companion as usize].as_str()));
            }
        }
    }
    // Never below the fixed rules' floor: the gate of a mined family lets a companion
    // followed less often than that speak only beside a better one.
    let bar = reference.map_or(options.min_rate, |r| r.max(options.min_rate));
    let mut kept = Kept::default();
    let mut candidates = 0;
    for (rule, figures) in proposals.rules.iter().zip(&rule_figures) {
        for (c, f) in rule.companions.iter().zip(figures) {
            candidates += 1;
            if f.score(c.rate) >= bar {
                let by = kept.rules.entry(rule.shape.clone()).or_default();
                by.insert(c.path.clone(), *f);
            }
        }
    }
    for (file, companions) in &proposals.files {
        for (c, f) in companions.iter().zip(&file_figures[file.as_str()]) {
            candidates += 1;
            if f.score(c.rate) >= bar {
                let by = kept.files.entry(file.clone()).or_default();
                by.insert(counts.texts[c.companion as usize].clone(), *f);
            }
        }
    }
    let kept_count = kept.rules.values().map(HashMap::len).sum::<usize>()
        + kept.files.values().map(HashMap::len).sum::<usize>();
    let id = |i: usize| commits.get(i).map(|c| c.id.clone()).unwrap_or_default();
    let validation = Validation {
        proposed_from: id(0),
        validated_from: id(at),
        to: id(commits.len().saturating_sub(1)),
        proposing_commits: at,
        validating_commits: newer.len(),
        cochange_precision: reference,
        bar,
        candidates,
        kept: kept_count,
    };
    (kept, validation)
}

/// Scores one newer commit against every proposed rule one of its files belongs to: the rule
/// names its companions for its first file there, each followed when another file of the
/// commit is one it names.
fn score_rules(
    index: &HashMap<&Shape, usize>,
    rules: &[Candidate],
    figures: &mut [Vec<Figures>],
    changed: &[(Status, &str)],
) {
    // Per proposed rule: its members in the commit, the first one the call.
    let mut members: BTreeMap<usize, (Vec<usize>, &str)> = BTreeMap::new();
    for (i, (_, path)) in changed.iter().enumerate() {
        for (shape, _) in proposals(path) {
            if let Some(&rule) = index.get(&shape) {
                members.entry(rule).or_insert((Vec::new(), path)).0.push(i);
            }
        }
    }
    for (rule, (inside, call)) in members {
        let capture = rules[rule].shape.capture(call);
        for (c, f) in rules[rule].companions.iter().zip(figures[rule].iter_mut()) {
            let followed = changed
                .iter()
                .enumerate()
                .any(|(j, (_, p))| !inside.contains(&j) && covers(&c.path, capture, p));
            f.count(followed);
        }
    }
}

/// Co-change's companion precision at each trigger: the files that changed with it in at
/// least `k` of the older part's commits, with confidence at least `c`, at most `max`,
/// against what the newer commit changed.
fn cochange_precision(counts: &Counts, triggers: &[(&str, BTreeSet<&str>)]) -> Option<f64> {
    let (k, c, max) = COCHANGE;
    let ids: HashMap<u32, &str> = triggers
        .iter()
        .filter_map(|(t, _)| Some((counts.id(t)?, *t)))
        .collect();
    let mut with: HashMap<&str, Vec<(u32, u32)>> = HashMap::new();
    for (&(a, b), tally) in &counts.pairs {
        if let Some(t) = ids.get(&a).filter(|_| tally.count >= k) {
            with.entry(t).or_default().push((b, tally.count));
        }
    }
    let (mut named, mut followed) = (0u64, 0u64);
    for (trigger, changed) in triggers {
        let Some(n) = counts
            .id(trigger)
            .and_then(|id| counts.file_events.get(&id))
            .map(|t| t.count)
            .filter(|n| *n > 0)
        else {
            continue;
        };
        let mut ranked: Vec<(u32, &str)> = with
            .get(trigger)
            .into_iter()
            .flatten()
            .filter(|(_, s)| f64::from(*s) / f64::from(n) >= c)
            .map(|(b, s)| (*s, counts.texts[*b as usize].as_str()))
            .collect();
        ranked.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(y.1)));
        ranked.truncate(max);
        named += ranked.len() as u64;
        followed += ranked.iter().filter(|(_, p)| changed.contains(p)).count() as u64;
    }
    (named > 0).then(|| followed as f64 / named as f64)
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod tests;
