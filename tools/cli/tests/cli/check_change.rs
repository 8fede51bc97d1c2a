//! `docsuggest check-change` on a git repository holding the built-in pack's workspace: what
//! the work tree's change, the staged one and one since a revision lack, through the daemon
//! the command starts as a hook would; `--strict` and `--json`.

use crate::common::Env;
use serde_json::Value;
use std::path::Path;
use std::process::Command;

pub(crate) fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.email=t@example.invalid", "-c", "user.name=t"])
        .args(args)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// `check-change --json` in `ws`: its report.
pub(crate) fn check_change_json(env: &Env, ws: &Path) -> Value {
    let out = env
        .command(&["check-change", "--json"])
        .current_dir(ws)
        .output()
        .expect("check-change runs");
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).expect("a JSON report")
}

/// Every companion the built-in pack names for a plan: a change holding them all is complete.
const PLAN_COMPANIONS: [&str; 4] = [
    "Documentation/INDEX.md",
    "Documentation/ARCHIVE-STYLE.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
];

/// Stops the daemon the checks started in the test's HOME.
pub(crate) struct StopDaemon<'e>(pub(crate) &'e Env);

impl Drop for StopDaemon<'_> {
    fn drop(&mut self) {
        let pid = self.0.home().join(".dsh/playform/docsuggest.sock.pid");
        if let Ok(pid) = std::fs::read_to_string(pid) {
            let _ = Command::new("kill").args(["-TERM", pid.trim()]).status();
        }
    }
}

/// The built-in pack as the workspace's own, each companion with the figures a mined pack
/// records: named by 100 commits, of which `followed(companion)` changed it too.
pub(crate) fn validated_builtin_pack(env: &Env, followed: impl Fn(&str) -> u32) {
    let mut pack = docsuggest_schema::Pack::builtin();
    for companion in pack
        .families
        .iter_mut()
        .flat_map(|f| f.companions.iter_mut())
    {
        companion.validated = Some(docsuggest_schema::pack::origin::Validated {
            named: 100,
            followed: followed(&companion.path),
        });
    }
    let text = serde_json::to_string(&pack).expect("a pack is JSON");
    env.write_ws(".dsh/doc-pack.json", &text);
}

/// [`committed_workspace`] with [`validated_builtin_pack`] as its pack, every companion
/// followed by each commit that named it: evidence that clears the Stop reminder's block bar
/// for every companion at once.
pub(crate) fn committed_validated_workspace(env: &Env) -> std::path::PathBuf {
    validated_builtin_pack(env, |_| 100);
    committed_workspace(env)
}

/// [`committed_validated_workspace`] with its plan `Documentation/Plans/X.md` changed since
/// the commit: a change whose companions are missing and blocked on. Returns the workspace
/// and the plan.
pub(crate) fn edited_validated_workspace(env: &Env) -> (std::path::PathBuf, std::path::PathBuf) {
    let ws = committed_validated_workspace(env);
    let plan = ws.join("Documentation/Plans/X.md");
    std::fs::write(&plan, "changed\n").expect("edit the plan");
    (ws, plan)
}

/// The HOME's workspace as a git repository of one commit holding all of it.
pub(crate) fn committed_workspace(env: &Env) -> std::path::PathBuf {
    let ws = env.ws();
    git(&ws, &["init", "--quiet"]);
    git(&ws, &["add", "."]);
    git(&ws, &["commit", "--quiet", "-m", "c0"]);
    ws
}

#[test]
fn a_change_lacking_companions_lists_them_and_strict_fails() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_workspace(&env);
    let check = |args: &[&str]| {
        let mut all = vec!["check-change"];
        all.extend_from_slice(args);
        env.command(&all)
            .current_dir(&ws)
            .output()
            .expect("check-change runs")
    };

    let clean = check(&[]);
    assert!(clean.status.success(), "{clean:?}");
    assert!(
        String::from_utf8_lossy(&clean.stdout).contains("lacks no companion"),
        "{clean:?}"
    );

    std::fs::write(ws.join("Documentation/Plans/X.md"), "changed\n").expect("edit the plan");
    let json = check(&["--json"]);
    assert!(json.status.success(), "{json:?}");
    let report: Value = serde_json::from_slice(&json.stdout).expect("a JSON report");
    assert_eq!(
        report["changed"],
        serde_json::json!(["Documentation/Plans/X.md"])
    );
    let missing: Vec<&str> = report["missing"]
        .as_array()
        .expect("missing")
        .iter()
        .filter_map(|m| m["companion"].as_str())
        .collect();
    assert!(missing.contains(&"Documentation/INDEX.md"), "{report}");
    assert_eq!(report["missing"][0]["family"], "Plan", "{report}");
    assert_eq!(
        report["missing"][0]["for_files"],
        serde_json::json!(["Documentation/Plans/X.md"])
    );
    let strict = check(&["--strict"]);
    assert_eq!(strict.status.code(), Some(1), "{strict:?}");
    let text = String::from_utf8_lossy(&strict.stdout);
    assert!(text.contains("- Documentation/INDEX.md (Plan "), "{text}");

    // The index in the change: it is not listed any more (staged, and since HEAD).
    std::fs::write(ws.join("Documentation/INDEX.md"), "changed\n").expect("edit the index");
    git(
        &ws,
        &["add", "Documentation/Plans/X.md", "Documentation/INDEX.md"],
    );
    for args in [&["--staged", "--json"][..], &["--since", "HEAD", "--json"]] {
        let out = check(args);
        let report: Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
        let named = report["missing"].to_string();
        assert!(
            !named.contains("\"Documentation/INDEX.md\""),
            "{args:?}: {report}"
        );
        assert_eq!(
            report["changed"].as_array().map(Vec::len),
            Some(2),
            "{report}"
        );
    }
    // An unknown revision is one error line, and a change that could not be checked (2).
    let bad = check(&["--since", "no-such-rev"]);
    assert_eq!(bad.status.code(), Some(2), "{bad:?}");
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr).lines().count(),
        1,
        "{bad:?}"
    );
}

/// The hook's answer to a Claude Code `PreToolUse` of session `s` in `ws` running `command`.
pub(crate) fn commit_hook(env: &Env, ws: &Path, command: &str) -> String {
    let event = serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "s",
        "cwd": ws, "tool_name": "Bash", "tool_input": {"command": command}});
    let out = env.run(
        &["hook", "--harness", "claude-code", "--timeout-ms", "5000"],
        event.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A Claude Code `PreToolUse` event for a `git commit` (a hook entry on `Bash` the user adds)
/// is answered with what the staged change lacks, as additional context; any other command,
/// and a complete change, get nothing.
#[test]
fn the_hook_before_a_commit_names_what_the_staged_change_lacks() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_workspace(&env);
    std::fs::write(ws.join("Documentation/Plans/X.md"), "changed\n").expect("edit the plan");
    git(&ws, &["add", "Documentation/Plans/X.md"]);
    let hook = |command: &str| commit_hook(&env, &ws, command);
    let said: Value = serde_json::from_str(&hook("git commit -m 'a plan'")).expect("an answer");
    assert_eq!(
        said["hookSpecificOutput"]["hookEventName"], "PreToolUse",
        "{said}"
    );
    let context = said["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("context");
    assert!(
        context.contains("- Documentation/INDEX.md (Plan "),
        "{context}"
    );
    assert!(hook("git status").is_empty());
    std::fs::write(ws.join("Documentation/INDEX.md"), "changed\n").expect("edit the index");
    for file in PLAN_COMPANIONS {
        std::fs::write(ws.join(file), "changed\n").expect("edit");
        git(&ws, &["add", file]);
    }
    let complete = hook("git commit -m 'the plan and its companions'");
    assert!(complete.trim().is_empty(), "{complete}");
}

/// The hook's answer to a Claude Code `Stop` of session `s` in `ws`, under `--boundary`.
pub(crate) fn stop_hook(env: &Env, ws: &Path, active: bool, boundary: &str) -> String {
    let event = serde_json::json!({"hook_event_name": "Stop", "session_id": "s",
        "cwd": ws, "stop_hook_active": active});
    let out = env.run(
        &["hook", "--timeout-ms", "5000", "--boundary", boundary],
        event.to_string().as_bytes(),
    );
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// A Claude Code `Stop` event, when the work tree's change lacks companions: the agent is kept
/// going once with the reason (`--boundary remind`, the default), never again while it goes
/// on from a stop hook (`stop_hook_active`); `inform` only tells the user; `off` says nothing,
/// nor does a complete change. Every Stop still flushes. (The stop after a reminder settles
/// it, which moves the rates: the cases that must still speak come first.)
#[test]
fn the_stop_hook_reminds_once_of_what_the_change_lacks() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let (ws, _) = edited_validated_workspace(&env);
    let stop = |active: bool, boundary: &str| stop_hook(&env, &ws, active, boundary);
    let told: Value = serde_json::from_str(&stop(false, "inform")).expect("an answer");
    assert!(told.get("decision").is_none(), "{told}");
    assert!(
        told["systemMessage"]
            .as_str()
            .is_some_and(|m| m.contains("Documentation/INDEX.md")),
        "{told}"
    );
    assert!(stop(false, "off").trim().is_empty());
    // An event without `cwd`: the project directory the harness names.
    let bare = serde_json::json!({"hook_event_name": "Stop", "session_id": "other"});
    let mut command = env.command(&["hook", "--timeout-ms", "5000"]);
    let mut child = command
        .env("CLAUDE_PROJECT_DIR", &ws)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the hook starts");
    use std::io::Write as _;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(bare.to_string().as_bytes())
        .expect("the event is written");
    let out = child.wait_with_output().expect("the hook ends");
    let said: Value = serde_json::from_slice(&out.stdout).expect("an answer");
    assert_eq!(said["decision"], "block", "{said}");
    let said: Value = serde_json::from_str(&stop(false, "remind")).expect("an answer");
    assert_eq!(said["decision"], "block", "{said}");
    let reason = said["reason"].as_str().expect("a reason");
    assert!(
        reason.starts_with("[doc-suggester] before you finish"),
        "{reason}"
    );
    assert!(
        reason.contains("- update Documentation/INDEX.md "),
        "{reason}"
    );
    assert!(stop(true, "remind").trim().is_empty(), "no second reminder");
    for file in PLAN_COMPANIONS {
        std::fs::write(ws.join(file), "changed\n").expect("edit");
    }
    let complete = stop(false, "remind");
    assert!(complete.trim().is_empty(), "{complete}");
}

/// Only a claim whose evidence clears the block bar holds the agent up. The built-in pack
/// has no figures: its claims are told the user as a `systemMessage` and the stop goes ahead.
/// With figures for some companions only, the reminder names those, and the user is told the
/// rest beside it.
#[test]
fn a_stop_blocks_only_on_claims_whose_evidence_clears_the_bar() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_workspace(&env);
    std::fs::write(ws.join("Documentation/Plans/X.md"), "changed\n").expect("edit the plan");
    let said: Value =
        serde_json::from_str(&stop_hook(&env, &ws, false, "remind")).expect("an answer");
    assert!(said.get("decision").is_none(), "{said}");
    let told = said["systemMessage"].as_str().expect("told the user");
    assert!(told.contains("Documentation/INDEX.md"), "{told}");

    // The changelog is followed every time, the rest half the time.
    validated_builtin_pack(&env, |path| if path == "CHANGELOG.md" { 100 } else { 50 });
    let said: Value =
        serde_json::from_str(&stop_hook(&env, &ws, false, "remind")).expect("an answer");
    assert_eq!(said["decision"], "block", "{said}");
    let reason = said["reason"].as_str().expect("a reason");
    assert!(reason.contains("- update CHANGELOG.md "), "{reason}");
    assert!(!reason.contains("Documentation/INDEX.md"), "{reason}");
    let told = said["systemMessage"]
        .as_str()
        .expect("the rest, for the user");
    assert!(told.contains("Documentation/INDEX.md"), "{told}");
    assert!(!told.contains("CHANGELOG.md"), "{told}");
}

/// At most one block a turn, and a cool-down across turns: what the agent declined at a stop
/// (named, then still missing at the next) is not named again in the session while the change
/// stays as it was; an edit of the file that called for it names it again.
#[test]
fn a_declined_reminder_is_not_repeated_until_the_change_touches_its_family_again() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let (ws, plan) = edited_validated_workspace(&env);
    let stop = |active: bool| stop_hook(&env, &ws, active, "remind");
    let said: Value = serde_json::from_str(&stop(false)).expect("a reminder");
    assert_eq!(said["decision"], "block", "{said}");
    // The agent goes on from the stop hook, adds nothing and stops: once a turn.
    assert!(stop(true).trim().is_empty(), "no second block in the turn");
    // The next turn ends on the same change: declined, so not named again.
    let again = stop(false);
    assert!(again.trim().is_empty(), "declined and untouched: {again}");
    // The plan is edited again: its companions are named again.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&plan, "changed again, longer\n").expect("edit the plan again");
    let said: Value = serde_json::from_str(&stop(false)).expect("a reminder");
    assert_eq!(said["decision"], "block", "{said}");
    let reason = said["reason"].as_str().expect("a reason");
    assert!(reason.contains("- update CHANGELOG.md "), "{reason}");
}

/// `install-hooks --harness git` writes a `pre-commit` where git runs hooks (`core.hooksPath`
/// here): a commit missing a companion is warned about and still made; installing twice
/// changes nothing; a hook docsuggest did not write is never replaced nor removed; uninstalling
/// gives back the hooks directory as it was.
#[test]
fn the_git_hook_warns_before_a_commit_and_uninstalls_byte_for_byte() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_workspace(&env);
    let hooks = ws.join(".githooks");
    std::fs::create_dir_all(&hooks).expect("hooks dir");
    git(&ws, &["config", "core.hooksPath", ".githooks"]);
    let ws_arg = ws.display().to_string();
    let install = |verb: &str| env.run(&[verb, "--harness", "git", "--project", &ws_arg], b"");
    let installed = install("install-hooks");
    assert!(installed.status.success(), "{installed:?}");
    let hook = hooks.join("pre-commit");
    let text = std::fs::read_to_string(&hook).expect("the hook is written");
    assert!(
        text.starts_with("#!/bin/sh\n# docsuggest pre-commit hook"),
        "{text}"
    );
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&hook).expect("meta").permissions().mode();
    assert_eq!(mode & 0o111, 0o111, "executable");
    let again = install("install-hooks");
    assert!(
        String::from_utf8_lossy(&again.stdout).starts_with("unchanged"),
        "{again:?}"
    );

    std::fs::write(ws.join("Documentation/Plans/X.md"), "changed\n").expect("edit the plan");
    git(&ws, &["add", "Documentation/Plans/X.md"]);
    let commit = Command::new("git")
        .arg("-C")
        .arg(&ws)
        .args(["-c", "user.email=t@example.invalid", "-c", "user.name=t"])
        .args(["commit", "-m", "a plan"])
        .env("HOME", env.home())
        .output()
        .expect("git runs");
    assert!(commit.status.success(), "{commit:?}");
    let warned = String::from_utf8_lossy(&commit.stderr);
    assert!(
        warned.contains("- Documentation/INDEX.md (Plan "),
        "{warned}"
    );

    let removed = install("uninstall-hooks");
    assert!(removed.status.success(), "{removed:?}");
    assert!(!hook.exists());
    assert_eq!(std::fs::read_dir(&hooks).expect("dir").count(), 0);
    // Somebody else's hook: neither replaced nor removed.
    std::fs::write(&hook, "#!/bin/sh\nmake lint\n").expect("their hook");
    let refused = install("install-hooks");
    assert!(!refused.status.success(), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("did not write"),
        "{refused:?}"
    );
    assert!(install("uninstall-hooks").status.success());
    assert_eq!(
        std::fs::read_to_string(&hook).expect("still there"),
        "#!/bin/sh\nmake lint\n"
    );
}

/// The reminder at a stop is learned from: what it named and the agent then added before the
/// next stop (committed or not) is an accept, what it left out a reject, recorded like a note's decision (the
/// store's history holds them; the rates move). An `inform` boundary, which the agent never
/// reads, records nothing.
#[test]
fn a_stop_reminder_learns_from_what_the_agent_adds_and_leaves_out() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let (ws, _) = edited_validated_workspace(&env);
    let stop = |active: bool, boundary: &str| stop_hook(&env, &ws, active, boundary);
    let rows = stored_rows;
    let told = stop(false, "inform");
    assert!(told.contains("Documentation/INDEX.md"), "{told}");
    assert!(rows(&env).is_empty(), "an inform boundary records nothing");

    let said: Value = serde_json::from_str(&stop(false, "remind")).expect("an answer");
    let reason = said["reason"].as_str().expect("a reason");
    assert!(reason.contains("- update CHANGELOG.md "), "{reason}");
    assert!(
        reason.contains("- update Documentation/INDEX.md "),
        "{reason}"
    );
    // The agent adds the changelog only, commits the change, and stops again: what it
    // committed since the reminder counts (the work tree is clean by then).
    std::fs::write(ws.join("CHANGELOG.md"), "changed\n").expect("edit the changelog");
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "--quiet", "-m", "plan"]);
    assert!(stop(true, "remind").trim().is_empty(), "no second reminder");
    let rows = rows(&env);
    changelog_added_index_left_out(&rows);
    // What became of a reminder is each companion's, at the boundary: the family's row (its
    // notes on edits) is left alone.
    assert!(
        !rows
            .iter()
            .any(|r| r["family"] == "Plan" && r["companion"].is_null()),
        "{rows:?}"
    );
}

/// The Plan rows after a boundary that named the changelog and the index, of which the agent
/// then added the changelog only: one accept and one reject, in their boundary rows.
fn changelog_added_index_left_out(rows: &[Value]) {
    let row = |companion: &str| {
        rows.iter()
            .find(|r| r["family"] == "Plan" && r["companion"] == companion)
            .filter(|r| r["boundary"] == true)
            .unwrap_or_else(|| panic!("no Plan {companion} boundary row: {rows:?}"))
    };
    assert_eq!(row("CHANGELOG.md")["accepts"], 1, "{rows:?}");
    assert_eq!(row("CHANGELOG.md")["rejects"], 0, "{rows:?}");
    assert_eq!(row("Documentation/INDEX.md")["accepts"], 0, "{rows:?}");
    assert_eq!(row("Documentation/INDEX.md")["rejects"], 1, "{rows:?}");
}

/// The rate rows of the daemon's store in `env`'s HOME, read from the file once the daemon
/// that holds it has stopped.
fn stored_rows(env: &Env) -> Vec<Value> {
    drop(StopDaemon(env));
    let store = env.home().join(".dsh/playform/hook-dsh-doc-suggester.redb");
    crate::common::wait_until("the daemon lets go of the store", || {
        env.command(&["rates", "--store", store.to_str().expect("utf-8"), "--json"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| serde_json::from_slice::<Vec<Value>>(&o.stdout).ok())
    })
}

/// A commit's boundary learns as a Stop reminder does: what the hook before `git commit`
/// named and the agent then added (in a later commit of the turn) is an accept, what it left
/// out a reject, settled when the turn ends.
#[test]
fn a_commit_boundary_learns_from_what_the_agent_adds_after_it() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_workspace(&env);
    std::fs::write(ws.join("Documentation/Plans/X.md"), "changed\n").expect("edit the plan");
    git(&ws, &["add", "Documentation/Plans/X.md"]);
    let said: Value =
        serde_json::from_str(&commit_hook(&env, &ws, "git commit -m plan")).expect("an answer");
    let context = said["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("context");
    assert!(context.contains("- CHANGELOG.md (Plan "), "{context}");
    assert!(
        context.contains("- Documentation/INDEX.md (Plan "),
        "{context}"
    );
    // The commit goes ahead as it was; then the agent adds the changelog in a second commit
    // and the turn ends (a Stop that reminds of nothing: `--boundary off`).
    git(&ws, &["commit", "--quiet", "-m", "plan"]);
    std::fs::write(ws.join("CHANGELOG.md"), "changed\n").expect("edit the changelog");
    git(&ws, &["add", "-A"]);
    git(&ws, &["commit", "--quiet", "-m", "changelog"]);
    assert!(stop_hook(&env, &ws, false, "off").trim().is_empty());
    let rows = stored_rows(&env);
    changelog_added_index_left_out(&rows);
}

/// Each companion a boundary names is a claim of its own: a Stop reminder stops naming the one
/// the agent leaves out turn after turn (once its evidence outweighs the prior and its rate is
/// under `followThreshold`, still well above `pruneBelow`, under which a note on an edit would
/// leave it out too), goes on naming the ones it adds, and `check-change` lists what the
/// reminder would.
#[test]
fn a_boundary_stops_naming_what_the_agent_keeps_leaving_out() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = committed_validated_workspace(&env);
    let plan = ws.join("Documentation/Plans/X.md");
    let index = "- update Documentation/INDEX.md ";
    let mut reminded_of_index = 0;
    for round in 0..6 {
        std::fs::write(&plan, format!("round {round}\n")).expect("edit the plan");
        let said: Value =
            serde_json::from_str(&stop_hook(&env, &ws, false, "remind")).expect("a reminder");
        // What the claims jointly vouch for blocks; the user is told the rest.
        let reason = said["reason"].as_str().expect("a reason");
        let named = format!("{reason}\n{}", said["systemMessage"].as_str().unwrap_or(""));
        assert!(
            named.contains("- update CHANGELOG.md "),
            "round {round}: {named}"
        );
        if named.contains(index) {
            reminded_of_index += 1;
        }
        // The agent adds every companion but the index (in the first round, the index too),
        // commits, and stops again.
        let added = if round == 0 { 0 } else { 1 };
        for file in &PLAN_COMPANIONS[added..] {
            std::fs::write(ws.join(file), format!("round {round}\n")).expect("edit");
        }
        git(&ws, &["add", "-A"]);
        git(&ws, &["commit", "--quiet", "-m", "plan"]);
        assert!(stop_hook(&env, &ws, true, "remind").trim().is_empty());
    }
    assert!(
        (3..6).contains(&reminded_of_index),
        "named until its misses outweighed the prior, then not: {reminded_of_index} of 6"
    );
    std::fs::write(&plan, "last\n").expect("edit the plan");
    let report = check_change_json(&env, &ws);
    let missing: Vec<&str> = report["missing"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m["companion"].as_str())
        .collect();
    assert!(missing.contains(&"CHANGELOG.md"), "{report}");
    assert!(!missing.contains(&"Documentation/INDEX.md"), "{report}");
}

/// With a repository's pack the report and the Stop reminder speak the plain note's words:
/// what to do with each companion (create the test, add a fragment named like those there,
/// update the one page of a glob that is about the file) and why, then the files calling
/// for it.
#[test]
fn the_boundary_speaks_the_plain_notes_words() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let ws = env.ws();
    let pack = serde_json::json!({"families": [{"name": "Attr", "rules": ["src/attr/*.py"],
        "companions": [
            {"path": "tests/test_{}.py", "prior": 1.0, "validated": {"named": 100, "followed": 100}},
            {"path": "changelog.d/<name>.<ext>", "prior": 0.9,
                "validated": {"named": 100, "followed": 100}},
            {"path": "docs/*.rst", "prior": 0.8, "validated": {"named": 100, "followed": 100}}]}]});
    env.write_ws(".dsh/doc-pack.json", &pack.to_string());
    for file in [
        "src/attr/shapes.py",
        "tests/conftest.py",
        "changelog.d/12.change.md",
        "changelog.d/9.change.md",
        "docs/api.rst",
        "docs/shapes-guide.rst",
        "docs/index.rst",
        "docs/glossary.rst",
    ] {
        env.write_ws(file, "");
    }
    let ws = {
        git(&ws, &["init", "--quiet"]);
        git(&ws, &["add", "."]);
        git(&ws, &["commit", "--quiet", "-m", "c0"]);
        ws
    };
    std::fs::write(ws.join("src/attr/shapes.py"), "changed\n").expect("edit");
    let report = check_change_json(&env, &ws);
    let lines: Vec<&str> = report["missing"]
        .as_array()
        .expect("missing")
        .iter()
        .filter_map(|m| m["line"].as_str())
        .collect();
    let why = "(the repository's doc pack lists it)";
    assert_eq!(
        lines,
        [
            format!("create tests/test_shapes.py {why}"),
            format!("add a new file to changelog.d/, named like changelog.d/12.change.md {why}"),
            format!("update docs/shapes-guide.rst {why}"),
        ],
        "{report}"
    );
    let said: Value =
        serde_json::from_str(&stop_hook(&env, &ws, false, "remind")).expect("an answer");
    let reason = said["reason"].as_str().expect("a reason");
    assert!(
        reason.contains(&format!(
            "\n- create tests/test_shapes.py {why}; for src/attr/shapes.py"
        )),
        "{reason}"
    );
}
