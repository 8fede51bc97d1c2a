//! Locate: the walk up from a call path to its workspace root, and the per-root pack cache.
//!
//! With zero-config on (the engine has a pack miner and `zeroConfig` is true), a path that no
//! signature claims but that lies in a git work tree with no pack file belongs to the work
//! tree's root, with the pack mined for it (see [`crate::mined`]) — or, until one is in use,
//! a pack of no families that the engine never judges with.

use crate::compiled::CompiledPack;
pub use crate::identity::workspace_key;
use crate::identity::{Identities, KeySource, RepoIdentifier};
use crate::probe::{FileProbe, Stamp};
use docsuggest_schema::Pack;
use docsuggest_schema::pack::{PackError, REPO_PACK_PATH};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A workspace found for a call.
#[derive(Clone, Debug)]
pub struct Workspace {
    /// The root directory (absolute, normalised).
    pub root: PathBuf,
    /// The stable key of the root: its repository's (see [`crate::identity`]), else its name
    /// plus a short hash of its path.
    pub key: String,
    /// How the key was derived.
    pub key_source: KeySource,
    /// The pack in force there.
    pub pack: Arc<CompiledPack>,
    /// Whether the root is a git work tree's without a signature or a pack file, whose pack
    /// is mined from its history (zero-config): the engine asks its miner before using it.
    pub mined: bool,
}

/// The entry whose presence (a directory, or a file in a linked work tree or a submodule)
/// makes a directory a git work tree's root.
pub const GIT_ENTRY: &str = ".git";

/// The root of the git work tree `dir` lies in: the nearest ancestor (`dir` first) holding an
/// entry named `.git`, of any kind. Never above `/`.
pub fn git_root<'a>(dir: &'a Path, probe: &dyn FileProbe) -> Option<&'a Path> {
    dir.ancestors()
        .find(|d| probe.kind(&d.join(GIT_ENTRY)).is_some())
}

struct CachedPack {
    stamp: Stamp,
    pack: Result<Arc<CompiledPack>, PackError>,
}

/// The packs in force, re-read when a repo pack file changes.
pub struct PackCache {
    builtin: Arc<CompiledPack>,
    repo: HashMap<PathBuf, CachedPack>,
    /// Whether a path no signature claims may belong to its git work tree (zero-config).
    zero_config: bool,
    /// The mined packs in use, by git work-tree root (set by the engine).
    mined: HashMap<PathBuf, Arc<CompiledPack>>,
    /// The pack of a zero-config root whose mined pack is not in use yet: no families.
    unmined: Arc<CompiledPack>,
    /// The repositories' identities, for the keys of workspaces inside them.
    identities: Identities,
}

impl Default for PackCache {
    fn default() -> Self {
        let none = docsuggest_schema::Pack {
            signature: vec![GIT_ENTRY.into()],
            mined: None,
            boundary: None,
            families: Vec::new(),
        };
        PackCache {
            builtin: Arc::new(CompiledPack::builtin()),
            repo: HashMap::new(),
            zero_config: false,
            mined: HashMap::new(),
            unmined: Arc::new(
                CompiledPack::compile(&none, "(no pack yet)")
                    .expect("a pack of no families compiles"),
            ),
            identities: Identities::default(),
        }
    }
}

impl PackCache {
    /// The built-in pack.
    pub fn builtin(&self) -> &Arc<CompiledPack> {
        &self.builtin
    }

    /// Keys workspaces inside a git repository by the repository's identity, found by
    /// `identifier` (`None`: by their paths, the default).
    pub fn set_repo_identifier(&mut self, identifier: Option<Box<dyn RepoIdentifier>>) {
        self.identities.set_identifier(identifier);
    }

    /// The `(path key, repository key)` pairs of the workspace roots first keyed by their
    /// repository since last asked: what was learned under the path key is due to move.
    pub fn take_rekeys(&mut self) -> Vec<(String, String)> {
        self.identities.take_rekeys()
    }

    /// The key of the workspace at `root`, and how it was derived.
    fn key_of(&mut self, root: &Path, probe: &dyn FileProbe) -> (String, KeySource) {
        if !self.identities.has_identifier() {
            return (workspace_key(root), KeySource::Path);
        }
        self.identities.key(root, git_root(root, probe))
    }

    /// Turns the zero-config fallback of [`PackCache::locate`] on or off (off by default).
    pub fn set_zero_config(&mut self, on: bool) {
        self.zero_config = on;
    }

    /// Whether the zero-config fallback is on.
    pub fn zero_config(&self) -> bool {
        self.zero_config
    }

    /// Puts `pack` in use for the zero-config root `root` (`None`: no mined pack in use).
    pub fn set_mined(&mut self, root: &Path, pack: Option<Arc<CompiledPack>>) {
        match pack {
            Some(pack) => {
                self.mined.insert(root.to_path_buf(), pack);
            }
            None => {
                self.mined.remove(root);
            }
        }
    }

    /// Forgets every mined pack in use.
    pub fn clear_mined(&mut self) {
        self.mined.clear();
    }

    /// The pack in force at `dir`: its repo pack when it has a valid one, else the built-in.
    /// A malformed repo pack answers the built-in pack and its error.
    pub fn pack_at(
        &mut self,
        dir: &Path,
        probe: &dyn FileProbe,
    ) -> (Arc<CompiledPack>, Option<PackError>) {
        let file = dir.join(REPO_PACK_PATH);
        let Some(stamp) = probe.stamp(&file) else {
            self.repo.remove(dir);
            return (self.builtin.clone(), None);
        };
        let fresh = self.repo.get(dir).is_some_and(|c| c.stamp == stamp);
        if !fresh {
            let name = file.display().to_string();
            let pack = read_pack_text(dir, &file, probe)
                .map_err(|problem| PackError {
                    file: name.clone(),
                    problems: vec![problem],
                })
                .and_then(|text| Pack::from_json_str(&text, &name))
                .and_then(|pack| CompiledPack::compile(&pack, &name))
                .map(Arc::new);
            if let Err(e) = &pack {
                tracing::error!(
                    error = %e,
                    "repo pack rejected: it gives its workspace no pack until it is fixed \
                     (only the built-in pack's own layout is still recognised there)"
                );
            }
            self.repo
                .insert(dir.to_path_buf(), CachedPack { stamp, pack });
        }
        match self.repo.get(dir).map(|c| &c.pack) {
            Some(Ok(pack)) => (pack.clone(), None),
            Some(Err(e)) => (self.builtin.clone(), Some(e.clone())),
            None => (self.builtin.clone(), None),
        }
    }

    /// Walks up from `path` (itself first) to the first directory whose pack signature is
    /// all present. Only ancestors of `path` are visited, never above `/`.
    pub fn locate(
        &mut self,
        path: &Path,
        probe: &dyn FileProbe,
        warnings: &mut Vec<String>,
    ) -> Option<Workspace> {
        // A file holds no signature: start at its directory.
        let start = match probe.kind(path) {
            Some(crate::probe::EntryKind::Dir) => path,
            _ => path.parent().unwrap_or(path),
        };
        for dir in start.ancestors() {
            let (pack, error) = self.pack_at(dir, probe);
            let is_root = pack
                .signature
                .iter()
                .all(|sig| probe.kind(&dir.join(sig)).is_some());
            if is_root {
                if let Some(e) = error {
                    warnings.push(e.to_string());
                }
                let (key, key_source) = self.key_of(dir, probe);
                return Some(Workspace {
                    root: dir.to_path_buf(),
                    key,
                    key_source,
                    pack,
                    mined: false,
                });
            }
        }
        // No workspace: a pack file at the git work tree's root that cannot be used is why
        // (it also turns mining off), and is said; the walk's other detours are not.
        // The walk read that pack already: its stamp is all this costs.
        let root = git_root(start, probe)?;
        if let (_, Some(e)) = self.pack_at(root, probe) {
            warnings.push(e.to_string());
            return None;
        }
        if !self.zero_config {
            return None;
        }
        self.locate_mined(root, probe)
    }

    /// The zero-config fallback: the git work tree at `root`, unless it carries a pack file
    /// (valid or not: the file's owner decides, and its signature did not match).
    fn locate_mined(&mut self, root: &Path, probe: &dyn FileProbe) -> Option<Workspace> {
        if probe.kind(&root.join(REPO_PACK_PATH)).is_some() {
            return None;
        }
        let pack = self.mined.get(root).unwrap_or(&self.unmined).clone();
        let (key, key_source) = match self.identities.has_identifier() {
            true => self.identities.key(root, Some(root)),
            false => (workspace_key(root), KeySource::Path),
        };
        Some(Workspace {
            root: root.to_path_buf(),
            key,
            key_source,
            pack,
            mined: true,
        })
    }
}

/// The text of the pack file `file` of the directory `dir`. A pack whose real path (symlinks
/// resolved) leaves `dir` is not read — a workspace cannot make the engine read, or quote, a
/// file outside it — and the file itself is read by the probe's bounded, non-blocking,
/// regular-files-only read.
fn read_pack_text(dir: &Path, file: &Path, probe: &dyn FileProbe) -> Result<String, String> {
    let real_dir = probe
        .canonicalize(dir)
        .ok_or_else(|| "not read: its directory cannot be resolved".to_string())?;
    let real = probe.canonicalize(file).ok_or_else(|| {
        "not read: it cannot be resolved to a file (a dangling symlink or a special file)"
            .to_string()
    })?;
    if !real.starts_with(&real_dir) {
        return Err(format!(
            "not read: it resolves outside {} (a pack must lie inside its workspace)",
            dir.display()
        ));
    }
    probe
        .read_to_string(&real)
        .map_err(|e| format!("not read: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_name_the_root_and_hide_the_path() {
        let key = workspace_key(Path::new("/home/someone/repo"));
        assert!(key.starts_with("repo-"), "{key}");
        assert_eq!(key.len(), "repo-".len() + 8);
        assert!(!key.contains("someone"));
        assert_ne!(key, workspace_key(Path::new("/elsewhere/repo")));
        assert!(workspace_key(Path::new("/")).starts_with("root-"));
    }

    #[test]
    fn a_git_work_tree_is_a_workspace_only_with_zero_config_and_no_pack_file() {
        use crate::probe::OsProbe;
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join(".git")).expect("mkdir");
        std::fs::create_dir_all(root.join("src/deep")).expect("mkdir");
        std::fs::write(root.join("src/deep/a.py"), "").expect("write");
        let file = root.join("src/deep/a.py");
        let mut packs = PackCache::default();
        let mut warnings = Vec::new();
        assert!(packs.locate(&file, &OsProbe, &mut warnings).is_none());
        packs.set_zero_config(true);
        let ws = packs
            .locate(&file, &OsProbe, &mut warnings)
            .expect("the work tree");
        assert_eq!(ws.root, root);
        assert_eq!(ws.key, workspace_key(&root));
        assert!(ws.mined);
        assert!(ws.pack.families.is_empty(), "no mined pack in use yet");
        let mined = Arc::new(CompiledPack::builtin());
        packs.set_mined(&root, Some(mined.clone()));
        let ws = packs
            .locate(&file, &OsProbe, &mut warnings)
            .expect("the work tree");
        assert!(Arc::ptr_eq(&ws.pack, &mined));
        // A `.git` file (a linked work tree, a submodule) marks a root as well; the nearest wins.
        std::fs::write(root.join("src/.git"), "gitdir: elsewhere").expect("write");
        let ws = packs
            .locate(&file, &OsProbe, &mut warnings)
            .expect("the submodule");
        assert_eq!(ws.root, root.join("src"));
        std::fs::remove_file(root.join("src/.git")).expect("rm");
        // A pack file at the root, valid or not, is its owner's word: no fallback; one that
        // cannot be used is said.
        std::fs::create_dir_all(root.join(".dsh")).expect("mkdir");
        std::fs::write(root.join(REPO_PACK_PATH), "not json").expect("write");
        assert!(packs.locate(&file, &OsProbe, &mut warnings).is_none());
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains(REPO_PACK_PATH), "{warnings:?}");
        warnings.clear();
        std::fs::remove_file(root.join(REPO_PACK_PATH)).expect("rm");
        // Outside any work tree there is nothing to fall back to.
        let outside = dir.path().join("plain/x.md");
        std::fs::create_dir_all(outside.parent().expect("parent")).expect("mkdir");
        std::fs::write(&outside, "").expect("write");
        assert!(packs.locate(&outside, &OsProbe, &mut warnings).is_none());
        packs.set_zero_config(false);
        assert!(packs.locate(&file, &OsProbe, &mut warnings).is_none());
        assert!(warnings.is_empty());
    }
}
