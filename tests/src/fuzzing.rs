//! The checks of the fuzz targets (`fuzz/fuzz_targets/`), one per parser that takes outside
//! input, each against a model of what it must do. A check panics on a finding; it answers
//! nothing otherwise. `cargo fuzz run <target>` drives them with libFuzzer (nightly);
//! `tests/reliability/fuzz_targets.rs` runs them on every `cargo test` over the kept corpus and
//! a bounded number of generated inputs.

use docsuggest_cli::check_change::{ANSWER_LIMIT, CheckReport, Missing, read_changed};
use docsuggest_cli::hook::Harness;
use docsuggest_cli::hook::event::{self, Action};
use docsuggest_cli::hook::install::codex_features::{HooksFlag, hooks_flag};
use docsuggest_cli::hook::install::entries::{events, installed, uninstalled};
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_host::protocol::{Op, parse_line};
use docsuggest_schema::Pack;
use serde_json::Value;

mod fleet;
mod install;
pub use fleet::fleet_moves;
pub use install::install_staging;

/// One target's check: panics on a finding.
pub type Check = fn(&[u8]);

/// The targets, by the name `cargo fuzz run` takes, with the share of the generated inputs
/// `cargo test` gives each (per mille): a fleet merge starts a query engine per input, an
/// install staging check builds a project of files and syncs what it writes.
pub const TARGETS: &[(&str, Check, u64)] = &[
    ("protocol_line", protocol_line, 1000),
    ("hook_event", hook_event, 1000),
    ("settings_file", settings_file, 1000),
    ("codex_features", codex_features, 1000),
    ("pack", pack, 1000),
    ("git_names", git_names, 1000),
    ("fleet_moves", fleet_moves, 50),
    ("install_staging", install_staging, 10),
];

/// A protocol request line: parsed without a panic; a line read as a request is a JSON
/// object naming a known op, and one that is not UTF-8 JSON is refused.
pub fn protocol_line(bytes: &[u8]) {
    let parsed = parse_line(bytes);
    let json: Option<Value> = std::str::from_utf8(bytes)
        .ok()
        .and_then(|text| serde_json::from_str(text).ok());
    match (&parsed, &json) {
        (Ok(request), Some(Value::Object(fields))) => {
            let op = fields.get("op").and_then(Value::as_str);
            assert_eq!(op, Some(request.op.name()), "{request:?} from {fields:?}");
            if let Op::Judge(call) | Op::Peek(call) | Op::BoundaryPeek(call) = &request.op {
                assert_eq!(
                    fields.get("path").and_then(Value::as_str),
                    Some(call.path.as_str())
                );
            }
        }
        (Ok(request), _) => panic!("{request:?} read from a line that is not a JSON object"),
        (Err(_), _) => {}
    }
}

/// A harness hook event: read without a panic; an event read as an action is a JSON object
/// carrying the fields that action needs.
pub fn hook_event(bytes: &[u8]) {
    let Ok(action) = event::parse(bytes) else {
        return;
    };
    let event: Value = serde_json::from_slice(bytes).expect("an action from JSON");
    let text = |field: &str| event.get(field).and_then(Value::as_str);
    // Each harness's spelling of a field: the first one the event has.
    let either = |fields: &[&str]| fields.iter().find_map(|f| text(f));
    let name = text("hook_event_name");
    let agent_of = || either(&["session_id", "sessionId", "conversation_id"]);
    let cwd_of = || {
        text("cwd").or_else(|| {
            event
                .get("workspace_roots")
                .and_then(Value::as_array)
                .and_then(|roots| roots.first())
                .and_then(Value::as_str)
        })
    };
    match action {
        Action::Judge {
            agent, cwd, calls, ..
        } => {
            assert!(
                matches!(name, Some("PostToolUse" | "postToolUse")),
                "{name:?}"
            );
            assert_eq!(agent_of(), Some(agent.as_str()));
            assert_eq!(cwd_of(), Some(cwd.as_str()));
            assert!(!calls.is_empty() && calls.iter().all(|c| !c.path.is_empty()));
        }
        Action::Peek { cwd, calls } => {
            assert_eq!(name, Some("afterFileEdit"));
            assert_eq!(cwd_of(), Some(cwd.as_str()));
            assert_eq!(calls.len(), 1);
            assert_eq!(text("file_path"), Some(calls[0].path.as_str()));
        }
        Action::Turn { agent, .. } => {
            assert!(
                matches!(name, Some("UserPromptSubmit" | "userPromptSubmitted")),
                "{name:?}"
            );
            assert_eq!(agent_of(), Some(agent.as_str()));
        }
        Action::Flush => assert!(matches!(
            name,
            Some("SessionEnd" | "sessionEnd" | "SubagentStop" | "subagentStop")
        )),
        Action::Stop { agent, cwd, active } => {
            assert!(
                matches!(name, Some("Stop" | "agentStop" | "stop")),
                "{name:?}"
            );
            assert_eq!(agent_of(), agent.as_deref());
            assert_eq!(cwd_of(), cwd.as_deref());
            let said = event
                .get("stop_hook_active")
                .and_then(Value::as_bool)
                .or_else(|| {
                    event
                        .get("loop_count")
                        .and_then(Value::as_u64)
                        .map(|n| n > 0)
                });
            assert_eq!(said, active);
        }
        Action::Commit { agent, cwd } => {
            assert!(
                matches!(name, Some("PreToolUse" | "preToolUse")),
                "{name:?}"
            );
            assert_eq!(agent_of(), agent.as_deref());
            assert!(matches!(
                either(&["tool_name", "toolName"]),
                Some("Bash" | "bash")
            ));
            assert_eq!(cwd_of(), Some(cwd.as_str()));
            let command = event["tool_input"]["command"]
                .as_str()
                .or_else(|| event["toolArgs"]["command"].as_str())
                .or_else(|| text("toolArgs"))
                .unwrap_or_default();
            assert!(
                command.contains("git") && command.contains("commit"),
                "{command:?}"
            );
        }
    }
}

/// The command the settings-file check installs.
const COMMAND: &str = "'/opt/docsuggest/bin/docsuggest' hook --harness claude-code";

/// A harness settings file: installing ours gives text that parses to the file's value with
/// our handler on every event, and uninstalling gives back the original bytes (for a file
/// holding none of ours and no empty `hooks` array or object, which cannot be told apart from
/// ones installing made).
pub fn settings_file(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    for harness in [Harness::ClaudeCode, Harness::Codex] {
        let Ok(with) = installed(Some(text), harness, COMMAND) else {
            continue;
        };
        let value: Value = match serde_json::from_str(&with) {
            Ok(value) => value,
            // A file with comments (JSONC) is edited as text; serde_json cannot read it.
            Err(_) if serde_json::from_str::<Value>(text).is_err() => continue,
            Err(e) => panic!("installing broke the JSON ({e}): {with:?}"),
        };
        for (event, _) in events(harness) {
            let ours = value["hooks"][event].as_array().is_some_and(|groups| {
                groups
                    .iter()
                    .any(|g| g.to_string().contains("/opt/docsuggest/bin/docsuggest"))
            });
            assert!(ours, "no handler of ours on {event}: {with:?}");
        }
        // Everything else the file held is still there, unchanged.
        if let Ok(Value::Object(before)) = serde_json::from_str::<Value>(text) {
            for (key, was) in &before {
                if key != "hooks" {
                    assert_eq!(&value[key], was, "{key} changed: {with:?}");
                }
            }
        }
        let back = uninstalled(&with).expect("what was installed uninstalls");
        if text.contains("docsuggest") {
            continue;
        }
        let Some(back) = back else {
            // Only a file that held nothing (no text, or an empty object, which the harness
            // reads as it reads no file) may go: what installing into it wrote is exactly
            // what installing into no file writes.
            let held_nothing = text.trim().is_empty()
                || serde_json::from_str::<Value>(text)
                    .is_ok_and(|v| v.as_object().is_some_and(serde_json::Map::is_empty));
            assert!(held_nothing, "the file was removed: {text:?}");
            continue;
        };
        if fills_an_empty_container(text) {
            // The documented exception (`entries::uninstalled`): the value comes back, the
            // layout of an emptied container may not.
            let was = serde_json::from_str::<Value>(text).ok();
            let now = serde_json::from_str::<Value>(&back).ok();
            let emptied = |v: Option<Value>| {
                v.map(|mut v| {
                    if v["hooks"].as_object().is_some_and(|h| {
                        h.values().all(|e| e.as_array().is_some_and(Vec::is_empty))
                    }) {
                        v.as_object_mut().map(|o| o.remove("hooks"));
                    }
                    v
                })
            };
            assert_eq!(emptied(was), emptied(now), "{text:?} came back as {back:?}");
        } else {
            assert_eq!(back, text, "install then uninstall changed the file");
        }
    }
}

/// Whether installing fills a container of `text` that holds nothing (the root object, the
/// `hooks` object, an event array): uninstalling empties it again, but cannot tell the
/// whitespace it held from the line break installing added, nor an empty `hooks` from one
/// installing created (documented in `entries::uninstalled`). True too for text serde_json
/// cannot read (comments), which the check cannot look into.
fn fills_an_empty_container(text: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return true;
    };
    let root_empty = value.as_object().is_some_and(serde_json::Map::is_empty);
    let hooks_empty = match value.get("hooks") {
        Some(Value::Object(events)) => {
            events.is_empty()
                || events
                    .values()
                    .any(|v| v.as_array().is_some_and(Vec::is_empty))
        }
        _ => false,
    };
    root_empty || hooks_empty
}

/// A Codex `config.toml`: the hooks flag read agrees with the `toml` crate's reading of the
/// same text (`features.hooks`, else `features.codex_hooks`), and an invalid file reads as
/// unset.
pub fn codex_features(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let read = hooks_flag(text);
    let expected = match text.parse::<toml::Table>() {
        Ok(table) => {
            let features = table.get("features").and_then(toml::Value::as_table);
            let flag = |key: &str| {
                features
                    .and_then(|f| f.get(key))
                    .and_then(toml::Value::as_bool)
            };
            match flag("hooks").or_else(|| flag("codex_hooks")) {
                Some(true) => HooksFlag::On,
                Some(false) => HooksFlag::Off,
                None => HooksFlag::Unset,
            }
        }
        Err(_) => HooksFlag::Unset,
    };
    assert_eq!(read, expected, "{text:?}");
}

/// A pack file: loaded or refused naming the file, without a panic; a pack that loads writes
/// back to JSON that loads as the same pack, and compiles or is refused naming the file.
pub fn pack(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    match Pack::from_json_str(text, "ws/.dsh/doc-pack.json") {
        Ok(pack) => {
            let written = serde_json::to_string(&pack).expect("a pack writes as JSON");
            let again = Pack::from_json_str(&written, "again").expect("what it wrote loads");
            assert_eq!(again, pack);
            if let Err(e) = CompiledPack::compile(&pack, "ws/.dsh/doc-pack.json") {
                assert!(e.to_string().contains("ws/.dsh/doc-pack.json"), "{e}");
            }
        }
        Err(e) => {
            assert!(!e.problems.is_empty());
            assert!(e.to_string().contains("ws/.dsh/doc-pack.json"), "{e}");
        }
    }
}

/// git's `-z` answer (any bytes) as `check-change` reads it: each name once, never empty,
/// never holding a NUL; shown exactly when it is UTF-8 and prints as it reads. A report built
/// of the shown names, bounded, is at most [`ANSWER_LIMIT`] bytes as JSON, and no line of its
/// text or of the Stop reminder carries a code point that prints nothing.
pub fn git_names(bytes: &[u8]) {
    let files = read_changed([bytes]);
    let names: std::collections::BTreeSet<&[u8]> =
        bytes.split(|&b| b == 0).filter(|n| !n.is_empty()).collect();
    assert!(files.len() <= names.len(), "{files:?} from {names:?}");
    for name in &names {
        let visible = std::str::from_utf8(name)
            .is_ok_and(|text| !docsuggest_schema::text::has_invisible(text));
        if visible {
            let text = String::from_utf8_lossy(name);
            assert!(
                files.iter().any(|f| f.shown && f.path == text),
                "{text:?} not shown"
            );
        }
    }
    for file in &files {
        assert!(
            !file.path.is_empty() && !file.path.contains('\0'),
            "{file:?}"
        );
        if file.shown {
            assert!(
                !docsuggest_schema::text::has_invisible(&file.path),
                "{file:?}"
            );
        }
    }
    let shown: Vec<String> = files
        .iter()
        .filter(|f| f.shown)
        .map(|f| f.path.clone())
        .collect();
    let report = CheckReport {
        root: "/r".into(),
        missing: shown
            .iter()
            .map(|path| Missing {
                companion: path.clone(),
                family: "F".into(),
                confidence: 0.5,
                for_files: shown.clone(),
                for_more: 0,
                line: path.clone(),
                evidence: Some(0.9),
                blocks: true,
            })
            .collect(),
        changed: shown,
        unshown: files.iter().filter(|f| !f.shown).count(),
        ..CheckReport::default()
    }
    .bounded(ANSWER_LIMIT);
    let json = serde_json::to_string(&report).expect("a report is JSON");
    assert!(json.len() <= ANSWER_LIMIT, "{} bytes", json.len());
    let texts = [
        Some(report.to_string()),
        report.at_stop(),
        report.informing(),
    ];
    for line in texts.iter().flatten().flat_map(|text| text.lines()) {
        assert!(!docsuggest_schema::text::has_invisible(line), "{line:?}");
    }
}
