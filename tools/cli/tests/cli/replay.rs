//! `docsuggest replay --json` against a small trace whose figures were worked out by hand.

use crate::common::Env;

/// Comments give what each request must do (workspace: the tiny one; the defaults under the
/// PoC's step rule; learnWindow 3).
const TRACE: &str = r#"{"id":1,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md"}
{"id":2,"op":"judge","agent":"a","tool":"read","path":"src/lib.rs"}
{"id":3,"op":"judge","agent":"a","tool":"read","path":"Documentation/INDEX.md"}
{"id":4,"op":"judge","agent":"a","tool":"bash","path":"anything"}
{"id":5,"op":"turn","agent":"a"}
{"id":6,"op":"judge","agent":"a","tool":"read","path":"CHANGELOG.md"}
{"id":7,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md"}

{"id":8,"op":"judge","agent":"a","tool":"read","path":"src/a.rs"}
{"id":9,"op":"judge","agent":"a","tool":"read","path":"src/b.rs"}
{"id":10,"op":"judge","agent":"a","tool":"read","path":"src/c.rs"}
{"id":11,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md"}
{"id":12,"op":"judge","agent":"a","tool":"read","path":"/nonexistent-docsuggest/elsewhere.md"}
{"id":13,"op":"judge","agent":"a","tool":"read"}
{"id":14,"op":"turn","agent":"a"}
{"id":15,"op":"judge","agent":"a","tool":"read","path":"Documentation/Plans/X.md"}
{"id":16,"op":"turn","agent":"a"}
"#;

// 1: Plan note (notes 1). 2: window age 1, no-signal. 3: accept INDEX (accepts 1); Index has
// only ARCHIVE-STYLE left (Plans/*.md was touched) -> low-confidence 0.54. 4: bash is not
// judged. 5: turn (no open window). 6: Changelog has no companion in this workspace ->
// no-companions. 7: Plan note (notes 2; CHANGELOG.md touched, so three companions).
// 8, 9: no-signal. 10: no-signal and the window closes as a reject (rejects 1). 11: Plan
// within cooldown -> suppressed cooldown. 12: foreign-workspace. 13: missing-field error.
// 14: turn. 15: Plan note (notes 3). 16: turn abandons its window (abandoned 1).
// Judged: 1,2,3,6,7,8,9,10,11,12,15 = 11; timed judge requests: those plus 4 = 12.

/// Replays [`TRACE`] on memory with `ws/` as the workspace, plus `extra` arguments.
fn replay_trace(env: &Env, extra: &[&str]) -> String {
    let trace = env.home().join("trace.jsonl");
    std::fs::write(&trace, TRACE).expect("write the trace");
    let trace = trace.display().to_string();
    let config = env.home().join("step.json");
    std::fs::write(&config, r#"{"rateModel": "step"}"#).expect("write the config");
    let config = config.display().to_string();
    let ws = env.ws().display().to_string();
    let mut args = vec![
        "replay",
        trace.as_str(),
        "--workspace",
        ws.as_str(),
        "--memory",
        "--config",
        config.as_str(),
    ];
    args.extend_from_slice(extra);
    env.ok(&args, b"")
}

#[test]
fn replay_json_matches_the_hand_computed_figures() {
    let env = Env::new();
    let out = replay_trace(&env, &["--json"]);
    let mut got: serde_json::Value = serde_json::from_str(&out).expect("JSON summary");
    let latency = got
        .as_object_mut()
        .and_then(|o| o.remove("latencyUs"))
        .expect("latency figures");
    assert_eq!(
        got,
        serde_json::json!({
            "requests": 16,
            // `bash` is no tool the engine judges: the host is told (`unknown-tool`).
            "errors": {"missing-field": 1, "unknown-tool": 1},
            "judged": 11,
            "notes": 3,
            "accepts": 1,
            "rejects": 1,
            "abandoned": 1,
            "abstained": {
                "foreign-workspace": 1,
                "low-confidence": 1,
                "no-companions": 1,
                "no-signal": 4,
            },
            "suppressed": {"cooldown": 1},
            "precision": 0.5,
            "store": "memory",
        })
    );
    // Every judge the engine answered (the `bash` one is refused before it).
    assert_eq!(latency["samples"], 11);
    let p = |k: &str| latency[k].as_f64().expect("a number");
    assert!(
        0.0 < p("p50") && p("p50") <= p("p99") && p("p99") <= p("max"),
        "{latency}"
    );
}

#[test]
fn the_human_table_and_a_missing_trace() {
    let env = Env::new();
    let out = replay_trace(&env, &[]);
    for row in [
        "  requests        16 (errors: 2 (missing-field 1, unknown-tool 1))\n",
        "  judged calls    11\n",
        "  precision       0.50 (accepts / (accepts + rejects))\n",
        "  abstained       7 (foreign-workspace 1, low-confidence 1, no-companions 1, no-signal 4)\n",
        "  suppressed      1 (cooldown 1)\n",
    ] {
        assert!(out.contains(row), "{row:?} missing from:\n{out}");
    }
    let missing = env.home().join("none.jsonl").display().to_string();
    let out = env.run(&["replay", &missing, "--memory"], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("cannot read trace {missing}")),
        "{err}"
    );
}
