//! The log every docsuggest binary writes: tracing's events on stderr, through a writer whose
//! writes never fail.
//!
//! The daemon's stderr is a file (`<socket>.daemon.log`), usually on the disk its store is
//! on. When that disk is full the store fails, says so in the log, and the log write fails
//! too (`ENOSPC`); tracing-subscriber then reports its writer's error with `eprintln!`, which
//! panics when stderr fails — inside a destructor that is an abort, and the daemon that was
//! about to run on memory dies. So a failed log write is dropped here and counted
//! ([`lost_writes`]), and the process goes on: the log is for people, never a reason to stop.

use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use tracing_subscriber::fmt::MakeWriter;

/// Log writes (and flushes) that failed in this process and were dropped.
static LOST: AtomicU64 = AtomicU64::new(0);

/// How many log writes and flushes failed in this process and were dropped.
pub fn lost_writes() -> u64 {
    LOST.load(Ordering::Relaxed)
}

/// Installs the subscriber: the `RUST_LOG` filter (`warn` without one) on stderr, colours only
/// on a terminal, every write infallible.
pub fn init() {
    // The MCP SDK warns of every error it answers with the error's message, which quotes
    // what the client sent (an unknown method's name, whole): its own warnings stay out.
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,rmcp::service=error"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(Forgiving(io::stderr))
        .with_ansi(io::stderr().is_terminal())
        // Its own errors would be reported on stderr, the stream that just failed.
        .log_internal_errors(false)
        .init();
}

/// A [`MakeWriter`] whose writers drop what they cannot write (counted in [`lost_writes`]).
#[derive(Clone, Copy, Debug)]
pub struct Forgiving<M>(pub M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Forgiving<M> {
    type Writer = ForgivingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        ForgivingWriter(self.0.make_writer())
    }
}

/// The most bytes of one log event written: an event quoting outside input whole (a 1 MiB
/// name) is cut.
pub const MAX_LOG_WRITE: usize = 16 * 1024;

/// What ends a cut event.
const CUT: &[u8] = "… (cut)\n".as_bytes();

/// A writer that answers every write as done: what the inner one cannot write is dropped.
#[derive(Debug)]
pub struct ForgivingWriter<W>(W);

impl<W: Write> Write for ForgivingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // One event is one write: past the bound it is cut, and says so.
        let written = if buf.len() > MAX_LOG_WRITE {
            self.0
                .write_all(&buf[..MAX_LOG_WRITE])
                .and_then(|()| self.0.write_all(CUT))
        } else {
            self.0.write_all(buf)
        };
        if written.is_err() {
            LOST.fetch_add(1, Ordering::Relaxed);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.0.flush().is_err() {
            LOST.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// `/dev/full` fails every write with `ENOSPC`, as a full disk does.
    fn full() -> std::fs::File {
        std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
    }

    #[test]
    fn an_event_past_the_bound_is_cut() {
        let mut writer = ForgivingWriter(Vec::new());
        let event = vec![b'm'; 1 << 20];
        assert_eq!(writer.write(&event).expect("never fails"), event.len());
        assert_eq!(writer.0.len(), MAX_LOG_WRITE + CUT.len());
        assert!(writer.0.ends_with(CUT));
    }

    #[test]
    fn a_full_disk_drops_the_write_and_counts_it() {
        let mut writer = ForgivingWriter(full());
        let before = lost_writes();
        assert_eq!(writer.write(b"a line\n").expect("never fails"), 7);
        writer.flush().expect("never fails");
        assert!(lost_writes() > before);
    }

    #[test]
    fn events_through_the_subscriber_on_a_full_disk_are_dropped() {
        let subscriber = tracing_subscriber::fmt()
            .with_writer(Forgiving(Mutex::new(full())))
            .log_internal_errors(false)
            .finish();
        let before = lost_writes();
        tracing::subscriber::with_default(subscriber, || {
            tracing::error!(reason = "no space", "store unavailable, using memory");
        });
        assert!(lost_writes() > before, "the failed write was counted");
    }
}
