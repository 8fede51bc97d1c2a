//! A client of `docsuggest serve --socket`: one connection, one request at a time.
//!
//! ```no_run
//! use docsuggest_host::client::Client;
//!
//! let mut client = Client::connect("/run/user/1000/docsuggest.sock")?;
//! assert_eq!(client.hello()?["protocol"], 1);
//! let answer = client.judge("agent-1", "read", "/abs/ws/Documentation/Plans/X.md", None)?;
//! println!("{}", answer["note"]);
//! client.close()?;
//! # Ok::<(), docsuggest_host::client::ClientError>(())
//! ```
//!
//! Requests carry increasing numeric ids and every answer is checked to echo its request's
//! id. An error answer becomes [`ClientError::Refused`] with the protocol's code.

use serde_json::{Value, json};
use std::io::{self, BufRead, BufReader, Write};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::Duration;

use docsuggest_schema::text::bounded;

/// A request that got no usable answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The socket could not be reached.
    #[error("cannot connect to {path}: {source}")]
    Connect {
        /// The socket file.
        path: String,
        /// Why.
        source: io::Error,
    },
    /// Sending or receiving failed.
    #[error("the connection failed: {0}")]
    Io(#[from] io::Error),
    /// The server closed the connection before answering.
    #[error("the server closed the connection before answering")]
    Hangup,
    /// The answer is not the protocol's (quoted escaped and cut).
    #[error("the server's answer is not understood: {0}")]
    Garbled(String),
    /// An earlier request on this connection got no whole answer (it timed out, or the
    /// connection failed): its answer may still come, so the connection is not used again.
    #[error("an earlier request on this connection got no answer; it is not used again")]
    Unusable,
    /// The socket, or the process serving it, belongs to another user: nothing was sent.
    #[error("refusing {path}: {reason}")]
    Untrusted {
        /// The socket file.
        path: String,
        /// What is not ours.
        reason: String,
    },
    /// The server answered an error.
    #[error("{code}: {detail}")]
    Refused {
        /// The protocol's error code.
        code: String,
        /// The detail for a person.
        detail: String,
    },
}

/// One connection to a socket server.
pub struct Client {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
    next_id: u64,
    /// A request failed half way: the next answer read could be its.
    unusable: bool,
}

/// The most bytes of a garbled answer an error quotes.
const GARBLED_QUOTE: usize = 400;

impl Client {
    /// Connects to the server at `path`. The socket file must be owned by this process's
    /// user and, on Linux, so must the process serving it (`SO_PEERCRED`): another user's
    /// socket is [`ClientError::Untrusted`] and nothing is sent to it.
    pub fn connect(path: impl AsRef<Path>) -> Result<Client, ClientError> {
        let path = path.as_ref();
        let untrusted = |reason: String| ClientError::Untrusted {
            path: path.display().to_string(),
            reason,
        };
        let me = rustix::process::geteuid().as_raw();
        // Checked before connecting (a missing file is the usual "no daemon")...
        match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.uid() != me => {
                return Err(untrusted(format!(
                    "the socket file is owned by uid {}, not {me}",
                    meta.uid()
                )));
            }
            _ => {}
        }
        let stream = UnixStream::connect(path).map_err(|source| ClientError::Connect {
            path: path.display().to_string(),
            source,
        })?;
        // ...and the peer after, since the file may be swapped in between.
        if let Some(peer) = peer_uid(&stream)?
            && peer != me
        {
            return Err(untrusted(format!(
                "the server runs as uid {peer}, not {me}"
            )));
        }
        let reader = BufReader::new(stream.try_clone()?);
        Ok(Client {
            reader,
            writer: stream,
            next_id: 1,
            unusable: false,
        })
    }

    /// Bounds every later read and write on the connection (`None`: wait forever); a request
    /// that runs past it fails with [`ClientError::Io`].
    pub fn set_timeout(&self, timeout: Option<Duration>) -> Result<(), ClientError> {
        self.writer.set_read_timeout(timeout)?;
        self.writer.set_write_timeout(timeout)?;
        Ok(())
    }

    /// Sends `request` (an object; its `id` is set here) and answers the whole answer
    /// object of a success.
    pub fn request(&mut self, mut request: Value) -> Result<Value, ClientError> {
        let id = self.next_id;
        self.next_id += 1;
        if let Value::Object(map) = &mut request {
            map.insert("id".into(), json!(id));
        }
        let answer = self.send_line(request.to_string().as_bytes())?;
        if answer.get("id") != Some(&json!(id)) {
            self.unusable = true;
            return Err(ClientError::Garbled(format!(
                "answer {} does not echo request id {id}",
                bounded(&answer.to_string(), GARBLED_QUOTE)
            )));
        }
        Ok(answer)
    }

    /// Sends one raw line (the newline is added) and answers the answer object, success or
    /// not: an error answer is [`ClientError::Refused`].
    pub fn send_line(&mut self, line: &[u8]) -> Result<Value, ClientError> {
        if self.unusable {
            return Err(ClientError::Unusable);
        }
        let sent = self
            .writer
            .write_all(line)
            .and_then(|()| self.writer.write_all(b"\n"))
            .and_then(|()| self.writer.flush());
        if let Err(e) = sent {
            self.unusable = true;
            return Err(e.into());
        }
        let answer = self.read_answer();
        self.unusable = answer.is_err();
        let answer = answer?;
        match answer.get("ok") {
            Some(Value::Bool(true)) => Ok(answer),
            Some(Value::Bool(false)) => {
                let error = &answer["error"];
                let text = |field: &str| error[field].as_str().unwrap_or_default().to_string();
                Err(ClientError::Refused {
                    code: text("code"),
                    detail: text("detail"),
                })
            }
            _ => Err(ClientError::Garbled(bounded(
                &answer.to_string(),
                GARBLED_QUOTE,
            ))),
        }
    }

    /// Reads the next answer line.
    pub fn read_answer(&mut self) -> Result<Value, ClientError> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(ClientError::Hangup);
        }
        serde_json::from_str(&line)
            .map_err(|e| ClientError::Garbled(format!("{e}: {}", bounded(&line, GARBLED_QUOTE))))
    }

    /// `hello`: the protocol version, the engine version, the store and its durability.
    pub fn hello(&mut self) -> Result<Value, ClientError> {
        self.request(json!({"op": "hello"}))
    }

    /// `judge` one tool call.
    pub fn judge(
        &mut self,
        agent: &str,
        tool: &str,
        path: &str,
        cwd: Option<&str>,
    ) -> Result<Value, ClientError> {
        self.request(json!({"op": "judge", "agent": agent, "tool": tool, "path": path, "cwd": cwd}))
    }

    /// `peek`: the answer `judge` would give the call now, with nothing recorded or
    /// remembered.
    pub fn peek(
        &mut self,
        agent: &str,
        tool: &str,
        path: &str,
        cwd: Option<&str>,
    ) -> Result<Value, ClientError> {
        self.request(json!({"op": "peek", "agent": agent, "tool": tool, "path": path, "cwd": cwd}))
    }

    /// `turn`: the per-turn reset of one agent.
    pub fn turn(&mut self, agent: &str) -> Result<Value, ClientError> {
        self.request(json!({"op": "turn", "agent": agent}))
    }

    /// `configure` with a patch object.
    pub fn configure(&mut self, patch: Value) -> Result<Value, ClientError> {
        self.request(json!({"op": "configure", "config": patch}))
    }

    /// `flush`: answers the last durable decision sequence number.
    pub fn flush(&mut self) -> Result<u64, ClientError> {
        let answer = self.request(json!({"op": "flush"}))?;
        durable(&answer)
    }

    /// `rates` of the workspace `dir` lies in.
    pub fn rates(&mut self, dir: &str) -> Result<Value, ClientError> {
        self.request(json!({"op": "rates", "workspace": dir}))
    }

    /// `stats`: the server's counts since it started (every connection's).
    pub fn stats(&mut self) -> Result<Value, ClientError> {
        self.request(json!({"op": "stats"}))
    }

    /// `close`: over the socket, flushes and ends this connection (the server keeps
    /// serving); answers the last durable decision sequence number.
    pub fn close(mut self) -> Result<u64, ClientError> {
        let answer = self.request(json!({"op": "close"}))?;
        durable(&answer)
    }
}

/// The effective uid of the process at the other end of `stream` (`None` where the platform
/// has no `SO_PEERCRED`).
fn peer_uid(stream: &UnixStream) -> io::Result<Option<u32>> {
    #[cfg(target_os = "linux")]
    {
        let cred = rustix::net::sockopt::socket_peercred(stream)?;
        Ok(Some(cred.uid.as_raw()))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = stream;
        Ok(None)
    }
}

fn durable(answer: &Value) -> Result<u64, ClientError> {
    answer["durable"]
        .as_u64()
        .ok_or_else(|| ClientError::Garbled(format!("no durable sequence in {answer}")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::net::UnixListener;

    /// A request that times out leaves its answer on the way: the next request on that
    /// connection must never read it as its own.
    #[test]
    fn a_timed_out_request_makes_the_connection_unusable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.sock");
        let listener = UnixListener::bind(&path).expect("bind");
        let server = std::thread::spawn(move || {
            let (stream, _) = listener.accept().expect("accept");
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut writer = stream;
            let mut line = String::new();
            reader.read_line(&mut line).expect("a request");
            std::thread::sleep(Duration::from_millis(300));
            let stale = format!(
                "{{\"id\":1,\"ok\":true,\"big\":\"{}\"}}\n",
                "x".repeat(5000)
            );
            let _ = writer.write_all(stale.as_bytes());
            line.clear();
            let _ = reader.read_line(&mut line);
        });
        let mut client = Client::connect(&path).expect("connect");
        client
            .set_timeout(Some(Duration::from_millis(50)))
            .expect("timeout");
        assert!(matches!(
            client.request(json!({"op": "stats"})),
            Err(ClientError::Io(_))
        ));
        client
            .set_timeout(Some(Duration::from_secs(5)))
            .expect("timeout");
        let second = client.request(json!({"op": "flush"}));
        assert!(matches!(second, Err(ClientError::Unusable)), "{second:?}");
        drop(client);
        server.join().expect("the server ends");
    }

    #[test]
    fn a_garbled_answer_is_quoted_short() {
        let error = ClientError::Garbled(bounded(&"y".repeat(100_000), GARBLED_QUOTE));
        assert!(error.to_string().len() < GARBLED_QUOTE + 100);
    }
}
