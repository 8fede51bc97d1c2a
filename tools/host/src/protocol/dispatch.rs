//! The dispatcher: one request in, one answer line out, against one engine.
//!
//! It is the only place that turns requests into engine calls, so `serve`, `replay` and the
//! demo behave the same. A request that fails changes nothing: parsing and validation happen
//! before the engine is touched, and the engine itself refuses bad calls before any state
//! moves.

use super::answer::{self, Body, BoundaryNote, Id, RateView, Reading};
use super::error::RequestError;
use super::lines::Line;
use super::request::{Op, RatesTarget, Request, parse_line, parse_value};
use crate::host::{Host, HostEngine};
use crate::ledger_log::LedgerLog;
use docsuggest_engine::Call;
use docsuggest_engine::paths;
use docsuggest_schema::{Durability, StoreError, StoreKind};
use serde_json::Value;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The protocol version `hello` answers. It changes only when an existing op's request or
/// answer changes incompatibly; new ops and new answer fields keep it (docs/PROTOCOL.md).
pub const PROTOCOL_VERSION: u32 = 1;

/// What handling one line produced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Handled {
    /// The answer line (without its newline).
    pub answer: String,
    /// The ledger lines of this request (also in the answer).
    pub ledger: Vec<String>,
    /// For a `judge` the engine accepted: how long the engine took.
    pub judge_time: Option<Duration>,
    /// The error code, when the answer is an error.
    pub error: Option<&'static str>,
    /// The request was `close`: stop serving (on a shared engine: end this connection).
    pub stop: bool,
    /// The request panicked where the engine's state may be half-changed: the engine was
    /// flushed and closed, and the server must stop (every connection), so that the next
    /// start begins clean.
    pub fatal: bool,
}

/// Serves requests against one engine.
pub struct Dispatcher {
    engine: HostEngine,
    log: LedgerLog,
    default_cwd: Option<String>,
    startup: Vec<String>,
    store_path: Option<PathBuf>,
    shared: bool,
    /// Something may have been committed without an fsync since the last flush.
    unflushed: bool,
    closed: bool,
    /// A request panicked while it could change the engine: nothing more is served.
    poisoned: bool,
}

impl Dispatcher {
    /// A dispatcher over `engine`, appending ledger lines through `log`.
    pub fn new(engine: HostEngine, log: LedgerLog) -> Dispatcher {
        Dispatcher {
            engine,
            log,
            default_cwd: None,
            startup: Vec::new(),
            store_path: None,
            shared: false,
            unflushed: false,
            closed: false,
            poisoned: false,
        }
    }

    /// A dispatcher over a host's engine, as every skin runs one: the ledger appended to the
    /// configured log, `hello` naming the host's store file, the startup ledger kept for
    /// `stats`.
    pub fn for_host(host: Host) -> Dispatcher {
        Dispatcher::new(host.engine, LedgerLog::new())
            .with_store_path(host.store_path)
            .with_startup(host.startup)
    }

    /// The redb file the engine was started on (or attempted), which `hello` answers.
    pub fn with_store_path(mut self, path: Option<PathBuf>) -> Dispatcher {
        self.store_path = path;
        self
    }

    /// Marks the engine as shared by many connections (the socket server): `close` then
    /// flushes and ends its connection instead of closing the engine for everyone.
    pub fn shared(mut self) -> Dispatcher {
        self.shared = true;
        self
    }

    /// Resolves relative `judge` paths (and `rates` workspaces) without a `cwd` against `cwd`
    /// (replay's `--workspace`).
    pub fn with_default_cwd(mut self, cwd: Option<String>) -> Dispatcher {
        self.default_cwd = cwd;
        self
    }

    /// The engine.
    pub fn engine(&self) -> &HostEngine {
        &self.engine
    }

    /// The engine, mutably (for hosts that read keys or rates around a session).
    pub fn engine_mut(&mut self) -> &mut HostEngine {
        &mut self.engine
    }

    /// Whether `close` was served (or [`Dispatcher::finish`] ran).
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    /// Whether a request panicked while it could change the engine's state: the engine was
    /// flushed and closed, every later request answers `closed`, and a server stops.
    pub fn is_poisoned(&self) -> bool {
        self.poisoned
    }

    /// Takes the engine's startup ledger: it is appended to the log now and answered by
    /// every `stats` request, so a host can see a store degradation it had no request for.
    pub fn with_startup(mut self, lines: Vec<String>) -> Dispatcher {
        self.log.append(self.engine.config(), &lines);
        self.startup = lines;
        self
    }

    /// Handles one line of input.
    pub fn handle_line(&mut self, line: &Line) -> Handled {
        match line {
            Line::TooLong { len } => fail(&Id::Null, &RequestError::LineTooLong { len: *len }),
            Line::Bytes(bytes) => match parse_line(bytes) {
                Ok(request) => self.handle(request),
                Err((id, e)) => fail(&id, &e),
            },
        }
    }

    /// The startup ledger taken by [`Dispatcher::with_startup`] (`stats` answers it too).
    pub fn startup(&self) -> &[String] {
        &self.startup
    }

    /// Handles one parsed request.
    pub fn handle(&mut self, request: Request) -> Handled {
        let id = request.id;
        // `close` stops serving even when closing the store fails; a repeated one does not.
        let stop = matches!(request.op, Op::Close) && !self.closed;
        let mut handled = match self.run(request.op) {
            Ok(reply) => Handled {
                answer: answer::success(&id, &reply.body),
                ledger: reply.ledger,
                judge_time: reply.judge_time,
                ..Handled::default()
            },
            Err(e) => fail(&id, &e),
        };
        handled.stop = stop || self.poisoned;
        handled.fatal = self.poisoned;
        handled
    }

    /// Handles one request given as a JSON object (the fields a request line carries), for
    /// hosts that embed the dispatcher instead of framing lines: the same parsing, checks and
    /// engine calls as [`Dispatcher::handle_line`]. Answers the fields of the success answer
    /// after `id` and `ok` (`{"note":..,"ledger":[..]}` for `judge`), or the error whose
    /// [`RequestError::code`] the line would have answered. After `close` every request
    /// answers [`RequestError::Closed`].
    pub fn handle_value(&mut self, request: &Value) -> Result<Value, RequestError> {
        let request = parse_value(request).map_err(|(_, e)| e)?;
        let reply = self.run(request.op)?;
        serde_json::to_value(&reply.body)
            .map_err(|e| RequestError::Internal(format!("the answer could not be encoded: {e}")))
    }

    /// Runs `op`, isolating a panic inside it (a bug here or in a dependency) from the
    /// server every agent shares, as rust-analyzer's dispatcher does: a request that only
    /// reads answers `internal` and serving goes on; one that may have half-changed the
    /// engine answers `internal` too, after what is durable is flushed, and poisons the
    /// dispatcher so the server stops and the next start begins clean (the store abandons
    /// the open windows then, as after any stop).
    fn run(&mut self, op: Op) -> Result<Reply, RequestError> {
        if self.closed {
            return Err(RequestError::Closed);
        }
        let reads_only = matches!(op, Op::Hello | Op::Stats | Op::Rates(_));
        let name = op.name();
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run_op(op))) {
            Ok(reply) => reply,
            Err(panic) => {
                let what = crate::panic_text::message(panic.as_ref());
                tracing::error!(op = name, panic = %what, reads_only, "a request panicked");
                if reads_only {
                    return Err(RequestError::Internal(format!(
                        "the {name} request failed inside the engine ({what}); nothing changed \
                         and the server goes on"
                    )));
                }
                self.poison();
                Err(RequestError::Internal(format!(
                    "the {name} request failed inside the engine ({what}); what was durable is \
                     flushed and the engine stops, so the next start begins clean"
                )))
            }
        }
    }

    /// After a panic that may have half-changed the engine: flush what the store committed
    /// (itself isolated), and serve nothing more. The engine is not closed: closing would
    /// resolve its open windows from state that may be half-changed.
    fn poison(&mut self) {
        self.poisoned = true;
        self.closed = true;
        let flushed =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.engine.flush()));
        match flushed {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => tracing::error!(error = %e, "flushing after a panic failed"),
            Err(_) => tracing::error!("flushing after a panic panicked too"),
        }
    }

    fn run_op(&mut self, op: Op) -> Result<Reply, RequestError> {
        // A peek records nothing, but the pack it may have mined is stored (zero-config).
        self.unflushed |= matches!(
            op,
            Op::Judge(_)
                | Op::Peek(_)
                | Op::BoundaryPeek(_)
                | Op::Boundary { .. }
                | Op::Turn { .. }
                | Op::Configure(_)
        );
        match op {
            Op::Hello => Ok(Reply::of(self.hello())),
            Op::Judge(call) => self.judge(call),
            Op::Peek(call) => self.peek(call, false),
            Op::BoundaryPeek(call) => self.peek(call, true),
            Op::Boundary {
                agent,
                paths,
                cwd,
                name,
            } => self.boundary(
                &agent,
                &paths,
                cwd.or_else(|| self.default_cwd.clone()),
                name,
            ),
            Op::Turn { agent } => self.turn(&agent),
            Op::Configure(patch) => self.configure(&patch),
            Op::Flush => self.flush_reply(),
            Op::Rates(target) => self.rates(&target),
            Op::Stats => Ok(Reply::of(Body::Stats {
                stats: self.engine.stats().clone(),
                store: self.engine.store().kind(),
                startup: self.startup.clone(),
                store_health: self.engine.store().health(),
                unmined: self.engine.unmined().clone(),
            })),
            Op::Close if self.shared => self.flush_reply(),
            Op::Close => {
                self.closed = true;
                self.engine
                    .close()
                    .map(|durable| Reply::of(Body::Durable { durable }))
                    .map_err(RequestError::StoreFailed)
            }
        }
    }

    fn flush_reply(&mut self) -> Result<Reply, RequestError> {
        self.unflushed = false;
        self.engine
            .flush()
            .map(|durable| Reply::of(Body::Durable { durable }))
            .map_err(RequestError::StoreFailed)
    }

    fn hello(&self) -> Body {
        let store = self.engine.store().kind();
        Body::Hello {
            protocol: PROTOCOL_VERSION,
            version: env!("CARGO_PKG_VERSION"),
            store,
            store_path: match store {
                docsuggest_schema::StoreKind::Redb => {
                    self.store_path.as_ref().map(|p| p.display().to_string())
                }
                docsuggest_schema::StoreKind::Memory => None,
            },
            durability: self.engine.config().durability,
        }
    }

    /// The flush interval, when the engine runs under `group` durability: a server that
    /// goes idle for this long calls [`Dispatcher::flush_idle`] so that the last commits
    /// reach the disk without waiting for another request.
    pub fn idle_flush_interval(&self) -> Option<Duration> {
        let config = self.engine.config();
        (config.durability == Durability::Group && !self.closed)
            .then(|| Duration::from_millis(config.flush_interval_ms))
    }

    /// Flushes when something may have been committed since the last flush, or while the
    /// store runs on memory (a flush is when the file is retried, so what memory answered
    /// reaches it without waiting for a request); `Ok(None)` when there was nothing to do.
    pub fn flush_idle(&mut self) -> Result<Option<u64>, StoreError> {
        let degraded = self.engine.store().kind() == StoreKind::Memory
            && self.engine.store().health().degraded.is_some();
        if !(self.unflushed || degraded) || self.closed {
            return Ok(None);
        }
        self.unflushed = false;
        self.engine.flush().map(Some)
    }

    /// A tool name neither this config judges nor any default one (`bogus`, `Read`) is a
    /// mistake of the host's, answered as one rather than with a silence that looks like
    /// "nothing to say". A known tool the config leaves out stays a silence, as before.
    fn check_tool(&self, tool: &str) -> Result<(), RequestError> {
        let config = self.engine.config();
        let known = |t: &String| t == tool;
        if config.tools.iter().any(known)
            || docsuggest_schema::Config::default().tools.iter().any(known)
        {
            return Ok(());
        }
        Err(RequestError::UnknownTool {
            tool: docsuggest_schema::text::quoted(tool),
            judged: config.tools.join(", "),
        })
    }

    fn judge(&mut self, mut call: Call) -> Result<Reply, RequestError> {
        self.check_tool(&call.tool)?;
        if call.cwd.is_none() {
            call.cwd.clone_from(&self.default_cwd);
        }
        let start = Instant::now();
        let verdict = self.engine.judge(&call)?;
        let elapsed = start.elapsed();
        self.log.append(self.engine.config(), &verdict.ledger);
        Ok(Reply {
            ledger: verdict.ledger.to_strings(),
            judge_time: Some(elapsed),
            body: Body::Judge {
                note: verdict.note,
                claims: verdict.claims,
                ledger: verdict.ledger.into_strings(),
                warnings: verdict.warnings,
            },
        })
    }

    /// A dry run: its lines are answered, not appended to the log (nothing was decided). With
    /// `boundary`, decided as a change boundary decides.
    fn peek(&mut self, mut call: Call, boundary: bool) -> Result<Reply, RequestError> {
        self.check_tool(&call.tool)?;
        if call.cwd.is_none() {
            call.cwd.clone_from(&self.default_cwd);
        }
        let verdict = if boundary {
            self.engine.peek_boundary(&call)?
        } else {
            self.engine.peek(&call)?
        };
        Ok(Reply {
            ledger: verdict.ledger.to_strings(),
            judge_time: None,
            body: Body::Judge {
                note: verdict.note,
                claims: verdict.claims,
                ledger: verdict.ledger.into_strings(),
                warnings: verdict.warnings,
            },
        })
    }

    fn boundary(
        &mut self,
        agent: &str,
        paths: &[String],
        cwd: Option<String>,
        name: bool,
    ) -> Result<Reply, RequestError> {
        let verdict = self.engine.boundary(agent, cwd.as_deref(), paths, name)?;
        self.log.append(self.engine.config(), &verdict.ledger);
        let notes = verdict
            .notes
            .into_iter()
            .filter_map(|(at, note, claims)| {
                let path = paths.get(at)?.clone();
                Some(BoundaryNote { path, note, claims })
            })
            .collect();
        Ok(Reply {
            ledger: verdict.ledger.to_strings(),
            judge_time: None,
            body: Body::Boundary {
                notes,
                ledger: verdict.ledger.into_strings(),
                warnings: verdict.warnings,
            },
        })
    }

    fn turn(&mut self, agent: &str) -> Result<Reply, RequestError> {
        paths::check_field("agent", agent)?;
        let verdict = self.engine.turn(agent);
        self.log.append(self.engine.config(), &verdict.ledger);
        Ok(Reply::with_ledger(
            verdict.ledger.into_strings(),
            Vec::new(),
        ))
    }

    fn configure(&mut self, patch: &Value) -> Result<Reply, RequestError> {
        let store_path = self.engine.config().store_path.clone();
        let lines = self.engine.configure(patch)?;
        let mut warnings = Vec::new();
        if self.engine.config().store_path != store_path {
            warnings.push(
                "storePath takes effect at the next start; this engine keeps its open store"
                    .to_string(),
            );
        }
        self.log.append(self.engine.config(), &lines);
        Ok(Reply::with_ledger(lines, warnings))
    }

    fn rates(&mut self, target: &RatesTarget) -> Result<Reply, RequestError> {
        let key = match target {
            RatesTarget::Key(key) => key.clone(),
            RatesTarget::Workspace { path, cwd } => {
                let cwd = cwd.as_deref().or(self.default_cwd.as_deref());
                let dir = paths::resolve(path, cwd)?;
                self.engine
                    .workspace_key_of(&dir)
                    .ok_or_else(|| RequestError::UnknownWorkspace(dir.display().to_string()))?
            }
        };
        let contents = self
            .engine
            .store()
            .contents()
            .ok_or(RequestError::NoRateRows)?;
        let rows = contents.rate_rows().map_err(RequestError::StoreFailed)?;
        let reading = Reading::of(self.engine.config());
        let rate_model = reading.model;
        let rows = RateView::of_workspace(&rows, &key, reading);
        Ok(Reply::of(Body::Rates {
            key,
            rate_model,
            rows,
        }))
    }

    /// Ends a session at the end of input: closes open windows as abandoned, flushes and
    /// closes the store. Does nothing after `close`. Answers the last durable sequence.
    pub fn finish(&mut self) -> Result<u64, StoreError> {
        if self.closed {
            return Ok(0);
        }
        self.closed = true;
        self.engine.close()
    }
}

/// What a request answered, before it is encoded as a line or a value.
struct Reply {
    body: Body,
    /// The ledger lines of the request (also in `body`).
    ledger: Vec<String>,
    judge_time: Option<Duration>,
}

impl Reply {
    fn of(body: Body) -> Reply {
        Reply {
            body,
            ledger: Vec::new(),
            judge_time: None,
        }
    }

    fn with_ledger(ledger: Vec<String>, warnings: Vec<String>) -> Reply {
        Reply {
            body: Body::Ledger {
                ledger: ledger.clone(),
                warnings,
            },
            ledger,
            judge_time: None,
        }
    }
}

fn fail(id: &Id, e: &RequestError) -> Handled {
    Handled {
        answer: answer::error(id, e),
        error: Some(e.code()),
        ..Handled::default()
    }
}
