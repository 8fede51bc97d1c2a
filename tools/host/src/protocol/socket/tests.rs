//! The socket server's tests: a removed socket file, the owner lock, a re-created socket, and
//! a socket path or lock file taken by another file.

use super::super::serve::{Ending, Event};
use super::{Bound, SocketError, bind, owner_file, pid_file, read_pid, serve_socket_until};
use crate::client::Client;
use crate::host::{self, StoreChoice};
use crate::protocol::Dispatcher;
use docsuggest_schema::Config;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

/// Only a hung server waits this long; nothing is asserted about time.
const HANG: Duration = Duration::from_secs(60);

fn dispatcher() -> Dispatcher {
    let config = Config {
        log: false,
        ..Config::default()
    };
    Dispatcher::for_host(host::start(config, &StoreChoice::Memory, false))
}

/// A server on `bound` on its own thread, its engine loop's channel, and its result.
struct Running {
    events: Sender<Event>,
    result: Receiver<Result<Ending, SocketError>>,
}

impl Running {
    fn start(bound: Bound, idle: Option<Duration>) -> Running {
        let (events, inbox) = mpsc::channel();
        let (done, result) = mpsc::channel();
        let sender = events.clone();
        std::thread::spawn(move || {
            let ending = serve_socket_until(dispatcher(), bound, 4, idle, sender, inbox);
            let _ = done.send(ending);
        });
        Running { events, result }
    }

    /// The server's ending; a server that never ends fails the test instead of hanging it.
    fn ending(&self) -> Ending {
        match self.result.recv_timeout(HANG) {
            Ok(result) => result.expect("the server ends cleanly"),
            Err(_) => panic!("the server did not stop"),
        }
    }
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + HANG;
    while !done() {
        assert!(Instant::now() < deadline, "never: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_server_whose_socket_file_was_removed_still_stops() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("d.sock");
    let running = Running::start(bind(&path).expect("bind"), None);
    Client::connect(&path)
        .and_then(|mut c| c.hello())
        .expect("hello");
    std::fs::remove_file(&path).expect("remove the socket");
    running.events.send(Event::Stop(15)).expect("send stop");
    assert_eq!(running.ending(), Ending::Signal(15));

    // The same when the idle timeout ends it.
    let running = Running::start(bind(&path).expect("bind again"), Some(Duration::ZERO));
    std::fs::remove_file(&path).expect("remove the socket");
    assert_eq!(running.ending(), Ending::Idle);
    assert!(!pid_file(&path).exists(), "the pid file is removed");
}

#[test]
fn the_owner_lock_refuses_a_second_server_even_without_the_socket_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("d.sock");
    let first = bind(&path).expect("bind");
    std::fs::remove_file(&path).expect("remove the socket");
    match bind(&path) {
        Err(SocketError::InUse { pid, .. }) => assert_eq!(pid, Some(std::process::id())),
        Err(e) => panic!("refused for another reason: {e}"),
        Ok(_) => panic!("a second server bound the socket"),
    }
    assert!(!path.exists(), "the refused server created nothing");
    drop(first);
    let again = bind(&path).expect("the lock is free once the first is gone");
    assert!(path.exists());
    drop(again);
    assert!(!path.exists());
    assert!(owner_file(&path).exists(), "the lock file is never removed");
}

#[test]
fn a_removed_socket_file_is_re_created_by_the_same_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("d.sock");
    let running = Running::start(bind(&path).expect("bind"), None);
    std::fs::remove_file(&path).expect("remove the socket");
    std::fs::remove_file(pid_file(&path)).expect("remove the pid file");
    wait_until("the socket answers again", || {
        Client::connect(&path).and_then(|mut c| c.hello()).is_ok()
    });
    assert_eq!(read_pid(&path), Some(std::process::id()));
    running.events.send(Event::Stop(15)).expect("send stop");
    assert_eq!(running.ending(), Ending::Signal(15));
    assert!(
        !path.exists(),
        "the re-created socket is removed at the end"
    );
}

#[test]
fn a_socket_path_or_lock_file_taken_by_another_file_stops_the_server() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("d.sock");
    let running = Running::start(bind(&path).expect("bind"), None);
    std::fs::remove_file(&path).expect("remove the socket");
    std::fs::write(&path, "not ours").expect("a plain file in its place");
    assert_eq!(running.ending(), Ending::SocketLost);
    assert_eq!(
        std::fs::read_to_string(&path).expect("the file is left alone"),
        "not ours"
    );
    std::fs::remove_file(&path).expect("remove the plain file");

    let running = Running::start(bind(&path).expect("bind again"), None);
    std::fs::remove_file(owner_file(&path)).expect("remove the lock file");
    assert_eq!(running.ending(), Ending::SocketLost);
    assert!(!path.exists(), "its own socket is removed");
}
