//! The engine's only window on the disk: a small file-probe trait.
//!
//! Everything the pipeline learns about files goes through [`FileProbe`], so tests can give
//! it a fake disk and the pure core never opens, stats or walks anything itself.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// A workspace root with its symlinks resolved, computed at most once per call.
pub type RealRoot = std::cell::OnceCell<Option<PathBuf>>;

/// What a path names, following symlinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Something else that exists (a socket, a device).
    Other,
}

/// Enough of a file's metadata to notice that it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Last modification time.
    pub modified: Option<SystemTime>,
    /// Length in bytes.
    pub len: u64,
}

/// The file queries the pipeline makes.
pub trait FileProbe {
    /// What `path` names, or `None` when nothing is there.
    fn kind(&self, path: &Path) -> Option<EntryKind>;
    /// The change stamp of a file, or `None` when it does not exist.
    fn stamp(&self, path: &Path) -> Option<Stamp>;
    /// A whole small text file.
    fn read_to_string(&self, path: &Path) -> std::io::Result<String>;
    /// The names of the immediate subdirectories of `dir` (empty when unreadable).
    fn subdirectories(&self, dir: &Path) -> Vec<PathBuf>;
    /// The path with every symlink resolved, or `None` when it does not exist.
    fn canonicalize(&self, path: &Path) -> Option<PathBuf>;

    /// Whether `path` exists and, symlinks resolved, lies inside the workspace whose lexical
    /// root is `root`. `real_root` resolves the root at most once per call, when needed.
    fn resolves_within(&self, path: &Path, root: &Path, real_root: &RealRoot) -> bool {
        let Some(real_root) = real_root.get_or_init(|| self.canonicalize(root)) else {
            return false;
        };
        self.canonicalize(path)
            .is_some_and(|real| real.starts_with(real_root))
    }

    /// Marks the start of one judged call: a caching probe may trust what it validated
    /// earlier in the same call, and must look again after.
    fn begin_call(&self) {}
}

/// The operating system's file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct OsProbe;

impl FileProbe for OsProbe {
    fn kind(&self, path: &Path) -> Option<EntryKind> {
        let meta = std::fs::metadata(path).ok()?;
        Some(if meta.is_file() {
            EntryKind::File
        } else if meta.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::Other
        })
    }

    fn stamp(&self, path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp {
            modified: meta.modified().ok(),
            len: meta.len(),
        })
    }

    fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        std::fs::read_to_string(path)
    }

    fn subdirectories(&self, dir: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .map(|e| PathBuf::from(e.file_name()))
            .collect();
        out.sort();
        out
    }

    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path).ok()
    }
}
