//! Golden transcripts: each file under `tests/golden/` is a script (`## …` lines) and the
//! exact ledger lines, note text and summary it must produce. `UPDATE_EXPECT=1` rewrites
//! the expectations; review the diff before committing it. Scripts run in the PoC's
//! workspace; `## pack <json>` writes its repo pack and `## file <path>` an empty file.

use docsuggest_engine::Engine;
use docsuggest_engine::line_format::{self, Abstain, Suppress};
use docsuggest_engine::probe::OsProbe;
use docsuggest_schema::{StoreKind, Table};
use docsuggest_tests::{Fixture, config, memory_engine};
use std::path::Path;

fn run_script(script: &str) -> String {
    let fixture = Fixture::poc();
    let mut engine: Option<Engine<OsProbe>> = None;
    let mut out = String::new();
    for line in script.lines().filter(|l| l.starts_with("## ")) {
        out.push_str(line);
        out.push('\n');
        let mut words = line[3..].splitn(2, ' ');
        let (op, rest) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let lines: Vec<String> = match (op, engine.as_mut()) {
            ("pack", _) => {
                fixture.write(docsuggest_schema::pack::REPO_PACK_PATH, rest);
                Vec::new()
            }
            ("file", _) => {
                fixture.write(rest, "");
                Vec::new()
            }
            ("start", _) => {
                let patch = serde_json::from_str(rest).expect("a JSON config patch");
                let e = engine.insert(memory_engine(config(patch)));
                e.startup()
            }
            ("judge", Some(e)) => {
                let mut parts = rest.splitn(3, ' ');
                let (agent, tool, path) = (
                    parts.next().unwrap_or(""),
                    parts.next().unwrap_or(""),
                    parts.next().unwrap_or(""),
                );
                let v = e
                    .judge(&fixture.call(agent, tool, path))
                    .expect("a valid call");
                let mut lines = v.ledger.into_strings();
                if let Some(note) = v.note {
                    lines.extend(note.text.lines().map(|l| format!("> {l}")));
                    lines.push(format!("summary: {}", note.summary));
                }
                lines
            }
            ("turn", Some(e)) => e.turn(rest).ledger.into_strings(),
            ("configure", Some(e)) => {
                let patch = serde_json::from_str(rest).expect("a JSON config patch");
                e.configure(&patch).expect("a valid patch")
            }
            _ => panic!("bad script line {line:?}"),
        };
        for l in lines {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

fn check_transcript(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("golden")
        .join(name);
    let expected = std::fs::read_to_string(&path).expect("a golden transcript");
    // The script is the transcript's own `##` lines: `UPDATE_EXPECT=1` rewrites the rest.
    expect_test::expect_file![path].assert_eq(&run_script(&expected));
}

#[test]
fn transcript_plain_forms() {
    check_transcript("plain-forms.txt");
}

/// The same script in the PoC's style: the note as the PoC writes it.
#[test]
fn transcript_poc_forms() {
    check_transcript("poc-forms.txt");
}

/// A test-case layout (issue 58): every file below a last `**`, tied by the directory named
/// after the call's file, the call's language's first; a glob spread far from the call's as
/// itself with an example; a companion an earlier line names as the pack writes it.
#[test]
fn transcript_plain_cases() {
    check_transcript("plain-cases.txt");
}

/// A plain note names, watches and is gated on the same companions as the PoC's note: the
/// two styles' transcripts of one script write the same ledger lines.
#[test]
fn plain_and_poc_notes_write_the_same_ledger() {
    let ledger = |name: &str| {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("golden")
            .join(name);
        let script = std::fs::read_to_string(&path).expect("a golden transcript");
        run_script(&script)
            .lines()
            .filter(|l| l.starts_with("doc-suggester:"))
            .map(String::from)
            .collect::<Vec<_>>()
    };
    assert_eq!(ledger("plain-forms.txt"), ledger("poc-forms.txt"));
}

#[test]
fn transcript_default_session() {
    check_transcript("default-session.txt");
}

#[test]
fn transcript_suppressions() {
    check_transcript("suppressions.txt");
}

#[test]
fn transcript_learning_loop() {
    check_transcript("learning-loop.txt");
}

// The same scripts under the default evidence model: a fresh store's first notes are the
// PoC's; then windows run their whole length, repeats are left out, and rarely followed
// companions are left out of later notes.
#[test]
fn transcript_evidence_default_session() {
    check_transcript("evidence-default-session.txt");
}

#[test]
fn transcript_evidence_suppressions() {
    check_transcript("evidence-suppressions.txt");
}

#[test]
fn transcript_evidence_learning_loop() {
    check_transcript("evidence-learning-loop.txt");
}

// A pack with `{}` templates: lines name each call's substitution; rates learn the template.
#[test]
fn transcript_templates() {
    check_transcript("template-session.txt");
}

#[test]
fn transcript_evidence_templates() {
    check_transcript("evidence-template-session.txt");
}

#[test]
fn transcript_disabled_and_reconfigured() {
    check_transcript("disabled.txt");
}

#[test]
fn every_line_form_is_pinned() {
    let values = Table([1.0, 0.5, 1.0, 0.5, 1.0 / 3.0, 1.0 / 3.0]);
    let cases: Vec<(String, &str)> = vec![
        (
            line_format::disabled(),
            "doc-suggester: disabled (enabled=false)",
        ),
        (
            line_format::activated("0.2.1", 7, 0.75),
            "doc-suggester: activated (bundle 0.2.1, families 7, threshold 0.75)",
        ),
        (
            line_format::suggest("Plan", 0.8666, &["a.md", "b/c.md"]),
            "doc-suggester: suggest Plan 0.87 companions a.md,b/c.md",
        ),
        (
            line_format::decided(
                "Plan",
                0.87,
                "a.md",
                &values,
                &Table::DEFAULT_WEIGHTS,
                StoreKind::Redb,
            ),
            "doc-suggester: decided Plan 0.87 a.md \
             scope=1.00,graph=0.50,prior=1.00,literal=0.50,history=0.33,accept=0.33 \
             weights scope=0.35,graph=0.00,prior=0.25,literal=0.25,history=0.15,accept=0.00 store=redb",
        ),
        (
            line_format::accepted("Plan", "a.md"),
            "doc-suggester: accepted Plan a.md",
        ),
        (
            line_format::rejected("Plan", &["a.md", "b.md"]),
            "doc-suggester: rejected Plan companions a.md,b.md",
        ),
        (
            line_format::abstained(Abstain::LowConfidence, Some("Plan"), 0.5436).into_owned(),
            "doc-suggester: abstained low-confidence Plan 0.54",
        ),
        (
            line_format::abstained(Abstain::AmbiguousTarget, Some("Plan"), 0.0).into_owned(),
            "doc-suggester: abstained ambiguous-target Plan 0.00",
        ),
        (
            line_format::abstained(Abstain::AlreadyTouched, Some("Plan"), 0.91).into_owned(),
            "doc-suggester: abstained already-touched Plan 0.91",
        ),
        (
            line_format::abstained(Abstain::NoCompanions, Some("Plan"), 0.0).into_owned(),
            "doc-suggester: abstained no-companions Plan 0.00",
        ),
        (
            line_format::abstained(Abstain::NoSignal, None, 0.0).into_owned(),
            "doc-suggester: abstained no-signal 0.00",
        ),
        (
            line_format::abstained(Abstain::ForeignWorkspace, None, 0.0).into_owned(),
            "doc-suggester: abstained foreign-workspace 0.00",
        ),
        (
            line_format::suppressed(Suppress::Cooldown, "Plan", 0.91),
            "doc-suggester: suppressed cooldown Plan 0.91",
        ),
        (
            line_format::suppressed(Suppress::Dedupe, "Plan", 0.91),
            "doc-suggester: suppressed dedupe Plan 0.91",
        ),
        (
            line_format::suppressed(Suppress::Cap, "Plan", 0.91),
            "doc-suggester: suppressed cap Plan 0.91",
        ),
        (
            line_format::left_out("Plan", &["a.md", "b/*.md"]),
            "doc-suggester: left-out Plan companions a.md,b/*.md",
        ),
        (
            line_format::store_unavailable("locked"),
            "doc-suggester: store unavailable (locked), using memory",
        ),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}
