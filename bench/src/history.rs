//! Synthetic git histories for the backtest benchmark, written with gix (no `git` binary).
//!
//! A repository shaped like a lint project: `lints/*.rs` (family `Lint`: companions
//! `tests/*.rs`, `CHANGELOG.md`, `docs/*.md`), `config/*.toml` (family `Config`: companions
//! `docs/config.md`, `CHANGELOG.md`) and plain `src/*.rs` files no family claims. Each commit
//! draws its files from a seeded generator: a lint change with its test most of the time and
//! the changelog now and then, a config change, or a source-only change (which the backtest
//! skips). The same seed gives the same history, so runs compare.

use gix::ObjectId;
use gix::bstr::BString;
use gix::objs::tree::{Entry, EntryKind};
use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeMap;
use std::path::Path;

/// The pack of the synthetic repository.
pub const PACK: &str = r#"{"signature": ["LICENSE"], "families": [
  {"name": "Lint", "kind": "doc", "rules": ["lints/*.rs"],
   "companions": [{"path": "tests/*.rs", "prior": 1.0}, {"path": "CHANGELOG.md", "prior": 0.6},
                  {"path": "docs/*.md", "prior": 0.6}]},
  {"name": "Config", "kind": "doc", "rules": ["config/*.toml"],
   "companions": [{"path": "docs/config.md", "prior": 1.0}, {"path": "CHANGELOG.md", "prior": 0.8}]}]}"#;

type Error = Box<dyn std::error::Error>;

/// A directory of the tree being built; its object id is kept until something below changes.
#[derive(Default)]
struct Dir {
    files: BTreeMap<String, ObjectId>,
    dirs: BTreeMap<String, Dir>,
    written: Option<ObjectId>,
}

impl Dir {
    fn set(&mut self, path: &str, blob: ObjectId) {
        self.written = None;
        match path.split_once('/') {
            Some((dir, rest)) => self
                .dirs
                .entry(dir.to_string())
                .or_default()
                .set(rest, blob),
            None => {
                self.files.insert(path.to_string(), blob);
            }
        }
    }

    fn write(&mut self, repo: &gix::Repository) -> Result<ObjectId, Error> {
        if let Some(id) = self.written {
            return Ok(id);
        }
        let mut entries = Vec::with_capacity(self.files.len() + self.dirs.len());
        for (name, oid) in &self.files {
            entries.push(Entry {
                mode: EntryKind::Blob.into(),
                filename: BString::from(name.as_str()),
                oid: *oid,
            });
        }
        for (name, dir) in &mut self.dirs {
            entries.push(Entry {
                mode: EntryKind::Tree.into(),
                filename: BString::from(name.as_str()),
                oid: dir.write(repo)?,
            });
        }
        // git's order (a tree sorts as if its name ended in `/`), which gix's `Ord` follows.
        entries.sort();
        let id = repo.write_object(&gix::objs::Tree { entries })?.detach();
        self.written = Some(id);
        Ok(id)
    }
}

/// Draws from a seeded generator: the benchmark needs the same history on every run.
struct Draw(ChaCha8Rng);

impl Draw {
    fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n)
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The paths one synthetic commit changes.
fn commit_paths(draw: &mut Draw) -> Vec<String> {
    let mut paths = Vec::new();
    match draw.below(10) {
        0..=5 => {
            let lint = draw.below(400);
            paths.push(format!("lints/l{lint}.rs"));
            if draw.chance(80) {
                paths.push(format!("tests/l{lint}.rs"));
            }
            if draw.chance(15) {
                paths.push("CHANGELOG.md".into());
            }
            if draw.chance(8) {
                paths.push(format!("docs/d{}.md", draw.below(40)));
            }
        }
        6 => {
            paths.push(format!("config/c{}.toml", draw.below(12)));
            if draw.chance(60) {
                paths.push("docs/config.md".into());
            }
            if draw.chance(40) {
                paths.push("CHANGELOG.md".into());
            }
        }
        _ => {}
    }
    for _ in 0..draw.below(4) {
        paths.push(format!("src/s{}.rs", draw.below(600)));
    }
    if paths.is_empty() {
        paths.push(format!("src/s{}.rs", draw.below(600)));
    }
    paths.sort();
    paths.dedup();
    paths
}

/// What [`build`] made.
pub struct Built {
    /// First-parent commits written.
    pub commits: usize,
    /// Paths at the tip.
    pub tip_paths: usize,
}

/// Writes a repository at `dir` (a work tree with the tip's files) whose first-parent history
/// holds `commits` commits drawn from `seed`, the first one adding the pack and `LICENSE`.
pub fn build(dir: &Path, commits: usize, seed: u64) -> Result<Built, Error> {
    let repo = gix::init(dir)?;
    let sig = gix::actor::Signature {
        name: "bench".into(),
        email: "bench@example.invalid".into(),
        time: gix::date::Time::new(1_700_000_000, 0),
    };
    let mut root = Dir::default();
    let mut tip: BTreeMap<String, String> = BTreeMap::new();
    let mut draw = Draw(ChaCha8Rng::seed_from_u64(seed));
    let mut parent: Option<ObjectId> = None;
    for i in 0..commits {
        let paths = if i == 0 {
            vec![".dsh/doc-pack.json".to_string(), "LICENSE".to_string()]
        } else {
            commit_paths(&mut draw)
        };
        for path in paths {
            let body = if path == ".dsh/doc-pack.json" {
                PACK.to_string()
            } else {
                format!("{path} {i}\n")
            };
            root.set(&path, repo.write_blob(body.as_bytes())?.detach());
            tip.insert(path, body);
        }
        let commit = gix::objs::Commit {
            tree: root.write(&repo)?,
            parents: parent.into_iter().collect(),
            author: sig.clone(),
            committer: sig.clone(),
            encoding: None,
            message: format!("c{i}\n").into(),
            extra_headers: Vec::new(),
        };
        parent = Some(repo.write_object(&commit)?.detach());
    }
    let tip_id = parent.ok_or("no commit written")?;
    let git_dir = repo.git_dir().to_path_buf();
    let head = std::fs::read_to_string(git_dir.join("HEAD"))?;
    let branch = head
        .trim()
        .strip_prefix("ref: ")
        .ok_or("HEAD is not a symbolic ref")?;
    let file = git_dir.join(branch);
    std::fs::create_dir_all(file.parent().ok_or("a refs directory")?)?;
    std::fs::write(file, format!("{tip_id}\n"))?;
    for (path, body) in &tip {
        let full = dir.join(path);
        std::fs::create_dir_all(full.parent().ok_or("a parent directory")?)?;
        std::fs::write(full, body)?;
    }
    Ok(Built {
        commits,
        tip_paths: tip.len(),
    })
}
