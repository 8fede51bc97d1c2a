//! The socket daemon on a full disk: its log (its stderr) on `/dev/full`, which fails every
//! write with `ENOSPC`, and its files limited by `RLIMIT_FSIZE` (with `SIGXFSZ` ignored,
//! every write past the limit fails with `EFBIG`), as the hooks' daemon finds a disk that
//! filled up. A log write never kills it: it serves on memory, and writes back once the disk
//! has room.

use crate::common::{Env, wait_for_exit, wait_until};
use crate::daemon::{agent_turns, assert_in_history, history};
use docsuggest_host::client::Client;
use rustix::process::{Pid, Resource, Rlimit, prlimit};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// Writes fail with `ENOSPC`, as on a full disk.
fn full() -> std::fs::File {
    std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full")
}

/// `serve --socket` whose stderr is `/dev/full`, logging at `log_level`, run through `sh` so
/// that `SIGXFSZ` is ignored (a file-size limit then fails the write instead of killing the
/// process) and, with `no_room`, no file it writes can grow at all (`ulimit -f 0`).
fn spawn_daemon(env: &Env, socket: &Path, config: &Path, no_room: bool, log_level: &str) -> Child {
    let script = if no_room {
        r#"trap '' XFSZ; ulimit -f 0 && exec "$0" "$@""#
    } else {
        r#"trap '' XFSZ; exec "$0" "$@""#
    };
    let store = env.store("s.redb");
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_docsuggest"))
        .arg("serve")
        .arg("--socket")
        .arg(socket)
        .arg("--store")
        .arg(&store)
        .arg("--config")
        .arg(config)
        .env("HOME", env.home())
        .env("RUST_LOG", log_level)
        .current_dir(env.home())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(full())
        .spawn()
        .expect("sh starts")
}

fn config(env: &Env, patch: Value) -> PathBuf {
    let file = env.store("config.json");
    std::fs::write(&file, patch.to_string()).expect("write the config");
    file
}

/// Waits until the daemon answers `hello`; fails at once, with its status, when it died.
fn hello(daemon: &mut Child, socket: &Path) -> Value {
    wait_until("the daemon to answer hello", || {
        if let Some(status) = daemon.try_wait().expect("wait for the daemon") {
            panic!("the daemon died before it answered: {status}");
        }
        Client::connect(socket).and_then(|mut c| c.hello()).ok()
    })
}

fn store_health(client: &mut Client) -> Value {
    client.stats().expect("stats answers")["storeHealth"].clone()
}

/// Files staged beside the socket (`<socket>.pid.*.tmp`, a pid file never renamed).
fn staged_files(socket: &Path) -> Vec<String> {
    let dir = socket.parent().expect("a parent");
    std::fs::read_dir(dir)
        .expect("the state directory")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".tmp"))
        .collect()
}

fn terminate(mut daemon: Child) -> std::process::ExitStatus {
    let status = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(status.success());
    wait_for_exit(&mut daemon, "the daemon to stop after SIGTERM")
}

/// A daemon started on a disk with no room: its pid file, its store and its log cannot be
/// written. It serves on memory (saying why in every way it can, all of them lost), leaves
/// no staged pid file behind, and stops cleanly.
#[test]
fn a_daemon_started_on_a_full_disk_serves_on_memory_and_leaves_no_staged_file() {
    let env = Env::new();
    let state = env.home().join("state");
    std::fs::create_dir_all(&state).expect("mkdir");
    let socket = state.join("d.sock");
    let config = config(&env, json!({"durability": "immediate"}));
    // Every event is logged, so every step of the run writes to the full log.
    let mut daemon = spawn_daemon(&env, &socket, &config, true, "debug");
    let hello = hello(&mut daemon, &socket);
    assert_eq!(hello["store"], "memory", "{hello}");

    let mut client = Client::connect(&socket).expect("a client connects");
    let ws = env.ws().display().to_string();
    let told = agent_turns(&mut client, "a", &ws, 3);
    assert!(told.notes() > 0, "the engine still judges: {told:?}");
    let health = store_health(&mut client);
    assert_eq!(health["kind"], "memory", "{health}");
    assert!(health["degraded"].is_string(), "{health}");
    drop(client);

    assert_eq!(staged_files(&socket), Vec::<String>::new());
    assert!(terminate(daemon).success());
    assert_eq!(staged_files(&socket), Vec::<String>::new());
}

/// The disk fills while the daemon runs: the store's next commit fails, the daemon says so in
/// a log that cannot be written either, and goes on on memory; once there is room again it
/// writes back everything it answered meanwhile, and nothing is lost.
#[test]
fn a_daemon_whose_disk_fills_goes_on_on_memory_and_writes_back() {
    let env = Env::new();
    let state = env.home().join("state");
    std::fs::create_dir_all(&state).expect("mkdir");
    let socket = state.join("d.sock");
    let config = config(&env, json!({"durability": "immediate", "log": false}));
    // The default level: nothing is logged until the store fails.
    let mut daemon = spawn_daemon(&env, &socket, &config, false, "warn");
    assert_eq!(hello(&mut daemon, &socket)["store"], "redb");
    let pid = Pid::from_child(&daemon);
    let ws = env.ws().display().to_string();
    let mut client = Client::connect(&socket).expect("a client connects");
    let mut told = agent_turns(&mut client, "a", &ws, 3);
    assert_eq!(store_health(&mut client)["kind"], "redb");

    // No room: every write to a file fails from now on (the soft limit; the hard one stays).
    let before = prlimit(
        Some(pid),
        Resource::Fsize,
        Rlimit {
            current: Some(0),
            maximum: None,
        },
    )
    .expect("limit the daemon's file size");
    told = told.merge(agent_turns(&mut client, "a", &ws, 3));
    let health = store_health(&mut client);
    assert_eq!(health["kind"], "memory", "{health}");
    assert!(
        daemon.try_wait().expect("wait").is_none(),
        "the daemon died"
    );

    // Room again: the next calls reopen the file and write back what memory answered.
    prlimit(Some(pid), Resource::Fsize, before).expect("lift the limit");
    let health = wait_until("the store to come back to its file", || {
        told = told.merge(agent_turns(&mut client, "a", &ws, 1));
        let health = store_health(&mut client);
        (health["kind"] == "redb").then_some(health)
    });
    assert!(health["recoveries"].as_u64() >= Some(1), "{health}");
    assert!(health["writtenBack"].as_u64() > Some(0), "{health}");
    assert_eq!(health["lost"], 0, "{health}");
    drop(client);

    assert!(terminate(daemon).success());
    assert_eq!(staged_files(&socket), Vec::<String>::new());
    assert_in_history(&history(&env), told);
}
