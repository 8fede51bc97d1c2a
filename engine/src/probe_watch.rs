//! Change notification for the caching probe (Linux): one `poll` per call replaces one
//! `lstat` per consulted directory.
//!
//! Why a watched listing is never stale:
//! - inotify queues an event inside the system call that changes a directory, so a change
//!   made before a call begins is in the queue when the call drains it;
//! - a listing of `/a/b/c` depends on the entries of `c` and on the names `a`, `b`, `c` still
//!   naming the same directories, so `/`, `/a`, `/a/b` are watched for those names and `c` for
//!   every entry change, all *before* `c` is read (a change in between is both in the listing
//!   and in the queue);
//! - watches are added with `IN_DONT_FOLLOW | IN_ONLYDIR`, so a path with a symlink in it is
//!   refused (its target's parents could change unseen) and stays on `lstat` validation;
//! - only local file systems whose changes all pass through this kernel are watched (not NFS,
//!   FUSE, 9p, virtiofs…);
//! - mounts do not raise inotify events: the mount table (`/proc/self/mountinfo`) is polled in
//!   the same system call, and any mount or unmount drops every watched listing;
//! - a queue overflow, a watch removed by the kernel, or a read error drops every watched
//!   listing too.
//!
//! Any doubt answers [`Drain::Stale`]: the price of a false alarm is re-reading a few
//! directories, never a stale answer.

#[cfg(target_os = "linux")]
pub(crate) use linux::DirWatch;

#[cfg(not(target_os = "linux"))]
pub(crate) use other::DirWatch;

/// What draining the change queue found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Drain {
    /// Nothing a watched listing depends on changed.
    Clean,
    /// Something may have changed: drop every watched listing.
    Stale,
    /// The watch itself failed: drop every watched listing and stop watching.
    Broken,
}

#[cfg(target_os = "linux")]
mod linux {
    use super::Drain;
    use rustix::event::{PollFd, PollFlags, Timespec, poll};
    use rustix::fd::OwnedFd;
    use rustix::fs::inotify::{self, CreateFlags, ReadFlags, WatchFlags};
    use rustix::io::Errno;
    use std::collections::{HashMap, HashSet};
    use std::ffi::{OsStr, OsString};
    use std::fs::File;
    use std::mem::MaybeUninit;
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Component, Path, PathBuf};

    /// File systems whose every change goes through this kernel's VFS, so inotify sees it.
    const LOCAL_FILE_SYSTEMS: [i64; 11] = [
        0xEF53,      // ext2/3/4
        0x5846_5342, // xfs
        0x9123_683E, // btrfs
        0x0102_1994, // tmpfs
        0x8584_58F6, // ramfs
        0xF2F5_2010, // f2fs
        0x2FC1_2FC1, // zfs
        0xCA45_1A4E, // bcachefs
        0x794C_7630, // overlayfs
        0x5265_4973, // reiserfs
        0x3153_464A, // jfs
    ];

    /// Past this many watched directories the watch starts over (bounds kernel watches).
    const MAX_WATCHED: usize = 8192;

    /// What a watch descriptor guards.
    #[derive(Default)]
    struct Role {
        /// A cached listing of this directory: every entry change matters.
        listed: bool,
        /// Names in this directory that lead to a cached listing.
        leads_to: HashSet<OsString>,
    }

    /// An inotify instance, the mount table, and what each watch guards.
    pub(crate) struct DirWatch {
        inotify: OwnedFd,
        mounts: File,
        roles: HashMap<i32, Role>,
        /// Paths watched since the last stale drain, with their descriptors: a path in it
        /// still names the directory that was watched, or an event said otherwise.
        watched: HashMap<PathBuf, i32>,
        buf: Vec<MaybeUninit<u8>>,
    }

    fn mask() -> WatchFlags {
        WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::ONLYDIR
            | WatchFlags::DONT_FOLLOW
    }

    // `f_type`'s integer type differs between architectures.
    #[allow(clippy::useless_conversion)]
    fn is_local(path: &Path) -> bool {
        rustix::fs::statfs(path)
            .is_ok_and(|s| i64::try_from(s.f_type).is_ok_and(|t| LOCAL_FILE_SYSTEMS.contains(&t)))
    }

    impl DirWatch {
        /// A new watch, or `None` when inotify or the mount table is unavailable.
        pub(crate) fn new() -> Option<DirWatch> {
            let inotify = inotify::init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK).ok()?;
            let mounts = File::open("/proc/self/mountinfo").ok()?;
            let mut watch = DirWatch {
                inotify,
                mounts,
                roles: HashMap::new(),
                watched: HashMap::new(),
                buf: vec![MaybeUninit::uninit(); 16 * 1024],
            };
            // Start from an empty queue: nothing is listed yet, so nothing pending matters.
            watch.drain();
            Some(watch)
        }

        /// Whether the watch has grown past its bound (the caller starts a new one).
        pub(crate) fn is_full(&self) -> bool {
            self.roles.len() >= MAX_WATCHED
        }

        /// Watches `dir` for entry changes and each of its ancestors for the name leading to
        /// it. Call before reading `dir`. `false` when `dir` cannot be watched soundly (a
        /// relative path, `..`, a symlink on the way, a remote file system, no watches left):
        /// its listing must then be validated some other way.
        pub(crate) fn watch(&mut self, dir: &Path) -> bool {
            let mut components = dir.components();
            if components.next() != Some(Component::RootDir) {
                return false;
            }
            let mut names: Vec<&OsStr> = Vec::new();
            for component in components {
                match component {
                    Component::Normal(name) => names.push(name),
                    _ => return false,
                }
            }
            let mut path = PathBuf::from("/");
            for depth in 0..=names.len() {
                let Some(wd) = self.watch_one(&path) else {
                    return false;
                };
                let role = self.roles.entry(wd).or_default();
                match names.get(depth) {
                    Some(name) => {
                        if !role.leads_to.contains(*name) {
                            role.leads_to.insert(name.to_os_string());
                        }
                        path.push(name);
                    }
                    None => role.listed = true,
                }
            }
            true
        }

        fn watch_one(&mut self, path: &Path) -> Option<i32> {
            if let Some(&wd) = self.watched.get(path) {
                return Some(wd);
            }
            let wd = inotify::add_watch(&self.inotify, path, mask()).ok()?;
            if !self.roles.contains_key(&wd) && !is_local(path) {
                // Unguarded, its events would only be noise.
                let _ = inotify::remove_watch(&self.inotify, wd);
                return None;
            }
            self.watched.insert(path.to_path_buf(), wd);
            Some(wd)
        }

        /// Reads every queued change (one `poll` when there is none).
        pub(crate) fn drain(&mut self) -> Drain {
            let (inotify_ready, mounts_changed) = {
                let mut fds = [
                    PollFd::new(&self.inotify, PollFlags::IN),
                    PollFd::new(&self.mounts, PollFlags::PRI),
                ];
                let now = Timespec {
                    tv_sec: 0,
                    tv_nsec: 0,
                };
                match poll(&mut fds, Some(&now)) {
                    Ok(0) => return Drain::Clean,
                    Ok(_) => {}
                    Err(Errno::INTR) => return Drain::Stale,
                    Err(_) => return Drain::Broken,
                }
                let inotify = fds[0].revents();
                if inotify.intersects(PollFlags::ERR | PollFlags::HUP | PollFlags::NVAL) {
                    return Drain::Broken;
                }
                (
                    inotify.contains(PollFlags::IN),
                    fds[1].revents().intersects(PollFlags::PRI | PollFlags::ERR),
                )
            };
            let mut outcome = if mounts_changed {
                Drain::Stale
            } else {
                Drain::Clean
            };
            if inotify_ready {
                match self.read_events() {
                    Drain::Clean => {}
                    Drain::Stale => outcome = Drain::Stale,
                    Drain::Broken => return Drain::Broken,
                }
            }
            if outcome == Drain::Stale {
                // Every path may now name another directory: look them up afresh.
                self.watched.clear();
            }
            outcome
        }

        fn read_events(&mut self) -> Drain {
            let mut outcome = Drain::Clean;
            let mut reader = inotify::Reader::new(&self.inotify, &mut self.buf);
            loop {
                let event = match reader.next() {
                    Ok(event) => event,
                    Err(Errno::WOULDBLOCK) => return outcome,
                    Err(Errno::INTR) => return Drain::Stale,
                    Err(_) => return Drain::Broken,
                };
                let flags = event.events();
                if flags.contains(ReadFlags::QUEUE_OVERFLOW) {
                    outcome = Drain::Stale;
                    continue;
                }
                // A descriptor without a role guards nothing cached: one given up as
                // remote, or one whose removal was already seen.
                let Some(role) = self.roles.get(&event.wd()) else {
                    continue;
                };
                let about_itself = ReadFlags::IGNORED
                    | ReadFlags::DELETE_SELF
                    | ReadFlags::MOVE_SELF
                    | ReadFlags::UNMOUNT;
                if flags.intersects(about_itself) {
                    if flags.contains(ReadFlags::IGNORED) {
                        self.roles.remove(&event.wd());
                    }
                    outcome = Drain::Stale;
                    continue;
                }
                let name = event.file_name().map(|n| OsStr::from_bytes(n.to_bytes()));
                let relevant = role.listed || name.is_none_or(|n| role.leads_to.contains(n));
                if relevant {
                    outcome = Drain::Stale;
                }
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod other {
    use super::Drain;
    use std::path::Path;

    /// No change notification here: every listing is validated by `lstat`.
    pub(crate) enum DirWatch {}

    impl DirWatch {
        pub(crate) fn new() -> Option<DirWatch> {
            None
        }

        pub(crate) fn is_full(&self) -> bool {
            match *self {}
        }

        pub(crate) fn watch(&mut self, _: &Path) -> bool {
            match *self {}
        }

        pub(crate) fn drain(&mut self) -> Drain {
            match *self {}
        }
    }
}
