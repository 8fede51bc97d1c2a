//! Per-file companions (a companion's `for`): named only on a call on one of its files, beside
//! the family's pattern companions, and followed like any literal.

use docsuggest_engine::Engine;
use docsuggest_engine::probe::OsProbe;
use docsuggest_tests::{Fixture, config, judge, memory_engine, note_companions as companions};
use serde_json::json;

/// Family `Src` (`src/pkg/*.py`): the changelog for every file, and the test module each file
/// is tested in, which its name does not say.
fn workspace() -> Fixture {
    let f = Fixture::empty();
    for file in [
        "ws.marker",
        "CHANGES.rst",
        "src/pkg/app.py",
        "src/pkg/cli.py",
        "src/pkg/json.py",
        "tests/test_basic.py",
        "tests/test_cli.py",
    ] {
        f.write(file, "");
    }
    f.write(
        ".dsh/doc-pack.json",
        r#"{"signature": ["ws.marker"], "families": [
            {"name": "Src", "rules": ["src/pkg/*.py"], "threshold": 0.0, "companions": [
                {"path": "CHANGES.rst", "prior": 0.5},
                {"path": "tests/test_basic.py", "prior": 0.8, "for": ["src/pkg/app.py"]},
                {"path": "tests/test_cli.py", "prior": 0.9,
                 "for": ["src/pkg/cli.py", "src/pkg/app.py"]}]}]}"#,
    );
    f
}

fn engine() -> Engine<OsProbe> {
    memory_engine(config(json!({"rateModel": "step"})))
}

#[test]
fn a_per_file_companion_is_named_on_its_files_only() {
    let f = workspace();
    let mut engine = engine();
    let v = judge(&mut engine, &f, "a", "src/pkg/app.py");
    assert_eq!(
        companions(&v),
        ["tests/test_cli.py", "tests/test_basic.py", "CHANGES.rst"]
    );
    let v = judge(&mut engine, &f, "b", "src/pkg/cli.py");
    assert_eq!(companions(&v), ["tests/test_cli.py", "CHANGES.rst"]);
    // A file no per-file companion is for gets the family's own.
    let v = judge(&mut engine, &f, "c", "src/pkg/json.py");
    assert_eq!(companions(&v), ["CHANGES.rst"]);
}

#[test]
fn a_per_file_companion_is_followed_like_a_literal() {
    let f = workspace();
    let mut engine = engine();
    let v = judge(&mut engine, &f, "a", "src/pkg/app.py");
    assert!(companions(&v).contains(&"tests/test_basic.py".to_string()));
    let v = judge(&mut engine, &f, "a", "tests/test_basic.py");
    assert!(
        v.ledger
            .iter()
            .any(|l| l == "doc-suggester: accepted Src tests/test_basic.py"),
        "{:?}",
        v.ledger
    );
}

#[test]
fn a_pattern_target_names_no_per_file_companion() {
    let f = workspace();
    let mut engine = engine();
    let v = judge(&mut engine, &f, "a", "src/pkg/*.py");
    assert!(
        !companions(&v).iter().any(|c| c.starts_with("tests/")),
        "{:?}",
        companions(&v)
    );
}
