//! The watch over a running server's socket: every [`SOCKET_CHECK_INTERVAL`] a watcher
//! thread checks that the socket path and the lock file are still this server's. A missing
//! socket is re-created (the clients reach the same server again, whose store and learning
//! stay open); anything else in its place, or a lock file removed or replaced, stops the
//! server as SIGTERM does, since it can no longer prove it is the only one.

use super::super::serve::Event;
use super::accept::{Accepting, Acceptor};
use super::bind::{Bound, inode_of};
use std::io;
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

/// How often a running server checks that its socket path and lock file are still its own.
pub const SOCKET_CHECK_INTERVAL: Duration = Duration::from_secs(2);

/// The socket being served: the bound files, the acceptor on the current listener, and what
/// a new acceptor needs when the socket is re-created.
pub(super) struct Listening {
    pub(super) bound: Bound,
    pub(super) acceptor: Acceptor,
    pub(super) accepting: Accepting,
}

impl Listening {
    /// Checks every [`SOCKET_CHECK_INTERVAL`] until `quit` ends; once the socket is lost,
    /// tells the engine loop to stop and waits for `quit`.
    pub(super) fn watch(&mut self, quit: &Receiver<()>, events: &Sender<Event>) {
        while let Err(RecvTimeoutError::Timeout) = quit.recv_timeout(SOCKET_CHECK_INTERVAL) {
            if let Err(reason) = self.keep() {
                tracing::warn!(socket = %self.bound.path.display(), "stopping: {reason}");
                let _ = events.send(Event::SocketLost);
                let _ = quit.recv();
                return;
            }
        }
    }

    /// Keeps the socket path this server's: a missing socket is re-created; answers why not
    /// when the lock file or the path is no longer this server's. What cannot be read now
    /// (a transient error) is checked again next time.
    fn keep(&mut self) -> Result<(), String> {
        let owner = &self.bound.owner;
        match inode_of(&owner.path) {
            Ok(inode) if inode == owner.inode => {}
            Ok(_) => {
                return Err(format!(
                    "its lock file {} was replaced",
                    owner.path.display()
                ));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(format!(
                    "its lock file {} was removed",
                    owner.path.display()
                ));
            }
            Err(_) => return Ok(()),
        }
        match inode_of(&self.bound.path) {
            Ok(inode) if inode == self.bound.inode => Ok(()),
            Ok(_) => Err("something else took its socket path".into()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => self.recreate(),
            Err(_) => Ok(()),
        }
    }

    fn recreate(&mut self) -> Result<(), String> {
        let old = self.bound.relink().map_err(|e| {
            format!(
                "its socket file was removed and cannot be re-created: {}",
                error_chain(&e)
            )
        })?;
        let acceptor = self
            .accepting
            .start(&self.bound.listener)
            .map_err(|e| format!("cannot accept on the re-created socket: {e}"))?;
        tracing::warn!(socket = %self.bound.path.display(), "its socket file was removed; re-created it");
        // Nobody can reach the old socket any more: its acceptor is stopped, not joined forever.
        std::mem::replace(&mut self.acceptor, acceptor).stop(None);
        drop(old);
        Ok(())
    }
}

/// `e` and its sources on one line.
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
