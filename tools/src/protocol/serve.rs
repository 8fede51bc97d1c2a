//! The stdio server loop: read a line, answer it, until `close` or the end of input.

use super::dispatch::Dispatcher;
use super::lines::{Line, LineReader};
use docsuggest_schema::StoreError;
use std::io::{self, BufRead, Write};

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
}

/// Serves `input` until `close` or its end; answers how many requests were answered.
///
/// Every answer is flushed as it is written, so a host can wait for it line by line. At the
/// end of input (or when the host stops reading) the engine is closed: open windows close as
/// abandoned and the store is flushed.
pub fn serve(
    dispatcher: &mut Dispatcher,
    input: impl BufRead,
    mut output: impl Write,
) -> Result<u64, ServeError> {
    let mut reader = LineReader::new(input);
    let mut answered = 0;
    let outcome = loop {
        let line = match reader.next_line() {
            Ok(Some(line)) => line,
            Ok(None) => break Ok(()),
            Err(e) => break Err(ServeError::Read(e)),
        };
        if matches!(&line, Line::Bytes(b) if b.iter().all(u8::is_ascii_whitespace)) {
            continue;
        }
        let handled = dispatcher.handle_line(&line);
        answered += 1;
        let written = output
            .write_all(handled.answer.as_bytes())
            .and_then(|()| output.write_all(b"\n"))
            .and_then(|()| output.flush());
        if let Err(e) = written {
            break Err(ServeError::Write(e));
        }
        if handled.stop {
            break Ok(());
        }
    };
    let closed = dispatcher.finish();
    if let (Err(_), Err(e)) = (&outcome, &closed) {
        tracing::error!(error = %e, "closing the store failed");
    }
    outcome?;
    closed.map_err(ServeError::Close)?;
    Ok(answered)
}
