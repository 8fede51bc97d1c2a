//! `backtest --boundary --boundary-learns`: the learning engine is reminded at each commit cut
//! short and learns from the simulated agent's answer, as from a real Stop reminder.

use crate::backtest::json;
use crate::common::Env;
use docsuggest_history::testkit::repository;
use std::collections::BTreeMap;
use std::path::Path;

const PACK: &str = r#"{"signature": ["LICENSE"], "families": [
  {"name": "Src", "kind": "doc", "rules": ["src/*.rs"],
   "companions": [{"path": "docs/*.md", "prior": 1.0}, {"path": "CHANGELOG.md", "prior": 1.0}]}]}"#;

/// Every commit changes `src/a.rs` with `docs/a.md`, and three in five `CHANGELOG.md` too: a
/// note on an edit that names the changelog is followed 60 % of the time, over the bar. Cut
/// short (half of the companion files left out), a change lacks the changelog when its commit
/// has none (naming it is wrong) or when it is the one left out (right): right about
/// 0.3 / 0.7 of the time at the boundary, under the bar.
fn docs_and_some_changelogs(dir: &Path, commits: usize) {
    let mut s: BTreeMap<String, String> = [
        ("src/a.rs", "0"),
        ("docs/a.md", "0"),
        ("CHANGELOG.md", "0"),
        ("LICENSE", "0"),
        (".dsh/doc-pack.json", PACK),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut states = vec![s.clone()];
    for i in 1..=commits {
        for p in ["src/a.rs", "docs/a.md"] {
            s.insert(p.to_string(), i.to_string());
        }
        if i % 5 < 3 {
            s.insert("CHANGELOG.md".to_string(), i.to_string());
        }
        states.push(s.clone());
    }
    repository(dir, &states);
}

/// The learning check's figures on the cut commits at the default bar.
fn learning_cut(report: &serde_json::Value) -> serde_json::Value {
    report["boundary"]["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| c["name"] == "learning")
        .map(|c| c["cut"][0].clone())
        .unwrap_or_else(|| panic!("no learning check: {report}"))
}

#[test]
fn a_companion_the_simulated_agent_keeps_declining_stops_being_named_at_the_boundary() {
    let env = Env::new();
    let repo = env.home().join("repo");
    docs_and_some_changelogs(&repo, 60);
    let backtest = |learns: bool| {
        let mut args = vec![
            "backtest",
            repo.to_str().expect("utf-8"),
            "--max-files",
            "8",
            "--train-fraction",
            "0.1",
            "--boundary",
            "--json",
        ];
        if learns {
            args.push("--boundary-learns");
        }
        learning_cut(&json(&env, &args))
    };
    let learns = backtest(true);
    let alone = backtest(false);
    let share = |figures: &serde_json::Value, field: &str| {
        figures[field]
            .as_f64()
            .unwrap_or_else(|| panic!("no {field}: {figures}"))
    };
    assert!(learns["cut_commits"].as_u64() > Some(40), "{learns}");
    // Reminded, the simulated agent declines the changelog whenever its commit has none: at
    // first it is named, at the end it no longer is, and every reminder is right.
    assert!(
        share(&learns, "named_right_share_first_third") < 1.0,
        "{learns}"
    );
    assert_eq!(
        share(&learns, "named_right_share_last_third"),
        1.0,
        "{learns}"
    );
    // Without reminders to learn from, the boundary reads the edit notes' 60 % and goes on
    // naming the changelog: wrong about once in three.
    assert!(
        share(&alone, "named_right_share_last_third") < 0.8,
        "{alone}"
    );
    assert!(
        share(&alone, "reminders_right_share") < share(&learns, "reminders_right_share"),
        "{alone}\n{learns}"
    );
}

#[test]
fn boundary_learns_needs_the_boundary() {
    let env = Env::new();
    let repo = env.home().join("repo");
    docs_and_some_changelogs(&repo, 2);
    let out = env.run(
        &[
            "backtest",
            repo.to_str().expect("utf-8"),
            "--boundary-learns",
        ],
        b"",
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--boundary"), "{stderr}");
}
