//! Tidy: the invariants. `bincode::` appears only in the codec (`schema/src/codec.rs`,
//! `schema/src/codec/`); the engine (`engine/src`, `engine/Cargo.toml`) never names redb; the
//! engine reads the clock (`SystemTime::now`, `Instant::now`) only where ARCHITECTURE.md says
//! it does. The call checks skip comment lines; the redb check counts comments too.
//! Each of these first checks that ARCHITECTURE.md still says what it checks (quoted), so the
//! test and the document change together.

use super::{architecture, assert_doc_says, read, rel, root, rust_files};

/// This file: it spells the patterns it looks for.
const THIS_FILE: &str = "tests/it/tidy/invariants.rs";

/// Lines of `text` that `matches`, comment lines skipped unless `comments`.
fn hits(text: &str, comments: bool, matches: impl Fn(&str) -> bool) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| comments || !line.trim_start().starts_with("//"))
        .filter(|(_, line)| matches(line))
        .map(|(i, line)| (i + 1, line.trim().to_owned()))
        .collect()
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
