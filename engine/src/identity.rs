//! Repository identity: a workspace inside a git repository is keyed by the repository, not by
//! where it was cloned, so two clones of one repository (on two machines, or at two paths on
//! one) share their rate keys and their evidence can be added up (docs/FLEET.md).
//!
//! The engine reads no git objects: the host finds a repository's identity (its first-parent
//! root commit, or the `docsuggest.identity` a user set in the repository's git config for a
//! fork or a monorepo) through a [`RepoIdentifier`], once per work-tree root and process.
//! Without an identifier, or when a repository has none (no commit yet, a shallow clone, a
//! history too long to walk), the key is the path's, as before.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Finds the identity of the git repository whose work tree starts at a root.
pub trait RepoIdentifier: Send + Sync {
    /// The identity of the repository whose work tree's root is `git_root`: `None` when it has
    /// none (no commit, shallow, unreadable). The same repository must give the same text on
    /// every machine.
    fn identify(&self, git_root: &Path) -> Option<String>;

    /// [`RepoIdentifier::identify`] without waiting: an identifier that finds identities
    /// slowly (by running another process) answers [`Identified::Pending`] while it looks,
    /// and the workspace is keyed by its path until the answer comes (what was learned
    /// meanwhile then moves to the repository's key, as for any root keyed by its path
    /// first). By default, [`RepoIdentifier::identify`]'s answer.
    fn try_identify(&self, git_root: &Path) -> Identified {
        Identified::Found(self.identify(git_root))
    }
}

/// An identifier's answer that may not be ready yet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Identified {
    /// The identity, or `None` when the repository has none.
    Found(Option<String>),
    /// Still being looked for: ask again on a later call.
    Pending,
}

/// How a workspace's key was derived.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "from")]
pub enum KeySource {
    /// From the workspace root's absolute path (no git repository, or no identity found).
    Path,
    /// From the repository's identity and the workspace's path inside the repository.
    Repository {
        /// The identity (`commit:<root commit>` or `name:<configured name>`).
        identity: String,
        /// The workspace's path inside the repository (`""` at its root).
        inside: String,
    },
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

/// The key of the workspace inside the repository `identity` at `inside` (`/`-separated,
/// `""` at the repository's root): the last component of `inside` (or `git`), `-`, and 12 hex
/// digits of an FNV-1a hash of both — the same on every clone, and no path outside the
/// repository in it.
pub fn repository_key(identity: &str, inside: &str) -> String {
    let label = inside.rsplit('/').find(|c| !c.is_empty()).unwrap_or("git");
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in identity.bytes().chain([0]).chain(inside.bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{label}-{:012x}", hash >> 16)
}

/// At most this many work-tree roots' identities are remembered; past it all are forgotten
/// (a long-lived daemon that visits many repositories asks again).
const MAX_REMEMBERED: usize = 4096;

/// The identities found so far, by work-tree root, and the identifier that finds them.
#[derive(Default)]
pub(crate) struct Identities {
    identifier: Option<Box<dyn RepoIdentifier>>,
    known: HashMap<PathBuf, Option<String>>,
    /// Workspace roots given a repository key so far.
    keyed: HashSet<PathBuf>,
    /// `(path key, repository key)` of roots keyed by their repository for the first time in
    /// this process: what was learned under the path key moves to the repository key.
    due: Vec<(String, String)>,
}

impl Identities {
    pub(crate) fn has_identifier(&self) -> bool {
        self.identifier.is_some()
    }

    pub(crate) fn set_identifier(&mut self, identifier: Option<Box<dyn RepoIdentifier>>) {
        self.identifier = identifier;
        self.known.clear();
        self.keyed.clear();
    }

    /// The key of the workspace at `root`, lying in the work tree at `git_root` (if any).
    pub(crate) fn key(&mut self, root: &Path, git_root: Option<&Path>) -> (String, KeySource) {
        let found = git_root.and_then(|git| {
            let identity = self.identity(git)?;
            let inside = root.strip_prefix(git).ok()?;
            let inside: Vec<String> = inside
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            Some((identity, inside.join("/")))
        });
        match found {
            Some((identity, inside)) => {
                let key = repository_key(&identity, &inside);
                if !self.keyed.contains(root) {
                    if self.keyed.len() >= MAX_REMEMBERED {
                        self.keyed.clear();
                    }
                    self.keyed.insert(root.to_path_buf());
                    if self.due.len() < MAX_REMEMBERED {
                        self.due.push((workspace_key(root), key.clone()));
                    }
                }
                (key, KeySource::Repository { identity, inside })
            }
            None => (workspace_key(root), KeySource::Path),
        }
    }

    /// The `(path key, repository key)` pairs of the roots keyed by their repository since
    /// last asked.
    pub(crate) fn take_rekeys(&mut self) -> Vec<(String, String)> {
        std::mem::take(&mut self.due)
    }

    fn identity(&mut self, git_root: &Path) -> Option<String> {
        let identifier = self.identifier.as_ref()?;
        if let Some(known) = self.known.get(git_root) {
            return known.clone();
        }
        let found = match identifier.try_identify(git_root) {
            Identified::Found(found) => found,
            // Not remembered: the next call asks again.
            Identified::Pending => return None,
        };
        if self.known.len() >= MAX_REMEMBERED {
            self.known.clear();
        }
        self.known.insert(git_root.to_path_buf(), found.clone());
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counting(Arc<AtomicUsize>, Option<&'static str>);

    impl RepoIdentifier for Counting {
        fn identify(&self, _: &Path) -> Option<String> {
            self.0.fetch_add(1, Ordering::SeqCst);
            self.1.map(String::from)
        }
    }

    /// Answers pending `pending` times, then the identity.
    struct Later(AtomicUsize, usize);

    impl RepoIdentifier for Later {
        fn identify(&self, _: &Path) -> Option<String> {
            Some("commit:abc".into())
        }

        fn try_identify(&self, git_root: &Path) -> Identified {
            if self.0.fetch_add(1, Ordering::SeqCst) < self.1 {
                Identified::Pending
            } else {
                Identified::Found(self.identify(git_root))
            }
        }
    }

    /// While the identity is pending the workspace is keyed by its path, asked again on every
    /// call; once found it is keyed by the repository, and the path key's rows are due to move.
    #[test]
    fn a_pending_identity_keys_by_path_until_it_is_found() {
        let mut ids = Identities::default();
        ids.set_identifier(Some(Box::new(Later(AtomicUsize::new(0), 2))));
        let root = Path::new("/home/a/clone");
        for _ in 0..2 {
            assert_eq!(
                ids.key(root, Some(root)),
                (workspace_key(root), KeySource::Path)
            );
        }
        let (key, source) = ids.key(root, Some(root));
        assert_eq!(key, repository_key("commit:abc", ""));
        assert!(matches!(source, KeySource::Repository { .. }));
        assert_eq!(ids.take_rekeys(), [(workspace_key(root), key)]);
    }

    #[test]
    fn clones_at_other_paths_share_a_key_and_subdirectories_do_not() {
        let asked = Arc::new(AtomicUsize::new(0));
        let mut ids = Identities::default();
        ids.set_identifier(Some(Box::new(Counting(asked.clone(), Some("commit:abc")))));
        let a = ids.key(Path::new("/home/a/clone"), Some(Path::new("/home/a/clone")));
        let b = ids.key(Path::new("/srv/b/other"), Some(Path::new("/srv/b/other")));
        assert_eq!(a.0, b.0);
        assert!(
            a.0.starts_with("git-") && a.0.len() == "git-".len() + 12,
            "{}",
            a.0
        );
        let sub = ids.key(
            Path::new("/home/a/clone/crates/core"),
            Some(Path::new("/home/a/clone")),
        );
        assert!(sub.0.starts_with("core-"), "{}", sub.0);
        assert_ne!(sub.0, a.0);
        assert_eq!(
            sub.1,
            KeySource::Repository {
                identity: "commit:abc".into(),
                inside: "crates/core".into()
            }
        );
        // Asked once per work-tree root.
        assert_eq!(asked.load(Ordering::SeqCst), 2);
        // Each root's path key is due to move to its repository key, once.
        let due = ids.take_rekeys();
        assert_eq!(
            due,
            [
                (workspace_key(Path::new("/home/a/clone")), a.0.clone()),
                (workspace_key(Path::new("/srv/b/other")), a.0.clone()),
                (workspace_key(Path::new("/home/a/clone/crates/core")), sub.0),
            ]
        );
        ids.key(Path::new("/home/a/clone"), Some(Path::new("/home/a/clone")));
        assert!(ids.take_rekeys().is_empty());
    }

    #[test]
    fn without_an_identity_the_path_decides() {
        let mut ids = Identities::default();
        let root = Path::new("/home/a/repo");
        assert_eq!(
            ids.key(root, Some(root)),
            (workspace_key(root), KeySource::Path)
        );
        ids.set_identifier(Some(Box::new(Counting(Arc::default(), None))));
        assert_eq!(
            ids.key(root, Some(root)),
            (workspace_key(root), KeySource::Path)
        );
        assert_eq!(ids.key(root, None).1, KeySource::Path);
    }

    #[test]
    fn another_identity_is_another_key() {
        assert_ne!(
            repository_key("commit:a", ""),
            repository_key("commit:b", "")
        );
        assert_ne!(
            repository_key("commit:a", "x"),
            repository_key("commit:a", "y")
        );
    }
}
