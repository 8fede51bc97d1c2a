//! `bootstrap` as a store's owner sees it: a refusal changes no byte, `--force` replaces the
//! workspace's learned layer so running it twice leaves what once does, and what it leaves
//! passes `check` with zero drift under `recompute`.

use crate::backtest::{CONFIG, small_history};
use crate::common::Env;
use std::path::Path;

/// Runs a subcommand with the backtest tests' config, expecting success.
fn ok(env: &Env, args: &[&str]) -> String {
    let config = env.home().join("bootstrap-config.json");
    std::fs::write(&config, CONFIG).expect("config");
    let mut all = args.to_vec();
    all.extend(["--config", config.to_str().expect("utf-8")]);
    env.ok(&all, b"")
}

fn bootstrap(env: &Env, repo: &Path, store: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "bootstrap",
        repo.to_str().expect("utf-8"),
        "--store",
        store.to_str().expect("utf-8"),
        "--max-files",
        "4",
        "--json",
    ];
    args.extend(extra);
    serde_json::from_str(&ok(env, &args)).expect("JSON report")
}

/// `rates --json`, `history --json` (every entry) and the entries of `key`.
fn learned(env: &Env, store: &Path, key: &str) -> (serde_json::Value, usize, usize) {
    let store = store.to_str().expect("utf-8");
    let rates = serde_json::from_str(&env.ok(&["rates", "--store", store, "--json"], b""))
        .expect("rates JSON");
    let history: serde_json::Value = serde_json::from_str(&env.ok(
        &["history", "--store", store, "--limit", "100000", "--json"],
        b"",
    ))
    .expect("history JSON");
    let entries = history.as_array().expect("entries");
    let mine = entries
        .iter()
        .filter(|e| e["decision"]["workspace"] == key)
        .count();
    (rates, entries.len(), mine)
}

fn assert_clean(env: &Env, store: &Path) {
    let store = store.to_str().expect("utf-8");
    let check = env.ok(&["check", "--store", store], b"");
    assert!(check.contains("fold invariant    holds"), "{check}");
    for model in ["step", "evidence"] {
        let out = env.ok(
            &["recompute", "--store", store, "--model", model, "--json"],
            b"",
        );
        let drift: serde_json::Value = serde_json::from_str(&out).expect("recompute JSON");
        assert_eq!(drift["rowsDiffering"], 0, "{drift}");
        assert_eq!(drift["maxDifference"], 0.0, "{drift}");
        assert!(drift["rowsCompared"].as_u64().expect("rows") > 0, "{drift}");
    }
}

#[test]
fn force_twice_leaves_what_once_does_and_other_workspaces_alone() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    let store = env.store("boot.redb");
    // Another workspace learned in the same store first.
    env.serve_judges(
        store.to_str().expect("utf-8"),
        &["Documentation/Plans/X.md", "Documentation/INDEX.md"],
    );
    let (before, _, theirs) = learned(&env, &store, &env.key());
    assert!(theirs > 0);

    let first = bootstrap(&env, &repo, &store, &[]);
    let key = first["workspace_key"].as_str().expect("a key").to_string();
    assert!(
        first.get("replaced").is_none(),
        "nothing to replace: {first}"
    );
    let once = learned(&env, &store, &key);
    assert!(once.2 > 0, "the replay recorded history");
    assert!(
        once.0
            .as_array()
            .expect("rows")
            .iter()
            .any(|r| r["workspace"] == key.as_str() && r["companion"] == "docs/*.md"),
        "{}",
        once.0
    );
    assert_clean(&env, &store);

    let second = bootstrap(&env, &repo, &store, &["--force"]);
    assert_eq!(second["replaced"]["history"], once.2, "{second}");
    let twice = learned(&env, &store, &key);
    assert_eq!(
        twice, once,
        "the same rates and history as after one bootstrap"
    );
    assert_clean(&env, &store);
    let third = bootstrap(&env, &repo, &store, &["--force"]);
    assert_eq!(third["replaced"], second["replaced"]);
    assert_eq!(learned(&env, &store, &key), once);

    // The other workspace's rows are those it had before any bootstrap.
    let rows_of = |rates: &serde_json::Value, ws: &str| -> Vec<serde_json::Value> {
        rates
            .as_array()
            .expect("rows")
            .iter()
            .filter(|r| r["workspace"] == ws)
            .cloned()
            .collect()
    };
    assert_eq!(rows_of(&twice.0, &env.key()), rows_of(&before, &env.key()));
}

#[test]
fn a_refused_bootstrap_leaves_the_store_byte_for_byte() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    let store = env.store("boot.redb");
    bootstrap(&env, &repo, &store, &[]);
    let bytes = std::fs::read(&store).expect("store");
    let out = env.run(
        &[
            "bootstrap",
            repo.to_str().expect("utf-8"),
            "--store",
            store.to_str().expect("utf-8"),
            "--max-files",
            "4",
        ],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("already holds history") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(std::fs::read(&store).expect("store"), bytes);

    // A file that is no store is refused as it is, not replaced by a memory fallback.
    let junk = env.store("junk.redb");
    std::fs::write(&junk, b"not a store").expect("junk");
    let out = env.run(
        &[
            "bootstrap",
            repo.to_str().expect("utf-8"),
            "--store",
            junk.to_str().expect("utf-8"),
            "--max-files",
            "4",
            "--force",
        ],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot use the store") && err.contains("junk.redb"),
        "{err}"
    );
    assert_eq!(std::fs::read(&junk).expect("junk"), b"not a store");
}

#[test]
fn rev_replays_the_history_up_to_it_only() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    // The kept commits of the small history are c1, c2, c3 and c6; HEAD~3 is c3.
    let store = env.store("boot.redb");
    let report = bootstrap(&env, &repo, &store, &["--rev", "HEAD~3"]);
    assert_eq!(report["commits"], 3, "{report}");
    let full = bootstrap(&env, &repo, &store, &["--force"]);
    assert_eq!(full["commits"], 4, "{full}");
    assert_ne!(report["tip"], full["tip"]);
    assert_clean(&env, &store);
}
