//! Per-agent state: what this turn touched, cooldowns, dedupe, the cap, and the open window.

use crate::matcher::CompanionMatcher;
use crate::paths::relative_to;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most paths remembered as touched in one turn; older ones are forgotten first.
pub const MAX_TOUCHED: usize = 4096;

/// The most shadow windows one agent keeps open; the oldest is abandoned past it.
pub const MAX_SHADOWS: usize = 8;

/// Under the evidence model every window (notes' too) stays open for its whole length, so up
/// to `learnWindow + 1` are open at once; past this bound the oldest is abandoned.
pub const MAX_EVIDENCE_WINDOWS: usize = 64;

/// The follow-through of one emitted note.
#[derive(Clone, Debug)]
pub struct Window {
    /// The pending decision.
    pub decision_seq: u64,
    /// The workspace the note was about.
    pub workspace: String,
    /// The family.
    pub family: String,
    /// The named companions (a silence: the would-be named ones).
    pub companions: Vec<Arc<CompanionMatcher>>,
    /// Under the evidence model: companions watched but not named (left out, or past
    /// `maxCompanions`), so what is not named still gathers evidence.
    pub watched: Vec<Arc<CompanionMatcher>>,
    /// Under the evidence model: which of `companions`, then `watched`, were touched.
    pub touched: Vec<bool>,
    /// Under the evidence model: which of `companions`, then `watched`, this window counts.
    /// One another open window of the family already watches is not counted twice: windows
    /// that overlap see the same calls, so they are one observation, not several.
    pub counted: Vec<bool>,
    /// Under the evidence model: the first named companion touched (the note's accept).
    pub accepted: Option<String>,
    /// Whether closing it records evidence (the evidence model's windows, except a silence
    /// whose companions were all touched already).
    pub evidence: bool,
    /// The bases the companions were looked up under (shared with the scene they came from).
    pub bases: Arc<[PathBuf]>,
    /// Judged in-workspace calls seen since the note.
    pub age: u32,
    /// A gated silence's shadow window: it observes, it never moves a rate.
    pub observe_only: bool,
}

impl Window {
    /// The first named companion that the call path, taken under this window's bases, names.
    pub(crate) fn named_by(&self, under: &Under<'_>) -> Option<&str> {
        self.companions
            .iter()
            .find(|m| under.matches(m))
            .map(|m| m.path())
    }

    /// Marks every named or watched companion that the call path names as touched; answers
    /// whether this call is the note's accept (its first touch of a named companion).
    pub(crate) fn observe(&mut self, under: &Under<'_>) -> bool {
        let named = self.companions.len();
        let mut first = None;
        let all = self.companions.iter().chain(&self.watched).enumerate();
        for (i, matcher) in all {
            if self.touched.get(i) == Some(&false) && under.matches(matcher) {
                self.touched[i] = true;
                if i < named && first.is_none() {
                    first = Some(matcher.path());
                }
            }
        }
        if self.observe_only || self.accepted.is_some() {
            return false;
        }
        let Some(first) = first else {
            return false;
        };
        self.accepted = Some(first.to_string());
        true
    }

    /// Whether every named and watched companion was touched: nothing is left to observe.
    pub fn all_touched(&self) -> bool {
        self.touched.iter().all(|&t| t)
    }

    /// The named, then the watched companions' names.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.companions
            .iter()
            .chain(&self.watched)
            .map(|m| m.path())
    }
}

/// Whether `path`, taken relative to one of `bases`, names the companion of `matcher`.
pub fn names(matcher: &CompanionMatcher, path: &Path, bases: &[PathBuf]) -> bool {
    Under::new(path, bases).matches(matcher)
}

/// A path relative to each of a window's bases (at most three) it lies under, taken once per
/// call and matched against every companion the window watches.
pub(crate) struct Under<'p> {
    rels: [Option<&'p str>; 3],
    rest: Vec<&'p str>,
}

impl<'p> Under<'p> {
    fn new(path: &'p Path, bases: &[PathBuf]) -> Under<'p> {
        let mut under = Under {
            rels: [None; 3],
            rest: Vec::new(),
        };
        for (i, rel) in bases
            .iter()
            .filter_map(|b| relative_to(path, b))
            .enumerate()
        {
            match under.rels.get_mut(i) {
                Some(slot) => *slot = Some(rel),
                None => under.rest.push(rel),
            }
        }
        under
    }

    fn matches(&self, matcher: &CompanionMatcher) -> bool {
        self.rels
            .iter()
            .flatten()
            .chain(&self.rest)
            .any(|rel| matcher.is_match(rel))
    }
}

/// One call path under the bases of each window it is followed through, taken once per
/// distinct bases: an agent's windows mostly share theirs (one family, one scene).
pub(crate) struct CallUnder<'p> {
    path: &'p Path,
    last: Option<(Arc<[PathBuf]>, Under<'p>)>,
}

impl<'p> CallUnder<'p> {
    /// The call path `path`, not yet taken under any bases.
    pub(crate) fn new(path: &'p Path) -> CallUnder<'p> {
        CallUnder { path, last: None }
    }

    /// The call path under `bases`.
    pub(crate) fn under(&mut self, bases: &Arc<[PathBuf]>) -> &Under<'p> {
        let kept = match self.last.take() {
            Some((b, under)) if Arc::ptr_eq(&b, bases) || *b == **bases => (b, under),
            _ => (bases.clone(), Under::new(self.path, bases)),
        };
        &self.last.insert(kept).1
    }
}

/// The notes emitted this turn, asked about with borrowed names: the dedupe check runs on
/// every note that passes the gate, and building an owned key each time costs more than the
/// check itself.
#[derive(Clone, Debug, Default)]
pub struct Emitted {
    /// Notes by a hash of their family and companions; each bucket compared exactly.
    by_hash: HashMap<u64, Vec<(String, Vec<String>)>, foldhash::fast::RandomState>,
    /// Hashes the notes (its seed is fixed per state, so one note always hashes the same).
    hasher: foldhash::fast::RandomState,
}

impl Emitted {
    fn hash_of(&self, family: &str, companions: &[&str]) -> u64 {
        use std::hash::BuildHasher;
        // A fast hash: the dedupe check runs on every call that passes the gate, and a
        // collision only costs an exact comparison.
        self.hasher.hash_one((family, companions))
    }

    /// Whether the note (family, companions) was emitted.
    pub fn contains(&self, family: &str, companions: &[&str]) -> bool {
        self.by_hash
            .get(&self.hash_of(family, companions))
            .is_some_and(|bucket| {
                bucket.iter().any(|(f, cs)| {
                    f == family && cs.iter().map(String::as_str).eq(companions.iter().copied())
                })
            })
    }

    /// Remembers the note (family, companions).
    pub fn insert(&mut self, family: &str, companions: &[&str]) {
        if !self.contains(family, companions) {
            let owned = companions.iter().map(|c| c.to_string()).collect();
            let hash = self.hash_of(family, companions);
            self.by_hash
                .entry(hash)
                .or_default()
                .push((family.to_string(), owned));
        }
    }

    /// Forgets every note.
    pub fn clear(&mut self) {
        self.by_hash.clear();
    }
}

/// One agent's state. A turn reset forgets everything but the call counter.
#[derive(Clone, Debug, Default)]
pub struct AgentState {
    /// Judged calls so far (the cooldown's clock).
    pub calls: u64,
    /// Paths touched this turn.
    pub touched: Vec<PathBuf>,
    /// The call number of each family's last note this turn (asked on every call that gets
    /// past the filter: a fast hash).
    pub last_noted: HashMap<String, u64, foldhash::fast::RandomState>,
    /// The notes emitted this turn, as (family, companions).
    pub emitted: Emitted,
    /// Notes emitted this turn.
    pub notes: u32,
    /// The open window, if any.
    pub window: Option<Window>,
    /// Observe-only windows of gated silences: were the would-be companions touched?
    pub shadows: Vec<Window>,
}

impl AgentState {
    /// Remembers a touched path, forgetting the oldest past [`MAX_TOUCHED`].
    pub fn touch(&mut self, path: &Path) {
        // Touched paths are normalised, so equal paths have equal bytes (and comparing bytes
        // is much cheaper than comparing `Path` components, once per touched path per call).
        if self
            .touched
            .iter()
            .any(|p| p.as_os_str() == path.as_os_str())
        {
            return;
        }
        if self.touched.len() >= MAX_TOUCHED {
            self.touched.remove(0);
        }
        self.touched.push(path.to_path_buf());
    }

    /// The paths touched this turn, relative to each of `bases` they lie under — computed
    /// once per call, then matched against every companion.
    pub fn touched_under<'a>(&'a self, bases: &[PathBuf]) -> Vec<&'a str> {
        self.touched
            .iter()
            .flat_map(|p| bases.iter().filter_map(move |b| relative_to(p, b)))
            .collect()
    }

    /// The per-turn reset; answers the windows it drops (to be closed as abandoned).
    pub fn reset_turn(&mut self) -> Vec<Window> {
        self.touched.clear();
        self.last_noted.clear();
        self.emitted.clear();
        self.notes = 0;
        self.take_windows()
    }

    /// Whether an open evidence window of `family` in `workspace`, over the same `bases`,
    /// counts `companion` already.
    pub fn counts_open(
        &self,
        workspace: &str,
        family: &str,
        bases: &[PathBuf],
        companion: &str,
    ) -> bool {
        self.shadows.iter().any(|w| {
            w.evidence
                && w.workspace == workspace
                && w.family == family
                && *w.bases == *bases
                && w.names()
                    .zip(&w.counted)
                    .any(|(c, &counted)| counted && c == companion)
        })
    }

    /// Whether an open note window in `workspace`, over the same `bases`, names `companion`.
    pub fn names_open(&self, workspace: &str, bases: &[PathBuf], companion: &str) -> bool {
        self.shadows.iter().any(|w| {
            !w.observe_only
                && w.workspace == workspace
                && *w.bases == *bases
                && w.companions.iter().any(|c| c.path() == companion)
        })
    }

    /// Takes every open window, the note's and the shadows.
    pub fn take_windows(&mut self) -> Vec<Window> {
        let mut out: Vec<Window> = self.window.take().into_iter().collect();
        out.append(&mut self.shadows);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emitted_notes_are_told_apart_exactly() {
        let mut emitted = Emitted::default();
        emitted.insert("Plan", &["a.md", "b.md"]);
        emitted.insert("Plan", &["a.md", "b.md"]);
        emitted.insert("Brief", &["a.md"]);
        assert!(emitted.contains("Plan", &["a.md", "b.md"]));
        assert!(emitted.contains("Brief", &["a.md"]));
        // Order, membership and family all matter.
        assert!(!emitted.contains("Plan", &["b.md", "a.md"]));
        assert!(!emitted.contains("Plan", &["a.md"]));
        assert!(!emitted.contains("Brief", &["a.md", "b.md"]));
        assert!(!emitted.contains("Plan", &[]));
        assert_eq!(emitted.by_hash.values().map(Vec::len).sum::<usize>(), 2);
        emitted.clear();
        assert!(!emitted.contains("Plan", &["a.md", "b.md"]));
    }

    #[test]
    fn a_shared_hash_bucket_still_compares_exactly() {
        let mut emitted = Emitted::default();
        // Two notes forced into one bucket, as a hash collision would put them.
        let hash = emitted.hash_of("Plan", &["a.md"]);
        emitted
            .by_hash
            .entry(hash)
            .or_default()
            .push(("Other".into(), vec!["x.md".into()]));
        assert!(!emitted.contains("Plan", &["a.md"]));
        emitted.insert("Plan", &["a.md"]);
        assert!(emitted.contains("Plan", &["a.md"]));
        assert_eq!(emitted.by_hash[&hash].len(), 2);
    }
}
