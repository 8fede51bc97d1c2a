//! The evidence model (the default) on synthetic traces: a companion that is never followed is
//! left out while the note keeps speaking for the others, a family the gate silenced speaks
//! once its would-be companions keep being touched, and nothing left out stays out.

use docsuggest_engine::Engine;
use docsuggest_engine::probe::OsProbe;
use docsuggest_schema::{RateModel, RateRow, StoreContents};
use docsuggest_tests::{Fixture, config, judge, memory_engine};
use serde_json::json;

/// A workspace with family `T` (three companions of prior 1: the PoC speaks) and family `S`
/// (priors 1 and 0.5: the PoC's kappa 0.70 is under the default gate).
fn workspace() -> Fixture {
    let f = Fixture::empty();
    for file in [
        "ws.marker",
        "t/a.md",
        "s/a.md",
        "followed.md",
        "ignored.md",
        "other.md",
        "c1.md",
        "c2.md",
        "neutral.txt",
    ] {
        f.write(file, "");
    }
    f.write(
        ".dsh/doc-pack.json",
        r#"{"signature": ["ws.marker"], "families": [
            {"name": "T", "rules": ["t/*.md"], "companions": [
                {"path": "followed.md", "prior": 1.0},
                {"path": "ignored.md", "prior": 1.0},
                {"path": "other.md", "prior": 1.0}]},
            {"name": "S", "rules": ["s/*.md"], "companions": [
                {"path": "c1.md", "prior": 1.0},
                {"path": "c2.md", "prior": 0.5}]}]}"#,
    );
    f
}

fn engine() -> Engine<OsProbe> {
    let engine = memory_engine(config(json!({"log": false})));
    assert_eq!(
        engine.config().rate_model,
        RateModel::Evidence,
        "the default"
    );
    engine
}

/// One turn: the agent reads `t/a.md`, then `touches`, then neutral reads until the
/// window (3 calls) has run out. Answers the note's companions (empty when silent) and the
/// ledger of the `t/a.md` call.
fn t_episode(
    engine: &mut Engine<OsProbe>,
    f: &Fixture,
    touches: &[&str],
) -> (Vec<String>, Vec<String>) {
    engine.turn("a");
    let v = judge(engine, f, "a", "t/a.md");
    for path in touches {
        judge(engine, f, "a", path);
    }
    for _ in touches.len()..3 {
        judge(engine, f, "a", "neutral.txt");
    }
    let named = v.note.map(|n| n.companions).unwrap_or_default();
    (named, v.ledger.into_strings())
}

fn row(engine: &Engine<OsProbe>, family: &str, companion: &str) -> RateRow {
    let contents: &dyn StoreContents = engine.store().contents().expect("memory lists rows");
    contents
        .rate_rows()
        .expect("rows")
        .into_iter()
        .find(|(k, _)| k.family == family && k.companion == companion)
        .map(|(_, r)| r)
        .unwrap_or_default()
}

#[test]
fn a_companion_ignored_30_times_is_left_out_and_the_note_speaks_for_the_others() {
    let f = workspace();
    let mut engine = engine();
    let (first, _) = t_episode(&mut engine, &f, &["followed.md", "other.md"]);
    assert_eq!(
        first,
        ["followed.md", "ignored.md", "other.md"],
        "the PoC's note"
    );
    for _ in 1..30 {
        t_episode(&mut engine, &f, &["followed.md", "other.md"]);
    }
    let (named, ledger) = t_episode(&mut engine, &f, &["followed.md", "other.md"]);
    assert_eq!(named, ["followed.md", "other.md"]);
    assert!(
        ledger.contains(&"doc-suggester: left-out T companions ignored.md".to_string()),
        "{ledger:?}"
    );
    let ignored = row(&engine, "T", "ignored.md");
    // Named and missed until it was left out, then watched and missed as a shadow.
    assert!(ignored.rejects >= 1, "{ignored:?}");
    assert_eq!(ignored.hits(), 0);
    assert_eq!(ignored.misses(), 31);
    assert!(ignored.shadow_misses > 0, "{ignored:?}");
    let followed = row(&engine, "T", "followed.md");
    // Followed every time: as an accept where a note named it, as a shadow hit where the
    // learned gate kept the family silent while its first evidence came in.
    assert_eq!((followed.hits(), followed.misses()), (31, 0));
    assert!(followed.accepts >= 25, "{followed:?}");
}

#[test]
fn a_silenced_family_speaks_once_its_companions_keep_being_touched() {
    let f = workspace();
    let mut engine = engine();
    engine.turn("a");
    let v = judge(&mut engine, &f, "a", "s/a.md");
    assert!(v.note.is_none());
    assert_eq!(
        v.ledger[0],
        "doc-suggester: abstained low-confidence S 0.70"
    );
    judge(&mut engine, &f, "a", "c1.md");
    judge(&mut engine, &f, "a", "c2.md");
    // The silence's shadow window saw both companions touched; the family row holds the
    // family's note outcomes only, and a silence is none.
    assert_eq!(row(&engine, "S", "c1.md").shadow_hits, 1);
    assert_eq!(row(&engine, "S", "").observations(), 0);
    let mut spoke_at = None;
    for episode in 1..=8 {
        engine.turn("a");
        let v = judge(&mut engine, &f, "a", "s/a.md");
        if let Some(note) = v.note {
            assert_eq!(note.companions, ["c1.md", "c2.md"]);
            spoke_at = Some(episode);
            break;
        }
        judge(&mut engine, &f, "a", "c1.md");
        judge(&mut engine, &f, "a", "c2.md");
    }
    // A note the PoC's gate would not make speaks once it is `unpromptedThreshold` (0.75)
    // likely followed: a few followed silences, not one. The family's only evidence is its
    // companions' (no note has closed), and that is enough to hand the gate over.
    let spoke_at = spoke_at.expect("followed silences lift the gate");
    assert!((2..=6).contains(&spoke_at), "spoke after {spoke_at}");
    assert_eq!(
        row(&engine, "S", "").observations(),
        0,
        "no note closed yet"
    );
    judge(&mut engine, &f, "a", "c1.md");
    engine.turn("a");
    let family = row(&engine, "S", "");
    assert_eq!(
        (family.accepts, family.observations()),
        (1, 1),
        "{family:?}"
    );
}

#[test]
fn a_family_whose_companions_are_ignored_after_silences_stays_silent() {
    let f = workspace();
    let mut engine = engine();
    for _ in 0..10 {
        engine.turn("a");
        let v = judge(&mut engine, &f, "a", "s/a.md");
        assert!(v.note.is_none(), "{:?}", v.ledger);
        for _ in 0..3 {
            judge(&mut engine, &f, "a", "neutral.txt");
        }
    }
    let c1 = row(&engine, "S", "c1.md");
    assert_eq!((c1.shadow_hits, c1.shadow_misses), (0, 10));
    assert_eq!(row(&engine, "S", "").observations(), 0);
}

#[test]
fn a_left_out_companion_that_is_followed_again_returns() {
    let f = workspace();
    let mut engine = engine();
    for _ in 0..30 {
        t_episode(&mut engine, &f, &["followed.md", "other.md"]);
    }
    let (named, _) = t_episode(&mut engine, &f, &["followed.md", "other.md"]);
    assert!(!named.contains(&"ignored.md".to_string()), "{named:?}");
    // Now the agent opens it every time, though no note names it.
    let mut returned_at = None;
    for episode in 1..=20 {
        let (named, _) = t_episode(&mut engine, &f, &["followed.md", "ignored.md", "other.md"]);
        if named.contains(&"ignored.md".to_string()) {
            returned_at = Some(episode);
            break;
        }
    }
    let episode = returned_at.expect("ignored.md returns within 20 followed turns");
    let ignored = row(&engine, "T", "ignored.md");
    // Evidence ages: a few hits outweigh thirty older misses, one does not.
    assert!(ignored.shadow_hits >= 3, "{ignored:?}");
    assert!(episode > 1, "one hit does not outweigh thirty misses");
}

/// A mined family (the miner's own gate) whose only companion is followed in 60 % of its
/// commits: the pack's gate lets it speak on a fresh store, and learning, having seen it
/// followed three times in five, keeps it speaking.
#[test]
fn a_mined_family_whose_only_companion_is_followed_60_percent_speaks_after_learning() {
    let f = Fixture::empty();
    for file in ["src/a.py", "tests/test_basic.py", "neutral.txt"] {
        f.write(file, "");
    }
    let pack = serde_json::json!({
        "signature": [".dsh/doc-pack.json"],
        "families": [{"name": "src-py", "rules": ["src/*.py"],
                      "threshold": docsuggest_history::MINED_THRESHOLD,
                      "companions": [{"path": "tests/test_basic.py", "prior": 0.6}]}]});
    f.write(".dsh/doc-pack.json", &pack.to_string());
    let mut engine = engine();
    let mut spoke = Vec::new();
    for round in 0..60 {
        engine.turn("a");
        let v = judge(&mut engine, &f, "a", "src/a.py");
        spoke.push(v.note.is_some());
        // Followed three times in five.
        if round % 5 < 3 {
            judge(&mut engine, &f, "a", "tests/test_basic.py");
        }
        for _ in 0..3 {
            judge(&mut engine, &f, "a", "neutral.txt");
        }
    }
    assert!(
        spoke[0],
        "the mined gate lets one companion of prior 0.6 speak"
    );
    let late = spoke[40..].iter().filter(|s| **s).count();
    assert_eq!(late, 20, "still speaking after learning: {spoke:?}");
    let learned = row(&engine, "src-py", "tests/test_basic.py");
    assert!(learned.observations() >= 50, "{learned:?}");
}
