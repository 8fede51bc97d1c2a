//! The acceptor: a thread that accepts connections on the listening socket, admits each to
//! a connection slot (one past the bound is answered `too-many-connections`), and starts a
//! thread per connection that frames its JSON lines as a session of the engine loop; and the
//! means to stop it, which never waits forever on a socket removed from under the server.

use super::super::answer::{self, Id};
use super::super::error::RequestError;
use super::super::serve::{self, Event, ServeError};
use super::super::slots::{self, Slots};
use std::io::{self, BufReader, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::JoinHandle;
use std::time::Duration;

/// How long a stopping server waits for an acceptor thread it woke before leaving it behind.
const ACCEPTOR_WAIT: Duration = Duration::from_secs(1);

/// What every acceptor shares: the engine loop's channel and the connection slots.
pub(super) struct Accepting {
    pub(super) events: Sender<Event>,
    pub(super) slots: Arc<Slots>,
}

impl Accepting {
    /// Starts an acceptor thread on `listener`.
    pub(super) fn start(&self, listener: &UnixListener) -> io::Result<Acceptor> {
        let theirs = listener.try_clone()?;
        let ours = listener.try_clone()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let (finished, done) = mpsc::channel::<()>();
        let thread = {
            let stopping = Arc::clone(&stopping);
            let events = self.events.clone();
            let slots = Arc::clone(&self.slots);
            std::thread::Builder::new()
                .name("accept".into())
                .spawn(move || {
                    // Dropped when the thread ends, which is what `done` waits for.
                    let _finished = finished;
                    accept(&theirs, &events, &slots, &stopping);
                })?
        };
        Ok(Acceptor {
            listener: ours,
            stopping,
            done,
            thread,
        })
    }
}

/// An acceptor thread and the means to stop it.
pub(super) struct Acceptor {
    listener: UnixListener,
    stopping: Arc<AtomicBool>,
    done: Receiver<()>,
    thread: JoinHandle<()>,
}

impl Acceptor {
    /// Stops the thread. Shutting the listening socket down wakes a blocked `accept` on
    /// Linux; elsewhere a connection to `wake` (the socket path, while it is still ours) does.
    /// A thread that still does not wake is left behind, never joined, so a socket file
    /// removed from under the server can never hold its stop.
    pub(super) fn stop(self, wake: Option<&Path>) {
        self.stopping.store(true, Ordering::SeqCst);
        let _ = rustix::net::shutdown(&self.listener, rustix::net::Shutdown::Both);
        if let Some(path) = wake {
            let _ = UnixStream::connect(path);
        }
        match self.done.recv_timeout(ACCEPTOR_WAIT) {
            Err(RecvTimeoutError::Timeout) => {
                tracing::debug!("the acceptor did not wake; left behind");
            }
            _ => {
                let _ = self.thread.join();
            }
        }
    }
}

fn accept(
    listener: &UnixListener,
    events: &Sender<Event>,
    slots: &Arc<Slots>,
    stopping: &AtomicBool,
) {
    for stream in listener.incoming() {
        if stopping.load(Ordering::SeqCst) {
            return;
        }
        let mut stream = match stream {
            Ok(stream) => stream,
            Err(e) => {
                // Out of descriptors, say: wait a little rather than spin.
                tracing::warn!(error = %e, "accepting a connection failed");
                std::thread::sleep(std::time::Duration::from_millis(50));
                continue;
            }
        };
        let Some(ticket) = slots.admit(&stream) else {
            let refusal = RequestError::TooManyConnections { max: slots.max() };
            let line = answer::error(&Id::Null, &refusal);
            let _ = writeln!(stream, "{line}");
            continue;
        };
        // A client that sends no complete line, or reads no answer, for this long is closed.
        let _ = stream.set_read_timeout(Some(slots::IDLE_TIMEOUT));
        let _ = stream.set_write_timeout(Some(slots::IDLE_TIMEOUT));
        let events = events.clone();
        let spawned = std::thread::Builder::new()
            .name("connection".into())
            .spawn(move || {
                let result = match stream.try_clone() {
                    Ok(input) => serve::session(
                        BufReader::new(input),
                        stream,
                        &events,
                        Some(ticket.activity()),
                    )
                    .map(|_| ()),
                    Err(e) => Err(ServeError::Read(e)),
                };
                // The slot is free before the loop hears of the end.
                drop(ticket);
                let _ = events.send(Event::SessionEnded(result));
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot start a connection thread");
        }
    }
}
