//! The inspection commands open the store read-only: they never change the file's bytes, read
//! a file that was not closed cleanly, and read a copy of one a server holds.

use crate::common::Env;
use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;

/// The commands that only read the store, each with its arguments after `--store`.
const INSPECTIONS: &[&[&str]] = &[
    &["rates", "--json"],
    &["rates"],
    &["history", "--json"],
    &["check"],
    &["export"],
    &["evaluate", "--json"],
];

fn learn(env: &Env, store: &str) {
    let dir = env.home().join("demo-ws").display().to_string();
    env.ok(
        &["demo", "--store", store, "--dir", &dir, "--calls", "120"],
        b"",
    );
}

fn inspect_all(env: &Env, store: &str) {
    for args in INSPECTIONS {
        let mut full = vec![args[0], "--store", store];
        full.extend(&args[1..]);
        let out = env.ok(&full, b"");
        assert!(!out.is_empty(), "{full:?} printed nothing");
    }
}

#[test]
fn inspection_never_changes_the_store_bytes() {
    let env = Env::new();
    let store = env.store("s.redb");
    let name = store.display().to_string();
    learn(&env, &name);
    // Readable only. Root ignores the mode, so the bytes are what the test holds to.
    let mut perms = std::fs::metadata(&store).expect("stat").permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&store, perms).expect("chmod");
    let before = std::fs::read(&store).expect("read");
    inspect_all(&env, &name);
    assert!(
        std::fs::read(&store).expect("read") == before,
        "bytes changed"
    );
    let check = env.ok(&["check", "--store", &name], b"");
    assert!(check.trim_end().ends_with("ok"), "{check}");
}

#[test]
fn a_store_left_by_a_killed_server_is_inspected_without_a_write() {
    let env = Env::new();
    let store = env.store("s.redb");
    let name = store.display().to_string();
    learn(&env, &name);
    let ws = env.ws().display().to_string();
    // Immediate durability: the judge's answer then means its pending record is on disk.
    let config = env.store("immediate.json");
    std::fs::write(&config, r#"{"durability": "immediate"}"#).expect("write the config");
    let config = config.display().to_string();
    let mut child = env
        .command(&["serve", "--store", &name, "--config", &config])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    // A note leaves a pending decision; its answer means it was committed.
    let judge = serde_json::json!({"id": 1, "op": "judge", "agent": "a", "tool": "read",
        "path": "Documentation/Plans/X.md", "cwd": ws});
    writeln!(stdin, "{judge}").expect("write");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("an answer");
    assert!(line.contains("\"ok\":true"), "{line}");

    // While the server holds the file: read through a copy of it, nothing written.
    let held = std::fs::read(&store).expect("read");
    inspect_all(&env, &name);
    let check = env.ok(&["check", "--store", &name], b"");
    assert!(check.contains("held by another process"), "{check}");
    assert!(check.contains("1 pending decision(s)"), "{check}");
    assert!(check.trim_end().ends_with("ok"), "{check}");
    assert!(
        std::fs::read(&store).expect("read") == held,
        "bytes changed"
    );

    child.kill().expect("kill the server");
    child.wait().expect("reap the server");
    drop(stdin);
    let before = std::fs::read(&store).expect("read");
    inspect_all(&env, &name);
    assert!(
        std::fs::read(&store).expect("read") == before,
        "bytes changed"
    );
    let check = env.ok(&["check", "--store", &name], b"");
    assert!(check.contains("not closed cleanly"), "{check}");
    assert!(check.contains("1 pending decision(s)"), "{check}");
    assert!(check.trim_end().ends_with("ok"), "{check}");
}
