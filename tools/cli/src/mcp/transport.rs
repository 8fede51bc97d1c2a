//! The MCP server's stdio transport: newline-delimited JSON-RPC frames, answering what the
//! SDK's own transport leaves unanswered.
//!
//! JSON-RPC 2.0 asks a server to answer a message that is not JSON with a parse error (-32700)
//! and a null id, and a message that is JSON but not a request with an invalid-request error
//! (-32600) carrying its id when one can be read. The SDK's line transport drops unparsable
//! lines without a word, so a client that sent a broken frame waits forever. This transport
//! answers both, never quoting the input back, and bounds a line's length: a line past
//! [`MAX_LINE_BYTES`] is skipped (answered as a parse error) without being held in memory.
//! A notification (no id) that does not parse is dropped silently, as JSON-RPC says no
//! notification is ever answered.

use rmcp::RoleServer;
use rmcp::model::JsonRpcMessage;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

/// The longest line read: the SDK's own limit, so a payload one accepts the other does.
pub const MAX_LINE_BYTES: usize = 16 << 20;

/// JSON-RPC's code for a message that is not JSON.
const PARSE_ERROR: i64 = -32700;
/// JSON-RPC's code for JSON that is not a valid request.
const INVALID_REQUEST: i64 = -32600;

/// Frames over a reader and a writer (stdin and stdout).
pub struct LineTransport<R, W> {
    read: BufReader<R>,
    /// The line being read; kept across a cancelled `receive` (the service polls it in a
    /// `select!`), so a partly read line is resumed, never lost.
    line: Vec<u8>,
    /// Skipping the rest of a line past [`MAX_LINE_BYTES`].
    discarding: bool,
    write: Arc<Mutex<W>>,
    /// An error frame still to write before the next line is read.
    pending: Option<Vec<u8>>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> LineTransport<R, W> {
    /// A transport reading frames from `read` and writing them to `write`.
    pub fn new(read: R, write: W) -> Self {
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(write)),
            pending: None,
        }
    }

    /// Reads one line into `self.line`, never holding more than [`MAX_LINE_BYTES`]:
    /// `Some(true)` a line, `Some(false)` a line that was too long (skipped), `None` the end.
    async fn read_line(&mut self) -> Option<bool> {
        loop {
            let available = self.read.fill_buf().await.ok()?;
            if available.is_empty() {
                return None;
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |at| at + 1);
            let too_long = self.discarding || self.line.len() + take > MAX_LINE_BYTES;
            if too_long {
                self.line.clear();
            } else {
                self.line.extend_from_slice(&available[..take]);
            }
            // No await between the copy and the consume: a cancelled read loses nothing.
            self.read.consume(take);
            match (newline.is_some(), too_long) {
                (true, false) => return Some(true),
                (true, true) => {
                    self.discarding = false;
                    return Some(false);
                }
                (false, true) => self.discarding = true,
                (false, false) => {}
            }
        }
    }
}

/// What one line holds.
enum Frame {
    /// A message for the service.
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// An error frame to answer.
    Answer(Vec<u8>),
    /// Nothing to do (an empty line, an unknown notification).
    Skip,
}

/// Reads one line (without its newline).
fn frame(line: &[u8]) -> Frame {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Frame::Skip;
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return Frame::Answer(error_frame(
            Value::Null,
            PARSE_ERROR,
            "Parse error: the message is not JSON",
        ));
    };
    let id = match value.get("id") {
        Some(id @ (Value::Number(_) | Value::String(_))) => Some(id.clone()),
        _ => None,
    };
    let is_notification = value.get("method").is_some() && value.get("id").is_none();
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(message) => Frame::Message(Box::new(message)),
        Err(_) if is_notification => Frame::Skip,
        Err(_) => Frame::Answer(error_frame(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            "Invalid request: not a JSON-RPC 2.0 request this server knows",
        )),
    }
}

/// A JSON-RPC error frame, newline included.
fn error_frame(id: Value, code: i64, message: &str) -> Vec<u8> {
    let mut bytes =
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
            .to_string()
            .into_bytes();
    bytes.push(b'\n');
    bytes
}

/// The most bytes of an error's message a frame carries.
const MAX_ERROR_MESSAGE: usize = 400;

/// The most bytes of an error's data a frame carries: past it the data is left out.
const MAX_ERROR_DATA: usize = 1024;

/// `item` with an error's message and data bounded: an error may quote what the client sent
/// (an unknown method's name, say), which must not come back whole.
fn bounded_error(item: TxJsonRpcMessage<RoleServer>) -> TxJsonRpcMessage<RoleServer> {
    let JsonRpcMessage::Error(mut error) = item else {
        return item;
    };
    let message = &error.error.message;
    if message.len() > MAX_ERROR_MESSAGE || docsuggest_schema::text::has_invisible(message) {
        error.error.message = docsuggest_schema::text::bounded(message, MAX_ERROR_MESSAGE).into();
    }
    let data_len = |data: &Value| serde_json::to_vec(data).map_or(usize::MAX, |b| b.len());
    if error
        .error
        .data
        .as_ref()
        .is_some_and(|d| data_len(d) > MAX_ERROR_DATA)
    {
        error.error.data = None;
    }
    JsonRpcMessage::Error(error)
}

/// Writes `bytes` whole and flushes.
async fn write_frame<W: AsyncWrite + Unpin>(write: &Mutex<W>, bytes: &[u8]) -> std::io::Result<()> {
    let mut write = write.lock().await;
    write.write_all(bytes).await?;
    write.flush().await
}

impl<R, W> Transport<RoleServer> for LineTransport<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let write = self.write.clone();
        let item = bounded_error(item);
        // Serialised before the lock, so frames are written whole, one at a time.
        let bytes = serde_json::to_vec(&item).map(|mut bytes| {
            bytes.push(b'\n');
            bytes
        });
        async move { write_frame(&write, &bytes.map_err(std::io::Error::other)?).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(bytes) = &self.pending {
                write_frame(&self.write, bytes).await.ok()?;
                self.pending = None;
            }
            let whole = self.read_line().await?;
            let found = if whole {
                let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
                frame(line)
            } else {
                Frame::Answer(error_frame(
                    Value::Null,
                    PARSE_ERROR,
                    "Parse error: the message is longer than 16 MiB; it was skipped",
                ))
            };
            self.line.clear();
            match found {
                Frame::Message(message) => return Some(*message),
                Frame::Answer(bytes) => self.pending = Some(bytes),
                Frame::Skip => {}
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(line: &str) -> Value {
        match frame(line.as_bytes()) {
            Frame::Answer(bytes) => serde_json::from_slice(&bytes).expect("an error frame"),
            Frame::Message(m) => panic!("{line:?} read as a message: {m:?}"),
            Frame::Skip => panic!("{line:?} skipped"),
        }
    }

    #[test]
    fn lines_that_are_not_json_are_parse_errors_with_a_null_id() {
        for line in [
            "{",
            "not json",
            "{\"jsonrpc\": \"2.0\", \"id\": 1",
            "\u{feff}}",
        ] {
            let a = answer(line);
            assert_eq!(a["id"], Value::Null, "{line}");
            assert_eq!(a["error"]["code"], PARSE_ERROR, "{line}");
        }
    }

    #[test]
    fn json_that_is_not_a_request_is_invalid_with_its_id() {
        let a = answer(r#"{"jsonrpc": "2.0", "id": 7, "method": 3}"#);
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (json!(7), json!(INVALID_REQUEST))
        );
        let a = answer("[1, 2]");
        assert_eq!(
            (a["id"].clone(), a["error"]["code"].clone()),
            (Value::Null, json!(INVALID_REQUEST))
        );
        // The input is never quoted back.
        let a = answer(r#"{"id": "x", "secret": "\u202e"}"#);
        assert!(!a.to_string().contains("secret"), "{a}");
    }

    #[test]
    fn requests_are_read_and_unknown_notifications_skipped() {
        let line = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;
        assert!(matches!(frame(line.as_bytes()), Frame::Message(_)));
        let crlf = format!("{line}\r");
        assert!(matches!(frame(crlf.as_bytes()), Frame::Message(_)));
        for line in [
            "",
            "  ",
            r#"{"jsonrpc":"2.0","method":"$/cancel","params":3}"#,
        ] {
            assert!(matches!(frame(line.as_bytes()), Frame::Skip), "{line:?}");
        }
    }
}
