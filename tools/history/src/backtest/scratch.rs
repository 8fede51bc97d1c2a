//! The scratch work tree every backtest call is judged in: the repository's tree as it was at
//! each commit, followed commit by commit.
//!
//! The engine's existence filter asks the disk which companions exist, so a commit judged
//! against the tip's files would be told of companions it could not have seen, name them and
//! count their misses. Instead, before each kept commit the scratch moves to the tree the
//! commit was made on (its first parent's) — one tree diff from where it stands, only the
//! paths that differ touched — and during the commit's turn each file it adds appears at its
//! own call and each file it deletes goes at its own call, as an agent writing the commit
//! makes them; a rename is a deletion and an addition, each at its call. After the turn the
//! scratch holds the commit's tree. Nothing is kept per commit: one tree at a time.
//!
//! Files are empty, but pack files: at the root, always the pack in use whatever the history
//! held there, its signature made the pack file itself so the root is a workspace at every
//! commit; below the root, a pack file holds its text at that commit, so a nested workspace is
//! judged with the pack it had. Only regular files and directories are made, and no symlink is
//! followed: every path is a plain relative name (the history leaves out any other, and marks
//! its commit odd), each ancestor is checked with `symlink_metadata` and an entry in the way —
//! a file where a directory must go, a directory where a file must go, as a commit that turns
//! one into the other has it for a moment — is removed, never entered.

use super::history::{Status, TreeId, Trees};
use super::{BacktestError, io};
use docsuggest_engine::locate;
use docsuggest_schema::Pack;
use docsuggest_schema::pack::{DEFAULT_SIGNATURE, REPO_PACK_PATH};
use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A scratch directory following the history.
pub struct Scratch {
    /// Holds `tree/`, the work tree, and the empty files its empty files are links of.
    dir: tempfile::TempDir,
    /// The work tree.
    tree: PathBuf,
    /// The tree the scratch holds between turns (`None`: the empty tree).
    at: Cell<Option<TreeId>>,
    /// The empty file new empty files are hard links of, and how many it has; `None` once
    /// the file system refused a link (each empty file is then a file of its own).
    empty: Cell<Option<(u32, u32)>>,
}

/// Links of one empty file before the next is made (ext4 allows 65,000).
const LINKS_PER_FILE: u32 = 60_000;

/// Whether a path of the history is the root's pack file, lies below it, or is the directory
/// it is in: the scratch keeps the pack in use there.
fn pinned(path: &str) -> bool {
    path == REPO_PACK_PATH
        || REPO_PACK_PATH
            .strip_prefix(path)
            .is_some_and(|rest| rest.starts_with('/'))
        || path
            .strip_prefix(REPO_PACK_PATH)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// A relative path of plain names only (no root, no `.` or `..`, no empty name).
fn plain(path: &str) -> bool {
    !path.is_empty()
        && path
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains('\\'))
}

/// The directory a pack file below the root makes a workspace root of, or one the built-in
/// pack's signature does.
fn root_of(path: &str) -> Option<&str> {
    [REPO_PACK_PATH, DEFAULT_SIGNATURE].iter().find_map(|file| {
        path.strip_suffix(file)
            .and_then(|dir| dir.strip_suffix('/'))
    })
}

impl Scratch {
    /// An empty scratch work tree with `pack` at its root.
    pub fn new(pack: &Pack) -> Result<Scratch, BacktestError> {
        let dir = tempfile::Builder::new()
            .prefix("docsuggest-backtest-")
            .tempdir()
            .map_err(io("cannot make a scratch work tree"))?;
        let pinned = Pack {
            signature: vec![REPO_PACK_PATH.into()],
            mined: None,
            // Whether the pack's Stop reminder may block is the engine's to read.
            boundary: pack.boundary,
            families: pack.families.clone(),
        };
        let text = serde_json::to_string_pretty(&pinned).map_err(|e| BacktestError::Pack {
            file: REPO_PACK_PATH.into(),
            reason: e.to_string(),
        })?;
        let tree = dir.path().join("tree");
        std::fs::create_dir(&tree).map_err(io("cannot make a scratch work tree"))?;
        let scratch = Scratch {
            dir,
            tree,
            at: Cell::new(None),
            empty: Cell::new(Some((0, 0))),
        };
        scratch.write(REPO_PACK_PATH, text.as_bytes())?;
        Ok(scratch)
    }

    /// The scratch work tree.
    pub fn path(&self) -> &Path {
        &self.tree
    }

    /// Makes the empty file `file` (nothing is there). Most files of a tree are empty, and a
    /// new inode per file is what costs (ext4 scans for recently deleted inodes on each one,
    /// and a backtest deletes and makes files all along): each is a hard link of one empty
    /// file outside the work tree, a new one after [`LINKS_PER_FILE`] links. Where the file
    /// system refuses links, each is a file of its own. Files with contents are never links.
    fn make_empty(&self, file: &Path) -> std::io::Result<()> {
        if let Some((n, links)) = self.empty.get() {
            let (n, links) = if links >= LINKS_PER_FILE {
                (n + 1, 0)
            } else {
                (n, links)
            };
            let source = self.dir.path().join(format!("empty-{n}"));
            if links == 0 {
                std::fs::write(&source, b"")?;
            }
            match std::fs::hard_link(&source, file) {
                Ok(()) => {
                    self.empty.set(Some((n, links + 1)));
                    return Ok(());
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return Err(e),
                Err(_) => self.empty.set(None),
            }
        }
        std::fs::write(file, b"")
    }

    /// A walk of one run through the history on this scratch, reading the repository at
    /// `repo`; `keys` learns the workspace roots that appear.
    pub fn follow<'a>(
        &'a self,
        repo: &Path,
        keys: Option<&'a Keys>,
    ) -> Result<Follow<'a>, BacktestError> {
        Ok(Follow {
            scratch: self,
            trees: Trees::open(repo)?,
            keys,
            turn: None,
        })
    }

    /// Writes `contents` at `rel`, making its directories; an entry in the way is removed.
    fn write(&self, rel: &str, contents: &[u8]) -> Result<(), BacktestError> {
        let failed = || io(format!("cannot update the scratch work tree at {rel}"));
        let mut dir = self.tree.clone();
        let mut names = rel.split('/').peekable();
        while let Some(name) = names.next() {
            dir.push(name);
            let last = names.peek().is_none();
            match std::fs::symlink_metadata(&dir) {
                Ok(m) if m.is_dir() && !last => {}
                // An empty file stays; one with contents is made anew (it may be a link).
                Ok(m) if m.is_file() && last && m.len() == 0 && contents.is_empty() => {
                    return Ok(());
                }
                Ok(m) if m.is_dir() => std::fs::remove_dir_all(&dir).map_err(failed())?,
                Ok(_) => std::fs::remove_file(&dir).map_err(failed())?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(failed()(e)),
            }
            if !last && !dir.is_dir() {
                std::fs::create_dir(&dir).map_err(failed())?;
            }
        }
        // `dir` is now the file itself, and nothing is there: nothing is followed.
        if contents.is_empty() {
            return self.make_empty(&dir).map_err(failed());
        }
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&dir)
            .and_then(|mut f| std::io::Write::write_all(&mut f, contents))
            .map_err(failed())
    }

    /// Removes the file `rel`, then its directories left empty (never the root).
    fn remove(&self, rel: &str) -> Result<(), BacktestError> {
        let root = self.tree.as_path();
        let file = root.join(rel);
        match std::fs::symlink_metadata(&file) {
            Ok(m) if !m.is_dir() => std::fs::remove_file(&file)
                .map_err(io(format!("cannot update the scratch work tree at {rel}")))?,
            // A directory here is no file of the tree's; nothing here, nothing to do.
            _ => return Ok(()),
        }
        let mut dir: Option<&Path> = file.parent();
        while let Some(d) = dir.filter(|d| *d != root && d.starts_with(root)) {
            if std::fs::remove_dir(d).is_err() {
                break;
            }
            dir = d.parent();
        }
        Ok(())
    }
}

/// One run's walk through the history on a [`Scratch`].
pub struct Follow<'a> {
    scratch: &'a Scratch,
    trees: Trees,
    keys: Option<&'a Keys>,
    /// The tree of the commit whose turn is being replayed.
    turn: Option<TreeId>,
}

impl Follow<'_> {
    /// Moves the scratch to the tree the commit `id` was made on (its first parent's: the
    /// empty tree for a root commit), before its turn.
    pub fn before(&mut self, id: &str) -> Result<(), BacktestError> {
        let (tree, parent) = self.trees.of_commit(id)?;
        let changes = self.trees.changes(self.scratch.at.get(), parent)?;
        // Deletions first: a file that becomes a directory goes before what is added below it.
        for (_, path) in changes.iter().filter(|(s, _)| *s == Status::Deleted) {
            self.remove(path)?;
        }
        for (status, path) in changes.iter().filter(|(s, _)| *s != Status::Deleted) {
            self.put(*status, path, parent)?;
        }
        self.scratch.at.set(parent);
        self.turn = Some(tree);
        Ok(())
    }

    /// The turn's call on `path`, changed by the commit as `status` says: an added file
    /// appears, a deleted one goes, a pack file below the root takes the commit's text.
    pub fn call(&mut self, status: Status, path: &str) -> Result<(), BacktestError> {
        match status {
            Status::Deleted => self.remove(path),
            _ => self.put(status, path, self.turn),
        }
    }

    /// After the turn: the scratch holds the commit's tree.
    pub fn after(&mut self) {
        self.scratch.at.set(self.turn.take());
    }

    fn remove(&self, path: &str) -> Result<(), BacktestError> {
        if pinned(path) || !plain(path) {
            return Ok(());
        }
        self.scratch.remove(path)
    }

    /// The file `path` as `tree` has it, after a change of `status`.
    fn put(&self, status: Status, path: &str, tree: Option<TreeId>) -> Result<(), BacktestError> {
        if pinned(path) || !plain(path) {
            return Ok(());
        }
        let root = root_of(path);
        let contents = match (root, tree) {
            (Some(_), Some(tree)) if path.ends_with(REPO_PACK_PATH) => {
                match self.trees.pack_text(tree, path) {
                    Ok(text) => text.unwrap_or_default(),
                    // Too large to be read: the engine would refuse it as well.
                    Err(super::history::HistoryError::TooLarge(_)) => String::new(),
                    Err(e) => return Err(e.into()),
                }
            }
            // Only a pack file's text is read: any other file that exists stays as it is.
            _ if status != Status::Added => return Ok(()),
            _ => String::new(),
        };
        self.scratch.write(path, contents.as_bytes())?;
        if let (Some(dir), Some(keys)) = (root, self.keys) {
            keys.register(dir);
        }
        Ok(())
    }
}

/// The key the engine gives the workspace root `dir` (relative, `""` the root) of calls made
/// with the working directory `cwd`: the path resolved as the engine resolves a call's, or,
/// in a repository with an `identity`, the repository's key of `dir` (as the hosts key it).
fn key_of(cwd: &str, dir: &str, identity: Option<&str>) -> Option<String> {
    if let Some(identity) = identity {
        return Some(docsuggest_engine::identity::repository_key(identity, dir));
    }
    let file = if dir.is_empty() {
        REPO_PACK_PATH.to_string()
    } else {
        format!("{dir}/{REPO_PACK_PATH}")
    };
    let mut out = String::new();
    docsuggest_engine::paths::resolve_into(&mut out, &file, Some(cwd)).ok()?;
    let root = Path::new(&out)
        .ancestors()
        .nth(REPO_PACK_PATH.split('/').count())?;
    Some(locate::workspace_key(root))
}

/// The work tree's workspace keys by the scratch's: the engine judges in the scratch, and what
/// it records is keyed as if it had judged in the work tree (the work tree holds the pack in
/// use), so `bootstrap` fills a store the work tree's sessions read and `backtest --store`
/// starts from what they learned. Every workspace root the scratch comes to hold (the root, a
/// directory with a pack file or the built-in signature) is registered as it appears.
#[derive(Clone, Debug)]
pub struct Keys {
    scratch: String,
    work: String,
    /// The work tree's repository identity, which keys its workspaces (none: their paths).
    identity: Option<String>,
    map: Arc<Mutex<HashMap<String, String>>>,
}

impl Keys {
    /// The keys of calls made in `scratch` as those of calls made in `work` (both absolute).
    pub fn new(scratch: &Path, work: &Path) -> Keys {
        use docsuggest_host::mining::HistoryMiner as _;
        let identity = crate::miner::GitMiner.identify(work).ok().flatten();
        let keys = Keys {
            scratch: scratch.display().to_string(),
            work: work.display().to_string(),
            identity,
            map: Arc::default(),
        };
        keys.register("");
        keys
    }

    fn register(&self, dir: &str) {
        if let (Some(from), Some(to)) = (
            key_of(&self.scratch, dir, None),
            key_of(&self.work, dir, self.identity.as_deref()),
        ) && let Ok(mut map) = self.map.lock()
        {
            map.insert(from, to);
        }
    }

    /// The work tree's key for the scratch's `key`, when it is one of a workspace root.
    pub fn get(&self, key: &str) -> Option<String> {
        self.map.lock().ok()?.get(key).cloned()
    }

    /// The work tree (absolute).
    pub fn work_tree(&self) -> PathBuf {
        PathBuf::from(&self.work)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_of_the_history_that_the_scratch_leaves_alone() {
        for (path, expect) in [
            (".dsh/doc-pack.json", true),
            (".dsh", true),
            (".dsh/doc-pack.json/x", true),
            (".dsh/other.json", false),
            ("a/.dsh/doc-pack.json", false),
            (".dshx", false),
        ] {
            assert_eq!(pinned(path), expect, "{path}");
        }
        for (path, expect) in [
            ("a/b.md", true),
            ("/etc/passwd", false),
            ("a/../../x", false),
            ("./a", false),
            ("a//b", false),
            ("a\\b", false),
        ] {
            assert_eq!(plain(path), expect, "{path}");
        }
        assert_eq!(root_of("pkg/.dsh/doc-pack.json"), Some("pkg"));
        assert_eq!(root_of("pkg/Documentation/ARCHIVE-STYLE.md"), Some("pkg"));
        assert_eq!(root_of("Documentation/ARCHIVE-STYLE.md"), None);
        assert_eq!(root_of("pkg/README.md"), None);
    }

    #[test]
    fn files_and_directories_that_swap_places_are_replaced_never_entered() {
        let scratch = Scratch::new(&Pack::builtin()).expect("scratch");
        let root = scratch.path().to_path_buf();
        scratch.write("a", b"").expect("a file");
        // A file where a directory must go, then a directory where a file must go.
        scratch.write("a/b/c.md", b"").expect("below a former file");
        assert!(root.join("a/b/c.md").is_file());
        scratch.write("a", b"").expect("over a former directory");
        assert!(root.join("a").is_file());
        // A removal prunes the directories it empties, never the root or the pack's.
        scratch.write("x/y/z.md", b"").expect("deep");
        scratch.write("x/w.md", b"").expect("beside");
        scratch.remove("x/y/z.md").expect("remove");
        assert!(!root.join("x/y").exists() && root.join("x/w.md").is_file());
        scratch.remove("x/w.md").expect("remove");
        assert!(!root.join("x").exists() && root.exists());
        assert!(root.join(REPO_PACK_PATH).is_file());
        // A symlink planted in the way is removed, not followed.
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().expect("outside");
            std::os::unix::fs::symlink(outside.path(), root.join("l")).expect("symlink");
            scratch
                .write("l/f.md", b"")
                .expect("through the link's name");
            assert!(root.join("l").is_dir() && !outside.path().join("f.md").exists());
            std::os::unix::fs::symlink(outside.path().join("t"), root.join("m")).expect("link");
            scratch.write("m", b"").expect("over the link");
            assert!(!outside.path().join("t").exists());
            assert!(std::fs::symlink_metadata(root.join("m")).is_ok_and(|m| m.is_file()));
        }
    }

    #[test]
    fn empty_files_share_an_inode_and_a_file_given_contents_leaves_it() {
        let scratch = Scratch::new(&Pack::builtin()).expect("scratch");
        let root = scratch.path().to_path_buf();
        for f in ["a.md", "b.md", "d/.dsh/doc-pack.json"] {
            scratch.write(f, b"").expect("empty");
        }
        scratch
            .write("d/.dsh/doc-pack.json", b"{}")
            .expect("contents");
        assert_eq!(
            std::fs::read(root.join("d/.dsh/doc-pack.json")).expect("read"),
            b"{}"
        );
        for f in ["a.md", "b.md"] {
            assert_eq!(std::fs::read(root.join(f)).expect("read"), b"", "{f}");
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let ino = |f: &str| std::fs::metadata(root.join(f)).expect("meta").ino();
            assert_eq!(ino("a.md"), ino("b.md"));
            assert_ne!(ino("a.md"), ino("d/.dsh/doc-pack.json"));
        }
        // Emptied again, it is an empty file once more.
        scratch
            .write("d/.dsh/doc-pack.json", b"")
            .expect("empty again");
        assert_eq!(
            std::fs::read(root.join("d/.dsh/doc-pack.json")).expect("read"),
            b""
        );
    }

    #[test]
    fn the_root_pack_is_the_pack_in_use_with_itself_as_signature() {
        let scratch = Scratch::new(&Pack::builtin()).expect("scratch");
        let text = std::fs::read_to_string(scratch.path().join(REPO_PACK_PATH)).expect("pack");
        let pack = Pack::from_json_str(&text, "p").expect("it parses");
        assert_eq!(pack.signature, [REPO_PACK_PATH]);
        assert_eq!(pack.families, Pack::builtin().families);
    }
}
