//! The Unix-domain socket server: one engine, many connections, each a JSON-lines session
//! exactly as on stdio.
//!
//! One acceptor thread, one thread per connection, and the engine loop on the caller's
//! thread (see `serve.rs`). A connection thread only frames lines and waits for the answer
//! of its one request in flight, so a client that stalls, sends garbage or vanishes blocks
//! nothing but its own thread; the engine loop never writes to a socket.
//!
//! The socket file is made in a private directory beside it (mode `0700`), set to `0600`,
//! then hard-linked into place: the name appears atomically, already owner-only, and a link
//! never replaces a file that exists. A pid file (`<socket>.pid`) names the server.
//!
//! One server per socket is decided by a lock, not by the socket file: a server holds an
//! exclusive `flock` on `<socket>.owner` for its whole life, taken before anything else, so a
//! second one is refused (with the first one's pid) even when the socket file was removed. A
//! watcher thread checks every [`SOCKET_CHECK_INTERVAL`] that the socket path and the lock
//! file are still this server's: a missing socket is re-created (the clients reach the same
//! server again, whose store and learning stay open); anything else in its place, or a lock
//! file removed or replaced, stops the server as SIGTERM does, since it can no longer prove it
//! is the only one.

mod accept;
mod bind;
mod error;
mod owner;
mod pid;
#[cfg(test)]
mod tests;
mod watch;

pub use bind::{Bound, MAX_SOCKET_PATH, bind};
pub use error::SocketError;
pub use owner::owner_file;
pub use pid::{pid_file, read_pid};
pub use watch::SOCKET_CHECK_INTERVAL;

use super::dispatch::Dispatcher;
use super::serve::{self, Ending, Event, ServeError, Sessions};
use super::slots::Slots;
use accept::Accepting;
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::Duration;
use watch::Listening;

/// Connections served at once by default; one more is answered `too-many-connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// Serves `bound` until SIGTERM or SIGINT, then finishes the dispatcher and removes the
/// socket and pid files. `close` from a client flushes and ends that connection only. With
/// `idle_timeout`, it also stops once no request has arrived for that long. A socket file
/// removed meanwhile is re-created; a socket path or lock file taken by something else stops
/// the server ([`Ending::SocketLost`]).
pub fn serve_socket(
    dispatcher: Dispatcher,
    bound: Bound,
    max_connections: usize,
    idle_timeout: Option<Duration>,
) -> Result<Ending, SocketError> {
    let (events, inbox) = mpsc::channel();
    serve::watch_signals(events.clone()).map_err(ServeError::Signals)?;
    serve_socket_until(
        dispatcher,
        bound,
        max_connections,
        idle_timeout,
        events,
        inbox,
    )
}

fn serve_socket_until(
    dispatcher: Dispatcher,
    bound: Bound,
    max_connections: usize,
    idle_timeout: Option<Duration>,
    events: Sender<Event>,
    inbox: Receiver<Event>,
) -> Result<Ending, SocketError> {
    let mut dispatcher = dispatcher.shared();
    let accepting = Accepting {
        events: events.clone(),
        slots: Slots::new(max_connections),
    };
    let acceptor = accepting
        .start(&bound.listener)
        .map_err(|source| SocketError::Bind {
            path: bound.path.display().to_string(),
            source,
        })?;
    let mut listening = Listening {
        bound,
        acceptor,
        accepting,
    };
    let (quit, quitting) = mpsc::channel::<()>();
    let watcher = std::thread::Builder::new()
        .name("socket-watch".into())
        .spawn(move || {
            listening.watch(&quitting, &events);
            listening
        })
        .map_err(ServeError::Read)?;
    let ending = serve::engine_loop(&mut dispatcher, &inbox, Sessions::Many, idle_timeout);
    drop(quit);
    // A watcher that panicked dropped its `Bound` while unwinding: files and lock are gone.
    if let Ok(Listening {
        bound, acceptor, ..
    }) = watcher.join()
    {
        acceptor.stop(bound.is_ours().then_some(bound.path.as_path()));
        // The store is closed before the lock is released, so the next server can open it.
        drop(dispatcher);
        drop(bound);
    }
    Ok(ending?)
}
