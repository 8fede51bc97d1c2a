//! The dispatcher against a memory engine: every error code, id echo, and that a bad request
//! changes nothing and the next good one still works.

use super::*;
use crate::host::{self, StoreChoice};
use crate::ledger_log::LedgerLog;
use docsuggest_engine::Engine;
use docsuggest_engine::probe_cache::CachingProbe;
use docsuggest_engine::testing::NullStore;
use docsuggest_schema::Config;
use serde_json::Value;

struct Fixture {
    dir: tempfile::TempDir,
    server: Dispatcher,
}

const FILES: &[&str] = &[
    "Documentation/ARCHIVE-STYLE.md",
    "Documentation/INDEX.md",
    "Documentation/Plans/X.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
];

/// The step rule, whose accepts move rates at once, so a session can read them back.
fn quiet() -> Config {
    Config {
        log: false,
        rate_model: docsuggest_schema::RateModel::Step,
        ..Config::default()
    }
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().expect("tempdir");
    for f in FILES {
        let path = dir.path().join(f);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, "").expect("write");
    }
    let host = host::start(quiet(), &StoreChoice::Memory, false);
    Fixture {
        dir,
        server: Dispatcher::for_host(host),
    }
}

impl Fixture {
    fn ws(&self) -> String {
        self.dir.path().display().to_string()
    }

    fn send(&mut self, line: &str) -> Value {
        self.send_bytes(line.as_bytes())
    }

    fn send_bytes(&mut self, line: &[u8]) -> Value {
        let handled = self.server.handle_line(&Line::Bytes(line.to_vec()));
        serde_json::from_str(&handled.answer).expect("every answer is JSON")
    }

    fn judge(&mut self, id: u64, path: &str) -> Value {
        let line = serde_json::json!({
            "id": id, "op": "judge", "agent": "a", "tool": "read", "path": path, "cwd": self.ws(),
        });
        self.send(&line.to_string())
    }
}

fn code(answer: &Value) -> &str {
    answer["error"]["code"].as_str().unwrap_or("(no error)")
}

#[test]
fn a_plan_read_answers_the_pinned_note() {
    let mut f = fixture();
    let answer = f.judge(1, "Documentation/Plans/X.md");
    assert_eq!(
        answer["note"],
        serde_json::json!({
            "family": "Plan",
            "text": "[doc-suggester] Plan task (kappa 0.91): companions this task conventionally needs:\n\
                     - Documentation/INDEX.md\n- Documentation/ARCHIVE-STYLE.md\n- POC-BRIEF.md\n- CHANGELOG.md",
            "summary": "Plan: Documentation/INDEX.md, Documentation/ARCHIVE-STYLE.md, POC-BRIEF.md, CHANGELOG.md",
            "companions": ["Documentation/INDEX.md", "Documentation/ARCHIVE-STYLE.md", "POC-BRIEF.md", "CHANGELOG.md"],
            "confidence": answer["note"]["confidence"],
        })
    );
    // The number the header shows, unrounded.
    let confidence = answer["note"]["confidence"].as_f64().expect("a number");
    assert!((confidence - 0.91).abs() < 0.005, "{confidence}");
    assert_eq!(
        answer["ledger"][0],
        "doc-suggester: suggest Plan 0.91 companions Documentation/INDEX.md,Documentation/ARCHIVE-STYLE.md,POC-BRIEF.md,CHANGELOG.md"
    );
    assert_eq!(answer.get("warnings"), None);
}

/// Each bad line, its expected code, and the id its answer must echo.
const BATTERY: &[(&[u8], &str, Value)] = &[
    (b"{\"id\":1,", "invalid-json", Value::Null),
    (b"\"just a string\"", "not-an-object", Value::Null),
    (
        b"{\"id\":\"s\",\"op\":\"judge\",\"path\":\"\xff\"}",
        "invalid-utf8",
        Value::Null,
    ),
    (br#"{"id":[3],"op":"stats"}"#, "wrong-type", Value::Null),
    (br#"{"id":4}"#, "missing-field", Value::Null),
    (br#"{"id":5,"op":"dance"}"#, "unknown-op", Value::Null),
    (
        br#"{"id":6,"op":"judge","agent":"a","tool":"read"}"#,
        "missing-field",
        Value::Null,
    ),
    (
        br#"{"id":7,"op":"judge","agent":"a","tool":"read","path":7}"#,
        "wrong-type",
        Value::Null,
    ),
    (
        br#"{"id":8,"op":"judge","agent":"a","tool":"read","path":"X.md"}"#,
        "relative-path-without-cwd",
        Value::Null,
    ),
    (
        br#"{"id":9,"op":"judge","agent":"a","tool":"read","path":"X.md","cwd":"rel"}"#,
        "relative-cwd",
        Value::Null,
    ),
    (
        br#"{"id":10,"op":"judge","agent":"a","tool":"read","path":"/w/a\u0000b.md"}"#,
        "nul-byte",
        Value::Null,
    ),
    (
        br#"{"id":11,"op":"judge","agent":"","tool":"read","path":"/w/x.md"}"#,
        "empty-field",
        Value::Null,
    ),
    (
        br#"{"id":12,"op":"judge","agent":"a","tool":"read","path":"/../../x"}"#,
        "path-above-root",
        Value::Null,
    ),
    (
        br#"{"id":13,"op":"turn","agent":"a\u0000"}"#,
        "nul-byte",
        Value::Null,
    ),
    (
        br#"{"id":14,"op":"configure","config":{"threshold":2,"learnWindow":0,"bogus":true}}"#,
        "invalid-config",
        Value::Null,
    ),
    (
        br#"{"id":15,"op":"rates","workspace":"/"}"#,
        "unknown-workspace",
        Value::Null,
    ),
    (
        br#"{"id":16,"op":"rates","workspace":"/","key":"k"}"#,
        "conflicting-fields",
        Value::Null,
    ),
];

/// The id each battery line's answer echoes (numbers and strings only).
fn expected_id(line: &[u8], listed: &Value) -> Value {
    let text = String::from_utf8_lossy(line);
    match serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("id").cloned())
    {
        Some(id @ (Value::Number(_) | Value::String(_))) => id,
        _ => listed.clone(),
    }
}

#[test]
fn every_bad_line_gets_its_code_and_changes_nothing() {
    let mut f = fixture();
    f.judge(1, "Documentation/Plans/X.md");
    let accepted = f.judge(2, "Documentation/INDEX.md");
    assert_eq!(
        accepted["ledger"][0],
        "doc-suggester: accepted Plan Documentation/INDEX.md"
    );
    let rates = format!(r#"{{"id":3,"op":"rates","workspace":{:?}}}"#, f.ws());
    let before = f.send(&rates);
    for (line, expected_code, listed) in BATTERY {
        let answer = f.send_bytes(line);
        let shown = String::from_utf8_lossy(line);
        assert_eq!(answer["ok"], false, "{shown}");
        assert_eq!(code(&answer), *expected_code, "{shown}: {answer}");
        assert_eq!(answer["id"], expected_id(line, listed), "{shown}");
        assert!(!answer["error"]["detail"].as_str().unwrap_or("").is_empty());
    }
    let too_long = f.server.handle_line(&Line::TooLong {
        len: MAX_LINE_BYTES + 1,
    });
    assert_eq!(too_long.error, Some("line-too-long"));
    assert_eq!(
        f.send(&rates),
        before,
        "bad lines must not change the rates"
    );
    assert_eq!(before["rows"][1]["companion"], "Documentation/INDEX.md");
    assert_eq!(before["rows"][1]["accepts"], 1);
    let again = f.judge(4, "Documentation/Plans/X.md");
    assert_eq!(again["ok"], true, "{again}");
}

#[test]
fn invalid_utf8_still_echoes_a_readable_id() {
    let mut f = fixture();
    let answer = f.send_bytes(b"{\"id\":42,\"op\":\"judge\",\"path\":\"\xc3\x28\"}");
    assert_eq!(code(&answer), "invalid-utf8");
    assert_eq!(answer["id"], 42);
}

#[test]
fn invalid_config_lists_every_problem_and_keeps_the_old_config() {
    let mut f = fixture();
    let answer = f.send(
        r#"{"id":"c","op":"configure","config":{"threshold":2,"learnWindow":0,"bogus":true}}"#,
    );
    assert_eq!(answer["id"], "c");
    assert_eq!(
        answer["error"]["detail"],
        "invalid config in configure (3 problems): bogus: unknown field; \
         learnWindow: 0 is outside 1..=1048576; threshold: 2 is outside 0..1"
    );
    assert_eq!(f.server.engine().config().threshold, 0.75);
    let ok = f.send(r#"{"id":"d","op":"configure","config":{"threshold":0.5}}"#);
    assert_eq!(
        ok,
        serde_json::json!({"id": "d", "ok": true, "ledger": [
            "doc-suggester: activated (bundle 0.1.0, families 7, threshold 0.50)"
        ]})
    );
    let moved = f.send(r#"{"id":"e","op":"configure","config":{"storePath":"/elsewhere.redb"}}"#);
    assert_eq!(
        moved["warnings"][0],
        "storePath takes effect at the next start; this engine keeps its open store"
    );
}

#[test]
fn flush_stats_and_close() {
    let mut f = fixture();
    f.judge(1, "Documentation/Plans/X.md");
    assert_eq!(
        f.send(r#"{"id":2,"op":"flush"}"#),
        serde_json::json!({"id": 2, "ok": true, "durable": 0})
    );
    let stats = f.send(r#"{"id":3,"op":"stats"}"#);
    assert_eq!(stats["stats"]["judged"], 1);
    assert_eq!(stats["stats"]["notes"], 1);
    assert_eq!(stats["store"], "memory");
    assert_eq!(
        stats["startup"][0],
        "doc-suggester: activated (bundle 0.1.0, families 7, threshold 0.75)"
    );
    let close = f
        .server
        .handle_line(&Line::Bytes(br#"{"id":4,"op":"close"}"#.to_vec()));
    assert!(close.stop);
    assert_eq!(close.answer, r#"{"id":4,"ok":true,"durable":0}"#);
    let after = f.send(r#"{"id":5,"op":"stats"}"#);
    assert_eq!(code(&after), "closed");
    assert_eq!(
        f.server.engine().stats().abandoned,
        1,
        "close abandons the open window"
    );
}

#[test]
fn rates_by_key_and_a_store_without_contents() {
    let mut f = fixture();
    f.judge(1, "Documentation/Plans/X.md");
    f.judge(2, "Documentation/INDEX.md");
    let by_dir = f.send(&format!(
        r#"{{"id":3,"op":"rates","workspace":"Documentation","cwd":{:?}}}"#,
        f.ws()
    ));
    let key = by_dir["key"].as_str().expect("a key").to_string();
    assert!(
        key.starts_with(
            &f.dir
                .path()
                .file_name()
                .expect("name")
                .to_string_lossy()
                .to_string()
        )
    );
    assert_eq!(by_dir["rateModel"], "step");
    let by_key = f.send(&format!(r#"{{"id":3,"op":"rates","key":{key:?}}}"#));
    assert_eq!(by_key, by_dir);
    assert_eq!(
        by_key["rows"][0],
        serde_json::json!({"family": "Plan", "companion": null, "rate": 1.0 / 3.0 + 0.1,
            "step": 1.0 / 3.0 + 0.1, "accepts": 1, "rejects": 0, "shadowHits": 0,
            "shadowMisses": 0, "recentHits": 1.0, "recentMisses": 0.0, "leftOut": false})
    );
    let engine = Engine::new(quiet(), NullStore::boxed(), CachingProbe::default());
    let mut bare = Dispatcher::new(engine, LedgerLog::new());
    let answer = bare.handle_line(&Line::Bytes(br#"{"id":1,"op":"rates","key":"k"}"#.to_vec()));
    assert_eq!(answer.error, Some("store-failed"));
}

#[test]
fn default_cwd_resolves_relative_paths() {
    let f = fixture();
    let ws = f.ws();
    let mut server = f.server.with_default_cwd(Some(ws));
    let handled = server.handle_line(&Line::Bytes(
        br#"{"id":1,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md"}"#
            .to_vec(),
    ));
    assert_eq!(handled.error, None, "{}", handled.answer);
    assert!(handled.judge_time.is_some());
    assert_eq!(handled.ledger.len(), 2);
}

#[test]
fn serve_answers_in_order_and_skips_blank_lines() {
    let f = fixture();
    let mut server = f.server;
    let input = b"{\"id\":1,\"op\":\"stats\"}\n\n  \n{\"id\":2,\"op\":\"nope\"}\n{\"id\":3,\"op\":\"close\"}\n{\"id\":4,\"op\":\"stats\"}\n";
    let mut out = Vec::new();
    let answered = serve(&mut server, &input[..], &mut out).expect("serves");
    assert_eq!(answered, 3);
    let text = String::from_utf8(out).expect("utf-8 answers");
    let ids: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("json")["id"].to_string())
        .collect();
    assert_eq!(ids, ["1", "2", "3"]);
    assert!(server.is_closed());
}

#[test]
fn a_malformed_repo_pack_answers_warnings_and_the_builtin_pack() {
    let mut f = fixture();
    let pack = f.dir.path().join(".dsh/doc-pack.json");
    std::fs::create_dir_all(pack.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&pack, "{not json").expect("write");
    let answer = f.judge(1, "Documentation/Plans/X.md");
    assert_eq!(
        answer["note"]["family"], "Plan",
        "the built-in pack still answers"
    );
    let warning = answer["warnings"][0].as_str().expect("a warning");
    assert!(
        warning.starts_with(&format!("invalid pack {}: not valid JSON", pack.display())),
        "{warning}"
    );
}

/// A pack file that cannot be used at a git work tree's root the built-in pack does not
/// find: the call is foreign, and says why (a pack file turns mining off, so nothing else
/// would).
#[test]
fn a_malformed_repo_pack_outside_the_builtin_layout_is_said_though_the_call_is_foreign() {
    let mut f = fixture();
    let other = tempfile::tempdir().expect("tempdir");
    let pack = other.path().join(".dsh/doc-pack.json");
    std::fs::create_dir_all(pack.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&pack, r#"{"families": [],}"#).expect("write");
    std::fs::write(other.path().join("a.md"), "").expect("write");
    std::fs::create_dir(other.path().join(".git")).expect("a git work tree");
    let line = serde_json::json!({
        "id": 1, "op": "judge", "agent": "a", "tool": "read", "path": "a.md",
        "cwd": other.path().display().to_string(),
    });
    let answer = f.send(&line.to_string());
    assert_eq!(answer["note"], Value::Null, "{answer}");
    assert_eq!(
        answer["ledger"][0], "doc-suggester: abstained foreign-workspace 0.00",
        "{answer}"
    );
    let warning = answer["warnings"][0].as_str().expect("a warning");
    assert!(
        warning.starts_with(&format!("invalid pack {}: not valid JSON", pack.display())),
        "{warning}"
    );
}

#[test]
fn hello_and_a_shared_close() {
    let f = fixture();
    let mut server = f.server.shared();
    let hello = server.handle_line(&Line::Bytes(br#"{"id":1,"op":"hello"}"#.to_vec()));
    assert_eq!(
        hello.answer,
        r#"{"id":1,"ok":true,"protocol":1,"version":"0.1.0","store":"memory","storePath":null,"durability":"group"}"#
    );
    // On a shared engine `close` ends the connection, not the engine.
    let close = server.handle_line(&Line::Bytes(br#"{"id":2,"op":"close"}"#.to_vec()));
    assert_eq!(close.answer, r#"{"id":2,"ok":true,"durable":0}"#);
    assert!(close.stop);
    assert!(!server.is_closed());
    let stats = server.handle_line(&Line::Bytes(br#"{"id":3,"op":"stats"}"#.to_vec()));
    assert_eq!(stats.error, None, "{}", stats.answer);
}

#[test]
fn an_idle_group_engine_flushes_only_after_recording_requests() {
    let f = fixture();
    let mut server = f.server;
    assert!(server.idle_flush_interval().is_some());
    assert_eq!(server.flush_idle().expect("flush"), None);
    let turn = server.handle_line(&Line::Bytes(
        br#"{"id":1,"op":"turn","agent":"a"}"#.to_vec(),
    ));
    assert_eq!(turn.error, None, "{}", turn.answer);
    assert_eq!(server.flush_idle().expect("flush"), Some(0));
    assert_eq!(server.flush_idle().expect("flush"), None);
    server.finish().expect("finish");
    assert_eq!(server.idle_flush_interval(), None);
}

#[test]
fn peek_answers_what_judge_would_and_keeps_nothing() {
    let mut f = fixture();
    let peek = |f: &mut Fixture, id: u64, agent: &str, path: &str| {
        let line = serde_json::json!({
            "id": id, "op": "peek", "agent": agent, "tool": "read", "path": path, "cwd": f.ws(),
        });
        f.send(&line.to_string())
    };
    let looked = peek(&mut f, 1, "a", "Documentation/Plans/X.md");
    let stats = f.send(r#"{"id":2,"op":"stats"}"#);
    assert_eq!(stats["stats"]["judged"], 0, "{stats}");
    assert_eq!(stats["stats"]["notes"], 0, "{stats}");
    let history = f
        .server
        .engine()
        .store()
        .contents()
        .expect("memory contents");
    assert_eq!(history.pending().expect("pending").len(), 0);
    // The note a judge then gives is the one the peek showed, line for line.
    let judged = f.judge(3, "Documentation/Plans/X.md");
    assert_eq!(looked["note"], judged["note"]);
    assert_eq!(looked["ledger"], judged["ledger"]);
    // Agent `a` is now cooling down for the family; a peek sees it, another agent does not.
    let cooling = peek(&mut f, 4, "a", "Documentation/Plans/X.md");
    assert_eq!(cooling["note"], Value::Null);
    assert_eq!(
        cooling["ledger"][0], "doc-suggester: suppressed cooldown Plan 0.91",
        "{cooling}"
    );
    let other = peek(&mut f, 5, "b", "Documentation/Plans/X.md");
    assert_eq!(other["note"], judged["note"]);
    // A peek of a companion is no accept: the note's window is still open for the judge.
    let companion = peek(&mut f, 6, "a", "Documentation/INDEX.md");
    assert_eq!(
        companion["ledger"][0],
        "doc-suggester: accepted Plan Documentation/INDEX.md"
    );
    let accepted = f.judge(7, "Documentation/INDEX.md");
    assert_eq!(
        accepted["ledger"][0],
        "doc-suggester: accepted Plan Documentation/INDEX.md"
    );
    let stats = f.send(r#"{"id":8,"op":"stats"}"#);
    assert_eq!(stats["stats"]["judged"], 2, "{stats}");
    assert_eq!(stats["stats"]["accepted"], 1, "{stats}");
    // Bad fields are refused as for judge.
    let bad = f.send(r#"{"id":9,"op":"peek","agent":"a","tool":"read","path":"X.md"}"#);
    assert_eq!(code(&bad), "relative-path-without-cwd");
}

#[test]
fn a_boundary_names_what_the_change_lacks_and_its_next_boundary_settles_it() {
    let mut f = fixture();
    // Boundaries learn under the evidence model (the default; the fixture's is the PoC's).
    let configured = f.send(r#"{"id":0,"op":"configure","config":{"rateModel":"evidence"}}"#);
    assert_eq!(configured["ok"], true, "{configured}");
    let boundary = |f: &mut Fixture, id: u64, paths: &[&str], name: bool| {
        let line = serde_json::json!({
            "id": id, "op": "boundary", "agent": "s/boundary", "paths": paths, "cwd": f.ws(),
            "name": name,
        });
        f.send(&line.to_string())
    };
    let named = boundary(
        &mut f,
        1,
        &["Documentation/Plans/X.md", "CHANGELOG.md"],
        true,
    );
    assert_eq!(named["ok"], true, "{named}");
    let notes = named["notes"].as_array().expect("notes");
    assert_eq!(notes.len(), 1, "{named}");
    assert_eq!(notes[0]["path"], "Documentation/Plans/X.md");
    let companions = notes[0]["note"]["companions"].to_string();
    // The change holds the changelog: only what it lacks is named.
    assert!(!companions.contains("CHANGELOG.md"), "{companions}");
    assert!(
        companions.contains("Documentation/INDEX.md"),
        "{companions}"
    );
    let pending = |f: &Fixture| {
        let contents = f.server.engine().store().contents().expect("contents");
        contents.pending().expect("pending").len()
    };
    assert_eq!(pending(&f), 1, "the boundary's note is recorded");
    // The index is added; the next boundary, naming nothing, settles the note as followed.
    let settled = boundary(
        &mut f,
        2,
        &[
            "Documentation/Plans/X.md",
            "CHANGELOG.md",
            "Documentation/INDEX.md",
        ],
        false,
    );
    assert_eq!(settled["notes"], serde_json::json!([]), "{settled}");
    let ledger = settled["ledger"].to_string();
    assert!(
        ledger.contains("accepted Plan Documentation/INDEX.md"),
        "{ledger}"
    );
    assert_eq!(pending(&f), 0);
    let bad = f.send(r#"{"id":3,"op":"boundary","agent":"a","paths":"X.md"}"#);
    assert_eq!(code(&bad), "wrong-type", "{bad}");
}

/// At a boundary each companion named is a claim of its own: one the boundary has seen left
/// out of the change time after time (its rate under `followThreshold`) is no longer named
/// there, by the boundary or by a boundary peek, though a note on an edit still names it
/// beside the companions that are added.
#[test]
fn a_boundary_stops_naming_a_companion_seen_left_out_though_a_note_still_names_it() {
    let mut f = fixture();
    let configured = f.send(r#"{"id":0,"op":"configure","config":{"rateModel":"evidence"}}"#);
    assert_eq!(configured["ok"], true, "{configured}");
    let index = "Documentation/INDEX.md";
    let plan = "Documentation/Plans/X.md";
    let names_index = |answer: &Value| answer.to_string().contains(&format!("\"{index}\""));
    let peek = |f: &mut Fixture, id: u64, boundary: bool| {
        let line = serde_json::json!({
            "id": id, "op": "peek", "agent": "p", "tool": "edit", "path": plan, "cwd": f.ws(),
            "boundary": boundary,
        });
        f.send(&line.to_string())
    };
    let first = peek(&mut f, 1, true);
    assert!(
        names_index(&first["note"]),
        "a companion not seen yet is named: {first}"
    );
    // Each boundary settles the previous one: the other companions are added by the next
    // change, the index only by the first.
    let added = [
        plan,
        "Documentation/ARCHIVE-STYLE.md",
        "POC-BRIEF.md",
        "CHANGELOG.md",
        index,
    ];
    let mut named = 0;
    for id in 2..12 {
        let paths = match id {
            3 => &added[..],
            _ if id % 2 == 0 => &added[..1],
            _ => &added[..4],
        };
        let line = serde_json::json!({
            "id": id, "op": "boundary", "agent": "s/boundary", "paths": paths, "cwd": f.ws(),
        });
        let answer = f.send(&line.to_string());
        assert_eq!(answer["ok"], true, "{answer}");
        if names_index(&answer["notes"]) {
            named += 1;
        }
    }
    assert!(
        (1..10).contains(&named),
        "named until its rejects brought it under the bar, then not: {named} of 10"
    );
    let rates = f.send(&format!(
        r#"{{"id":20,"op":"rates","workspace":"{}"}}"#,
        f.ws()
    ));
    let rate = rates["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|row| row["family"] == "Plan" && row["companion"] == index)
        .filter(|row| row["boundary"] == true)
        .and_then(|row| row["rate"].as_f64())
        .expect("the index's boundary row");
    assert!(rate < 0.55, "{rates}");
    let at_boundary = peek(&mut f, 21, true);
    assert!(!names_index(&at_boundary["note"]), "{at_boundary}");
    assert!(
        at_boundary["note"]["companions"]
            .to_string()
            .contains("CHANGELOG.md"),
        "{at_boundary}"
    );
    let left_out = format!("doc-suggester: left-out Plan companions {index}");
    assert!(
        at_boundary["ledger"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|line| line.as_str().is_some_and(|l| l.starts_with(&left_out))),
        "{at_boundary}"
    );
    let on_an_edit = peek(&mut f, 22, false);
    assert!(names_index(&on_an_edit["note"]), "{on_an_edit}");
    let bad = f.send(&format!(
        r#"{{"id":23,"op":"peek","agent":"p","tool":"edit","path":"{plan}","cwd":"{}","boundary":"yes"}}"#,
        f.ws()
    ));
    assert_eq!(code(&bad), "wrong-type", "{bad}");
}

#[test]
fn a_tool_no_config_judges_is_an_error_and_a_default_one_left_out_is_ignored() {
    let mut f = fixture();
    let ws = f.ws();
    let bogus = f.send(&format!(
        r#"{{"id":1,"op":"judge","agent":"a","tool":"bogus","path":"Documentation/Plans/X.md","cwd":"{ws}"}}"#
    ));
    assert_eq!(code(&bogus), "unknown-tool", "{bogus}");
    let detail = bogus["error"]["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("\"bogus\"") && detail.contains("read, grep"),
        "{detail}"
    );
    let peek = f.send(&format!(
        r#"{{"id":2,"op":"peek","agent":"a","tool":"Read","path":"Documentation/Plans/X.md","cwd":"{ws}"}}"#
    ));
    assert_eq!(code(&peek), "unknown-tool", "{peek}");
    // A default tool the config does not judge stays an empty answer, as the spec says.
    f.send(r#"{"id":3,"op":"configure","config":{"tools":["read"]}}"#);
    let write = f.send(&format!(
        r#"{{"id":4,"op":"judge","agent":"a","tool":"write","path":"Documentation/Plans/X.md","cwd":"{ws}"}}"#
    ));
    assert_eq!(write["ok"], true, "{write}");
    assert_eq!(write["ledger"], serde_json::json!([]), "{write}");
}
