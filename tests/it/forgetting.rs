//! Conventions that change: evidence ages (half-life [`HALF_LIFE`] observations), so a
//! companion ignored for 500 tasks and then always opened is named again within tens of tasks,
//! and one always opened and then ignored leaves the note as fast; the confidence a learned
//! note shows is the share of such notes that were followed.

use docsuggest_engine::Engine;
use docsuggest_engine::probe::OsProbe;
use docsuggest_schema::rate::HALF_LIFE;
use docsuggest_tests::{Fixture, config, judge, memory_engine};
use serde_json::json;

/// The documented bound (docs/LEARNING.md, "Forgetting"): a changed convention shows in the
/// note within this many observations of the companion.
const BOUND: usize = 4 * HALF_LIFE as usize;

/// Family `T` names three companions (the PoC speaks on a fresh store); family `S` names one.
fn workspace() -> Fixture {
    let f = Fixture::empty();
    for file in [
        "ws.marker",
        "t/a.md",
        "s/a.md",
        "kept.md",
        "changing.md",
        "other.md",
        "sole.md",
        "neutral.txt",
    ] {
        f.write(file, "");
    }
    f.write(
        ".dsh/doc-pack.json",
        r#"{"signature": ["ws.marker"], "families": [
            {"name": "T", "rules": ["t/*.md"], "companions": [
                {"path": "kept.md", "prior": 1.0},
                {"path": "changing.md", "prior": 1.0},
                {"path": "other.md", "prior": 1.0}]},
            {"name": "S", "rules": ["s/*.md"], "companions": [
                {"path": "sole.md", "prior": 1.0}]}]}"#,
    );
    f
}

fn engine() -> Engine<OsProbe> {
    memory_engine(config(json!({"log": false})))
}

/// One task: the agent reads `trigger`, then `touches`, then neutral reads until the window
/// (3 calls) has run out. Answers the note's companions (empty when silent) and its
/// confidence.
fn episode(
    engine: &mut Engine<OsProbe>,
    f: &Fixture,
    trigger: &str,
    touches: &[&str],
) -> (Vec<String>, Option<f64>) {
    engine.turn("a");
    let v = judge(engine, f, "a", trigger);
    for path in touches {
        judge(engine, f, "a", path);
    }
    for _ in touches.len()..3 {
        judge(engine, f, "a", "neutral.txt");
    }
    match v.note {
        Some(note) => (note.companions, Some(note.confidence)),
        None => (Vec::new(), None),
    }
}

/// The first of `episodes` tasks (1-based) whose note satisfies `shows`.
fn first_showing(
    engine: &mut Engine<OsProbe>,
    f: &Fixture,
    trigger: &str,
    touches: &[&str],
    episodes: usize,
    shows: impl Fn(&[String]) -> bool,
) -> Option<usize> {
    (1..=episodes).find(|_| shows(&episode(engine, f, trigger, touches).0))
}

fn names(named: &[String], companion: &str) -> bool {
    named.iter().any(|c| c == companion)
}

#[test]
fn a_companion_ignored_for_500_tasks_then_always_opened_is_named_again_within_the_bound() {
    let f = workspace();
    let mut engine = engine();
    for _ in 0..500 {
        episode(&mut engine, &f, "t/a.md", &["kept.md", "other.md"]);
    }
    let (named, _) = episode(&mut engine, &f, "t/a.md", &["kept.md", "other.md"]);
    assert_eq!(named, ["kept.md", "other.md"], "left out after 500 misses");
    let back = first_showing(
        &mut engine,
        &f,
        "t/a.md",
        &["kept.md", "changing.md", "other.md"],
        BOUND,
        |named| names(named, "changing.md"),
    );
    let back = back.unwrap_or_else(|| panic!("changing.md is not named within {BOUND} tasks"));
    // Not at once: one hit does not outweigh a window of misses.
    assert!(back > 3, "named again after {back} tasks");
}

#[test]
fn a_companion_always_opened_for_500_tasks_then_ignored_leaves_the_note_within_the_bound() {
    let f = workspace();
    let mut engine = engine();
    let all = ["kept.md", "changing.md", "other.md"];
    for _ in 0..500 {
        episode(&mut engine, &f, "t/a.md", &all);
    }
    let (named, _) = episode(&mut engine, &f, "t/a.md", &all);
    assert_eq!(named, all);
    let gone = first_showing(
        &mut engine,
        &f,
        "t/a.md",
        &["kept.md", "other.md"],
        BOUND,
        |named| !named.is_empty() && !names(named, "changing.md"),
    );
    let gone = gone.unwrap_or_else(|| panic!("changing.md is still named after {BOUND} tasks"));
    assert!(gone > 3, "left out after {gone} tasks");
}

#[test]
fn a_sole_companion_carries_the_note_while_followed_and_falls_silent_when_not() {
    let f = workspace();
    let mut engine = engine();
    // The PoC's kappa over one companion (0.54) is under its gate, so the note is one the pack
    // alone would not make: it speaks once it is at least `unpromptedThreshold` likely
    // followed.
    let spoke = first_showing(&mut engine, &f, "s/a.md", &["sole.md"], 15, |named| {
        names(named, "sole.md")
    });
    let spoke = spoke.expect("a followed companion carries the note within 15 tasks");
    assert!(spoke > 1, "not on a fresh store");
    let (_, confidence) = episode(&mut engine, &f, "s/a.md", &["sole.md"]);
    assert!(confidence.is_some_and(|c| c >= 0.75), "{confidence:?}");
    for _ in 0..500 {
        episode(&mut engine, &f, "s/a.md", &["sole.md"]);
    }
    let silent = first_showing(&mut engine, &f, "s/a.md", &[], BOUND, <[String]>::is_empty);
    let silent = silent.unwrap_or_else(|| panic!("still speaking after {BOUND} ignored notes"));
    assert!(silent > 3, "silent after {silent} tasks");
    for _ in 0..500 {
        episode(&mut engine, &f, "s/a.md", &[]);
    }
    let back = first_showing(&mut engine, &f, "s/a.md", &["sole.md"], BOUND, |named| {
        names(named, "sole.md")
    });
    assert!(back.is_some(), "silent after {BOUND} followed tasks");
}

#[test]
fn a_learned_note_shows_the_share_of_its_notes_that_were_followed() {
    let f = workspace();
    let mut engine = engine();
    // kept.md is opened in two tasks of three, in a fixed rhythm; the others never, so the
    // note comes to name kept.md alone.
    let mut shown = Vec::new();
    let mut followed = 0;
    for task in 0..300 {
        let touches: &[&str] = if task % 3 == 2 { &[] } else { &["kept.md"] };
        let (named, confidence) = episode(&mut engine, &f, "t/a.md", touches);
        if task >= 100
            && let Some(c) = confidence
        {
            assert_eq!(named, ["kept.md"]);
            shown.push(c);
            followed += usize::from(!touches.is_empty());
        }
    }
    assert!(
        shown.len() > 150,
        "the note keeps speaking: {}",
        shown.len()
    );
    let mean = shown.iter().sum::<f64>() / shown.len() as f64;
    let share = followed as f64 / shown.len() as f64;
    assert!(
        (mean - share).abs() < 0.05,
        "confidence {mean:.3} vs followed {share:.3}"
    );
}
