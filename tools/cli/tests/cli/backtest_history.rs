//! `backtest` judges each commit against the tree as it was: a companion that did not exist
//! yet is never named (nor missed), a deleted one stops being named, a file the commit adds
//! appears at its own call; and each engine run's calibration table.

use crate::backtest::{CONFIG, json, run};
use crate::common::Env;
use docsuggest_history::testkit::repository;
use std::collections::BTreeMap;
use std::path::Path;

const PACK: &str = r#"{"signature": ["LICENSE"], "families": [
  {"name": "Src", "kind": "doc", "rules": ["src/*.rs"],
   "companions": [{"path": "docs/*.md", "prior": 1.0}, {"path": "CHANGELOG.md", "prior": 1.0}]}]}"#;

/// A history whose companions come and go: the root adds `src/a.rs`, then `docs/a.md` (so no
/// note can name it at the trigger's call), `LICENSE` and the pack; c1 src+docs; c2 src;
/// c3 adds `CHANGELOG.md` alone (no family); c4 src+CHANGELOG; c5 deletes `docs/a.md` alone
/// (no family); c6 src+CHANGELOG. The tip holds CHANGELOG and no docs at all.
fn coming_and_going(dir: &Path) {
    let mut s: BTreeMap<String, String> = [
        ("src/a.rs", "0"),
        ("docs/a.md", "0"),
        ("LICENSE", "0"),
        (".dsh/doc-pack.json", PACK),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut states = vec![s.clone()];
    for (i, (change, gone)) in [
        (&["src/a.rs", "docs/a.md"][..], None),
        (&["src/a.rs"][..], None),
        (&["CHANGELOG.md"][..], None),
        (&["src/a.rs", "CHANGELOG.md"][..], None),
        (&[][..], Some("docs/a.md")),
        (&["src/a.rs", "CHANGELOG.md"][..], None),
    ]
    .into_iter()
    .enumerate()
    {
        for p in change {
            s.insert(p.to_string(), format!("{}", i + 1));
        }
        if let Some(p) = gone {
            s.remove(p);
        }
        states.push(s.clone());
    }
    repository(dir, &states);
}

#[test]
fn each_commit_is_judged_against_the_tree_it_was_made_on() {
    let env = Env::new();
    let repo = env.home().join("repo");
    coming_and_going(&repo);
    let r = json(&env, &["backtest", repo.to_str().expect("utf-8"), "--json"]);
    assert_eq!(r["kept"], 5, "{r}");
    assert_eq!(r["skipped"]["no_family"], 2, "{r}");
    assert_eq!(
        r["scratch_workspace"], false,
        "the work tree holds the pack"
    );
    let s = run(&r, "static");
    // The root's trigger comes before the commit writes docs/a.md: nothing exists to name, no
    // note. c1 names docs (hit), c2 docs (miss): CHANGELOG did not exist yet, so it is neither
    // named nor missed; c4 names both (CHANGELOG hits); c6 CHANGELOG alone (hit), docs/a.md
    // being gone. Against the tip's files (CHANGELOG, no docs) every note would have named
    // CHANGELOG alone: 4 named, 2 hits, docs never.
    assert_eq!(s["notes"], 4, "{s}");
    let rates = &s["companion_hit_rate"];
    assert_eq!(rates["Src CHANGELOG.md"]["named"], 2, "{s}");
    assert_eq!(rates["Src CHANGELOG.md"]["hit_rate"], 1.0);
    assert_eq!(rates["Src docs/*.md"]["named"], 3, "{s}");
    assert_eq!(s["companions_named"], 5);
    assert_eq!(s["companion_precision"], 0.6);
    assert_eq!(s["note_precision"], 0.75);
    // The root's docs/a.md and c1's were coverable after the trigger; c1's was named.
    assert_eq!(s["recall_trigger"], 0.75, "{s}");

    // Bootstrap records under the work tree's key, as a session there would.
    let store = env.store("boot.redb");
    let store_arg = store.to_str().expect("utf-8");
    let repo_arg = repo.to_str().expect("utf-8");
    let boot = json(
        &env,
        &["bootstrap", repo_arg, "--store", store_arg, "--json"],
    );
    // The learning engine's notes, the same as the backtest's.
    assert_eq!(boot["notes"], run(&r, "learning")["notes"], "{boot}");
    let all: serde_json::Value =
        serde_json::from_str(&env.ok(&["rates", "--store", store_arg, "--json"], b""))
            .expect("rates JSON");
    let rows = all.as_array().expect("rows");
    assert!(
        rows.iter().any(|row| row["companion"] == "CHANGELOG.md"),
        "{all}"
    );
    assert!(
        rows.iter()
            .all(|row| row["workspace"] == boot["workspace_key"]),
        "every row is the work tree's: {all} {boot}"
    );
}

#[test]
fn every_engine_run_has_a_calibration_table_and_the_table_shows_its_error() {
    let env = Env::new();
    let repo = env.home().join("repo");
    coming_and_going(&repo);
    let path = repo.to_str().expect("utf-8");
    let r = json(&env, &["backtest", path, "--json"]);
    for name in ["co-change k2 c0.5", "co-change k1 c0.2"] {
        assert!(run(&r, name).get("calibration").is_none(), "{name}: {r}");
    }
    let mut eces = Vec::new();
    for name in ["static", "learning"] {
        let figures = run(&r, name);
        let bins = figures["calibration"]
            .as_array()
            .expect("a calibration list");
        let notes = figures["notes"].as_u64().expect("notes");
        let mut last_bin = None;
        let (mut total, mut followed, mut error) = (0, 0.0, 0.0);
        for b in bins {
            let (confidence, n, precision) = (
                b["confidence"].as_f64().expect("confidence"),
                b["notes"].as_u64().expect("notes"),
                b["note_precision"].as_f64().expect("precision"),
            );
            assert!(n > 0, "empty bins are left out: {b}");
            assert!((0.0..=1.0).contains(&confidence) && (0.0..=1.0).contains(&precision));
            // Bin i holds [i/10, (i+1)/10): distinct bins, ascending.
            let bin = ((confidence * 10.0) as usize).min(9);
            assert!(last_bin < Some(bin), "{bins:?}");
            last_bin = Some(bin);
            total += n;
            followed += n as f64 * precision;
            error += n as f64 * (confidence - precision).abs();
        }
        assert_eq!(total, notes, "{name}: every note is in a bin");
        let precision = figures["note_precision"].as_f64().expect("note precision");
        assert!((followed - precision * notes as f64).abs() < 1e-9, "{name}");
        eces.push((name, error / total as f64));
    }
    // The static engine's notes: three of one companion (c1, c2, c6: two followed) and one of
    // two (c4, followed) — two confidences, two bins.
    let bins = run(&r, "static")["calibration"].clone();
    let counts: Vec<(u64, f64)> = bins
        .as_array()
        .expect("bins")
        .iter()
        .map(|b| {
            (
                b["notes"].as_u64().expect("n"),
                b["note_precision"].as_f64().expect("p"),
            )
        })
        .collect();
    assert_eq!(counts, [(3, 2.0 / 3.0), (1, 1.0)], "{bins}");

    // The human table shows each engine run's calibration error.
    let config = env.home().join("backtest-config.json");
    std::fs::write(&config, CONFIG).expect("config");
    let human = env.ok(
        &[
            "backtest",
            path,
            "--config",
            config.to_str().expect("utf-8"),
        ],
        b"",
    );
    let header = human
        .lines()
        .find(|l| l.trim_start().starts_with("suggester"))
        .expect("the table's header");
    assert!(header.contains("ece"), "{human}");
    for (name, ece) in eces {
        let line = human
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} line: {human}"));
        assert!(
            line.contains(&format!(" {ece:.3} ")),
            "{name} {ece:.3}: {line}"
        );
    }
}

/// A nested workspace: `sub/` carries a pack of its own (and its signature). The root's pack
/// claims `sub/src/*.rs` too, so the trace keeps the commits that change it.
const SUB_PACK: &str = r#"{"signature": ["LICENSE"], "families": [
  {"name": "Sub", "kind": "doc", "rules": ["src/*.rs"],
   "companions": [{"path": "NOTES.md", "prior": 1.0}, {"path": "src/README.md", "prior": 1.0}]}]}"#;
const ROOT_PACK: &str = r#"{"signature": ["LICENSE"], "families": [
  {"name": "Src", "kind": "doc", "rules": ["src/*.rs", "sub/src/*.rs"],
   "companions": [{"path": "docs/*.md", "prior": 1.0}, {"path": "CHANGELOG.md", "prior": 1.0}]}]}"#;

#[test]
fn a_nested_workspace_is_judged_with_its_pack_of_the_time_and_keyed_as_the_work_trees() {
    let env = Env::new();
    let repo = env.home().join("repo");
    let mut s: BTreeMap<String, String> = [
        ("src/a.rs", "0"),
        ("docs/a.md", "0"),
        ("LICENSE", "0"),
        (".dsh/doc-pack.json", ROOT_PACK),
        ("sub/LICENSE", "0"),
        ("sub/.dsh/doc-pack.json", SUB_PACK),
        ("sub/src/x.rs", "0"),
        ("sub/src/README.md", "0"),
        ("sub/NOTES.md", "0"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut states = vec![s.clone()];
    for (i, change) in [["src/a.rs", "docs/a.md"], ["sub/src/x.rs", "sub/NOTES.md"]]
        .iter()
        .enumerate()
    {
        for p in change {
            s.insert(p.to_string(), format!("{}", i + 1));
        }
        states.push(s.clone());
    }
    repository(&repo, &states);
    let repo_arg = repo.to_str().expect("utf-8");
    // The root (9 files) is bulk at --max-files 4.
    let r = json(&env, &["backtest", repo_arg, "--max-files", "4", "--json"]);
    let s = run(&r, "static");
    // A call in `sub/` is judged in the nested workspace, with its pack read as the commit had
    // it (a scratch holding it empty would fall back to the built-in pack: no `Sub` note).
    assert_eq!(s["by_family"]["Src"]["notes"], 1, "{s}");
    assert_eq!(s["by_family"]["Sub"]["notes"], 1, "{s}");
    assert_eq!(s["companion_hit_rate"]["Sub NOTES.md"]["named"], 1, "{s}");

    let store = env.store("nested.redb");
    let store_arg = store.to_str().expect("utf-8");
    json(
        &env,
        &[
            "bootstrap",
            repo_arg,
            "--store",
            store_arg,
            "--max-files",
            "4",
            "--json",
        ],
    );
    let rows = |workspace: &str| -> Vec<String> {
        let all: serde_json::Value = serde_json::from_str(&env.ok(
            &[
                "rates",
                "--store",
                store_arg,
                "--workspace",
                workspace,
                "--json",
            ],
            b"",
        ))
        .expect("rates JSON");
        all.as_array()
            .expect("rows")
            .iter()
            .map(|row| row["family"].as_str().expect("family").to_string())
            .collect()
    };
    let sub = repo.join("sub");
    let (root_rows, sub_rows) = (rows(repo_arg), rows(sub.to_str().expect("utf-8")));
    assert!(
        !root_rows.is_empty() && root_rows.iter().all(|f| f == "Src"),
        "{root_rows:?}"
    );
    assert!(
        !sub_rows.is_empty() && sub_rows.iter().all(|f| f == "Sub"),
        "{sub_rows:?}"
    );
    // Nothing else: every row is under one of the work tree's two keys.
    let all: serde_json::Value =
        serde_json::from_str(&env.ok(&["rates", "--store", store_arg, "--json"], b""))
            .expect("rates JSON");
    assert_eq!(
        all.as_array().expect("rows").len(),
        root_rows.len() + sub_rows.len(),
        "{all}"
    );
}
