//! `docsuggest hook`: real-shaped harness events piped into the real binary, one process per
//! event as the harness runs them, all sharing the daemon the first one starts.

use crate::common::{
    Env, WAIT_LIMIT, golden, poll_within, wait_for_exit, wait_for_exit_within, wait_until,
};
use docsuggest_host::client::Client;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A temporary HOME whose hooks share one socket and one store; the daemon they start is
/// stopped with SIGTERM when this drops.
struct Hooks {
    env: Env,
    /// Run as `docsuggest-hook` (the lean entry point) instead of `docsuggest hook`.
    lean: bool,
}

impl Hooks {
    fn new() -> Hooks {
        Hooks {
            env: Env::new(),
            lean: false,
        }
    }

    fn socket(&self) -> PathBuf {
        self.env.home().join("state/docsuggest.sock")
    }

    fn store(&self) -> PathBuf {
        self.env.store("hooks.redb")
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.env.home().join("state/docsuggest.sock.log"))
            .unwrap_or_default()
    }

    /// A fixture with its placeholders filled.
    fn event(&self, name: &str, session: &str, file: &str) -> Vec<u8> {
        golden(&format!("hooks/{name}.json"))
            .replace("{WS}", &self.env.ws().display().to_string())
            .replace("{HOME}", &self.env.home().display().to_string())
            .replace("{SESSION}", session)
            .replace("{FILE}", file)
            .replace("{TURN}", "turn-1")
            .into_bytes()
    }

    fn command(&self, harness: &str) -> Command {
        let socket = self.socket().display().to_string();
        let store = self.store().display().to_string();
        // A generous budget: a cold debug daemon on a busy machine may need more than the
        // default half second, and this budget only ends a hung hook.
        let args = [
            "--harness",
            harness,
            "--socket",
            &socket,
            "--store",
            &store,
            "--timeout-ms",
            "30000",
        ];
        if self.lean {
            return self
                .env
                .command_of(env!("CARGO_BIN_EXE_docsuggest-hook"), &args);
        }
        let mut command = self.env.command(&["hook"]);
        command.args(args);
        command
    }

    fn spawn(&self, harness: &str, input: Vec<u8>) -> Child {
        let mut child = self
            .command(harness)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hook starts");
        let mut stdin = child.stdin.take().expect("a stdin pipe");
        stdin.write_all(&input).expect("the event is written");
        drop(stdin);
        child
    }

    /// Runs one hook process; answers its stdout after checking it exited 0.
    fn hook(&self, harness: &str, input: Vec<u8>) -> String {
        let output = self
            .spawn(harness, input)
            .wait_with_output()
            .expect("the hook ends");
        stdout_of(&output)
    }

    fn daemon_pid(&self) -> Option<u32> {
        let pid_file = self.socket().with_extension("sock.pid");
        std::fs::read_to_string(pid_file).ok()?.trim().parse().ok()
    }

    /// Stops the daemon with SIGTERM and waits until it is gone.
    fn stop_daemon(&self) {
        let Some(pid) = self.daemon_pid() else {
            return;
        };
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        wait_until(&format!("the daemon {pid} to stop on SIGTERM"), || {
            (!alive(pid)).then_some(())
        });
    }

    fn client(&self) -> Client {
        Client::connect(self.socket()).expect("the daemon answers")
    }
}

impl Drop for Hooks {
    fn drop(&mut self) {
        if let Some(pid) = self.daemon_pid() {
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
        }
    }
}

fn alive(pid: u32) -> bool {
    Command::new("kill")
        .args(["-0", &pid.to_string()])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn stdout_of(output: &Output) -> String {
    assert!(
        output.status.success(),
        "the hook exited {:?}: {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout.clone()).expect("UTF-8 stdout")
}

const PLAN: &str = "Documentation/Plans/X.md";
const INDEX: &str = "Documentation/INDEX.md";

fn row<'a>(rows: &'a Value, family: &str, companion: &str) -> &'a Value {
    rows.as_array()
        .and_then(|rows| {
            rows.iter()
                .find(|r| r["family"] == family && r["companion"] == companion)
        })
        .unwrap_or_else(|| panic!("no {family}/{companion} row in {rows}"))
}

#[test]
fn a_plan_read_names_its_companions_and_a_companion_read_in_another_process_is_an_accept() {
    let hooks = Hooks::new();
    let claude = "claude-code";
    let read = |file: &str| {
        hooks.hook(
            claude,
            hooks.event("claude-post-tool-use-read", "sess-1", file),
        )
    };

    assert_eq!(read(PLAN), golden("hooks/plan-note.out"));
    // The same note is not repeated within the turn.
    assert_eq!(read(PLAN), "");
    // The companion read is the follow-through; no new note is due for it.
    assert_eq!(read(INDEX), "");
    // The prompt starts a new turn: the window closes (the rates move) and the plan is due
    // its note again — now with evidence, so it shows how likely it is followed.
    assert_eq!(
        hooks.hook(
            claude,
            hooks.event("claude-user-prompt-submit", "sess-1", "")
        ),
        ""
    );
    let again: Value = serde_json::from_str(&read(PLAN)).expect("a hook answer");
    let context = again["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default();
    assert!(
        context.starts_with("[doc-suggester] Plan task (confidence 0.")
            && context.contains("\n- Documentation/INDEX.md"),
        "{again}"
    );
    assert_eq!(
        hooks.hook(claude, hooks.event("claude-session-end", "sess-1", "")),
        ""
    );

    let ws = hooks.env.ws().display().to_string();
    let live = hooks.client().rates(&ws).expect("rates over the socket");
    assert_eq!(row(&live["rows"], "Plan", INDEX)["accepts"], 1, "{live}");
    assert_eq!(
        row(&live["rows"], "Plan", "CHANGELOG.md")["rejects"],
        1,
        "{live}"
    );

    hooks.stop_daemon();
    let store = hooks.store().display().to_string();
    let stored: Value =
        serde_json::from_str(&hooks.env.ok(&["rates", "--store", &store, "--json"], b""))
            .expect("rates --json is JSON");
    assert_eq!(row(&stored, "Plan", INDEX)["accepts"], 1, "{stored}");
}

/// `docsuggest-hook`, the lean entry point, answers as `docsuggest hook` does: it starts the
/// daemon from the `docsuggest` beside it, names the plan's companions, and the companion read
/// in the next process is an accept; a command line it refuses still exits 0, silent.
#[test]
fn the_lean_entry_point_answers_as_the_hook_subcommand_through_the_docsuggest_beside_it() {
    let hooks = Hooks {
        env: Env::new(),
        lean: true,
    };
    let read = |file: &str| {
        hooks.hook(
            "claude-code",
            hooks.event("claude-post-tool-use-read", "sess-1", file),
        )
    };
    assert_eq!(read(PLAN), golden("hooks/plan-note.out"));
    assert!(hooks.log().contains("started"), "{}", hooks.log());
    let pid = hooks.daemon_pid().expect("the daemon's pid file");
    let daemon = std::fs::read_link(format!("/proc/{pid}/exe")).expect("the daemon's executable");
    assert_eq!(
        daemon,
        Path::new(env!("CARGO_BIN_EXE_docsuggest")),
        "the daemon is the docsuggest beside the entry point"
    );
    assert_eq!(read(INDEX), "");
    let ws = hooks.env.ws().display().to_string();
    let live = hooks.client().rates(&ws).expect("rates over the socket");
    assert_eq!(
        hooks.hook(
            "claude-code",
            hooks.event("claude-user-prompt-submit", "sess-1", "")
        ),
        ""
    );
    let live_after = hooks.client().rates(&ws).expect("rates over the socket");
    assert_eq!(
        row(&live_after["rows"], "Plan", INDEX)["accepts"],
        1,
        "{live} {live_after}"
    );

    let refused = hooks
        .env
        .command_of(
            env!("CARGO_BIN_EXE_docsuggest-hook"),
            &["--harness", "nope"],
        )
        .stdin(Stdio::null())
        .output()
        .expect("the entry point runs");
    assert!(refused.status.success(), "{refused:?}");
    assert!(refused.stdout.is_empty(), "{refused:?}");
    assert!(
        String::from_utf8_lossy(&refused.stderr)
            .starts_with("docsuggest-hook: ignored the event: "),
        "{refused:?}"
    );
}

#[test]
fn codex_apply_patch_judges_each_file_and_a_new_turn_id_is_a_turn() {
    let hooks = Hooks::new();
    let patch = |session: &str| hooks.event("codex-post-tool-use-apply-patch", session, PLAN);
    let first = hooks.hook("codex", patch("codex-1"));
    assert_eq!(first, golden("hooks/plan-note.out"));
    assert_eq!(
        hooks.hook("codex", patch("codex-1")),
        "",
        "the same turn id: no repeat"
    );
    let ws = hooks.env.ws().display().to_string();
    let rates = |client: &mut Client| client.rates(&ws).expect("rates over the socket");
    let open = rates(&mut hooks.client());
    // The window is still open: nothing has moved yet.
    assert_eq!(open["rows"], serde_json::json!([]), "{open}");
    // A tool call of a later turn, with no prompt hook before it, still starts the turn: the
    // first turn's window closes, with its untouched companions rejected.
    let later = String::from_utf8(patch("codex-1"))
        .expect("UTF-8")
        .replace("turn-1", "turn-2")
        .into_bytes();
    hooks.hook("codex", later);
    let closed = rates(&mut hooks.client());
    assert_eq!(
        row(&closed["rows"], "Plan", "CHANGELOG.md")["rejects"],
        1,
        "{closed}"
    );
    assert_eq!(
        hooks.hook(
            "codex",
            hooks.event("codex-user-prompt-submit", "codex-1", "")
        ),
        ""
    );
    assert!(
        hooks.log().contains("started: daemon pid"),
        "{}",
        hooks.log()
    );
    hooks.stop_daemon();
}

#[test]
fn parallel_hooks_start_one_daemon() {
    let hooks = Hooks::new();
    let children: Vec<Child> = (0..6)
        .map(|i| {
            let event = hooks.event("claude-post-tool-use-read", &format!("par-{i}"), PLAN);
            hooks.spawn("claude-code", event)
        })
        .collect();
    for child in children {
        let output = child.wait_with_output().expect("the hook ends");
        assert_eq!(stdout_of(&output), golden("hooks/plan-note.out"));
    }
    let log = hooks.log();
    assert_eq!(log.matches("started: daemon pid").count(), 1, "{log}");
    let stats = hooks.client().stats().expect("stats");
    assert_eq!(stats["stats"]["judged"], 6, "{stats}");
    hooks.stop_daemon();
}

#[test]
fn a_removed_socket_file_is_answered_again_by_the_same_daemon() {
    let hooks = Hooks::new();
    let note = golden("hooks/plan-note.out");
    let event = |session: &str| hooks.event("claude-post-tool-use-read", session, PLAN);
    assert_eq!(hooks.hook("claude-code", event("before")), note);
    let pid = hooks.daemon_pid().expect("the daemon's pid");
    std::fs::remove_file(hooks.socket()).expect("remove the socket");
    std::fs::remove_file(hooks.socket().with_extension("sock.pid")).expect("remove the pid file");
    // The hook waits for the live daemon (it holds the socket's owner lock) rather than
    // starting a second one; the daemon re-creates its socket within its check interval.
    assert_eq!(hooks.hook("claude-code", event("after")), note);
    assert_eq!(hooks.daemon_pid(), Some(pid), "the same daemon answers");
    let log = hooks.log();
    assert_eq!(log.matches("started: daemon pid").count(), 1, "{log}");
    let stats = hooks.client().stats().expect("stats");
    assert_eq!(
        stats["stats"]["judged"], 2,
        "one engine judged both: {stats}"
    );
    hooks.stop_daemon();
}

#[test]
fn every_bad_input_exits_0_with_empty_stdout_and_a_logged_reason() {
    let hooks = Hooks::new();
    let ws = hooks.env.ws().display().to_string();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"".to_vec(), "bad-input"),
        (b"not json".to_vec(), "bad-input"),
        (b"[1,2]".to_vec(), "bad-input"),
        (b"\xff\xfe{".to_vec(), "bad-input"),
        (br#"{"hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Read"}"#.to_vec(), "bad-input"),
        (br#"{"hook_event_name":"Notification","session_id":"s","message":"hi"}"#.to_vec(), "skip"),
        (
            format!(r#"{{"hook_event_name":"PostToolUse","session_id":"s","cwd":"{ws}","tool_name":"Bash","tool_input":{{"command":"ls"}}}}"#)
                .into_bytes(),
            "skip",
        ),
        (
            format!(r#"{{"hook_event_name":"PostToolUse","session_id":"s","cwd":"{ws}","tool_name":"Read","tool_input":{{"file_path":7}}}}"#)
                .into_bytes(),
            "skip",
        ),
    ];
    for (input, kind) in &cases {
        let before = hooks.log().lines().count();
        let out = hooks.hook("claude-code", input.clone());
        assert_eq!(out, "", "{}", String::from_utf8_lossy(input));
        let log = hooks.log();
        let last = log.lines().nth(before).unwrap_or_default();
        assert!(
            last.contains(&format!("hook claude-code {kind}: ")),
            "{last}"
        );
    }
    // None of them needed the engine, so no daemon was started.
    assert_eq!(hooks.daemon_pid(), None);
}

#[test]
fn a_daemon_that_cannot_start_leaves_the_hook_silent() {
    let hooks = Hooks::new();
    // Something that is not a socket where the socket goes: the daemon refuses to replace
    // it and exits.
    std::fs::create_dir_all(hooks.socket().parent().expect("a parent")).expect("mkdir");
    std::fs::write(hooks.socket(), b"not a socket").expect("write");
    let event = hooks.event("claude-post-tool-use-read", "s", PLAN);
    assert_eq!(hooks.hook("claude-code", event.clone()), "");
    let log = hooks.log();
    assert!(
        log.contains("no-daemon: the daemon exited before answering"),
        "{log}"
    );

    // A socket where no directory can be made.
    let blocked = hooks.env.home().join("file");
    std::fs::write(&blocked, "").expect("write");
    let output = hooks
        .env
        .command(&[
            "hook",
            "--socket",
            &blocked.join("s.sock").display().to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().expect("stdin").write_all(&event)?;
            child.wait_with_output()
        })
        .expect("the hook runs");
    assert_eq!(stdout_of(&output), "");
}

#[test]
fn an_idle_daemon_stops_by_itself() {
    let env = Env::new();
    let socket = env.home().join("idle.sock");
    let store = env.store("idle.redb");
    let mut child = env
        .command(&[
            "serve",
            "--socket",
            &socket.display().to_string(),
            "--store",
            &store.display().to_string(),
            "--idle-timeout",
            "1",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let status = wait_for_exit(&mut child, "the idle daemon to stop");
    assert!(status.success(), "{status:?}");
    assert!(!socket.exists(), "the socket file is removed");
}

fn install(env: &Env, args: &[&str]) -> String {
    let mut full = vec![args[0], "--harness", args[1], "--project"];
    let ws = env.ws().display().to_string();
    full.push(&ws);
    full.extend(&args[2..]);
    env.ok(&full, b"")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

#[test]
fn install_hooks_keeps_other_settings_and_is_idempotent() {
    let env = Env::new();
    for (harness, file) in [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
    ] {
        let path = env.ws().join(file);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        let original = r#"{"model":"opus","env":{"A":"1"},"hooks":{"PostToolUse":[{"matcher":"Write","hooks":[{"type":"command","command":"prettier --write"}]}],"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"./guard.sh","timeout":3}]}]}}"#;
        std::fs::write(&path, original).expect("write");
        let before: Value = serde_json::from_str(original).expect("JSON");

        let dry = install(&env, &["install-hooks", harness, "--dry-run"]);
        assert!(dry.contains("+") && dry.contains("hook --harness"), "{dry}");
        assert_eq!(
            std::fs::read_to_string(&path).expect("read"),
            original,
            "a dry run writes nothing"
        );

        install(&env, &["install-hooks", harness]);
        let once = read_json(&path);
        let bytes = std::fs::read(&path).expect("read");
        assert_eq!(once["model"], before["model"]);
        assert_eq!(once["env"], before["env"]);
        // The user's own groups stay first, ours after them.
        assert_eq!(
            once["hooks"]["PreToolUse"][0],
            before["hooks"]["PreToolUse"][0]
        );
        assert_eq!(
            once["hooks"]["PostToolUse"][0],
            before["hooks"]["PostToolUse"][0]
        );
        let ours = once["hooks"]["PostToolUse"][1]["hooks"][0]["command"]
            .as_str()
            .unwrap_or_default();
        // Installed by path here, so the lean entry point beside the binary runs them.
        assert!(
            ours.ends_with(&format!("docsuggest-hook --harness {harness}")),
            "{ours}"
        );
        assert!(once["hooks"]["UserPromptSubmit"].is_array(), "{once}");

        let again = install(&env, &["install-hooks", harness]);
        assert!(again.starts_with("unchanged"), "{again}");
        assert_eq!(
            std::fs::read(&path).expect("read"),
            bytes,
            "a second install changes nothing"
        );

        install(&env, &["uninstall-hooks", harness]);
        assert_eq!(read_json(&path), before, "uninstall removes only ours");
    }
}

// Zero-config: a git repository with history and no pack file, its pack mined by the daemon.

/// A repository under the HOME whose history pairs every `src/modK.py` change with
/// `tests/test_modK.py` (mined: family `src-py`, companion `tests/test_{}.py`); no pack file,
/// no built-in signature on the way up.
fn mined_repository(hooks: &Hooks) -> PathBuf {
    let repo = hooks.env.home().join("repo");
    crate::init::convention_history(&repo, 40);
    assert!(!repo.join(".dsh/doc-pack.json").exists());
    repo
}

/// A Claude Code `PostToolUse` event of an `Edit` of `file` (relative to `repo`), cwd `repo`.
fn claude_edit(repo: &Path, session: &str, file: &str) -> Vec<u8> {
    let path = repo.join(file).display().to_string();
    serde_json::json!({
        "session_id": session,
        "transcript_path": format!("/nonexistent/.claude/projects/repo/{session}.jsonl"),
        "cwd": repo.display().to_string(),
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": path, "old_string": "0", "new_string": "1", "replace_all": false},
        "tool_response": {"filePath": path, "oldString": "0", "newString": "1", "originalFile": "0",
            "structuredPatch": [], "userModified": false, "replaceAll": false},
        "tool_use_id": "toolu_01zeroconfig"
    })
    .to_string()
    .into_bytes()
}

/// A Claude Code `UserPromptSubmit` event (the next turn), cwd `repo`.
fn claude_prompt(repo: &Path, session: &str) -> Vec<u8> {
    serde_json::json!({
        "session_id": session,
        "transcript_path": format!("/nonexistent/.claude/projects/repo/{session}.jsonl"),
        "cwd": repo.display().to_string(),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": "Next change."
    })
    .to_string()
    .into_bytes()
}

/// The `additionalContext` of a hook's stdout (`None` when the hook was silent).
fn additional_context(stdout: &str) -> Option<String> {
    if stdout.is_empty() {
        return None;
    }
    let value: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{stdout}: {e}"));
    assert_eq!(
        value["hookSpecificOutput"]["hookEventName"], "PostToolUse",
        "{value}"
    );
    let text = value["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no additionalContext: {value}"));
    Some(text.to_string())
}

impl Hooks {
    /// The daemon's ledger log (the default `logFile` under the temporary HOME).
    fn ledger(&self) -> String {
        std::fs::read_to_string(
            self.env
                .home()
                .join(".dsh/playform/hook-dsh-doc-suggester.log"),
        )
        .unwrap_or_default()
    }

    /// Starts the daemon with a hook event that names no family file (a `Read` of the
    /// repository's README, which starts mining), then waits until the daemon judges in `repo`
    /// with a mined pack. The wait asks the daemon directly, as an agent of its own, about a
    /// file no family claims: a family edit would be a judged call of the session's agent (a
    /// silence opens a shadow window that teaches), and a silent hook cannot tell
    /// `pack-mining` from a gated silence. Bounded; nothing is timed.
    fn wait_until_mined(&self, repo: &Path) {
        let readme = repo.join("README.md").display().to_string();
        let cwd = repo.display().to_string();
        let event = serde_json::json!({
            "session_id": "zc-start", "cwd": cwd, "hook_event_name": "PostToolUse",
            "tool_name": "Read", "tool_input": {"file_path": readme}
        });
        assert_eq!(self.hook("claude-code", event.to_string().into_bytes()), "");
        let mut client = self.client();
        let mut last = Value::Null;
        // Not `wait_until`: a failure shows the last answer and the daemon's ledger.
        let mined = poll_within(WAIT_LIMIT, || {
            last = client
                .judge("zc-probe", "read", &readme, Some(&cwd))
                .expect("judge over the socket");
            let ledger = last["ledger"].to_string();
            if ledger.contains("pack-mining") {
                return None;
            }
            assert!(ledger.contains("abstained no-signal 0.00"), "{last}");
            Some(())
        });
        assert!(
            mined.is_some(),
            "the pack of {} was not mined within {WAIT_LIMIT:?}: {last}\n{}",
            repo.display(),
            self.ledger()
        );
    }

    /// The `src-py` / `tests/test_{}.py` row the daemon holds for `repo`.
    fn template_row(&self, repo: &Path) -> Value {
        let live = self
            .client()
            .rates(&repo.display().to_string())
            .expect("rates over the socket");
        row(&live["rows"], "src-py", "tests/test_{}.py").clone()
    }
}

#[test]
fn zero_config_after_mining_a_family_edit_names_its_templated_companion_and_its_edit_is_an_accept()
{
    let hooks = Hooks::new();
    let repo = mined_repository(&hooks);
    let session = "zc-1";
    hooks.wait_until_mined(&repo);

    // The first edit of a family file once the pack is mined: a note naming the test module
    // by its real path.
    let out = hooks.hook("claude-code", claude_edit(&repo, session, "src/mod1.py"));
    let Some(context) = additional_context(&out) else {
        panic!(
            "the first src/mod1.py edit after mining was silent; the daemon's ledger:\n{}",
            hooks.ledger()
        );
    };
    // A plain note (a mined pack): what to do with the test module, and why.
    assert!(
        context.contains("\n- update tests/test_mod1.py (changed alongside in "),
        "{context}"
    );
    assert!(!context.contains("{}"), "{context}");

    // The companion edit, in another hook process, follows the note.
    hooks.hook(
        "claude-code",
        claude_edit(&repo, session, "tests/test_mod1.py"),
    );
    let ledger = hooks.ledger();
    assert!(
        ledger.contains("doc-suggester: accepted src-py tests/test_mod1.py\n"),
        "{ledger}"
    );
    // The next turn closes the window: the accept is the template's, as the pack writes it.
    assert_eq!(hooks.hook("claude-code", claude_prompt(&repo, session)), "");
    let live = hooks.template_row(&repo);
    assert_eq!(live["accepts"], 1, "{live}");

    hooks.stop_daemon();
    let store = hooks.store().display().to_string();
    let stored: Value =
        serde_json::from_str(&hooks.env.ok(&["rates", "--store", &store, "--json"], b""))
            .expect("rates --json is JSON");
    assert_eq!(
        row(&stored, "src-py", "tests/test_{}.py")["accepts"],
        1,
        "{stored}"
    );
}

/// Cold start: the repository's very first judged call, with no pack mined yet, is not lost.
/// Its hook waits (within its budget) while the daemon mines the small history, then asks
/// again: the note is there on that first call.
#[test]
fn zero_config_the_first_call_in_a_small_unmined_repository_gets_its_note() {
    let hooks = Hooks::new();
    let repo = mined_repository(&hooks);
    let out = hooks.hook("claude-code", claude_edit(&repo, "zc-cold", "src/mod1.py"));
    let Some(context) = additional_context(&out) else {
        panic!(
            "the first call was silent; the daemon's ledger:\n{}",
            hooks.ledger()
        );
    };
    assert!(
        context.contains("\n- update tests/test_mod1.py (changed alongside in "),
        "{context}"
    );
    assert!(
        hooks
            .ledger()
            .contains("doc-suggester: abstained pack-mining 0.00"),
        "the call found the pack being mined first:\n{}",
        hooks.ledger()
    );
    hooks.stop_daemon();
}

#[test]
fn zero_config_a_session_that_follows_the_convention_gets_the_templated_note_next_turn() {
    let hooks = Hooks::new();
    let repo = mined_repository(&hooks);
    let session = "zc-2";
    hooks.wait_until_mined(&repo);
    let edit = |file: &str| hooks.hook("claude-code", claude_edit(&repo, session, file));

    // Turn 1: the agent changes a module and its test, as the history does (whether the module
    // edit is a note or a gated silence, the test edit is a hit for `tests/test_{}.py`).
    edit("src/mod1.py");
    edit("tests/test_mod1.py");
    assert_eq!(hooks.hook("claude-code", claude_prompt(&repo, session)), "");

    // Turn 2: another module; what mod1 taught holds for the template, so mod2's test is named.
    let out = edit("src/mod2.py");
    let Some(context) = additional_context(&out) else {
        panic!(
            "the src/mod2.py edit of turn 2 was silent; the daemon's ledger:\n{}",
            hooks.ledger()
        );
    };
    assert!(
        context.contains("\n- update tests/test_mod2.py ("),
        "{context}"
    );
    assert!(!context.contains("{}"), "{context}");
    edit("tests/test_mod2.py");
    assert!(
        hooks
            .ledger()
            .contains("doc-suggester: accepted src-py tests/test_mod2.py\n"),
        "{}",
        hooks.ledger()
    );
    assert_eq!(hooks.hook("claude-code", claude_prompt(&repo, session)), "");
    let live = hooks.template_row(&repo);
    assert!(live["accepts"].as_u64().expect("accepts") >= 1, "{live}");
    assert_eq!(live["shadowMisses"], 0, "{live}");
    hooks.stop_daemon();
}

fn read_all(stream: Option<impl std::io::Read>) -> String {
    let mut text = String::new();
    if let Some(mut stream) = stream {
        let _ = stream.read_to_string(&mut text);
    }
    text
}

#[test]
fn a_stdin_held_open_or_flooded_never_holds_the_hook() {
    let hooks = Hooks::new();
    // A whole event on a stdin that stays open: parsed as it is, answered (the budget of
    // 30 s would end the hook silently; the bound below is only there to fail a hung test).
    let mut child = hooks
        .command("claude-code")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hook starts");
    let mut stdin = child.stdin.take().expect("a stdin pipe");
    stdin
        .write_all(&hooks.event("claude-post-tool-use-read", "open", PLAN))
        .expect("the event is written");
    let status = wait_for_exit_within(
        &mut child,
        "the hook to exit on an event on an open stdin",
        Duration::from_secs(20),
    );
    assert!(status.success(), "{status:?}");
    assert_eq!(read_all(child.stdout.take()), golden("hooks/plan-note.out"));
    drop(stdin);

    // Nothing on a stdin that stays open: silent once the default budget is spent.
    let socket = hooks.socket().display().to_string();
    let mut child = hooks
        .env
        .command(&["hook", "--socket", &socket])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hook starts");
    let stdin = child.stdin.take().expect("a stdin pipe");
    let status = wait_for_exit_within(
        &mut child,
        "the hook to exit on an empty open stdin",
        Duration::from_secs(10),
    );
    assert!(status.success(), "{status:?}");
    assert_eq!(read_all(child.stdout.take()), "");
    drop(stdin);
    assert!(
        hooks.log().contains("bad-input: stdin neither closed"),
        "{}",
        hooks.log()
    );

    // 100 MB: the hook stops reading at the limit, so the writer meets a closed pipe.
    let mut child = hooks
        .command("claude-code")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the hook starts");
    let mut stdin = child.stdin.take().expect("a stdin pipe");
    let writer = std::thread::spawn(move || {
        let mut chunk = br#"{"hook_event_name":"PostToolUse","tool_input":{"content":""#.to_vec();
        chunk.resize(1 << 20, b'x');
        let mut result = Ok(());
        for _ in 0..100 {
            result = stdin.write_all(&chunk);
            if result.is_err() {
                break;
            }
            chunk.fill(b'x');
        }
        result
    });
    let status = wait_for_exit_within(
        &mut child,
        "the hook to exit on a 100 MB event",
        Duration::from_secs(60),
    );
    assert!(status.success(), "{status:?}");
    assert_eq!(read_all(child.stdout.take()), "");
    let written = writer.join().expect("the writer ends");
    assert!(
        written.is_err(),
        "the hook read all 100 MB instead of stopping at its limit"
    );
    assert!(
        hooks
            .log()
            .contains("bad-input: the event is larger than 4194304 bytes"),
        "{}",
        hooks.log()
    );
    hooks.stop_daemon();
}

fn mode_of(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::symlink_metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .permissions()
        .mode()
        & 0o7777
}

use docsuggest_schema::beside::beside;

#[test]
fn state_files_are_owner_only_and_old_turn_ids_are_pruned() {
    let hooks = Hooks::new();
    let socket = hooks.socket();
    let turns = beside(&socket, ".turns");
    let old = turns.join("old-session");
    let fresh = turns.join("fresh-session");
    let two_days_ago = std::time::SystemTime::now() - Duration::from_secs(2 * 24 * 60 * 60);
    use std::os::unix::fs::PermissionsExt;

    // The hook makes the state directory; a Codex prompt remembers its turn id.
    let out = hooks.hook(
        "codex",
        hooks.event("codex-user-prompt-submit", "codex-1", ""),
    );
    assert_eq!(out, "");
    // A judged read writes a ledger line (the config's logFile, in the default state directory).
    let out = hooks.hook(
        "claude-code",
        hooks.event("claude-post-tool-use-read", "claude-1", PLAN),
    );
    assert_eq!(out, golden("hooks/plan-note.out"));
    let state = socket.parent().expect("a parent");
    assert_eq!(mode_of(state), 0o700, "the state directory");
    assert_eq!(mode_of(&turns), 0o700, "the turns directory");
    for file in [
        turns.join("codex-1"),
        beside(&socket, ".log"),
        beside(&socket, ".daemon.log"),
        beside(&socket, ".lock"),
        beside(&socket, ".owner"),
        beside(&socket, ".pid"),
        hooks
            .env
            .home()
            .join(".dsh/playform/hook-dsh-doc-suggester.log"),
    ] {
        assert_eq!(mode_of(&file), 0o600, "{}", file.display());
    }

    // Turn ids older than a day are removed when a new one is remembered.
    std::fs::write(&old, "turn-0").expect("write");
    std::fs::File::options()
        .write(true)
        .open(&old)
        .and_then(|f| f.set_modified(two_days_ago))
        .expect("age the old turn id");
    std::fs::write(&fresh, "turn-9").expect("write");
    let out = hooks.hook(
        "codex",
        hooks.event("codex-user-prompt-submit", "codex-2", ""),
    );
    assert_eq!(out, "");
    assert!(!old.exists(), "a turn id two days old is pruned");
    assert!(fresh.exists(), "a recent turn id is kept");
    assert!(turns.join("codex-2").exists());
    hooks.stop_daemon();

    // The default state directory, made 0755 by earlier versions, is narrowed to 0700, and
    // the ledger the daemon writes there is owner-only.
    let default = hooks.env.home().join(".dsh/playform");
    std::fs::create_dir_all(&default).expect("mkdir");
    std::fs::set_permissions(&default, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let output = hooks
        .env
        .command(&["hook"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child.stdin.take().expect("stdin").write_all(b"not json")?;
            child.wait_with_output()
        })
        .expect("the hook runs");
    assert_eq!(stdout_of(&output), "");
    assert_eq!(mode_of(&default), 0o700);
    assert_eq!(mode_of(&default.join("docsuggest.sock.log")), 0o600);
}

/// A Unix socket server run by `python3` as uid and gid 65534 (`nobody`), answering every
/// request line with a note and printing `got` for each line it receives.
const FOREIGN_SERVER: &str = r#"
import json, os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
os.chmod(sys.argv[1], 0o777)
s.listen(8)
print("ready", flush=True)
while True:
    c, _ = s.accept()
    f = c.makefile("rwb")
    for line in f:
        print("got", flush=True)
        req = json.loads(line)
        f.write((json.dumps({"id": req.get("id"), "ok": True, "note": {"text": "EVIL"}}) + "\n").encode())
        f.flush()
"#;

#[test]
fn another_users_socket_or_state_directory_is_never_trusted() {
    use std::io::{BufRead, BufReader};
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt;
    if rustix::process::geteuid().as_raw() != 0 {
        eprintln!(
            "MISSING: another_users_socket_or_state_directory_is_never_trusted needs root to run a \
             server as another user; not checked"
        );
        return;
    }
    let hooks = Hooks::new();
    let foreign = tempfile::tempdir().expect("a temporary directory");
    std::fs::set_permissions(foreign.path(), std::fs::Permissions::from_mode(0o777))
        .expect("chmod");
    let foreign_socket = foreign.path().join("f.sock");
    let mut server = Command::new("python3")
        .arg("-c")
        .arg(FOREIGN_SERVER)
        .arg(&foreign_socket)
        .current_dir("/")
        .uid(65534)
        .gid(65534)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 starts");
    let mut lines = BufReader::new(server.stdout.take().expect("stdout")).lines();
    // Stopped also when an assertion fails.
    struct Stop(std::process::Child);
    impl Drop for Stop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let server = Stop(server);
    assert_eq!(
        lines.next().and_then(Result::ok).as_deref(),
        Some("ready"),
        "the foreign server did not start"
    );
    // The other user's socket, moved where our daemon's socket goes.
    let state = hooks.socket().parent().expect("a parent").to_path_buf();
    std::fs::create_dir_all(&state).expect("mkdir");
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    std::fs::rename(&foreign_socket, hooks.socket()).expect("move the socket");
    let event = hooks.event("claude-post-tool-use-read", "s", PLAN);

    // Owned by the other user.
    assert_eq!(hooks.hook("claude-code", event.clone()), "");
    let log = hooks.log();
    assert!(
        log.contains("untrusted: ") && log.contains("owned by uid 65534"),
        "{log}"
    );
    // Ours by its file, but served by the other user.
    std::os::unix::fs::chown(hooks.socket(), Some(0), Some(0)).expect("chown");
    assert_eq!(hooks.hook("claude-code", event.clone()), "");
    let log = hooks.log();
    assert!(log.contains("the server runs as uid 65534"), "{log}");
    assert!(matches!(
        Client::connect(hooks.socket()),
        Err(docsuggest_host::client::ClientError::Untrusted { .. })
    ));
    // No daemon was started in its place.
    assert_eq!(hooks.daemon_pid(), None);

    // A state directory of another user: nothing is written there, not even the log.
    std::fs::remove_file(hooks.socket()).expect("remove the socket");
    std::os::unix::fs::chown(&state, Some(65534), Some(65534)).expect("chown");
    let before = hooks.log();
    assert_eq!(hooks.hook("claude-code", event), "");
    assert_eq!(hooks.log(), before);
    assert_eq!(hooks.daemon_pid(), None);
    assert!(!hooks.socket().exists());
    std::os::unix::fs::chown(&state, Some(0), Some(0)).expect("chown back");

    drop(server);
    let got: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(
        got.is_empty(),
        "requests reached the other user's server: {got:?}"
    );
}

#[test]
fn planted_symlinks_beside_the_socket_are_never_written_through() {
    let hooks = Hooks::new();
    let socket = hooks.socket();
    let state = socket.parent().expect("a parent");
    std::fs::create_dir_all(state).expect("mkdir");
    let victim = hooks.env.home().join("victim");
    std::fs::write(&victim, "precious\n").expect("write");
    let link = |path: PathBuf| std::os::unix::fs::symlink(&victim, path).expect("symlink");
    link(beside(&socket, ".log"));
    link(beside(&socket, ".daemon.log"));
    // Names a staged pid file could have had when it was named by the pid: it now has a
    // random name, created exclusively, so none of these is ever opened.
    let last: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .ok()
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(1);
    for pid in last + 1..last + 300 {
        link(beside(&socket, &format!(".pid.{pid}.tmp")));
    }

    let out = hooks.hook(
        "claude-code",
        hooks.event("claude-post-tool-use-read", "s", PLAN),
    );
    assert_eq!(
        out,
        golden("hooks/plan-note.out"),
        "the daemon still starts"
    );
    hooks.daemon_pid().expect("the daemon's pid file");
    assert!(
        std::fs::symlink_metadata(beside(&socket, ".pid"))
            .expect("the pid file")
            .is_file()
    );
    hooks.stop_daemon();
    assert_eq!(
        std::fs::read_to_string(&victim).expect("the victim"),
        "precious\n",
        "a write went through a planted symlink"
    );
}

/// Polls the daemon until its store is the file (a `flush` is a call, so a daemon on memory
/// retries its file); answers how long that took and whether it ever answered `memory`.
fn wait_for_the_file(hooks: &Hooks, bound: Duration) -> Result<(Duration, bool), String> {
    let started = Instant::now();
    let mut on_memory = false;
    let mut health = Value::Null;
    poll_within(bound, || {
        health = Value::Null;
        if let Ok(mut client) = Client::connect(hooks.socket()) {
            let _ = client.request(serde_json::json!({"op": "flush"}));
            if let Ok(stats) = client.stats() {
                health = stats["storeHealth"].clone();
            }
        }
        match health["kind"].as_str() {
            Some("redb") => return Some(()),
            Some("memory") => on_memory = true,
            _ => {}
        }
        None
    })
    .map(|()| (started.elapsed(), on_memory))
    .ok_or_else(|| format!("still not on its file after {bound:?}: {health}"))
}

/// Whether a hook's stdout is a note of the Plan family naming its index (kappa on a fresh
/// store, the learned confidence once it has evidence).
fn is_plan_note(stdout: &str) -> bool {
    let answer: Value = serde_json::from_str(stdout).unwrap_or_default();
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .is_some_and(|text| {
            text.starts_with("[doc-suggester] Plan task (")
                && text.contains("\n- Documentation/INDEX.md")
        })
}

#[test]
fn a_daemon_killed_again_and_again_under_concurrent_hooks_never_stays_on_memory() {
    let hooks = Hooks::new();
    let cycles: u64 = if std::env::var_os("DOCSUGGEST_LONG").is_some() {
        40
    } else {
        10
    };
    let (mut kills, mut started_on_memory, mut slowest, mut answered) =
        (0u64, 0u64, Duration::ZERO, 0u64);
    // Seeded, so a failing run can be run again as it was.
    let mut rng = <rand::rngs::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(0x2545_f491);
    let mut next = |n: u64| rand::RngExt::random_range(&mut rng, 0..n);
    for cycle in 0..cycles {
        // Four hook processes at once; the daemon is killed while they run.
        let children: Vec<Child> = (0..4)
            .map(|i| {
                let event =
                    hooks.event("claude-post-tool-use-read", &format!("k{cycle}-{i}"), PLAN);
                hooks.spawn("claude-code", event)
            })
            .collect();
        std::thread::sleep(Duration::from_millis(next(40)));
        if let Some(pid) = hooks.daemon_pid() {
            let killed = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status()
                .is_ok_and(|s| s.success());
            kills += u64::from(killed);
        }
        let mut followed = Vec::new();
        for (i, child) in children.into_iter().enumerate() {
            let output = child.wait_with_output().expect("the hook ends");
            assert!(output.status.success(), "a hook failed: {output:?}");
            // A hook whose daemon was killed under it stays silent; one answered names the
            // companions.
            let stdout = stdout_of(&output);
            if !stdout.is_empty() {
                assert!(is_plan_note(&stdout), "{stdout}");
                answered += 1;
                followed.push(format!("k{cycle}-{i}"));
            }
        }
        // The next hook starts a daemon (or finds the one a hook started after the kill).
        let session = format!("k{cycle}-after");
        let event = hooks.event("claude-post-tool-use-read", &session, PLAN);
        let after = hooks.hook("claude-code", event);
        assert!(
            is_plan_note(&after),
            "cycle {cycle}: {after:?}\n{}",
            hooks.log()
        );
        answered += 1;
        // The agents follow their notes, so the family keeps earning them.
        followed.push(session);
        for session in followed {
            let read = hooks.event("claude-post-tool-use-read", &session, INDEX);
            hooks.hook("claude-code", read);
        }
        let (took, memory) = wait_for_the_file(&hooks, Duration::from_secs(20))
            .unwrap_or_else(|e| panic!("cycle {cycle}: {e}\n{}", hooks.log()));
        started_on_memory += u64::from(memory);
        slowest = slowest.max(took);
    }
    let log = hooks.log();
    hooks.stop_daemon();
    let store = hooks.store().display().to_string();
    let check = hooks.env.ok(&["check", "--store", &store], b"");
    assert!(check.contains("ok"), "{check}");
    let history = hooks.env.ok(&["history", "--store", &store, "--json"], b"");
    eprintln!(
        "kill loop: {cycles} cycles, {kills} kills, {answered} hooks answered, {started_on_memory} \
         daemons seen on memory, each on its file within {slowest:?}; history {} bytes",
        history.len()
    );
    assert!(kills > 0, "no daemon was killed: {log}");
}
