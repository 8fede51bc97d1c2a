//! `docsuggest mcp`: a Model Context Protocol server on stdio, so clients without our hooks
//! (Cursor, Windsurf, Zed, Claude Desktop, Continue) can ask the engine too.
//!
//! Two tools:
//!
//! - `companions`: the companions the engine names for a path now, with the note's family
//!   and confidence, or nothing (and why) when it would stay silent;
//! - `why_silent`: why a path gets no note — outside any workspace, excluded, no family,
//!   companions missing on disk, under the confidence gate, cooldown, dedupe or cap, a pack
//!   still being mined — read from the engine's own ledger lines ([`explain`]).
//!
//! Both send the protocol's `peek` (`Engine::peek`): the call is judged exactly as the hooks'
//! next call would be, by the same engine and store ([`reach`]: the user's daemon, started
//! as a hook starts it), but nothing is recorded. An MCP client asking is not an agent's tool
//! call: a note it was shown opens no window, so nothing the client does next could count
//! as followed or ignored, and a recorded decision would only add abandoned entries to the
//! history and notes to `stats`. A peek is judged as a fresh agent (`docsuggest-mcp`, never
//! remembered), or under an agent's own turn when `agent` names one (a harness session id),
//! which is how a cooldown, dedupe or cap can be explained.
//!
//! Requests the engine refuses (a relative path without `cwd`, an empty path) and a store
//! that cannot be had are tool errors with the engine's message; stdout carries only
//! protocol frames, logs go to stderr.

pub mod explain;
pub mod reach;
pub mod transport;

use crate::check_change::{ANSWER_LIMIT, ChangeSet, CheckError, CheckReport, Deadlines};
use docsuggest_engine::paths::MAX_PATH_BYTES;
use docsuggest_schema::text::{bounded, quoted};
use reach::{Reach, ReachError};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, ServiceExt, tool, tool_handler, tool_router};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The agent a peek is judged as when the client names none: never remembered by the engine.
pub const DEFAULT_AGENT: &str = "docsuggest-mcp";

/// The tool every peek is judged as: a read, which every default config judges.
const TOOL: &str = "read";

/// How `docsuggest mcp` runs.
#[derive(Clone, Debug, clap::Args)]
pub struct McpOptions {
    /// The daemon's socket [default: ~/.dsh/playform/docsuggest.sock, the hooks' daemon].
    #[arg(long, value_name = "PATH")]
    pub socket: Option<PathBuf>,
    /// The store a daemon started here opens, and the in-process engine's when no daemon
    /// can be had [default: the config's storePath].
    #[arg(long, value_name = "PATH")]
    pub store: Option<PathBuf>,
    /// The most one tool call waits for the daemon (starting it included), in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 5000)]
    pub timeout_ms: u64,
    /// A daemon started here stops after this many seconds without a request.
    #[arg(long, value_name = "SECS", default_value_t = 1800,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: u64,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The async runtime could not be built.
    #[error("cannot start the MCP server's runtime: {0}")]
    Runtime(std::io::Error),
    /// The MCP session failed (the initialization, or the transport).
    #[error("the MCP session failed: {0}")]
    Session(String),
}

/// Serves MCP on stdin/stdout until the client closes stdin.
pub fn run(options: &McpOptions) -> Result<(), McpError> {
    let reach = Reach::new(
        options
            .socket
            .clone()
            .unwrap_or_else(crate::hook::default_socket),
        options.store.clone(),
        Duration::from_millis(options.timeout_ms),
        Duration::from_secs(options.idle_timeout),
    );
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(McpError::Runtime)?;
    runtime.block_on(async {
        let server = Server::new(reach)
            .serve(transport::LineTransport::new(
                tokio::io::stdin(),
                tokio::io::stdout(),
            ))
            .await
            .map_err(|e| McpError::Session(e.to_string()))?;
        server
            .waiting()
            .await
            .map_err(|e| McpError::Session(e.to_string()))?;
        Ok(())
    })
}

/// A path a tool is asked about.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct PathQuery {
    /// The file a coding task touches (or a directory, or a glob): absolute, or relative to
    /// `cwd`.
    #[schemars(
        description = "The file a coding task touches (or a directory, or a glob): absolute, or relative to `cwd`."
    )]
    pub path: String,
    /// The absolute directory a relative `path` is resolved against (the project's root,
    /// say).
    #[serde(default)]
    #[schemars(
        description = "The absolute directory a relative `path` is resolved against (the project's root, say)."
    )]
    pub cwd: Option<String>,
    /// The agent whose turn the path is judged in (a Claude Code or Codex session id), so
    /// its cooldown, dedupe and cap apply; a fresh agent without one.
    #[serde(default)]
    #[schemars(
        description = "The agent whose turn the path is judged in (a Claude Code or Codex session id), so its cooldown, dedupe and cap apply; a fresh agent without one."
    )]
    pub agent: Option<String>,
}

/// A change a tool is asked about.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ChangeQuery {
    /// The git repository (or a directory inside it), absolute.
    #[schemars(description = "The git repository (or a directory inside it), absolute.")]
    pub cwd: String,
    /// Check the staged change instead of the work tree's.
    #[serde(default)]
    #[schemars(description = "Check the staged change instead of the work tree's.")]
    pub staged: bool,
    /// Check the changes since this revision (committed or not) instead.
    #[serde(default)]
    #[schemars(description = "Check the changes since this revision (committed or not) instead.")]
    pub since: Option<String>,
}

/// The MCP server: the tools over one [`Reach`].
#[derive(Clone)]
pub struct Server {
    reach: Arc<Reach>,
    // Read by the code `tool_handler` generates.
    #[allow(dead_code)]
    tool_router: ToolRouter<Server>,
}

#[tool_router]
impl Server {
    /// A server asking the engine `reach` reaches.
    pub fn new(reach: Reach) -> Server {
        Server {
            reach: Arc::new(reach),
            tool_router: Server::tool_router(),
        }
    }

    #[tool(
        description = "The companion files docsuggest names for a file a coding task touches \
            (a plan's index, a package's scheme, the changelog, ...), with the note's family and \
            confidence (0..1), exactly as its hooks would name them now, learned rates included. \
            Nothing is recorded. An empty list means it would stay silent; `silent` says why.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn companions(
        &self,
        Parameters(query): Parameters<PathQuery>,
    ) -> Result<CallToolResult, ErrorData> {
        let (answer, via) = match self.peek(&query).await {
            Ok(answered) => answered,
            Err(failed) => return Ok(failed),
        };
        let note = &answer["note"];
        let Some(family) = note["family"].as_str() else {
            let silence = explain::silence(&ledger(&answer));
            let text = format!(
                "No companions for {}: {}.",
                quoted(&query.path),
                silence
                    .as_ref()
                    .map_or("the engine gave no note", |s| s.explanation.as_str())
            );
            let value = json!({
                "path": bounded(&query.path, MAX_PATH_BYTES), "family": null, "confidence": null, "companions": [], "lines": [],
                "silent": silence, "ledger": answer["ledger"], "via": via.describe(),
            });
            return Ok(result(text, value));
        };
        let companions = note["companions"].clone();
        let names: Vec<&str> = companions
            .as_array()
            .map(|c| c.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let confidence = note["confidence"].as_f64().unwrap_or_default();
        let text = format!(
            "{family} (confidence {confidence:.2}): {}\n\n{}",
            names.join(", "),
            note["text"].as_str().unwrap_or_default()
        );
        let value = json!({
            "path": bounded(&query.path, MAX_PATH_BYTES), "family": family, "confidence": note["confidence"],
            "companions": companions, "lines": note.get("lines").cloned().unwrap_or_else(|| json!([])),
            "note": note["text"], "silent": null,
            "ledger": answer["ledger"], "via": via.describe(),
        });
        Ok(result(text, value))
    }

    #[tool(
        description = "Why docsuggest gives no note for a path: outside any workspace, excluded, \
            no family claims it, its companions are missing on disk, its confidence is under \
            the gate, cooldown, dedupe or the per-turn cap, or the repository's pack is still \
            being mined. Read from the engine's own ledger lines; nothing is recorded.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn why_silent(
        &self,
        Parameters(query): Parameters<PathQuery>,
    ) -> Result<CallToolResult, ErrorData> {
        let (answer, via) = match self.peek(&query).await {
            Ok(answered) => answered,
            Err(failed) => return Ok(failed),
        };
        let silence = explain::silence(&ledger(&answer));
        let text = match &silence {
            Some(s) => format!(
                "{} is silent ({}): {}.",
                quoted(&query.path),
                s.reason,
                s.explanation
            ),
            None => format!(
                "{} is not silent: {}",
                quoted(&query.path),
                answer["note"]["summary"]
                    .as_str()
                    .unwrap_or("a note is given")
            ),
        };
        let value = json!({
            // `silent` has one shape in both tools: why (an object), or null.
            "path": bounded(&query.path, MAX_PATH_BYTES),
            "reason": silence.as_ref().map(|s| s.reason),
            "family": match &silence {
                Some(s) => json!(s.family),
                None => answer["note"]["family"].clone(),
            },
            "explanation": silence.as_ref().map(|s| s.explanation.as_str()),
            "silent": silence, "ledger": answer["ledger"], "via": via.describe(),
        });
        Ok(result(text, value))
    }

    #[tool(
        description = "What a whole change lacks: the companion files (tests, docs, changelog, \
            ...) docsuggest expects for the files a git work tree's change touches (or its \
            staged change, or the changes since a revision) and the change does not include, \
            each with its family, confidence and the changed files that call for it. Call it \
            before you finish or commit. Nothing is recorded; an empty `missing` means the \
            change is complete.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn check_change(
        &self,
        Parameters(query): Parameters<ChangeQuery>,
    ) -> Result<CallToolResult, ErrorData> {
        let report = match self.check(&query).await {
            Ok(report) => report,
            Err(why) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "cannot check the change in {}: {why}",
                    quoted(&query.cwd)
                ))]));
            }
        };
        let text = report.to_string();
        let value = serde_json::to_value(&report).unwrap_or(Value::Null);
        if !report.errors.is_empty() {
            // Not a complete change: the client is told the check failed, with the report.
            let mut failed = result(text, value);
            failed.is_error = Some(true);
            return Ok(failed);
        }
        Ok(result(text, value))
    }
}

impl Server {
    /// Checks the change `query` names off the async executor.
    async fn check(&self, query: &ChangeQuery) -> Result<CheckReport, String> {
        if query.cwd.len() > MAX_PATH_BYTES {
            return Err(format!(
                "cwd is {} bytes long (at most {MAX_PATH_BYTES})",
                query.cwd.len()
            ));
        }
        let set = match (&query.since, query.staged) {
            (Some(rev), _) => ChangeSet::Since(rev.clone()),
            (None, true) => ChangeSet::Staged,
            (None, false) => ChangeSet::WorkTree,
        };
        let (reach, dir) = (self.reach.clone(), PathBuf::from(&query.cwd));
        let checked = tokio::task::spawn_blocking(move || {
            // A pack still being mined is waited for a little, as `check-change` does.
            let deadlines = Deadlines::after(CHECK_WAIT, CHECK_WAIT);
            crate::check_change::check_with(&dir, &set, deadlines, None, |request| {
                reach
                    .ask(request)
                    .map(|(answer, _)| answer)
                    .map_err(|e| CheckError::Ask(e.to_string()))
            })
        })
        .await;
        match checked {
            Ok(Ok(report)) => Ok(report.bounded(ANSWER_LIMIT)),
            Ok(Err(e)) => Err(bounded(&e.to_string(), ERROR_LIMIT).to_string()),
            Err(join) => Err(bounded(&join.to_string(), ERROR_LIMIT).to_string()),
        }
    }

    /// Peeks at `query` off the async executor; a failure is already the tool error to answer.
    async fn peek(&self, query: &PathQuery) -> Result<(Value, reach::Via), CallToolResult> {
        // Refused here as the engine would refuse it, so a path past any sane length never
        // travels to the daemon (whose line limit it could pass) nor comes back in full.
        for (field, value) in [("path", Some(&query.path)), ("cwd", query.cwd.as_ref())] {
            if let Some(value) = value.filter(|v| v.len() > MAX_PATH_BYTES) {
                return Err(CallToolResult::error(vec![ContentBlock::text(format!(
                    "cannot judge {}: {field} is {} bytes long (at most {MAX_PATH_BYTES})",
                    quoted(value),
                    value.len()
                ))]));
            }
        }
        let request = json!({
            "op": "peek",
            "agent": query.agent.as_deref().unwrap_or(DEFAULT_AGENT),
            "tool": TOOL,
            "path": query.path,
            "cwd": query.cwd,
        });
        let reach = self.reach.clone();
        let asked = tokio::task::spawn_blocking(move || reach.ask(&request)).await;
        match asked {
            Ok(Ok(answered)) => Ok(answered),
            Ok(Err(e)) => Err(tool_error(&query.path, &e)),
            Err(join) => Err(CallToolResult::error(vec![ContentBlock::text(format!(
                "asking the engine about {} failed: {}",
                quoted(&query.path),
                bounded(&join.to_string(), ERROR_LIMIT)
            ))])),
        }
    }
}

#[tool_handler]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("docsuggest", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "docsuggest names the companion files a documentation task conventionally \
                 needs (a plan's index, a changelog, a package's scheme). Before editing a \
                 file, call `companions` with its path to learn which other files the task \
                 usually needs; `why_silent` explains an empty answer; before finishing or \
                 committing, `check_change` lists what the whole change lacks.",
            )
    }
}

/// The ledger lines of an answer.
fn ledger(answer: &Value) -> Vec<String> {
    answer["ledger"]
        .as_array()
        .map(|lines| {
            lines
                .iter()
                .filter_map(|l| l.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A success with `text` for a person and `value` as the structured content.
fn result(text: String, value: Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(value);
    result
}

/// How long `check_change` waits for a pack still being mined, and gives git.
const CHECK_WAIT: Duration = Duration::from_secs(10);

/// The most bytes of an error another part wrote that a tool error quotes.
const ERROR_LIMIT: usize = 400;

fn tool_error(path: &str, e: &ReachError) -> CallToolResult {
    let (path, why) = (quoted(path), bounded(&e.to_string(), ERROR_LIMIT));
    let text = match e {
        ReachError::Refused { .. } => format!("cannot judge {path}: {why}"),
        _ => format!("cannot ask the engine about {path}: {why}"),
    };
    CallToolResult::error(vec![ContentBlock::text(text)])
}
