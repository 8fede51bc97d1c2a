//! The event read from stdin: until the input closes or holds one whole JSON value, within
//! the time budget and up to [`MAX_EVENT`] bytes, on a thread of its own that a stdin which
//! never closes leaves blocked behind.

use std::io::{self, Read};
use std::sync::mpsc;
use std::time::Instant;

/// The largest event the hook reads from stdin. A real event is a few KB (a `Write` carries
/// the file's content, so a large one can reach a few hundred KB); past this the hook stops
/// reading and stays silent.
pub const MAX_EVENT: usize = 4 << 20;

/// Why no event was read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum InputError {
    /// More than the limit arrived.
    #[error("the event is larger than {0} bytes; not read further")]
    TooLarge(usize),
    /// The budget ran out before the input closed or held a whole JSON value.
    #[error(
        "stdin neither closed nor held a whole JSON value within the hook's time budget ({0} bytes read)"
    )]
    Timeout(usize),
    /// Reading failed.
    #[error("reading stdin failed: {0}")]
    Read(io::Error),
}

/// Reads one event from `input` until end of input or until what arrived is one whole JSON
/// value (a harness may keep stdin open after writing the event), whichever comes first; gives
/// up at `deadline` or past `max` bytes. The reading happens on a thread of its own, left
/// blocked on a stdin that never closes: the process exits without it.
pub fn read_event<R: Read + Send + 'static>(
    mut input: R,
    deadline: Instant,
    max: usize,
) -> Result<Vec<u8>, InputError> {
    let (sender, chunks) = mpsc::sync_channel::<io::Result<Vec<u8>>>(4);
    let reader = std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let mut read = 0usize;
            loop {
                let mut chunk = vec![0; 64 << 10];
                let chunk = match input.read(&mut chunk) {
                    Ok(n) => {
                        chunk.truncate(n);
                        Ok(chunk)
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => Err(e),
                };
                let end = !matches!(&chunk, Ok(c) if !c.is_empty());
                read += chunk.as_ref().map_or(0, Vec::len);
                // Past the limit nothing more is read: the receiver stops at it.
                if sender.send(chunk).is_err() || end || read > max {
                    return;
                }
            }
        });
    if let Err(e) = reader {
        return Err(InputError::Read(e));
    }
    let mut event = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match chunks.recv_timeout(left) {
            Ok(Ok(chunk)) if chunk.is_empty() => return Ok(event),
            Ok(Ok(chunk)) => {
                event.extend_from_slice(&chunk);
                if event.len() > max {
                    return Err(InputError::TooLarge(max));
                }
                if whole_json(&event) {
                    return Ok(event);
                }
            }
            Ok(Err(e)) => return Err(InputError::Read(e)),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(event),
            Err(mpsc::RecvTimeoutError::Timeout) => return Err(InputError::Timeout(event.len())),
        }
    }
}

/// Whether `bytes` hold exactly one JSON object (the shape of every event), tried only when
/// the last byte that is not white space closes one.
fn whole_json(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .rev()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'}')
        && serde_json::from_slice::<serde::de::IgnoredAny>(bytes).is_ok()
}
