//! Parsing one request line into a [`Request`], or an error that still carries the `id`
//! whenever it could be read.

use super::answer::Id;
use super::error::RequestError;
use docsuggest_engine::Call;
use docsuggest_schema::config::kind_of;
use serde_json::{Map, Value};

/// A parsed request.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The id to echo.
    pub id: Id,
    /// What to do.
    pub op: Op,
}

/// The protocol's operations.
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    /// The protocol version, the engine version, the store and its durability.
    Hello,
    /// Judge one tool call.
    Judge(Call),
    /// Judge one tool call without making it: the answer the call would get now, with
    /// nothing recorded or remembered (`Engine::peek`).
    Peek(Call),
    /// A peek with `"boundary": true`: decided as a change boundary decides, each companion
    /// followed at least `followThreshold` of the time where seen (`Engine::peek_boundary`).
    BoundaryPeek(Call),
    /// A change-boundary check (`Engine::boundary`): settle the agent's previous boundary
    /// against the change, then (with `name`) name what the change lacks.
    Boundary {
        /// The boundary's agent.
        agent: String,
        /// The change's files.
        paths: Vec<String>,
        /// What relative paths are resolved against.
        cwd: Option<String>,
        /// Name what the change lacks (else only settle).
        name: bool,
    },
    /// The per-turn reset of one agent.
    Turn {
        /// The agent.
        agent: String,
    },
    /// Apply a config patch.
    Configure(Value),
    /// Make every commit durable.
    Flush,
    /// Read a workspace's rate rows.
    Rates(RatesTarget),
    /// The engine's counts.
    Stats,
    /// Flush, close, and stop serving.
    Close,
}

impl Op {
    /// The op's name, as a request line spells it.
    pub fn name(&self) -> &'static str {
        match self {
            Op::Hello => "hello",
            Op::Judge(_) => "judge",
            Op::Peek(_) | Op::BoundaryPeek(_) => "peek",
            Op::Boundary { .. } => "boundary",
            Op::Turn { .. } => "turn",
            Op::Configure(_) => "configure",
            Op::Flush => "flush",
            Op::Rates(_) => "rates",
            Op::Stats => "stats",
            Op::Close => "close",
        }
    }
}

/// Whose rates a `rates` request reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RatesTarget {
    /// The workspace a directory lies in.
    Workspace {
        /// The directory (absolute, or relative to `cwd`).
        path: String,
        /// What a relative `path` is resolved against.
        cwd: Option<String>,
    },
    /// A workspace key as stored.
    Key(String),
}

/// Parses one line. The error carries the id when the line was an object with a readable
/// `id`, else [`Id::Null`].
pub fn parse_line(bytes: &[u8]) -> Result<Request, (Id, RequestError)> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            // The id may still be readable around the bad bytes.
            let lossy = String::from_utf8_lossy(bytes);
            let id = serde_json::from_str::<Value>(&lossy)
                .ok()
                .and_then(|v| v.as_object().map(read_id))
                .and_then(Result::ok)
                .unwrap_or(Id::Null);
            let offset = e.valid_up_to();
            return Err((id, RequestError::InvalidUtf8 { offset }));
        }
    };
    let value: Value = serde_json::from_str(text)
        .map_err(|e| (Id::Null, RequestError::InvalidJson(e.to_string())))?;
    parse_value(&value)
}

/// Parses a request already read as JSON (an embedding host's object), with the same rules
/// and errors as a line: only the steps after JSON parsing differ.
pub fn parse_value(value: &Value) -> Result<Request, (Id, RequestError)> {
    let Value::Object(map) = value else {
        return Err((Id::Null, RequestError::NotAnObject(kind_of(value))));
    };
    let id = read_id(map).map_err(|e| (Id::Null, e))?;
    match parse_op(map) {
        Ok(op) => Ok(Request { id, op }),
        Err(e) => Err((id, e)),
    }
}

fn read_id(map: &Map<String, Value>) -> Result<Id, RequestError> {
    match map.get("id") {
        None | Some(Value::Null) => Ok(Id::Null),
        Some(Value::Number(n)) => Ok(Id::Number(n.clone())),
        Some(Value::String(s)) => Ok(Id::Text(s.clone())),
        Some(other) => Err(RequestError::WrongType {
            field: "id",
            expected: "a number or a string",
            found: kind_of(other),
        }),
    }
}

/// Reads the fields of one op.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    op: &'static str,
}

impl Fields<'_> {
    fn text(&self, field: &'static str) -> Result<String, RequestError> {
        self.optional_text(field)?
            .ok_or(RequestError::MissingField {
                field,
                op: Some(self.op),
            })
    }

    fn texts(&self, field: &'static str) -> Result<Vec<String>, RequestError> {
        let wrong = |found| RequestError::WrongType {
            field,
            expected: "an array of strings",
            found,
        };
        match self.map.get(field) {
            None | Some(Value::Null) => Err(RequestError::MissingField {
                field,
                op: Some(self.op),
            }),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| wrong(kind_of(v)))
                })
                .collect(),
            Some(other) => Err(wrong(kind_of(other))),
        }
    }

    fn optional_bool(&self, field: &'static str) -> Result<Option<bool>, RequestError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(RequestError::WrongType {
                field,
                expected: "a boolean",
                found: kind_of(other),
            }),
        }
    }

    fn optional_text(&self, field: &'static str) -> Result<Option<String>, RequestError> {
        match self.map.get(field) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(RequestError::WrongType {
                field,
                expected: "a string",
                found: kind_of(other),
            }),
        }
    }
}

fn parse_op(map: &Map<String, Value>) -> Result<Op, RequestError> {
    let op = match map.get("op") {
        None | Some(Value::Null) => {
            return Err(RequestError::MissingField {
                field: "op",
                op: None,
            });
        }
        Some(Value::String(op)) => op.as_str(),
        Some(other) => {
            return Err(RequestError::WrongType {
                field: "op",
                expected: "a string",
                found: kind_of(other),
            });
        }
    };
    let name = match op {
        "judge" => "judge",
        "peek" => "peek",
        "boundary" => "boundary",
        "turn" => "turn",
        "configure" => "configure",
        "hello" => return Ok(Op::Hello),
        "flush" => return Ok(Op::Flush),
        "rates" => "rates",
        "stats" => return Ok(Op::Stats),
        "close" => return Ok(Op::Close),
        other => return Err(RequestError::UnknownOp(other.to_string())),
    };
    let f = Fields { map, op: name };
    match name {
        "judge" | "peek" => {
            let call = Call {
                agent: f.text("agent")?,
                tool: f.text("tool")?,
                path: f.text("path")?,
                cwd: f.optional_text("cwd")?,
            };
            Ok(match name {
                "peek" if f.optional_bool("boundary")?.unwrap_or(false) => Op::BoundaryPeek(call),
                "peek" => Op::Peek(call),
                _ => Op::Judge(call),
            })
        }
        "turn" => Ok(Op::Turn {
            agent: f.text("agent")?,
        }),
        "boundary" => Ok(Op::Boundary {
            agent: f.text("agent")?,
            paths: f.texts("paths")?,
            cwd: f.optional_text("cwd")?,
            name: f.optional_bool("name")?.unwrap_or(true),
        }),
        "configure" => match map.get("config") {
            None | Some(Value::Null) => Err(RequestError::MissingField {
                field: "config",
                op: Some(name),
            }),
            Some(v @ Value::Object(_)) => Ok(Op::Configure(v.clone())),
            Some(other) => Err(RequestError::WrongType {
                field: "config",
                expected: "an object (a config patch)",
                found: kind_of(other),
            }),
        },
        _ => {
            let workspace = f.optional_text("workspace")?;
            let key = f.optional_text("key")?;
            match (workspace, key) {
                (Some(_), Some(_)) => Err(RequestError::ConflictingFields("workspace", "key")),
                (Some(path), None) => Ok(Op::Rates(RatesTarget::Workspace {
                    path,
                    cwd: f.optional_text("cwd")?,
                })),
                (None, Some(key)) => Ok(Op::Rates(RatesTarget::Key(key))),
                (None, None) => Err(RequestError::MissingField {
                    field: "workspace",
                    op: Some(name),
                }),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(id: &Id) -> String {
        serde_json::to_string(id).expect("ids encode")
    }

    /// `Ok` renders `id op`; `Err` renders `id code: detail` (the id as it is echoed).
    fn check(line: &[u8], expect: &str) {
        let got = match parse_line(line) {
            Ok(r) => format!("{} {:?}", json(&r.id), r.op),
            Err((id, e)) => format!("{} {}: {e}", json(&id), e.code()),
        };
        assert_eq!(got, expect, "{}", String::from_utf8_lossy(line));
    }

    #[test]
    fn parses_every_op() {
        check(
            br#"{"id":1,"op":"judge","agent":"a","tool":"read","path":"X.md","cwd":"/w"}"#,
            r#"1 Judge(Call { agent: "a", tool: "read", path: "X.md", cwd: Some("/w") })"#,
        );
        check(
            br#"{"id":"x","op":"judge","agent":"a","tool":"read","path":"/w/X.md","cwd":null}"#,
            r#""x" Judge(Call { agent: "a", tool: "read", path: "/w/X.md", cwd: None })"#,
        );
        check(
            br#"{"id":8,"op":"peek","agent":"a","tool":"read","path":"X.md","cwd":"/w"}"#,
            r#"8 Peek(Call { agent: "a", tool: "read", path: "X.md", cwd: Some("/w") })"#,
        );
        check(
            br#"{"op":"turn","agent":"a"}"#,
            r#"null Turn { agent: "a" }"#,
        );
        check(
            br#"{"id":2,"op":"configure","config":{"threshold":0.5}}"#,
            r#"2 Configure(Object {"threshold": Number(0.5)})"#,
        );
        check(br#"{"id":0,"op":"hello"}"#, "0 Hello");
        check(br#"{"id":3,"op":"flush"}"#, "3 Flush");
        check(br#"{"id":4,"op":"stats"}"#, "4 Stats");
        check(br#"{"id":5,"op":"close"}"#, "5 Close");
        check(
            br#"{"id":6,"op":"rates","workspace":"ws","cwd":"/w"}"#,
            r#"6 Rates(Workspace { path: "ws", cwd: Some("/w") })"#,
        );
        check(
            br#"{"id":7,"op":"rates","key":"ws-1"}"#,
            r#"7 Rates(Key("ws-1"))"#,
        );
    }

    #[test]
    fn names_what_is_wrong() {
        check(
            b"{\"id\":9,\"op\":\"\xff\"}",
            r#"9 invalid-utf8: the request line is not valid UTF-8 (invalid byte at offset 14)"#,
        );
        check(
            b"\xfe",
            "null invalid-utf8: the request line is not valid UTF-8 (invalid byte at offset 0)",
        );
        check(
            b"{\"id\":1,",
            "null invalid-json: the request line is not valid JSON: EOF while parsing a value at line 1 column 8",
        );
        check(
            b"[1]",
            "null not-an-object: a request must be a JSON object, found an array",
        );
        check(
            br#"{"id":[1],"op":"stats"}"#,
            r#"null wrong-type: field "id" must be a number or a string, found an array"#,
        );
        check(br#"{"id":1}"#, r#"1 missing-field: field "op" is missing"#);
        check(
            br#"{"id":1,"op":7}"#,
            r#"1 wrong-type: field "op" must be a string, found a number"#,
        );
        check(
            br#"{"id":1,"op":"jduge"}"#,
            r#"1 unknown-op: unknown op "jduge" (known: hello, judge, peek, boundary, turn, configure, flush, rates, stats, close)"#,
        );
        check(
            br#"{"id":1,"op":"judge","agent":"a","path":"x"}"#,
            r#"1 missing-field: field "tool" is missing (op judge needs it)"#,
        );
        check(
            br#"{"id":1,"op":"judge","agent":"a","tool":"read","path":3}"#,
            r#"1 wrong-type: field "path" must be a string, found a number"#,
        );
        check(
            br#"{"id":1,"op":"peek","agent":"a","path":"x"}"#,
            r#"1 missing-field: field "tool" is missing (op peek needs it)"#,
        );
        check(
            br#"{"id":1,"op":"configure","config":[]}"#,
            r#"1 wrong-type: field "config" must be an object (a config patch), found an array"#,
        );
        check(
            br#"{"id":1,"op":"configure"}"#,
            r#"1 missing-field: field "config" is missing (op configure needs it)"#,
        );
        check(
            br#"{"id":1,"op":"rates"}"#,
            r#"1 missing-field: field "workspace" is missing (op rates needs it)"#,
        );
        check(
            br#"{"id":1,"op":"rates","key":"k","workspace":"/w"}"#,
            r#"1 conflicting-fields: fields "workspace" and "key" exclude each other; give one"#,
        );
    }
}
