//! The tip's files, indexed for the miner's existence checks: which paths and directories
//! the newest commit holds, how many files each `dir/*.ext` has, and which files each
//! proposed rule matches.

use super::rules::{Shape, extension, proposals, split};
use std::collections::{HashMap, HashSet};

/// What the tip holds, indexed for the existence checks.
pub struct Tip<'a> {
    pub(super) list: &'a [String],
    pub(super) paths: HashSet<&'a str>,
    dirs: HashSet<&'a str>,
    /// Files per `dir/*.ext`, counting every directory whose path ends with `dir` (a glob
    /// companion is looked up under the package roots too).
    pub(super) dir_files: HashMap<String, usize>,
    /// Tip files per proposed rule.
    pub(super) rule_files: HashMap<Shape, Vec<usize>>,
}

impl<'a> Tip<'a> {
    /// Indexes the tip's paths.
    pub fn new(tip_paths: &'a [String]) -> Tip<'a> {
        let mut tip = Tip {
            list: tip_paths,
            paths: HashSet::new(),
            dirs: HashSet::new(),
            dir_files: HashMap::new(),
            rule_files: HashMap::new(),
        };
        for (i, path) in tip_paths.iter().enumerate() {
            tip.paths.insert(path);
            let mut dir = split(path).0;
            while !dir.is_empty() && tip.dirs.insert(dir) {
                dir = split(dir).0;
            }
            let (dir, name) = split(path);
            if let Some(ext) = extension(name) {
                // Every tail of the directory: `a/b/c/x.rs` counts for `c/*.rs`, `b/c/*.rs`, …
                let mut tail = dir;
                while !tail.is_empty() {
                    *tip.dir_files.entry(format!("{tail}/*.{ext}")).or_default() += 1;
                    tail = tail.split_once('/').map_or("", |(_, t)| t);
                }
            }
            for (shape, _) in proposals(path) {
                tip.rule_files.entry(shape).or_default().push(i);
            }
        }
        tip
    }

    pub(super) fn dir_exists(&self, dir: &str) -> bool {
        dir.is_empty() || self.dirs.contains(dir)
    }

    /// Whether the tip holds the file `path`.
    pub fn holds(&self, path: &str) -> bool {
        self.paths.contains(path)
    }

    /// The tip files a rule matches.
    pub(super) fn files_of<'s>(&'s self, shape: &Shape) -> impl Iterator<Item = &'a str> + 's {
        let list = self.list;
        self.rule_files
            .get(shape)
            .into_iter()
            .flatten()
            .map(move |&i| list[i].as_str())
    }
}
