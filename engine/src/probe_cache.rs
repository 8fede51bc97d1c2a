//! A caching [`FileProbe`]: directory listings validated by the directory's own metadata.
//!
//! Why it is never stale: creating, removing or renaming an entry changes its directory's
//! modification time (and a directory replaced by another has a new inode). Every call starts
//! a new *generation*; the first time a generation asks about a directory, the directory is
//! stat-ed once and its cached listing is used only if its stamp is unchanged. A listing read
//! while the directory's mtime was recent (within [`SETTLE`]) is never trusted later, because a
//! change within the same timestamp tick might leave the mtime as it was. Symlinks are not
//! cached: a symlink entry is always stat-ed (its target can change without its directory
//! changing).

use crate::probe::{EntryKind, FileProbe, OsProbe, RealRoot, Stamp};
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How old a directory's mtime must be when it is listed for the listing to be reused.
pub const SETTLE: Duration = Duration::from_secs(2);

/// The most directories remembered; past it the cache starts over.
const MAX_DIRS: usize = 4096;

/// Directories with more entries than this are never listed; lookups in them ask the OS.
const MAX_ENTRIES: usize = 2048;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum EntryType {
    File,
    Dir,
    Symlink,
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DirStamp {
    modified: Option<SystemTime>,
    inode: u64,
}

struct Listing {
    stamp: DirStamp,
    /// Whether the listing may be reused by a later generation.
    settled: bool,
    /// Which generation last validated it.
    checked: u64,
    entries: HashMap<OsString, EntryType>,
}

/// A [`FileProbe`] over the OS that caches directory listings between calls.
#[derive(Default)]
pub struct CachingProbe {
    os: OsProbe,
    generation: Cell<u64>,
    dirs: RefCell<HashMap<PathBuf, Listing>>,
    too_big: RefCell<std::collections::HashSet<PathBuf>>,
}

fn dir_stamp(meta: &std::fs::Metadata) -> DirStamp {
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(meta);
    #[cfg(not(unix))]
    let inode = 0;
    DirStamp {
        modified: meta.modified().ok(),
        inode,
    }
}

fn entry_type(file_type: std::fs::FileType) -> EntryType {
    if file_type.is_symlink() {
        EntryType::Symlink
    } else if file_type.is_dir() {
        EntryType::Dir
    } else if file_type.is_file() {
        EntryType::File
    } else {
        EntryType::Other
    }
}

impl CachingProbe {
    /// An empty cache.
    pub fn new() -> CachingProbe {
        CachingProbe::default()
    }

    /// Runs `f` over the valid listing of `dir`, reading or re-reading it as needed.
    /// `None` when `dir` is not a readable directory.
    fn with_listing<T>(&self, dir: &Path, f: impl FnOnce(&Listing) -> T) -> Option<T> {
        let generation = self.generation.get();
        let mut dirs = self.dirs.borrow_mut();
        if let Some(listing) = dirs.get_mut(dir)
            && listing.checked == generation
        {
            return Some(f(listing));
        }
        // One lstat validates the directory for this generation.
        let meta = std::fs::symlink_metadata(dir).ok()?;
        if !meta.is_dir() {
            dirs.remove(dir);
            return None;
        }
        let stamp = dir_stamp(&meta);
        if let Some(listing) = dirs.get_mut(dir)
            && listing.settled
            && listing.stamp == stamp
        {
            listing.checked = generation;
            return Some(f(listing));
        }
        if self.too_big.borrow().contains(dir) {
            return None;
        }
        let now = SystemTime::now();
        let entries: HashMap<OsString, EntryType> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(Result::ok)
            .take(MAX_ENTRIES + 1)
            .filter_map(|e| Some((e.file_name(), entry_type(e.file_type().ok()?))))
            .collect();
        if entries.len() > MAX_ENTRIES {
            // A crowded directory (a system temp dir) changes too often to be worth listing.
            self.too_big.borrow_mut().insert(dir.to_path_buf());
            dirs.remove(dir);
            return None;
        }
        let settled = stamp
            .modified
            .and_then(|m| now.duration_since(m).ok())
            .is_some_and(|age| age >= SETTLE);
        if dirs.len() >= MAX_DIRS {
            dirs.clear();
        }
        let listing = Listing {
            stamp,
            settled,
            checked: generation,
            entries,
        };
        let answer = f(&listing);
        dirs.insert(dir.to_path_buf(), listing);
        Some(answer)
    }

    /// The type of `path`'s entry in its (real, non-symlink) parent directory listing.
    /// A path under a parent that does not exist, or under a file, does not exist either —
    /// answered from the nearest listed ancestor, so the walk up from a file and the lookups
    /// of absent directories (`.dsh/`, `Documentation/`) cost no system call.
    /// `Err(())` when the cache cannot tell (fall back to the OS).
    fn entry(&self, path: &Path) -> Result<Option<EntryType>, ()> {
        self.entry_within(path, 1)
    }

    /// [`Self::entry`], asking up to `climb` unlisted ancestors' parents first.
    fn entry_within(&self, path: &Path, climb: u32) -> Result<Option<EntryType>, ()> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(());
        };
        if climb > 0 && !self.dirs.borrow().contains_key(parent) {
            // An unlisted parent: its own parent's listing says whether it is a directory at
            // all, so an absent `.dsh/` or `Documentation/` costs no failing system call.
            match self.entry_within(parent, climb - 1)? {
                None | Some(EntryType::File | EntryType::Other) => return Ok(None),
                Some(EntryType::Symlink) => return Err(()),
                Some(EntryType::Dir) => {}
            }
        }
        self.with_listing(parent, |l| l.entries.get(name).copied())
            .ok_or(())
    }
}

impl FileProbe for CachingProbe {
    fn begin_call(&self) {
        self.generation.set(self.generation.get() + 1);
    }

    fn kind(&self, path: &Path) -> Option<EntryKind> {
        match self.entry(path) {
            Ok(None) => None,
            Ok(Some(EntryType::File)) => Some(EntryKind::File),
            Ok(Some(EntryType::Dir)) => Some(EntryKind::Dir),
            Ok(Some(EntryType::Other)) => Some(EntryKind::Other),
            Ok(Some(EntryType::Symlink)) | Err(()) => self.os.kind(path),
        }
    }

    fn stamp(&self, path: &Path) -> Option<Stamp> {
        match self.entry(path) {
            Ok(None) => None,
            _ => self.os.stamp(path),
        }
    }

    fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        self.os.read_to_string(path)
    }

    fn subdirectories(&self, dir: &Path) -> Vec<PathBuf> {
        let listed = self.with_listing(dir, |l| {
            let mut names: Vec<(PathBuf, bool)> = l
                .entries
                .iter()
                .filter(|(_, t)| matches!(t, EntryType::Dir | EntryType::Symlink))
                .map(|(n, t)| (PathBuf::from(n), *t == EntryType::Symlink))
                .collect();
            names.sort();
            names
        });
        match listed {
            Some(names) => names
                .into_iter()
                .filter(|(n, link)| !link || self.os.kind(&dir.join(n)) == Some(EntryKind::Dir))
                .map(|(n, _)| n)
                .collect(),
            None => self.os.subdirectories(dir),
        }
    }

    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.os.canonicalize(path)
    }

    fn resolves_within(&self, path: &Path, root: &Path, real_root: &RealRoot) -> bool {
        // Below a lexical root, a path without symlinks resolves inside the real root: no need
        // to resolve the root itself unless a symlink is met.
        let Ok(rest) = path.strip_prefix(root) else {
            return self.os.resolves_within(path, root, real_root);
        };
        let mut dir = root.to_path_buf();
        let mut components = rest.components().peekable();
        while let Some(component) = components.next() {
            let Component::Normal(name) = component else {
                return self.os.resolves_within(path, root, real_root);
            };
            let next = dir.join(name);
            match self.entry(&next) {
                Ok(None) => return false,
                Ok(Some(EntryType::Dir)) => {}
                Ok(Some(EntryType::File | EntryType::Other)) if components.peek().is_none() => {}
                Ok(Some(EntryType::File | EntryType::Other)) => return false,
                Ok(Some(EntryType::Symlink)) | Err(()) => {
                    return self.os.resolves_within(path, root, real_root);
                }
            }
            dir = next;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age(dir: &Path, secs: u64) {
        let old = SystemTime::now() - Duration::from_secs(secs);
        let f = std::fs::File::open(dir).expect("open the directory");
        f.set_modified(old).expect("set the directory's mtime");
    }

    #[test]
    fn creations_and_removals_are_seen_on_the_next_call() {
        let dir = tempfile::tempdir().expect("tempdir");
        let probe = CachingProbe::new();
        let file = dir.path().join("a.md");
        for settle_first in [false, true] {
            if settle_first {
                age(dir.path(), 60);
            }
            probe.begin_call();
            assert_eq!(probe.kind(&file), None);
            std::fs::write(&file, "").expect("write");
            probe.begin_call();
            assert_eq!(
                probe.kind(&file),
                Some(EntryKind::File),
                "settled first: {settle_first}"
            );
            if settle_first {
                age(dir.path(), 60);
                probe.begin_call();
                assert_eq!(probe.kind(&file), Some(EntryKind::File));
            }
            std::fs::remove_file(&file).expect("remove");
            probe.begin_call();
            assert_eq!(probe.kind(&file), None, "settled first: {settle_first}");
        }
    }

    #[test]
    fn a_settled_listing_is_reused_until_the_directory_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.md"), "").expect("write");
        age(dir.path(), 60);
        let probe = CachingProbe::new();
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("a.md")), Some(EntryKind::File));
        // The listing is settled; only a change of the directory's stamp re-reads it.
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("b.md")), None);
        std::fs::create_dir(dir.path().join("b.md")).expect("mkdir");
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("b.md")), Some(EntryKind::Dir));
        assert_eq!(probe.subdirectories(dir.path()), [PathBuf::from("b.md")]);
    }

    #[test]
    fn lookups_under_absent_directories_see_them_appear() {
        let dir = tempfile::tempdir().expect("tempdir");
        age(dir.path(), 60);
        let probe = CachingProbe::new();
        let pack = dir.path().join(".dsh/doc-pack.json");
        let deep = dir.path().join("a/b/c.md");
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("x")), None);
        assert_eq!(probe.kind(&pack), None);
        assert_eq!(probe.kind(&deep), None);
        std::fs::create_dir_all(dir.path().join(".dsh")).expect("mkdir");
        std::fs::write(&pack, "{}").expect("write");
        std::fs::create_dir_all(dir.path().join("a/b")).expect("mkdir");
        std::fs::write(&deep, "").expect("write");
        probe.begin_call();
        assert_eq!(probe.kind(&pack), Some(EntryKind::File));
        assert_eq!(probe.kind(&deep), Some(EntryKind::File));
        std::fs::remove_dir_all(dir.path().join(".dsh")).expect("rm");
        probe.begin_call();
        assert_eq!(probe.kind(&pack), None);
    }

    #[test]
    fn crowded_directories_are_asked_directly() {
        let dir = tempfile::tempdir().expect("tempdir");
        for i in 0..=MAX_ENTRIES {
            std::fs::write(dir.path().join(format!("f{i}")), "").expect("write");
        }
        let probe = CachingProbe::new();
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("f7")), Some(EntryKind::File));
        assert!(!probe.dirs.borrow().contains_key(dir.path()));
        assert!(probe.too_big.borrow().contains(dir.path()));
        std::fs::remove_file(dir.path().join("f7")).expect("rm");
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("f7")), None);
    }

    #[cfg(unix)]
    #[test]
    fn symlinks_are_resolved_on_every_call() {
        let root = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(root.path().join("in.md"), "").expect("write");
        std::fs::write(outside.path().join("out.md"), "").expect("write");
        let link = root.path().join("link.md");
        std::os::unix::fs::symlink(root.path().join("in.md"), &link).expect("symlink");
        age(root.path(), 60);
        let probe = CachingProbe::new();
        let real_root = RealRoot::default();
        probe.begin_call();
        assert!(probe.resolves_within(&link, root.path(), &real_root));
        // Retarget the link out of the root, then restore the directory's old mtime: the
        // directory's listing is unchanged, the link must still be followed afresh.
        std::fs::remove_file(&link).expect("unlink");
        std::os::unix::fs::symlink(outside.path().join("out.md"), &link).expect("symlink");
        age(root.path(), 60);
        probe.begin_call();
        assert!(!probe.resolves_within(&link, root.path(), &real_root));
        assert!(probe.resolves_within(&root.path().join("in.md"), root.path(), &real_root));
        assert!(!probe.resolves_within(&root.path().join("none.md"), root.path(), &real_root));
    }
}
