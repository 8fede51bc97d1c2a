//! The Node binding of docsuggest: a harness written in TypeScript `require`s this module and
//! judges its agent's tool calls in its own process, on the same store and with the same
//! learning as `docsuggest serve`.
//!
//! It holds no logic of its own. Every method builds the request object the protocol's op
//! takes, hands it to the library's dispatcher ([`Dispatcher::handle_value`], the path `serve`
//! uses for each line) and converts the answer into JS values, or the protocol's error into a
//! JS `Error` whose `code` is the protocol's code (a `TypeError` when the caller's value has
//! the wrong shape: [`TYPE_ERRORS`]). The engine is opened as `serve` opens it
//! ([`embed::open`]). Opening, flushing and closing the store wait on the disk, so they run on
//! libuv's worker threads and answer promises; `judge`, `turn`, `configure`, `rates` and
//! `stats` answer at once.

use docsuggest_host::protocol::{Dispatcher, RequestError, embed};
use docsuggest_schema::config::kind_of;
use napi::bindgen_prelude::{AsyncTask, JsError, JsTypeError, Unknown};
use napi::{Env, Task, ValueType};
use napi_derive::napi;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A failure as it crosses from a worker thread back to JS: the code and the detail.
type Refusal = (String, String);

/// The codes of a value the caller passed that does not fit — a missing or mistyped field, a
/// config field that is unknown or out of its range: thrown as a `TypeError`, as Node's own
/// APIs throw for a bad argument. Every other failure is an `Error`. Both carry the code.
pub const TYPE_ERRORS: [&str; 3] = ["missing-field", "wrong-type", "invalid-config"];

/// The JS error of a refusal, made on the JS thread so that it keeps its class and `code`
/// whether it is thrown or rejects a promise.
fn thrown(env: &Env, (code, detail): Refusal) -> napi::Error {
    let type_error = TYPE_ERRORS.contains(&code.as_str());
    let error = napi::Error::new(code, detail);
    let value = if type_error {
        JsTypeError::from(error).into_unknown(*env)
    } else {
        JsError::from(error).into_unknown(*env)
    };
    napi::Error::from(value)
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
    /// The tool: `read`, `grep`, `glob`, `write`, `edit` or `raw-write` (a call of a tool
    /// the config's `tools` does not name is not judged).
    #[napi(ts_type = "Tool")]
    pub tool: String,
    /// The path or pattern the call names; a relative one needs `cwd`.
    pub path: String,
    /// The absolute directory a relative `path` is resolved against.
    pub cwd: Option<String>,
}

/// The engine's config fields, camelCase as in a config file: a patch names some of them and
/// the others keep their values (the defaults at `open`). Only declares the types — the
/// dispatcher checks the fields (docsuggest_schema::config), and refuses an unknown one.
#[napi(object)]
pub struct ConfigPatch {
    /// Whether the ledger is appended to `logFile` (default `true`).
    pub log: Option<bool>,
    /// The ledger file; `~` is expanded (default `~/.dsh/playform/hook-dsh-doc-suggester.log`).
    pub log_file: Option<String>,
    /// The master switch (default `true`).
    pub enabled: Option<bool>,
    /// The default confidence gate, in 0..1; a family's pack row may override it (default 0.75).
    pub threshold: Option<f64>,
    /// The judged tools (default all six).
    #[napi(ts_type = "Array<Tool>")]
    pub tools: Option<Vec<String>>,
    /// At most this many companions in one note, 1..64 (default 7).
    pub max_companions: Option<u32>,
    /// Hard cap on the note text in characters, at least 80 (default 1200).
    pub max_note_chars: Option<u32>,
    /// No second note for one family within this many judged calls of an agent (default 6).
    pub cooldown_calls: Option<u32>,
    /// At most this many notes per turn and agent (default 3).
    pub max_notes_per_turn: Option<u32>,
    /// Path components that make a call ignored (default `node_modules`, `Target`, `.git`,
    /// `dist`).
    pub exclude: Option<Vec<String>>,
    /// The learning layer's master switch (default `true`).
    pub learn: Option<bool>,
    /// The follow-through window, in judged in-workspace calls (default 3).
    pub learn_window: Option<u32>,
    /// The enabled heuristics (default all).
    #[napi(ts_type = "Array<Heuristic>")]
    pub heuristics: Option<Vec<String>>,
    /// Heuristic weights, each in 0..1; a heuristic left out keeps its default weight.
    #[napi(ts_type = "Partial<Record<Heuristic, number>>")]
    pub weights: Option<HashMap<String, f64>>,
    /// The bound of the memory fallback: rate rows and decision ring (default 512).
    pub store_limit: Option<u32>,
    /// The most agents whose per-turn state and open windows are kept (default 4096).
    pub max_agents: Option<u32>,
    /// The redb file; `~` is expanded (default `~/.dsh/playform/hook-dsh-doc-suggester.redb`).
    /// A change by `configure` takes effect at the next open.
    pub store_path: Option<String>,
    /// How the durable store commits (default `group`).
    #[napi(ts_type = "Durability")]
    pub durability: Option<String>,
    /// Under `group` durability, the longest time between fsynced commits, 1..60000 ms
    /// (default 1000).
    pub flush_interval_ms: Option<u32>,
    /// The bound of the durable decision history (default 65536).
    pub ring_capacity: Option<i64>,
    /// The rate move of an accept, in 0..1 (default 0.1).
    pub accept_bonus: Option<f64>,
    /// The rate move of a soft reject, in 0..1, subtracted (default 0.2).
    pub reject_penalty: Option<f64>,
    /// How rates are read from rows (default `evidence`).
    #[napi(ts_type = "RateModel")]
    pub rate_model: Option<String>,
    /// Under the evidence model: a companion rated below this is left out, in 0..1/3
    /// (default 0.15).
    pub prune_below: Option<f64>,
    /// Under the evidence model: how strongly a companion's rate scales its score, in 0..4
    /// (default 2).
    pub evidence_exponent: Option<f64>,
    /// Under the evidence model, once a family has evidence: the gate on the probability that
    /// its note is followed, in 0..1 (default 0.55).
    pub follow_threshold: Option<f64>,
    /// The same gate for a note the pack's own gate would not make, in 0..1 (default 0.75).
    pub unprompted_threshold: Option<f64>,
    /// The evidence a change boundary's claims must clear jointly for a Stop reminder to hold
    /// the agent up, in 0..1 (default 0.7; 0 blocks on every claim).
    pub block_bar: Option<f64>,
    /// A call in a git work tree without a pack uses a pack mined from its history
    /// (default `true`).
    pub zero_config: Option<bool>,
    /// How a note's text is written: `plain` (what to do with each companion and why) or
    /// `poc` (the PoC's note); default `auto`, the PoC's for the built-in pack or with
    /// `learn: false`, else plain.
    #[napi(ts_type = "NoteStyle")]
    pub note_style: Option<String>,
}

docsuggest_host::note_struct! {
    // A doc attribute, not a `///` comment: napi writes a raw string from a macro's input as
    // it is (`r"…"`) into index.d.ts.
    #[doc = "The note of a call that touched a documentation family."]
    #[napi(object)]
    #[derive(Deserialize)]
    pub struct Note;
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
    #[napi(ts_type = "RateModel")]
    pub rate_model: String,
    /// The workspace's rows: the family rows, then the companions.
    pub rows: Vec<RateRow>,
}

docsuggest_host::stats_struct! {
    #[doc = "The engine's counts since it opened."]
    #[napi(object)]
    #[derive(Deserialize)]
    pub struct Counts(i64);
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
    /// Git work trees the engine could get no pack for, by root, and why (a mining job that
    /// failed: the `docsuggest` binary missing, a refused repository); absent when none.
    #[serde(default)]
    pub unmined: Option<std::collections::HashMap<String, String>>,
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
    /// Opens an engine. `options` holds config fields, camelCase as in the JSON config
    /// (`storePath`, `log`, `threshold`, `durability`, …), plus `memory: true` for the memory
    /// store. Rejects with a `TypeError` whose `code` is `invalid-config` and whose message
    /// names every problem, an unknown field among them. A store file that cannot be opened
    /// is no error: the engine runs on memory and its `ledger` says `store unavailable (…),
    /// using memory`.
    #[napi(
        ts_args_type = "options?: EngineOptions",
        ts_return_type = "Promise<Engine>"
    )]
    pub fn open(env: Env, options: Unknown<'_>) -> napi::Result<AsyncTask<Open>> {
        let options = json(options, "options").map_err(|r| thrown(&env, r))?;
        Ok(AsyncTask::new(Open { options }))
    }

    /// The startup ledger: `activated (…)` or `disabled (…)`, then any store degradation.
    #[napi(getter)]
    pub fn ledger(&self) -> Vec<String> {
        self.startup.clone()
    }

    /// Judges one tool call, as the protocol's `judge` op does.
    #[napi(ts_args_type = "call: JudgeCall")]
    pub fn judge(&self, env: Env, call: Unknown<'_>) -> napi::Result<Verdict> {
        let call = json(call, "the call").map_err(|r| thrown(&env, r))?;
        let Value::Object(mut request) = call else {
            return Err(thrown(
                &env,
                wrong_type(
                    "the call",
                    "an object {agent, tool, path, cwd?}",
                    kind_of(&call),
                ),
            ));
        };
        // The op is this method's; an `id` has no meaning without lines to match.
        request.remove("id");
        request.insert("op".into(), "judge".into());
        self.answer(&env, &Value::Object(request))
    }

    /// The per-turn reset of one agent: its open window closes as abandoned.
    #[napi(ts_args_type = "agent: string")]
    pub fn turn(&self, env: Env, agent: Unknown<'_>) -> napi::Result<Ledger> {
        let agent = json(agent, "agent").map_err(|r| thrown(&env, r))?;
        self.answer(&env, &json!({"op": "turn", "agent": agent}))
    }

    /// Applies a config patch (camelCase config fields) as a whole, or changes nothing and
    /// throws a `TypeError` with the code `invalid-config` naming every problem.
    #[napi(ts_args_type = "patch: ConfigPatch")]
    pub fn configure(&self, env: Env, patch: Unknown<'_>) -> napi::Result<Ledger> {
        let patch = json(patch, "the patch").map_err(|r| thrown(&env, r))?;
        self.answer(&env, &json!({"op": "configure", "config": patch}))
    }

    /// The learned rates of the workspace a directory lies in (by default the process's
    /// working directory; a relative one is resolved against it).
    #[napi(ts_args_type = "workspace?: string")]
    pub fn rates(&self, env: Env, workspace: Unknown<'_>) -> napi::Result<Rates> {
        let workspace = match json(workspace, "workspace").map_err(|r| thrown(&env, r))? {
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
        self.answer(&env, &Value::Object(request))
    }

    /// The engine's counts, the store in use and the startup ledger.
    #[napi]
    pub fn stats(&self, env: Env) -> napi::Result<Stats> {
        self.answer(&env, &json!({"op": "stats"}))
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

    fn answer<T: serde::de::DeserializeOwned>(
        &self,
        env: &Env,
        request: &Value,
    ) -> napi::Result<T> {
        dispatch(&self.server, request)
            .and_then(typed)
            .map_err(|r| thrown(env, r))
    }
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
        let server = output.map_err(|r| thrown(&env, r))?;
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
        output.and_then(typed).map_err(|r| thrown(&env, r))
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
        output.map(drop).map_err(|r| thrown(&env, r))
    }
}
