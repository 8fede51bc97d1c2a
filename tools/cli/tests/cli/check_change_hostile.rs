//! `check-change`, the Stop and commit boundaries and MCP `check_change` against what a
//! repository or a model may send: a revision that reads as an option, names that print other
//! than they read, a git that does not answer, a change of thousands of files, a pack file
//! that cannot be used, a HOME that cannot be written.

use crate::check_change::{
    StopDaemon, check_change_json, commit_hook, committed_workspace, git, stop_hook,
};
use crate::common::Env;
use crate::mcp::Mcp;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// Code points that make a text read other than it is.
const BIDI: char = '\u{202e}';
const LINE_SEPARATOR: char = '\u{2028}';

/// A git repository `repo/` in the HOME whose own pack names, for `src/*.py`, its test (to
/// create), a changelog fragment and a page of `docs/`: enough for the gate to speak.
fn repo_with_pack(env: &Env) -> std::path::PathBuf {
    let ws = env.home().join("repo");
    let pack = json!({"signature": [".dsh/doc-pack.json"], "families": [{"name": "Src",
        "rules": ["src/*.py"], "companions": [{"path": "tests/test_{}.py", "prior": 1.0},
            {"path": "changelog.d/<name>.<ext>", "prior": 0.9},
            {"path": "docs/*.rst", "prior": 0.8}]}]});
    for dir in [".dsh", "src", "tests", "changelog.d", "docs"] {
        std::fs::create_dir_all(ws.join(dir)).expect("mkdir");
    }
    std::fs::write(ws.join(".dsh/doc-pack.json"), pack.to_string()).expect("a pack");
    for file in [
        "tests/conftest.py",
        "changelog.d/12.change.md",
        "docs/api.rst",
        "src/a.py",
    ] {
        std::fs::write(ws.join(file), "").expect("write");
    }
    git(&ws, &["init", "--quiet"]);
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "--quiet", "-m", "c0"]);
    ws
}

fn check(env: &Env, ws: &Path, args: &[&str]) -> std::process::Output {
    let mut all = vec!["check-change"];
    all.extend_from_slice(args);
    env.command(&all)
        .current_dir(ws)
        .output()
        .expect("check-change runs")
}

/// `--since` is a revision, never an option of git's: `--since=--output=FILE` once made git
/// write the changed-file list (a shell script, with a file named `touch PWNED` changed)
/// into FILE. The CLI and the read-only MCP tool refuse it, and no file is written.
#[test]
fn a_revision_that_reads_as_an_option_never_reaches_git() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_workspace(&env);
    std::fs::write(ws.join("touch PWNED"), "").expect("write");
    git(&ws, &["add", "touch PWNED"]);
    git(&ws, &["commit", "--quiet", "-m", "c1"]);
    std::fs::write(ws.join("touch PWNED"), "changed\n").expect("edit");
    let out_file = env.home().join("written.sh");
    let option = format!("--output={}", out_file.display());
    for args in [format!("--since={option}"), "--since=-p".to_string()] {
        let out = check(&env, &ws, &[&args]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("is not a commit"), "{stderr}");
        assert!(!out_file.exists(), "{args:?} wrote {}", out_file.display());
    }
    // A revision is still one: HEAD~1 names the change since c0.
    let out = check(&env, &ws, &["--since", "HEAD~1", "--json"]);
    assert!(out.status.success(), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("a report");
    assert_eq!(report["changed"], json!(["touch PWNED"]), "{report}");

    let socket = env.home().join(".dsh/playform/docsuggest.sock");
    let socket = socket.display().to_string();
    let mut mcp = Mcp::start(&env, &["mcp", "--socket", &socket]);
    mcp.initialize();
    let refused = mcp.call("check_change", json!({"cwd": ws, "since": option}));
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(refused.to_string().contains("is not a commit"), "{refused}");
    assert!(!out_file.exists(), "MCP wrote {}", out_file.display());
    mcp.close();
}

/// A plan whose name carries a right-to-left override or a line separator is part of the
/// change but never named (git's `core.quotePath=false` passes such names raw), neither by
/// `check-change` (text and JSON) nor by the Stop reminder; under git's default quoting a
/// name outside ASCII is read as the file it is (`"…\303\251.md"` was taken literally and
/// never matched).
#[test]
fn names_that_print_other_than_they_read_never_reach_the_model() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_workspace(&env);
    let accented = "Documentation/Plans/\u{e9}t\u{e9}.md";
    std::fs::write(ws.join(accented), "new\n").expect("a plan");
    let report = check_change_json(&env, &ws);
    assert_eq!(report["changed"], json!([accented]), "{report}");
    let index = report["missing"]
        .as_array()
        .expect("missing")
        .iter()
        .find(|m| m["companion"] == "Documentation/INDEX.md")
        .unwrap_or_else(|| panic!("the index is missing: {report}"));
    assert_eq!(index["for_files"], json!([accented]), "{report}");
    std::fs::remove_file(ws.join(accented)).expect("remove");

    git(&ws, &["config", "core.quotePath", "false"]);
    for name in [
        format!("Documentation/Plans/a{BIDI}dm.md"),
        format!("Documentation/Plans/b{LINE_SEPARATOR}c.md"),
    ] {
        std::fs::write(ws.join(&name), "new\n").expect("a plan");
    }
    let raw = |text: &str| text.contains(BIDI) || text.contains(LINE_SEPARATOR);
    for args in [&["--json"][..], &[]] {
        let out = check(&env, &ws, args);
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8(out.stdout).expect("UTF-8");
        assert!(!raw(&stdout), "{args:?}: {stdout:?}");
        if args.is_empty() {
            assert!(stdout.contains("2 changed files with a name"), "{stdout}");
        } else {
            let report: Value = serde_json::from_str(&stdout).expect("a report");
            assert_eq!(report["unshown"], 2, "{report}");
            assert_eq!(report["changed"], json!([]), "{report}");
        }
    }
    let said = stop_hook(&env, &ws, false, "remind");
    assert!(!raw(&said), "{said:?}");
}

/// A git that does not answer (one behind a `core.fsmonitor` that sleeps, say: here, every
/// `git` on the hook's PATH sleeps first) is stopped within the hook's budget: the Stop hook
/// and the hook before a commit answer without the boundary, and the hook log says why.
#[test]
fn a_slow_git_is_stopped_within_the_hooks_budget() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_workspace(&env);
    std::fs::write(ws.join("Documentation/Plans/X.md"), "changed\n").expect("edit");
    git(&ws, &["add", "Documentation/Plans/X.md"]);
    // The daemon is started first, with the real git, so the hooks spend their budget on git.
    let started = env
        .command(&["check-change", "--json"])
        .current_dir(&ws)
        .output()
        .expect("check-change runs");
    assert!(started.status.success(), "{started:?}");
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .expect("sh runs");
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let slow = env.home().join("slow-bin");
    std::fs::create_dir_all(&slow).expect("mkdir");
    std::fs::write(
        slow.join("git"),
        format!("#!/bin/sh\nsleep 30\nexec '{real}' \"$@\"\n"),
    )
    .expect("write");
    std::fs::set_permissions(
        slow.join("git"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let path = format!(
        "{}:{}",
        slow.display(),
        std::env::var("PATH").unwrap_or_default()
    );

    let stop = json!({"hook_event_name": "Stop", "session_id": "s", "cwd": ws});
    let commit = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": ws,
        "tool_name": "Bash", "tool_input": {"command": "git commit -m x"}});
    for event in [stop, commit] {
        let began = Instant::now();
        let out = env
            .command(&["hook", "--harness", "claude-code", "--timeout-ms", "1500"])
            .env("PATH", &path)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write as _;
                if let Some(mut stdin) = child.stdin.take() {
                    stdin.write_all(event.to_string().as_bytes())?;
                }
                child.wait_with_output()
            })
            .expect("the hook runs");
        // Far under the 30 s git sleeps: git was stopped, not waited for.
        assert!(
            began.elapsed() < Duration::from_secs(15),
            "{event}: {:?}",
            began.elapsed()
        );
        assert!(out.status.success(), "{out:?}");
        assert!(out.stdout.is_empty(), "{out:?}");
    }
    let log = std::fs::read_to_string(env.home().join(".dsh/playform/docsuggest.sock.log"))
        .expect("the hook log");
    assert!(
        log.lines()
            .filter(|l| l.contains("no-boundary") && l.contains("did not answer within"))
            .count()
            >= 2,
        "{log}"
    );
}

/// A change of 100 new sources in 100 directories, each directory a family of its own with
/// its own test, changelog and docs: the Stop reminder (300 companions, each line some 300
/// bytes) and MCP `check_change` are bounded (16 KiB) and say how much they left out.
#[test]
fn answers_for_a_huge_change_are_bounded() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = env.home().join("repo");
    let dirs: Vec<String> = (0..100)
        .map(|k| format!("{}_{k:03}", "component".repeat(9)))
        .collect();
    let families: Vec<Value> = dirs
        .iter()
        .map(|d| {
            json!({"name": format!("F{}", &d[d.len() - 3..]), "rules": [format!("src/{d}/*.py")],
                "companions": [{"path": format!("tests/{d}/test_{{}}.py"), "prior": 1.0},
                    {"path": format!("changes/{d}/<name>.<ext>"), "prior": 0.9},
                    {"path": format!("docs/{d}/*.rst"), "prior": 0.8}]})
        })
        .collect();
    let pack = json!({"signature": [".dsh/doc-pack.json"], "families": families});
    std::fs::create_dir_all(ws.join(".dsh")).expect("mkdir");
    std::fs::write(ws.join(".dsh/doc-pack.json"), pack.to_string()).expect("a pack");
    for d in &dirs {
        for file in [
            "tests/{d}/conftest.py",
            "changes/{d}/1.md",
            "docs/{d}/api.rst",
        ] {
            let path = ws.join(file.replace("{d}", d));
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, "").expect("write");
        }
    }
    git(&ws, &["init", "--quiet"]);
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "--quiet", "-m", "c0"]);
    for d in &dirs {
        std::fs::create_dir_all(ws.join(format!("src/{d}"))).expect("mkdir");
        std::fs::write(ws.join(format!("src/{d}/m.py")), "new\n").expect("a source");
    }
    // A debug build decides 100 files in seconds: the hook is given the time.
    let stop = json!({"hook_event_name": "Stop", "session_id": "s", "cwd": ws});
    let out = env.run(
        &["hook", "--timeout-ms", "60000"],
        stop.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{out:?}");
    let said: Value = serde_json::from_slice(&out.stdout).expect("an answer");
    let reason = said["reason"].as_str().expect("a reminder");
    assert!(reason.len() <= 16 * 1024, "{}", reason.len());
    assert!(
        reason.contains(" more (`docsuggest check-change --json` lists them)"),
        "{}",
        &reason[reason.len().saturating_sub(2000)..]
    );

    let socket = env.home().join(".dsh/playform/docsuggest.sock");
    let socket = socket.display().to_string();
    let mut mcp = Mcp::start(&env, &["mcp", "--socket", &socket]);
    mcp.initialize();
    let checked = mcp.call("check_change", json!({"cwd": ws}));
    let content = checked["structuredContent"].to_string();
    assert!(content.len() <= 16 * 1024, "{}", content.len());
    let text = checked["content"][0]["text"].as_str().expect("text");
    assert!(text.len() <= 16 * 1024 + 512, "{}", text.len());
    let listed = checked["structuredContent"]["changed"]
        .as_array()
        .expect("changed")
        .len();
    let left_out = checked["structuredContent"]["changed_not_listed"]
        .as_u64()
        .expect("a count");
    assert_eq!(listed as u64 + left_out, 100, "{content}");
    assert!(left_out > 0);
    mcp.close();
}

/// A pack file that cannot be used (a trailing comma) is said on every surface: `check-change`
/// exits 2 (not "lacks no companion" and 0), `--json` carries `errors`, the Stop hook tells
/// the user, and the hook log says why an edit got no note.
#[test]
fn a_broken_pack_is_said_everywhere() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = env.home().join("repo");
    std::fs::create_dir_all(ws.join(".dsh")).expect("mkdir");
    std::fs::create_dir_all(ws.join("src")).expect("mkdir");
    std::fs::write(
        ws.join(".dsh/doc-pack.json"),
        r#"{"families": [{"name": "Src", "rules": ["src/*.py"], "companions": [{"path": "CHANGES.md"}]},]}"#,
    )
    .expect("a broken pack");
    std::fs::write(ws.join("src/a.py"), "").expect("write");
    std::fs::write(ws.join("CHANGES.md"), "").expect("write");
    git(&ws, &["init", "--quiet"]);
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "--quiet", "-m", "c0"]);
    std::fs::write(ws.join("src/a.py"), "changed\n").expect("edit");

    let strict = check(&env, &ws, &["--strict"]);
    assert_eq!(strict.status.code(), Some(2), "{strict:?}");
    let text = String::from_utf8_lossy(&strict.stdout);
    assert!(
        text.contains("cannot check the change: invalid pack"),
        "{text}"
    );
    assert!(!text.contains("lacks no companion"), "{text}");
    let json = check(&env, &ws, &["--json"]);
    assert_eq!(json.status.code(), Some(2), "{json:?}");
    let report: Value = serde_json::from_slice(&json.stdout).expect("a report");
    let errors = report["errors"].as_array().expect("errors");
    assert!(
        errors[0]
            .as_str()
            .is_some_and(|e| e.contains("doc-pack.json")),
        "{report}"
    );

    let said: Value =
        serde_json::from_str(&stop_hook(&env, &ws, false, "remind")).expect("an answer");
    assert!(
        said.get("decision").is_none(),
        "never blocks for it: {said}"
    );
    assert!(
        said["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("not checked") && m.contains("doc-pack.json")),
        "{said}"
    );
    let edit = json!({"hook_event_name": "PostToolUse", "session_id": "s", "cwd": ws,
        "tool_name": "Edit", "tool_input": {"file_path": ws.join("src/a.py")}});
    let out = env.run(
        &["hook", "--harness", "claude-code", "--timeout-ms", "5000"],
        edit.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{out:?}");
    let log = std::fs::read_to_string(env.home().join(".dsh/playform/docsuggest.sock.log"))
        .expect("the hook log");
    assert!(
        log.lines()
            .any(|l| l.contains("pack-error") && l.contains("doc-pack.json")),
        "{log}"
    );
    // The commit hook tells the agent too.
    git(&ws, &["add", "src/a.py"]);
    let before = commit_hook(&env, &ws, "git commit -m x");
    assert!(before.contains("not checked"), "{before}");
}

/// With a HOME where nothing can be written (no daemon, no store), `check-change` still
/// checks a repository carrying its own pack, on memory.
#[test]
fn check_change_runs_on_memory_when_home_cannot_be_written() {
    let env = Env::new();
    let ws = repo_with_pack(&env);
    std::fs::write(ws.join("src/a.py"), "changed\n").expect("edit");
    // A HOME under a regular file: no directory can be made there, whoever runs the test.
    let blocker = env.home().join("not-a-dir");
    std::fs::write(&blocker, "").expect("write");
    let out = env
        .command(&["check-change", "--json"])
        .env("HOME", blocker.join("home"))
        .current_dir(&ws)
        .output()
        .expect("check-change runs");
    assert!(out.status.success(), "{out:?}");
    let report: Value = serde_json::from_slice(&out.stdout).expect("a report");
    assert!(
        report["missing"][0]["line"]
            .as_str()
            .is_some_and(|l| l.starts_with("create tests/test_a.py")),
        "{report}"
    );
    assert_eq!(report["errors"], json!([]), "{report}");
}
