//! The Node binding of docsuggest: a harness written in TypeScript `require`s this module and
//! judges its agent's tool calls in its own process, on the same store and with the same
//! learning as `docsuggest serve`.
//!
//! It holds no logic of its own. Every method builds the request object the protocol's op
//! takes, hands it to the library's dispatcher ([`Dispatcher::handle_value`], the path `serve`
//! uses for each line) and converts the answer into JS values, or the protocol's error into a
//! JS `Error` whose `code` is the protocol's code. The engine is opened as `serve` opens it
//! ([`embed::open`]). Opening, flushing and closing the store wait on the disk, so they run on
//! libuv's worker threads and answer promises; `judge`, `turn`, `configure`, `rates` and
//! `stats` answer at once.

use docsuggest_schema::config::kind_of;
use docsuggest_tools::protocol::{Dispatcher, RequestError, embed};
use napi::bindgen_prelude::{AsyncTask, JsError, Unknown};
use napi::{Env, Task, ValueType};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A failure as JS sees it: `code` is the protocol's error code.
type Failure = napi::Error<String>;

/// A failure as it crosses from a worker thread back to JS: the code and the detail.
type Refusal = (String, String);

fn failure((code, detail): Refusal) -> Failure {
    napi::Error::new(code, detail)
}

fn refusal(e: &RequestError) -> Refusal {
    (e.code().to_string(), e.to_string())
}

fn wrong_type(what: &str, expected: &str, found: &str) -> Refusal {
    (
        "wrong-type".to_string(),
        format!("{what} must be {expected}, found {found}"),
    )
}

/// The JSON value of an argument; `undefined` and `null` are both `null`, so a missing field
/// or argument answers the protocol's `missing-field`.
fn json(arg: Unknown<'_>, what: &str) -> Result<Value, Refusal> {
    let found = arg
        .get_type()
        .map_err(|e| wrong_type(what, "a JSON value", &e.reason))?;
    match found {
        ValueType::Undefined | ValueType::Null => Ok(Value::Null),
        ValueType::Boolean | ValueType::Number | ValueType::String | ValueType::Object => {
            <Value as napi::bindgen_prelude::FromNapiValue>::from_unknown(arg).map_err(|e| {
                (
                    "wrong-type".to_string(),
                    format!("{what} must be plain JSON data ({})", e.reason),
                )
            })
        }
        ValueType::BigInt => Err(wrong_type(what, "plain JSON data", "a bigint")),
        ValueType::Symbol => Err(wrong_type(what, "plain JSON data", "a symbol")),
        ValueType::Function => Err(wrong_type(what, "plain JSON data", "a function")),
        _ => Err(wrong_type(what, "plain JSON data", "a native value")),
    }
}

/// The shape of a `judge` argument (the fields are checked by the protocol's parser, so a
/// wrong one gets the protocol's error code).
#[napi(object)]
pub struct JudgeCall {
    /// The agent that made the call.
    pub agent: String,
    /// The tool: `read`, `grep`, `glob`, `write`, `edit`, `raw-write`, …
    pub tool: String,
    /// The path or pattern the call names; a relative one needs `cwd`.
    pub path: String,
    /// The absolute directory a relative `path` is resolved against.
    pub cwd: Option<String>,
}

/// The note of a call that touched a documentation family.
#[napi(object)]
#[derive(Deserialize)]
pub struct Note {
    /// The family (`Plan`, `Scheme`, …).
    pub family: String,
    /// The labeled text: a header line, then one `- <companion>` line each.
    pub text: String,
    /// A one-line summary.
    pub summary: String,
    /// The companions the text names, in rank order.
    pub companions: Vec<String>,
    /// The confidence the header shows, as a number in 0..1.
    pub confidence: f64,
}

/// The answer to `judge`, as the protocol's `judge` op answers it.
#[napi(object, use_nullable = true)]
#[derive(Deserialize)]
pub struct Verdict {
    /// At most one note; `null` when the engine stays silent.
    pub note: Option<Note>,
    /// The ledger lines of this call.
    pub ledger: Vec<String>,
    /// Problems a person should fix that did not stop the call (a malformed repo pack).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// The answer to `turn` and `configure`.
#[napi(object)]
#[derive(Deserialize)]
pub struct Ledger {
    /// The ledger lines of this request.
    pub ledger: Vec<String>,
    /// What a person should know (a `storePath` change waits for the next open).
    #[serde(default)]
    pub warnings: Vec<String>,
}

/// The answer to `flush`.
#[napi(object)]
#[derive(Deserialize)]
pub struct Durable {
    /// The last decision sequence number known to be on disk (0 on memory).
    pub durable: i64,
}

/// One learned rate row.
#[napi(object, use_nullable = true)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RateRow {
    /// The family.
    pub family: String,
    /// The companion, or `null` on the family's own row.
    pub companion: Option<String>,
    /// The rate under the configured `rateModel`.
    pub rate: f64,
    /// The step-rule value.
    pub step: f64,
    /// Accepts seen.
    pub accepts: i64,
    /// Rejects seen.
    pub rejects: i64,
    /// Shadow hits seen (watched while unnamed, then touched).
    pub shadow_hits: i64,
    /// Shadow misses seen (watched while unnamed, not touched).
    pub shadow_misses: i64,
    /// Hits weighed by age: each newer observation of the row halves an older one's weight
    /// every 20 (what the evidence model's rate reads).
    pub recent_hits: f64,
    /// Misses weighed by age, the same way.
    pub recent_misses: f64,
    /// Whether the evidence model leaves this companion out of notes now.
    pub left_out: bool,
}

/// The answer to `rates`, as the protocol's `rates` op answers it.
#[napi(object)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rates {
    /// The workspace key the rows are stored under.
    pub key: String,
    /// `evidence` (the default), `step` or `beta`.
    pub rate_model: String,
    /// The workspace's rows: the family rows, then the companions.
    pub rows: Vec<RateRow>,
}

/// The engine's counts since it opened.
#[napi(object)]
#[derive(Deserialize)]
pub struct Counts {
    /// Judged calls.
    pub judged: i64,
    /// Notes emitted.
    pub notes: i64,
    /// Windows closed by an accept.
    pub accepted: i64,
    /// Windows closed as soft rejects.
    pub rejected: i64,
    /// Windows closed without a verdict.
    pub abandoned: i64,
    /// Abstentions by reason.
    pub abstained: HashMap<String, i64>,
    /// Suppressions by kind.
    pub suppressed: HashMap<String, i64>,
}

/// The answer to `stats`.
#[napi(object)]
#[derive(Deserialize)]
pub struct Stats {
    /// The counts.
    pub stats: Counts,
    /// The store in use: `redb`, or `memory` (asked for, or a fallback).
    #[napi(ts_type = "'redb' | 'memory'")]
    pub store: String,
    /// The startup ledger, where a store that could not open shows.
    pub startup: Vec<String>,
    /// Where the store is, and what became of writes answered on memory.
    #[serde(rename = "storeHealth")]
    pub store_health: StoreHealth,
}

/// Where the store is, and what became of writes answered on memory while its file could not
/// be used.
#[napi(object, use_nullable = true)]
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreHealth {
    /// The store answering now.
    #[napi(ts_type = "'redb' | 'memory'")]
    pub kind: String,
    /// Why the store runs on memory while a file should be used; `null` while it does not.
    pub degraded: Option<String>,
    /// Attempts to open the file again.
    pub retries: i64,
    /// Times the file came back.
    pub recoveries: i64,
    /// Decisions and resolutions answered on memory, then written to the file.
    pub written_back: i64,
    /// Those that never reached the file.
    pub lost: i64,
}

/// Converts a dispatcher answer into the binding's type for it.
fn typed<T: serde::de::DeserializeOwned>(answer: Value) -> Result<T, Refusal> {
    serde_json::from_value(answer).map_err(|e| {
        (
            "internal".to_string(),
            format!("the answer does not have the documented shape: {e}"),
        )
    })
}

/// The dispatcher behind one JS engine. A mutex, because flush and close run on a worker
/// thread; calls from JS in the meantime wait for them.
type Shared = Arc<Mutex<Dispatcher>>;

fn dispatch(server: &Shared, request: &Value) -> Result<Value, Refusal> {
    // A poisoned lock means a panic inside the engine; its state is unknown, so refuse.
    let mut server = server.lock().map_err(|_| {
        (
            "internal".to_string(),
            "an earlier call failed inside the engine; open a new one".to_string(),
        )
    })?;
    server.handle_value(request).map_err(|e| refusal(&e))
}

/// A docsuggest engine in this process: the protocol's ops as methods.
#[napi]
pub struct Engine {
    server: Shared,
    startup: Vec<String>,
}

#[napi]
impl Engine {
    /// Opens an engine. `options` holds any config field, camelCase as in the JSON config
    /// (`storePath`, `log`, `threshold`, `durability`, …), plus `memory: true` for the memory
    /// store. Rejects with an `Error` whose `code` is `invalid-config` and whose message names
    /// every problem. A store file that cannot be opened is no error: the engine runs on
    /// memory and its `ledger` says `store unavailable (…), using memory`.
    #[napi(
        ts_args_type = "options?: Record<string, unknown>",
        ts_return_type = "Promise<Engine>"
    )]
    pub fn open(options: Unknown<'_>) -> Result<AsyncTask<Open>, Failure> {
        let options = json(options, "options").map_err(failure)?;
        Ok(AsyncTask::new(Open { options }))
    }

    /// The startup ledger: `activated (…)` or `disabled (…)`, then any store degradation.
    #[napi(getter)]
    pub fn ledger(&self) -> Vec<String> {
        self.startup.clone()
    }

    /// Judges one tool call, as the protocol's `judge` op does.
    #[napi(ts_args_type = "call: JudgeCall")]
    pub fn judge(&self, call: Unknown<'_>) -> Result<Verdict, Failure> {
        let call = json(call, "the call").map_err(failure)?;
        let Value::Object(mut request) = call else {
            return Err(failure(wrong_type(
                "the call",
                "an object {agent, tool, path, cwd?}",
                kind_of(&call),
            )));
        };
        // The op is this method's; an `id` has no meaning without lines to match.
        request.remove("id");
        request.insert("op".into(), "judge".into());
        self.answer(&Value::Object(request))
    }

    /// The per-turn reset of one agent: its open window closes as abandoned.
    #[napi(ts_args_type = "agent: string")]
    pub fn turn(&self, agent: Unknown<'_>) -> Result<Ledger, Failure> {
        let agent = json(agent, "agent").map_err(failure)?;
        self.answer(&json!({"op": "turn", "agent": agent}))
    }

    /// Applies a config patch (camelCase config fields) as a whole, or changes nothing and
    /// throws `invalid-config` naming every problem.
    #[napi(ts_args_type = "patch: Record<string, unknown>")]
    pub fn configure(&self, patch: Unknown<'_>) -> Result<Ledger, Failure> {
        let patch = json(patch, "the patch").map_err(failure)?;
        self.answer(&json!({"op": "configure", "config": patch}))
    }

    /// The learned rates of the workspace a directory lies in (by default the process's
    /// working directory; a relative one is resolved against it).
    #[napi(ts_args_type = "workspace?: string")]
    pub fn rates(&self, workspace: Unknown<'_>) -> Result<Rates, Failure> {
        let workspace = match json(workspace, "workspace").map_err(failure)? {
            Value::Null => Value::String(".".into()),
            other => other,
        };
        let mut request = Map::new();
        request.insert("op".into(), "rates".into());
        request.insert("workspace".into(), workspace);
        // Without a readable working directory only absolute paths resolve.
        if let Ok(cwd) = std::env::current_dir() {
            request.insert("cwd".into(), cwd.display().to_string().into());
        }
        self.answer(&Value::Object(request))
    }

    /// The engine's counts, the store in use and the startup ledger.
    #[napi]
    pub fn stats(&self) -> Result<Stats, Failure> {
        self.answer(&json!({"op": "stats"}))
    }

    /// Makes every commit so far durable, off the event loop.
    #[napi(ts_return_type = "Promise<Durable>")]
    pub fn flush(&self) -> AsyncTask<Flush> {
        AsyncTask::new(Flush(Arc::clone(&self.server)))
    }

    /// Closes open windows as abandoned, flushes and closes the store, off the event loop.
    /// Every later call throws `closed`.
    #[napi(ts_return_type = "Promise<void>")]
    pub fn close(&self) -> AsyncTask<Close> {
        AsyncTask::new(Close(Arc::clone(&self.server)))
    }

    fn answer<T: serde::de::DeserializeOwned>(&self, request: &Value) -> Result<T, Failure> {
        dispatch(&self.server, request)
            .and_then(typed)
            .map_err(failure)
    }
}

/// A rejection that keeps the protocol's code: the error object is made here, on the JS
/// thread, and handed back as it is.
fn rejection(env: Env, refusal: Refusal) -> napi::Error {
    napi::Error::from(JsError::from(failure(refusal)).into_unknown(env))
}

/// Opening an engine on a worker thread.
pub struct Open {
    options: Value,
}

impl Task for Open {
    type Output = Result<Dispatcher, Refusal>;
    type JsValue = Engine;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(embed::open(&self.options).map_err(|e| refusal(&e)))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Engine> {
        let server = output.map_err(|r| rejection(env, r))?;
        let startup = server.startup().to_vec();
        Ok(Engine {
            server: Arc::new(Mutex::new(server)),
            startup,
        })
    }
}

/// `flush` on a worker thread.
pub struct Flush(Shared);

impl Task for Flush {
    type Output = Result<Value, Refusal>;
    type JsValue = Durable;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(dispatch(&self.0, &json!({"op": "flush"})))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Durable> {
        output.and_then(typed).map_err(|r| rejection(env, r))
    }
}

/// `close` on a worker thread.
pub struct Close(Shared);

impl Task for Close {
    type Output = Result<Value, Refusal>;
    type JsValue = ();

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(dispatch(&self.0, &json!({"op": "close"})))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<()> {
        output.map(drop).map_err(|r| rejection(env, r))
    }
}
