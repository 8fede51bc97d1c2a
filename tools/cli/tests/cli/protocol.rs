//! `docsuggest serve`: a whole session compared byte for byte, a battery of bad lines, and
//! learning that survives a restart.

use crate::common::{Env, answers, assert_golden, golden};

/// The answers, with the run's paths redacted, against the golden file `name`
/// (`UPDATE_EXPECT=1` rewrites it; review the diff before keeping it).
fn check_golden(env: &Env, name: &str, actual: &str) {
    assert_golden(name, &env.redact(actual));
}

#[test]
fn a_session_answers_byte_for_byte() {
    let env = Env::new();
    let store = env.store("s.redb");
    let input = env.fill(&golden("protocol-session.in"));
    let out = env.ok(
        &["serve", "--store", &store.display().to_string()],
        input.as_bytes(),
    );
    check_golden(&env, "protocol-session.out", &out);
    // The ledger went to the default log file too, startup line first.
    let log = std::fs::read_to_string(env.home().join(".dsh/playform/hook-dsh-doc-suggester.log"))
        .expect("the ledger log");
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(
        lines[0],
        "doc-suggester: activated (bundle 0.1.0, families 7, threshold 0.75)"
    );
    assert_eq!(
        lines[1],
        "doc-suggester: suggest Plan 0.91 companions Documentation/INDEX.md,Documentation/ARCHIVE-STYLE.md,POC-BRIEF.md,CHANGELOG.md"
    );
}

#[test]
fn learning_survives_a_restart() {
    let env = Env::new();
    let store = env.store("s.redb").display().to_string();
    let ws = env.ws().display().to_string();
    // The turn closes the accepted note's window (cut short, it keeps its accept).
    let first = format!(
        "{}\n{}\n{}\n{}\n",
        serde_json::json!({"id":1,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md","cwd":ws}),
        serde_json::json!({"id":2,"op":"judge","agent":"a","tool":"read","path":"Documentation/INDEX.md","cwd":ws}),
        serde_json::json!({"id":3,"op":"turn","agent":"a"}),
        serde_json::json!({"id":4,"op":"rates","workspace":ws}),
    );
    // No `close`: the end of input must flush and close the store as cleanly.
    let before = answers(&env.ok(&["serve", "--store", &store], first.as_bytes()));
    let again = format!(
        "{}\n",
        serde_json::json!({"id":1,"op":"rates","workspace":ws})
    );
    let after = answers(&env.ok(&["serve", "--store", &store], again.as_bytes()));
    assert_eq!(after[0]["rows"], before[3]["rows"]);
    let index = plan_row(&after[0], "Documentation/INDEX.md");
    assert_eq!(index["accepts"], 1);
    // A memory server starts from nothing.
    let memory = answers(&env.ok(&["serve", "--memory"], again.as_bytes()));
    assert_eq!(memory[0]["rows"], serde_json::json!([]));
}

/// Bad lines, each with the code and id its answer must carry.
fn battery(ws: &str) -> Vec<(Vec<u8>, &'static str, serde_json::Value)> {
    use serde_json::{Value, json};
    let judge = |id: u64, path: &str| {
        json!({"id":id,"op":"judge","agent":"a","tool":"read","path":path,"cwd":ws}).to_string()
    };
    let mut huge = br#"{"id":99,"op":"judge","agent":"a","tool":"read","path":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'a', 2 << 20));
    huge.extend(br#""}"#);
    vec![
        (b"{\"id\":10,\"op\":\"judge\",".to_vec(), "invalid-json", Value::Null),
        (b"[1,2,3]".to_vec(), "not-an-object", Value::Null),
        (br#"{"id":11,"op":"jump"}"#.to_vec(), "unknown-op", json!(11)),
        (br#"{"id":12,"op":"judge","agent":"a","tool":"read"}"#.to_vec(), "missing-field", json!(12)),
        (br#"{"id":"w","op":"judge","agent":"a","tool":"read","path":["x"]}"#.to_vec(), "wrong-type", json!("w")),
        (huge, "line-too-long", Value::Null),
        (b"{\"id\":14,\"op\":\"judge\",\"agent\":\"a\",\"tool\":\"read\",\"path\":\"\xff\xfe\"}".to_vec(), "invalid-utf8", json!(14)),
        (br#"{"id":15,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md"}"#.to_vec(), "relative-path-without-cwd", json!(15)),
        (judge(16, "Documentation/Plans/X\u{0}.md").into_bytes(), "nul-byte", json!(16)),
        (br#"{"id":17,"op":"configure","config":{"threshold":-1}}"#.to_vec(), "invalid-config", json!(17)),
        (br#"{"id":18,"op":"rates","workspace":"/"}"#.to_vec(), "unknown-workspace", json!(18)),
    ]
}

#[test]
fn bad_lines_get_their_codes_and_nothing_learned_is_lost() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    let store = env.store("s.redb").display().to_string();
    let line = |v: serde_json::Value| v.to_string().into_bytes();
    let mut input = Vec::new();
    let mut push = |bytes: Vec<u8>| {
        input.extend(bytes);
        input.push(b'\n');
    };
    push(line(
        serde_json::json!({"id":1,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md","cwd":ws}),
    ));
    push(line(
        serde_json::json!({"id":2,"op":"judge","agent":"a","tool":"read","path":"Documentation/INDEX.md","cwd":ws}),
    ));
    let bad = battery(&ws);
    for (bytes, _, _) in &bad {
        push(bytes.clone());
    }
    push(line(
        serde_json::json!({"id":"after","op":"judge","agent":"b","tool":"read","path":"Documentation/Plans/X.md","cwd":ws}),
    ));
    push(line(
        serde_json::json!({"id":"turn","op":"turn","agent":"a"}),
    ));
    push(line(
        serde_json::json!({"id":"rates","op":"rates","workspace":ws}),
    ));
    let out = env.run(&["serve", "--store", &store], &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let got = answers(&String::from_utf8(out.stdout).expect("UTF-8"));
    assert_eq!(got.len(), 2 + bad.len() + 3);
    for (answer, (bytes, code, id)) in got[2..].iter().zip(&bad) {
        let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).to_string();
        assert_eq!(answer["ok"], false, "{shown}");
        assert_eq!(answer["error"]["code"], *code, "{shown}: {answer}");
        assert_eq!(answer["id"], *id, "{shown}");
    }
    let after = &got[2 + bad.len()];
    assert_eq!(after["ok"], true, "{after}");
    assert_eq!(after["note"]["family"], "Plan");
    let rates = &got[4 + bad.len()];
    assert_eq!(plan_row(rates, "Documentation/INDEX.md")["accepts"], 1);
    assert_eq!(plan_row(rates, "")["accepts"], 1, "the Plan family row");
}

/// The Plan row of `companion` (`""`: the family's own row) in a `rates` answer.
fn plan_row<'a>(rates: &'a serde_json::Value, companion: &str) -> &'a serde_json::Value {
    let wanted = |r: &&serde_json::Value| {
        r["family"] == "Plan"
            && match companion {
                "" => r["companion"].is_null(),
                c => r["companion"] == c,
            }
    };
    rates["rows"]
        .as_array()
        .and_then(|rows| rows.iter().find(wanted))
        .unwrap_or_else(|| panic!("no Plan row for {companion:?} in {rates}"))
}

#[test]
fn a_bad_config_file_names_the_file_and_every_field() {
    let env = Env::new();
    let file = env.home().join("cfg.json");
    std::fs::write(&file, r#"{"threshold": 3, "tools": "read", "nope": 1}"#).expect("write");
    let out = env.run(
        &["serve", "--memory", "--config", &file.display().to_string()],
        b"",
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "invalid config in {} (3 problems)",
            file.display()
        )),
        "{err}"
    );
    for field in [
        "nope: unknown field",
        "threshold: 3 is outside 0..1",
        "tools: expected an array of strings",
    ] {
        assert!(err.contains(field), "{err}");
    }
}
