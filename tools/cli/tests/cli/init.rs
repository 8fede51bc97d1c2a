//! `init` over repositories built here: what it mines from a history that follows written
//! conventions, that it writes only what it says, byte for byte the same twice, and one-line
//! errors for what it cannot mine; `backtest` with no pack mines from its training commits.

use crate::common::Env;
use docsuggest_history::testkit::repository;
use std::collections::BTreeMap;
use std::path::Path;

/// A history following two conventions: every change of a module `src/modK.py` comes with its
/// test `tests/test_modK.py`, and most with a new changelog fragment `changelog.d/<n>.md`;
/// every fourth commit touches the README alone.
pub fn convention_history(dir: &Path, commits: usize) {
    let mut s: BTreeMap<String, String> = [("README.md", "0"), ("LICENSE", "0")]
        .into_iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    for k in 0..6 {
        s.insert(format!("src/mod{k}.py"), "0".into());
        s.insert(format!("tests/test_mod{k}.py"), "0".into());
    }
    let mut states = vec![s.clone()];
    for i in 1..commits {
        let v = i.to_string();
        if i % 4 == 0 {
            s.insert("README.md".into(), v);
        } else {
            let k = i % 6;
            s.insert(format!("src/mod{k}.py"), v.clone());
            s.insert(format!("tests/test_mod{k}.py"), v.clone());
            if i % 3 != 0 {
                s.insert(format!("changelog.d/{i}.md"), v);
            }
        }
        states.push(s.clone());
    }
    repository(dir, &states);
}

fn pack_of(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("a JSON pack")
}

fn companions(pack: &serde_json::Value, rule: &str) -> Vec<String> {
    let family = pack["families"]
        .as_array()
        .expect("families")
        .iter()
        .find(|f| f["rules"][0] == rule)
        .unwrap_or_else(|| panic!("no family {rule}: {pack}"));
    family["companions"]
        .as_array()
        .expect("companions")
        .iter()
        .map(|c| c["path"].as_str().expect("a path").to_string())
        .collect()
}

#[test]
fn print_mines_the_conventions_and_writes_nothing() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    let path = repo.to_str().expect("utf-8");
    let first = env.ok(&["init", path, "--print"], b"");
    let pack = pack_of(&first);
    let src = companions(&pack, "src/*.py");
    assert!(src.contains(&"tests/test_{}.py".to_string()), "{pack}");
    assert!(src.contains(&"changelog.d/<name>.md".to_string()), "{pack}");
    assert!(!repo.join(".dsh").exists(), "--print writes nothing");
    // The same history mines the same pack, byte for byte.
    assert_eq!(env.ok(&["init", path, "--print"], b""), first);
    // The mined pack is a valid pack the engine accepts.
    let file = env.home().join("mined.json");
    std::fs::write(&file, &first).expect("pack");
    let report: serde_json::Value = serde_json::from_str(&env.ok(
        &[
            "backtest",
            path,
            "--pack",
            file.to_str().expect("utf-8"),
            "--json",
        ],
        b"",
    ))
    .expect("a report");
    assert!(report["kept"].as_u64().expect("kept") > 20, "{report}");
}

#[test]
fn init_writes_the_pack_then_refuses_to_replace_it_without_force() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    let path = repo.to_str().expect("utf-8");
    let printed = env.ok(&["init", path, "--print"], b"");
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["init", path, "--json"], b"")).expect("JSON report");
    let file = repo.join(".dsh/doc-pack.json");
    // The pack written is the pack printed, with what the backtest measured of the Stop
    // reminder on the newest quarter: the source's test is missing at every cut commit, and
    // the reminder was right each time.
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("written")).expect("JSON");
    let mut as_printed: serde_json::Value = serde_json::from_str(&printed).expect("JSON");
    let boundary = &written["boundary"];
    assert_eq!(boundary["mayBlock"], true, "{written}");
    assert!(boundary["reminders"].as_u64() > Some(0), "{written}");
    assert_eq!(boundary["right"], boundary["reminders"], "{written}");
    as_printed["boundary"] = boundary.clone();
    assert_eq!(written, as_printed);
    assert_eq!(report["pack_file"], file.display().to_string(), "{report}");
    let backtest = &report["backtest"];
    assert!(
        backtest["mined_from"]["commits"].as_u64().expect("mined") == 30,
        "the report's pack is mined from the oldest 3/4 only: {backtest}"
    );

    std::fs::write(&file, "{\"families\": []}").expect("a user's pack");
    let err = env.run(&["init", path], b"");
    let text = String::from_utf8_lossy(&err.stderr);
    assert!(!err.status.success(), "{text}");
    assert!(
        text.contains("already holds a pack: pass --force") && text.lines().count() == 1,
        "{text}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("kept"),
        "{\"families\": []}"
    );
    env.ok(&["init", path, "--force", "--no-backtest"], b"");
    assert_eq!(std::fs::read_to_string(&file).expect("replaced"), printed);
}

/// The pack file is meant to be committed: it gets the mode any new file gets under the
/// user's umask, not a private temporary file's `0600`.
#[cfg(unix)]
#[test]
fn the_pack_file_respects_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    let file = repo.join(".dsh/doc-pack.json");
    for (umask, mode) in [("022", 0o644), ("027", 0o640)] {
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(r#"umask {umask} && exec "$0" "$@""#))
            .arg(env!("CARGO_BIN_EXE_docsuggest"))
            .args(["init", "--force", "--no-backtest"])
            .arg(&repo)
            .env("HOME", env.home())
            .stdout(std::process::Stdio::null())
            .status()
            .expect("sh runs");
        assert!(status.success());
        let got = std::fs::metadata(&file)
            .expect("written")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(got, mode, "umask {umask}: {got:o}");
    }
}

#[test]
fn what_cannot_be_mined_is_one_clear_error_and_nothing_written() {
    let env = Env::new();
    let check = |args: &[&str], expect: &str| {
        let out = env.run(args, b"");
        let text = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(
            text.contains(expect) && text.lines().count() == 1,
            "{args:?}: {text}"
        );
    };
    let plain = env.home().join("plain");
    std::fs::create_dir_all(&plain).expect("dir");
    check(
        &["init", plain.to_str().expect("utf-8")],
        "is not a git repository",
    );
    let empty = env.home().join("empty");
    gix::init(&empty).expect("git init");
    check(
        &["init", empty.to_str().expect("utf-8")],
        "has no commits yet, so there is no history to mine",
    );
    assert!(!empty.join(".dsh").exists());

    let repo = env.home().join("repo");
    convention_history(&repo, 12);
    let path = repo.to_str().expect("utf-8");
    check(&["init", path, "--rev", "no-such-rev"], "no-such-rev");
    let shallow = repo.join(".git/shallow");
    let tip = gix::open(&repo)
        .expect("repo")
        .head_id()
        .expect("HEAD")
        .detach();
    std::fs::write(&shallow, format!("{tip}\n")).expect("shallow");
    check(&["init", path], "shallow clone");
    std::fs::remove_file(&shallow).expect("unshallow");
    assert!(!repo.join(".dsh").exists());

    // A history with no convention: nothing worth a note.
    let lonely = env.home().join("lonely");
    let states: Vec<BTreeMap<String, String>> = (0..10)
        .map(|i| {
            [(format!("f{i}.txt"), "x".to_string())]
                .into_iter()
                .collect()
        })
        .collect();
    repository(&lonely, &states);
    check(
        &["init", lonely.to_str().expect("utf-8")],
        "no family found",
    );
    assert!(!lonely.join(".dsh").exists());
}

#[test]
fn backtest_without_a_pack_mines_from_its_training_commits_only() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    let path = repo.to_str().expect("utf-8");
    let report: serde_json::Value = serde_json::from_str(&env.ok(
        &["backtest", path, "--train-fraction", "0.5", "--json"],
        b"",
    ))
    .expect("a report");
    assert_eq!(report["mined_from"]["commits"], 20, "{report}");
    assert!(
        report["pack"]
            .as_str()
            .expect("pack")
            .starts_with("mined from the first 20 first-parent commits"),
        "{report}"
    );
    // Every scored commit comes after the mined ones.
    let scored = report["scored_commits"].as_u64().expect("scored");
    assert!(scored > 0 && scored <= 20, "{report}");
    let learning = crate::backtest::run(&report, "learning");
    assert!(
        learning["notes"].as_u64().expect("notes") > 0,
        "a mined pack speaks: {report}"
    );
}

#[test]
fn mining_is_bounded_by_the_newest_commits_and_skips_sweeping_ones() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    let path = repo.to_str().expect("utf-8");
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["init", path, "--max-commits", "24", "--json"], b""))
            .expect("a report");
    assert_eq!(report["mined"]["commits_read"], 24, "{report}");
    assert!(
        report["backtest"]["first_parent_commits"] == 24,
        "the report's backtest reads the same bound: {report}"
    );
    let err = env.run(&["init", path, "--max-commits", "0"], b"");
    assert!(!err.status.success());

    // A commit of 5,000 files is one sweeping change: read up to the bound, left out of the
    // counts, and the conventions around it are still found.
    let wide = env.home().join("wide");
    let mut states: Vec<BTreeMap<String, String>> = Vec::new();
    let mut s: BTreeMap<String, String> = BTreeMap::new();
    for i in 1..30 {
        let k = i % 5;
        s.insert(format!("src/mod{k}.py"), i.to_string());
        s.insert(format!("tests/test_mod{k}.py"), i.to_string());
        if i == 15 {
            for j in 0..5_000 {
                s.insert(format!("vendor/f{j}.txt"), i.to_string());
            }
        }
        states.push(s.clone());
    }
    repository(&wide, &states);
    let report: serde_json::Value = serde_json::from_str(&env.ok(
        &[
            "init",
            wide.to_str().expect("utf-8"),
            "--json",
            "--no-backtest",
        ],
        b"",
    ))
    .expect("a report");
    assert_eq!(report["mined"]["commits_read"], 29, "{report}");
    assert_eq!(report["mined"]["commits_used"], 28, "{report}");
    let pack = pack_of(&std::fs::read_to_string(wide.join(".dsh/doc-pack.json")).expect("pack"));
    assert!(
        companions(&pack, "src/*.py").contains(&"tests/test_{}.py".to_string()),
        "{pack}"
    );
}

#[test]
fn a_written_pack_whose_backtest_cannot_run_is_still_a_successful_init() {
    let env = Env::new();
    let repo = env.home().join("repo");
    // The convention lives in the oldest commits only; the newest quarter touches no family
    // file, so the report's backtest has nothing to score.
    let mut s: BTreeMap<String, String> = BTreeMap::new();
    for k in 0..6 {
        s.insert(format!("src/mod{k}.py"), "0".into());
        s.insert(format!("tests/test_mod{k}.py"), "0".into());
    }
    let mut states = vec![s.clone()];
    for i in 1..40 {
        let v = i.to_string();
        if i < 28 {
            let k = i % 6;
            s.insert(format!("src/mod{k}.py"), v.clone());
            s.insert(format!("tests/test_mod{k}.py"), v);
        } else {
            s.insert(format!("notes/n{i}.txt"), v);
        }
        states.push(s.clone());
    }
    repository(&repo, &states);
    let path = repo.to_str().expect("utf-8");
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["init", path, "--json"], b"")).expect("JSON report");
    assert!(repo.join(".dsh/doc-pack.json").is_file(), "{report}");
    assert!(report["backtest"].is_null(), "{report}");
    assert!(
        report["backtest_error"]
            .as_str()
            .is_some_and(|e| e.contains("no kept commit")),
        "{report}"
    );
    let text = env.ok(&["init", path, "--force"], b"");
    assert!(text.contains("no backtest: "), "{text}");
}

#[test]
fn a_long_history_chooses_its_pack_on_its_newer_commits_and_a_backtest_on_them_says_so() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 240);
    let path = repo.to_str().expect("utf-8");
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["init", path, "--json"], b"")).expect("JSON report");
    let validation = &report["mined"]["validation"];
    assert_eq!(validation["proposing_commits"], 180, "{report}");
    assert_eq!(validation["validating_commits"], 60, "{report}");
    let estimate = &report["estimate"];
    let p = estimate["companion_precision"]
        .as_f64()
        .expect("an estimate");
    assert!(
        estimate["low"].as_f64() <= Some(p) && Some(p) <= estimate["high"].as_f64(),
        "{estimate}"
    );
    // Pooled over the report backtest's split and two later ones: more companions named
    // than the report backtest's learning run alone.
    assert_eq!(
        estimate["splits"],
        serde_json::json!([0.75, 0.85, 0.9]),
        "{estimate}"
    );
    let learning = (report["backtest"]["runs"].as_array().expect("runs").iter())
        .find(|r| r["name"] == "learning")
        .expect("a learning run");
    assert!(
        estimate["named"].as_u64() > learning["companions_named"].as_u64(),
        "{estimate} {learning}"
    );
    // The pack records what it was mined from, and what each companion was kept on.
    let pack = pack_of(&std::fs::read_to_string(repo.join(".dsh/doc-pack.json")).expect("pack"));
    let tip = String::from_utf8(
        std::process::Command::new("git")
            .args(["-C", path, "rev-parse", "HEAD"])
            .output()
            .expect("git")
            .stdout,
    )
    .expect("utf-8");
    assert_eq!(pack["mined"]["to"], tip.trim(), "{pack}");
    assert_eq!(pack["mined"]["validated"], validation["validated_from"]);
    let test = pack["families"]
        .as_array()
        .expect("families")
        .iter()
        .flat_map(|f| f["companions"].as_array().expect("companions"))
        .find(|c| c["path"] == "tests/test_{}.py")
        .unwrap_or_else(|| panic!("{pack}"));
    let (named, followed) = (&test["validated"]["named"], &test["validated"]["followed"]);
    assert!(named.as_u64() > Some(20) && followed == named, "{test}");
    // Scored on commits it was mined from, a backtest says so.
    let scored: serde_json::Value =
        serde_json::from_str(&env.ok(&["backtest", path, "--json"], b"")).expect("a report");
    assert_eq!(scored["in_sample"], true, "{scored}");
    assert!(scored["in_sample_commits"].as_u64() > Some(50), "{scored}");
    let text = env.ok(&["backtest", path], b"");
    assert!(text.contains("\nin-sample: "), "{text}");
    // A pack that records nothing is never said to be in-sample.
    let file = env.home().join("plain.json");
    let mut plain = pack.clone();
    plain.as_object_mut().expect("an object").remove("mined");
    std::fs::write(&file, plain.to_string()).expect("pack");
    let args = [
        "backtest",
        path,
        "--json",
        "--pack",
        file.to_str().expect("utf-8"),
    ];
    let other: serde_json::Value = serde_json::from_str(&env.ok(&args, b"")).expect("a report");
    assert_eq!(other["in_sample"], false, "{other}");
    let init_text = env.ok(&["init", path, "--force"], b"");
    assert!(
        init_text.contains("backtest, out-of-sample: a pack mined from the oldest 75%")
            && init_text.contains("kept on commits"),
        "{init_text}"
    );
}
