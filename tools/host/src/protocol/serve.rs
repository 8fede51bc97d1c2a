//! The server loops: sessions that frame lines, and the one engine loop that answers them.
//!
//! Every transport has the same shape. A *session* reads request lines from one input, sends
//! each to the engine loop over a channel, waits for its answer and writes it, so a session
//! never holds more than one request in flight and answers keep their order. The *engine
//! loop* owns the [`Dispatcher`] on one thread and answers requests in the order they
//! arrive, so the engine stays single-threaded whatever the number of sessions. Stdio is one
//! session ([`serve`], [`serve_stdio`]); the socket server runs one per connection
//! (`socket.rs`). A session that stalls or breaks blocks only its own thread.

use super::dispatch::Dispatcher;
use super::lines::{Line, LineReader};
use super::slots::Activity;
use docsuggest_schema::StoreError;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// Why serving ended badly. The store is closed in every case before this is answered.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Reading requests failed.
    #[error("reading requests failed: {0}")]
    Read(io::Error),
    /// Writing an answer failed (the host went away).
    #[error("writing an answer failed: {0}")]
    Write(io::Error),
    /// Closing the store at the end of input failed.
    #[error("closing the store failed: {0}")]
    Close(StoreError),
    /// The signal handlers could not be installed.
    #[error("cannot watch for SIGTERM and SIGINT: {0}")]
    Signals(io::Error),
}

impl ServeError {
    /// Whether the host stopped reading answers (a closed pipe or socket): not worth a
    /// message, since nobody is there to read it.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, ServeError::Write(e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// How a server stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The end of input (stdio), or a session that broke.
    EndOfInput,
    /// A `close` request (stdio).
    Closed,
    /// SIGTERM or SIGINT (the signal's number).
    Signal(i32),
    /// No request arrived for the idle timeout (a socket server started by `docsuggest hook`).
    Idle,
    /// The socket server's path or lock file was taken by something else (or the lock file
    /// removed): it stopped as on a signal, so the next start makes a fresh server.
    SocketLost,
    /// A request panicked where the engine's state may be half-changed: it was answered
    /// `internal`, what was durable was flushed, and the server stopped so the next start
    /// begins clean.
    Panicked,
}

/// One answer on its way back to a session.
#[derive(Debug)]
pub(crate) struct Answer {
    pub(crate) line: String,
    /// The session ends after writing it.
    pub(crate) stop: bool,
}

/// What the engine loop is sent.
pub(crate) enum Event {
    /// A request line and where its answer goes.
    Request { line: Line, reply: Sender<Answer> },
    /// A session ended (its input ended, it failed, or it was closed).
    SessionEnded(Result<(), ServeError>),
    /// A request to stop: flush, close, and return.
    Stop(i32),
    /// The socket server lost its socket path or lock file: stop as on a signal.
    SocketLost,
}

/// Whether the loop ends with the first session (stdio) or only on a signal (the socket).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sessions {
    One,
    Many,
}

/// Answers requests until a signal, or (with [`Sessions::One`]) until the session ends;
/// then finishes the dispatcher (open windows close as abandoned, the store is flushed and
/// closed). Under `group` durability an idle engine flushes after the flush interval. With
/// `idle_timeout`, the loop also ends ([`Ending::Idle`]) once no request has arrived for
/// that long.
pub(crate) fn engine_loop(
    dispatcher: &mut Dispatcher,
    events: &Receiver<Event>,
    sessions: Sessions,
    idle_timeout: Option<Duration>,
) -> Result<Ending, ServeError> {
    let mut closed = false;
    let mut last_request = Instant::now();
    let outcome = loop {
        let idle_left = idle_timeout.map(|t| t.saturating_sub(last_request.elapsed()));
        if idle_left == Some(Duration::ZERO) {
            break Ok(Ending::Idle);
        }
        let flush = dispatcher.idle_flush_interval();
        let wait = match (flush, idle_left) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let event = match wait {
            Some(wait) => match events.recv_timeout(wait) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    if flush.is_some()
                        && let Err(e) = dispatcher.flush_idle()
                    {
                        tracing::warn!(error = %e, "the periodic flush failed");
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break Ok(Ending::EndOfInput),
            },
            None => match events.recv() {
                Ok(event) => event,
                Err(_) => break Ok(Ending::EndOfInput),
            },
        };
        match event {
            Event::Request { line, reply } => {
                last_request = Instant::now();
                let handled = dispatcher.handle_line(&line);
                closed |= handled.stop && sessions == Sessions::One;
                // A session that went away no longer waits for its answer; nothing to do.
                let _ = reply.send(Answer {
                    line: handled.answer,
                    stop: handled.stop,
                });
                if handled.fatal {
                    break Ok(Ending::Panicked);
                }
            }
            Event::SessionEnded(result) if sessions == Sessions::One => {
                break result.map(|()| {
                    if closed {
                        Ending::Closed
                    } else {
                        Ending::EndOfInput
                    }
                });
            }
            Event::SessionEnded(result) => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "a connection ended");
                }
            }
            Event::Stop(signal) => break Ok(Ending::Signal(signal)),
            Event::SocketLost => break Ok(Ending::SocketLost),
        }
    };
    let finished = dispatcher.finish();
    if let (Err(_), Err(e)) = (&outcome, &finished) {
        tracing::error!(error = %e, "closing the store failed");
    }
    let ending = outcome?;
    finished.map_err(ServeError::Close)?;
    Ok(ending)
}

/// Reads request lines from `input` and writes their answers to `output` until the input
/// ends, a `close` is answered, or the engine loop stops; answers how many requests were
/// answered. Blank lines are skipped without an answer. A socket connection reports to
/// `activity` when a request is in flight, so an idle one can give up its slot.
pub(crate) fn session(
    input: impl BufRead,
    mut output: impl Write,
    engine: &Sender<Event>,
    activity: Option<&Activity>,
) -> Result<u64, ServeError> {
    let mut reader = LineReader::new(input);
    let (reply, answers) = mpsc::channel();
    let mut answered = 0;
    loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => return Ok(answered),
            Err(e) => return Err(ServeError::Read(e)),
        };
        if matches!(&line, Line::Bytes(b) if b.iter().all(u8::is_ascii_whitespace)) {
            continue;
        }
        if let Some(activity) = activity {
            activity.busy();
        }
        let request = Event::Request {
            line,
            reply: reply.clone(),
        };
        // The engine loop stopped (a signal): the request is not answered.
        if engine.send(request).is_err() {
            return Ok(answered);
        }
        let Ok(answer) = answers.recv() else {
            return Ok(answered);
        };
        answered += 1;
        output
            .write_all(answer.line.as_bytes())
            .and_then(|()| output.write_all(b"\n"))
            .and_then(|()| output.flush())
            .map_err(ServeError::Write)?;
        if let Some(activity) = activity {
            activity.idle();
        }
        if answer.stop {
            return Ok(answered);
        }
    }
}

/// Serves `input` until `close` or its end; answers how many requests were answered.
///
/// Every answer is flushed as it is written, so a host can wait for it line by line. At the
/// end of input (or when the host stops reading) the engine is closed: open windows close as
/// abandoned and the store is flushed.
pub fn serve(
    dispatcher: &mut Dispatcher,
    input: impl BufRead + Send,
    output: impl Write + Send,
) -> Result<u64, ServeError> {
    let (events, inbox) = mpsc::channel();
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            // The session's own error is returned below; the loop only needs its end.
            let result = session(input, output, &events, None);
            let _ = events.send(Event::SessionEnded(Ok(())));
            result
        });
        let ending = engine_loop(dispatcher, &inbox, Sessions::One, None);
        // The loop waited for the session's end, so this join returns at once.
        let answered = match reader.join() {
            Ok(result) => result?,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        ending?;
        Ok(answered)
    })
}

/// Serves stdin and stdout like [`serve`], and stops cleanly on SIGTERM or SIGINT: the
/// engine loop flushes and closes the store, then this returns [`Ending::Signal`]. A second
/// signal exits the process at once. Stdin is read on its own thread, so a signal is served
/// while a read blocks.
pub fn serve_stdio(dispatcher: &mut Dispatcher) -> Result<Ending, ServeError> {
    let (events, inbox) = mpsc::channel();
    watch_signals(events.clone()).map_err(ServeError::Signals)?;
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = io::stdin().lock();
            let stdout = io::stdout().lock();
            let result = session(stdin, stdout, &events, None).map(|_| ());
            let _ = events.send(Event::SessionEnded(result));
        })
        .map_err(ServeError::Read)?;
    engine_loop(dispatcher, &inbox, Sessions::One, None)
}

/// Sends [`Event::Stop`] on the first SIGTERM or SIGINT; exits at once, with status
/// 128 + the signal's number, on the next one.
pub(crate) fn watch_signals(engine: Sender<Event>) -> io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGTERM, SIGINT])?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            let mut seen = false;
            for signal in signals.forever() {
                if seen {
                    std::process::exit(128 + signal);
                }
                seen = true;
                tracing::info!(signal, "stopping: flushing and closing the store");
                let _ = engine.send(Event::Stop(signal));
            }
        })?;
    Ok(())
}
