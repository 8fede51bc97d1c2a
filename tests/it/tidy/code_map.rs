//! Tidy: the code map (`code_map_names_every_module`, `code_map_names_no_missing_module`).
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

use std::collections::BTreeSet;
use std::ops::Range;

use super::{architecture, code_spans, members, rel, root, rust_files};

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
