//! Locate: the walk up from a call path to its workspace root, and the per-root pack cache.

use crate::compiled::CompiledPack;
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
    /// The stable key of the root: its name plus a short hash of its path.
    pub key: String,
    /// The pack in force there.
    pub pack: Arc<CompiledPack>,
}

/// The workspace key: the root's directory name, `-`, and 8 hex digits of an FNV-1a hash of
/// the absolute path — so no absolute path is ever stored.
pub fn workspace_key(root: &Path) -> String {
    let name = root
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".into());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in root.as_os_str().as_encoded_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{name}-{:08x}", (hash >> 32) ^ (hash & 0xffff_ffff))
}

struct CachedPack {
    stamp: Stamp,
    pack: Result<Arc<CompiledPack>, PackError>,
}

/// The packs in force, re-read when a repo pack file changes.
pub struct PackCache {
    builtin: Arc<CompiledPack>,
    repo: HashMap<PathBuf, CachedPack>,
}

impl Default for PackCache {
    fn default() -> Self {
        PackCache {
            builtin: Arc::new(CompiledPack::builtin()),
            repo: HashMap::new(),
        }
    }
}

impl PackCache {
    /// The built-in pack.
    pub fn builtin(&self) -> &Arc<CompiledPack> {
        &self.builtin
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
                tracing::error!(error = %e, "repo pack rejected; using the built-in pack");
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
                return Some(Workspace {
                    root: dir.to_path_buf(),
                    key: workspace_key(dir),
                    pack,
                });
            }
        }
        None
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
}
