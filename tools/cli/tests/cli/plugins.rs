//! The Claude Code and Codex plugins of this repository: every file parses with the fields
//! its harness requires, the hooks are exactly the entries `install-hooks` writes, and every
//! hook command line, run as the harness runs it, understands a sample event of its event and
//! exits 0 with valid output. And `hook` on a command line it cannot use still exits 0. Each
//! plugin's `.mcp.json` runs `docsuggest mcp`, which answers the MCP handshake.

use crate::common::{Env, WAIT_LIMIT, golden, poll_within};
use docsuggest_cli::hook::install::plugin_command::plugin_command;
use docsuggest_cli::hook::{Harness, install};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn json_file(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn string<'a>(value: &'a Value, field: &str, file: &str) -> &'a str {
    value[field]
        .as_str()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| panic!("{file}: {field} must be a non-empty string: {value}"))
}

fn kebab(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// A plugin directory, its harness, and its hooks file.
struct Plugin {
    harness: Harness,
    root: PathBuf,
    hooks: PathBuf,
}

/// Claude Code: `.claude-plugin/marketplace.json` lists the plugin at the repository root,
/// whose `.claude-plugin/plugin.json` names it and whose `hooks/hooks.json` Claude Code
/// loads by default.
fn claude_plugin() -> Plugin {
    let marketplace = json_file(&repo().join(".claude-plugin/marketplace.json"));
    let file = ".claude-plugin/marketplace.json";
    assert!(kebab(string(&marketplace, "name", file)), "{marketplace}");
    string(&marketplace["owner"], "name", "marketplace owner");
    let plugins = marketplace["plugins"].as_array().expect("a plugins array");
    let entry = plugins
        .iter()
        .find(|p| p["name"] == "docsuggest")
        .expect("the docsuggest entry");
    let source = entry["source"].as_str().expect("a relative source");
    assert!(source.starts_with("./"), "{source}");
    let root = repo().join(source);

    let manifest = json_file(&root.join(".claude-plugin/plugin.json"));
    let file = ".claude-plugin/plugin.json";
    assert_eq!(string(&manifest, "name", file), "docsuggest");
    assert_eq!(
        string(&manifest, "version", file),
        env!("CARGO_PKG_VERSION")
    );
    string(&manifest, "description", file);
    // Naming the default hooks file again would load it twice.
    assert!(manifest.get("hooks").is_none(), "{manifest}");
    let hooks = root.join("hooks/hooks.json");
    Plugin {
        harness: Harness::ClaudeCode,
        root,
        hooks,
    }
}

/// Codex: `.agents/plugins/marketplace.json` lists the plugin in `plugins/codex` (Codex
/// refuses a local source that is the marketplace root itself), whose
/// `.codex-plugin/plugin.json` names its hooks file.
fn codex_plugin() -> Plugin {
    let marketplace = json_file(&repo().join(".agents/plugins/marketplace.json"));
    let file = ".agents/plugins/marketplace.json";
    assert!(kebab(string(&marketplace, "name", file)), "{marketplace}");
    let plugins = marketplace["plugins"].as_array().expect("a plugins array");
    let entry = plugins
        .iter()
        .find(|p| p["name"] == "docsuggest")
        .expect("the docsuggest entry");
    assert_eq!(entry["source"]["source"], "local", "{entry}");
    let path = entry["source"]["path"].as_str().expect("a local path");
    let inside = path.strip_prefix("./").expect("starts with ./");
    assert!(
        !inside.is_empty()
            && Path::new(inside)
                .components()
                .all(|c| matches!(c, std::path::Component::Normal(_))),
        "a path inside the marketplace root: {path}"
    );
    assert!(
        ["AVAILABLE", "INSTALLED_BY_DEFAULT"]
            .contains(&entry["policy"]["installation"].as_str().unwrap_or_default()),
        "{entry}"
    );
    assert!(
        ["ON_INSTALL", "ON_USE"].contains(
            &entry["policy"]["authentication"]
                .as_str()
                .unwrap_or_default()
        ),
        "{entry}"
    );
    let root = repo().join(inside);

    let manifest = json_file(&root.join(".codex-plugin/plugin.json"));
    let file = ".codex-plugin/plugin.json";
    assert_eq!(string(&manifest, "name", file), "docsuggest");
    assert_eq!(
        string(&manifest, "version", file),
        env!("CARGO_PKG_VERSION")
    );
    string(&manifest, "description", file);
    string(&manifest["interface"], "displayName", "interface");
    let hooks = string(&manifest, "hooks", file)
        .strip_prefix("./")
        .expect("a ./ path")
        .to_string();
    // Only the manifest belongs in .codex-plugin/.
    let beside: Vec<_> = std::fs::read_dir(root.join(".codex-plugin"))
        .expect("the manifest directory")
        .map(|e| e.expect("an entry").file_name())
        .collect();
    assert_eq!(beside, ["plugin.json"]);
    Plugin {
        harness: Harness::Codex,
        hooks: root.join(hooks),
        root,
    }
}

/// The plugins' hooks are the entries `install-hooks` writes, with the command that finds
/// the binary (`plugin_command`), byte for byte as written pretty; `UPDATE_EXPECT=1`
/// rewrites the files from it.
#[test]
fn the_plugins_hooks_are_what_install_hooks_writes() {
    for plugin in [claude_plugin(), codex_plugin()] {
        let mut file = json_file(&plugin.hooks);
        let keys: Vec<&String> = file.as_object().expect("an object").keys().collect();
        // Codex refuses a hooks file with other top-level keys.
        assert!(
            keys.iter().all(|k| *k == "hooks" || *k == "description"),
            "{}: {keys:?}",
            plugin.hooks.display()
        );
        let command = plugin_command(plugin.harness);
        let expected = install::hooks_value(plugin.harness, &command);
        file["hooks"] = expected;
        let text = serde_json::to_string_pretty(&file).expect("JSON") + "\n";
        expect_test::expect_file![&plugin.hooks].assert_eq(&text);
    }
}

/// PATH as a harness started from a dock may give it: the system's, nothing of ours.
const SYSTEM_PATH: &str = "/usr/bin:/bin";

/// The plugin's hook command finds `docsuggest` where an installer put it (here
/// `~/.cargo/bin`, off PATH) and runs it; installed nowhere, it tells the user once per
/// session, as a `systemMessage`, how to install it, and exits 0 with nothing for the agent.
#[test]
fn the_plugin_hook_finds_docsuggest_or_tells_the_user_once() {
    let home = Home { env: Env::new() };
    let command = plugin_command(Harness::ClaudeCode);
    let tmp = home.env.home().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    let run = |session: &str| -> Output {
        let event = sample(&home.env, Harness::ClaudeCode, "PostToolUse", Some("Read"));
        let event = String::from_utf8(event)
            .expect("UTF-8")
            .replace("\"session_id\":\"", &format!("\"session_id\":\"{session}"));
        home.shell(&command, event.as_bytes(), SYSTEM_PATH, &tmp)
    };
    // Nowhere: the message once per session.
    let first = run("s1");
    assert!(first.status.success(), "{first:?}");
    let said: Value = serde_json::from_slice(&first.stdout).expect("one JSON object");
    assert_eq!(
        said,
        json!({"systemMessage": docsuggest_cli::hook::install::plugin_command::MISSING})
    );
    let again = run("s1");
    assert!(
        again.status.success() && again.stdout.is_empty(),
        "{again:?}"
    );
    let other = run("s2");
    assert!(!other.stdout.is_empty(), "{other:?}");
    // In ~/.cargo/bin: found and run; the judged call is in the daemon's log.
    let bin = home.env.home().join(".cargo/bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_docsuggest"), bin.join("docsuggest"))
        .expect("symlink");
    let found = run("s3");
    assert!(found.status.success(), "{found:?}");
    let answer: Value = serde_json::from_slice(&found.stdout).expect("a hook answer");
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], "PostToolUse",
        "{answer}"
    );
    // The lean entry point beside it: that is what runs (here a script that says it ran,
    // then runs the real one).
    let ran = home.env.home().join("lean-ran");
    let lean = bin.join("docsuggest-hook");
    std::fs::write(
        &lean,
        format!(
            "#!/bin/sh\n: > '{}'\nexec '{}' \"$@\"\n",
            ran.display(),
            env!("CARGO_BIN_EXE_docsuggest-hook")
        ),
    )
    .expect("write");
    std::fs::set_permissions(&lean, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let lean_run = run("s4");
    assert!(lean_run.status.success(), "{lean_run:?}");
    assert!(
        ran.exists(),
        "the lean entry point did not run: {lean_run:?}"
    );
    let answer: Value = serde_json::from_slice(&lean_run.stdout).expect("a hook answer");
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], "PostToolUse",
        "{answer}"
    );
}

#[test]
fn the_plugins_mcp_servers_run_docsuggest_mcp() {
    let claude = claude_plugin();
    // Claude Code loads `.mcp.json` at the plugin root by default; Codex where its manifest
    // says.
    let manifest = json_file(&claude.root.join(".claude-plugin/plugin.json"));
    assert!(manifest.get("mcpServers").is_none(), "{manifest}");
    let codex = codex_plugin();
    let manifest = json_file(&codex.root.join(".codex-plugin/plugin.json"));
    assert_eq!(manifest["mcpServers"], "./.mcp.json", "{manifest}");
    let home = Home { env: Env::new() };
    for root in [&claude.root, &codex.root] {
        let file = json_file(&root.join(".mcp.json"));
        let servers = file["mcpServers"]
            .as_object()
            .expect("an mcpServers object");
        assert_eq!(servers.keys().collect::<Vec<_>>(), ["docsuggest"], "{file}");
        let server = &servers["docsuggest"];
        assert_eq!(server["command"], "docsuggest", "{file}");
        let args: Vec<&str> = server["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|a| a.as_str().expect("a string"))
            .collect();
        // Run as the harness runs it: the handshake and the tool list.
        let mut mcp = crate::mcp::Mcp::start(&home.env, &args);
        let init = mcp.initialize();
        assert_eq!(init["result"]["serverInfo"]["name"], "docsuggest", "{init}");
        let list = mcp.request("tools/list", json!({}));
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .expect("tools")
            .iter()
            .filter_map(|t| t["name"].as_str())
            .collect();
        assert_eq!(
            names,
            ["check_change", "companions", "why_silent"],
            "{}",
            root.display()
        );
        mcp.close();
    }
}

/// A temporary HOME whose default daemon, if a hook started one, is stopped at the end.
struct Home {
    env: Env,
}

impl Home {
    fn state(&self, name: &str) -> PathBuf {
        self.env.home().join(".dsh/playform").join(name)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.state("docsuggest.sock.log")).unwrap_or_default()
    }

    /// Runs the hook command line `command` with `sh -c`, as a harness runs it, on `path`
    /// (`TMPDIR` set to `tmp`) with `event` on stdin.
    fn shell(&self, command: &str, event: &[u8], path: &str, tmp: &Path) -> Output {
        let mut child = Command::new("sh")
            .args(["-c", command])
            .env_clear()
            .env("HOME", self.env.home())
            .env("PATH", path)
            .env("TMPDIR", tmp)
            .current_dir(self.env.home())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("sh starts");
        let mut stdin = child.stdin.take().expect("a stdin pipe");
        let _ = stdin.write_all(event);
        drop(stdin);
        child.wait_with_output().expect("the hook ends")
    }

    /// Runs `docsuggest ARGS` with `event` on stdin, as a harness runs a hook.
    fn hook(&self, args: &[&str], event: &[u8]) -> Output {
        let mut child = self
            .env
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the hook starts");
        let mut stdin = child.stdin.take().expect("a stdin pipe");
        // A hook that refused its arguments reads nothing: a broken pipe is fine.
        let _ = stdin.write_all(event);
        drop(stdin);
        child.wait_with_output().expect("the hook ends")
    }
}

impl Drop for Home {
    fn drop(&mut self) {
        // A daemon was spawned if its stderr log exists; it writes its pid file once bound.
        if !self.state("docsuggest.sock.daemon.log").exists() {
            return;
        }
        // Not `wait_until`: a drop must not fail the test.
        let pid = poll_within(WAIT_LIMIT, || {
            std::fs::read_to_string(self.state("docsuggest.sock.pid")).ok()
        });
        if let Some(pid) = pid {
            let _ = Command::new("kill").args(["-TERM", pid.trim()]).status();
        }
    }
}

const PLAN: &str = "Documentation/Plans/X.md";

/// A sample event of `event` (for `PostToolUse`, of `tool`), shaped as the harness sends it.
fn sample(env: &Env, harness: Harness, event: &str, tool: Option<&str>) -> Vec<u8> {
    let ws = env.ws().display().to_string();
    let file = format!("{ws}/{PLAN}");
    let fixture = |name: &str| -> Value {
        let text = golden(&format!("hooks/{name}.json"))
            .replace("{WS}", &ws)
            .replace("{HOME}", &env.home().display().to_string())
            .replace("{SESSION}", "plugin-session")
            .replace("{FILE}", PLAN)
            .replace("{TURN}", "turn-1");
        serde_json::from_str(&text).expect("a fixture")
    };
    let prefix = match harness {
        Harness::ClaudeCode => "claude",
        Harness::Codex => "codex",
        other => panic!("{other:?} has no plugin"),
    };
    let value = match (event, tool) {
        ("UserPromptSubmit", _) => fixture(&format!("{prefix}-user-prompt-submit")),
        ("SessionEnd", _) => fixture("claude-session-end"),
        ("Stop", _) => {
            let mut stop = fixture("codex-user-prompt-submit");
            stop["hook_event_name"] = json!("Stop");
            stop["stop_hook_active"] = json!(false);
            stop["last_assistant_message"] = json!("Done.");
            stop.as_object_mut().expect("an object").remove("prompt");
            stop
        }
        ("PreToolUse", Some("Bash")) => {
            let mut pre = fixture("claude-post-tool-use-read");
            pre["hook_event_name"] = json!("PreToolUse");
            pre["tool_name"] = json!("Bash");
            pre["tool_input"] = json!({"command": "git commit -m wip"});
            pre.as_object_mut()
                .expect("an object")
                .remove("tool_response");
            pre
        }
        ("PostToolUse", Some("apply_patch")) => fixture("codex-post-tool-use-apply-patch"),
        ("PostToolUse", Some(tool)) => {
            let input = match tool {
                "Read" | "read_file" => json!({"file_path": file}),
                "Write" => json!({"file_path": file, "content": ""}),
                "Edit" => json!({"file_path": file, "old_string": "a", "new_string": "b"}),
                "MultiEdit" => {
                    json!({"file_path": file, "edits": [{"old_string": "a", "new_string": "b"}]})
                }
                "NotebookEdit" => json!({"notebook_path": file, "new_source": ""}),
                "Grep" => json!({"pattern": "TODO", "path": ws, "glob": "*.md"}),
                "grep_files" => json!({"pattern": "TODO", "path": ws, "include": "*.md"}),
                "Glob" => json!({"pattern": "Documentation/**/*.md", "path": ws}),
                other => panic!("no sample event for the tool {other}: add one"),
            };
            let mut post = fixture("claude-post-tool-use-read");
            post["tool_name"] = json!(tool);
            post["tool_input"] = input;
            if harness == Harness::Codex {
                post["turn_id"] = json!("turn-1");
            }
            post
        }
        (other, _) => panic!("no sample event for {other}: add one"),
    };
    value.to_string().into_bytes()
}

#[test]
fn every_plugin_hook_command_understands_its_events_and_exits_0() {
    let home = Home { env: Env::new() };
    let tmp = home.env.home().join("tmp");
    std::fs::create_dir_all(&tmp).expect("tmp");
    // The binary under test on PATH, as an installed one would be.
    let bin = Path::new(env!("CARGO_BIN_EXE_docsuggest"))
        .parent()
        .expect("a directory")
        .display()
        .to_string();
    let path = format!("{bin}:{SYSTEM_PATH}");
    let mut runs = 0;
    for plugin in [claude_plugin(), codex_plugin()] {
        let file = json_file(&plugin.hooks);
        for (event, groups) in file["hooks"].as_object().expect("hooks") {
            for group in groups.as_array().expect("groups") {
                let matcher = group["matcher"].as_str();
                let tools: Vec<Option<&str>> = match matcher {
                    Some(m) => m.split('|').map(Some).collect(),
                    None => vec![None],
                };
                for handler in group["hooks"].as_array().expect("handlers") {
                    assert_eq!(handler["type"], "command", "{handler}");
                    assert!(
                        handler["timeout"].as_u64().is_some_and(|t| t >= 1),
                        "{handler}"
                    );
                    let command = handler["command"].as_str().expect("a command");
                    for tool in &tools {
                        let before = home.log().lines().count();
                        let input = sample(&home.env, plugin.harness, event, *tool);
                        let output = home.shell(command, &input, &path, &tmp);
                        let what = format!("{command} on {event} {tool:?}");
                        assert!(output.status.success(), "{what}: {:?}", output.status);
                        let stdout = String::from_utf8(output.stdout).expect("UTF-8");
                        if !stdout.trim().is_empty() {
                            let answer: Value = serde_json::from_str(stdout.trim())
                                .unwrap_or_else(|e| panic!("{what}: {e}: {stdout}"));
                            assert_eq!(answer["hookSpecificOutput"]["hookEventName"], *event);
                            assert!(answer["hookSpecificOutput"]["additionalContext"].is_string());
                        }
                        // Understood: not refused, not skipped as an unknown event or tool.
                        let log = home.log();
                        for line in log.lines().skip(before) {
                            assert!(
                                !["bad-input", "skip", "bad-arguments"]
                                    .iter()
                                    .any(|kind| line.contains(&format!(" {kind}: "))),
                                "{what}: {line}"
                            );
                        }
                        runs += 1;
                    }
                }
            }
        }
    }
    // 7 + 4 Claude Code runs, 8 + 2 Codex runs.
    assert_eq!(runs, 21);
}

#[test]
fn hook_exits_0_silently_on_any_argument_it_cannot_use() {
    let home = Home { env: Env::new() };
    let event = sample(&home.env, Harness::ClaudeCode, "UserPromptSubmit", None);
    for args in [
        &["hook", "--harness", "nope"][..],
        &["hook", "--harness"],
        &["hook", "--bogus"],
        &["hook", "--timeout-ms", "soon"],
        &["hook", "--idle-timeout", "0"],
        &["hook", "--socket"],
        &["hook", "extra"],
    ] {
        let output = home.hook(args, &event);
        assert!(output.status.success(), "{args:?}: {:?}", output.status);
        assert!(output.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8(output.stderr).expect("UTF-8");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("docsuggest hook: "),
            "{args:?}: {stderr}"
        );
    }
    let log = home.log();
    assert_eq!(log.matches(" bad-arguments: ").count(), 7, "{log}");
    // Each line starts with an RFC 3339 UTC time: 2026-12-03T01:48:41Z.
    for line in log.lines() {
        let time = line.split(' ').next().unwrap_or_default();
        let shape: String = time
            .chars()
            .map(|c| if c.is_ascii_digit() { '0' } else { c })
            .collect();
        assert_eq!(shape, "0000-00-00T00:00:00Z", "{line}");
    }
    // Nothing was asked of the engine.
    assert!(!home.state("docsuggest.sock.daemon.log").exists());

    // Elsewhere a bad argument is still an error, and `claude` names Claude Code.
    let other = home.hook(&["rates", "--bogus"], b"");
    assert_eq!(other.status.code(), Some(2));
    let alias = home.hook(
        &["hook", "--harness", "claude", "--timeout-ms", "30000"],
        &event,
    );
    assert!(
        alias.status.success() && alias.stderr.is_empty(),
        "{alias:?}"
    );
    assert!(
        !home
            .log()
            .contains("hook - bad-arguments: invalid value 'claude'")
    );
}

/// Claude Code's own validator accepts the plugin and its marketplace with no warning. Needs
/// the `claude` CLI (no network): where it is not installed, the test says so and checks
/// nothing.
#[test]
fn claude_plugin_validate_passes_with_no_warning() {
    let run = Command::new("claude")
        .args(["plugin", "validate", "."])
        .current_dir(repo())
        .output();
    let Ok(run) = run else {
        eprintln!(
            "MISSING: the `claude` CLI is not on PATH; `claude plugin validate .` was not run"
        );
        return;
    };
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(run.status.success(), "{said}");
    assert!(!said.to_lowercase().contains("warning"), "{said}");
}
