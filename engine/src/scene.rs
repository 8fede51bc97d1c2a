//! What the disk says about one call path — its workspace and pack, whether it is excluded,
//! its family, the bases and which of the family's companions exist — and the cache that keeps
//! it between calls for as long as the probe promises that nothing it was read from changed.
//!
//! Everything else a call decides depends on the agent's state, the config and the store, so
//! with a kept scene a call that touches no family asks the disk nothing beyond the probe's
//! change check, and a noted call asks it nothing beyond that either.

use crate::action::{self, Action};
use crate::compiled::{Captured, CompanionForm, CompiledFamily, Detection, substitute};
use crate::filter::Bases;
use crate::locate::{PackCache, Workspace};
use crate::paths::{is_pattern, literal_prefix, relative_to, strip_base};
use crate::probe::{FileProbe, Freshness};
use docsuggest_schema::NoteStyle;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most scenes kept; past it the cache starts over (a long-lived host sees many paths).
const MAX_SCENES: usize = 4096;

/// What the disk says about one resolved call path.
#[derive(Debug)]
pub struct Scene {
    /// The resolved, normalised call path (may hold a pattern).
    pub path: PathBuf,
    /// The workspace, if the path lies in one.
    pub workspace: Option<Workspace>,
    /// Whether a component below the workspace root (or of the whole path, outside any
    /// workspace) is excluded by the config.
    pub excluded: bool,
    /// The path relative to the workspace root (empty outside any workspace).
    pub rel: String,
    /// The family the path belongs to (`NoSignal` outside any workspace or when excluded).
    pub detection: Detection,
    /// For a detected family: where its companions are looked up and which exist.
    pub filtered: Option<Filtered>,
    /// Problems found on the way (a malformed repo pack).
    pub warnings: Vec<String>,
    /// The style a note for this path is written in.
    pub style: NoteStyle,
    /// Whether the pack in force is the built-in one.
    pub builtin_pack: bool,
}

/// The existence filter's answer for one call path and its family.
#[derive(Debug)]
pub struct Filtered {
    /// The distinct bases, root first (shared with every window the scene's calls open).
    pub bases: Arc<[PathBuf]>,
    /// The family's companions that exist under a base, by index, in pack order.
    pub existing: Vec<usize>,
    /// For a family with a template: each companion's substitution for this call path
    /// (`None` for other companions, or a template with no valid substitution). Empty for a
    /// family without a template.
    pub substituted: Vec<Option<String>>,
    /// In the plain style: what the note asks of each companion that exists, by index
    /// (`None` for the others). Empty in the PoC's style.
    pub actions: Vec<Option<Action>>,
}

impl Filtered {
    /// What this call shows of the companion the pack writes as `path`: a template's
    /// substitution, any other companion as written.
    pub fn shown<'a>(&'a self, family: &CompiledFamily, path: &'a str) -> &'a str {
        if self.substituted.is_empty() {
            return path;
        }
        family
            .companions
            .iter()
            .position(|c| c.path == path)
            .and_then(|i| self.substituted.get(i)?.as_deref())
            .unwrap_or(path)
    }

    /// The existence filter's answer for `family` and the call `path` (`rel` below the
    /// workspace `root`), with, in the plain style, what a note asks of each companion.
    fn read(
        family: &CompiledFamily,
        root: &Path,
        path: &Path,
        rel: &str,
        style: NoteStyle,
        probe: &dyn FileProbe,
    ) -> Filtered {
        // A pattern target's bases are found from its literal prefix.
        let from = if is_pattern(rel) {
            Cow::Owned(literal_prefix(path))
        } else {
            Cow::Borrowed(path)
        };
        let bases = Bases::find(root, &from, probe);
        let lookup = CompanionLookup {
            family,
            rel,
            bases: &bases,
            probe,
        };
        let substituted = lookup.substitutions();
        let existing = lookup.existing(&substituted);
        let actions = if style == NoteStyle::Plain {
            lookup.actions(&existing, &substituted)
        } else {
            Vec::new()
        };
        Filtered {
            bases: bases.into_all().into(),
            existing,
            substituted,
            actions,
        }
    }

    /// Whether the base-relative path `rel` names companion `i` of `family`: a template by
    /// its substitution (byte equality), any other companion by its matcher.
    pub fn names(&self, family: &CompiledFamily, i: usize, rel: &str) -> bool {
        match self.substituted.get(i) {
            Some(Some(path)) => rel == path,
            _ => family.companions[i].names.is_match(rel),
        }
    }
}

impl Scene {
    /// Reads the scene of `path` (resolved and normalised) through `probe`; `style` is the
    /// config's, resolved for the pack in force with `learn`.
    pub fn read(
        path: &Path,
        packs: &mut PackCache,
        probe: &dyn FileProbe,
        exclude: &[String],
        (style, learn): (NoteStyle, bool),
    ) -> Scene {
        let mut warnings = Vec::new();
        let workspace = packs.locate(&literal_lookup(path), probe, &mut warnings);
        let excluded = is_excluded(path, workspace.as_ref(), exclude);
        let mut scene = Scene {
            path: path.to_path_buf(),
            workspace: None,
            excluded,
            rel: String::new(),
            detection: Detection::NoSignal,
            filtered: None,
            warnings,
            style: NoteStyle::Poc,
            builtin_pack: false,
        };
        let Some(workspace) = workspace.filter(|_| !excluded) else {
            return scene;
        };
        scene.builtin_pack = Arc::ptr_eq(&workspace.pack, packs.builtin());
        scene.style = style.resolve(learn, scene.builtin_pack);
        scene.rel = relative_to(path, &workspace.root)
            .unwrap_or_default()
            .to_string();
        scene.detection = workspace.pack.detect(&scene.rel);
        if let Detection::Family(f) = scene.detection {
            let family = &workspace.pack.families[f];
            let root = &workspace.root;
            let filtered = Filtered::read(family, root, path, &scene.rel, scene.style, probe);
            scene.filtered = Some(filtered);
        }
        scene.workspace = Some(workspace);
        scene
    }
}

/// Where a call path's workspace is looked for: the path itself, or a pattern's literal
/// prefix (borrowed when the path holds no pattern, as most do).
fn literal_lookup(path: &Path) -> Cow<'_, Path> {
    if path.to_str().is_some_and(|p| !is_pattern(p)) {
        Cow::Borrowed(path)
    } else {
        Cow::Owned(literal_prefix(path))
    }
}

/// Whether a component of `path` is excluded by the config. `exclude` names components below
/// the workspace root, so a workspace that itself lives under `dist/` is judged; a path in no
/// workspace has no root to be below.
fn is_excluded(path: &Path, workspace: Option<&Workspace>, exclude: &[String]) -> bool {
    let below = workspace
        .and_then(|w| strip_base(path, &w.root))
        .unwrap_or(path);
    below
        .components()
        .any(|c| exclude.iter().any(|x| c.as_os_str() == x.as_str()))
}

/// What the existence filter reads for one family and call path: where, and which
/// companions it asks about.
struct CompanionLookup<'a> {
    family: &'a CompiledFamily,
    /// The call path relative to the workspace root.
    rel: &'a str,
    bases: &'a Bases,
    probe: &'a dyn FileProbe,
}

impl CompanionLookup<'_> {
    /// Each companion's substitution for this call (empty for a family without a template).
    fn substitutions(&self) -> Vec<Option<String>> {
        if !self.family.has_templates() {
            return Vec::new();
        }
        // A pattern target names no one file: it has no capture.
        let captured = if is_pattern(self.rel) {
            Captured::default()
        } else {
            self.family.captured(self.rel)
        };
        self.family
            .companions
            .iter()
            .map(|c| match c.form {
                CompanionForm::Template => substitute(&c.path, &captured),
                _ => None,
            })
            .collect()
    }

    /// The companions for this call that exist under a base, by index, in pack order.
    fn existing(&self, substituted: &[Option<String>]) -> Vec<usize> {
        let companions = &self.family.companions;
        // A pattern target names no one file: no per-file companion is for it.
        let pattern = is_pattern(self.rel);
        (0..companions.len())
            .filter(|&i| {
                let c = &companions[i];
                c.for_files.is_empty() || (!pattern && c.applies_to(self.rel))
            })
            .filter(|&i| match substituted.get(i) {
                Some(Some(path)) => self.bases.keeps_substituted(path, self.probe),
                _ => self.bases.keeps(&companions[i], self.probe),
            })
            .collect()
    }

    /// What a plain note asks of each companion in `existing` (`None` for the others).
    fn actions(&self, existing: &[usize], substituted: &[Option<String>]) -> Vec<Option<Action>> {
        let companions = &self.family.companions;
        let mut actions = vec![None; companions.len()];
        for &i in existing {
            let shown = substituted.get(i).and_then(|s| s.as_deref());
            let action = action::of(&companions[i], shown, self.bases, self.rel, self.probe);
            actions[i] = Some(action);
        }
        actions
    }
}

/// Scenes kept between calls, valid for one epoch of the probe's [`Freshness`].
#[derive(Default)]
pub(crate) struct Scenes {
    epoch: Option<u64>,
    /// Keyed by the path's bytes (cheaper to hash than `Path`'s components; call paths are
    /// normalised, so one path has one spelling).
    by_path: HashMap<OsString, Arc<Scene>, foldhash::fast::RandomState>,
}

impl Scenes {
    /// The kept scene of `path`, if the probe still vouches for it (`fresh` taken after the
    /// call began).
    pub(crate) fn get(&mut self, path: &Path, fresh: Option<Freshness>) -> Option<Arc<Scene>> {
        let Some(fresh) = fresh else {
            self.clear();
            return None;
        };
        if self.epoch != Some(fresh.epoch) {
            self.by_path.clear();
            self.epoch = Some(fresh.epoch);
            return None;
        }
        self.by_path.get(path.as_os_str()).cloned()
    }

    /// Keeps `scene` when every answer it was read from is guarded by change notification:
    /// the probe's freshness did not move while it was read (`before` and `after`).
    pub(crate) fn keep(
        &mut self,
        scene: &Arc<Scene>,
        before: Option<Freshness>,
        after: Option<Freshness>,
    ) {
        let (Some(before), Some(after)) = (before, after) else {
            return;
        };
        if before != after || self.epoch != Some(after.epoch) {
            return;
        }
        if self.by_path.len() >= MAX_SCENES {
            self.by_path.clear();
        }
        self.by_path
            .insert(scene.path.clone().into_os_string(), scene.clone());
    }

    /// Forgets every scene (the config that shaped them changed).
    pub(crate) fn clear(&mut self) {
        self.by_path.clear();
        self.epoch = None;
    }
}
