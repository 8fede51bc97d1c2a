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
    /// Under the evidence model: the first named companion touched (the note's accept), by
    /// its name (a template: its substitution).
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
    /// A change boundary's note: what became of each companion it named or watched is kept in
    /// the companion's boundary row, and the family row (its notes on edits) is left alone.
    pub at_boundary: bool,
}

impl Window {
    /// The index of the first named companion that the call path, taken under this window's
    /// bases, names.
    pub(crate) fn named_by(&self, under: &Under<'_>) -> Option<usize> {
        self.companions.iter().position(|m| under.matches(m))
    }

    /// The companions (named, then watched, by index) not yet touched that the call path
    /// names. Empty (no allocation) when it names none.
    pub(crate) fn touched_by(&self, under: &Under<'_>) -> Vec<usize> {
        let all = self.companions.iter().chain(&self.watched).enumerate();
        all.filter(|(i, m)| self.touched.get(*i) == Some(&false) && under.matches(m))
            .map(|(i, _)| i)
            .collect()
    }

    /// Whether every companion would be touched once `touches` are marked.
    pub(crate) fn all_touched_with(&self, touches: &[usize]) -> bool {
        (self.touched.iter().enumerate()).all(|(i, &t)| t || touches.contains(&i))
    }

    /// Marks `touches` (from [`Window::touched_by`]) as touched; answers the named companion
    /// whose touch is the note's accept (its first touch of a named companion), if this is it.
    pub(crate) fn mark(&mut self, touches: &[usize]) -> Option<usize> {
        for &i in touches {
            if let Some(slot) = self.touched.get_mut(i) {
                *slot = true;
            }
        }
        let first = touches
            .iter()
            .copied()
            .find(|&i| i < self.companions.len())?;
        if self.observe_only || self.accepted.is_some() {
            return None;
        }
        self.accepted = Some(self.companions.get(first)?.path().to_string());
        Some(first)
    }

    /// Whether closing the window moves the family row: a note's does, a silence's and a
    /// change boundary's do not.
    pub fn moves_family_row(&self) -> bool {
        !self.observe_only && !self.at_boundary
    }

    /// Whether every named and watched companion was touched: nothing is left to observe.
    pub fn all_touched(&self) -> bool {
        self.touched.iter().all(|&t| t)
    }

    /// The named, then the watched companions' names (a template: its substitution).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.companions
            .iter()
            .chain(&self.watched)
            .map(|m| m.path())
    }

    /// The named, then the watched companions' rate keys (a template: as the pack writes it).
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.companions.iter().chain(&self.watched).map(|m| m.key())
    }

    /// The rate key of the named companion whose name is `name` (`name` itself if none is).
    pub fn key_of<'s>(&'s self, name: &'s str) -> &'s str {
        self.companions
            .iter()
            .find(|m| m.path() == name)
            .map_or(name, |m| m.key())
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
    /// Notes by a hash of their family and companions, each written as one [`encode`]d key
    /// (one allocation a note rather than one per name) and compared exactly.
    by_hash: HashMap<u64, Box<[u8]>, foldhash::fast::RandomState>,
    /// Notes whose hash an earlier, different note took (a collision: practically never).
    collided: Vec<(u64, Box<[u8]>)>,
    /// Hashes the notes (its seed is fixed per state, so one note always hashes the same).
    hasher: foldhash::fast::RandomState,
}

/// The parts of a note, each as its length (eight bytes) then its bytes: the parts can be
/// told apart again whatever they hold.
fn encode(family: &str, companions: &[&str]) -> Box<[u8]> {
    let parts = || std::iter::once(family).chain(companions.iter().copied());
    let mut key = Vec::with_capacity(parts().map(|p| 8 + p.len()).sum());
    for part in parts() {
        key.extend_from_slice(&(part.len() as u64).to_le_bytes());
        key.extend_from_slice(part.as_bytes());
    }
    key.into_boxed_slice()
}

/// Whether `key` is the [`encode`]d note (family, companions), compared without encoding it.
fn is_key_of(key: &[u8], family: &str, companions: &[&str]) -> bool {
    let mut rest = key;
    for part in std::iter::once(family).chain(companions.iter().copied()) {
        let Some((len, tail)) = rest.split_first_chunk::<8>() else {
            return false;
        };
        let len = u64::from_le_bytes(*len);
        if len != part.len() as u64 || !tail.starts_with(part.as_bytes()) {
            return false;
        }
        rest = &tail[part.len()..];
    }
    rest.is_empty()
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
        let hash = self.hash_of(family, companions);
        self.by_hash
            .get(&hash)
            .is_some_and(|key| is_key_of(key, family, companions))
            || self
                .collided
                .iter()
                .any(|(h, key)| *h == hash && is_key_of(key, family, companions))
    }

    /// Remembers the note (family, companions).
    pub fn insert(&mut self, family: &str, companions: &[&str]) {
        if self.contains(family, companions) {
            return;
        }
        let hash = self.hash_of(family, companions);
        let key = encode(family, companions);
        match self.by_hash.entry(hash) {
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(key);
            }
            std::collections::hash_map::Entry::Occupied(_) => self.collided.push((hash, key)),
        }
    }

    /// Forgets every note.
    pub fn clear(&mut self) {
        self.by_hash.clear();
        self.collided.clear();
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
    /// The agent speaks at change boundaries only ([`crate::Engine::boundary`]): a check
    /// names every family's missing companions, so no cooldown or cap applies.
    pub boundary: bool,
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
        // Where one name ends and the next begins matters too.
        assert!(!emitted.contains("Plan", &["a.mdb.md"]));
        assert!(!emitted.contains("Pla", &["na.md", "b.md"]));
        assert_eq!(emitted.by_hash.len() + emitted.collided.len(), 2);
        emitted.clear();
        assert!(!emitted.contains("Plan", &["a.md", "b.md"]));
    }

    #[test]
    fn a_shared_hash_still_compares_exactly() {
        let mut emitted = Emitted::default();
        // Another note under this note's hash, as a collision would put it.
        let hash = emitted.hash_of("Plan", &["a.md"]);
        emitted.by_hash.insert(hash, encode("Other", &["x.md"]));
        assert!(!emitted.contains("Plan", &["a.md"]));
        emitted.insert("Plan", &["a.md"]);
        assert!(emitted.contains("Plan", &["a.md"]));
        assert!(is_key_of(&emitted.by_hash[&hash], "Other", &["x.md"]));
        assert_eq!(emitted.collided.len(), 1);
        emitted.insert("Plan", &["a.md"]);
        assert_eq!(emitted.collided.len(), 1);
    }

    #[test]
    fn keys_decode_only_to_their_own_note() {
        let key = encode("F", &["", "ab", "c"]);
        assert!(is_key_of(&key, "F", &["", "ab", "c"]));
        for (family, cs) in [
            ("F", &["", "ab"][..]),
            ("F", &["", "ab", "c", ""]),
            ("F", &["a", "b", "c"]),
            ("", &["F", "ab", "c"]),
        ] {
            assert!(!is_key_of(&key, family, cs), "{family:?} {cs:?}");
        }
        assert!(!is_key_of(&key[..key.len() - 1], "F", &["", "ab", "c"]));
        assert!(!is_key_of(&[], "F", &[]));
    }
}
