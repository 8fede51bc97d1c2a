//! Our entries in a hook config whose events list their handlers directly, without matcher
//! groups: GitHub Copilot CLI's `.github/hooks/*.json` (`{"version": 1, "hooks": {"postToolUse":
//! [{"type": "command", "bash": "..", "timeoutSec": 5}]}}`) and Cursor's `.cursor/hooks.json`
//! (`{"version": 1, "hooks": {"stop": [{"command": ".."}]}}`). Edited as text the way
//! [`super::entries`] edits Claude Code's and Codex's: ours appended after everything else,
//! taken out again with exactly the bytes that were added.

use super::super::Harness;
use super::entries::{Start, TIMEOUT_SECS, is_ours, read, start};
use super::spans::{self, Edits, Kind};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::Value;

/// The events ours are installed for, for the harnesses with this layout.
pub fn events(harness: Harness) -> &'static [&'static str] {
    match harness {
        // camelCase event names: Copilot then sends camelCase fields and no event name, which
        // each handler's command line gives instead (`--event`).
        Harness::Copilot => &[
            "userPromptSubmitted",
            "postToolUse",
            "agentStop",
            "sessionEnd",
        ],
        // Cursor shows no output after an edit; its stop hook's follow-up is the boundary.
        Harness::Cursor => &["afterFileEdit", "stop"],
        Harness::ClaudeCode | Harness::Codex | Harness::OpenCode => &[],
    }
}

/// Whether `harness` keeps its hooks in this layout.
pub fn is_flat(harness: Harness) -> bool {
    !events(harness).is_empty()
}

/// One handler of ours, its keys in the order the harness documents them.
#[derive(Serialize)]
#[serde(untagged)]
enum Handler {
    Copilot {
        #[serde(rename = "type")]
        kind: &'static str,
        bash: String,
        #[serde(rename = "timeoutSec")]
        timeout_sec: u32,
    },
    Cursor {
        command: String,
    },
}

fn handler(harness: Harness, command: &str, event: &str) -> Handler {
    match harness {
        Harness::Copilot => Handler::Copilot {
            kind: "command",
            bash: format!("{command} --event {event}"),
            timeout_sec: TIMEOUT_SECS,
        },
        _ => Handler::Cursor {
            command: command.to_string(),
        },
    }
}

/// Our events, each with its one handler, in [`events`] order.
struct Events<'a> {
    events: Vec<&'static str>,
    harness: Harness,
    command: &'a str,
}

impl Serialize for Events<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.events.len()))?;
        for event in &self.events {
            map.serialize_entry(event, &[handler(self.harness, self.command, event)])?;
        }
        map.end()
    }
}

/// The config `install-hooks` writes where there was none.
pub fn fresh(harness: Harness, command: &str) -> String {
    #[derive(Serialize)]
    struct Root<'a> {
        version: u32,
        hooks: Events<'a>,
    }
    let layout = spans::Layout {
        pretty: true,
        newline: "\n",
        indent: String::new(),
        unit: "  ".into(),
    };
    let root = Root {
        version: 1,
        hooks: Events {
            events: events(harness).to_vec(),
            harness,
            command,
        },
    };
    let mut text = layout.render(None, &root);
    text.push('\n');
    text
}

/// `text` (`None`: no file) with ours installed for `harness`: any of ours taken out first,
/// then one handler per event appended, the `hooks` object and event arrays created where
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
    let all = || Events {
        events: events(harness).to_vec(),
        harness,
        command,
    };
    let Some(hooks) = root.member("hooks") else {
        let render = |layout: &spans::Layout| vec![layout.render(Some("hooks"), &all())];
        spans::append(&base, &root, &root, render, &mut edits);
        return Ok(edits.apply(&base));
    };
    let hooks = &hooks.value;
    if !matches!(hooks.kind, Kind::Object(_)) {
        return Err("\"hooks\" is not an object".into());
    }
    let mut missing = Vec::new();
    for event in events(harness) {
        let Some(handlers) = hooks.member(event) else {
            missing.push(*event);
            continue;
        };
        if !matches!(handlers.value.kind, Kind::Array(_)) {
            return Err(format!("hooks.{event} is not an array"));
        }
        let render =
            |layout: &spans::Layout| vec![layout.render(None, &handler(harness, command, event))];
        spans::append(&base, &root, &handlers.value, render, &mut edits);
    }
    if !missing.is_empty() {
        let render = |layout: &spans::Layout| {
            missing
                .iter()
                .map(|event| layout.render(Some(event), &[handler(harness, command, event)]))
                .collect()
        };
        spans::append(&base, &root, hooks, render, &mut edits);
    }
    Ok(edits.apply(&base))
}

/// The command line of a handler, under either harness's key.
fn command_of(handler: &Value) -> Option<&str> {
    handler
        .get("bash")
        .or_else(|| handler.get("command"))
        .and_then(Value::as_str)
}

/// Whether `text` holds our handlers exactly as [`installed`] puts them, each event's last,
/// and no other handler of ours.
fn holds_exactly_ours(text: &str, harness: Harness, command: &str) -> bool {
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return false;
    };
    let Some(hooks) = value.get("hooks").and_then(Value::as_object) else {
        return false;
    };
    let in_place = events(harness).iter().all(|event| {
        let Ok(expected) = serde_json::to_value(handler(harness, command, event)) else {
            return false;
        };
        hooks
            .get(*event)
            .and_then(Value::as_array)
            .and_then(|handlers| handlers.last())
            .is_some_and(|last| *last == expected)
    });
    let anywhere = hooks
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter(|h| command_of(h).is_some_and(is_ours))
        .count();
    in_place && anywhere == events(harness).len()
}

/// `text` without our handlers (`None`: nothing is left of the file, remove it). An event
/// left without handlers goes, and `hooks` left empty goes, when taking ours out emptied
/// them; a file that holds exactly what [`fresh`] wrote, for any command, is removed.
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
        let Kind::Array(handlers) = &event.value.kind else {
            events_doomed.push(false);
            continue;
        };
        let ours: Vec<bool> = handlers
            .iter()
            .map(|h| {
                let handler = serde_json::from_str::<Value>(&text[h.start..h.end]).ok();
                let command = handler.as_ref().and_then(command_of).filter(|c| is_ours(c));
                if let Some(command) = command {
                    ours_command.get_or_insert_with(|| base_command(command));
                }
                command.is_some()
            })
            .collect();
        let all = !ours.is_empty() && ours.iter().all(|o| *o);
        if !all {
            spans::remove(text, &event.value, &ours, &mut edits);
        }
        events_doomed.push(all);
    }
    let Some(command) = ours_command else {
        return Ok(Some(text.to_string()));
    };
    if events_doomed.iter().all(|d| *d) {
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
    let machine_written = [Harness::Copilot, Harness::Cursor]
        .into_iter()
        .any(|h| text == fresh(h, &command));
    if machine_written {
        return Ok(None);
    }
    Ok(Some(edits.apply(text)))
}

/// A handler's command without the `--event` Copilot's handlers end with.
fn base_command(command: &str) -> String {
    match command.rfind(" --event ") {
        Some(at) => command[..at].to_string(),
        None => command.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const CMD: &str = "docsuggest-hook --harness copilot";

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
    fn a_fresh_copilot_file_names_each_event_on_its_command_line() {
        let fresh = round_trip(None, Harness::Copilot);
        let value: Value = serde_json::from_str(&fresh).expect("JSON");
        assert_eq!(value["version"], 1);
        assert_eq!(
            value["hooks"]["postToolUse"],
            json!([{"type": "command", "bash": format!("{CMD} --event postToolUse"), "timeoutSec": 5}])
        );
        assert_eq!(
            value["hooks"]["agentStop"][0]["bash"],
            format!("{CMD} --event agentStop")
        );
        assert!(
            fresh.starts_with("{\n  \"version\": 1,\n  \"hooks\": {\n"),
            "{fresh}"
        );
    }

    #[test]
    fn cursor_hooks_go_in_beside_the_users_own_and_come_out_byte_for_byte() {
        for text in [
            "{\"version\": 1, \"hooks\": {\"afterFileEdit\": [{\"command\": \"./format.sh\"}]}}",
            "{\n\t\"version\": 1,\n\t\"hooks\": {\n\t\t\"beforeShellExecution\": [\n\t\t\t{ \"command\": \"audit\" }\n\t\t]\n\t}\n}\n",
            "{\"version\": 1}",
            "{}",
        ] {
            let once = round_trip(Some(text), Harness::Cursor);
            let value: Value = serde_json::from_str(&once).expect("JSON");
            for event in events(Harness::Cursor) {
                let last = value["hooks"][event]
                    .as_array()
                    .and_then(|h| h.last())
                    .expect("a handler");
                assert_eq!(last, &json!({"command": CMD}), "{once}");
            }
        }
        let fresh = round_trip(None, Harness::Cursor);
        assert_eq!(
            serde_json::from_str::<Value>(&fresh).expect("JSON"),
            json!({"version": 1, "hooks": {"afterFileEdit": [{"command": CMD}], "stop": [{"command": CMD}]}})
        );
    }

    #[test]
    fn only_ours_are_taken_out_and_bad_shapes_are_refused() {
        let text = json!({"version": 1, "hooks": {
            "stop": [{"command": "say done"}, {"command": "/opt/docsuggest hook --harness cursor"}],
            "afterFileEdit": [{"command": "docsuggest-hook --harness cursor"}]
        }})
        .to_string();
        let left = uninstalled(&text)
            .expect("uninstalls")
            .expect("a file is left");
        assert_eq!(
            serde_json::from_str::<Value>(&left).expect("JSON"),
            json!({"version": 1, "hooks": {"stop": [{"command": "say done"}]}})
        );
        for (text, why) in [
            ("[]", "the top level is not an object"),
            ("{\"hooks\": []}", "\"hooks\" is not an object"),
            ("{\"hooks\": {\"stop\": {}}}", "hooks.stop is not an array"),
        ] {
            assert_eq!(
                installed(Some(text), Harness::Cursor, CMD),
                Err(why.to_string())
            );
        }
    }
}
