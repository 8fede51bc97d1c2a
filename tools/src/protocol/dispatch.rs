//! The dispatcher: one request in, one answer line out, against one engine.
//!
//! It is the only place that turns requests into engine calls, so `serve`, `replay` and the
//! demo behave the same. A request that fails changes nothing: parsing and validation happen
//! before the engine is touched, and the engine itself refuses bad calls before any state
//! moves.

use super::answer::{self, DurableBody, Id, JudgeBody, LedgerBody, RateView, RatesBody, StatsBody};
use super::error::RequestError;
use super::lines::Line;
use super::request::{Op, RatesTarget, Request, parse_line};
use crate::host::HostEngine;
use crate::ledger_log::LedgerLog;
use docsuggest_engine::Call;
use docsuggest_engine::paths;
use std::time::{Duration, Instant};

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
    /// The request was `close`: stop serving.
    pub stop: bool,
}

/// Serves requests against one engine.
pub struct Dispatcher {
    engine: HostEngine,
    log: LedgerLog,
    default_cwd: Option<String>,
    startup: Vec<String>,
    closed: bool,
}

impl Dispatcher {
    /// A dispatcher over `engine`, appending ledger lines through `log`.
    pub fn new(engine: HostEngine, log: LedgerLog) -> Dispatcher {
        Dispatcher {
            engine,
            log,
            default_cwd: None,
            startup: Vec::new(),
            closed: false,
        }
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

    /// Handles one parsed request.
    pub fn handle(&mut self, request: Request) -> Handled {
        let id = request.id;
        if self.closed {
            return fail(&id, &RequestError::Closed);
        }
        let result = match request.op {
            Op::Judge(call) => self.judge(&id, call),
            Op::Turn { agent } => self.turn(&id, &agent),
            Op::Configure(patch) => self.configure(&id, &patch),
            Op::Flush => self
                .engine
                .flush()
                .map(|durable| done(answer::success(&id, DurableBody { durable })))
                .map_err(|e| RequestError::StoreFailed(e.to_string())),
            Op::Rates(target) => self.rates(&id, &target),
            Op::Stats => Ok(done(answer::success(
                &id,
                StatsBody {
                    stats: self.engine.stats(),
                    store: self.engine.store().kind(),
                    startup: &self.startup,
                },
            ))),
            Op::Close => {
                self.closed = true;
                let mut handled = match self.engine.close() {
                    Ok(durable) => done(answer::success(&id, DurableBody { durable })),
                    Err(e) => fail(&id, &RequestError::StoreFailed(e.to_string())),
                };
                handled.stop = true;
                return handled;
            }
        };
        result.unwrap_or_else(|e| fail(&id, &e))
    }

    fn judge(&mut self, id: &Id, mut call: Call) -> Result<Handled, RequestError> {
        if call.cwd.is_none() {
            call.cwd.clone_from(&self.default_cwd);
        }
        let start = Instant::now();
        let verdict = self.engine.judge(&call)?;
        let elapsed = start.elapsed();
        self.log.append(self.engine.config(), &verdict.ledger);
        let answer = answer::success(
            id,
            JudgeBody {
                note: verdict.note.as_ref(),
                ledger: &verdict.ledger,
                warnings: &verdict.warnings,
            },
        );
        Ok(Handled {
            answer,
            ledger: verdict.ledger,
            judge_time: Some(elapsed),
            ..Handled::default()
        })
    }

    fn turn(&mut self, id: &Id, agent: &str) -> Result<Handled, RequestError> {
        paths::check_field("agent", agent)?;
        let verdict = self.engine.turn(agent);
        self.log.append(self.engine.config(), &verdict.ledger);
        Ok(with_ledger(
            answer::success(
                id,
                LedgerBody {
                    ledger: &verdict.ledger,
                    warnings: &[],
                },
            ),
            verdict.ledger,
        ))
    }

    fn configure(&mut self, id: &Id, patch: &serde_json::Value) -> Result<Handled, RequestError> {
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
        Ok(with_ledger(
            answer::success(
                id,
                LedgerBody {
                    ledger: &lines,
                    warnings: &warnings,
                },
            ),
            lines,
        ))
    }

    fn rates(&mut self, id: &Id, target: &RatesTarget) -> Result<Handled, RequestError> {
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
        let contents = self.engine.store().contents().ok_or_else(|| {
            RequestError::StoreFailed("this store cannot list its rate rows".into())
        })?;
        let rows = contents
            .rate_rows()
            .map_err(|e| RequestError::StoreFailed(e.to_string()))?;
        let model = self.engine.config().rate_model;
        let views = RateView::of_workspace(&rows, &key, model);
        Ok(done(answer::success(
            id,
            RatesBody {
                key: &key,
                rate_model: model,
                rows: &views,
            },
        )))
    }

    /// Ends a session at the end of input: closes open windows as abandoned, flushes and
    /// closes the store. Does nothing after `close`. Answers the last durable sequence.
    pub fn finish(&mut self) -> Result<u64, docsuggest_schema::StoreError> {
        if self.closed {
            return Ok(0);
        }
        self.closed = true;
        self.engine.close()
    }
}

fn done(answer: String) -> Handled {
    Handled {
        answer,
        ..Handled::default()
    }
}

fn with_ledger(answer: String, ledger: Vec<String>) -> Handled {
    Handled {
        answer,
        ledger,
        ..Handled::default()
    }
}

fn fail(id: &Id, e: &RequestError) -> Handled {
    Handled {
        answer: answer::error(id, e),
        error: Some(e.code()),
        ..Handled::default()
    }
}
