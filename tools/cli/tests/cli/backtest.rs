//! `backtest` and `bootstrap` over small repositories built here with gix, figures computed
//! by hand; `--trace-out` served again gives the backtest's notes; a bootstrapped store
//! starts the learning engine warm.

use crate::common::Env;
use docsuggest_history::testkit::{self, repository, repository_with_raw};
use gix::objs::tree::EntryKind;
use std::collections::BTreeMap;
use std::path::Path;

const PACK: &str = r#"{"signature": ["LICENSE"], "families": [
  {"name": "Src", "kind": "doc", "rules": ["src/*.rs"],
   "companions": [{"path": "docs/*.md", "prior": 1.0}, {"path": "CHANGELOG.md", "prior": 1.0}]}]}"#;

/// Adds a commit on top of the repository in `dir` whose tree also holds `deep/d/d/…/f.txt`,
/// `levels` directories deep: built from tree objects, since no file system holds such a
/// path (git accepts it).
pub fn add_deep_commit(dir: &Path, levels: usize) {
    let repo = gix::open(dir).expect("open");
    let tip = repo.head_commit().expect("a head commit");
    let deep = testkit::deep_tree(&repo, levels);
    let tree = tip.tree_id().expect("the tip's tree").detach();
    let tree = testkit::with_root_entry(&repo, tree, b"deep", EntryKind::Tree, deep);
    let id = testkit::commit(&repo, tree, Some(tip.id), "deep\n");
    testkit::point_head(&repo, id);
}

/// The root commit's files: one `Src` file, its two companions, a licence and the pack.
fn root_state() -> BTreeMap<String, String> {
    [
        ("src/a.rs", "0"),
        ("docs/a.md", "0"),
        ("CHANGELOG.md", "0"),
        ("LICENSE", "0"),
        (".dsh/doc-pack.json", PACK),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect()
}

/// The history of the hand-computed figures: a root (5 files: bulk at --max-files 4), then
/// c1 src+docs, c2 src+CHANGELOG, c3 src alone, c4 LICENSE only (no family), c5 empty,
/// c6 src+docs+CHANGELOG.
pub fn small_history(dir: &Path) {
    let mut s = root_state();
    let mut states = vec![s.clone()];
    let mut change = |s: &mut BTreeMap<String, String>, paths: &[&str], v: &str| {
        for p in paths {
            s.insert(p.to_string(), v.to_string());
        }
        states.push(s.clone());
    };
    change(&mut s, &["src/a.rs", "docs/a.md"], "1");
    change(&mut s, &["src/a.rs", "CHANGELOG.md"], "2");
    change(&mut s, &["src/a.rs"], "3");
    change(&mut s, &["LICENSE"], "4");
    change(&mut s, &[], "5");
    change(&mut s, &["src/a.rs", "docs/a.md", "CHANGELOG.md"], "6");
    repository(dir, &states);
}

/// A gate every trigger of the small history passes (its kappa is 0.72 before learning), and
/// a window (and so the trailing reads) long enough to clear the cooldown between turns.
pub const CONFIG: &str = r#"{"threshold": 0.5, "learnWindow": 40}"#;

/// Runs a subcommand with `--config` (the file [`CONFIG`]) and parses its JSON report.
pub fn json(env: &Env, args: &[&str]) -> serde_json::Value {
    let config = env.home().join("backtest-config.json");
    std::fs::write(&config, CONFIG).expect("config");
    let mut all = args.to_vec();
    all.extend(["--config", config.to_str().expect("utf-8")]);
    serde_json::from_str(&env.ok(&all, b"")).expect("JSON report")
}

pub fn run<'a>(report: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    report["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no run {name}: {report}"))
}

#[test]
fn backtest_figures_match_the_hand_computed_ones() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    let r = json(
        &env,
        &[
            "backtest",
            repo.to_str().expect("utf-8"),
            "--max-files",
            "4",
            "--json",
        ],
    );
    assert_eq!(r["first_parent_commits"], 7, "{r}");
    assert_eq!(r["kept"], 4);
    let skipped = &r["skipped"];
    assert_eq!(
        (&skipped["bulk"], &skipped["no_family"], &skipped["empty"]),
        (&1.into(), &1.into(), &1.into())
    );
    assert_eq!(r["scratch_workspace"], false);
    // One note per kept commit at its trigger, naming both companions: hits c1 1, c2 1,
    // c3 0, c6 2 of 8 named; 3 of 4 notes hit; every coverable file (c1 1, c2 1, c6 2) named.
    let s = run(&r, "static");
    assert_eq!(s["notes"], 4, "{s}");
    assert_eq!(s["notes_per_100_commits"], 100.0);
    assert_eq!(s["companions_named"], 8);
    assert_eq!(s["companion_precision"], 0.5);
    assert_eq!(s["note_precision"], 0.75);
    assert_eq!(s["recall_trigger"], 1.0);
    assert_eq!(s["nag_per_100_commits"], 25.0);
    assert_eq!(s["companion_precision_h1"], 0.5);
    assert_eq!(s["companion_precision_h2"], 0.5);
    assert_eq!(s["note_precision_h1"], 1.0);
    assert_eq!(s["note_precision_h2"], 0.5);
    assert_eq!(s["companion_hit_rate"]["Src docs/*.md"]["hit_rate"], 0.5);
    assert_eq!(s["companion_hit_rate"]["Src CHANGELOG.md"]["hit_rate"], 0.5);
    assert_eq!(s["by_family"]["Src"]["notes"], 4);
    // Co-change k1 c0.2: nothing at c1; c2 names docs (miss); c3 names docs and CHANGELOG
    // (both miss); c6 names both (both hit): 3 notes, 2 of 5 named hit, 2 nags, recall 2/4.
    let k1 = run(&r, "co-change k1 c0.2");
    assert_eq!(k1["notes"], 3, "{k1}");
    assert_eq!(k1["companions_named"], 5);
    assert_eq!(k1["companion_precision"], 0.4);
    assert_eq!(k1["nag_per_100_commits"], 50.0);
    assert_eq!(k1["recall_trigger"], 0.5);
    // k2 c0.5: no pair reaches support 2 at confidence 0.5 before c6 (1 of 3).
    let k2 = run(&r, "co-change k2 c0.5");
    assert_eq!(k2["notes"], 0, "{k2}");
    assert_eq!(k2["companion_precision"], serde_json::Value::Null);
    assert_eq!(k2["recall_trigger"], 0.0);
}

#[test]
fn the_boundary_check_is_scored_on_real_commits_and_simulated_misses() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    let r = json(
        &env,
        &[
            "backtest",
            repo.to_str().expect("utf-8"),
            "--max-files",
            "4",
            "--boundary",
            "--json",
        ],
    );
    let b = &r["boundary"];
    // Companion files of the pack in use: c1 docs, c2 CHANGELOG, c6 both (c3 has none).
    assert_eq!(b["simulated_misses"], 4, "{b}");
    assert_eq!(b["commits"], 4);
    let check = |name: &str| {
        b["checks"]
            .as_array()
            .expect("checks")
            .iter()
            .find(|c| c["name"] == name)
            .unwrap_or_else(|| panic!("no check {name}: {b}"))
            .clone()
    };
    // Only `src/a.rs` gets a note (docs/*.md and CHANGELOG.md, kappa 0.72): c1 lacks the
    // changelog, c2 the docs, c3 both, c6 nothing: 4 alarms in 3 of 4 commits. Each left-out
    // companion file is named by the source's note: 4 of 4 caught.
    let s = check("static");
    assert_eq!(
        s["at_default"]["false_alarms_per_100_commits"], 100.0,
        "{s}"
    );
    assert_eq!(s["at_default"]["commits_alarmed_per_100"], 75.0);
    assert_eq!(s["at_default"]["misses_caught"], 4);
    assert_eq!(s["at_default"]["caught_share"], 1.0);
    // Within 10 alarms per 100 commits only a bar above every note is left: nothing caught.
    assert_eq!(s["within_budget"]["false_alarms_per_100_commits"], 0.0);
    assert_eq!(s["within_budget"]["misses_caught"], 0);
    // Cut short as an agent leaves a change (half of each commit's companion files, at least
    // one, left out): c1 and c2 each lose their one companion file and the note names both
    // (one right, one wrong); c6 loses one of two and the note names just that one (right).
    // 3 reminders in 3 cut commits, 1 of them right; 3 of 5 files named right; every
    // left-out file named. The pack has no validated figures and the static engine learns
    // nothing: no claim has evidence, so none would block (the block bar names nothing).
    let cut = s["cut"].as_array().expect("cut points");
    assert_eq!(cut.len(), 2, "{s}");
    assert_eq!((&cut[0]["bar"], &cut[1]["bar"]), (&0.0.into(), &0.7.into()));
    let point = &cut[0];
    assert_eq!(point["cut_commits"], 3, "{point}");
    assert_eq!(point["reminders_per_100_commits"], 100.0);
    assert_eq!(point["reminders_right_share"], 1.0 / 3.0);
    assert_eq!(point["named_right_share"], 0.6);
    assert_eq!(point["left_out_named_share"], 1.0);
    assert_eq!(point["uncut_reminders_per_100_commits"], 75.0);
    // At every Stop, c3 (nothing to leave out) meets it whole and is reminded wrongly of
    // both: 4 reminders in 4 stops, the 1 right one of them.
    assert_eq!(point["every_stop_reminders_per_100_commits"], 100.0);
    assert_eq!(point["every_stop_right_share"], 0.25);
    let blocks = &cut[1];
    assert_eq!(blocks["cut_commits"], 3, "{blocks}");
    assert_eq!(blocks["reminders_per_100_commits"], 0.0);
    assert!(blocks["reminders_right_share"].is_null(), "{blocks}");
    assert_eq!(blocks["left_out_named_share"], 0.0);
    assert_eq!(blocks["uncut_reminders_per_100_commits"], 0.0);
    assert_eq!(blocks["every_stop_reminders_per_100_commits"], 0.0);
    assert!(blocks["every_stop_right_share"].is_null(), "{blocks}");
    // No pair reaches support 2 before c6: co-change names nothing.
    let cc = check("co-change k2");
    assert_eq!(
        cc["at_default"]["false_alarms_per_100_commits"], 0.0,
        "{cc}"
    );
    assert_eq!(cc["at_default"]["misses_caught"], 0);
    assert_eq!(cc["within_budget"]["bar"], 0.5);
    let cc_cut = &cc["cut"][0];
    assert_eq!(cc_cut["reminders_per_100_commits"], 0.0, "{cc}");
    assert_eq!(cc_cut["reminders_right_share"], serde_json::Value::Null);
    assert_eq!(cc_cut["left_out_named_share"], 0.0);
    // Without --boundary the report has no such section.
    let plain = json(
        &env,
        &[
            "backtest",
            repo.to_str().expect("utf-8"),
            "--max-files",
            "4",
            "--json",
        ],
    );
    assert!(plain.get("boundary").is_none(), "{plain}");
}

#[test]
fn train_fraction_scores_only_the_rest() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    let path = repo.to_str().expect("utf-8");
    let r = json(
        &env,
        &[
            "backtest",
            path,
            "--max-files",
            "4",
            "--train-fraction",
            "0.5",
            "--json",
        ],
    );
    assert_eq!(
        (&r["training_commits"], &r["scored_commits"]),
        (&2.into(), &2.into())
    );
    // c3 (both miss) and c6 (both hit).
    let s = run(&r, "static");
    assert_eq!(
        (&s["notes"], &s["companion_precision"]),
        (&2.into(), &0.5.into()),
        "{s}"
    );
}

/// The notes `serve` answers for a trace, as (request id, family, companions).
fn served_notes(env: &Env, trace: &Path, workspace: &Path) -> Vec<(u64, String, Vec<String>)> {
    let ws = workspace.display().to_string();
    let mut input = String::new();
    for line in std::fs::read_to_string(trace).expect("trace").lines() {
        let mut v: serde_json::Value = serde_json::from_str(line).expect("a JSON line");
        v["cwd"] = ws.clone().into();
        input.push_str(&format!("{v}\n"));
    }
    let config = env.home().join("static.json");
    std::fs::write(
        &config,
        r#"{"learn": false, "threshold": 0.5, "learnWindow": 40}"#,
    )
    .expect("config");
    let config = config.to_str().expect("utf-8");
    let out = env.ok(&["serve", "--memory", "--config", config], input.as_bytes());
    out.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|a| a["note"].is_object())
        .map(|a| {
            let companions = a["note"]["companions"]
                .as_array()
                .expect("companions")
                .iter()
                .map(|c| c.as_str().expect("a companion").to_string())
                .collect();
            let family = a["note"]["family"].as_str().expect("family").to_string();
            (a["id"].as_u64().expect("an id"), family, companions)
        })
        .collect()
}

#[test]
fn the_trace_served_again_gives_the_backtest_notes() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    let trace = env.home().join("trace.jsonl");
    let path = repo.to_str().expect("utf-8");
    let r = json(
        &env,
        &[
            "backtest",
            path,
            "--max-files",
            "4",
            "--trace-out",
            trace.to_str().expect("utf-8"),
            "--json",
        ],
    );
    let served = served_notes(&env, &trace, &repo);
    let s = run(&r, "static");
    assert_eq!(
        served.len() as u64,
        s["notes"].as_u64().expect("notes"),
        "{served:?}"
    );
    assert!(
        served.iter().all(|(_, f, c)| f == "Src" && c.len() == 2),
        "{served:?}"
    );
    // The requests are those the backtest ran: one judge per file and 40 reads per turn.
    let text = std::fs::read_to_string(&trace).expect("trace");
    let judges = text
        .lines()
        .filter(|l| l.contains(r#""op":"judge""#))
        .count();
    assert_eq!(judges, 2 + 2 + 1 + 3 + 4 * 40);
    let static_config = env.home().join("static.json");
    let replayed = env.ok(
        &[
            "replay",
            trace.to_str().expect("utf-8"),
            "--memory",
            "--config",
            static_config.to_str().expect("utf-8"),
            "--workspace",
            path,
            "--json",
        ],
        b"",
    );
    let v: serde_json::Value = serde_json::from_str(&replayed).expect("replay JSON");
    assert_eq!(v["notes"], s["notes"], "{v}");
}

#[test]
fn bootstrap_fills_a_store_that_check_accepts() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    let store = env.store("boot.redb");
    let (path, store_arg) = (
        repo.to_str().expect("utf-8"),
        store.to_str().expect("utf-8"),
    );
    let out = env.ok(
        &["bootstrap", path, "--store", store_arg, "--max-files", "4"],
        b"",
    );
    assert!(out.contains("replayed 4 commits"), "{out}");
    let rates = env.ok(&["rates", "--store", store_arg, "--json"], b"");
    assert!(rates.contains("docs/*.md"), "{rates}");
    env.ok(&["check", "--store", store_arg], b"");
    // Twice is refused without --force, accepted with it.
    let again = env.run(
        &["bootstrap", path, "--store", store_arg, "--max-files", "4"],
        b"",
    );
    assert!(!again.status.success());
    let err = String::from_utf8_lossy(&again.stderr);
    assert!(
        err.contains("already holds history") && err.contains("--force"),
        "{err}"
    );
    env.ok(
        &[
            "bootstrap",
            path,
            "--store",
            store_arg,
            "--max-files",
            "4",
            "--force",
        ],
        b"",
    );
    env.ok(&["check", "--store", store_arg], b"");
}

#[test]
fn bad_input_is_one_clear_error() {
    let env = Env::new();
    let plain = env.home().join("plain");
    std::fs::create_dir_all(&plain).expect("dir");
    let err = env.run(&["backtest", plain.to_str().expect("utf-8")], b"");
    assert!(!err.status.success());
    let text = String::from_utf8_lossy(&err.stderr);
    assert!(text.contains("is not a git repository"), "{text}");

    let repo = env.home().join("repo");
    small_history(&repo);
    let path = repo.to_str().expect("utf-8");
    let err = env.run(&["backtest", path, "--rev", "no-such-branch"], b"");
    let text = String::from_utf8_lossy(&err.stderr);
    assert!(
        !err.status.success() && text.contains("no-such-branch"),
        "{text}"
    );

    let pack = env.home().join("bad-pack.json");
    std::fs::write(&pack, "{not json").expect("pack");
    let err = env.run(
        &["backtest", path, "--pack", pack.to_str().expect("utf-8")],
        b"",
    );
    let text = String::from_utf8_lossy(&err.stderr);
    assert!(
        !err.status.success() && text.contains("bad-pack.json"),
        "{text}"
    );

    let empty = env.home().join("empty");
    gix::init(&empty).expect("git init");
    let err = env.run(&["backtest", empty.to_str().expect("utf-8")], b"");
    let text = String::from_utf8_lossy(&err.stderr);
    assert!(
        !err.status.success() && text.contains("has no commits"),
        "{text}"
    );
}

const TWO_FAMILIES: &str = r#"{"signature": ["LICENSE"], "families": [
  {"name": "Src", "kind": "doc", "rules": ["src/*.rs"],
   "companions": [{"path": "docs/*.md", "prior": 1.0}, {"path": "CHANGELOG.md", "prior": 1.0}]},
  {"name": "Test", "kind": "doc", "rules": ["tests/*.rs"],
   "companions": [{"path": "tests/README.md", "prior": 1.0}]}]}"#;

/// A history where learning matters: `CHANGELOG.md`, a companion of `Src`, is never changed.
/// After a bulk root (5 files at --max-files 4): c1 src+docs, c2 and c3 tests+README (the
/// `Test` family, which moves no `Src` row), then c4 src+docs, c5 tests+README, c6 src+docs.
/// With --train-fraction 0.5, c1–c3 train and c4–c6 are scored.
fn learning_history(dir: &Path) {
    let mut s: BTreeMap<String, String> = [
        ("src/a.rs", "0"),
        ("docs/a.md", "0"),
        ("CHANGELOG.md", "0"),
        ("tests/t.rs", "0"),
        ("tests/README.md", "0"),
        ("LICENSE", "0"),
        (".dsh/doc-pack.json", TWO_FAMILIES),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut states = vec![s.clone()];
    let src = ["src/a.rs", "docs/a.md"];
    let test = ["tests/t.rs", "tests/README.md"];
    for (i, paths) in [src, test, test, src, test, src].iter().enumerate() {
        for p in paths {
            s.insert(p.to_string(), format!("{}", i + 1));
        }
        states.push(s.clone());
    }
    repository(dir, &states);
}

#[test]
fn a_store_bootstrapped_up_to_the_split_is_at_least_as_precise_as_a_cold_start() {
    let env = Env::new();
    let repo = env.home().join("repo");
    learning_history(&repo);
    let path = repo.to_str().expect("utf-8");
    let split = ["--max-files", "4", "--train-fraction", "0.5", "--json"];
    let mut args = vec!["backtest", path];
    args.extend(split);
    let cold = json(&env, &args);
    assert_eq!(
        (&cold["training_commits"], &cold["scored_commits"]),
        (&3.into(), &3.into()),
        "{cold}"
    );
    let last = cold["last_training_commit"]
        .as_str()
        .expect("a split commit");

    let store = env.store("warm.redb");
    let store_arg = store.to_str().expect("utf-8");
    let boot = json(
        &env,
        &[
            "bootstrap",
            path,
            "--store",
            store_arg,
            "--rev",
            last,
            "--max-files",
            "4",
            "--json",
        ],
    );
    assert_eq!(boot["commits"], 3, "only the history up to --rev: {boot}");
    assert_eq!(boot["tip"], last);
    let bytes = std::fs::read(&store).expect("the store file");

    args.extend(["--store", store_arg]);
    let warm = json(&env, &args);
    assert_eq!(
        std::fs::read(&store).expect("the store file"),
        bytes,
        "only read"
    );
    assert_eq!(warm["warm_start"]["store"], store_arg, "{warm}");
    assert_eq!(warm["warm_start"]["workspace_key"], boot["workspace_key"]);
    assert!(warm["warm_start"]["rows"].as_u64().expect("rows") > 0);
    assert!(cold.get("warm_start").is_none());

    // Cold: c1's note leaves one miss on CHANGELOG; c4's and c6's notes name docs and
    // CHANGELOG again (docs hit, CHANGELOG missed), c5's Test note is made. Warm: the store
    // holds c1's outcome and the training replays it on top, so the family has twice the
    // evidence: the same notes, each more likely followed by its own estimate.
    let (c, w) = (run(&cold, "learning"), run(&warm, "learning"));
    assert_eq!(c["companion_precision"], 0.6, "{c}");
    assert_eq!(w["companion_precision"], 0.6, "{w}");
    assert_eq!(w["notes"], c["notes"], "{w}");
    assert!(w["note_precision"].as_f64() >= c["note_precision"].as_f64());
    assert_eq!(c["companion_hit_rate"]["Src CHANGELOG.md"]["named"], 2);
    assert_eq!(w["companion_hit_rate"]["Src CHANGELOG.md"]["named"], 2);
    assert_eq!(w["companion_hit_rate"]["Src docs/*.md"]["named"], 2);
    let mean_confidence = |run: &serde_json::Value| {
        let bins = run["calibration"].as_array().expect("a calibration table");
        let (sum, notes) = bins.iter().fold((0.0, 0.0), |(sum, notes), b| {
            let n = b["notes"].as_f64().expect("notes");
            (
                sum + n * b["confidence"].as_f64().expect("confidence"),
                notes + n,
            )
        });
        sum / notes
    };
    assert!(mean_confidence(w) > mean_confidence(c) + 0.05, "{c}\n{w}");
    // The static engine reads no rate: the same either way.
    assert_eq!(run(&cold, "static"), run(&warm, "static"));
}

#[test]
fn a_store_to_start_from_must_be_readable_and_hold_the_workspace() {
    let env = Env::new();
    let repo = env.home().join("repo");
    small_history(&repo);
    let path = repo.to_str().expect("utf-8");
    let backtest = |store: &Path| {
        let out = env.run(
            &[
                "backtest",
                path,
                "--max-files",
                "4",
                "--store",
                store.to_str().expect("utf-8"),
            ],
            b"",
        );
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        err
    };
    let missing = env.store("missing.redb");
    let err = backtest(&missing);
    assert!(
        err.contains("missing.redb") && err.contains("no such file"),
        "{err}"
    );
    assert!(!missing.exists(), "nothing was created");

    let junk = env.store("junk.redb");
    std::fs::write(&junk, b"not a store").expect("junk");
    let err = backtest(&junk);
    assert!(
        err.contains("cannot use the store") && err.contains("junk.redb"),
        "{err}"
    );
    assert_eq!(std::fs::read(&junk).expect("junk"), b"not a store");

    // A store that learned for another workspace (the Env's `ws/`) only.
    let other = env.store("other.redb");
    let other_arg = other.to_str().expect("utf-8");
    env.serve_judges(
        other_arg,
        &["Documentation/Plans/X.md", "Documentation/INDEX.md"],
    );
    let err = backtest(&other);
    assert!(
        err.contains("holds no learned rates") && err.contains(&env.key()),
        "{err}"
    );
}

#[test]
fn a_file_that_becomes_a_directory_is_a_deletion_and_additions() {
    let env = Env::new();
    let repo = env.home().join("repo");
    let base: BTreeMap<String, String> = [
        ("src/a.rs", "0"),
        ("docs", "a file"),
        ("LICENSE", "0"),
        (".dsh/doc-pack.json", PACK),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let mut next = base.clone();
    next.remove("docs");
    next.insert("docs/b.md".into(), "1".into());
    next.insert("docs/a.md".into(), "1".into());
    next.insert("src/a.rs".into(), "1".into());
    let mut back = next.clone();
    back.remove("docs/a.md");
    back.remove("docs/b.md");
    back.insert("docs".into(), "a file again".into());
    back.insert("src/a.rs".into(), "2".into());
    // Both swaps in one history; the work tree holds the tip (docs a file).
    repository(&repo, &[base, next, back]);
    let trace = env.home().join("trace.jsonl");
    json(
        &env,
        &[
            "backtest",
            repo.to_str().expect("utf-8"),
            "--trace-out",
            trace.to_str().expect("utf-8"),
            "--json",
        ],
    );
    // Each turn: the trigger, then the other files in path order, `write` for an added one.
    let calls: Vec<(String, String)> = std::fs::read_to_string(&trace)
        .expect("trace")
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).expect("JSON"))
        .filter(|v| v["op"] == "judge" && v["tool"] != "read")
        .map(|v| {
            (
                v["tool"].as_str().expect("tool").to_string(),
                v["path"].as_str().expect("path").to_string(),
            )
        })
        .collect();
    let want: Vec<(String, String)> = [
        // The root adds everything.
        ("write", "src/a.rs"),
        ("write", ".dsh/doc-pack.json"),
        ("write", "LICENSE"),
        ("write", "docs"),
        // The file docs is deleted, docs/a.md and docs/b.md are added.
        ("edit", "src/a.rs"),
        ("edit", "docs"),
        ("write", "docs/a.md"),
        ("write", "docs/b.md"),
        // And back.
        ("edit", "src/a.rs"),
        ("write", "docs"),
        ("edit", "docs/a.md"),
        ("edit", "docs/b.md"),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(calls, want);
}

/// A history where commits add root paths a plain path cannot hold (a newline, a quote, a
/// tab, ESC, a backslash, invalid UTF-8): each such commit, alone or with a family file, is
/// counted as `odd` — not `empty`, though it lists no plain path.
fn odd_history(dir: &Path) {
    let base: BTreeMap<String, String> = [
        ("src/a.rs", "0"),
        ("docs/a.md", "0"),
        ("CHANGELOG.md", "0"),
        ("LICENSE", "0"),
        (".dsh/doc-pack.json", PACK),
    ]
    .into_iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    let odd: [&[u8]; 6] = [
        b"new\nline.md",
        b"quo\"te.md",
        b"tab\tbed.md",
        b"esc\x1bape.md",
        b"back\\slash.md",
        b"bad\xffutf8.md",
    ];
    // c0 the base; c1..c6 each add one odd name (and keep the earlier ones); c7 an odd name
    // with src and docs; c8 empty; c9 src and docs.
    let mut states = vec![base.clone(); 9];
    let mut last = base;
    last.insert("src/a.rs".into(), "9".into());
    last.insert("docs/a.md".into(), "9".into());
    let mut with_src = states[0].clone();
    with_src.insert("src/a.rs".into(), "7".into());
    with_src.insert("docs/a.md".into(), "7".into());
    states[7] = with_src.clone();
    states[8] = with_src;
    states.push(last);
    let mut raw = Vec::new();
    for (i, name) in odd.iter().enumerate() {
        // Every later commit keeps the name, so only commit i + 1 changes it.
        for at in i + 1..states.len() {
            raw.push((at, name.to_vec()));
        }
    }
    for at in 7..states.len() {
        raw.push((at, b"seventh\n.md".to_vec()));
    }
    repository_with_raw(dir, &states, &raw);
}

#[test]
fn commits_adding_odd_paths_are_counted_odd_not_empty() {
    let env = Env::new();
    let repo = env.home().join("repo");
    odd_history(&repo);
    let r = json(&env, &["backtest", repo.to_str().expect("utf-8"), "--json"]);
    assert_eq!(r["first_parent_commits"], 10, "{r}");
    let skipped = &r["skipped"];
    assert_eq!(skipped["odd"], 7, "{r}");
    assert_eq!(skipped["empty"], 1, "{r}");
    assert_eq!(
        (&skipped["bulk"], &skipped["no_family"]),
        (&0.into(), &0.into())
    );
    // The root and c9.
    assert_eq!(r["kept"], 2, "{r}");
}

/// A history whose second commit changes `src/a.rs` and adds `n` files `f/0000.txt`…, then
/// src with docs, then src with CHANGELOG.
fn huge_commit_history(dir: &Path, n: usize) {
    let mut s = root_state();
    let mut states = vec![s.clone()];
    s.insert("src/a.rs".into(), "1".into());
    s.extend((0..n).map(|i| (format!("f/{i:04}.txt"), i.to_string())));
    states.push(s.clone());
    s.insert("src/a.rs".into(), "2".into());
    s.insert("docs/a.md".into(), "2".into());
    states.push(s.clone());
    s.insert("src/a.rs".into(), "3".into());
    s.insert("CHANGELOG.md".into(), "3".into());
    states.push(s);
    repository(dir, &states);
}

/// A commit of 4,000 files under a `--max-files` above it is kept, and the backtest runs in
/// bounded memory: under an address-space limit of 512 MiB (`ulimit -v`, set before the
/// binary starts, so no measurement can race its exit). Counting co-change support for every
/// pair of that commit's files took 971 MB resident (RELIABILITY.md); now about 40 MB.
#[cfg(target_os = "linux")]
#[test]
fn a_commit_of_four_thousand_files_is_backtested_in_bounded_memory() {
    const N: usize = 4_000;
    let env = Env::new();
    let repo = env.home().join("repo");
    huge_commit_history(&repo, N);
    let config = env.home().join("backtest-config.json");
    std::fs::write(&config, CONFIG).expect("config");
    let script = "ulimit -v 524288 && exec \"$0\" \"$@\"";
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_docsuggest"))
        .args(["backtest", repo.to_str().expect("utf-8")])
        .args(["--max-files", &(N + 1).to_string(), "--json"])
        .args(["--config", config.to_str().expect("utf-8")])
        .env("HOME", env.home())
        .env_remove("RUST_LOG")
        .current_dir(env.home())
        .output()
        .expect("sh runs");
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    assert_eq!(r["kept"], 4, "{r}");
    assert_eq!(r["skipped"]["bulk"], 0);
    // Co-change k1 c0.2, trigger src/a.rs each time. c1: the root's 4 other paths (miss);
    // c2: all at 1/2, by path the root's 4 then f/0000…f/0002 (docs/a.md hits); c3:
    // docs/a.md at 2/3, then the same 6 at 1/3 (CHANGELOG.md hits): 3 notes, 2 of 18 hit.
    let k1 = run(&r, "co-change k1 c0.2");
    assert_eq!(k1["notes"], 3, "{k1}");
    assert_eq!(k1["companions_named"], 18);
    assert_eq!(k1["companion_precision"], 2.0 / 18.0);
    assert_eq!(k1["note_precision"], 2.0 / 3.0);
    // k2 c0.5: only docs/a.md at c3 (support 2, 2/3), a miss.
    let k2 = run(&r, "co-change k2 c0.5");
    assert_eq!(
        (&k2["notes"], &k2["companions_named"]),
        (&1.into(), &1.into())
    );
    assert_eq!(k2["companion_precision"], 0.0);
}

#[test]
fn a_pack_in_the_work_tree_is_used_committed_or_not_and_the_report_says_which() {
    let env = Env::new();
    let args = |repo: &Path| -> Vec<String> {
        [
            "backtest",
            repo.to_str().expect("utf-8"),
            "--max-files",
            "4",
            "--json",
        ]
        .map(String::from)
        .to_vec()
    };
    let report = |repo: &Path| {
        let args = args(repo);
        json(&env, &args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let families = |report: &serde_json::Value| -> Vec<String> {
        run(report, "static")["by_family"]
            .as_object()
            .map(|m| m.keys().cloned().collect())
            .unwrap_or_default()
    };

    let repo = env.home().join("committed");
    small_history(&repo);
    let tip = report(&repo);
    assert_eq!(tip["pack"], ".dsh/doc-pack.json at the tip", "{tip}");
    assert_eq!(families(&tip), ["Src"]);
    // The user edits the pack and backtests before committing: the edit is what is measured.
    std::fs::write(
        repo.join(".dsh/doc-pack.json"),
        PACK.replace("\"Src\"", "\"Source\""),
    )
    .expect("edit the pack");
    let edited = report(&repo);
    assert_eq!(
        edited["pack"], ".dsh/doc-pack.json in the work tree (changed since the tip)",
        "{edited}"
    );
    assert_eq!(families(&edited), ["Source"]);

    // A history that never held a pack, and one written in the work tree, not committed.
    let repo = env.home().join("uncommitted");
    let mut s = root_state();
    s.remove(".dsh/doc-pack.json");
    let mut states = vec![s.clone()];
    for (paths, v) in [
        (&["src/a.rs", "docs/a.md"][..], "1"),
        (&["src/a.rs"][..], "2"),
    ] {
        for p in paths {
            s.insert(p.to_string(), v.to_string());
        }
        states.push(s.clone());
    }
    repository(&repo, &states);
    std::fs::create_dir_all(repo.join(".dsh")).expect("mkdir");
    std::fs::write(repo.join(".dsh/doc-pack.json"), PACK).expect("write the pack");
    let fresh = report(&repo);
    assert_eq!(
        fresh["pack"], ".dsh/doc-pack.json in the work tree (not committed)",
        "{fresh}"
    );
    assert_eq!(families(&fresh), ["Src"]);
}
