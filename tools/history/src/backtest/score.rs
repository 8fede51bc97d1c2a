//! Scoring notes against what each commit really changed, and the co-change baseline.
//!
//! The figures are those of the development set's `evaluate.py` (docs/BACKTEST.md): a named
//! companion is a hit when a later file of the same commit matches it, glob-aware, relative
//! to the root, the package root or the package parent. A `{}` template arrives as its
//! substitution for the note's call: a hit is a later file equal to that path.

use super::stretches::{Stretch, Tally};
use super::trace::{Turn, family_of};
use docsuggest_engine::compiled::{CompanionForm, CompiledFamily, CompiledPack};
use docsuggest_engine::evaluate::{Calibration, CalibrationBin};
use globset::GlobMatcher;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// One note the engine made during a backtest.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Note {
    /// The index of its turn.
    pub turn: usize,
    /// The index (in the turn's scored files) of the first file after the call.
    #[serde(skip)]
    pub start: usize,
    /// The call's path.
    pub path: String,
    /// The note's confidence, as the answer gave it.
    pub confidence: Option<f64>,
    /// The note's family.
    pub family: String,
    /// The companions it named, in rank order.
    pub companions: Vec<String>,
}

/// A note's companions, in rank order.
pub(super) fn note_companions(note: &Value) -> Vec<String> {
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

/// The scoring bases of a path: the root, its package root and package parent.
pub struct Bases {
    packages: HashSet<String>,
    memo: HashMap<String, Vec<String>>,
}

fn parent(dir: &str) -> &str {
    dir.rfind('/').map_or("", |i| &dir[..i])
}

impl Bases {
    /// Package roots are the directories holding a `package.json` among `paths`.
    pub fn new(paths: &[String]) -> Bases {
        let packages = paths
            .iter()
            .filter(|p| p.rsplit('/').next() == Some("package.json"))
            .map(|p| parent(p).to_string())
            .collect();
        Bases {
            packages,
            memo: HashMap::new(),
        }
    }

    /// The bases of `path` (root first, as `""`).
    pub fn of(&mut self, path: &str) -> Vec<String> {
        let dir = parent(path);
        if let Some(b) = self.memo.get(dir) {
            return b.clone();
        }
        let mut bases = vec![String::new()];
        let mut cur = dir;
        loop {
            if self.packages.contains(cur) {
                if !cur.is_empty() {
                    bases.push(cur.to_string());
                    let up = parent(cur).to_string();
                    if !bases.contains(&up) {
                        bases.push(up);
                    }
                }
                break;
            }
            if cur.is_empty() {
                break;
            }
            cur = parent(cur);
        }
        self.memo.insert(dir.to_string(), bases.clone());
        bases
    }
}

/// The pack's companion matchers by family name and companion path.
pub struct Matchers {
    by: HashMap<(String, String), GlobMatcher>,
    /// The families with a `{}` template, by name: their companions are named per call.
    templates: HashMap<String, CompiledFamily>,
}

/// `path` relative to each of `bases` it lies under.
fn under<'p>(path: &'p str, bases: &'p [String]) -> impl Iterator<Item = &'p str> {
    bases.iter().filter_map(move |b| {
        if b.is_empty() {
            Some(path)
        } else {
            path.strip_prefix(b.as_str())
                .and_then(|r| r.strip_prefix('/'))
        }
    })
}

/// Whether `path`, relative to one of `bases`, is `literal`.
fn names_literal(literal: &str, path: &str, bases: &[String]) -> bool {
    under(path, bases).any(|r| r == literal)
}

/// Each companion's substitution for a call on `trigger` (`None` for a companion that is not
/// a template, or a template with none); empty for a family without a template.
fn substitutions(family: &CompiledFamily, trigger: &str) -> Vec<Option<String>> {
    if !family.has_templates() {
        return Vec::new();
    }
    (0..family.companions.len())
        .map(|i| family.substitute(i, trigger))
        .collect()
}

impl Matchers {
    /// The matchers of every companion of `pack`.
    pub fn new(pack: &CompiledPack) -> Matchers {
        let mut by = HashMap::new();
        let mut templates = HashMap::new();
        for f in &pack.families {
            for c in &f.companions {
                by.insert((f.name.clone(), c.path.clone()), (*c.matcher).clone());
            }
            if f.has_templates() {
                templates.insert(f.name.clone(), f.clone());
            }
        }
        Matchers { by, templates }
    }

    /// Whether `path` names the companion `companion` of `family` from a call at `bases`. A
    /// name the pack does not hold (a template's substitution) names exactly that path.
    pub fn matches(&self, family: &str, companion: &str, path: &str, bases: &[String]) -> bool {
        let matcher = self.by.get(&(family.to_string(), companion.to_string()));
        match matcher {
            Some(m) => under(path, bases).any(|r| m.is_match(r)),
            None => names_literal(companion, path, bases),
        }
    }

    /// The template of `family` whose substitution for a call on `trigger` is `name`, if any:
    /// the companion the note named, as the pack (and the rates) write it.
    pub fn template_of(&self, family: &str, trigger: &str, name: &str) -> Option<&str> {
        let fam = self.templates.get(family)?;
        (0..fam.companions.len())
            .find(|&i| fam.substitute(i, trigger).as_deref() == Some(name))
            .map(|i| fam.companions[i].path.as_str())
    }
}

/// The paths of a turn the figures count: excluded paths are invisible to the engine.
pub fn scored_paths(turn: &Turn, exclude: &[String]) -> Vec<String> {
    turn.files
        .iter()
        .map(|(_, p)| p)
        .filter(|p| !p.split('/').any(|c| exclude.iter().any(|e| e == c)))
        .cloned()
        .collect()
}

/// One commit's files as a pack sees them: each file's family and, for a family with a
/// `{}` template, each companion's substitution for it.
pub struct CommitFamilies<'a> {
    files: &'a [String],
    families: Vec<Option<usize>>,
    substitutions: Vec<Vec<Option<String>>>,
}

impl<'a> CommitFamilies<'a> {
    /// The families of `files` under `pack`.
    pub fn new(files: &'a [String], pack: &CompiledPack) -> CommitFamilies<'a> {
        let families: Vec<Option<usize>> = files.iter().map(|p| family_of(pack, p)).collect();
        // A template covers exactly its substitution for the family file.
        let substitutions = files
            .iter()
            .zip(&families)
            .map(|(p, k)| k.map_or_else(Vec::new, |k| substitutions(&pack.families[k], p)))
            .collect();
        CommitFamilies {
            files,
            families,
            substitutions,
        }
    }

    /// Whether a companion of file `i`'s family names file `j` (another path).
    pub fn names(
        &self,
        pack: &CompiledPack,
        matchers: &Matchers,
        bases: &mut Bases,
        i: usize,
        j: usize,
    ) -> bool {
        let Some(k) = self.families[i] else {
            return false;
        };
        let (from, to) = (&self.files[i], &self.files[j]);
        if from == to {
            return false;
        }
        let fam = &pack.families[k];
        let b = bases.of(from);
        fam.companions.iter().enumerate().any(|(n, c)| {
            if !c.applies_to(from) {
                false
            } else if c.form == CompanionForm::Template {
                self.substitutions[i]
                    .get(n)
                    .and_then(Option::as_deref)
                    .is_some_and(|s| names_literal(s, to, &b))
            } else {
                matchers.matches(&fam.name, &c.path, to, &b)
            }
        })
    }
}

/// Per turn, the positions of the files a companion of the trigger's family could name
/// (`trigger`) and of any earlier family file's family (`any`).
pub fn coverable(
    paths: &[Vec<String>],
    pack: &CompiledPack,
    matchers: &Matchers,
    bases: &mut Bases,
) -> (Vec<BTreeSet<usize>>, Vec<BTreeSet<usize>>) {
    let mut trigger = Vec::with_capacity(paths.len());
    let mut any = Vec::with_capacity(paths.len());
    for files in paths {
        let commit = CommitFamilies::new(files, pack);
        let (mut t, mut a) = (BTreeSet::new(), BTreeSet::new());
        for j in 1..files.len() {
            for i in 0..j {
                if commit.names(pack, matchers, bases, i, j) {
                    a.insert(j);
                    if i == 0 {
                        t.insert(j);
                    }
                }
            }
        }
        trigger.push(t);
        any.push(a);
    }
    (trigger, any)
}

/// Named and hit counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Count {
    /// Times named.
    pub named: u64,
    /// Times hit.
    pub hit: u64,
}

/// A family's notes.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct FamilyFigures {
    /// Notes of the family.
    pub notes: u64,
    /// Hits ÷ companions named.
    pub companion_precision: Option<f64>,
}

/// A companion's record.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct CompanionFigures {
    /// Times named.
    pub named: u64,
    /// Hits ÷ times named.
    pub hit_rate: Option<f64>,
}

/// The figures of one suggester over the scored commits (docs/BACKTEST.md).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Figures {
    /// Notes made.
    pub notes: u64,
    /// Notes per 100 scored commits.
    pub notes_per_100_commits: f64,
    /// Companions named over all notes.
    pub companions_named: u64,
    /// Hits ÷ companions named.
    pub companion_precision: Option<f64>,
    /// Notes with at least one hit ÷ notes.
    pub note_precision: Option<f64>,
    /// Share of the files after a trigger that its family could name which some note named.
    pub recall_trigger: Option<f64>,
    /// The same for files after any family file (the engine only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall_any_family_call: Option<f64>,
    /// Notes with no hit per 100 scored commits.
    pub nag_per_100_commits: f64,
    /// Companion precision over the first half of the scored commits.
    pub companion_precision_h1: Option<f64>,
    /// … and over the second half.
    pub companion_precision_h2: Option<f64>,
    /// Note precision over the first half.
    pub note_precision_h1: Option<f64>,
    /// … and over the second half.
    pub note_precision_h2: Option<f64>,
    /// Notes in the first half.
    pub notes_h1: u64,
    /// Notes in the second half.
    pub notes_h2: u64,
    /// Per family (engine only).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_family: BTreeMap<String, FamilyFigures>,
    /// Per `family companion` (engine only), worst first in the table.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub companion_hit_rate: BTreeMap<String, CompanionFigures>,
    /// The notes by confidence against their note precision (engine only: the co-change
    /// baseline has no confidence): the bins that hold a note, ascending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<Vec<CalibrationBin>>,
    /// The same counts over consecutive stretches of the scored commits, oldest first.
    pub stretches: Vec<Stretch>,
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (b > 0).then(|| a as f64 / b as f64)
}

struct Agg {
    notes: [u64; 2],
    notes_hit: [u64; 2],
    named: [u64; 2],
    hit: [u64; 2],
    stretches: Tally,
}

impl Agg {
    /// Counts over `commits` scored commits.
    fn new(commits: usize) -> Agg {
        Agg {
            notes: [0; 2],
            notes_hit: [0; 2],
            named: [0; 2],
            hit: [0; 2],
            stretches: Tally::new(commits),
        }
    }

    /// A note made at the scored commit `offset`, in the half `half`.
    fn add(&mut self, half: usize, offset: usize, named: u64, hits: u64) {
        self.stretches.add(offset, named, hits);
        self.notes[half] += 1;
        self.notes_hit[half] += u64::from(hits > 0);
        self.named[half] += named;
        self.hit[half] += hits;
    }

    fn figures(&self, commits: usize, recall_trigger: Option<f64>) -> Figures {
        let notes = self.notes[0] + self.notes[1];
        let notes_hit = self.notes_hit[0] + self.notes_hit[1];
        let named = self.named[0] + self.named[1];
        let per100 = |x: u64| {
            if commits == 0 {
                0.0
            } else {
                100.0 * x as f64 / commits as f64
            }
        };
        Figures {
            notes,
            notes_per_100_commits: per100(notes),
            companions_named: named,
            companion_precision: ratio(self.hit[0] + self.hit[1], named),
            note_precision: ratio(notes_hit, notes),
            recall_trigger,
            recall_any_family_call: None,
            nag_per_100_commits: per100(notes - notes_hit),
            companion_precision_h1: ratio(self.hit[0], self.named[0]),
            companion_precision_h2: ratio(self.hit[1], self.named[1]),
            note_precision_h1: ratio(self.notes_hit[0], self.notes[0]),
            note_precision_h2: ratio(self.notes_hit[1], self.notes[1]),
            notes_h1: self.notes[0],
            notes_h2: self.notes[1],
            by_family: BTreeMap::new(),
            companion_hit_rate: BTreeMap::new(),
            calibration: None,
            stretches: self.stretches.stretches(),
        }
    }
}

/// What the scorer needs of the scored commits.
pub struct Scoring<'a> {
    /// Every kept turn's scored paths.
    pub paths: &'a [Vec<String>],
    /// Turns before this index are training only.
    pub split: usize,
    /// Coverable positions after the trigger, per turn.
    pub trigger_cov: &'a [BTreeSet<usize>],
    /// Coverable positions after any family file, per turn.
    pub any_cov: &'a [BTreeSet<usize>],
}

impl Scoring<'_> {
    fn commits(&self) -> usize {
        self.paths.len().saturating_sub(self.split)
    }

    fn half(&self, turn: usize) -> usize {
        usize::from(turn >= self.split + self.commits() / 2)
    }

    fn recall(
        &self,
        cov: &[BTreeSet<usize>],
        covered: &HashMap<usize, BTreeSet<usize>>,
    ) -> Option<f64> {
        let mut total = 0;
        let mut hit = 0;
        for (t, c) in cov.iter().enumerate().skip(self.split) {
            total += c.len() as u64;
            if let Some(done) = covered.get(&t) {
                hit += c.intersection(done).count() as u64;
            }
        }
        ratio(hit, total)
    }

    /// Scores the engine's notes (those of training turns are left out).
    pub fn engine(&self, notes: &[Note], matchers: &Matchers, bases: &mut Bases) -> Figures {
        let mut agg = Agg::new(self.commits());
        let mut covered: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        let mut families: BTreeMap<String, (u64, Count)> = BTreeMap::new();
        let mut companions: BTreeMap<String, Count> = BTreeMap::new();
        let mut calibration = Calibration::default();
        for note in notes.iter().filter(|n| n.turn >= self.split) {
            let files = &self.paths[note.turn];
            let b = bases.of(&note.path);
            let mut hits = 0;
            for c in &note.companions {
                // A template's substitution is a literal path; its figures are the template's.
                let template = matchers.template_of(&note.family, &note.path, c);
                let mut hit = false;
                for (j, f) in files.iter().enumerate().skip(note.start) {
                    let named = match template {
                        Some(_) => names_literal(c, f, &b),
                        None => matchers.matches(&note.family, c, f, &b),
                    };
                    if named {
                        hit = true;
                        covered.entry(note.turn).or_default().insert(j);
                    }
                }
                hits += u64::from(hit);
                let entry = companions
                    .entry(format!("{} {}", note.family, template.unwrap_or(c)))
                    .or_default();
                entry.named += 1;
                entry.hit += u64::from(hit);
            }
            let named = note.companions.len() as u64;
            agg.add(self.half(note.turn), note.turn - self.split, named, hits);
            if let Some(confidence) = note.confidence {
                calibration.add(confidence, hits > 0);
            }
            let fam = families.entry(note.family.clone()).or_default();
            fam.0 += 1;
            fam.1.named += named;
            fam.1.hit += hits;
        }
        let mut fig = agg.figures(self.commits(), self.recall(self.trigger_cov, &covered));
        fig.recall_any_family_call = self.recall(self.any_cov, &covered);
        fig.calibration = Some(calibration.bins());
        fig.by_family = families
            .into_iter()
            .map(|(f, (notes, c))| {
                let figures = FamilyFigures {
                    notes,
                    companion_precision: ratio(c.hit, c.named),
                };
                (f, figures)
            })
            .collect();
        fig.companion_hit_rate = companions
            .into_iter()
            .map(|(k, c)| {
                let figures = CompanionFigures {
                    named: c.named,
                    hit_rate: ratio(c.hit, c.named),
                };
                (k, figures)
            })
            .collect();
        fig
    }

    /// The ROSE-style co-change baseline: at each turn's trigger (its first file) it names
    /// the files that changed with it in at least `k` earlier kept commits with confidence
    /// (support ÷ the trigger's count) at least `c`, best first, at most `max`. It learns from
    /// every earlier kept commit, training ones included.
    pub fn cochange(&self, k: u64, c: f64, max: usize) -> Figures {
        self.cochange_held(k, c, max).0
    }

    /// [`Scoring::cochange`], and the most support entries it held at once.
    ///
    /// Only a scored turn's trigger is ever asked for, so support is counted for those paths
    /// only, one trigger at a time: its earlier commits are walked in order, the counts of what
    /// changed with it growing up to each of its scored turns, then dropped before the next
    /// trigger. What is held at once is one count per path changed with that trigger (at most
    /// the history's distinct paths) and, per commit, its paths that are some scored trigger
    /// — linear in the history, never a count per pair of a commit's files, which a commit of
    /// 50,000 files would make 2.5 billion (docs/BACKTEST.md).
    fn cochange_held(&self, k: u64, c: f64, max: usize) -> (Figures, usize) {
        // Each commit's paths once, as sets (a path listed twice counts once).
        let unique: Vec<Vec<&str>> = self
            .paths
            .iter()
            .map(|files| {
                let set: BTreeSet<&str> = files.iter().map(String::as_str).collect();
                set.into_iter().collect()
            })
            .collect();
        // The scored turns of each trigger, in order.
        let mut asked: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (t, files) in self.paths.iter().enumerate().skip(self.split) {
            if let Some(trigger) = files.first() {
                asked.entry(trigger.as_str()).or_default().push(t);
            }
        }
        // The commits holding each such trigger, in order.
        let mut holding: HashMap<&str, Vec<usize>> =
            asked.keys().map(|&a| (a, Vec::new())).collect();
        for (t, files) in unique.iter().enumerate() {
            for f in files {
                if let Some(at) = holding.get_mut(f) {
                    at.push(t);
                }
            }
        }
        let mut agg = Agg::new(self.commits());
        let mut covered: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        let mut held = 0;
        for (trigger, turns) in &asked {
            let commits = &holding[trigger];
            let mut with: HashMap<&str, u64> = HashMap::new();
            let (mut n, mut next) = (0u64, 0);
            for &t in turns {
                // Every commit before `t` that holds the trigger, counted once.
                while let Some(&e) = commits.get(next).filter(|&&e| e < t) {
                    n += 1;
                    for &b in unique[e].iter().filter(|&&b| b != *trigger) {
                        *with.entry(b).or_default() += 1;
                    }
                    next += 1;
                }
                held = held.max(with.len());
                let candidates = ranked(with.iter().map(|(f, s)| (*f, *s)), n, k, c, max);
                if candidates.is_empty() {
                    continue;
                }
                let files = &self.paths[t];
                let changed: HashSet<&str> = files[1..].iter().map(String::as_str).collect();
                let hits = candidates.iter().filter(|x| changed.contains(x.2)).count();
                let offset = t - self.split;
                agg.add(self.half(t), offset, candidates.len() as u64, hits as u64);
                let named: HashSet<&str> = candidates.iter().map(|x| x.2).collect();
                let done = covered.entry(t).or_default();
                for (j, f) in files.iter().enumerate().skip(1) {
                    if named.contains(f.as_str()) {
                        done.insert(j);
                    }
                }
            }
        }
        (
            agg.figures(self.commits(), self.recall(self.trigger_cov, &covered)),
            held,
        )
    }
}

/// The co-change suggestions of a trigger changed in `n` earlier commits, from each path's
/// support with it: support at least `k`, confidence at least `c`, best confidence first, then
/// support, then path; at most `max`.
pub(super) fn ranked<'a>(
    with: impl Iterator<Item = (&'a str, u64)>,
    n: u64,
    k: u64,
    c: f64,
    max: usize,
) -> Vec<(f64, u64, &'a str)> {
    if n == 0 {
        return Vec::new();
    }
    let mut candidates: Vec<(f64, u64, &str)> = with
        .map(|(f, s)| (s as f64 / n as f64, s, f))
        .filter(|(conf, s, _)| *s >= k && *conf >= c)
        .collect();
    candidates.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(b.2)));
    candidates.truncate(max);
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::Pack;

    fn pack() -> CompiledPack {
        let text = r#"{"families": [{"name": "Attr", "rules": ["**/attr/*.py"], "companions": [
            {"path": "tests/test_{}.py", "prior": 1.0},
            {"path": "tests/*.cfg", "prior": 0.5}]}]}"#;
        let pack = Pack::from_json_str(text, "p.json").expect("a valid pack");
        CompiledPack::compile(&pack, "p.json").expect("it compiles")
    }

    fn strings(xs: &[&str]) -> Vec<String> {
        xs.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn a_substituted_companion_is_a_hit_when_the_commit_touches_it() {
        let pack = pack();
        let matchers = Matchers::new(&pack);
        let paths = vec![
            strings(&[
                "attr/_make.py",
                "tests/test_other.py",
                "tests/test__make.py",
            ]),
            strings(&["attr/_make.py", "tests/test_other.py"]),
            // In a package, the substitution is relative to the package root too.
            strings(&["pkg/attr/a.py", "pkg/tests/test_a.py"]),
        ];
        let mut bases = Bases::new(&strings(&["pkg/package.json"]));
        let (trigger_cov, any_cov) = coverable(&paths, &pack, &matchers, &mut bases);
        // A template covers its own substitution only, not every file its glob would match.
        assert_eq!(
            trigger_cov,
            [BTreeSet::from([2]), BTreeSet::new(), BTreeSet::from([1])]
        );
        let note = |turn: usize, path: &str, companions: &[&str]| Note {
            turn,
            start: 1,
            path: path.into(),
            confidence: None,
            family: "Attr".into(),
            companions: strings(companions),
        };
        let notes = [
            note(0, "attr/_make.py", &["tests/test__make.py"]),
            note(1, "attr/_make.py", &["tests/test__make.py"]),
            note(2, "pkg/attr/a.py", &["tests/test_a.py"]),
        ];
        let scoring = Scoring {
            paths: &paths,
            split: 0,
            trigger_cov: &trigger_cov,
            any_cov: &any_cov,
        };
        let fig = scoring.engine(&notes, &matchers, &mut bases);
        assert_eq!(fig.companions_named, 3);
        assert_eq!(fig.companion_precision, Some(2.0 / 3.0));
        assert_eq!(fig.recall_trigger, Some(1.0));
        // Figures gather under the template, as the rates do.
        let keys: Vec<&str> = fig.companion_hit_rate.keys().map(String::as_str).collect();
        assert_eq!(keys, ["Attr tests/test_{}.py"]);
        assert_eq!(fig.companion_hit_rate["Attr tests/test_{}.py"].named, 3);
    }

    #[test]
    fn a_directory_template_covers_the_spec_in_the_file_s_own_subdirectory() {
        let text = r#"{"families": [{"name": "Lib", "rules": ["lib/**/*.rb"], "companions": [
            {"path": "spec/{**}/{}_spec.rb", "prior": 1.0}]}]}"#;
        let pack = Pack::from_json_str(text, "p.json").expect("a valid pack");
        let pack = CompiledPack::compile(&pack, "p.json").expect("it compiles");
        let matchers = Matchers::new(&pack);
        let paths = vec![
            strings(&["lib/a/b/x.rb", "spec/a/b/x_spec.rb"]),
            strings(&["lib/a/x.rb", "spec/b/x_spec.rb"]),
            strings(&["lib/x.rb", "spec/x_spec.rb"]),
        ];
        let mut bases = Bases::new(&[]);
        let (trigger_cov, _) = coverable(&paths, &pack, &matchers, &mut bases);
        assert_eq!(
            trigger_cov,
            [BTreeSet::from([1]), BTreeSet::new(), BTreeSet::from([1])]
        );
        assert_eq!(
            matchers.template_of("Lib", "lib/a/b/x.rb", "spec/a/b/x_spec.rb"),
            Some("spec/{**}/{}_spec.rb")
        );
    }

    #[test]
    fn names_outside_the_pack_are_literal_paths() {
        let pack = pack();
        let matchers = Matchers::new(&pack);
        let root = strings(&[""]);
        assert!(matchers.matches("Attr", "tests/test_a.py", "tests/test_a.py", &root));
        assert!(!matchers.matches("Attr", "tests/test_a.py", "tests/test_b.py", &root));
        assert!(matchers.matches("Attr", "tests/*.cfg", "tests/x.cfg", &root));
        assert_eq!(
            matchers.template_of("Attr", "attr/a.py", "tests/test_a.py"),
            Some("tests/test_{}.py")
        );
        assert_eq!(
            matchers.template_of("Attr", "attr/b.py", "tests/test_a.py"),
            None
        );
    }

    /// One commit of `n` files with the trigger first, then three with the trigger and `x.md`:
    /// the support entries held at once stay within the documented bound, the paths of the
    /// history (docs/BACKTEST.md), not one per pair of the big commit.
    fn support_held(n: usize) -> (Figures, usize) {
        let mut big = vec!["attr/a.py".to_string()];
        big.extend((0..n - 1).map(|i| format!("f/{i:06}.txt")));
        let paths = vec![
            big,
            strings(&["attr/a.py", "x.md"]),
            strings(&["attr/a.py", "x.md"]),
            strings(&["attr/a.py", "x.md"]),
        ];
        let none = vec![BTreeSet::new(); paths.len()];
        let scoring = Scoring {
            paths: &paths,
            split: 0,
            trigger_cov: &none,
            any_cov: &none,
        };
        scoring.cochange_held(1, 0.2, 7)
    }

    #[test]
    fn the_cochange_support_of_a_huge_commit_is_bounded_by_its_paths() {
        const N: usize = 50_000;
        let (fig, held) = support_held(N);
        assert!(
            held <= N + 1,
            "{held} support entries for a commit of {N} files"
        );
        // Turns 1 and 2 name 7 of the big commit's files (support 1, confidence 1 then 1/2;
        // x.md's 1/2 loses the tie by path at turn 2): all miss; turn 3 names x.md first
        // (support 2, confidence 2/3): a hit, then 6 misses.
        assert_eq!(fig.notes, 3);
        assert_eq!(fig.companions_named, 21);
        assert_eq!(fig.companion_precision, Some(1.0 / 21.0));
    }

    /// The co-change baseline as it was first written: a support count for every pair of a
    /// commit's paths. The bounded one must give exactly its figures.
    fn cochange_by_pairs(scoring: &Scoring<'_>, k: u64, c: f64, max: usize) -> Figures {
        let mut count: HashMap<&str, u64> = HashMap::new();
        let mut pair: HashMap<&str, HashMap<&str, u64>> = HashMap::new();
        let mut agg = Agg::new(scoring.commits());
        let mut covered: HashMap<usize, BTreeSet<usize>> = HashMap::new();
        for (t, files) in scoring.paths.iter().enumerate() {
            let Some(trigger) = files.first() else {
                continue;
            };
            if t >= scoring.split {
                let n = count.get(trigger.as_str()).copied().unwrap_or(0);
                let with = pair.get(trigger.as_str());
                let pairs = with.into_iter().flatten().map(|(f, s)| (*f, *s));
                let candidates = ranked(pairs, n, k, c, max);
                if !candidates.is_empty() {
                    let changed: HashSet<&str> = files[1..].iter().map(String::as_str).collect();
                    let hits = candidates.iter().filter(|x| changed.contains(x.2)).count();
                    let (half, offset) = (scoring.half(t), t - scoring.split);
                    agg.add(half, offset, candidates.len() as u64, hits as u64);
                    let named: HashSet<&str> = candidates.iter().map(|x| x.2).collect();
                    let done = covered.entry(t).or_default();
                    for (j, f) in files.iter().enumerate().skip(1) {
                        if named.contains(f.as_str()) {
                            done.insert(j);
                        }
                    }
                }
            }
            let unique: BTreeSet<&str> = files.iter().map(String::as_str).collect();
            for a in &unique {
                *count.entry(a).or_default() += 1;
                let with = pair.entry(a).or_default();
                for b in &unique {
                    if a != b {
                        *with.entry(b).or_default() += 1;
                    }
                }
            }
        }
        agg.figures(
            scoring.commits(),
            scoring.recall(scoring.trigger_cov, &covered),
        )
    }

    #[test]
    fn the_bounded_cochange_gives_the_figures_of_every_pair_counted() {
        // A pseudo-random history: 400 commits of 1 to 12 paths, most of one of 8 clusters of
        // 5 paths, some anywhere among the 40, a few repeated.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let paths: Vec<Vec<String>> = (0..400)
            .map(|_| {
                let (n, cluster) = (1 + next(12), next(8));
                (0..n)
                    .map(|_| match next(4) {
                        0 => format!("p/{}.rs", next(40)),
                        _ => format!("p/{}.rs", cluster * 5 + next(5)),
                    })
                    .collect()
            })
            .collect();
        let cov: Vec<BTreeSet<usize>> = paths
            .iter()
            .map(|f| (1..f.len()).filter(|j| j % 2 == 1).collect())
            .collect();
        for split in [0, 1, 150, 399, 400] {
            let scoring = Scoring {
                paths: &paths,
                split,
                trigger_cov: &cov,
                any_cov: &cov,
            };
            for (k, c) in [(2, 0.5), (1, 0.2), (1, 0.0), (3, 0.7)] {
                let bounded = scoring.cochange(k, c, 7);
                assert_eq!(
                    bounded,
                    cochange_by_pairs(&scoring, k, c, 7),
                    "{split} {k} {c}"
                );
                if split < 399 && c < 0.6 {
                    assert!(bounded.notes > 0, "{split} {k} {c}: {bounded:?}");
                }
            }
        }
    }
}
