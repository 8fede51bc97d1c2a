//! Properties over random sessions: caps are never exceeded, notes never overflow.

use docsuggest_tests::{Fixture, config, null_engine};
use proptest::prelude::*;
use serde_json::json;

const PATHS: &[&str] = &[
    "Documentation/Plans/SEARCH.md",
    "Documentation/Plans/LEARN.md",
    "Documentation/INDEX.md",
    "Documentation/ARCHIVE-STYLE.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
    "README.md",
    "packages/core/SCHEME.md",
    "packages/core/README.md",
    "packages/core/CHANGELOG.md",
    "packages/web/SCHEME.md",
    "packages/core/package.json",
    "src/lib.rs",
    "**/*.md",
    "Documentation/Plans/*.md",
];

#[derive(Clone, Debug)]
enum Op {
    Judge(usize, usize),
    Turn(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0..3usize, 0..PATHS.len()).prop_map(|(a, p)| Op::Judge(a, p)),
        1 => (0..3usize).prop_map(Op::Turn),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn caps_hold_in_every_session(
        ops in prop::collection::vec(op(), 1..60),
        max_notes in 0u32..4,
        max_companions in 1usize..8,
        max_chars in 80usize..400,
        cooldown in 0u32..8,
        threshold in 0.0f64..1.0,
    ) {
        let fixture = Fixture::poc();
        let mut engine = null_engine(config(json!({
            "maxNotesPerTurn": max_notes,
            "maxCompanions": max_companions,
            "maxNoteChars": max_chars,
            "cooldownCalls": cooldown,
            "threshold": threshold,
        })));
        let mut notes_this_turn = [0u32; 3];
        for op in ops {
            match op {
                Op::Turn(a) => {
                    engine.turn(&format!("agent{a}"));
                    notes_this_turn[a] = 0;
                }
                Op::Judge(a, p) => {
                    let v = engine
                        .judge(&fixture.call(&format!("agent{a}"), "read", PATHS[p]))
                        .expect("a valid call");
                    prop_assert!(v.ledger.iter().all(|l| l.starts_with("doc-suggester: ")));
                    if let Some(note) = v.note {
                        notes_this_turn[a] += 1;
                        prop_assert!(notes_this_turn[a] <= max_notes);
                        prop_assert!(!note.companions.is_empty());
                        prop_assert!(note.companions.len() <= max_companions);
                        prop_assert!(note.text.chars().count() <= max_chars);
                        prop_assert!(note.summary.chars().count() <= 120);
                        prop_assert!(!note.text.chars().any(|c| c.is_control() && c != '\n'));
                        prop_assert_eq!(note.text.lines().count(), note.companions.len() + 1);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// With learning on, every rate stays in 0..1 and live rows equal the fold of history.
    #[test]
    fn rates_stay_in_unit_range_and_equal_their_fold(
        ops in prop::collection::vec(op(), 1..80),
        bonus in 0.0f64..1.0,
        penalty in 0.0f64..1.0,
        window in 1u32..5,
        limit in 4usize..64,
    ) {
        let fixture = Fixture::poc();
        let mut engine = docsuggest_tests::memory_engine(config(json!({
            "threshold": 0.0,
            "cooldownCalls": 0,
            "acceptBonus": bonus,
            "rejectPenalty": penalty,
            "learnWindow": window,
            "storeLimit": limit,
        })));
        for op in ops {
            match op {
                Op::Turn(a) => { engine.turn(&format!("agent{a}")); }
                Op::Judge(a, p) => {
                    engine
                        .judge(&fixture.call(&format!("agent{a}"), "read", PATHS[p]))
                        .expect("a valid call");
                }
            }
        }
        let contents = engine.store().contents().expect("contents");
        for (key, row) in contents.rate_rows().expect("rows") {
            prop_assert!((0.0..=1.0).contains(&row.step), "{key:?} {row:?}");
        }
        let history = contents.history().expect("history");
        prop_assert!(history.len() <= limit);
        let report = docsuggest_store::check_fold(contents).expect("fold check");
        prop_assert!(report.mismatches.is_empty(), "{report:?}");
    }
}
