//! A caching [`FileProbe`]: directory listings kept between calls, never trusted stale.
//!
//! Each listing is validated one of two ways:
//! - **watched** (Linux, local file systems, symlink-free absolute paths): the directory and
//!   its ancestors are watched with inotify before the listing is read, and every call begins
//!   by draining the change queue (one `poll` when nothing changed); any change the listing
//!   depends on drops it. See [`crate::probe_watch`] for why this is never stale.
//! - **stamped** (everywhere else): every call starts a new *generation*; the first time a
//!   generation asks about a directory, the directory is stat-ed once and its cached listing
//!   is used only if its stamp is unchanged. Creating, removing or renaming an entry changes
//!   its directory's modification time (and a directory replaced by another has a new
//!   inode). A listing read while the directory's mtime was recent (within [`SETTLE`]) is
//!   never trusted later, because a change within the same timestamp tick might leave the
//!   mtime as it was.
//!
//! Symlinks are not cached either way: a symlink entry is always stat-ed (its target can
//! change without its directory changing).

use crate::paths::{is_plain_relative, split_name, strip_base};
use crate::probe::{EntryKind, FileProbe, Freshness, OsProbe, RealRoot, Stamp};
use crate::probe_watch::{DirWatch, Drain};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
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
    /// Validated by change notification: valid for as long as it is kept.
    watched: bool,
    entries: FastMap<OsString, EntryType>,
}

/// Keys are looked up on every call: a fast non-cryptographic hash (nothing here is chosen by
/// an adversary who could profit from collisions beyond a slower lookup).
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Directories are keyed by their path's bytes: hashing bytes is much cheaper than hashing
/// `Path` components, and two spellings of one directory only cost a second listing (a change
/// drops both, see `drain_changes` and the per-call stamp check).
type DirKey = OsString;

/// A [`FileProbe`] over the OS that caches directory listings between calls.
pub struct CachingProbe {
    os: OsProbe,
    generation: Cell<u64>,
    dirs: RefCell<FastMap<DirKey, Listing>>,
    too_big: RefCell<HashSet<DirKey, foldhash::fast::RandomState>>,
    /// Change notification, when available and not turned off.
    watch: RefCell<Option<DirWatch>>,
    /// Moves whenever a drain finds that a watched listing may be stale (see [`Freshness`]).
    epoch: Cell<u64>,
    /// Answers given without a watched listing (see [`Freshness`]).
    unsure: Cell<u64>,
}

impl Default for CachingProbe {
    fn default() -> CachingProbe {
        CachingProbe::new()
    }
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
    /// An empty cache, using change notification where the platform has it.
    pub fn new() -> CachingProbe {
        let probe = CachingProbe::stamped();
        *probe.watch.borrow_mut() = DirWatch::new();
        probe
    }

    /// An empty cache that validates every listing by its directory's stamp, once per call.
    pub fn stamped() -> CachingProbe {
        CachingProbe {
            os: OsProbe,
            generation: Cell::new(0),
            dirs: RefCell::default(),
            too_big: RefCell::default(),
            watch: RefCell::new(None),
            epoch: Cell::new(0),
            unsure: Cell::new(0),
        }
    }

    /// The OS, for an answer no watched listing gives (counted as unsure).
    fn os(&self) -> &OsProbe {
        self.note_unsure();
        &self.os
    }

    fn note_unsure(&self) {
        self.unsure.set(self.unsure.get() + 1);
    }

    /// Counts an answer from `listing` as unsure unless change notification guards it.
    fn used(&self, listing: &Listing) {
        if !listing.watched {
            self.note_unsure();
        }
    }

    /// Whether change notification is in use.
    pub fn is_watching(&self) -> bool {
        self.watch.borrow().is_some()
    }

    /// Drops what the change queue says may be stale (every watched listing).
    fn drain_changes(&self) {
        let mut slot = self.watch.borrow_mut();
        let Some(watch) = slot.as_mut() else {
            return;
        };
        let drain = if watch.is_full() {
            // Start over rather than let kernel watches pile up.
            *slot = DirWatch::new();
            Drain::Stale
        } else {
            watch.drain()
        };
        match drain {
            Drain::Clean => return,
            Drain::Stale => self.epoch.set(self.epoch.get() + 1),
            Drain::Broken => {
                tracing::warn!("file change notification failed; checking directories per call");
                *slot = None;
            }
        }
        self.dirs.borrow_mut().retain(|_, l| !l.watched);
    }

    /// Runs `f` over the valid listing of `dir`, reading or re-reading it as needed.
    /// `None` when `dir` is not a readable directory.
    fn with_listing<T>(&self, dir: &Path, f: impl FnOnce(&Listing) -> T) -> Option<T> {
        let generation = self.generation.get();
        let mut dirs = self.dirs.borrow_mut();
        let key = dir.as_os_str();
        if let Some(listing) = dirs.get_mut(key)
            && (listing.checked == generation || listing.watched)
        {
            self.used(listing);
            return Some(f(listing));
        }
        // One lstat validates the directory for this generation.
        let meta = std::fs::symlink_metadata(dir).ok()?;
        if !meta.is_dir() {
            dirs.remove(key);
            return None;
        }
        let stamp = dir_stamp(&meta);
        if let Some(listing) = dirs.get_mut(key)
            && listing.settled
            && listing.stamp == stamp
        {
            listing.checked = generation;
            self.used(listing);
            return Some(f(listing));
        }
        if self.too_big.borrow().contains(key) {
            return None;
        }
        // Watched before it is read, so a change from here on is in the queue.
        let watched = self
            .watch
            .borrow_mut()
            .as_mut()
            .is_some_and(|w| w.watch(dir));
        let now = SystemTime::now();
        let entries: FastMap<OsString, EntryType> = std::fs::read_dir(dir)
            .ok()?
            .filter_map(Result::ok)
            .take(MAX_ENTRIES + 1)
            .filter_map(|e| Some((e.file_name(), entry_type(e.file_type().ok()?))))
            .collect();
        if entries.len() > MAX_ENTRIES {
            // A crowded directory (a system temp dir) changes too often to be worth listing.
            self.too_big.borrow_mut().insert(key.to_os_string());
            dirs.remove(key);
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
            watched,
            entries,
        };
        self.used(&listing);
        let answer = f(&listing);
        dirs.insert(key.to_os_string(), listing);
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
        let Some((parent, name)) = split_name(path) else {
            return Err(());
        };
        self.entry_in(parent, name, climb)
    }

    /// The type of the entry `name` of the directory `parent` (see [`Self::entry`]).
    fn entry_in(&self, parent: &Path, name: &OsStr, climb: u32) -> Result<Option<EntryType>, ()> {
        let generation = self.generation.get();
        let listed = match self.dirs.borrow().get(parent.as_os_str()) {
            // The common case, answered with one lookup of the parent.
            Some(l) if l.watched || l.checked == generation => {
                self.used(l);
                return Ok(l.entries.get(name).copied());
            }
            Some(_) => true,
            None => false,
        };
        if climb > 0 && !listed {
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
        self.drain_changes();
    }

    fn freshness(&self) -> Option<Freshness> {
        // Without change notification every listing is validated by stamp: nothing is
        // promised past the call.
        self.watch.borrow().as_ref()?;
        Some(Freshness {
            epoch: self.epoch.get(),
            unsure: self.unsure.get(),
        })
    }

    fn kind(&self, path: &Path) -> Option<EntryKind> {
        match self.entry(path) {
            Ok(None) => None,
            Ok(Some(EntryType::File)) => Some(EntryKind::File),
            Ok(Some(EntryType::Dir)) => Some(EntryKind::Dir),
            Ok(Some(EntryType::Other)) => Some(EntryKind::Other),
            Ok(Some(EntryType::Symlink)) | Err(()) => self.os().kind(path),
        }
    }

    fn stamp(&self, path: &Path) -> Option<Stamp> {
        match self.entry(path) {
            Ok(None) => None,
            _ => self.os().stamp(path),
        }
    }

    fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        self.os().read_to_string(path)
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
                .filter(|(n, link)| !link || self.os().kind(&dir.join(n)) == Some(EntryKind::Dir))
                .map(|(n, _)| n)
                .collect(),
            None => self.os().subdirectories(dir),
        }
    }

    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.os().canonicalize(path)
    }

    fn plain_entries(&self, dir: &Path) -> Vec<(String, EntryKind)> {
        let listed = self.with_listing(dir, |l| {
            let mut out: Vec<(String, EntryKind)> = l
                .entries
                .iter()
                .filter_map(|(name, t)| {
                    let kind = match t {
                        EntryType::File => EntryKind::File,
                        EntryType::Dir => EntryKind::Dir,
                        EntryType::Symlink | EntryType::Other => return None,
                    };
                    Some((name.to_str()?.to_string(), kind))
                })
                .collect();
            out.sort_by(|a, b| a.0.cmp(&b.0));
            out.truncate(crate::probe::MAX_LISTED);
            out
        });
        listed.unwrap_or_else(|| self.os().plain_entries(dir))
    }

    fn is_entry(&self, path: &Path) -> bool {
        match self.entry(path) {
            Ok(entry) => entry.is_some(),
            Err(()) => self.os().is_entry(path),
        }
    }

    fn resolves_within(&self, path: &Path, root: &Path, real_root: &RealRoot) -> bool {
        // Below a lexical root, a path without symlinks resolves inside the real root: no need
        // to resolve the root itself unless a symlink is met.
        let rest = strip_base(path, root)
            .and_then(Path::to_str)
            .filter(|r| is_plain_relative(r));
        let Some(rest) = rest else {
            // Outside the lexical root, or oddly spelled: let the OS resolve it.
            return self.os().resolves_within(path, root, real_root);
        };
        let mut dir = root.to_path_buf();
        let mut names = rest.split('/').filter(|c| !c.is_empty()).peekable();
        while let Some(name) = names.next() {
            match self.entry_in(&dir, OsStr::new(name), 1) {
                Ok(None) => return false,
                Ok(Some(EntryType::Dir)) => {}
                Ok(Some(EntryType::File | EntryType::Other)) if names.peek().is_none() => {}
                Ok(Some(EntryType::File | EntryType::Other)) => return false,
                Ok(Some(EntryType::Symlink)) | Err(()) => {
                    return self.os().resolves_within(path, root, real_root);
                }
            }
            dir.push(name);
        }
        true
    }
}

#[cfg(test)]
mod tests;
