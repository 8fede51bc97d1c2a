//! The learning loop of the PoC's step rule (`rateModel: "step"`) on the memory store: moves,
//! clamps, abandoned windows, the record. The evidence model has its own tests (`evidence.rs`).

use docsuggest_engine::Engine;
use docsuggest_engine::probe::OsProbe;
use docsuggest_schema::rate::NEUTRAL;
use docsuggest_schema::{Heuristic, Outcome, RateRow};
use docsuggest_tests::{Fixture, config, contents, judge, memory_engine, rows};
use serde_json::json;

const PLAN: &str = "Documentation/Plans/SEARCH.md";
const PLAN_COMPANIONS: [&str; 4] = [
    "Documentation/INDEX.md",
    "Documentation/ARCHIVE-STYLE.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
];

fn steps(engine: &Engine<OsProbe>) -> Vec<(String, f64)> {
    rows(engine).into_iter().map(|(k, r)| (k, r.step)).collect()
}

fn quiet(engine: &mut Engine<OsProbe>, f: &Fixture, n: usize) {
    for i in 0..n {
        judge(engine, f, "a", &format!("src/file{i}.rs"));
    }
}

#[test]
fn an_accept_moves_the_companion_and_the_family_up() {
    let f = Fixture::poc();
    let mut engine = memory_engine(config(json!({"acceptBonus": 0.25, "rateModel": "step"})));
    judge(&mut engine, &f, "a", PLAN);
    let v = judge(&mut engine, &f, "a", "POC-BRIEF.md");
    assert_eq!(v.ledger[0], "doc-suggester: accepted Plan POC-BRIEF.md");
    let up = NEUTRAL + 0.25;
    assert_eq!(
        steps(&engine),
        [
            ("Plan/".to_string(), up),
            ("Plan/POC-BRIEF.md".to_string(), up)
        ]
    );
    let history = contents(&engine).history().expect("history");
    let plan = history
        .iter()
        .find(|e| e.decision.family == "Plan")
        .expect("the Plan decision");
    assert_eq!(plan.decision.outcome, Outcome::Accepted);
    assert_eq!(plan.decision.accepted.as_deref(), Some("POC-BRIEF.md"));
    assert_eq!(plan.moves.len(), 2);
}

#[test]
fn a_glob_companion_is_accepted_by_any_file_it_matches() {
    let f = Fixture::poc();
    let mut engine = memory_engine(config(json!({"threshold": 0.0, "rateModel": "step"})));
    judge(&mut engine, &f, "a", "packages/web/SCHEME.md");
    let v = judge(&mut engine, &f, "a", "Documentation/Plans/LEARN.md");
    assert_eq!(
        v.ledger[0],
        "doc-suggester: accepted Scheme Documentation/Plans/*.md"
    );
}

#[test]
fn a_soft_reject_moves_every_named_companion_and_the_family_down() {
    let f = Fixture::poc();
    let mut engine = memory_engine(config(json!({"rateModel": "step"})));
    judge(&mut engine, &f, "a", PLAN);
    quiet(&mut engine, &f, 2);
    assert!(
        steps(&engine).is_empty(),
        "the window is still open after 2 calls"
    );
    quiet(&mut engine, &f, 1);
    let down = NEUTRAL - 0.2;
    let mut expect: Vec<(String, f64)> = PLAN_COMPANIONS
        .iter()
        .map(|c| (format!("Plan/{c}"), down))
        .chain([("Plan/".to_string(), down)])
        .collect();
    expect.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(steps(&engine), expect);
}

#[test]
fn rates_clamp_to_zero_and_one() {
    let f = Fixture::poc();
    let mut engine = memory_engine(config(
        json!({"threshold": 0.0, "cooldownCalls": 0, "rateModel": "step"}),
    ));
    for _ in 0..4 {
        judge(&mut engine, &f, "a", PLAN);
        quiet(&mut engine, &f, 3);
        engine.turn("a");
    }
    assert!(
        steps(&engine).iter().all(|(_, s)| *s == 0.0),
        "{:?}",
        steps(&engine)
    );
    for _ in 0..8 {
        judge(&mut engine, &f, "a", PLAN);
        judge(&mut engine, &f, "a", "CHANGELOG.md");
        engine.turn("a");
    }
    // Eight accepts from the floor: 0.1 added eight times.
    let eight = (0..8).fold(0.0, |acc, _| acc + 0.1);
    assert_eq!(rows_of(&engine, "Plan/CHANGELOG.md").step, eight);
    assert_eq!(rows_of(&engine, "Plan/").step, eight);
    assert_eq!(rows_of(&engine, "Plan/POC-BRIEF.md").step, 0.0);
    for _ in 0..4 {
        judge(&mut engine, &f, "a", PLAN);
        judge(&mut engine, &f, "a", "CHANGELOG.md");
        engine.turn("a");
    }
    let family = rows_of(&engine, "Plan/");
    assert_eq!(family.step, 1.0);
    assert_eq!((family.accepts, family.rejects), (12, 4));
}

fn rows_of(engine: &Engine<OsProbe>, key: &str) -> RateRow {
    rows(engine)
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, r)| r)
        .expect("the row exists")
}

#[test]
fn a_turn_reset_abandons_the_window_without_moving_rates() {
    let f = Fixture::poc();
    let mut engine = memory_engine(config(json!({"rateModel": "step"})));
    judge(&mut engine, &f, "a", PLAN);
    engine.turn("a");
    quiet(&mut engine, &f, 3);
    assert!(steps(&engine).is_empty());
    let history = contents(&engine).history().expect("history");
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].decision.outcome, Outcome::Abandoned);
    assert!(history[0].moves.is_empty());
    assert_eq!(engine.stats().abandoned, 1);
}

#[test]
fn the_record_keeps_the_enabled_list_and_effective_weights() {
    let f = Fixture::poc();
    let enabled = json!(["scope", "prior", "literal", "history"]);
    let mut engine = memory_engine(config(
        json!({"heuristics": enabled, "threshold": 0.0, "rateModel": "step"}),
    ));
    judge(&mut engine, &f, "a", PLAN);
    let pending = contents(&engine).pending().expect("pending");
    assert_eq!(pending.len(), 1);
    let d = &pending[0];
    assert_eq!(
        d.enabled,
        [
            Heuristic::Scope,
            Heuristic::Prior,
            Heuristic::Literal,
            Heuristic::History
        ]
    );
    assert_eq!(d.weights.0, [0.35, 0.0, 0.25, 0.25, 0.15, 0.0]);
    assert_eq!(d.outcome, Outcome::Pending);
    assert_eq!(d.companions.len(), 4);
    assert!((d.companions[0].score - 0.775).abs() < 1e-12);
    assert!(
        d.workspace
            .starts_with(f.root().file_name().and_then(|n| n.to_str()).unwrap_or("?"))
    );
    assert!(
        !d.workspace.contains('/'),
        "no absolute path in keys: {}",
        d.workspace
    );
}

#[test]
fn a_gated_silence_opens_a_shadow_window_that_only_observes() {
    use docsuggest_schema::SilenceReason;
    let f = Fixture::poc();
    let mut engine = memory_engine(config(json!({"rateModel": "step"})));
    // Index abstains (kappa 0.54): its would-be companion is the archive style.
    judge(&mut engine, &f, "a", "Documentation/INDEX.md");
    let pending = contents(&engine).pending().expect("pending");
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].silence, Some(SilenceReason::LowConfidence));
    let v = judge(&mut engine, &f, "a", "Documentation/ARCHIVE-STYLE.md");
    assert!(
        !v.ledger.iter().any(|l| l.contains("accepted")),
        "shadows say nothing: {v:?}"
    );
    // The second silence (Archive) is observed untouched for learnWindow calls.
    quiet(&mut engine, &f, 3);
    engine.turn("a");
    let history = contents(&engine).history().expect("history");
    let seen: Vec<(&str, Outcome, Option<&str>)> = history
        .iter()
        .map(|e| {
            (
                e.decision.family.as_str(),
                e.decision.outcome,
                e.decision.accepted.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "Index",
                Outcome::Silent,
                Some("Documentation/ARCHIVE-STYLE.md")
            ),
            ("Archive", Outcome::Silent, None),
        ]
    );
    assert!(history.iter().all(|e| e.moves.is_empty()));
    assert!(steps(&engine).is_empty(), "shadows move no rate");
    // A turn reset cuts an open shadow short: abandoned, still marked as a silence.
    judge(&mut engine, &f, "a", "Documentation/INDEX.md");
    engine.turn("a");
    let last = contents(&engine)
        .history()
        .expect("history")
        .pop()
        .expect("an entry");
    assert_eq!(
        (last.decision.outcome, last.decision.silence),
        (Outcome::Abandoned, Some(SilenceReason::LowConfidence))
    );
    assert_eq!(engine.stats().abandoned, 0, "only notes count as abandoned");
}

#[test]
fn learn_off_records_nothing_and_equals_a_fresh_store() {
    let paths = [
        PLAN,
        "packages/core/SCHEME.md",
        "POC-BRIEF.md",
        "README.md",
        "packages/core/CHANGELOG.md",
        "Documentation/ARCHIVE-STYLE.md",
        "Documentation/INDEX.md",
    ];
    let f = Fixture::poc();
    for path in paths {
        let mut fresh = memory_engine(config(json!({})));
        let mut off = memory_engine(config(json!({"learn": false})));
        assert_eq!(
            judge(&mut fresh, &f, "a", path),
            judge(&mut off, &f, "a", path),
            "{path}"
        );
        let c = contents(&off);
        assert!(c.history().expect("history").is_empty());
        assert!(c.pending().expect("pending").is_empty());
    }
}
