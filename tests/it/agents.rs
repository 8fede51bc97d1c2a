//! Agents that stop calling are forgotten past `maxAgents`, least recently seen first; their
//! open windows close as abandoned in the history.

use docsuggest_schema::Outcome;
use docsuggest_tests::{Fixture, config, judge, memory_engine};
use serde_json::json;

#[test]
fn forgotten_agents_close_their_windows_as_abandoned() {
    let f = Fixture::poc();
    let mut engine = memory_engine(config(json!({"log": false, "maxAgents": 4})));
    let agents: Vec<String> = (0..10).map(|i| format!("agent-{i}")).collect();
    for agent in &agents {
        let verdict = judge(&mut engine, &f, agent, "Documentation/Plans/SEARCH.md");
        assert!(verdict.note.is_some(), "{agent}: {verdict:?}");
    }
    // Ten agents, room for four: the six seen first were forgotten, one at a time.
    let history = engine
        .store()
        .contents()
        .expect("memory contents")
        .history()
        .expect("history");
    let abandoned: Vec<&str> = history
        .iter()
        .filter(|e| e.decision.outcome == Outcome::Abandoned)
        .map(|e| e.decision.agent.as_str())
        .collect();
    assert_eq!(
        abandoned,
        agents[..6].iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(engine.stats().abandoned, 6);
    // A forgotten agent starts afresh: its old note no longer follows its calls.
    let late = judge(&mut engine, &f, "agent-0", "Documentation/INDEX.md");
    assert!(
        !late.ledger.iter().any(|l| l.contains("accepted")),
        "{late:?}"
    );
    // A remembered one still has its window.
    let kept = judge(&mut engine, &f, "agent-9", "Documentation/INDEX.md");
    assert_eq!(
        kept.ledger.first_line(),
        Some("doc-suggester: accepted Plan Documentation/INDEX.md")
    );
}

#[test]
fn max_agents_is_validated() {
    let err = docsuggest_schema::Config::default()
        .patched(&json!({"maxAgents": 0}), "patch")
        .expect_err("zero agents");
    assert!(err.to_string().contains("maxAgents"), "{err}");
}
