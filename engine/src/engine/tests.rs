//! Change boundaries learning over a store that keeps its rates: what a declined reminder
//! teaches, and what it must not.

use super::*;
use docsuggest_schema::{Decision, RateKey, RateRow, RateSnapshot, StoreKind};
use std::collections::BTreeMap;

/// A store that keeps rate rows (each resolution's moves folded in order, as every store
/// does) and nothing else.
#[derive(Default)]
pub(super) struct RatesOnly {
    seq: u64,
    rows: BTreeMap<RateKey, RateRow>,
}

struct Rows<'a>(&'a BTreeMap<RateKey, RateRow>);

impl RateSnapshot for Rows<'_> {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        Ok(self.0.get(key).copied())
    }
}

impl DecisionStore for RatesOnly {
    fn kind(&self) -> StoreKind {
        StoreKind::Memory
    }
    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        Ok(Box::new(Rows(&self.rows)))
    }
    fn record_pending(&mut self, _: Decision) -> Result<u64, StoreError> {
        self.seq += 1;
        Ok(self.seq)
    }
    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.record_pending(decision)
    }
    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        for mv in &resolution.moves {
            let row = self.rows.entry(mv.key.clone()).or_default();
            *row = row.apply(mv);
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<u64, StoreError> {
        Ok(self.seq)
    }
}

const PLAN: &str = "Documentation/Plans/X.md";
const INDEX: &str = "Documentation/INDEX.md";
/// The Plan family's companions (the built-in pack), besides the index.
const OTHERS: [&str; 3] = [
    "Documentation/ARCHIVE-STYLE.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
];

/// A workspace of the built-in pack, and an engine with the default config over a store that
/// keeps its rates.
struct Repo {
    dir: tempfile::TempDir,
    engine: Engine<OsProbe>,
}

impl Repo {
    fn new() -> Repo {
        let dir = tempfile::tempdir().expect("a temporary directory");
        for file in [PLAN, INDEX].iter().chain(&OTHERS) {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, "").expect("write");
        }
        // The built-in pack has no validated figures: every claim blocks (and so is learned
        // from) only at a bar of 0.
        let config = Config {
            log: false,
            block_bar: 0.0,
            ..Config::default()
        };
        let engine = Engine::new(config, Box::new(RatesOnly::default()), OsProbe);
        Repo { dir, engine }
    }

    fn cwd(&self) -> String {
        self.dir.path().display().to_string()
    }

    fn edit(&self, agent: &str) -> Call {
        Call {
            agent: agent.into(),
            tool: "edit".into(),
            path: PLAN.into(),
            cwd: Some(self.cwd()),
        }
    }

    /// A session's Stop: its boundary agent settles what its last reminder named against
    /// `change`, then names what `change` lacks. Answers what it named.
    fn stop(&mut self, session: &str, change: &[&str], name: bool) -> Vec<String> {
        let cwd = self.cwd();
        let paths: Vec<String> = change.iter().map(|p| p.to_string()).collect();
        let agent = format!("{session}/boundary");
        let verdict = self
            .engine
            .boundary(&agent, Some(&cwd), &paths, name)
            .expect("a boundary");
        verdict
            .notes
            .into_iter()
            .flat_map(|(_, note, _)| note.companions)
            .collect()
    }

    /// A session reminded of what its change of the plan lacks, which then adds `added` and
    /// stops again. Answers what the reminder named.
    fn reminded(&mut self, session: &str, added: &[&str]) -> Vec<String> {
        let named = self.stop(session, &[PLAN], true);
        let change: Vec<&str> = std::iter::once(PLAN).chain(added.iter().copied()).collect();
        self.stop(session, &change, false);
        named
    }

    /// The confidence and companions of a fresh agent's note on an edit of the plan, and of
    /// the check a `check-change` or a pre-commit hook makes (`None`: silent).
    fn fresh_notes(&mut self) -> [Option<(f64, Vec<String>)>; 2] {
        let edit = self.edit("fresh");
        let seen = |v: Verdict| v.note.map(|n| (n.confidence, n.companions));
        [
            seen(self.engine.peek(&edit).expect("a peek")),
            seen(self.engine.peek_boundary(&edit).expect("a boundary peek")),
        ]
    }

    /// The Plan family's rows the store holds: the family's, each companion's own and each
    /// companion's boundary row.
    fn rows(&mut self) -> Vec<(RateKey, RateRow)> {
        let ws = self
            .engine
            .workspace_key_of(self.dir.path())
            .expect("a workspace");
        let snapshot = self.engine.store().snapshot().expect("a snapshot");
        let keys = std::iter::once(RateKey::family(&ws, "Plan")).chain(
            [INDEX].iter().chain(&OTHERS).flat_map(|companion| {
                [
                    RateKey::companion(&ws, "Plan", companion),
                    RateKey::at_boundary(&ws, "Plan", companion),
                ]
            }),
        );
        keys.filter_map(|key| Some((key.clone(), snapshot.row(&key).expect("a read")?)))
            .collect()
    }
}

/// One session's Stop reminder, declined once (the next Stop adds nothing), is evidence about
/// those companions at the boundary, not a verdict on the family's notes: a fresh agent's note
/// on an edit, `check-change`, a pre-commit hook and other sessions' Stops speak as before it.
#[test]
fn one_declined_reminder_leaves_every_note_of_the_family_speaking() {
    let mut repo = Repo::new();
    let before = repo.fresh_notes();
    let [Some((edit_confidence, edit_named)), Some(_)] = &before else {
        panic!("a fresh store speaks: {before:?}");
    };
    assert!(*edit_confidence > 0.9, "{edit_confidence}");
    assert_eq!(edit_named.len(), 4, "{edit_named:?}");

    let named = repo.reminded("s1", &[]);
    assert_eq!(named, *edit_named, "the reminder names what a note would");
    let after = repo.fresh_notes();
    assert_eq!(after, before, "one declined reminder silences nothing");
    assert_eq!(repo.reminded("s2", &[]), named, "another session's Stop");

    // What the reminders came to is kept in the companions' boundary rows: the family's row
    // and the companions' own rows hold nothing.
    let rows = repo.rows();
    assert_eq!(rows.len(), 4, "{rows:?}");
    for (key, row) in rows {
        assert!(key.boundary_companion().is_some(), "{key:?}");
        assert_eq!((row.rejects, row.observations()), (2, 2), "{key:?}");
    }
}

/// A companion that session after session leaves out, though its reminders name it, is no
/// longer named at the boundary once that evidence outweighs the prior — after one decline it
/// still is — while a note on an edit goes on naming it.
#[test]
fn a_companion_declined_at_boundary_after_boundary_is_left_out_there_only() {
    let mut repo = Repo::new();
    let named: Vec<bool> = (0..8)
        .map(|session| {
            let named = repo.reminded(&format!("s{session}"), &OTHERS);
            assert!(named.iter().any(|c| c == "CHANGELOG.md"), "{named:?}");
            named.iter().any(|c| c == INDEX)
        })
        .collect();
    assert!(named[0] && named[1], "one decline is not enough: {named:?}");
    let first_left_out = named.iter().position(|&n| !n).expect("left out in the end");
    assert!(
        named[first_left_out..].iter().all(|&n| !n),
        "left out for good while declined: {named:?}"
    );
    let [on_an_edit, at_a_check] = repo.fresh_notes();
    let on_an_edit = on_an_edit.expect("a note on an edit").1;
    assert!(on_an_edit.iter().any(|c| c == INDEX), "{on_an_edit:?}");
    let at_a_check = at_a_check.expect("a check names the others").1;
    assert!(!at_a_check.iter().any(|c| c == INDEX), "{at_a_check:?}");
    assert!(
        at_a_check.iter().any(|c| c == "CHANGELOG.md"),
        "{at_a_check:?}"
    );
}
