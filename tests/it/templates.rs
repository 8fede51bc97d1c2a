//! `{}` template companions on a real workspace: the note names the substitution for the
//! call's own path (kept when it or its directory exists), a later call on that path accepts
//! it, and rates are keyed by the template as the pack writes it.

use docsuggest_engine::Engine;
use docsuggest_engine::probe::OsProbe;
use docsuggest_schema::Outcome;
use docsuggest_tests::{
    Fixture, config, contents, judge, memory_engine, note_companions as companions, rows,
};
use serde_json::json;

/// Family `Attr` (`src/attr/*.py`): its test file, its API page (under `docs/api/`, absent at
/// first) and the changelog; family `Lint` (`lints/*/README.md`): the lint's `meta.yaml`.
fn workspace() -> Fixture {
    let f = Fixture::empty();
    for file in [
        "ws.marker",
        "CHANGELOG.md",
        "src/attr/_make.py",
        "src/attr/other.py",
        "tests/test__make.py",
        "lints/abc/README.md",
        "src/lib.rs",
    ] {
        f.write(file, "");
    }
    f.write(
        ".dsh/doc-pack.json",
        r#"{"signature": ["ws.marker"], "families": [
            {"name": "Attr", "rules": ["src/attr/*.py"], "threshold": 0.0, "companions": [
                {"path": "tests/test_{}.py", "prior": 1.0},
                {"path": "docs/api/{}.md", "prior": 0.9},
                {"path": "CHANGELOG.md", "prior": 0.5}]},
            {"name": "Lint", "rules": ["lints/*/README.md"], "threshold": 0.0, "companions": [
                {"path": "lints/{}/meta.yaml", "prior": 1.0}]}]}"#,
    );
    f
}

fn step_engine() -> Engine<OsProbe> {
    memory_engine(config(json!({"rateModel": "step", "noteStyle": "poc"})))
}

#[test]
fn the_note_names_the_substitution_kept_by_the_file_or_its_directory() {
    let f = workspace();
    let mut engine = step_engine();
    // The test file exists; `docs/api/` does not, so the API page is dropped.
    let v = judge(&mut engine, &f, "a", "src/attr/_make.py");
    assert_eq!(companions(&v), ["tests/test__make.py", "CHANGELOG.md"]);
    assert_eq!(
        v.ledger[0],
        "doc-suggester: suggest Attr 0.70 companions tests/test__make.py,CHANGELOG.md"
    );
    assert!(
        v.ledger[1].starts_with("doc-suggester: decided Attr 0.70 tests/test__make.py "),
        "{:?}",
        v.ledger
    );
    let note = v.note.as_ref().expect("a note");
    assert!(
        note.text
            .ends_with("\n- tests/test__make.py\n- CHANGELOG.md"),
        "{}",
        note.text
    );
    assert_eq!(note.summary, "Attr: tests/test__make.py, CHANGELOG.md");
    // The record keeps the pack's text, as its rates do.
    let pending = contents(&engine).pending().expect("pending");
    let paths: Vec<&str> = pending[0]
        .companions
        .iter()
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(paths, ["tests/test_{}.py", "CHANGELOG.md"]);

    // Only `tests/` exists for `other.py`: the file the change must create is still named.
    engine.turn("b");
    let v = judge(&mut engine, &f, "b", "src/attr/other.py");
    assert_eq!(companions(&v), ["tests/test_other.py", "CHANGELOG.md"]);

    // Once `docs/api/` exists, the API page is named too, before it exists itself.
    f.write("docs/api/.keep", "");
    let mut fresh = step_engine();
    let v = judge(&mut fresh, &f, "c", "src/attr/other.py");
    assert_eq!(
        companions(&v),
        ["tests/test_other.py", "docs/api/other.md", "CHANGELOG.md"]
    );

    // The lint's directory holds its README: its `meta.yaml` is named.
    let v = judge(&mut fresh, &f, "d", "lints/abc/README.md");
    assert_eq!(companions(&v), ["lints/abc/meta.yaml"]);
}

#[test]
fn a_template_whose_directory_is_missing_is_dropped() {
    let f = workspace();
    f.remove("tests/test__make.py");
    std::fs::remove_dir(f.path("tests")).expect("remove tests/");
    f.remove("CHANGELOG.md");
    let mut engine = step_engine();
    let v = judge(&mut engine, &f, "a", "src/attr/_make.py");
    assert!(v.note.is_none());
    assert_eq!(
        *v.ledger,
        ["doc-suggester: abstained no-companions Attr 0.00"]
    );
    // A pattern names no one file: it has no capture, so a template names nothing.
    f.write("tests/test__make.py", "");
    let v = engine
        .judge(&f.call("a", "glob", "src/attr/*.py"))
        .expect("a well-formed call");
    assert_eq!(
        *v.ledger,
        ["doc-suggester: abstained no-companions Attr 0.00"]
    );
}

#[test]
fn a_later_call_on_the_substitution_accepts_it_and_rates_key_the_template() {
    let f = workspace();
    let mut engine = memory_engine(config(json!({"rateModel": "step", "acceptBonus": 0.25})));
    judge(&mut engine, &f, "a", "src/attr/_make.py");
    // Another file of the family is not the companion.
    let v = judge(&mut engine, &f, "a", "tests/test_other.py");
    assert!(!v.ledger.iter().any(|l| l.contains("accepted")), "{v:?}");
    let v = judge(&mut engine, &f, "a", "tests/test__make.py");
    assert_eq!(
        v.ledger[0],
        "doc-suggester: accepted Attr tests/test__make.py"
    );
    let up = 1.0 / 3.0 + 0.25;
    let keys: Vec<(String, f64)> = rows(&engine)
        .into_iter()
        .map(|(k, r)| (k, r.step))
        .collect();
    assert_eq!(
        keys,
        [
            ("Attr/".to_string(), up),
            ("Attr/tests/test_{}.py".to_string(), up)
        ]
    );
    let history = contents(&engine).history().expect("history");
    let entry = history
        .iter()
        .find(|e| e.decision.family == "Attr")
        .expect("the Attr decision");
    assert_eq!(entry.decision.outcome, Outcome::Accepted);
    assert_eq!(entry.decision.accepted.as_deref(), Some("tests/test_{}.py"));

    // What was learned on `_make.py` holds for `other.py`: one row for the whole family.
    engine.turn("a");
    let v = judge(&mut engine, &f, "a", "src/attr/other.py");
    assert_eq!(companions(&v), ["tests/test_other.py", "CHANGELOG.md"]);
    assert!(
        v.ledger[1].contains(
            " tests/test_other.py scope=1.00,graph=0.50,prior=1.00,literal=0.50,history=0.58,"
        ),
        "{:?}",
        v.ledger
    );
}

#[test]
fn an_ignored_note_is_rejected_by_its_substitution() {
    let f = workspace();
    let mut engine = step_engine();
    judge(&mut engine, &f, "a", "src/attr/_make.py");
    let mut lines = Vec::new();
    for i in 0..3 {
        let v = judge(&mut engine, &f, "a", &format!("src/file{i}.rs"));
        lines.extend(v.ledger.into_strings());
    }
    assert!(
        lines.contains(
            &"doc-suggester: rejected Attr companions tests/test__make.py,CHANGELOG.md".to_string()
        ),
        "{lines:?}"
    );
    let keys: Vec<String> = rows(&engine).into_iter().map(|(k, _)| k).collect();
    assert_eq!(
        keys,
        ["Attr/", "Attr/CHANGELOG.md", "Attr/tests/test_{}.py"]
    );
}

#[test]
fn a_touched_substitution_is_not_named_again() {
    let f = workspace();
    let mut engine = memory_engine(config(json!({"rateModel": "step", "cooldownCalls": 0})));
    judge(&mut engine, &f, "a", "tests/test__make.py");
    let v = judge(&mut engine, &f, "a", "src/attr/_make.py");
    assert_eq!(companions(&v), ["CHANGELOG.md"]);
    // The same note for another file names another substitution: no dedupe.
    let v = judge(&mut engine, &f, "a", "src/attr/other.py");
    assert_eq!(companions(&v), ["tests/test_other.py", "CHANGELOG.md"]);
}

#[test]
fn the_evidence_model_counts_the_template_row() {
    let f = workspace();
    let mut engine = memory_engine(config(json!({})));
    judge(&mut engine, &f, "a", "src/attr/_make.py");
    let v = judge(&mut engine, &f, "a", "tests/test__make.py");
    assert_eq!(
        v.ledger[0],
        "doc-suggester: accepted Attr tests/test__make.py"
    );
    let v = engine.turn("a");
    assert!(v.ledger.is_empty(), "{:?}", v.ledger);
    let rows = rows(&engine);
    let template = rows
        .iter()
        .find(|(k, _)| k == "Attr/tests/test_{}.py")
        .map(|(_, r)| *r)
        .expect("the template's row");
    assert_eq!((template.accepts, template.rejects), (1, 0));
    let changelog = rows
        .iter()
        .find(|(k, _)| k == "Attr/CHANGELOG.md")
        .map(|(_, r)| *r)
        .expect("the changelog's row");
    assert_eq!((changelog.accepts, changelog.rejects), (0, 1));
    let history = contents(&engine).history().expect("history");
    assert_eq!(
        history[0].decision.accepted.as_deref(),
        Some("tests/test_{}.py")
    );
}
