//! `docsuggest serve --socket` and the lifecycle: many clients on one engine, signals that
//! flush and close, stale and live sockets, hostile clients, and closed pipes.

use crate::common::{Env, wait_for_exit, wait_until};
use docsuggest_host::client::{Client, ClientError};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::time::Duration;

/// Only a hung test waits this long; nothing is asserted about time.
const HANG: Duration = Duration::from_secs(120);

/// A config that never fsyncs on its own within a test: only a flush, close or signal can
/// make the answered decisions durable.
fn group_config(env: &Env) -> PathBuf {
    let file = env.store("group.json");
    let config = json!({"durability": "group", "flushIntervalMs": 60000, "log": false,
        "cooldownCalls": 0, "maxNotesPerTurn": 100});
    std::fs::write(&file, config.to_string()).expect("write the config");
    file
}

/// A running socket server.
pub struct Server {
    child: Child,
    socket: PathBuf,
}

impl Server {
    pub fn start(env: &Env, socket: &Path, extra: &[&str]) -> Server {
        let store = env.store("s.redb").display().to_string();
        let socket_arg = socket.display().to_string();
        let mut args = vec!["serve", "--socket", &socket_arg, "--store", &store];
        args.extend_from_slice(extra);
        let child = env
            .command(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the server starts");
        let server = Server {
            child,
            socket: socket.to_path_buf(),
        };
        server.wait_ready();
        server
    }

    /// Waits until a client can say hello (the socket exists before the store is open).
    fn wait_ready(&self) {
        wait_until("the server to answer hello", || {
            Client::connect(&self.socket)
                .and_then(|mut c| c.hello())
                .ok()
        });
    }

    pub fn client(&self) -> Client {
        Client::connect(&self.socket).expect("a client connects")
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM and waits for the exit; answers the status and stderr.
    pub fn terminate(mut self) -> (ExitStatus, String) {
        signal(self.child.id(), "TERM");
        let stderr = self.child.stderr.take();
        let status = wait_for_exit(&mut self.child, "the server to exit after its signal");
        let mut text = String::new();
        if let Some(mut stderr) = stderr {
            let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        }
        (status, text)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn signal(pid: u32, name: &str) {
    let status = std::process::Command::new("kill")
        .args([format!("-{name}"), pid.to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{name} {pid} failed");
}

/// The whole history of the store, read after the server stopped.
pub fn history(env: &Env) -> Vec<Value> {
    let store = env.store("s.redb").display().to_string();
    let out = env.ok(
        &["history", "--store", &store, "--limit", "1000000", "--json"],
        b"",
    );
    serde_json::from_str::<Vec<Value>>(&out).expect("history --json is an array")
}

/// What the answers of one session said: decisions recorded (a note or a gated silence),
/// notes emitted, accepts.
#[derive(Default, Debug, PartialEq, Eq, Clone, Copy)]
pub struct Told {
    decisions: usize,
    notes: usize,
    accepts: usize,
}

impl Told {
    pub fn add(&mut self, answer: &Value) {
        for line in answer["ledger"].as_array().into_iter().flatten() {
            let line = line.as_str().unwrap_or("");
            // A decision is recorded for every note and every gated silence (a silence whose
            // companions were all left out has no `decided` line: it has no head companion).
            self.decisions += usize::from(
                line.starts_with("doc-suggester: suggest ")
                    || line.starts_with("doc-suggester: abstained low-confidence ")
                    || line.starts_with("doc-suggester: abstained already-touched "),
            );
            self.notes += usize::from(line.starts_with("doc-suggester: suggest "));
            self.accepts += usize::from(line.starts_with("doc-suggester: accepted "));
        }
    }

    /// Notes the answers emitted.
    pub fn notes(&self) -> usize {
        self.notes
    }

    pub fn merge(self, other: Told) -> Told {
        Told {
            decisions: self.decisions + other.decisions,
            notes: self.notes + other.notes,
            accepts: self.accepts + other.accepts,
        }
    }
}

/// Whether the history holds every decision `told` answered (each resolved by now: the
/// last turn or the close ended its window), and every accept.
pub fn assert_in_history(entries: &[Value], told: Told) {
    let accepts = entries
        .iter()
        .filter(|e| e["decision"]["outcome"] == "accepted")
        .count();
    assert_eq!(
        (entries.len(), accepts),
        (told.decisions, told.accepts),
        "{told:?}"
    );
}

/// One agent's turns over `client`: a plan (a note), its index (the follow-through), a
/// turn reset.
pub fn agent_turns(client: &mut Client, agent: &str, ws: &str, turns: usize) -> Told {
    let mut told = Told::default();
    for _ in 0..turns {
        for path in ["Documentation/Plans/X.md", "Documentation/INDEX.md"] {
            let answer = client
                .judge(agent, "read", path, Some(ws))
                .expect("judge answers");
            told.add(&answer);
        }
        told.add(&client.turn(agent).expect("turn answers"));
    }
    told
}

#[test]
fn eight_clients_then_sigterm_keep_every_answered_decision() {
    let env = Env::new();
    let config = group_config(&env).display().to_string();
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &["--config", &config]);
    let mode = std::fs::metadata(&socket)
        .expect("the socket")
        .permissions();
    assert_eq!(
        std::os::unix::fs::PermissionsExt::mode(&mode) & 0o777,
        0o600
    );
    let ws = env.ws().display().to_string();
    let threads: Vec<_> = (0..8)
        .map(|i| {
            let mut client = server.client();
            let ws = ws.clone();
            std::thread::spawn(move || agent_turns(&mut client, &format!("agent-{i}"), &ws, 100))
        })
        .collect();
    let told = threads
        .into_iter()
        .map(|t| t.join().expect("a client thread"))
        .fold(Told::default(), Told::merge);
    assert!(told.notes >= 800 && told.accepts >= 800, "{told:?}");
    let (status, stderr) = server.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!socket.exists(), "the socket is removed at exit");
    assert!(!socket.with_extension("sock.pid").exists());
    assert_in_history(&history(&env), told);
    let store = env.store("s.redb").display().to_string();
    env.ok(&["check", "--store", &store], b"");
}

#[test]
fn stdio_under_group_durability_keeps_every_answered_decision_on_sigterm() {
    let env = Env::new();
    let config = group_config(&env).display().to_string();
    let store = env.store("s.redb").display().to_string();
    let mut child = env
        .command(&["serve", "--store", &store, "--config", &config])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let ws = env.ws().display().to_string();
    let mut told = Told::default();
    let mut id = 0;
    for _ in 0..50 {
        for request in [
            json!({"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md","cwd":ws}),
            json!({"op":"judge","agent":"a","tool":"read","path":"Documentation/INDEX.md","cwd":ws}),
            json!({"op":"turn","agent":"a"}),
        ] {
            id += 1;
            let mut request = request;
            request["id"] = json!(id);
            writeln!(stdin, "{request}").expect("write a request");
            let mut line = String::new();
            stdout.read_line(&mut line).expect("read an answer");
            let answer: Value = serde_json::from_str(&line).expect("a JSON answer");
            assert_eq!(answer["id"], json!(id));
            told.add(&answer);
        }
    }
    // Stdin stays open: the server is blocked reading it when the signal comes.
    signal(child.id(), "TERM");
    let status = wait_for_exit(&mut child, "the server to exit after its signal");
    drop(stdin);
    let mut stderr = String::new();
    if let Some(mut e) = child.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
    }
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(told.notes >= 50, "{told:?}");
    assert_in_history(&history(&env), told);
}

#[test]
fn hello_answers_the_protocol_and_the_store() {
    let env = Env::new();
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &[]);
    let mut stream = UnixStream::connect(&socket).expect("connect");
    stream
        .write_all(b"{\"id\":1,\"op\":\"hello\"}\n")
        .expect("send hello");
    let mut over_socket = String::new();
    BufReader::new(stream)
        .read_line(&mut over_socket)
        .expect("the answer");
    let memory = env.ok(&["serve", "--memory"], b"{\"id\":1,\"op\":\"hello\"}\n");
    let actual =
        format!("{over_socket}{memory}").replace(&env.home().display().to_string(), "{HOME}");
    crate::common::assert_golden("hello.out", &actual);
    let (status, stderr) = server.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn a_stale_socket_is_replaced_and_a_live_one_refused() {
    let env = Env::new();
    let socket = env.store("d.sock");
    // A socket file nobody listens on any more, as a killed server leaves it.
    drop(UnixListener::bind(&socket).expect("bind a socket"));
    std::fs::write(env.store("d.sock.pid"), "999999999\n").expect("a stale pid file");
    let server = Server::start(&env, &socket, &[]);
    let pid = std::fs::read_to_string(env.store("d.sock.pid")).expect("the pid file");
    assert_eq!(pid.trim(), server.pid().to_string());

    let other = env.store("other.redb").display().to_string();
    let socket_arg = socket.display().to_string();
    let out = env.run(&["serve", "--socket", &socket_arg, "--store", &other], b"");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "docsuggest: error: socket {socket_arg} is served by another docsuggest server \
             (pid {}); stop it or choose another --socket",
            server.pid()
        )
    );
    // The refused server never opened its store, and the first one still answers.
    assert!(!env.store("other.redb").exists());
    server
        .client()
        .hello()
        .expect("the first server still answers");

    let file = env.store("plain");
    std::fs::write(&file, "not a socket").expect("write");
    let out = env.run(&["serve", "--socket", &file.display().to_string()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("exists and is not a socket"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("kept"),
        "not a socket"
    );
    let (status, stderr) = server.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn hostile_clients_never_disturb_the_others() {
    let env = Env::new();
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &["--max-connections", "5"]);
    let ws = env.ws().display().to_string();

    // Invalid UTF-8: an error answer, and the connection keeps working.
    let mut garbage = server.client();
    let refused = garbage.send_line(b"{\"id\":7,\"op\":\"judge\",\"agent\":\"\xff\"}");
    assert!(
        matches!(&refused, Err(ClientError::Refused { code, .. }) if code == "invalid-utf8"),
        "{refused:?}"
    );
    garbage.hello().expect("the same connection still answers");

    // An endless line: 3 MiB and no newline yet, then a stall.
    let mut endless = UnixStream::connect(&socket).expect("connect");
    let chunk = vec![b'a'; 64 << 10];
    for _ in 0..48 {
        endless
            .write_all(&chunk)
            .expect("write part of a long line");
    }
    // A client that vanishes mid-line.
    let mut vanished = UnixStream::connect(&socket).expect("connect");
    vanished
        .write_all(b"{\"id\":1,\"op\":\"ju")
        .expect("write half a line");
    drop(vanished);

    let mut worker = server.client();
    let told = agent_turns(&mut worker, "worker", &ws, 20);
    assert!(told.notes >= 20, "{told:?}");

    // The bound: with garbage, endless and worker open, at most two more are served (fewer
    // while the threads of connections already gone are still ending); the next one is
    // answered an error and closed.
    let mut held = Vec::new();
    let refusal = loop {
        assert!(
            held.len() <= 2,
            "{} connections beyond the bound",
            held.len()
        );
        let mut stream = UnixStream::connect(&socket).expect("connect");
        // The write fails when the server already closed a refused connection.
        let _ = stream.write_all(b"{\"id\":1,\"op\":\"hello\"}\n");
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).expect("an answer");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        if answer["ok"] == false {
            let mut rest = String::new();
            // Closed: the end of the stream, or a reset when the server closed it with the
            // request still unread.
            let closed = match reader.read_line(&mut rest) {
                Ok(n) => n == 0,
                Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
            };
            assert!(closed, "a refused connection is closed: {rest:?}");
            break answer;
        }
        held.push(reader);
    };
    assert_eq!(
        refusal["error"]["code"], "too-many-connections",
        "{refusal}"
    );
    assert_eq!(refusal["id"], Value::Null);
    drop(held);

    // The endless line ends: it is answered as too long, and the connection goes on.
    endless.write_all(b"\n").expect("end the line");
    let mut endless = BufReader::new(endless);
    let mut line = String::new();
    endless.read_line(&mut line).expect("an answer");
    let answer: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(answer["error"]["code"], "line-too-long", "{answer}");
    endless
        .get_mut()
        .write_all(b"{\"id\":2,\"op\":\"stats\"}\n")
        .expect("write");
    line.clear();
    endless.read_line(&mut line).expect("an answer");
    let stats: Value = serde_json::from_str(&line).expect("JSON");
    assert_eq!(stats["ok"], true, "{stats}");
    assert_eq!(stats["stats"]["judged"], 40);

    worker.close().expect("close ends this connection only");
    garbage.hello().expect("the others are still served");
    let (status, stderr) = server.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn replay_over_the_socket_summarises_the_trace() {
    let env = Env::new();
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &[]);
    let trace = env.store("trace.jsonl");
    std::fs::write(
        &trace,
        concat!(
            "{\"id\":1,\"op\":\"judge\",\"agent\":\"r\",\"tool\":\"read\",\"path\":\"Documentation/Plans/X.md\"}\n",
            "{\"id\":2,\"op\":\"judge\",\"agent\":\"r\",\"tool\":\"read\",\"path\":\"Documentation/INDEX.md\"}\n",
            "{\"id\":3,\"op\":\"jump\"}\n",
        ),
    )
    .expect("write the trace");
    let out = env.ok(
        &[
            "replay",
            &trace.display().to_string(),
            "--socket",
            &socket.display().to_string(),
            "--workspace",
            &env.ws().display().to_string(),
            "--json",
        ],
        b"",
    );
    let summary: Value = serde_json::from_str(&out).expect("a JSON summary");
    assert_eq!(summary["requests"], 3);
    assert_eq!(summary["errors"], json!({"unknown-op": 1}));
    assert_eq!(summary["judged"], 2);
    assert_eq!(summary["notes"], 1);
    assert_eq!(summary["accepts"], 1);
    assert_eq!(summary["store"], "redb");
    let (status, stderr) = server.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn commands_writing_to_a_closed_pipe_exit_quietly() {
    let env = Env::new();
    let paths: Vec<&str> = std::iter::repeat_n(["Documentation/Plans/X.md", "CHANGELOG.md"], 50)
        .flatten()
        .collect();
    env.serve_judges("s.redb", &paths);
    let store = env.store("s.redb").display().to_string();
    let commands: [&[&str]; 5] = [
        &["history", "--store", &store, "--limit", "1000"],
        &["history", "--store", &store, "--limit", "1000", "--json"],
        &["rates", "--store", &store],
        &["export", "--store", &store],
        &["check", "--store", &store],
    ];
    for args in commands {
        // The reading end is closed before the command writes anything.
        let mut child = env
            .command(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the command starts");
        drop(child.stdout.take());
        let out = child.wait_with_output().expect("the command ends");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 141)),
            "{args:?}: {} {stderr}",
            out.status
        );
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
    }
    // The same through a shell pipeline, as a person types it.
    let bin = env!("CARGO_BIN_EXE_docsuggest");
    let out = env
        .command(&[])
        .stdin(Stdio::null())
        .output_of_shell(&format!(
            "'{bin}' history --store '{store}' --limit 1000 | head -1"
        ));
    assert!(out.status.success(), "{}", out.status);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("panicked"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1);
}

trait ShellExt {
    fn output_of_shell(&mut self, script: &str) -> std::process::Output;
}

impl ShellExt for std::process::Command {
    /// Runs `script` with `sh -c` in this command's environment and directory.
    fn output_of_shell(&mut self, script: &str) -> std::process::Output {
        let mut sh = std::process::Command::new("sh");
        sh.args(["-c", script]);
        for (key, value) in self.get_envs() {
            match value {
                Some(value) => sh.env(key, value),
                None => sh.env_remove(key),
            };
        }
        if let Some(dir) = self.get_current_dir() {
            sh.current_dir(dir);
        }
        sh.stdin(Stdio::null()).output().expect("sh runs")
    }
}

#[test]
fn sigint_stops_a_socket_server_and_its_store_reopens() {
    let env = Env::new();
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &[]);
    let ws = env.ws().display().to_string();
    let told = agent_turns(&mut server.client(), "a", &ws, 3);
    signal(server.pid(), "INT");
    let mut server = server;
    let status = wait_for_exit(&mut server.child, "the server to exit after its signal");
    assert_eq!(status.code(), Some(0));
    assert_in_history(&history(&env), told);
    // A new server on the same socket and store starts cleanly.
    let again = Server::start(&env, &socket, &[]);
    let (status, stderr) = again.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// A socket path of exactly `len` bytes under `root`: a deep directory and a short name, as a
/// long HOME makes the default socket.
fn socket_of_len(root: &Path, len: usize) -> PathBuf {
    let name = "d.sock";
    let pad = len - root.as_os_str().len() - 1 - name.len() - 1;
    let dir = root.join("p".repeat(pad));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let socket = dir.join(name);
    assert_eq!(socket.as_os_str().len(), len);
    socket
}

#[test]
fn socket_paths_up_to_the_limit_bind_and_a_longer_one_is_refused_once() {
    let env = Env::new();
    for len in [100, 107] {
        let socket = socket_of_len(env.home(), len);
        let server = Server::start(&env, &socket, &[]);
        server.client().hello().expect("hello");
        let (status, stderr) = server.terminate();
        assert_eq!(status.code(), Some(0), "{len} bytes: {stderr}");
        assert!(!socket.exists(), "{len} bytes: the socket is removed");
    }
    let socket = socket_of_len(env.home(), 120);
    let store = env.store("long.redb").display().to_string();
    let out = env.run(
        &[
            "serve",
            "--socket",
            &socket.display().to_string(),
            "--store",
            &store,
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "docsuggest: error: socket path {} is 120 bytes; a Unix socket path holds at most \
             107 bytes, choose a shorter --socket",
            socket.display()
        )
    );
    assert!(!env.store("long.redb").exists(), "no store is opened");
}

#[test]
fn a_daemon_whose_socket_file_was_removed_stops_on_sigterm_and_when_idle() {
    let env = Env::new();
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &[]);
    std::fs::remove_file(&socket).expect("remove the socket");
    let (status, stderr) = server.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!socket.with_extension("sock.pid").exists());

    let mut server = Server::start(&env, &socket, &["--idle-timeout", "1"]);
    std::fs::remove_file(&socket).expect("remove the socket");
    let status = wait_for_exit(&mut server.child, "the idle server to stop");
    assert_eq!(status.code(), Some(0));
    assert!(!socket.exists(), "no socket is left behind");
    // The store was closed: a new server opens it.
    let again = Server::start(&env, &socket, &[]);
    let hello = again.client().hello().expect("hello");
    assert_eq!(hello["store"], "redb", "{hello}");
    let (status, stderr) = again.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn a_second_server_is_refused_while_the_first_lives_without_its_socket_file() {
    let env = Env::new();
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &[]);
    std::fs::remove_file(&socket).expect("remove the socket");
    let other = env.store("other.redb").display().to_string();
    let socket_arg = socket.display().to_string();
    // Spawned, not run: a second server that is not refused serves until killed.
    let mut second = env
        .command(&["serve", "--socket", &socket_arg, "--store", &other])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the second server starts");
    let status = wait_for_exit(&mut second, "the second server to be refused");
    let mut stderr = String::new();
    if let Some(mut e) = second.stderr.take() {
        let _ = std::io::Read::read_to_string(&mut e, &mut stderr);
    }
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.trim_end(),
        format!(
            "docsuggest: error: socket {socket_arg} is served by another docsuggest server \
             (pid {}); stop it or choose another --socket",
            server.pid()
        )
    );
    assert!(!env.store("other.redb").exists(), "no store is opened");
    // The first server re-creates its socket and answers on it, on its store.
    server.wait_ready();
    let hello = server.client().hello().expect("hello");
    assert_eq!(hello["store"], "redb", "{hello}");
    let pid = std::fs::read_to_string(env.store("d.sock.pid")).expect("the pid file");
    assert_eq!(pid.trim(), server.pid().to_string());
    let (status, stderr) = server.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("re-created it"), "{stderr}");
    assert!(!socket.exists());
}

#[test]
fn a_daemon_whose_socket_path_is_taken_stops_and_leaves_the_file_alone() {
    let env = Env::new();
    let socket = env.store("d.sock");
    let mut server = Server::start(&env, &socket, &[]);
    let ws = env.ws().display().to_string();
    let told = agent_turns(&mut server.client(), "a", &ws, 3);
    std::fs::remove_file(&socket).expect("remove the socket");
    std::fs::write(&socket, "someone else's").expect("a plain file in its place");
    let status = wait_for_exit(&mut server.child, "the server to stop serving a lost path");
    assert_eq!(status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(&socket).expect("the file is kept"),
        "someone else's"
    );
    assert!(!socket.with_extension("sock.pid").exists());
    // It stopped as on a signal: every answered decision is in the store.
    assert_in_history(&history(&env), told);
}

/// Idle clients cannot lock the others out: 200 connections that send nothing (and one that
/// stops mid-line) fill the 64 slots, yet once they have idled a moment a new client takes
/// the slot of the longest idle one and is answered; the evicted connection sees its end.
#[test]
fn idle_connections_give_their_slots_to_new_clients() {
    let env = Env::new();
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &[]);
    let mut half = UnixStream::connect(&socket).expect("connect");
    half.write_all(br#"{"id":1,"op":"hel"#)
        .expect("half a line");
    std::thread::sleep(Duration::from_millis(100));
    let idle: Vec<UnixStream> = (0..200)
        .map(|_| UnixStream::connect(&socket).expect("connect"))
        .collect();
    // Past the grace an idle connection keeps its slot against a newcomer.
    std::thread::sleep(Duration::from_millis(800));
    for _ in 0..3 {
        let mut client = server.client();
        let hello = client.hello().expect("a new client is answered");
        assert_eq!(hello["ok"], true, "{hello}");
    }
    // The half-line client, the oldest, gave its slot up first: it reads the end.
    half.set_read_timeout(Some(HANG)).expect("timeout");
    let mut rest = String::new();
    let _ = std::io::Read::read_to_string(&mut half, &mut rest);
    assert!(!rest.contains(r#""ok":true"#), "{rest}");
    drop(idle);
    let (status, stderr) = server.terminate();
    assert_eq!(status.code(), Some(0), "{stderr}");
}
