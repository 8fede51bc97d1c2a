//! `docsuggest mcp`: the real binary spoken to in JSON-RPC lines as an MCP client speaks —
//! `initialize`, the `initialized` notification, `tools/list`, `tools/call` — answering
//! through the daemon it starts and, when no daemon can be had, in process; tool errors for
//! bad arguments and an unavailable store; and nothing the store learned or recorded changes.

use crate::common::{Env, answers, wait_for_exit, wait_until};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

/// Only a hung test waits this long; nothing is asserted about time.
const HANG: Duration = Duration::from_secs(120);

const PLAN: &str = "Documentation/Plans/X.md";

/// A running `docsuggest mcp` and the lines it wrote on stdout, read on a thread.
pub struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Mcp {
    /// Runs `docsuggest ARGS` (`mcp` and its flags).
    pub fn start(env: &Env, args: &[&str]) -> Mcp {
        let mut child = env
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("docsuggest mcp starts");
        let stdout = child.stdout.take().expect("a stdout pipe");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Mcp {
            child,
            stdin,
            lines,
            next_id: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        writeln!(stdin, "{message}").expect("the server reads its stdin");
        stdin.flush().expect("flush");
    }

    /// Sends a request and answers its response (every line on stdout is a JSON-RPC frame).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(HANG)
                .unwrap_or_else(|e| panic!("no answer to {method}: {e}"));
            let frame: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries a non-JSON line {line:?}: {e}"));
            assert_eq!(frame["jsonrpc"], "2.0", "{line}");
            if frame["id"] == json!(id) {
                return frame;
            }
            assert!(frame.get("id").is_none(), "an answer to another id: {line}");
        }
    }

    /// The handshake: `initialize`, then the `initialized` notification.
    pub fn initialize(&mut self) -> Value {
        let answer = self.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "docsuggest-test", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        answer
    }

    /// `tools/call`: the whole result object.
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(answer.get("error").is_none(), "{tool}: {answer}");
        answer["result"].clone()
    }

    /// Closes stdin and waits for the exit: it must be a clean one, with nothing more on
    /// stdout than frames.
    pub fn close(mut self) -> String {
        drop(self.stdin.take());
        let status = wait_for_exit(&mut self.child, "mcp to exit at end of input");
        let mut stderr = String::new();
        if let Some(mut pipe) = self.child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut pipe, &mut stderr);
        }
        assert!(status.success(), "{status}: {stderr}");
        for line in self.lines.try_iter() {
            let frame: Value = serde_json::from_str(&line).expect("a frame");
            assert_eq!(frame["jsonrpc"], "2.0", "{line}");
        }
        stderr
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The default daemon of a temporary HOME, stopped at the end if it was started.
struct Daemon<'e> {
    env: &'e Env,
}

impl Daemon<'_> {
    fn pid_file(&self) -> PathBuf {
        self.env.home().join(".dsh/playform/docsuggest.sock.pid")
    }

    fn pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.pid_file())
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    /// SIGTERM, then wait until it has flushed, closed the store and removed its pid file.
    fn stop(&self) {
        let Some(pid) = self.pid() else { return };
        let _ = Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status();
        wait_until(&format!("the daemon {pid} to stop"), || {
            (!self.pid_file().exists()).then_some(())
        });
    }
}

impl Drop for Daemon<'_> {
    fn drop(&mut self) {
        if let Some(pid) = self.pid() {
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .status();
        }
    }
}

/// A store that learned something: two turns of agent `a` reading the plan and following
/// some of its companions.
fn learned_store(env: &Env) -> String {
    let ws = env.ws().display().to_string();
    let mut session = String::new();
    let mut id = 0;
    for turn in [
        &[PLAN, "Documentation/INDEX.md"][..],
        &[PLAN, "POC-BRIEF.md"],
    ] {
        for path in turn {
            id += 1;
            let request = json!({"id": id, "op": "judge", "agent": "a", "tool": "read",
                "path": path, "cwd": ws});
            session.push_str(&format!("{request}\n"));
        }
        id += 1;
        session.push_str(&format!(
            "{}\n",
            json!({"id": id, "op": "turn", "agent": "a"})
        ));
    }
    let store = env.store("s.redb").display().to_string();
    env.ok(&["serve", "--store", &store], session.as_bytes());
    store
}

/// What the store learned and recorded, as the inspection commands print it.
fn learned(env: &Env, store: &str) -> (String, String) {
    let rates = env.ok(&["rates", "--store", store, "--json"], b"");
    let history = env.ok(
        &["history", "--store", store, "--limit", "1000000", "--json"],
        b"",
    );
    (rates, history)
}

/// The note a fresh agent's `judge` of the plan gets on a copy of `store`.
fn judged_on_a_copy(env: &Env, store: &str) -> Value {
    let copy = env.store("copy.redb");
    std::fs::copy(store, &copy).expect("copy the store");
    let request = json!({"id": 1, "op": "judge", "agent": "fresh", "tool": "read",
        "path": PLAN, "cwd": env.ws()});
    let out = env.ok(
        &["serve", "--store", &copy.display().to_string()],
        format!("{request}\n").as_bytes(),
    );
    answers(&out)[0]["note"].clone()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[test]
fn mcp_lists_its_tools_answers_through_the_daemon_and_records_nothing() {
    let env = Env::new();
    let daemon = Daemon { env: &env };
    let store = learned_store(&env);
    let before = learned(&env, &store);
    let rows: Value = serde_json::from_str(&before.0).expect("rates --json");
    assert!(
        rows.as_array()
            .is_some_and(|rows| rows.iter().any(|r| r["accepts"] == 1)),
        "{rows}"
    );
    let expected = judged_on_a_copy(&env, &store);
    assert_eq!(expected["family"], "Plan", "{expected}");

    let mut mcp = Mcp::start(&env, &["mcp", "--store", &store]);
    let init = mcp.initialize();
    assert_eq!(init["result"]["serverInfo"]["name"], "docsuggest", "{init}");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );

    let list = mcp.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(names, ["check_change", "companions", "why_silent"]);
    for tool in tools {
        let change = tool["name"] == "check_change";
        let required = if change {
            json!(["cwd"])
        } else {
            json!(["path"])
        };
        assert_eq!(tool["inputSchema"]["required"], required, "{tool}");
        // Descriptions are read by a model: one paragraph each, no hard line breaks.
        assert!(
            !tool["description"].as_str().unwrap_or("\n").contains('\n'),
            "{tool}"
        );
        let fields: &[&str] = if change {
            &["cwd", "staged", "since"]
        } else {
            &["path", "cwd", "agent"]
        };
        for field in fields {
            let description = tool["inputSchema"]["properties"][field]["description"]
                .as_str()
                .unwrap_or("\n");
            assert!(!description.contains('\n'), "{tool}");
        }
        assert_eq!(tool["annotations"]["readOnlyHint"], true, "{tool}");
    }

    // The plan's companions, with the confidence the learned rates give: what a judge on the
    // same store answers, to the bit.
    let ws = env.ws().display().to_string();
    let plan = mcp.call("companions", json!({"path": PLAN, "cwd": ws}));
    assert_eq!(plan["isError"], false, "{plan}");
    let answer = &plan["structuredContent"];
    assert_eq!(answer["family"], "Plan", "{plan}");
    assert_eq!(answer["companions"], expected["companions"], "{plan}");
    // A PoC note's answer has no `lines`; the tool always answers the list.
    let lines = expected.get("lines").cloned().unwrap_or_else(|| json!([]));
    assert_eq!(answer["lines"], lines, "{plan}");
    assert_eq!(answer["confidence"], expected["confidence"], "{plan}");
    assert_eq!(answer["silent"], Value::Null);
    let socket = env.home().join(".dsh/playform/docsuggest.sock");
    assert_eq!(
        answer["via"],
        format!("daemon {}", socket.display()),
        "{plan}"
    );
    assert!(text(&plan).starts_with("Plan (confidence "), "{plan}");
    // Asked again, and by absolute path: the same answer (no cooldown for the asker).
    let again = mcp.call(
        "companions",
        json!({"path": env.ws().join(PLAN).display().to_string()}),
    );
    assert_eq!(
        again["structuredContent"]["companions"],
        expected["companions"]
    );
    assert_eq!(
        again["structuredContent"]["confidence"],
        expected["confidence"]
    );

    // Why not: a path no family claims, and one outside any workspace.
    let code = mcp.call("why_silent", json!({"path": "src/lib.rs", "cwd": ws}));
    assert_eq!(code["isError"], false, "{code}");
    assert_eq!(
        code["structuredContent"]["silent"]["reason"], "no-family",
        "{code}"
    );
    assert_eq!(code["structuredContent"]["reason"], "no-family", "{code}");
    assert_eq!(
        code["structuredContent"]["ledger"],
        json!(["doc-suggester: abstained no-signal 0.00"])
    );
    let excluded = mcp.call(
        "why_silent",
        json!({"path": "node_modules/pkg/README.md", "cwd": ws}),
    );
    assert_eq!(
        excluded["structuredContent"]["reason"], "excluded",
        "{excluded}"
    );
    let elsewhere = env.home().join("elsewhere/notes.md").display().to_string();
    let outside = mcp.call("why_silent", json!({"path": elsewhere}));
    assert_eq!(
        outside["structuredContent"]["reason"], "no-workspace",
        "{outside}"
    );
    assert!(text(&outside).contains("no workspace"), "{outside}");
    let silent_companions = mcp.call("companions", json!({"path": elsewhere}));
    assert_eq!(
        silent_companions["structuredContent"]["companions"],
        json!([])
    );
    assert_eq!(
        silent_companions["structuredContent"]["silent"]["reason"],
        "no-workspace"
    );
    let noted = mcp.call("why_silent", json!({"path": PLAN, "cwd": ws}));
    assert_eq!(noted["structuredContent"]["silent"], Value::Null, "{noted}");
    assert_eq!(noted["structuredContent"]["family"], "Plan", "{noted}");

    // Bad arguments are tool errors: the engine's refusal, a field missing.
    let relative = mcp.call("companions", json!({"path": "X.md"}));
    assert_eq!(relative["isError"], true, "{relative}");
    assert!(
        text(&relative).contains("relative") && text(&relative).contains("cwd"),
        "{relative}"
    );
    let empty = mcp.call("why_silent", json!({"path": ""}));
    assert_eq!(empty["isError"], true, "{empty}");
    let missing = mcp.call("companions", json!({"cwd": ws}));
    assert_eq!(missing["isError"], true, "{missing}");
    assert!(text(&missing).contains("missing field `path`"), "{missing}");
    let unknown = mcp.request("tools/call", json!({"name": "judge", "arguments": {}}));
    assert!(unknown["error"].is_object(), "{unknown}");

    mcp.close();
    daemon.stop();
    // Nothing the daemon answered for MCP was learned or recorded.
    assert_eq!(learned(&env, &store), before);
}

#[test]
fn without_a_daemon_mcp_answers_in_process_and_says_when_the_store_is_unavailable() {
    let env = Env::new();
    let store = learned_store(&env);
    let before = learned(&env, &store);
    let expected = judged_on_a_copy(&env, &store);
    // A socket directory others may write to is never used: no daemon can be had there.
    let shared = env.home().join("shared");
    std::fs::create_dir(&shared).expect("mkdir");
    std::fs::set_permissions(&shared, std::os::unix::fs::PermissionsExt::from_mode(0o777))
        .expect("chmod");
    let socket = shared.join("d.sock").display().to_string();
    let ws = env.ws().display().to_string();

    let mut mcp = Mcp::start(&env, &["mcp", "--store", &store, "--socket", &socket]);
    mcp.initialize();
    let plan = mcp.call("companions", json!({"path": PLAN, "cwd": ws}));
    assert_eq!(plan["isError"], false, "{plan}");
    assert_eq!(
        plan["structuredContent"]["via"],
        format!("in-process {store}")
    );
    assert_eq!(
        plan["structuredContent"]["companions"],
        expected["companions"]
    );
    assert_eq!(
        plan["structuredContent"]["confidence"],
        expected["confidence"]
    );
    assert!(!shared.join("d.sock").exists());

    // A process holding the store keeps the in-process engine out: a tool error says so.
    let mut holder = env
        .command(&["serve", "--store", &store])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut holder_in = holder.stdin.take().expect("stdin");
    writeln!(holder_in, r#"{{"id":1,"op":"hello"}}"#).expect("hello");
    let mut hello = String::new();
    BufReader::new(holder.stdout.take().expect("stdout"))
        .read_line(&mut hello)
        .expect("serve answers");
    assert!(hello.contains(r#""store":"redb""#), "{hello}");
    let locked = mcp.call("why_silent", json!({"path": PLAN, "cwd": ws}));
    assert_eq!(locked["isError"], true, "{locked}");
    assert!(
        text(&locked).contains("store unavailable") && text(&locked).contains("locked"),
        "{locked}"
    );
    drop(holder_in);
    assert!(holder.wait().expect("serve ends").success());

    let code = mcp.call("why_silent", json!({"path": "src/lib.rs", "cwd": ws}));
    assert_eq!(code["structuredContent"]["reason"], "no-family", "{code}");
    mcp.close();
    assert_eq!(learned(&env, &store), before);
}

impl Mcp {
    /// Sends `line` as it is, newline added.
    fn send_raw(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin is open");
        stdin.write_all(line).expect("the server reads its stdin");
        stdin.write_all(b"\n").expect("newline");
        stdin.flush().expect("flush");
    }

    /// The next frame on stdout.
    fn next_frame(&mut self) -> Value {
        let line = self.lines.recv_timeout(HANG).expect("an answer");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON {line:?}: {e}"))
    }
}

/// JSON-RPC's edge answers: a line that is not JSON gets a parse error with a null id, JSON
/// that is not a request an invalid-request error with its id, and the session goes on; a
/// 1 MiB path or one carrying a right-to-left override comes back short and printable.
#[test]
fn mcp_answers_malformed_lines_and_bounds_what_it_quotes() {
    let env = Env::new();
    let store = env.store("s.redb").display().to_string();
    let socket = env.home().join("d.sock").display().to_string();
    let ws = env.ws().display().to_string();
    let mut mcp = Mcp::start(&env, &["mcp", "--store", &store, "--socket", &socket]);
    mcp.initialize();

    for line in [
        &b"{\"jsonrpc\": \"2.0\", \"id\": 3,"[..],
        b"not json",
        b"\xff\xfe",
    ] {
        mcp.send_raw(line);
        let frame = mcp.next_frame();
        assert_eq!(frame["id"], Value::Null, "{frame}");
        assert_eq!(frame["error"]["code"], -32700, "{frame}");
    }
    mcp.send_raw(br#"{"jsonrpc": "2.0", "id": 41, "method": 5}"#);
    let frame = mcp.next_frame();
    assert_eq!(
        (frame["id"].clone(), frame["error"]["code"].clone()),
        (json!(41), json!(-32600))
    );

    let huge = format!("{}/{}", ws, "d/".repeat(1 << 19));
    let answer = mcp.request(
        "tools/call",
        json!({"name": "companions", "arguments": {"path": huge}}),
    );
    let shown = text(&answer["result"]).to_string();
    assert_eq!(answer["result"]["isError"], true, "{shown}");
    assert!(shown.len() < 400, "{} bytes: {shown}", shown.len());
    assert!(shown.contains("bytes long (at most 4096)"), "{shown}");
    assert!(
        !shown.contains("1048576") && !shown.contains("line"),
        "{shown}"
    );

    for tool in ["companions", "why_silent"] {
        let odd = "Documentation/Plans/X\u{202e}dm.\u{2028}md";
        let answer = mcp.call(tool, json!({"path": odd, "cwd": ws}));
        let shown = text(&answer);
        assert!(
            !shown.contains('\u{202e}') && !shown.contains('\u{2028}'),
            "{tool}: {shown:?}"
        );
        assert!(shown.contains("\\u{202e}"), "{tool}: {shown:?}");
        let structured = answer["structuredContent"].to_string();
        assert!(!structured.contains('\u{202e}'), "{tool}: {structured}");
    }
    // An unknown method of 1 MiB is not echoed back whole, nor logged whole.
    let method = format!("x/{}\u{202e}", "m".repeat(1 << 20));
    let request = json!({"jsonrpc": "2.0", "id": 77, "method": method, "params": {}});
    mcp.send_raw(request.to_string().as_bytes());
    let frame = mcp.next_frame();
    let shown = frame.to_string();
    assert!(shown.len() < 2048, "{} bytes", shown.len());
    assert_eq!(
        (frame["id"].clone(), frame["error"]["code"].clone()),
        (json!(77), json!(-32601)),
        "{shown}"
    );
    assert!(!shown.contains('\u{202e}'), "{shown}");
    // The session is still served.
    let list = mcp.request("tools/list", json!({}));
    assert!(list["result"]["tools"].is_array(), "{list}");
    let stderr = mcp.close();
    assert!(stderr.len() < 64 * 1024, "{} bytes on stderr", stderr.len());
}

/// `check_change` answers what `docsuggest check-change` does: the companions the work tree's
/// change lacks, nothing once it is complete, and a tool error outside a git repository.
#[test]
fn mcp_check_change_lists_what_the_change_lacks() {
    let env = Env::new();
    let _daemon = Daemon { env: &env };
    let ws = env.ws();
    let git = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(&ws)
            .args(["-c", "user.email=t@example.invalid", "-c", "user.name=t"])
            .args(args)
            .status()
            .expect("git runs");
        assert!(ok.success(), "git {args:?}");
    };
    git(&["init", "--quiet"]);
    git(&["add", "."]);
    git(&["commit", "--quiet", "-m", "c0"]);
    std::fs::write(ws.join(PLAN), "changed\n").expect("edit the plan");
    let store = env.home().join("s.redb").display().to_string();
    let mut mcp = Mcp::start(&env, &["mcp", "--store", &store]);
    mcp.initialize();
    let cwd = ws.display().to_string();
    let lacking = mcp.call("check_change", json!({"cwd": cwd}));
    assert_eq!(lacking["isError"], false, "{lacking}");
    let missing = lacking["structuredContent"]["missing"]
        .as_array()
        .expect("missing");
    assert!(
        missing
            .iter()
            .any(|m| m["companion"] == "Documentation/INDEX.md"),
        "{lacking}"
    );
    assert!(
        text(&lacking).contains("- Documentation/INDEX.md (Plan "),
        "{lacking}"
    );
    let staged = mcp.call("check_change", json!({"cwd": cwd, "staged": true}));
    assert_eq!(
        staged["structuredContent"]["missing"],
        json!([]),
        "{staged}"
    );
    let elsewhere = env.home().join("not-a-repository");
    std::fs::create_dir_all(&elsewhere).expect("dir");
    let refused = mcp.call(
        "check_change",
        json!({"cwd": elsewhere.display().to_string()}),
    );
    assert_eq!(refused["isError"], true, "{refused}");
    assert!(
        text(&refused).starts_with("cannot check the change in"),
        "{refused}"
    );
}
