//! Tidy: what ARCHITECTURE.md says about the tree, checked against the tree (after
//! rust-analyzer's `tidy` tests). Each test names every file and line that is wrong.
//!
//! **The code map** (`code_map_names_every_module`, `code_map_names_no_missing_module`).
//! Each workspace member (the `members` of the top-level Cargo.toml) has a section in
//! ARCHITECTURE.md: the `###` heading whose first code span is the crate's directory
//! (`` ### `tools/host/` ``), up to the next heading, or else the paragraph whose first code
//! span it is (`` **Benchmarks.** `bench/` ``). A section is read as units: a list item with
//! its continuation lines, or a paragraph. A unit *opens* each directory it names as a code
//! span ending in `/` (`protocol/`, `src/bin/`), taken under the crate's `src/`.
//!
//! A module file, at path `P` under its crate's `src/`, is named when one unit of its crate's
//! section has a code span `S` with `P` = `S` (a leading `src/` dropped) or `P` = `O/S` for a
//! directory `O` the unit opens: `config.rs`, `pack/fields.rs`, `src/sqlite.rs`, or
//! `request.rs` in the item that opens `protocol/`. Besides:
//! - the crate roots `src/lib.rs` and `src/main.rs` need no name (the section describes them);
//! - `D/mod.rs` is named by a unit that opens `D/`;
//! - `bin/N.rs`, a binary, is also named by a code span `N` in a unit that opens `bin/`;
//! - a file `tests.rs` needs no name: it is its parent module's unit tests ("unit tests sit
//!   beside the code", ARCHITECTURE.md, Testing).
//!
//! The other way round, every code span of ARCHITECTURE.md that names a module file or a
//! directory (identifier components, ending in `.rs` or `/`) exists: as a file (`.rs`) or a
//! directory (`/`) under one of its bases: the workspace root, every member's directory and
//! its `src/` (a section may name another crate's module: the engine's names the CLI's
//! `mcp/explain.rs`), and each of these joined with a directory the unit opens (`test/`
//! under `tools/npm/`, `mod.rs` under `mine/`).
//!
//! **Invariants.** `bincode::` appears only in the codec (`schema/src/codec.rs`,
//! `schema/src/codec/`); the engine (`engine/src`, `engine/Cargo.toml`) never names redb; the
//! engine reads the clock (`SystemTime::now`, `Instant::now`) only where ARCHITECTURE.md says
//! it does. The call checks skip comment lines; the redb check counts comments too.
//! Each of these first checks that ARCHITECTURE.md still says what it checks (quoted), so the
//! test and the document change together.
//!
//! Files are found with `std::fs` from the workspace root (the parent of this crate),
//! skipping `target/`, `node_modules/` and hidden directories.

use std::collections::BTreeSet;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};

/// This file: it spells the patterns it looks for.
const THIS_FILE: &str = "tests/it/tidy.rs";

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
fn rust_files(dir: &Path) -> Vec<PathBuf> {
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
fn rel(path: &Path, base: &Path) -> String {
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
fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// One list item with its continuation lines, or one paragraph, or one heading.
struct Unit {
    /// 1-based line of ARCHITECTURE.md where it starts.
    line: usize,
    heading: bool,
    /// Its code spans, whitespace inside them made one space.
    spans: Vec<String>,
}

impl Unit {
    fn first_span(&self) -> Option<&str> {
        self.spans.first().map(String::as_str)
    }

    /// The directories it opens, relative to a crate's `src/`.
    fn opens(&self) -> Vec<String> {
        self.spans
            .iter()
            .filter(|s| s.ends_with('/') && is_module_name(s))
            .map(|s| strip_src(s).trim_end_matches('/').to_owned())
            .collect()
    }
}

fn strip_src(span: &str) -> &str {
    span.strip_prefix("src/").unwrap_or(span)
}

/// A code span that names a module file or a directory: identifier components, ending in
/// `.rs` or `/` (`codec/moves.rs`, `protocol/`, `src/bin/`; not `.claude-plugin/`).
fn is_module_name(span: &str) -> bool {
    let Some(body) = span.strip_suffix(".rs").or_else(|| span.strip_suffix('/')) else {
        return false;
    };
    !body.is_empty()
        && body
            .split('/')
            .all(|c| !c.is_empty() && c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_'))
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

/// ARCHITECTURE.md as units, fenced code blocks left out.
fn units(doc: &str) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut current: Option<(usize, String)> = None;
    let mut fenced = false;
    let flush = |current: &mut Option<(usize, String)>, units: &mut Vec<Unit>| {
        if let Some((line, text)) = current.take() {
            units.push(Unit {
                line,
                heading: false,
                spans: code_spans(&text),
            });
        }
    };
    for (i, line) in doc.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            flush(&mut current, &mut units);
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if line.trim().is_empty() {
            flush(&mut current, &mut units);
        } else if line.starts_with('#') {
            flush(&mut current, &mut units);
            units.push(Unit {
                line: i + 1,
                heading: true,
                spans: code_spans(line),
            });
        } else if line.starts_with("- ") || line.starts_with("* ") || current.is_none() {
            flush(&mut current, &mut units);
            current = Some((i + 1, line.to_owned()));
        } else if let Some((_, text)) = current.as_mut() {
            text.push('\n');
            text.push_str(line);
        }
    }
    flush(&mut current, &mut units);
    units
}

/// Where `member`'s section is in `units`: after the heading whose first code span is
/// `member/`, up to the next heading; else the one paragraph whose first code span it is.
fn section(units: &[Unit], member: &str) -> Option<Range<usize>> {
    let name = format!("{member}/");
    if let Some(at) = units
        .iter()
        .position(|u| u.heading && u.first_span() == Some(name.as_str()))
    {
        let end = units[at + 1..]
            .iter()
            .position(|u| u.heading)
            .map_or(units.len(), |n| at + 1 + n);
        return Some(at + 1..end);
    }
    units
        .iter()
        .position(|u| !u.heading && u.first_span() == Some(name.as_str()))
        .map(|at| at..at + 1)
}

/// Whether `path` (relative to its crate's `src/`) is named by the section `units`.
fn named(path: &str, units: &[Unit]) -> bool {
    if path == "lib.rs" || path == "main.rs" || path == "tests.rs" || path.ends_with("/tests.rs") {
        return true;
    }
    units.iter().any(|unit| {
        let opens = unit.opens();
        let by_span = unit.spans.iter().any(|span| {
            let span = strip_src(span);
            span == path || opens.iter().any(|dir| format!("{dir}/{span}") == path)
        });
        let by_dir = path
            .strip_suffix("/mod.rs")
            .is_some_and(|dir| opens.iter().any(|o| o == dir));
        let by_bin = path
            .strip_prefix("bin/")
            .and_then(|n| n.strip_suffix(".rs"))
            .is_some_and(|bin| {
                opens.iter().any(|o| o == "bin") && unit.spans.iter().any(|s| s == bin)
            });
        by_span || by_dir || by_bin
    })
}

#[test]
fn code_map_names_every_module() {
    let root = root();
    let doc = architecture(&root);
    let units = units(&doc);
    let mut problems = Vec::new();
    for member in members(&root) {
        let Some(section) = section(&units, &member).map(|r| &units[r]) else {
            problems.push(format!(
                "ARCHITECTURE.md has no section for the crate `{member}/` (a `### \
                 `{member}/`` heading, or a paragraph starting with `{member}/`)"
            ));
            continue;
        };
        let src = root.join(&member).join("src");
        for file in rust_files(&src) {
            let path = rel(&file, &src);
            if !named(&path, section) {
                let name = path.rsplit_once('/').map_or(String::new(), |(dir, file)| {
                    format!(", or as `{file}` in the item that names `{dir}/`")
                });
                problems.push(format!(
                    "{member}/src/{path} is not named in ARCHITECTURE.md: add a line for it to \
                     the section of `{member}/` (line {}), as `{path}`{name}",
                    section.first().map_or(0, |u| u.line),
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's code map misses modules:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn code_map_names_no_missing_module() {
    let root = root();
    let doc = architecture(&root);
    let units = units(&doc);
    let members = members(&root);
    // Which member's section each unit is in, by its index.
    let mut owner: Vec<Option<&str>> = vec![None; units.len()];
    for member in &members {
        if let Some(section) = section(&units, member) {
            for slot in &mut owner[section] {
                *slot = Some(member);
            }
        }
    }
    let mut bases = vec![root.clone()];
    for member in &members {
        bases.push(root.join(member).join("src"));
        bases.push(root.join(member));
    }
    let mut problems = BTreeSet::new();
    for (unit, owner) in units.iter().zip(&owner) {
        let opens = unit.opens();
        let mut all = bases.clone();
        for base in &bases {
            for dir in &opens {
                all.push(base.join(dir));
            }
        }
        for span in unit.spans.iter().filter(|s| is_module_name(s)) {
            let found = all.iter().any(|base| {
                let candidate = base.join(span.trim_end_matches('/'));
                if span.ends_with('/') {
                    candidate.is_dir()
                } else {
                    candidate.is_file()
                }
            });
            if !found {
                problems.insert(format!(
                    "ARCHITECTURE.md line {} names `{span}`, which does not exist{}",
                    unit.line,
                    owner.map_or(String::new(), |m| format!(" (the section of `{m}/`)")),
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md names modules that are gone:\n  {}",
        problems.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}

/// Lines of `text` that `matches`, comment lines skipped unless `comments`.
fn hits(text: &str, comments: bool, matches: impl Fn(&str) -> bool) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| comments || !line.trim_start().starts_with("//"))
        .filter(|(_, line)| matches(line))
        .map(|(i, line)| (i + 1, line.trim().to_owned()))
        .collect()
}

fn assert_doc_says(doc: &str, statement: &str) {
    assert!(
        flat(doc).contains(statement),
        "ARCHITECTURE.md no longer says {statement:?}: update this test to what it says now"
    );
}

#[test]
fn bincode_only_in_the_codec() {
    let root = root();
    // ARCHITECTURE.md, `schema/`: "`codec.rs` is the only module that calls bincode."
    assert_doc_says(
        &architecture(&root),
        "`codec.rs` is the only module that calls bincode",
    );
    let needle = "bincode::";
    let mut problems = Vec::new();
    for file in rust_files(&root) {
        let path = rel(&file, &root);
        if path == "schema/src/codec.rs" || path.starts_with("schema/src/codec/") {
            continue;
        }
        if path == THIS_FILE {
            continue;
        }
        for (line, text) in hits(&read(&file), false, |l| l.contains(needle)) {
            problems.push(format!("{path}:{line}: {text}"));
        }
    }
    assert!(
        problems.is_empty(),
        "`{needle}` outside the codec (schema/src/codec.rs, schema/src/codec/), which alone \
         defines stored bytes (ARCHITECTURE.md, `schema/`):\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn engine_never_names_redb() {
    let root = root();
    // ARCHITECTURE.md, `engine/`: "`engine` depends on `schema` only; it never names redb."
    assert_doc_says(&architecture(&root), "it never names redb");
    let engine = root.join("engine");
    let mut files = rust_files(&engine.join("src"));
    files.push(engine.join("Cargo.toml"));
    let mut problems = Vec::new();
    for file in files {
        let text = read(&file);
        for (line, text) in hits(&text, true, |l| l.to_lowercase().contains("redb")) {
            problems.push(format!("{}:{line}: {text}", rel(&file, &root)));
        }
    }
    assert!(
        problems.is_empty(),
        "the engine names redb (ARCHITECTURE.md, `engine/`: it depends on `schema` only and \
         never names redb):\n  {}",
        problems.join("\n  ")
    );
}

/// The engine's files that may read the clock, relative to `engine/src`. ARCHITECTURE.md,
/// `engine/`, the invariant on time: "the caching probe's settle check (`probe_cache.rs` calls
/// `SystemTime::now()` to decide whether a listing is settled)". `probe_cache/tests.rs` is
/// that module's unit tests, which date files in the past; they are not the engine.
const ENGINE_CLOCK_READERS: &[&str] = &["probe_cache.rs", "probe_cache/tests.rs"];

#[test]
fn engine_reads_the_clock_only_where_documented() {
    let root = root();
    assert_doc_says(
        &architecture(&root),
        "(`probe_cache.rs` calls `SystemTime::now()` to decide whether a listing is settled)",
    );
    let src = root.join("engine/src");
    let mut problems = Vec::new();
    for file in rust_files(&src) {
        let path = rel(&file, &src);
        if ENGINE_CLOCK_READERS.contains(&path.as_str()) {
            continue;
        }
        let text = read(&file);
        for needle in ["SystemTime::now", "Instant::now"] {
            for (line, text) in hits(&text, false, |l| l.contains(needle)) {
                problems.push(format!("engine/src/{path}:{line}: {text}"));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the engine reads the clock outside {ENGINE_CLOCK_READERS:?} (ARCHITECTURE.md, \
         `engine/`: the decision core reads no clock; time enters only through the probe). \
         Count calls instead, or document the new reader there and in ENGINE_CLOCK_READERS:\n  \
         {}",
        problems.join("\n  ")
    );
}
