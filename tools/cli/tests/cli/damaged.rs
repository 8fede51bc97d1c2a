//! Damaged store files and tampered exports through the real binary: a store damaged outside
//! redb is refused by every inspection command as corrupt, naming it, with a clean exit (never
//! a panic's 101, never an answer read from it); an export whose entries do not hold together
//! is refused by `import` and nothing is written.
//!
//! The fixtures are one flipped byte of a store built through the store API
//! (`tests/reliability/damaged.rs` regenerates them): `damaged-panics.redb` made redb panic
//! (exit 101) before inspection verified the file, `damaged-silent.redb` was read as different
//! content with exit 0.

use crate::common::Env;
use std::path::{Path, PathBuf};

/// A copy of the kept fixture `name` in the test's HOME (the file is never touched).
fn copy_fixture(env: &Env, name: &str) -> PathBuf {
    let kept = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(name);
    let copy = env.store(name);
    std::fs::copy(&kept, &copy).expect("copy the fixture");
    copy
}

/// Asserts that `args` failed cleanly on the damaged file `store`: exit status 1, nothing on
/// stdout, one line on stderr naming the file as corrupt and saying what to do.
fn assert_refused(env: &Env, args: &[&str], store: &Path) {
    let out = env.run(args, b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
    assert!(out.stdout.is_empty(), "{args:?} printed {:?}", out.stdout);
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    let line = err.trim_end();
    assert!(
        line.starts_with(&format!(
            "docsuggest: error: store {} is corrupt",
            store.display()
        )) && line.contains("restore it from a backup"),
        "{args:?}: {line}"
    );
}

#[test]
fn damaged_store_files_are_refused_by_every_inspection_command() {
    let env = Env::new();
    for name in ["damaged-panics.redb", "damaged-silent.redb"] {
        let store = copy_fixture(&env, name);
        let before = std::fs::read(&store).expect("read");
        let s = store.display().to_string();
        let out = env.home().join("out.jsonl");
        let o = out.display().to_string();
        for args in [
            &["check", "--store", &s][..],
            &["rates", "--store", &s],
            &["rates", "--store", &s, "--json"],
            &["history", "--store", &s],
            &["history", "--store", &s, "--json"],
            &["export", "--store", &s],
            &["export", "--store", &s, "--out", &o],
            &["evaluate", "--store", &s],
        ] {
            assert_refused(&env, args, &store);
        }
        assert!(!out.exists(), "a refused export leaves no file");
        assert_eq!(std::fs::read(&store).expect("read"), before, "{name}");
    }
}

/// A store learned by the demo, and its export.
fn learned(env: &Env, name: &str) -> (String, Vec<String>) {
    let store = env.store(name).display().to_string();
    let dir = env.home().join("demo-ws").display().to_string();
    env.ok(
        &["demo", "--store", &store, "--dir", &dir, "--calls", "120"],
        b"",
    );
    let export = env.ok(&["export", "--store", &store], b"");
    (store, export.lines().map(String::from).collect())
}

#[test]
fn an_import_into_a_damaged_store_is_refused_and_writes_nothing() {
    let env = Env::new();
    let (_, lines) = learned(&env, "a.redb");
    let file = env.home().join("h.jsonl");
    std::fs::write(&file, lines.join("\n") + "\n").expect("write");
    for name in ["damaged-panics.redb", "damaged-silent.redb"] {
        let store = copy_fixture(&env, name);
        let before = std::fs::read(&store).expect("read");
        assert_refused(
            &env,
            &[
                "import",
                &file.display().to_string(),
                "--store",
                &store.display().to_string(),
            ],
            &store,
        );
        assert_eq!(std::fs::read(&store).expect("read"), before, "{name}");
    }
}

#[test]
fn a_tampered_export_is_refused_naming_its_line_and_nothing_is_written() {
    let env = Env::new();
    let (_, lines) = learned(&env, "a.redb");
    let (target, _) = learned(&env, "b.redb");
    let before = std::fs::read(&target).expect("read");
    let entry = |i: usize| -> serde_json::Value { serde_json::from_str(&lines[i]).expect("json") };
    let first = |outcome: &str| {
        (0..lines.len())
            .find(|&i| entry(i)["decision"]["outcome"] == outcome)
            .unwrap_or_else(|| panic!("the demo resolves a note as {outcome}"))
    };
    let with = |i: usize, edit: &dyn Fn(&mut serde_json::Value)| -> Vec<String> {
        let mut v = entry(i);
        edit(&mut v);
        let mut out = lines.clone();
        out[i] = v.to_string();
        out
    };
    let accepted = first("accepted");
    let rejected = first("rejected");
    let cases: Vec<(&str, Vec<String>, usize, &str)> = vec![
        (
            "a resolution number changed",
            with(3, &|v| {
                v["resolution_seq"] = entry(2)["resolution_seq"].clone()
            }),
            4,
            "resolution_seq:",
        ),
        (
            "a line duplicated",
            {
                let mut out = lines.clone();
                out.insert(5, lines[4].clone());
                out
            },
            6,
            "resolution_seq:",
        ),
        (
            "a decision number used twice",
            with(6, &|v| {
                v["decision"]["seq"] = entry(1)["decision"]["seq"].clone()
            }),
            7,
            "decision.seq: decision",
        ),
        (
            "an accepted entry without its companion",
            with(accepted, &|v| {
                v["decision"]["accepted"] = serde_json::Value::Null
            }),
            accepted + 1,
            "accepted without a companion",
        ),
        (
            "a reject moving up",
            with(rejected, &|v| {
                v["moves"][0]["step"] = serde_json::json!(0.2)
            }),
            rejected + 1,
            "moves[0].step: 0.2 is not a reject's step",
        ),
    ];
    let file = env.home().join("tampered.jsonl");
    let fresh = env.store("fresh.redb");
    for (what, text, line, problem) in cases {
        std::fs::write(&file, text.join("\n") + "\n").expect("write");
        for store in [target.clone(), fresh.display().to_string()] {
            let out = env.run(
                &["import", &file.display().to_string(), "--store", &store],
                b"",
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{what}: {err}");
            assert!(
                err.contains(&format!("{}: line {line}: ", file.display()))
                    && err.contains(problem)
                    && err.contains("nothing was imported"),
                "{what}: {err}"
            );
        }
        assert_eq!(std::fs::read(&target).expect("read"), before, "{what}");
        assert!(!fresh.exists(), "{what}: a refused import creates no store");
    }
}

/// A store a newer docsuggest wrote (a later schema version): `serve`, `migrate`,
/// `recompute` and `check` refuse it, naming the version, and not a byte of it changes
/// (redb marks a file's header on a writable open, so it must be refused before one).
#[test]
fn a_store_from_a_future_version_is_refused_and_never_touched() {
    let env = Env::new();
    let store = env.store("future.redb");
    let s = store.display().to_string();
    env.serve_judges(&s, &["Documentation/Plans/X.md"]);
    {
        use redb::ReadableTable;
        let db = redb::Database::create(&store).expect("raw open");
        let txn = db.begin_write().expect("txn");
        let meta: redb::TableDefinition<&str, u64> = redb::TableDefinition::new("meta");
        let version = txn
            .open_table(meta)
            .expect("meta")
            .get("schema_version")
            .expect("get")
            .map(|v| v.value())
            .expect("a version");
        txn.open_table(meta)
            .expect("meta")
            .insert("schema_version", version + 1)
            .expect("insert");
        txn.commit().expect("commit");
    }
    let before = std::fs::read(&store).expect("read");
    let request = format!(
        "{}\n",
        serde_json::json!({"id": 1, "op": "judge", "agent": "a", "tool": "read",
            "path": "Documentation/Plans/X.md", "cwd": env.ws()})
    );
    for (args, input) in [
        (&["serve", "--store", &s][..], request.as_bytes()),
        (&["migrate", "--store", &s], b""),
        (&["recompute", "--store", &s], b""),
        (&["check", "--store", &s], b""),
    ] {
        let out = env.run(args, input);
        let said = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!said.contains("panicked"), "{args:?}: {said}");
        assert!(
            said.contains("newer than the supported version"),
            "{args:?}: {said}"
        );
        assert!(
            std::fs::read(&store).expect("read") == before,
            "{args:?} wrote to the file"
        );
    }
}
