//! One harness hook event, read into what it asks of the engine.
//!
//! Claude Code and Codex CLI send the same shape on stdin: `hook_event_name`, `session_id`,
//! `cwd`, and for `PostToolUse` the `tool_name` and `tool_input` (Codex adds `turn_id`,
//! `tool_use_id`, `model`, `permission_mode`). GitHub Copilot CLI sends camelCase fields
//! (`sessionId`, `toolName`, `toolArgs`, the latter sometimes a JSON string) and no event name
//! for its camelCase events, which its hook command line names (`--event`); Cursor sends
//! `conversation_id` and `workspace_roots`. Fields this module does not need are ignored, so
//! a harness that adds fields keeps working.

use super::patch::{self, Change};
use serde_json::Value;

/// What one hook event asks of the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Judge these calls in order; any notes go back as additional context.
    Judge {
        /// The agent (the harness's session id).
        agent: String,
        /// The call's working directory.
        cwd: String,
        /// Codex's turn id: a new one starts the agent's turn first.
        turn_id: Option<String>,
        /// The judged calls.
        calls: Vec<Call>,
    },
    /// The agent's turn starts (a user prompt).
    Turn {
        /// The agent.
        agent: String,
        /// Codex's turn id, remembered so its tool calls do not start the turn again.
        turn_id: Option<String>,
    },
    /// Make everything decided so far durable (the agent's session ended, or a subagent
    /// stopped).
    Flush,
    /// The agent stops: flush, and say what the work tree's change lacks (the change
    /// boundary), unless the agent already went on from a stop hook.
    Stop {
        /// The session, when the event names it: its boundary learns from what it named.
        agent: Option<String>,
        /// The session's working directory, when the event names one.
        cwd: Option<String>,
        /// The harness's `stop_hook_active` (Cursor: a `loop_count` above 0): the agent is
        /// already going on because a stop hook told it to, so no second reminder (it could
        /// never stop). `None`: the event does not say (Copilot CLI), so the hook remembers
        /// its own reminder for the session instead.
        active: Option<bool>,
    },
    /// Calls the harness shows no answer for (Cursor's `afterFileEdit`): peeked, so the
    /// repository's pack is ready at the boundary, with nothing said or recorded.
    Peek {
        /// The call's working directory.
        cwd: String,
        /// The calls.
        calls: Vec<Call>,
    },
    /// The agent is about to run `git commit`: what the staged change lacks.
    Commit {
        /// The session, when the event names it: its commit boundary learns from what it
        /// named.
        agent: Option<String>,
        /// The command's working directory.
        cwd: String,
    },
}

/// One judged call in the engine's terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The engine's tool: `read`, `grep`, `glob`, `write` or `edit`.
    pub tool: &'static str,
    /// The path, absolute or relative to the cwd; for a search, the searched path or pattern.
    pub path: String,
}

/// Why an event asks nothing of the engine; written to the hook log.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Skip {
    /// The input is not a JSON object.
    #[error("the event is not a JSON object: {0}")]
    Malformed(String),
    /// A field the event needs is missing or not a string.
    #[error("the {event} event has no string field {field:?}")]
    Missing {
        /// The event.
        event: String,
        /// The field.
        field: &'static str,
    },
    /// An event this hook does not handle.
    #[error("event {0:?} is not handled")]
    UnknownEvent(String),
    /// A tool that names no file the engine judges.
    #[error("tool {0:?} names no judged file")]
    UnknownTool(String),
    /// A prompt that is this hook's Stop reminder handed back (Copilot CLI): the turn goes on.
    #[error("the prompt is the Stop reminder handed back to the agent, not a new turn")]
    StopReminder,
}

/// Whether a prompt is the reminder a Stop hook gave (as a harness hands it back).
fn is_stop_reminder(prompt: &str) -> bool {
    prompt
        .trim_start()
        .starts_with(crate::check_change::STOP_REMINDER)
}

/// Reads one event.
pub fn parse(bytes: &[u8]) -> Result<Action, Skip> {
    parse_as(bytes, None)
}

/// Reads one event; `named` is the event its hook command line names, for harnesses whose
/// payload does not (Copilot CLI's camelCase events).
pub fn parse_as(bytes: &[u8], named: Option<&str>) -> Result<Action, Skip> {
    let event: Value = serde_json::from_slice(bytes).map_err(|e| Skip::Malformed(e.to_string()))?;
    if !event.is_object() {
        return Err(Skip::Malformed(format!(
            "found {}",
            docsuggest_schema::config::kind_of(&event)
        )));
    }
    let name = text(&event, "hook_event_name")
        .or(named)
        .unwrap_or_default()
        .to_string();
    let Some(kind) = Kind::of(&name) else {
        return Err(Skip::UnknownEvent(name));
    };
    let read = Fields {
        event: &event,
        name: &name,
    };
    match kind {
        Kind::PostToolUse => {
            let (agent, cwd, tool) = (read.agent()?, read.cwd()?, read.tool()?);
            let input = read.tool_input();
            let calls = calls(&tool, &input, &cwd);
            if calls.is_empty() {
                return Err(Skip::UnknownTool(tool));
            }
            Ok(Action::Judge {
                agent,
                cwd,
                turn_id: text(&event, "turn_id").map(str::to_string),
                calls,
            })
        }
        Kind::FileEdited => {
            let cwd = read.cwd()?;
            let path = read.need(&["file_path"])?;
            Ok(Action::Peek {
                cwd,
                calls: vec![Call { tool: "edit", path }],
            })
        }
        // Copilot CLI hands a stop hook's reason back as a prompt event: the agent going on
        // from our reminder in the same turn. A new turn would close the note's window before
        // the reminder is followed, recording the companion it then edits as ignored.
        Kind::Prompt if text(&event, "prompt").is_some_and(is_stop_reminder) => {
            Err(Skip::StopReminder)
        }
        Kind::Prompt => Ok(Action::Turn {
            agent: read.agent()?,
            turn_id: text(&event, "turn_id").map(str::to_string),
        }),
        Kind::Stop => Ok(Action::Stop {
            agent: read.agent().ok(),
            cwd: read.cwd().ok(),
            active: stop_hook_active(&event),
        }),
        Kind::Flush => Ok(Action::Flush),
        Kind::PreToolUse => {
            let tool = read.tool()?;
            let input = read.tool_input();
            let command = text(&input, "command").unwrap_or_default();
            if matches!(tool.as_str(), "Bash" | "bash") && is_git_commit(command) {
                Ok(Action::Commit {
                    agent: read.agent().ok(),
                    cwd: read.cwd()?,
                })
            } else {
                Err(Skip::UnknownTool(tool))
            }
        }
    }
}

/// The events the hook handles, under each harness's name for them.
#[derive(Clone, Copy)]
enum Kind {
    PostToolUse,
    FileEdited,
    Prompt,
    Stop,
    Flush,
    PreToolUse,
}

impl Kind {
    fn of(name: &str) -> Option<Kind> {
        Some(match name {
            "PostToolUse" | "postToolUse" => Kind::PostToolUse,
            "afterFileEdit" => Kind::FileEdited,
            "UserPromptSubmit" | "userPromptSubmitted" => Kind::Prompt,
            "Stop" | "agentStop" | "stop" => Kind::Stop,
            "SessionEnd" | "sessionEnd" | "SubagentStop" | "subagentStop" => Kind::Flush,
            "PreToolUse" | "preToolUse" => Kind::PreToolUse,
            _ => return None,
        })
    }
}

/// One event's fields under any harness's spelling of them.
struct Fields<'a> {
    event: &'a Value,
    name: &'a str,
}

impl Fields<'_> {
    fn need(&self, spellings: &[&'static str]) -> Result<String, Skip> {
        spellings
            .iter()
            .find_map(|field| text(self.event, field))
            .map(str::to_string)
            .ok_or_else(|| Skip::Missing {
                event: self.name.to_string(),
                field: spellings[0],
            })
    }

    /// The session: Claude Code's and Codex's `session_id`, Copilot's `sessionId`, Cursor's
    /// `conversation_id`.
    fn agent(&self) -> Result<String, Skip> {
        self.need(&["session_id", "sessionId", "conversation_id"])
    }

    /// The working directory: `cwd`, else Cursor's first workspace root.
    fn cwd(&self) -> Result<String, Skip> {
        self.need(&["cwd"]).or_else(|missing| {
            self.event
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or(missing)
        })
    }

    fn tool(&self) -> Result<String, Skip> {
        self.need(&["tool_name", "toolName"])
    }

    /// The tool's arguments: `tool_input`, or Copilot's `toolArgs` (an object, or the
    /// object as a JSON string).
    fn tool_input(&self) -> Value {
        let input = self
            .event
            .get("tool_input")
            .or_else(|| self.event.get("toolArgs"))
            .unwrap_or(&Value::Null);
        match input {
            Value::String(s) => serde_json::from_str::<Value>(s)
                .ok()
                .filter(Value::is_object)
                .unwrap_or_else(|| input.clone()),
            other => other.clone(),
        }
    }
}

/// Whether the agent already goes on from a stop hook: `stop_hook_active`, or Cursor's
/// `loop_count` (the follow-ups already sent); `None` when the event says neither.
fn stop_hook_active(event: &Value) -> Option<bool> {
    event
        .get("stop_hook_active")
        .and_then(Value::as_bool)
        .or_else(|| {
            event
                .get("loop_count")
                .and_then(Value::as_u64)
                .map(|n| n > 0)
        })
}

/// Whether the shell command `command` runs `git commit` (as one of its commands: after
/// `&&`, `;` or `|`, with options before the subcommand).
fn is_git_commit(command: &str) -> bool {
    command.split(['&', ';', '|', '\n']).any(|part| {
        let mut words = part.split_whitespace();
        if words.next() != Some("git") {
            return false;
        }
        while let Some(word) = words.next() {
            match word {
                // Options that take the next word as their value.
                "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => {
                    words.next();
                }
                w if w.starts_with('-') => {}
                w => return w == "commit",
            }
        }
        false
    })
}

/// The judged calls of one tool use; empty when the tool names no file.
fn calls(tool: &str, input: &Value, cwd: &str) -> Vec<Call> {
    let one = |tool: &'static str, path: Option<String>| {
        path.filter(|p| !p.is_empty())
            .map(|path| vec![Call { tool, path }])
            .unwrap_or_default()
    };
    // Claude Code and Codex say `file_path`, OpenCode `filePath`, Copilot CLI `path`.
    let file = || {
        ["file_path", "filePath", "path"]
            .iter()
            .find_map(|name| text(input, name))
            .map(str::to_string)
    };
    match tool {
        "Read" | "read_file" | "read" | "view" => one("read", file()),
        "Write" | "write" | "create" => one("write", file()),
        "Edit" | "MultiEdit" | "edit" | "multiedit" => one("edit", file()),
        "NotebookEdit" => one("edit", text(input, "notebook_path").map(str::to_string)),
        // A search names files through its directory and, where given, its file glob.
        "Grep" | "grep" => one("grep", Some(search_path(input, cwd, &["glob", "include"]))),
        "grep_files" => one("grep", Some(search_path(input, cwd, &["include"]))),
        "Glob" | "glob" => one("glob", Some(search_path(input, cwd, &["pattern"]))),
        "apply_patch" | "patch" => patch_text(input)
            .map(|text| {
                patch::files(text)
                    .into_iter()
                    .map(|(change, path)| Call {
                        tool: match change {
                            Change::Add | Change::MoveTo => "write",
                            Change::Update | Change::Delete => "edit",
                        },
                        path,
                    })
                    .collect()
            })
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// `path` (else `paths`, else the cwd), joined with the file pattern in the first of
/// `pattern_fields` the input has.
fn search_path(input: &Value, cwd: &str, pattern_fields: &[&str]) -> String {
    // Copilot CLI says `paths`: one path, or an array whose first is taken.
    let paths = input.get("paths").and_then(|p| match p {
        Value::Array(all) => all.first().and_then(Value::as_str),
        other => other.as_str(),
    });
    let dir = text(input, "path")
        .or(paths)
        .filter(|p| !p.is_empty())
        .unwrap_or(cwd);
    let pattern = pattern_fields
        .iter()
        .find_map(|field| text(input, field).filter(|p| !p.is_empty()));
    match pattern {
        Some(pattern) if pattern.starts_with('/') => pattern.to_string(),
        Some(pattern) => format!("{}/{pattern}", dir.trim_end_matches('/')),
        None => dir.to_string(),
    }
}

/// The patch text of an `apply_patch` input: `command` or `input` (OpenCode's `patch`:
/// `patchText`) as a string, an argv array ending in the patch, or the input itself as a
/// string.
fn patch_text(input: &Value) -> Option<&str> {
    fn of(v: &Value) -> Option<&str> {
        match v {
            Value::String(s) => Some(s.as_str()),
            Value::Array(argv) => argv.last().and_then(Value::as_str),
            _ => None,
        }
    }
    match input {
        Value::Object(map) => map
            .get("command")
            .and_then(of)
            .or_else(|| map.get("input").and_then(of))
            .or_else(|| map.get("patchText").and_then(of)),
        other => of(other),
    }
}

fn text<'a>(value: &'a Value, field: &str) -> Option<&'a str> {
    value.get(field).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn judged(event: Value) -> Vec<(&'static str, String)> {
        match parse(event.to_string().as_bytes()) {
            Ok(Action::Judge { calls, .. }) => {
                calls.into_iter().map(|c| (c.tool, c.path)).collect()
            }
            other => panic!("{event} gave {other:?}"),
        }
    }

    fn post(tool: &str, input: Value) -> Value {
        json!({"session_id": "s", "cwd": "/ws", "hook_event_name": "PostToolUse",
               "tool_name": tool, "tool_input": input, "tool_response": {}})
    }

    fn check(tool: &str, input: Value, expect: &[(&'static str, &str)]) {
        let expect: Vec<(&'static str, String)> =
            expect.iter().map(|(t, p)| (*t, p.to_string())).collect();
        assert_eq!(judged(post(tool, input.clone())), expect, "{tool} {input}");
    }

    #[test]
    fn file_tools_map_onto_the_engine_tools() {
        check(
            "Read",
            json!({"file_path": "/ws/a.md", "offset": 1}),
            &[("read", "/ws/a.md")],
        );
        check(
            "Write",
            json!({"file_path": "/ws/a.md", "content": ""}),
            &[("write", "/ws/a.md")],
        );
        check("Edit", json!({"file_path": "a.md"}), &[("edit", "a.md")]);
        check(
            "MultiEdit",
            json!({"file_path": "/ws/a.md", "edits": []}),
            &[("edit", "/ws/a.md")],
        );
        check(
            "NotebookEdit",
            json!({"notebook_path": "/ws/n.ipynb"}),
            &[("edit", "/ws/n.ipynb")],
        );
        check(
            "read_file",
            json!({"file_path": "/ws/a.md"}),
            &[("read", "/ws/a.md")],
        );
    }

    #[test]
    fn copilot_and_opencode_tools_map_onto_the_engine_tools() {
        check("view", json!({"path": "/ws/a.md"}), &[("read", "/ws/a.md")]);
        check(
            "create",
            json!({"path": "/ws/n.md", "file_text": ""}),
            &[("write", "/ws/n.md")],
        );
        check("edit", json!({"path": "/ws/a.md"}), &[("edit", "/ws/a.md")]);
        check("Edit", json!({"path": "/ws/a.md"}), &[("edit", "/ws/a.md")]);
        check(
            "read",
            json!({"filePath": "/ws/a.md"}),
            &[("read", "/ws/a.md")],
        );
        check(
            "write",
            json!({"filePath": "/ws/a.md"}),
            &[("write", "/ws/a.md")],
        );
        check(
            "grep",
            json!({"pattern": "x", "path": "/ws/src", "include": "*.rs"}),
            &[("grep", "/ws/src/*.rs")],
        );
        check(
            "grep",
            json!({"pattern": "x", "paths": ["/ws/docs", "/ws/src"], "glob": "*.md"}),
            &[("grep", "/ws/docs/*.md")],
        );
        check(
            "glob",
            json!({"pattern": "*.md", "paths": "/ws/d"}),
            &[("glob", "/ws/d/*.md")],
        );
        let patch = "*** Begin Patch\n*** Add File: N.md\n+x\n*** End Patch\n";
        check("patch", json!({"patchText": patch}), &[("write", "N.md")]);
    }

    #[test]
    fn camel_case_events_are_read_by_the_name_their_command_line_gives() {
        let args = json!({"path": "/ws/a.md"}).to_string();
        let event = json!({"sessionId": "s", "timestamp": 1, "cwd": "/ws", "toolName": "view",
            "toolArgs": args});
        let bytes = event.to_string();
        assert_eq!(
            parse(bytes.as_bytes()),
            Err(Skip::UnknownEvent(String::new())),
            "without a name it is no event"
        );
        assert_eq!(
            parse_as(bytes.as_bytes(), Some("postToolUse")),
            Ok(Action::Judge {
                agent: "s".into(),
                cwd: "/ws".into(),
                turn_id: None,
                calls: vec![Call {
                    tool: "read",
                    path: "/ws/a.md".into()
                }],
            })
        );
        let stop = json!({"sessionId": "s", "cwd": "/ws", "stopReason": "end_turn"});
        assert_eq!(
            parse_as(stop.to_string().as_bytes(), Some("agentStop")),
            Ok(Action::Stop {
                agent: Some("s".into()),
                cwd: Some("/ws".into()),
                active: None
            })
        );
        let cursor = json!({"hook_event_name": "stop", "conversation_id": "c",
            "workspace_roots": ["/ws"], "status": "completed", "loop_count": 1});
        assert_eq!(
            parse(cursor.to_string().as_bytes()),
            Ok(Action::Stop {
                agent: Some("c".into()),
                cwd: Some("/ws".into()),
                active: Some(true)
            })
        );
    }

    #[test]
    fn searches_name_their_directory_and_pattern() {
        check("Grep", json!({"pattern": "TODO"}), &[("grep", "/ws")]);
        check(
            "Grep",
            json!({"pattern": "x", "path": "/ws/docs", "glob": "*.md"}),
            &[("grep", "/ws/docs/*.md")],
        );
        check(
            "Glob",
            json!({"pattern": "Documentation/**/*.md"}),
            &[("glob", "/ws/Documentation/**/*.md")],
        );
        check(
            "Glob",
            json!({"pattern": "*.md", "path": "/ws/d/"}),
            &[("glob", "/ws/d/*.md")],
        );
        check(
            "grep_files",
            json!({"pattern": "x", "include": "*.rs", "path": "/ws/src"}),
            &[("grep", "/ws/src/*.rs")],
        );
    }

    #[test]
    fn apply_patch_in_each_input_form() {
        let patch = "*** Begin Patch\n*** Update File: Documentation/Plans/X.md\n@@\n-a\n+b\n*** Add File: N.md\n+x\n*** End Patch\n";
        let expect = [("edit", "Documentation/Plans/X.md"), ("write", "N.md")];
        check("apply_patch", json!({"command": patch}), &expect);
        check("apply_patch", json!({"input": patch}), &expect);
        check(
            "apply_patch",
            json!({"command": ["apply_patch", patch]}),
            &expect,
        );
        check("apply_patch", json!(patch), &expect);
    }

    #[test]
    fn a_stop_reminder_handed_back_as_a_prompt_is_no_new_turn() {
        // Copilot CLI 1.0.102, after an agentStop blocked with the reminder as its reason.
        let reminder = "[doc-suggester] before you finish: the change in the work tree may \
            be missing companions this repository's changes conventionally include:\n- update \
            tests/test_mod1.py; for src/mod1.py\nAdd what the task needs, or say why it needs \
            none of them.";
        let event = |prompt: &str| {
            json!({"sessionId": "s", "timestamp": 1796658201600_u64, "cwd": "/ws",
                   "prompt": prompt})
            .to_string()
        };
        let named = Some("userPromptSubmitted");
        assert_eq!(
            parse_as(event(reminder).as_bytes(), named),
            Err(Skip::StopReminder)
        );
        // A prompt of the user's own is a new turn, even one that mentions the reminder.
        let quoting = format!("Why did you say {reminder:?}?");
        for prompt in ["Set VALUE in src/mod1.py to 1000.", quoting.as_str()] {
            assert_eq!(
                parse_as(event(prompt).as_bytes(), named),
                Ok(Action::Turn {
                    agent: "s".into(),
                    turn_id: None
                }),
                "{prompt}"
            );
        }
    }

    #[test]
    fn turns_flushes_and_skips() {
        let turn = json!({"session_id": "s", "cwd": "/ws", "hook_event_name": "UserPromptSubmit",
                          "prompt": "go", "turn_id": "t1"});
        assert_eq!(
            parse(turn.to_string().as_bytes()),
            Ok(Action::Turn {
                agent: "s".into(),
                turn_id: Some("t1".into())
            })
        );
        for name in ["SubagentStop", "SessionEnd"] {
            let event = json!({"session_id": "s", "hook_event_name": name});
            assert_eq!(parse(event.to_string().as_bytes()), Ok(Action::Flush));
        }
        let stop = json!({"session_id": "s", "hook_event_name": "Stop", "cwd": "/w",
            "stop_hook_active": true});
        assert_eq!(
            parse(stop.to_string().as_bytes()),
            Ok(Action::Stop {
                agent: Some("s".into()),
                cwd: Some("/w".into()),
                active: Some(true)
            })
        );
        let cases: &[(&[u8], &str)] = &[
            (b"", "the event is not a JSON object: EOF while parsing a value at line 1 column 0"),
            (b"[1]", "the event is not a JSON object: found an array"),
            (br#"{"hook_event_name":"Notification"}"#, r#"event "Notification" is not handled"#),
            (br#"{"hook_event_name":"PreToolUse"}"#,
             r#"the PreToolUse event has no string field "tool_name""#),
            (br#"{"hook_event_name":"PreToolUse","cwd":"/w","tool_name":"Bash","tool_input":{"command":"git status"}}"#,
             r#"tool "Bash" names no judged file"#),
            (br#"{"hook_event_name":"PostToolUse","cwd":"/w","tool_name":"Read"}"#,
             r#"the PostToolUse event has no string field "session_id""#),
            (br#"{"hook_event_name":"PostToolUse","session_id":"s","cwd":"/w","tool_name":"Bash","tool_input":{"command":"ls"}}"#,
             r#"tool "Bash" names no judged file"#),
            (br#"{"hook_event_name":"PostToolUse","session_id":"s","cwd":"/w","tool_name":"Read","tool_input":{}}"#,
             r#"tool "Read" names no judged file"#),
        ];
        // Which commands are a commit: only a `git commit`, wherever it stands in the line.
        for (command, commit) in [
            ("git commit -m x", true),
            ("git add . && git commit", true),
            ("cd a; git -C b commit --amend", true),
            ("git -c user.name=x commit", true),
            ("git status", false),
            ("echo git commit", false),
            ("git log --grep commit", false),
            ("gitcommit", false),
        ] {
            let event = json!({"hook_event_name": "PreToolUse", "cwd": "/w", "tool_name": "Bash",
                "tool_input": {"command": command}});
            let expect = commit.then(|| Action::Commit {
                agent: None,
                cwd: "/w".into(),
            });
            assert_eq!(
                parse(event.to_string().as_bytes()).ok(),
                expect,
                "{command}"
            );
        }
        // A commit names its session when the event does: that session's commit boundary.
        let event = json!({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": "/w",
            "tool_name": "Bash", "tool_input": {"command": "git commit"}});
        assert_eq!(
            parse(event.to_string().as_bytes()).ok(),
            Some(Action::Commit {
                agent: Some("s".into()),
                cwd: "/w".into()
            })
        );
        for (input, expect) in cases {
            match parse(input) {
                Err(skip) => assert_eq!(skip.to_string(), *expect),
                ok => panic!("{} gave {ok:?}", String::from_utf8_lossy(input)),
            }
        }
    }
}
