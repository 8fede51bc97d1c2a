//! `docsuggest status`: what the engine does for a path and why it may give no notes, on a
//! packless git repository, the PoC workspace, a repository pack, a directory in no workspace,
//! an excluded path, and beside a running daemon with hooks installed.

use crate::common::{Env, wait_until};
use crate::held::Daemon;
use crate::init::convention_history;
use serde_json::{Value, json};
use std::path::Path;

fn status(env: &Env, path: &Path, extra: &[&str]) -> Value {
    let path = path.display().to_string();
    let mut args = vec!["status", &path, "--json"];
    args.extend_from_slice(extra);
    let out = env.ok(&args, b"");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// The fields that say what the engine does, as one line per field for a readable diff.
fn check(got: &Value, expect: &[(&str, Value)]) {
    for (pointer, want) in expect {
        assert_eq!(
            got.pointer(pointer),
            Some(want),
            "{pointer} in {}",
            serde_json::to_string_pretty(got).unwrap_or_default()
        );
    }
}

fn reason(got: &Value) -> String {
    got["verdict"]["reason"]
        .as_str()
        .expect("a reason")
        .to_string()
}

#[test]
fn a_packless_git_repository_waits_for_its_mined_pack() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 12);
    let key = crate::common::workspace_key(&repo);
    let got = status(&env, &repo.join("src/mod1.py"), &[]);
    check(
        &got,
        &[
            ("/pathKind", json!("file")),
            ("/verdict/notes", json!(false)),
            ("/workspace/found", json!("gitWorkTree")),
            ("/workspace/key", json!(key)),
            ("/pack/source", json!("mining-pending")),
            ("/family", Value::Null),
            ("/store/exists", json!(false)),
            ("/daemon/state", json!("absent")),
        ],
    );
    assert!(reason(&got).contains("not mined yet"), "{got}");
    // Zero-config off: the work tree is foreign, and the reason says why.
    let config = env.store("off.json");
    std::fs::write(&config, r#"{"zeroConfig": false}"#).expect("write");
    let got = status(
        &env,
        &repo.join("src/mod1.py"),
        &["--config", &config.display().to_string()],
    );
    check(
        &got,
        &[("/workspace/found", json!("none")), ("/pack", Value::Null)],
    );
    assert!(reason(&got).contains("zeroConfig is off"), "{got}");
}

/// A repository with no commit has no history to mine: `status` says so, and never that
/// `init` will mine it, which then fails saying the same.
#[test]
fn an_empty_repository_has_no_history_to_mine_and_init_agrees() {
    let env = Env::new();
    let repo = env.home().join("empty");
    gix::init(&repo).expect("git init");
    std::fs::write(repo.join("README.md"), "").expect("write");
    let got = status(&env, &repo.join("README.md"), &[]);
    check(
        &got,
        &[
            ("/verdict/notes", json!(false)),
            ("/workspace/found", json!("gitWorkTree")),
            ("/pack/source", json!("no-history")),
            ("/family", Value::Null),
        ],
    );
    let why = reason(&got);
    assert!(why.contains("has no commits yet"), "{why}");
    assert!(!why.contains("mines it now"), "{why}");
    let human = env.ok(&["status", &repo.display().to_string()], b"");
    assert!(human.contains("no history to mine"), "{human}");
    assert!(!human.contains("to be mined"), "{human}");

    let init = env.run(&["init", &repo.display().to_string()], b"");
    assert_eq!(init.status.code(), Some(1));
    let text = String::from_utf8_lossy(&init.stderr);
    assert!(
        text.contains("has no commits yet, so there is no history to mine"),
        "{text}"
    );
    assert!(!repo.join(".dsh").exists());
}

#[test]
fn the_poc_workspace_names_the_family_and_its_companions() {
    let env = Env::new();
    let got = status(&env, &env.ws().join("Documentation/Plans/X.md"), &[]);
    check(
        &got,
        &[
            ("/verdict/notes", json!(true)),
            ("/workspace/found", json!("signature")),
            ("/workspace/root", json!(env.ws().display().to_string())),
            ("/workspace/key", json!(env.key())),
            (
                "/workspace/signature",
                json!(["Documentation/ARCHIVE-STYLE.md"]),
            ),
            ("/pack/source", json!("built-in")),
            ("/family/name", json!("Plan")),
            ("/family/relative", json!("Documentation/Plans/X.md")),
            ("/family/companions/0/path", json!("Documentation/INDEX.md")),
            ("/family/companions/0/exists", json!(true)),
            ("/excluded", Value::Null),
        ],
    );
    // A file of no family, and a missing companion: said, with what the engine needs.
    std::fs::remove_file(env.ws().join("Documentation/INDEX.md")).expect("rm");
    let got = status(&env, &env.ws().join("Documentation/Plans/X.md"), &[]);
    check(&got, &[("/family/companions/0/exists", json!(false))]);
    std::fs::write(env.ws().join("notes.txt"), "").expect("write");
    let got = status(&env, &env.ws().join("notes.txt"), &[]);
    check(
        &got,
        &[
            ("/verdict/notes", json!(false)),
            ("/family/name", Value::Null),
        ],
    );
    assert!(
        reason(&got).contains("in no family of the built-in pack"),
        "{got}"
    );
    // The human form says the same.
    let text = env.ok(
        &["status", &env.ws().join("notes.txt").display().to_string()],
        b"",
    );
    assert!(
        text.contains("notes       no: this path is in no family"),
        "{text}"
    );
    assert!(text.contains(&format!("(key {})", env.key())), "{text}");
}

#[test]
fn a_repository_pack_is_named_and_a_broken_one_reported() {
    let env = Env::new();
    let root = env.home().join("packed");
    std::fs::create_dir_all(root.join(".dsh")).expect("mkdir");
    std::fs::create_dir_all(root.join("design")).expect("mkdir");
    for f in ["MARK", "design/a.md", "INDEX.md"] {
        std::fs::write(root.join(f), "").expect("write");
    }
    let pack = json!({"signature": ["MARK"], "families": [{"name": "Design",
        "rules": ["design/*.md"], "companions": [{"path": "INDEX.md", "prior": 1.0}]}]});
    let file = root.join(".dsh/doc-pack.json");
    std::fs::write(&file, pack.to_string()).expect("write");
    let got = status(&env, &root.join("design/a.md"), &[]);
    check(
        &got,
        &[
            ("/verdict/notes", json!(true)),
            ("/workspace/signature", json!(["MARK"])),
            ("/pack/source", json!("repo-file")),
            ("/pack/file", json!(file.display().to_string())),
            ("/pack/families", json!(["Design"])),
            ("/pack/stop/mayBlock", json!(true)),
            ("/family/name", json!("Design")),
        ],
    );
    // A pack whose reminders `init` measured as too rarely right: the Stop reminder only
    // informs, and status says so and why, in JSON and in words.
    let mut measured = pack.clone();
    measured["boundary"] = json!({"mayBlock": false, "reminders": 20, "right": 6});
    std::fs::write(&file, measured.to_string()).expect("write");
    let got = status(&env, &root.join("design/a.md"), &[]);
    check(&got, &[("/pack/stop/mayBlock", json!(false))]);
    let why = got["pack"]["stop"]["why"].as_str().expect("why");
    assert!(
        why.starts_with("only informs the user") && why.contains("6 of 20"),
        "{why}"
    );
    let path = root.join("design/a.md").display().to_string();
    let text = env.ok(&["status", &path], b"");
    assert!(
        text.contains("the Stop reminder only informs the user"),
        "{text}"
    );
    // A pack file the engine refuses: the built-in pack, whose signature is not there.
    std::fs::write(&file, r#"{"families": [], "colour": 1}"#).expect("write");
    let got = status(&env, &root.join("design/a.md"), &[]);
    check(&got, &[("/workspace/found", json!("none"))]);
    assert!(
        reason(&got).contains("not a git work tree (foreign workspace)"),
        "{got}"
    );
}

#[test]
fn a_directory_in_no_workspace_and_an_excluded_path_say_why() {
    let env = Env::new();
    let plain = env.home().join("plain");
    std::fs::create_dir_all(&plain).expect("mkdir");
    let got = status(&env, &plain, &[]);
    check(
        &got,
        &[
            ("/pathKind", json!("directory")),
            ("/verdict/notes", json!(false)),
            ("/workspace/found", json!("none")),
            ("/family", Value::Null),
        ],
    );
    assert_eq!(
        reason(&got),
        "no pack file (.dsh/doc-pack.json) in any ancestor, nor the built-in documentation \
         layout, and not a git work tree (foreign workspace)"
    );
    let text = env.ok(&["status", &plain.display().to_string()], b"");
    assert!(
        text.contains("notes       no: no pack file (.dsh/doc-pack.json) in any ancestor, nor the built-in documentation layout, and not a git work tree (foreign workspace)"),
        "{text}"
    );
    // A path that does not exist says so first, and names no file of the engine's own.
    let missing = plain.join("nowhere.md");
    let got = status(&env, &missing, &[]);
    assert!(
        reason(&got).starts_with(&format!("{} does not exist; ", missing.display())),
        "{got}"
    );
    assert!(!reason(&got).contains("ARCHIVE-STYLE"), "{got}");

    let deps = env.ws().join("node_modules/lib");
    std::fs::create_dir_all(&deps).expect("mkdir");
    std::fs::write(deps.join("CHANGELOG.md"), "").expect("write");
    let got = status(&env, &deps.join("CHANGELOG.md"), &[]);
    check(
        &got,
        &[
            ("/verdict/notes", json!(false)),
            ("/excluded", json!("node_modules")),
            ("/workspace/key", json!(env.key())),
        ],
    );
    // The workspace itself is judged, relative paths resolved against the current directory.
    let got = status(&env, Path::new("ws"), &[]);
    check(
        &got,
        &[
            ("/path", json!(env.ws().display().to_string())),
            ("/verdict/notes", json!(true)),
        ],
    );
}

#[test]
fn beside_a_running_daemon_with_hooks_installed() {
    let env = Env::new();
    let daemon = Daemon::start(&env);
    daemon.learn(&env);
    let ws = env.ws().display().to_string();
    env.ok(
        &[
            "install-hooks",
            "--harness",
            "claude-code",
            "--project",
            &ws,
            "--command",
            "docsuggest",
        ],
        b"",
    );
    let store = daemon.store.display().to_string();
    let got = status(
        &env,
        &env.ws().join("Documentation/Plans/X.md"),
        &["--store", &store],
    );
    check(
        &got,
        &[
            ("/daemon/state", json!("running")),
            ("/daemon/pid", json!(daemon.pid())),
            ("/daemon/store", json!("redb")),
            ("/daemon/storePath", json!(store)),
            ("/daemon/storeHealth/degraded", Value::Null),
            (
                "/store/schemaVersion",
                json!(docsuggest_store::SCHEMA_VERSION),
            ),
            ("/store/lastNotes/0/family", json!("Plan")),
            ("/hooks/claudeCode/0/scope", json!("project")),
            (
                "/hooks/claudeCode/0/events",
                json!([
                    "PostToolUse",
                    "PreToolUse",
                    "SessionEnd",
                    "Stop",
                    "UserPromptSubmit"
                ]),
            ),
        ],
    );
    assert!(
        got["store"]["held"]
            .as_str()
            .is_some_and(|h| h.contains(&format!("pid {}", daemon.pid()))),
        "{got}"
    );
    assert!(got["store"]["rateRows"].as_u64() > Some(0), "{got}");
    assert!(got["store"]["historyEntries"].as_u64() > Some(0), "{got}");
    // Another store than the daemon's: said.
    let got = status(
        &env,
        &env.ws(),
        &["--store", &env.store("other.redb").display().to_string()],
    );
    assert!(
        got["hints"].as_array().is_some_and(|h| h
            .iter()
            .any(|h| h.as_str().is_some_and(|h| h.contains("another store")))),
        "{got}"
    );
}

#[test]
fn a_mined_pack_the_daemon_keeps_is_the_pack_in_force() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    let daemon = Daemon::start(&env);
    let mut client = daemon.client();
    let cwd = repo.display().to_string();
    let file = repo.join("src/mod1.py").display().to_string();
    wait_until("the daemon to mine the pack", || {
        let answer = client.judge("a", "edit", &file, Some(&cwd)).expect("judge");
        (!answer["ledger"].to_string().contains("pack-mining")).then_some(())
    });
    // The turn closes the window the judged call opened: rows are learned.
    client.turn("a").expect("turn");
    let store = daemon.store.display().to_string();
    let got = status(&env, &repo.join("src/mod1.py"), &["--store", &store]);
    check(
        &got,
        &[
            ("/workspace/found", json!("gitWorkTree")),
            ("/pack/source", json!("mined")),
            ("/pack/mined/commits", json!(40)),
            ("/pack/mined/currentMiner", json!(true)),
            ("/family/name", json!("src-py")),
        ],
    );
    let companions = got["family"]["companions"].to_string();
    assert!(companions.contains("\"tests/test_mod1.py\""), "{got}");
    // `rates --workspace` finds the same workspace (and reads beside the daemon).
    let rates = env.ok(
        &["rates", "--store", &store, "--workspace", &cwd, "--json"],
        b"",
    );
    let rows: Value = serde_json::from_str(&rates).expect("JSON");
    let key = crate::common::workspace_key(&repo);
    assert!(
        rows.as_array()
            .is_some_and(|r| !r.is_empty() && r.iter().all(|r| r["workspace"] == key)),
        "{rows}"
    );
}
