//! Our entries in a hook config's text: added after everything else, taken out again with
//! exactly the bytes that were added, every other byte of the file left as it was.

use super::super::Harness;
use super::spans::{self, Edits, Kind, Node};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;
use std::path::Path;

/// The seconds a harness gives one of our hooks before it stops waiting.
pub const TIMEOUT_SECS: u32 = 5;

/// The events ours are installed for, with their matcher.
pub fn events(harness: Harness) -> &'static [(&'static str, Option<&'static str>)] {
    match harness {
        Harness::ClaudeCode => &[
            (
                "PostToolUse",
                Some("Read|Write|Edit|MultiEdit|NotebookEdit|Grep|Glob"),
            ),
            ("UserPromptSubmit", None),
            // The change boundary: before a `git commit`, and when the agent stops.
            ("PreToolUse", Some("Bash")),
            ("Stop", None),
            ("SessionEnd", None),
        ],
        // Codex has no SessionEnd; its Stop ends each turn (and is the change boundary).
        Harness::Codex => &[
            (
                "PostToolUse",
                Some("apply_patch|Read|Write|Edit|Grep|Glob|read_file|grep_files"),
            ),
            ("UserPromptSubmit", None),
            ("Stop", None),
        ],
        // Their configs have another layout (`super::flat`, `super::opencode`).
        Harness::Copilot | Harness::Cursor | Harness::OpenCode => &[],
    }
}

/// One matcher group of ours, its keys in the order the harnesses document them.
#[derive(Serialize)]
struct Group<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    matcher: Option<&'a str>,
    hooks: [Handler<'a>; 1],
}

#[derive(Serialize)]
struct Handler<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    command: &'a str,
    timeout: u32,
}

fn group<'a>(matcher: Option<&'a str>, command: &'a str) -> [Group<'a>; 1] {
    [Group {
        matcher,
        hooks: [Handler {
            kind: "command",
            command,
            timeout: TIMEOUT_SECS,
        }],
    }]
}

/// Our events, each with its one group, in [`events`] order.
struct Events<'a> {
    events: Vec<&'a (&'static str, Option<&'static str>)>,
    command: &'a str,
}

impl Serialize for Events<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.events.len()))?;
        for (event, matcher) in &self.events {
            map.serialize_entry(event, &group(*matcher, self.command))?;
        }
        map.end()
    }
}

/// Our entries for `harness` as the `hooks` object of a config: what a plugin's hooks file
/// holds, and what `install-hooks` adds.
pub fn hooks_value(harness: Harness, command: &str) -> Value {
    let events = Events {
        events: events(harness).iter().collect(),
        command,
    };
    serde_json::to_value(&events).unwrap_or_default()
}

/// The config `install-hooks` writes where there was none.
pub fn fresh(harness: Harness, command: &str) -> String {
    #[derive(Serialize)]
    struct Root<'a> {
        hooks: Events<'a>,
    }
    let layout = spans::Layout {
        pretty: true,
        newline: "\n",
        indent: String::new(),
        unit: "  ".into(),
    };
    let root = Root {
        hooks: Events {
            events: events(harness).iter().collect(),
            command,
        },
    };
    let mut text = layout.render(None, &root);
    text.push('\n');
    text
}

/// `text` (`None`: no file) with ours installed for `harness`: any of ours taken out first,
/// then one group per event appended, the `hooks` object and event arrays created where
/// missing.
pub fn installed(text: Option<&str>, harness: Harness, command: &str) -> Result<String, String> {
    let base = match start(
        text,
        |t| holds_exactly_ours(t, harness, command),
        uninstalled,
    )? {
        Start::Done(text) => return Ok(text),
        Start::Fresh => return Ok(fresh(harness, command)),
        Start::Base(base) => base,
    };
    let root = read(&base)?;
    let mut edits = Edits::default();
    match root.member("hooks") {
        None => spans::append(
            &base,
            &root,
            &root,
            |layout| {
                let events = Events {
                    events: events(harness).iter().collect(),
                    command,
                };
                vec![layout.render(Some("hooks"), &events)]
            },
            &mut edits,
        ),
        Some(hooks) => {
            let hooks = &hooks.value;
            if !matches!(hooks.kind, Kind::Object(_)) {
                return Err("\"hooks\" is not an object".into());
            }
            let mut missing = Vec::new();
            for entry @ (event, matcher) in events(harness) {
                let Some(groups) = hooks.member(event) else {
                    missing.push(entry);
                    continue;
                };
                if !matches!(groups.value.kind, Kind::Array(_)) {
                    return Err(format!("hooks.{event} is not an array"));
                }
                spans::append(
                    &base,
                    &root,
                    &groups.value,
                    |layout| vec![layout.render(None, &group(*matcher, command)[0])],
                    &mut edits,
                );
            }
            if !missing.is_empty() {
                spans::append(
                    &base,
                    &root,
                    hooks,
                    |layout| {
                        missing
                            .iter()
                            .map(|(event, matcher)| {
                                layout.render(Some(*event), &group(*matcher, command))
                            })
                            .collect()
                    },
                    &mut edits,
                );
            }
        }
    }
    Ok(edits.apply(&base))
}

/// Where an install starts from.
pub(super) enum Start {
    /// The text already holds exactly ours: its bytes stay (taking ours out and putting them
    /// back would drop an event array that was empty before ours went in, and lay it out anew).
    Done(String),
    /// Nothing is left once ours are out: a fresh file.
    Fresh,
    /// The text with ours taken out, to append ours to.
    Base(String),
}

/// Where installing into `text` (`None`: no file) starts, given how the layout tells that a
/// text holds exactly ours and how it takes ours out.
pub(super) fn start(
    text: Option<&str>,
    exactly_ours: impl Fn(&str) -> bool,
    uninstalled: impl Fn(&str) -> Result<Option<String>, String>,
) -> Result<Start, String> {
    let Some(text) = text.filter(|t| !t.trim().is_empty()) else {
        return Ok(Start::Fresh);
    };
    if exactly_ours(text) {
        return Ok(Start::Done(text.to_string()));
    }
    Ok(uninstalled(text)?.map_or(Start::Fresh, Start::Base))
}

/// Whether `text` holds our handlers exactly as [`installed`] puts them for `harness` and
/// `command` — each of its events' groups ending with ours — and no other handler of ours.
fn holds_exactly_ours(text: &str, harness: Harness, command: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let Some(hooks) = value.get("hooks").and_then(Value::as_object) else {
        return false;
    };
    let ours_in_place = events(harness).iter().all(|(event, matcher)| {
        let Ok(expected) = serde_json::to_value(&group(*matcher, command)[0]) else {
            return false;
        };
        hooks
            .get(*event)
            .and_then(Value::as_array)
            .and_then(|groups| groups.last())
            .is_some_and(|last| *last == expected)
    });
    let ours_anywhere = hooks
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|h| {
            h.get("command")
                .and_then(Value::as_str)
                .is_some_and(is_ours)
        })
        .count();
    ours_in_place && ours_anywhere == events(harness).len()
}

/// `text` without our handlers (`None`: nothing is left of the file, remove it). A group left
/// without handlers goes, an event left without groups goes, and `hooks` left empty goes, when
/// taking ours out emptied them. A file that holds exactly what [`fresh`] (or an earlier
/// version's installer, pretty-printed) wrote and nothing else is removed.
///
/// So after [`installed`] this gives back the bytes there were, with two exceptions, both of
/// containers that held nothing: an event array (or `hooks` object) that was there but empty
/// before ours went in is indistinguishable from one that installing created, and goes with
/// ours; and an empty container whose brackets held just a line break and the closing
/// bracket's indentation (`{⏎}`) is indistinguishable from `{}`, in which installing puts that
/// same line break, and comes back as `{}`; a file that held only such an empty object, laid
/// out as [`fresh`] lays one out, is removed, as a file [`fresh`] wrote is (the harness reads
/// no file as it reads `{}`). Both were found by the `settings_file` fuzz target.
pub fn uninstalled(text: &str) -> Result<Option<String>, String> {
    let root = read(text)?;
    let Some(hooks) = root.member("hooks") else {
        return Ok(Some(text.to_string()));
    };
    let hooks = &hooks.value;
    let Kind::Object(events) = &hooks.kind else {
        return Err("\"hooks\" is not an object".into());
    };
    let mut edits = Edits::default();
    let mut ours_command = None;
    let mut events_doomed = Vec::with_capacity(events.len());
    for event in events {
        let Kind::Array(groups) = &event.value.kind else {
            events_doomed.push(false);
            continue;
        };
        let mut groups_doomed = Vec::with_capacity(groups.len());
        for group in groups {
            let handlers = group.member("hooks").map(|m| &m.value);
            let Some(
                handlers @ Node {
                    kind: Kind::Array(items),
                    ..
                },
            ) = handlers
            else {
                groups_doomed.push(false);
                continue;
            };
            let ours: Vec<bool> = items
                .iter()
                .map(|h| match command_of_ours(&text[h.start..h.end]) {
                    Some(command) => {
                        ours_command.get_or_insert(command);
                        true
                    }
                    None => false,
                })
                .collect();
            let all = !ours.is_empty() && ours.iter().all(|o| *o);
            if !all {
                spans::remove(text, handlers, &ours, &mut edits);
            }
            groups_doomed.push(all);
        }
        let all = !groups_doomed.is_empty() && groups_doomed.iter().all(|d| *d);
        if !all {
            spans::remove(text, &event.value, &groups_doomed, &mut edits);
        }
        events_doomed.push(all);
    }
    let Some(command) = ours_command else {
        return Ok(Some(text.to_string()));
    };
    if !events_doomed.is_empty() && events_doomed.iter().all(|d| *d) {
        let doomed: Vec<bool> = match &root.kind {
            Kind::Object(members) => members
                .iter()
                .map(|m| m.key == "hooks" && std::ptr::eq(&m.value, hooks))
                .collect(),
            _ => Vec::new(),
        };
        spans::remove(text, &root, &doomed, &mut edits);
    } else {
        spans::remove(text, hooks, &events_doomed, &mut edits);
    }
    debug_assert!(!edits.is_empty());
    let left = edits.apply(text);
    let only_ours = serde_json::from_str::<Value>(&left)
        .is_ok_and(|v| v.as_object().is_some_and(|o| o.is_empty()));
    let machine_written = [Harness::ClaudeCode, Harness::Codex]
        .into_iter()
        .any(|h| text == fresh(h, &command))
        || serde_json::from_str::<Value>(text).is_ok_and(|v| text == pretty(&v));
    if only_ours && machine_written {
        return Ok(None);
    }
    Ok(Some(left))
}

/// The command of a handler that runs `docsuggest hook`.
fn command_of_ours(handler: &str) -> Option<String> {
    let handler: Value = serde_json::from_str(handler).ok()?;
    let command = handler.get("command")?.as_str()?;
    is_ours(command).then(|| command.to_string())
}

/// Whether a command line runs a `docsuggest` executable with the `hook` subcommand, or the
/// lean entry point `docsuggest-hook`.
pub fn is_ours(command: &str) -> bool {
    let words = shell_words(command);
    let program = words.first().and_then(|w| Path::new(w).file_name());
    match program {
        Some(name) if name == "docsuggest" => words.get(1).map(String::as_str) == Some("hook"),
        Some(name) => name == super::LEAN_HOOK,
        None => false,
    }
}

/// The root object of a config text, with its spans.
pub(super) fn read(text: &str) -> Result<Node, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    if !value.is_object() {
        return Err("the top level is not an object".into());
    }
    spans::parse(text)
}

/// How earlier versions wrote the whole file.
fn pretty(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| value.to_string());
    text.push('\n');
    text
}

/// Splits a command line into words, honouring single and double quotes and backslashes
/// closely enough to recognise our own commands.
pub fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                word.extend(chars.by_ref().take_while(|&c| c != '\''));
            }
            '"' => {
                in_word = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => word.extend(chars.next()),
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                word.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CMD: &str = "docsuggest hook --harness claude-code";

    /// Installs into `text`, checks the install is idempotent and that uninstalling gives
    /// `text` back byte for byte; answers the installed text.
    fn round_trip(text: Option<&str>, harness: Harness) -> String {
        let once = installed(text, harness, CMD).expect("installs");
        assert_eq!(
            installed(Some(&once), harness, CMD).expect("installs"),
            once,
            "a second install changes nothing"
        );
        let back = uninstalled(&once).expect("uninstalls");
        assert_eq!(back.as_deref(), text, "uninstall gives the bytes back");
        once
    }

    #[test]
    fn installs_round_trip_byte_for_byte() {
        for text in [
            "{\"zeta\":1,\"alpha\":{\"b\":2,\"a\":1}}",
            "{}",
            "{}\n",
            "{ }\n",
            "{\r\n    \"permissions\": { \"allow\": [\"Bash(ls:*)\"] },\r\n    \"hooks\": {\r\n        \"Notification\": [ ]\r\n    }\r\n}\r\n",
            "{\n\t\"model\": \"opus\",\n\t\"hooks\": {\n\t\t\"PostToolUse\": [{\"matcher\": \"Write\", \"hooks\": [{\"type\": \"command\", \"command\": \"prettier --write\"}]}],\n\t\t\"Stop\": [\n\t\t\t{\"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]}\n\t\t]\n\t}\n}",
            "  {\"hooks\" : {\"UserPromptSubmit\" : [ {\"hooks\" : [ ] } ] } , \"z\" : null }  ",
        ] {
            for harness in [Harness::ClaudeCode, Harness::Codex] {
                let once = round_trip(Some(text), harness);
                let value: Value = serde_json::from_str(&once).expect("JSON");
                for (event, _) in events(harness) {
                    let groups = value["hooks"][event].as_array().expect("an event array");
                    let last = groups.last().expect("a group");
                    assert_eq!(last["hooks"][0]["command"], CMD, "{once}");
                }
            }
        }
        let fresh = round_trip(None, Harness::ClaudeCode);
        assert!(
            fresh.starts_with(
                "{\n  \"hooks\": {\n    \"PostToolUse\": [\n      {\n        \"matcher\": \"Read|"
            ),
            "{fresh}"
        );
    }

    #[test]
    fn installing_again_over_an_event_that_was_empty_changes_nothing() {
        // Found in use: a settings file holding `"PreToolUse": []` before ours went in.
        let text = "{\n  \"hooks\": {\n    \"PreToolUse\": []\n  }\n}\n";
        let once = installed(Some(text), Harness::ClaudeCode, CMD).expect("installs");
        let twice = installed(Some(&once), Harness::ClaudeCode, CMD).expect("installs");
        assert_eq!(twice, once);
        // A different command is installed anew, in place of ours.
        let other =
            installed(Some(&once), Harness::ClaudeCode, "/opt/docsuggest hook").expect("installs");
        assert_ne!(other, once);
        assert!(!other.contains(CMD), "{other}");
    }

    #[test]
    fn pretty_files_get_pretty_entries_in_their_own_indentation() {
        let text = "{\n    \"model\": \"opus\"\n}\n";
        let once = installed(Some(text), Harness::Codex, CMD).expect("installs");
        assert!(
            once.starts_with("{\n    \"model\": \"opus\",\n    \"hooks\": {\n        \"PostToolUse\": [\n            {\n                \"matcher\": \"apply_patch|"),
            "{once}"
        );
        assert!(once.contains("\"type\": \"command\",\n                        \"command\": \"docsuggest hook --harness claude-code\",\n                        \"timeout\": 5\n"), "{once}");
    }

    #[test]
    fn uninstall_takes_out_only_ours_wherever_they_are() {
        let text = json!({
            "hooks": {
                "PostToolUse": [
                    {"matcher": "Write", "hooks": [
                        {"type": "command", "command": "prettier --write"},
                        {"type": "command", "command": "/opt/bin/docsuggest hook --harness claude-code"}
                    ]},
                    {"hooks": [{"type": "command", "command": "'/a b/docsuggest' hook"}]}
                ],
                "Stop": [{"hooks": [{"type": "command", "command": "docsuggest hook"}]}]
            },
            "model": "opus"
        })
        .to_string();
        let left = uninstalled(&text)
            .expect("uninstalls")
            .expect("a file is left");
        assert_eq!(
            serde_json::from_str::<Value>(&left).expect("JSON"),
            json!({
                "hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "prettier --write"}]}]},
                "model": "opus"
            })
        );
        // Hooks a person left empty are theirs to keep; a file without ours is unchanged.
        for text in [
            "{\"hooks\": {}}",
            "{\"hooks\": {\"Stop\": []}}",
            "{\"a\": 1}",
        ] {
            assert_eq!(
                uninstalled(text).expect("uninstalls").as_deref(),
                Some(text)
            );
        }
        // A file an earlier version wrote, holding only ours, goes.
        let old = pretty(
            &json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/x/docsuggest hook --harness codex", "timeout": 5}]}]}}),
        );
        assert_eq!(uninstalled(&old).expect("uninstalls"), None);
    }

    #[test]
    fn files_it_cannot_edit_are_refused() {
        for (text, why) in [
            ("[]", "the top level is not an object"),
            ("{\"hooks\": []}", "\"hooks\" is not an object"),
            (
                "{\"hooks\": {\"PostToolUse\": {}}}",
                "hooks.PostToolUse is not an array",
            ),
        ] {
            assert_eq!(
                installed(Some(text), Harness::ClaudeCode, CMD),
                Err(why.to_string())
            );
        }
        assert!(installed(Some("{\"a\": "), Harness::ClaudeCode, CMD).is_err());
    }

    #[test]
    fn ours_is_recognised_by_program_and_subcommand() {
        for (command, expect) in [
            ("docsuggest hook", true),
            (
                "'/home/a b/.cargo/bin/docsuggest' hook --harness codex",
                true,
            ),
            ("\"/opt/docsuggest\" hook", true),
            ("docsuggest-hook --harness codex", true),
            (
                "'/home/a b/.local/bin/docsuggest-hook' --harness claude-code",
                true,
            ),
            ("docsuggest-hooks --harness codex", false),
            ("docsuggest-hook/x --harness codex", false),
            ("docsuggest serve", false),
            ("my-docsuggest hook", false),
            ("echo docsuggest hook", false),
        ] {
            assert_eq!(is_ours(command), expect, "{command}");
        }
    }
}
