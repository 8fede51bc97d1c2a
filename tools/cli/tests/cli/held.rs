//! Inspection beside a running daemon: `rates`, `history`, `check` and `export` on the store
//! the daemon holds read a copy of it, after the daemon flushed, so they show every decision
//! it answered; the daemon keeps serving.

use crate::common::{Env, wait_until};
use docsuggest_host::client::Client;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::{Child, Stdio};

/// A daemon on the user's default socket (`$HOME/.dsh/playform/docsuggest.sock`), started
/// as the hook starts it, on the store `s.redb` of the HOME, under `group` durability with no
/// fsync due within a test: only a flush makes what it answered durable.
pub struct Daemon {
    child: Child,
    pub socket: PathBuf,
    pub store: PathBuf,
}

impl Daemon {
    pub fn start(env: &Env) -> Daemon {
        let state = env.home().join(".dsh/playform");
        std::fs::create_dir_all(&state).expect("mkdir");
        let socket = state.join("docsuggest.sock");
        let store = env.store("s.redb");
        let config = env.store("group.json");
        let text = json!({"durability": "group", "flushIntervalMs": 60000, "log": false});
        std::fs::write(&config, text.to_string()).expect("write the config");
        let args = [
            "serve",
            "--socket",
            &socket.display().to_string(),
            "--store",
            &store.display().to_string(),
            "--config",
            &config.display().to_string(),
        ]
        .map(String::from);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let child = env
            .command(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the daemon starts");
        let daemon = Daemon {
            child,
            socket,
            store,
        };
        wait_until("the daemon to answer hello", || {
            Client::connect(&daemon.socket)
                .and_then(|mut c| c.hello())
                .ok()
        });
        daemon
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn client(&self) -> Client {
        Client::connect(&self.socket).expect("a client connects")
    }

    /// A note on the plan, then the turn that closes its window: one history entry.
    pub fn learn(&self, env: &Env) {
        let mut client = self.client();
        let ws = env.ws().display().to_string();
        let answer = client
            .judge("a", "read", "Documentation/Plans/X.md", Some(&ws))
            .expect("judge");
        assert!(answer["note"].is_object(), "{answer}");
        client
            .judge("a", "read", "Documentation/INDEX.md", Some(&ws))
            .expect("judge");
        client.turn("a").expect("turn");
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn json_of(env: &Env, args: &[&str]) -> Value {
    let out = env.ok(args, b"");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))
}

#[test]
fn the_daemon_store_is_inspected_while_it_runs() {
    let env = Env::new();
    let daemon = Daemon::start(&env);
    daemon.learn(&env);
    let store = daemon.store.display().to_string();

    // Nothing of it is durable yet (no flush is due): the commands see it only because the
    // daemon flushed when asked.
    let history = json_of(&env, &["history", "--store", &store, "--json"]);
    let entries = history.as_array().expect("an array");
    assert!(!entries.is_empty(), "{history}");
    assert_eq!(entries[0]["decision"]["family"], "Plan", "{history}");

    let rates = json_of(&env, &["rates", "--store", &store, "--json"]);
    let rows = rates.as_array().expect("an array");
    assert!(
        rows.iter()
            .any(|r| r["workspace"] == env.key() && r["companion"] == "Documentation/INDEX.md"),
        "{rates}"
    );

    let check = json_of(&env, &["check", "--store", &store, "--json"]);
    assert_eq!(check["ok"], true, "{check}");
    assert_eq!(check["held"]["flushedBy"], daemon.pid(), "{check}");
    assert_eq!(check["history"], entries.len(), "{check}");
    let text = env.ok(&["check", "--store", &store], b"");
    assert!(
        text.contains(&format!(
            "held by the daemon on {} (pid {})",
            daemon.socket.display(),
            daemon.pid()
        )),
        "{text}"
    );
    assert!(text.trim_end().ends_with("ok"), "{text}");
    let export = env.ok(&["export", "--store", &store], b"");
    assert_eq!(export.lines().count(), entries.len());

    // The daemon still serves, on its file.
    let mut client = daemon.client();
    assert_eq!(client.hello().expect("hello")["store"], "redb");
    let stats = client.stats().expect("stats");
    assert_eq!(stats["storeHealth"]["degraded"], Value::Null, "{stats}");
}

#[test]
fn a_store_held_by_another_process_is_read_as_last_made_durable() {
    let env = Env::new();
    let daemon = Daemon::start(&env);
    daemon.learn(&env);
    // The daemon serves another store than the one inspected: it is not asked to flush, and
    // a stdio server on `other.redb` holds that one with nothing durable yet.
    let other = env.store("other.redb");
    let name = other.display().to_string();
    let mut server = env
        .command(&["serve", "--store", &name, "--config"])
        .arg(env.store("group.json"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    let mut stdin = server.stdin.take().expect("stdin");
    let mut stdout = std::io::BufReader::new(server.stdout.take().expect("stdout"));
    let ws = env.ws().display().to_string();
    for (id, op) in [
        (
            1,
            json!({"op": "judge", "agent": "b", "tool": "read", "path": "Documentation/Plans/X.md", "cwd": ws}),
        ),
        (2, json!({"op": "flush"})),
        (
            3,
            json!({"op": "judge", "agent": "c", "tool": "read", "path": "Documentation/Plans/X.md", "cwd": ws}),
        ),
        (4, json!({"op": "turn", "agent": "c"})),
    ] {
        let mut request = op;
        request["id"] = json!(id);
        send(&mut stdin, &mut stdout, &request);
    }
    let check = json_of(&env, &["check", "--store", &name, "--json"]);
    assert_eq!(check["ok"], true, "{check}");
    assert_eq!(check["held"]["flushedBy"], Value::Null, "{check}");
    // Agent b's note was flushed (pending); agent c's note and its turn were not.
    assert_eq!(
        (check["pending"].clone(), check["history"].clone()),
        (json!(1), json!(0))
    );
    drop(stdin);
    let status = server.wait().expect("serve ends");
    assert!(status.success());
    let check = json_of(&env, &["check", "--store", &name, "--json"]);
    assert_eq!(check["held"], Value::Null, "{check}");
    assert!(check["history"].as_u64().expect("a count") >= 1, "{check}");
    drop(daemon);
}

fn send(stdin: &mut impl std::io::Write, stdout: &mut impl std::io::BufRead, request: &Value) {
    writeln!(stdin, "{request}").expect("write");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("an answer");
    assert!(line.contains("\"ok\":true"), "{request}: {line}");
}
