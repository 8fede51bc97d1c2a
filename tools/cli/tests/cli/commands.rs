//! Help for every subcommand, and actionable errors.

use crate::common::Env;

#[test]
fn every_subcommand_has_help() {
    let env = Env::new();
    for sub in [
        "serve",
        "replay",
        "demo",
        "rates",
        "history",
        "check",
        "migrate",
        "recompute",
        "evaluate",
        "export",
        "import",
        "backtest",
        "bootstrap",
    ] {
        let out = env.ok(&[sub, "--help"], b"");
        assert!(
            out.contains(&format!("Usage: docsuggest {sub}")),
            "{sub}: {out}"
        );
    }
    let top = env.ok(&["--help"], b"");
    assert!(top.contains("demo") && top.contains("serve"), "{top}");
}

#[test]
fn inspecting_a_missing_store_says_what_to_do() {
    let env = Env::new();
    let missing = env.store("none.redb").display().to_string();
    let out_file = env.home().join("export.jsonl").display().to_string();
    for args in [
        vec!["rates", "--store", &missing],
        vec!["history", "--store", &missing],
        vec!["check", "--store", &missing],
        vec!["migrate", "--store", &missing],
        vec!["export", "--store", &missing],
        vec!["export", "--store", &missing, "--out", &out_file],
    ] {
        let out = env.run(&args, b"");
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("no store at {missing}")),
            "{args:?}: {err}"
        );
        assert!(
            !std::path::Path::new(&missing).exists(),
            "{args:?} created the store"
        );
    }
}

#[test]
fn check_and_migrate_a_healthy_store_and_refuse_a_foreign_file() {
    let env = Env::new();
    let store = env.store("s.redb").display().to_string();
    env.serve_judges(
        &store,
        &["Documentation/Plans/X.md", "Documentation/INDEX.md"],
    );
    let check = env.ok(&["check", "--store", &store], b"");
    assert!(check.contains("redb page check   passed"), "{check}");
    assert!(
        check.contains("fold invariant    holds (2 keys checked, 2 history entries)"),
        "{check}"
    );
    assert!(check.trim_end().ends_with("ok"), "{check}");
    let recompute = env.ok(&["recompute", "--store", &store], b"");
    assert!(
        recompute.contains("  rows compared     2\n  rows differing    0 "),
        "{recompute}"
    );
    assert!(
        recompute.ends_with("live rates equal the recompute; nothing to write\n"),
        "{recompute}"
    );
    let written = env.ok(&["recompute", "--store", &store, "--write"], b"");
    assert!(written.ends_with("wrote 2 recomputed rows\n"), "{written}");
    let migrate = env.ok(&["migrate", "--store", &store], b"");
    assert_eq!(
        migrate,
        format!("store {store}: schema v5 is current; nothing to do\n")
    );
    let foreign = env.store("foreign.redb");
    std::fs::write(&foreign, "plain text, not a database").expect("write");
    let out = env.run(&["check", "--store", &foreign.display().to_string()], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("is corrupt or not a docsuggest store"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&foreign).expect("read"),
        "plain text, not a database",
        "a foreign file is never rewritten"
    );
}

#[test]
fn rates_and_history_commands_show_what_was_learned() {
    let env = Env::new();
    let store = env.store("s.redb").display().to_string();
    env.serve_judges(
        &store,
        &["Documentation/Plans/X.md", "Documentation/INDEX.md"],
    );
    let ws = env.ws().display().to_string();
    let by_dir: serde_json::Value = serde_json::from_str(&env.ok(
        &[
            "rates",
            "--store",
            &store,
            "--workspace",
            &format!("{ws}/Documentation"),
            "--json",
        ],
        b"",
    ))
    .expect("json");
    let by_key: serde_json::Value = serde_json::from_str(&env.ok(
        &["rates", "--store", &store, "--key", &env.key(), "--json"],
        b"",
    ))
    .expect("json");
    assert_eq!(by_dir, by_key);
    assert_eq!(by_dir.as_array().map(Vec::len), Some(2));
    assert_eq!(by_dir[1]["workspace"], env.key());
    assert_eq!(by_dir[1]["companion"], "Documentation/INDEX.md");
    let table = env.ok(&["rates", "--store", &store], b"");
    assert!(table.contains("Documentation/INDEX.md"), "{table}");
    let history: serde_json::Value =
        serde_json::from_str(&env.ok(&["history", "--store", &store, "--json"], b""))
            .expect("json");
    // The accepted note, then the Index silence, whose shadow window was still open at the
    // end of input and so closed as abandoned.
    let outcomes: Vec<&str> = history
        .as_array()
        .expect("an array")
        .iter()
        .map(|e| e["decision"]["outcome"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(outcomes, ["accepted", "abandoned"]);
    assert_eq!(history[1]["decision"]["silence"], "low-confidence");
    let last: serde_json::Value = serde_json::from_str(&env.ok(
        &["history", "--store", &store, "--limit", "1", "--json"],
        b"",
    ))
    .expect("json");
    assert_eq!(last.as_array().map(Vec::len), Some(1));
    assert_eq!(last[0]["decision"]["family"], "Index");
}

#[test]
fn evaluate_compares_settings_and_writes_nothing() {
    let env = Env::new();
    let store = env.store("s.redb").display().to_string();
    env.serve_judges(
        &store,
        &[
            "Documentation/Plans/X.md",
            "Documentation/INDEX.md",
            "Documentation/ARCHIVE-STYLE.md",
        ],
    );
    let config = env.store("alt.json");
    std::fs::write(&config, r#"{"threshold": 0.5}"#).expect("write");
    let before = env.ok(&["export", "--store", &store], b"");
    let out = env.ok(
        &[
            "evaluate",
            "--store",
            &store,
            "--config",
            &config.display().to_string(),
            "--json",
        ],
        b"",
    );
    assert_eq!(
        before,
        env.ok(&["export", "--store", &store], b""),
        "evaluate wrote"
    );
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let row = |i: usize| {
        let s = &report["settings"][i];
        (
            s["setting"].as_str().unwrap_or("").to_string(),
            s["emitted"].as_u64(),
            s["accepted"].as_u64(),
            s["rejected"].as_u64(),
            s["unresolved"].as_u64(),
            s["precision"].as_f64(),
            s["shadow_recall"].as_f64(),
        )
    };
    assert_eq!(
        row(0),
        (
            "recorded".into(),
            Some(1),
            Some(1),
            Some(0),
            Some(0),
            Some(1.0),
            Some(0.5)
        )
    );
    assert_eq!(
        row(1),
        (
            "defaults".into(),
            Some(1),
            Some(1),
            Some(0),
            Some(0),
            Some(1.0),
            Some(0.5)
        )
    );
    assert_eq!(
        row(2),
        (
            "alternative".into(),
            Some(3),
            Some(2),
            Some(0),
            Some(1),
            Some(1.0),
            Some(1.0)
        )
    );
    let human = env.ok(&["evaluate", "--store", &store], b"");
    assert!(human.contains("3 decisions replayed"), "{human}");
    let recompute = env.ok(
        &["recompute", "--store", &store, "--model", "beta", "--json"],
        b"",
    );
    let drift: serde_json::Value = serde_json::from_str(&recompute).expect("JSON");
    assert_eq!(drift["rowsDiffering"], 0);
    let rates: serde_json::Value =
        serde_json::from_str(&env.ok(&["rates", "--store", &store, "--json"], b"")).expect("JSON");
    let live = rates.as_array().map(Vec::len).unwrap_or(0);
    // The accepted Plan note (INDEX and the family) and the Index silence whose would-be
    // companion was then touched (ARCHIVE-STYLE and the family): at least four rows.
    assert!(live >= 4, "{rates}");
    assert_eq!(drift["rowsCompared"].as_u64(), Some(live as u64));
}

#[test]
fn migrate_upgrades_the_v1_fixture_keeping_every_history_entry() {
    let env = Env::new();
    let store = env.store("v1.redb");
    let fixture =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/store-v1.redb");
    std::fs::copy(&fixture, &store).expect("copy the fixture");
    let store = store.display().to_string();
    let migrate = env.ok(&["migrate", "--store", &store], b"");
    assert!(
        migrate.contains("v1") && migrate.contains("v5"),
        "{migrate}"
    );
    let history: serde_json::Value =
        serde_json::from_str(&env.ok(&["history", "--store", &store, "--json"], b""))
            .expect("json");
    // The fixture's ring of 4 holds resolutions 2..=5 (1 lives on in base); its pending
    // decision 6 closes as abandoned when the store first opens.
    let seqs: Vec<u64> = history
        .as_array()
        .expect("an array")
        .iter()
        .filter_map(|e| e["resolution_seq"].as_u64())
        .collect();
    assert_eq!(seqs, [2, 3, 4, 5, 6], "{history}");
    let check = env.ok(&["check", "--store", &store], b"");
    assert!(check.trim_end().ends_with("ok"), "{check}");
    let rates: serde_json::Value =
        serde_json::from_str(&env.ok(&["rates", "--store", &store, "--json"], b"")).expect("json");
    for row in rates.as_array().expect("rows") {
        assert_eq!(row["shadowHits"], 0, "{row}");
        assert!(row["evidence"].as_f64().is_some(), "{row}");
        // v1 learned accepts and rejects only: the recent evidence is theirs, each weighing
        // at most one.
        let recent = row["recentHits"].as_f64().expect("recentHits");
        assert!(recent <= row["accepts"].as_f64().expect("accepts"), "{row}");
        assert!(row["recentMisses"].as_f64().is_some(), "{row}");
    }
}
