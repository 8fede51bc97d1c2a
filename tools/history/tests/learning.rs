//! The learning engine against the static one over small generated histories, through the
//! library's `backtest` (docs/BACKTEST.md): learning never collapses where the static engine's
//! notes are mostly followed, and the plain note (the default for a repository's pack) learns
//! as the PoC's note does.

use docsuggest_history::backtest::{self, DEFAULT_MAX_FILES, Options, Report};
use docsuggest_history::testkit;
use std::collections::BTreeMap;
use std::path::Path;

/// A small deterministic generator (xorshift64*): the histories are the same on every run.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Whether an event of probability `p` happens.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).expect("small")
    }
}

/// A test-case family: sources under `src/lang-<L>/print/`, each feature with a directory of
/// cases named after it, its snapshots among them, and per-language notes.
const CASES_PACK: &str = r#"{"signature": ["LICENSE"], "families": [
  {"name": "Printer", "kind": "doc", "rules": ["src/lang-*/**/*.js"],
   "companions": [
     {"path": "tests/cases/**", "prior": 1.0},
     {"path": "notes/*/*.md", "prior": 0.9},
     {"path": "tests/cases/**/__snapshots__/*.snap", "prior": 0.8}]}]}"#;

const LANGUAGES: [&str; 3] = ["js", "ts", "flow"];
const FEATURES: [&str; 16] = [
    "arrow", "member", "ternary", "comment", "decorator", "template", "class", "call",
    "array", "object", "string", "number", "function", "import", "export", "assign",
];

/// The shape of a generated history of the test-case family.
struct Shape {
    features: usize,
    edits: usize,
    /// How often an edit also changes its feature's input and snapshot.
    with_cases: f64,
    /// How often an edit also adds a note for its language.
    with_note: f64,
    seed: u64,
}

/// Writes the history: a root commit with the sources, the pack and a note per language (a
/// bulk commit, skipped); one commit per language and feature creating its cases (no family
/// file: skipped); then `edits` commits each editing one source, with its cases and a new
/// note as `shape` draws.
fn cases_history(dir: &Path, shape: &Shape) {
    let mut draw = Draw(shape.seed | 1);
    let features = &FEATURES[..shape.features];
    let mut files: BTreeMap<String, String> = BTreeMap::new();
    files.insert("LICENSE".into(), "MIT".into());
    files.insert(".dsh/doc-pack.json".into(), CASES_PACK.into());
    for language in LANGUAGES {
        files.insert(format!("notes/{language}/0.md"), "0".into());
        for feature in features {
            files.insert(format!("src/lang-{language}/print/{feature}.js"), "0".into());
        }
    }
    let mut states = vec![files.clone()];
    for language in LANGUAGES {
        for feature in features {
            let dir = format!("tests/cases/{language}/{feature}");
            for name in ["spec.js", "input.js", "__snapshots__/spec.js.snap"] {
                files.insert(format!("{dir}/{name}"), "0".into());
            }
            states.push(files.clone());
        }
    }
    let mut notes = [0usize; LANGUAGES.len()];
    for edit in 1..=shape.edits {
        let l = draw.below(LANGUAGES.len());
        let (language, feature) = (LANGUAGES[l], features[draw.below(features.len())]);
        let body = edit.to_string();
        files.insert(format!("src/lang-{language}/print/{feature}.js"), body.clone());
        if draw.chance(shape.with_cases) {
            let dir = format!("tests/cases/{language}/{feature}");
            files.insert(format!("{dir}/input.js"), body.clone());
            files.insert(format!("{dir}/__snapshots__/spec.js.snap"), body.clone());
        }
        if draw.chance(shape.with_note) {
            notes[l] += 1;
            files.insert(format!("notes/{language}/{}.md", notes[l]), body);
        }
        states.push(files.clone());
    }
    testkit::repository(dir, &states);
}

/// `backtest --train-fraction 0.25` of the repository at `repo` under the config `config`.
fn backtest_with(repo: &Path, config: &str) -> Report {
    let file = tempfile::NamedTempFile::new().expect("a config file");
    std::fs::write(file.path(), config).expect("write the config");
    let options = Options {
        repo: repo.to_path_buf(),
        config_file: Some(file.path().to_path_buf()),
        train_fraction: Some(0.25),
        max_files: DEFAULT_MAX_FILES,
        ..Options::default()
    };
    backtest::backtest(&options).expect("backtest")
}

/// The figures of the run named `name`.
fn figures<'r>(report: &'r Report, name: &str) -> &'r backtest::score::Figures {
    &report
        .runs
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no run {name}"))
        .figures
}

#[test]
fn plain_notes_learn_as_the_poc_notes_do_on_a_test_case_family() {
    let repo = tempfile::tempdir().expect("a temporary directory");
    let shape = Shape {
        features: 16,
        edits: 240,
        with_cases: 0.65,
        with_note: 0.45,
        seed: 58,
    };
    cases_history(repo.path(), &shape);
    let plain = backtest_with(repo.path(), "{}");
    let poc = backtest_with(repo.path(), r#"{"noteStyle": "poc"}"#);
    let (learning, poc_learning) = (figures(&plain, "learning"), figures(&poc, "learning"));
    let static_run = figures(&plain, "static");
    eprintln!(
        "static {} notes, recall {:?}; learning {} notes, recall {:?}; poc learning {} notes, recall {:?}",
        static_run.notes,
        static_run.recall_trigger,
        learning.notes,
        learning.recall_trigger,
        poc_learning.notes,
        poc_learning.recall_trigger
    );
    let recall = learning.recall_trigger.expect("coverable files");
    let poc_recall = poc_learning.recall_trigger.expect("coverable files");
    assert!(
        (recall - poc_recall).abs() <= 0.1,
        "learning recall {recall} with plain notes, {poc_recall} with the PoC's"
    );
}
