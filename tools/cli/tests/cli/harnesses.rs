//! Copilot CLI, Cursor and OpenCode: their events in the shapes they send, piped into the real
//! hook, and their configs installed and uninstalled by the real binary.

use crate::check_change::{StopDaemon, edited_validated_workspace};
use crate::common::Env;
use serde_json::{Value, json};
use std::path::Path;

/// The hook's stdout for `event` under `--harness harness` (and `--event`, when given).
fn hook(env: &Env, harness: &str, named: Option<&str>, event: &Value) -> String {
    let mut args = vec!["hook", "--harness", harness, "--timeout-ms", "5000"];
    if let Some(named) = named {
        args.extend(["--event", named]);
    }
    let out = env.run(&args, event.to_string().as_bytes());
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .expect("UTF-8")
        .trim()
        .to_string()
}

#[track_caller]
fn answer(stdout: &str) -> Value {
    match serde_json::from_str(stdout) {
        Ok(value) => value,
        Err(e) => panic!("{stdout:?}: {e}"),
    }
}

/// Copilot CLI's camelCase events carry no event name (the installed command line gives it),
/// `toolArgs` as a JSON string and the file under `path`. The note comes back as a top-level
/// `additionalContext` (the only place Copilot reads it); `agentStop` has no
/// `stop_hook_active`, so the hook itself keeps the reminder to once per turn (the stop after
/// it settles it).
#[test]
fn copilot_gets_its_note_at_the_top_level_and_one_reminder_per_turn() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let (ws, plan) = edited_validated_workspace(&env);
    let cwd = ws.display().to_string();
    let args = json!({"path": plan.display().to_string(), "old_str": "a", "new_str": "b"});
    let edited = json!({"sessionId": "cp-1", "timestamp": 1, "cwd": cwd, "toolName": "edit",
        "toolArgs": args.to_string(), "toolResult": {"resultType": "success", "textResultForLlm": "ok"}});
    let out = hook(&env, "copilot", Some("postToolUse"), &edited);
    let log = env.home().join(".dsh/playform/docsuggest.sock.log");
    assert!(!out.is_empty(), "{:?}", std::fs::read_to_string(log));
    let said = answer(&out);
    assert!(said.get("hookSpecificOutput").is_none(), "{said}");
    let note = said["additionalContext"]
        .as_str()
        .expect("a top-level note");
    assert!(note.contains("Documentation/INDEX.md"), "{note}");

    // Copilot's VS Code-compatible events name themselves and say `tool_input.path`.
    let pascal = json!({"hook_event_name": "PostToolUse", "session_id": "cp-2", "cwd": cwd,
        "tool_name": "Edit", "tool_input": {"path": plan.display().to_string()}});
    let said = answer(&hook(&env, "copilot", None, &pascal));
    assert!(said["additionalContext"].is_string(), "{said}");

    let stop = json!({"sessionId": "cp-1", "timestamp": 2, "cwd": cwd,
        "transcriptPath": "/nonexistent", "stopReason": "end_turn"});
    let out = hook(&env, "copilot", Some("agentStop"), &stop);
    assert!(!out.is_empty(), "{:?}", std::fs::read_to_string(&log));
    let first = answer(&out);
    assert_eq!(first["decision"], "block", "{first}");
    assert!(
        first["reason"]
            .as_str()
            .is_some_and(|r| r.contains("Documentation/INDEX.md")),
        "{first}"
    );
    assert_eq!(
        hook(&env, "copilot", Some("agentStop"), &stop),
        "",
        "once a turn"
    );
    let prompt = json!({"sessionId": "cp-1", "timestamp": 3, "cwd": cwd, "prompt": "go on"});
    assert_eq!(
        hook(&env, "copilot", Some("userPromptSubmitted"), &prompt),
        ""
    );
}

/// Cursor shows nothing a hook prints after an edit, so `afterFileEdit` is answered with
/// nothing (the pack is made ready); its `stop` is the boundary, answered with a
/// `followup_message`, never again once Cursor is already following up (`loop_count`).
#[test]
fn cursor_is_reminded_at_stop_with_a_follow_up_message_once() {
    let env = Env::new();
    let _stop = StopDaemon(&env);
    let (ws, plan) = edited_validated_workspace(&env);
    let roots = json!([ws.display().to_string()]);
    let edited = json!({"hook_event_name": "afterFileEdit", "conversation_id": "cu-1",
        "generation_id": "g1", "workspace_roots": roots, "file_path": plan.display().to_string(),
        "edits": [{"old_string": "a", "new_string": "b"}]});
    assert_eq!(hook(&env, "cursor", None, &edited), "");
    let stop = |loops: u64| {
        json!({"hook_event_name": "stop", "conversation_id": "cu-1", "generation_id": "g1",
            "workspace_roots": roots, "status": "completed", "loop_count": loops})
    };
    let said = answer(&hook(&env, "cursor", None, &stop(0)));
    assert!(
        said["followup_message"]
            .as_str()
            .is_some_and(|m| m.contains("Documentation/INDEX.md")),
        "{said}"
    );
    assert_eq!(
        hook(&env, "cursor", None, &stop(1)),
        "",
        "already following up"
    );
}

fn install(env: &Env, verb: &str, harness: &str) -> String {
    let ws = env.ws().display().to_string();
    env.ok(&[verb, "--harness", harness, "--project", &ws], b"")
}

/// Each harness's config is written where it reads it, ours beside the user's own entries,
/// and uninstalling gives back the bytes there were (removing what installing created).
#[test]
fn copilot_cursor_and_opencode_configs_install_and_uninstall_byte_for_byte() {
    let env = Env::new();
    let ws = env.ws();
    let cursor = ws.join(".cursor/hooks.json");
    std::fs::create_dir_all(cursor.parent().expect("a parent")).expect("mkdir");
    let mine = "{\n  \"version\": 1,\n  \"hooks\": {\n    \"stop\": [\n      { \"command\": \"say done\" }\n    ]\n  }\n}\n";
    std::fs::write(&cursor, mine).expect("write");
    install(&env, "install-hooks", "cursor");
    let once: Value = serde_json::from_str(&read(&cursor)).expect("JSON");
    assert_eq!(once["hooks"]["stop"][0]["command"], "say done");
    let ours = once["hooks"]["stop"][1]["command"].as_str().expect("ours");
    assert!(ours.ends_with("--harness cursor"), "{ours}");
    assert!(
        once["hooks"]["afterFileEdit"][0]["command"].is_string(),
        "{once}"
    );
    assert!(install(&env, "install-hooks", "cursor").starts_with("unchanged"));
    install(&env, "uninstall-hooks", "cursor");
    assert_eq!(read(&cursor), mine);

    let copilot = ws.join(".github/hooks/docsuggest.json");
    install(&env, "install-hooks", "copilot");
    let value: Value = serde_json::from_str(&read(&copilot)).expect("JSON");
    assert_eq!(value["version"], 1);
    let bash = value["hooks"]["postToolUse"][0]["bash"]
        .as_str()
        .expect("ours");
    assert!(
        bash.ends_with("--harness copilot --event postToolUse"),
        "{bash}"
    );
    let status = env.ok(&["status", &ws.display().to_string()], b"");
    assert!(status.contains("Copilot CLI"), "{status}");
    install(&env, "uninstall-hooks", "copilot");
    assert!(!copilot.exists());
    // Copilot CLI runs the project's Claude Code hooks too: installing both says so.
    install(&env, "install-hooks", "claude-code");
    let both = env.run(
        &[
            "install-hooks",
            "--harness",
            "copilot",
            "--project",
            &ws.display().to_string(),
        ],
        b"",
    );
    assert!(both.status.success(), "{both:?}");
    let said = String::from_utf8_lossy(&both.stderr);
    assert!(said.contains("every note arrives twice"), "{said}");
    install(&env, "uninstall-hooks", "copilot");
    install(&env, "uninstall-hooks", "claude-code");
    assert!(
        !ws.join(".github/hooks").exists(),
        "its directory goes when empty"
    );

    let plugin = ws.join(".opencode/plugins/docsuggest.js");
    install(&env, "install-hooks", "opencode");
    let text = read(&plugin);
    assert!(text.contains("--harness opencode"), "{text}");
    assert!(text.contains("session.idle"), "{text}");
    install(&env, "uninstall-hooks", "opencode");
    assert!(!plugin.exists());
    // A plugin of that name that is not ours is never replaced nor removed.
    std::fs::create_dir_all(plugin.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&plugin, "export const Mine = async () => ({});\n").expect("write");
    let out = env.run(
        &[
            "install-hooks",
            "--harness",
            "opencode",
            "--project",
            &ws.display().to_string(),
        ],
        b"",
    );
    assert!(!out.status.success(), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not the plugin this command writes"),
        "{out:?}"
    );
    install(&env, "uninstall-hooks", "opencode");
    assert_eq!(read(&plugin), "export const Mine = async () => ({});\n");
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
