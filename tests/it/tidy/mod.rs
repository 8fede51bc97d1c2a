//! Tidy: what ARCHITECTURE.md says about the tree, and the shape of the code, checked against
//! the tree (after rust-analyzer's `tidy` tests). Each test names every file and line that is
//! wrong.
//!
//! - `code_map`: ARCHITECTURE.md's code map names every module, and every module it names
//!   exists.
//! - `invariants`: the invariants ARCHITECTURE.md states in words (bincode only in the codec,
//!   the engine never names redb, the engine's clock readers).
//! - `cycles`: no two files of a crate import each other, directly or around a loop.
//! - `lengths`: no production function is longer than 100 lines.
//!
//! `modules` reads each crate's module tree with `syn`, for the last two. Files are found with
//! `std::fs` from the workspace root (the parent of this crate), skipping `target/`,
//! `node_modules/` and hidden directories.

mod code_map;
mod cycles;
mod invariants;
mod lengths;
mod modules;

use std::fs;
use std::path::{Path, PathBuf};

pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the tests crate sits in the workspace root")
        .to_path_buf()
}

/// The workspace members, as directories relative to the root.
pub(crate) fn members(root: &Path) -> Vec<String> {
    let manifest = read(&root.join("Cargo.toml"));
    let manifest: toml::Table = toml::from_str(&manifest).expect("the root Cargo.toml parses");
    manifest["workspace"]["members"]
        .as_array()
        .expect("workspace.members is an array")
        .iter()
        .map(|m| m.as_str().expect("a member is a string").to_owned())
        .collect()
}

/// Every `.rs` file under `dir`, sorted, skipping `target/`, `node_modules/`, hidden dirs.
pub(super) fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries {
            let entry = entry.expect("a directory entry");
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let kind = entry.file_type().expect("an entry's type");
            if kind.is_dir() {
                if !(name.starts_with('.') || name == "target" || name == "node_modules") {
                    stack.push(path);
                }
            } else if kind.is_file() && name.ends_with(".rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `path` relative to `base`, with `/` separators.
pub(super) fn rel(path: &Path, base: &Path) -> String {
    let rel = path.strip_prefix(base).expect("a path under its base");
    let parts: Vec<_> = rel.iter().map(|c| c.to_string_lossy()).collect();
    parts.join("/")
}

pub(crate) fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

pub(crate) fn architecture(root: &Path) -> String {
    read(&root.join("ARCHITECTURE.md"))
}

/// ARCHITECTURE.md with every run of whitespace made one space, to find a sentence in it
/// whatever its line breaks.
pub(super) fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The code spans of `text` (a span may run over a line break).
pub(crate) fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(flat)
        .filter(|s| !s.is_empty())
        .collect()
}

/// Fails unless ARCHITECTURE.md (`doc`) says `statement`, whatever its line breaks: a test of
/// what the document says changes with it.
pub(super) fn assert_doc_says(doc: &str, statement: &str) {
    assert!(
        flat(doc).contains(statement),
        "ARCHITECTURE.md no longer says {statement:?}: update this test to what it says now"
    );
}

/// A workspace of `files` (path → text) in a new temporary directory: what a check is tried on.
pub(super) fn plant(files: &[(&str, String)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for (path, text) in files {
        let path = dir.path().join(path);
        fs::create_dir_all(path.parent().expect("a file has a directory")).expect("mkdir");
        fs::write(&path, text).expect("write");
    }
    dir
}
