//! Git repositories written with gix (no `git` binary) for tests: this crate's unit tests and,
//! behind the `testkit` feature, other crates' tests (the CLI's).
//!
//! [`repository`] is the one commit writer: one commit per state (path → contents), the work
//! tree left with the tip's files. Every commit has the same author, committer and time, and
//! the message `c<i>`, so the same states give the same commit ids wherever they are written.
//! [`repository_with_raw`] adds root names no work tree (or `String`) may hold; [`tree`],
//! [`with_root_entry`], [`deep_tree`], [`commit`] and [`point_head`] are its parts, for a
//! commit written by hand.
//!
//! ```
//! use docsuggest_history::testkit;
//! use std::collections::BTreeMap;
//!
//! let dir = tempfile::tempdir().expect("temp dir");
//! let first: BTreeMap<String, String> = [("src/a.rs".to_string(), "0".to_string())].into();
//! let mut second = first.clone();
//! second.insert("docs/a.md".into(), "1".into());
//! testkit::repository(dir.path(), &[first, second]);
//! let history = docsuggest_history::history::read(dir.path(), None, None, 40, |_| {});
//! assert_eq!(history.expect("read").commits.len(), 2);
//! assert_eq!(std::fs::read_to_string(dir.path().join("docs/a.md")).expect("work tree"), "1");
//! ```

use gix::ObjectId;
use gix::bstr::BString;
use gix::objs::tree::{Entry, EntryKind};
use std::collections::BTreeMap;
use std::path::Path;

/// The author and committer of every commit written here: `t <t@example.invalid>` at
/// 1 700 000 000 s.
fn signature() -> gix::actor::Signature {
    gix::actor::Signature {
        name: "t".into(),
        email: "t@example.invalid".into(),
        time: gix::date::Time::new(1_700_000_000, 0),
    }
}

/// Builds a repository at `dir` whose first-parent history holds one commit per state
/// (path → contents; the message of state `i` is `c<i>`), and a work tree with the tip's files.
/// No state: an empty repository (HEAD unborn, no work-tree file).
pub fn repository(dir: &Path, states: &[BTreeMap<String, String>]) {
    repository_with_raw(dir, states, &[]);
}

/// [`repository`], with raw root names added to some commits' trees: `(state, name)` puts a
/// blob `odd` named `name` in the tree of that state's commit. Those names never reach the
/// work tree.
pub fn repository_with_raw(
    dir: &Path,
    states: &[BTreeMap<String, String>],
    raw: &[(usize, Vec<u8>)],
) {
    let repo = gix::init(dir).expect("git init");
    let mut parent: Option<ObjectId> = None;
    for (i, files) in states.iter().enumerate() {
        let mut root = tree(&repo, files);
        for (_, name) in raw.iter().filter(|(at, _)| *at == i) {
            let odd = repo.write_blob(b"odd").expect("blob").detach();
            root = with_root_entry(&repo, root, name, EntryKind::Blob, odd);
        }
        parent = Some(commit(&repo, root, parent, &format!("c{i}\n")));
    }
    let (Some(tip), Some(last)) = (parent, states.last()) else {
        return;
    };
    point_head(&repo, tip);
    for (path, body) in last {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, body).expect("work tree file");
    }
}

/// Writes the tree of `files` (path → contents), nested as git nests it, and its blobs.
pub fn tree(repo: &gix::Repository, files: &BTreeMap<String, String>) -> ObjectId {
    let mut here: BTreeMap<String, String> = BTreeMap::new();
    let mut below: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for (path, body) in files {
        match path.split_once('/') {
            Some((dir, rest)) => {
                below
                    .entry(dir.to_string())
                    .or_default()
                    .insert(rest.to_string(), body.clone());
            }
            None => {
                here.insert(path.clone(), body.clone());
            }
        }
    }
    let mut entries = Vec::new();
    for (name, body) in here {
        let oid = repo.write_blob(body.as_bytes()).expect("blob").detach();
        entries.push(Entry {
            mode: EntryKind::Blob.into(),
            filename: BString::from(name),
            oid,
        });
    }
    for (name, sub) in below {
        entries.push(Entry {
            mode: EntryKind::Tree.into(),
            filename: BString::from(name),
            oid: tree(repo, &sub),
        });
    }
    entries.sort();
    repo.write_object(&gix::objs::Tree { entries })
        .expect("tree")
        .detach()
}

/// Writes `tree` with one more entry at its root: `oid`, of `kind`, named `name` as raw bytes.
pub fn with_root_entry(
    repo: &gix::Repository,
    tree: ObjectId,
    name: &[u8],
    kind: EntryKind,
    oid: ObjectId,
) -> ObjectId {
    let object = repo.find_object(tree).expect("tree object");
    let mut t: gix::objs::Tree = object.into_tree().decode().expect("a tree").into();
    t.entries.push(Entry {
        mode: kind.into(),
        filename: BString::from(name.to_vec()),
        oid,
    });
    t.entries.sort();
    repo.write_object(&t).expect("tree").detach()
}

/// Writes a tree holding `d/d/…/f.txt` (contents `x`), `levels` directories deep: built from
/// tree objects, since no file system holds such a path (git accepts it).
pub fn deep_tree(repo: &gix::Repository, levels: usize) -> ObjectId {
    let blob = repo.write_blob(b"x").expect("blob").detach();
    let mut child = repo
        .write_object(&gix::objs::Tree {
            entries: vec![Entry {
                mode: EntryKind::Blob.into(),
                filename: BString::from("f.txt"),
                oid: blob,
            }],
        })
        .expect("tree")
        .detach();
    for _ in 0..levels {
        child = repo
            .write_object(&gix::objs::Tree {
                entries: vec![Entry {
                    mode: EntryKind::Tree.into(),
                    filename: BString::from("d"),
                    oid: child,
                }],
            })
            .expect("tree")
            .detach();
    }
    child
}

/// Writes a commit of `tree` on `parent` (none: a root commit) with `message`, by the one
/// author and committer of this module; HEAD is left as it is ([`point_head`] moves it).
pub fn commit(
    repo: &gix::Repository,
    tree: ObjectId,
    parent: Option<ObjectId>,
    message: &str,
) -> ObjectId {
    let commit = gix::objs::Commit {
        tree,
        parents: parent.into_iter().collect(),
        author: signature(),
        committer: signature(),
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    repo.write_object(&commit).expect("commit").detach()
}

/// Points the branch HEAD names at `id` (a loose ref, written as a file).
pub fn point_head(repo: &gix::Repository, id: ObjectId) {
    let git = repo.git_dir();
    let head = std::fs::read_to_string(git.join("HEAD")).expect("HEAD");
    let branch = head.trim().strip_prefix("ref: ").expect("a symbolic HEAD");
    let file = git.join(branch);
    std::fs::create_dir_all(file.parent().expect("refs dir")).expect("refs");
    std::fs::write(file, format!("{id}\n")).expect("branch ref");
}
