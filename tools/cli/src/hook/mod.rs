//! `docsuggest hook`: one Claude Code or Codex CLI hook event in, the harness's answer out.
//!
//! Each hook is a new process, so the engine lives in the user's socket daemon
//! (`serve --socket`), which the hook starts when none answers. The hook fails open: any
//! problem (bad input, an unknown event or tool, a daemon that cannot start or answer) ends
//! in silence and exit 0 within the time budget, with the reason appended to the hook log.
//!
//! ```
//! use docsuggest_cli::hook::{self, Harness};
//!
//! let answer = hook::output(Harness::ClaudeCode, "PostToolUse", &["Read the index too.".into()]);
//! assert_eq!(
//!     answer.as_deref(),
//!     Some(r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"Read the index too."}}"#)
//! );
//! ```

pub mod command;
pub mod event;
pub mod install;
pub mod patch;
pub mod transport;

mod answer;
mod cooldown;
mod input;
mod log;
mod options;
mod state;
mod turns;

pub use answer::{answer, output};
pub use docsuggest_host::daemon::{STATE_DIR, default_socket};
pub use input::{InputError, MAX_EVENT, read_event};
pub use log::{log_refused_arguments, rfc3339};
pub use options::{Boundary, DEFAULT_BUDGET, DEFAULT_IDLE_TIMEOUT, Harness, HookOptions};
pub use state::state_dir;
pub(crate) use state::{Open, private_file};
pub use turns::{TURNS_MAX_AGE, TURNS_MAX_FILES, Turns};

use event::{Action, Skip};
use log::log;
use std::io;
use std::time::{Duration, Instant};
use transport::TransportError;

/// Runs one event: answers what to print on stdout (`None`: nothing). Never fails; a reason
/// for silence goes to the hook log.
pub fn run(options: &HookOptions, input: &[u8]) -> Option<String> {
    run_until(options, input, Instant::now() + options.budget)
}

/// [`run`] on the event this process reads from stdin, as `docsuggest hook` does: files it
/// and the daemon it starts create are owner-only (umask `077`), and stdin is read within
/// the budget and up to [`MAX_EVENT`] (see [`read_event`]).
pub fn run_stdin(options: &HookOptions) -> Option<String> {
    let deadline = Instant::now() + options.budget;
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
    match read_event(io::stdin(), deadline, MAX_EVENT) {
        Ok(input) => run_until(options, &input, deadline),
        Err(e) => {
            if state_dir(options).is_ok() {
                log(options, "bad-input", &e.to_string());
            }
            None
        }
    }
}

fn run_until(options: &HookOptions, input: &[u8], deadline: Instant) -> Option<String> {
    // Nothing is written (not even the log) where the state directory is not ours alone.
    if state_dir(options).is_err() {
        return None;
    }
    let action = match event::parse_as(input, options.event.as_deref()) {
        Ok(action) => action,
        Err(skip) => {
            // Events and tools the hook was not installed for are expected; only say so.
            let quiet = matches!(skip, Skip::UnknownEvent(_) | Skip::UnknownTool(_));
            log(
                options,
                if quiet { "skip" } else { "bad-input" },
                &skip.to_string(),
            );
            return None;
        }
    };
    // A daemon that goes away under the hook (killed, or stopping as it idled out) is asked
    // once more, through the next one, while the budget lasts.
    let mut attempts = 0;
    loop {
        attempts += 1;
        match ask(options, &action, deadline) {
            Asked::Answer(output) => return output,
            Asked::Gone(e) if attempts < 2 && Instant::now() < deadline => {
                log(options, "retry", &e.to_string());
            }
            Asked::Gone(e) => {
                log(options, "failed", &e.to_string());
                return None;
            }
        }
    }
}

/// What one attempt to answer an event came to.
enum Asked {
    /// The hook's output (`None`: silent, the reason logged).
    Answer(Option<String>),
    /// The daemon went away mid-request: nothing was answered.
    Gone(TransportError),
}

/// Whether `e` says the daemon went away under the request (its process ended).
fn daemon_gone(e: &TransportError) -> bool {
    use docsuggest_host::client::ClientError;
    match e {
        TransportError::Client(ClientError::Hangup) => true,
        TransportError::Client(ClientError::Io(io)) => matches!(
            io.kind(),
            std::io::ErrorKind::ConnectionReset
                | std::io::ErrorKind::BrokenPipe
                | std::io::ErrorKind::UnexpectedEof
        ),
        _ => false,
    }
}

/// Connects to the daemon (starting one when none runs) and answers `action` through it.
fn ask(options: &HookOptions, action: &Action, deadline: Instant) -> Asked {
    let mut connected = match transport::connect_or_start(&transport::Daemon::of(options), deadline)
    {
        Ok(connected) => connected,
        Err(e @ TransportError::Client(docsuggest_host::client::ClientError::Untrusted { .. })) => {
            log(options, "untrusted", &e.to_string());
            return Asked::Answer(None);
        }
        Err(e) => {
            log(options, "no-daemon", &e.to_string());
            return Asked::Answer(None);
        }
    };
    if let Some(pid) = connected.started {
        log(
            options,
            "started",
            &format!("daemon pid {pid} on {}", options.socket.display()),
        );
    }
    let left = deadline.saturating_duration_since(Instant::now());
    if let Err(e) = connected
        .client
        .set_timeout(Some(left.max(Duration::from_millis(1))))
    {
        log(options, "no-daemon", &e.to_string());
        return Asked::Answer(None);
    }
    // The connection is dropped, not closed: `close` would flush (an fsync) on every call,
    // and the daemon flushes on its own interval anyway.
    match answer(options, action, &mut connected.client, deadline) {
        Ok(output) => Asked::Answer(output),
        Err(e) if daemon_gone(&e) => Asked::Gone(e),
        Err(e) => {
            log(options, "failed", &e.to_string());
            Asked::Answer(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{TransportError, daemon_gone};

    #[test]
    fn only_a_daemon_that_went_away_is_asked_again() {
        use docsuggest_host::client::ClientError;
        use std::io::{Error, ErrorKind};
        let io = |kind| TransportError::Client(ClientError::Io(Error::from(kind)));
        for kind in [
            ErrorKind::ConnectionReset,
            ErrorKind::BrokenPipe,
            ErrorKind::UnexpectedEof,
        ] {
            assert!(daemon_gone(&io(kind)), "{kind:?}");
        }
        assert!(daemon_gone(&TransportError::Client(ClientError::Hangup)));
        // Slow, refused or garbled answers come from a daemon that is there: not asked again.
        assert!(!daemon_gone(&io(ErrorKind::TimedOut)));
        assert!(!daemon_gone(&io(ErrorKind::WouldBlock)));
        let refused = TransportError::Client(ClientError::Refused {
            code: "invalid-request".into(),
            detail: String::new(),
        });
        assert!(!daemon_gone(&refused));
    }
}
