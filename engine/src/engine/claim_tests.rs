//! A change boundary's claims: each companion's evidence, and which claims may block.

use super::*;
use crate::judge::Claim;

/// A workspace whose pack names three companions of `src/*.rs` (a gate low enough that one
/// companion left out does not silence the note), with the validated figures
/// `figures` (`None`: none), and `boundary` as the pack's `boundary` field.
fn workspace(figures: [Option<(u32, u32)>; 3], boundary: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let companion = |path: &str, figures: Option<(u32, u32)>| {
        let validated = figures.map_or(String::new(), |(named, followed)| {
            format!(r#", "validated": {{"named": {named}, "followed": {followed}}}"#)
        });
        format!(r#"{{"path": "{path}", "prior": 0.9{validated}}}"#)
    };
    let companions = [
        companion("CHANGELOG.md", figures[0]),
        companion("docs/guide.md", figures[1]),
        companion("NOTES.md", figures[2]),
    ]
    .join(", ");
    let pack = format!(
        r#"{{"signature": ["ws.toml"], "families": [{{"name": "Source", "kind": "doc",
            "rules": ["src/*.rs"], "threshold": 0.5, "companions": [{companions}]}}]{boundary}}}"#
    );
    for (file, text) in [
        ("ws.toml", ""),
        ("src/lib.rs", ""),
        ("CHANGELOG.md", ""),
        ("docs/guide.md", ""),
        ("NOTES.md", ""),
        (".dsh/doc-pack.json", pack.as_str()),
    ] {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

fn engine(config: Config) -> Engine<OsProbe> {
    let config = Config {
        log: false,
        ..config
    };
    let store = super::tests::RatesOnly::default();
    Engine::new(config, Box::new(store), OsProbe)
}

/// The claims of a boundary over the change `src/lib.rs` alone, by companion.
fn claims(engine: &mut Engine<OsProbe>, dir: &tempfile::TempDir) -> Vec<(String, Claim)> {
    let cwd = dir.path().display().to_string();
    let verdict = engine
        .boundary("s/boundary", Some(&cwd), &["src/lib.rs".to_string()], true)
        .expect("a boundary");
    let (_, note, claims) = verdict.notes.into_iter().next().expect("a note");
    assert_eq!(note.companions.len(), claims.len());
    note.companions.into_iter().zip(claims).collect()
}

fn evidence_and_blocks(claims: &[(String, Claim)], companion: &str) -> (Option<f64>, bool) {
    let (_, claim) = (claims.iter().find(|(c, _)| c == companion))
        .unwrap_or_else(|| panic!("{companion} is named: {claims:?}"));
    (claim.evidence, claim.blocks)
}

/// Before boundaries have seen a companion, its evidence follows from how often the newer
/// part of the history followed it, as a claim made when the change lacks it: 95 of 100
/// gives 0.87 and blocks; 1 of 1 says little (0.33) and only informs; a companion the pack
/// has no figures for is unknown and never blocks at the default bar.
#[test]
fn a_claim_blocks_on_its_validated_rate_and_an_unknown_one_never_does() {
    let dir = workspace([Some((100, 95)), Some((1, 1)), None], "");
    let said = claims(&mut engine(Config::default()), &dir);
    let rounded = |(evidence, blocks): (Option<f64>, bool)| {
        (evidence.map(|e| (e * 100.0).round() / 100.0), blocks)
    };
    assert_eq!(
        rounded(evidence_and_blocks(&said, "CHANGELOG.md")),
        (Some(0.87), true)
    );
    assert_eq!(
        rounded(evidence_and_blocks(&said, "docs/guide.md")),
        (Some(0.33), false)
    );
    assert_eq!(evidence_and_blocks(&said, "NOTES.md"), (None, false));
    // `blockBar: 0` blocks on every claim, as before claims had evidence.
    let every = Config {
        block_bar: 0.0,
        ..Config::default()
    };
    let said = claims(&mut engine(every), &dir);
    assert!(said.iter().all(|(_, c)| c.blocks), "{said:?}");
}

/// A reminder is right only when every claim it blocks on is: claims block, strongest first,
/// while their evidence jointly clears the bar (0.96 × 0.79, not × 0.65 too).
#[test]
fn claims_block_while_they_are_jointly_likely_right() {
    let dir = workspace([Some((100, 100)), Some((100, 90)), Some((100, 80))], "");
    let said = claims(&mut engine(Config::default()), &dir);
    let blocks: Vec<bool> = said.iter().map(|(_, c)| c.blocks).collect();
    assert_eq!(blocks, [true, true, false], "{said:?}");
}

/// A repository whose boundary `init` measured as too rarely right never blocks, whatever a
/// claim's evidence.
#[test]
fn a_repository_whose_boundary_may_not_block_never_blocks() {
    let never = r#", "boundary": {"mayBlock": false, "reminders": 20, "right": 6}"#;
    let dir = workspace([Some((100, 100)), Some((100, 90)), Some((100, 80))], never);
    let said = claims(&mut engine(Config::default()), &dir);
    assert_eq!(said.len(), 3, "{said:?}");
    assert!(
        said.iter()
            .all(|(_, c)| !c.blocks && c.evidence > Some(0.6)),
        "{said:?}"
    );
    let may = r#", "boundary": {"mayBlock": true, "reminders": 20, "right": 18}"#;
    let dir = workspace([Some((100, 100)), Some((100, 90)), Some((100, 80))], may);
    let said = claims(&mut engine(Config::default()), &dir);
    assert!(said.iter().any(|(_, c)| c.blocks), "{said:?}");
}

/// A companion the agent declines at stop after stop stops blocking: once its boundary row
/// outweighs the prior, that evidence, not the history's, decides. One followed at every stop
/// keeps blocking, and one the pack has no figures for comes to block on what its own stops
/// showed.
#[test]
fn a_companion_the_agent_keeps_declining_stops_blocking() {
    let dir = workspace([Some((100, 100)), Some((100, 90)), None], "");
    let mut engine = engine(Config::default());
    let cwd = dir.path().display().to_string();
    let mut blocked = Vec::new();
    for session in 0..10 {
        let agent = format!("s{session}/boundary");
        let change = ["src/lib.rs".to_string()];
        let verdict = engine
            .boundary(&agent, Some(&cwd), &change, true)
            .expect("a boundary");
        let named: Vec<(String, bool)> = verdict
            .notes
            .into_iter()
            .flat_map(|(_, note, claims)| {
                note.companions
                    .into_iter()
                    .zip(claims.into_iter().map(|c| c.blocks))
            })
            .collect();
        blocked.push(named);
        // The agent adds the changelog and the notes, never the guide.
        let done = ["src/lib.rs", "CHANGELOG.md", "NOTES.md"].map(String::from);
        engine
            .boundary(&agent, Some(&cwd), &done, false)
            .expect("settled");
    }
    let blocks = |at: usize, companion: &str| {
        blocked[at]
            .iter()
            .any(|(c, blocks)| c == companion && *blocks)
    };
    assert!(blocks(0, "docs/guide.md"), "{:?}", blocked[0]);
    assert!(!blocks(9, "docs/guide.md"), "{:?}", blocked[9]);
    assert!((0..10).all(|at| blocks(at, "CHANGELOG.md")), "{blocked:?}");
    assert!(
        !blocks(0, "NOTES.md") && blocks(9, "NOTES.md"),
        "{blocked:?}"
    );
}
