//! `docsuggest demo` run twice on one store: the second run starts where the first ended; its
//! own store by default, never the one the hooks learn in.

use crate::common::Env;
use serde_json::Value;

fn demo(env: &Env, store: &str, dir: &str) -> Value {
    let out = env.ok(
        &[
            "demo", "--store", store, "--dir", dir, "--calls", "200", "--json",
        ],
        b"",
    );
    serde_json::from_str(&out).expect("a JSON report")
}

#[test]
fn a_second_run_starts_where_the_first_ended() {
    let env = Env::new();
    let store = env.store("demo.redb").display().to_string();
    let dir = env.home().join("demo-ws").display().to_string();
    let first = demo(&env, &store, &dir);
    let second = demo(&env, &store, &dir);
    assert_eq!(first["store"], "redb");
    assert_eq!(first["ratesBefore"], serde_json::json!([]));
    let learned = first["ratesAfter"].as_array().expect("rows");
    assert!(learned.len() >= 4, "{learned:?}");
    assert_eq!(second["ratesBefore"], first["ratesAfter"]);
    assert_eq!(first["key"], second["key"], "the workspace key is stable");
    assert_eq!(
        first["summary"]["judged"].as_u64().map(|n| n <= 200),
        Some(true)
    );
    assert!(
        first["summary"]["notes"].as_u64() > Some(10),
        "{}",
        first["summary"]
    );
    assert!(
        first["summary"]["accepts"].as_u64() > Some(5),
        "{}",
        first["summary"]
    );
    // The usually-followed companion rose; its accepts kept counting across the restart.
    let index = |report: &Value| -> Value {
        report["ratesAfter"]
            .as_array()
            .and_then(|rows| {
                rows.iter()
                    .find(|r| r["family"] == "Plan" && r["companion"] == "Documentation/INDEX.md")
                    .cloned()
            })
            .expect("the Plan/INDEX row")
    };
    assert!(index(&first)["rate"].as_f64() > Some(1.0 / 3.0));
    assert!(index(&second)["accepts"].as_u64() > index(&first)["accepts"].as_u64());
    // The trace is kept for replay.
    let trace = first["trace"].as_str().expect("a trace path");
    assert!(
        std::fs::read_to_string(trace)
            .expect("trace")
            .lines()
            .count()
            >= 200
    );
    // The human report names the store and the rates table.
    let human = env.ok(
        &["demo", "--store", &store, "--dir", &dir, "--calls", "50"],
        b"",
    );
    assert!(human.contains("learned rates of "), "{human}");
    assert!(human.contains(&store), "{human}");
}

#[test]
fn the_demo_never_deletes_a_foreign_directory() {
    let env = Env::new();
    let dir = env.home().join("mine");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("notes.txt"), "keep me").expect("write");
    let store = env.store("demo.redb").display().to_string();
    let out = env.run(
        &[
            "demo",
            "--store",
            &store,
            "--dir",
            &dir.display().to_string(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a demo workspace"));
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).expect("kept"),
        "keep me"
    );
}

/// The demo learns in a store of its own, never in the one the hooks learn in: that file is
/// not even created, and nothing on stderr reads as an error.
#[test]
fn the_demo_learns_in_its_own_store_never_the_hooks() {
    let env = Env::new();
    let dir = env.home().join("demo-ws").display().to_string();
    let out = env.run(&["demo", "--dir", &dir, "--calls", "50", "--json"], b"");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    let own = env.home().join(".dsh/playform/demo.redb");
    assert_eq!(report["storePath"], own.display().to_string(), "{report}");
    assert_eq!(report["store"], "redb", "{report}");
    assert!(own.exists());
    let hooks = env.home().join(".dsh/playform/hook-dsh-doc-suggester.redb");
    assert!(!hooks.exists(), "the demo opened the hooks' store");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("ERROR"), "{stderr}");
}

/// Beside a process holding the hooks' store (their daemon) the demo runs as without one: on
/// its own store, with no error about the held file; a store it cannot use at all is said
/// too, never "the rates start where this run ended".
#[test]
fn a_held_hooks_store_is_no_concern_of_the_demo_and_memory_is_never_called_kept() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    let env = Env::new();
    let default = env.home().join(".dsh/playform/hook-dsh-doc-suggester.redb");
    let mut holder = env
        .command(&["serve", "--store", &default.display().to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut input = holder.stdin.take().expect("stdin");
    writeln!(input, r#"{{"id":1,"op":"hello"}}"#).expect("hello");
    let mut hello = String::new();
    BufReader::new(holder.stdout.take().expect("stdout"))
        .read_line(&mut hello)
        .expect("serve answers");
    assert!(hello.contains(r#""store":"redb""#), "{hello}");

    let dir = env.home().join("demo-ws").display().to_string();
    let out = env.run(&["demo", "--dir", &dir, "--calls", "50", "--json"], b"");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("ERROR"), "{stderr}");
    assert!(!stderr.contains("locked"), "{stderr}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
    assert_eq!(report["store"], "redb", "{report}");
    let own = env.home().join(".dsh/playform/demo.redb");
    assert_eq!(report["storePath"], own.display().to_string(), "{report}");
    let human = env.ok(&["demo", "--dir", &dir, "--calls", "50"], b"");
    assert!(
        human.contains("the rates start where this run ended"),
        "{human}"
    );

    // The held file named with --store: the run is on memory, and says nothing was kept.
    let held = env.ok(
        &[
            "demo",
            "--store",
            &default.display().to_string(),
            "--dir",
            &dir,
            "--calls",
            "50",
        ],
        b"",
    );
    assert!(held.contains("learned on memory"), "{held}");
    assert!(!held.contains("start where this run ended"), "{held}");
    drop(input);
    assert!(holder.wait().expect("serve ends").success());
}
