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
    "arrow",
    "member",
    "ternary",
    "comment",
    "decorator",
    "template",
    "class",
    "call",
    "array",
    "object",
    "string",
    "number",
    "function",
    "import",
    "export",
    "assign",
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
            files.insert(
                format!("src/lang-{language}/print/{feature}.js"),
                "0".into(),
            );
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
        files.insert(
            format!("src/lang-{language}/print/{feature}.js"),
            body.clone(),
        );
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

/// `backtest --train-fraction 0.25` of the repository at `repo` under the config `config`
/// (`--learning-only` with `learning_only`).
fn backtest_with(repo: &Path, config: &str, learning_only: bool) -> Report {
    let file = tempfile::NamedTempFile::new().expect("a config file");
    std::fs::write(file.path(), config).expect("write the config");
    let options = Options {
        repo: repo.to_path_buf(),
        config_file: Some(file.path().to_path_buf()),
        train_fraction: Some(0.25),
        max_files: DEFAULT_MAX_FILES,
        learning_only,
        ..Options::default()
    };
    backtest::backtest(&options).expect("backtest")
}

/// The figures a failure shows.
fn summary(f: &backtest::score::Figures) -> String {
    format!(
        "{} notes naming {}, companion precision {:?}, note precision {:?}, recall {:?}, nag {:.1}",
        f.notes,
        f.companions_named,
        f.companion_precision,
        f.note_precision,
        f.recall_trigger,
        f.nag_per_100_commits
    )
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

/// Issue 58's reproduction, scaled down to run in seconds (8 features a language, not 16, and
/// 120 edits, not 600: the collapse is the same, no plain learning note at all before the
/// fix): learning with plain notes recalls within 0.1 of learning with the PoC's.
#[test]
fn plain_notes_learn_as_the_poc_notes_do_on_a_test_case_family() {
    let repo = tempfile::tempdir().expect("a temporary directory");
    let shape = Shape {
        features: 8,
        edits: 120,
        with_cases: 0.65,
        with_note: 0.45,
        seed: 58,
    };
    cases_history(repo.path(), &shape);
    let plain = backtest_with(repo.path(), "{}", false);
    let poc = backtest_with(repo.path(), r#"{"noteStyle": "poc"}"#, true);
    let (learning, poc_learning) = (figures(&plain, "learning"), figures(&poc, "learning"));
    // The static engine notes on every edit here: learning has something to keep.
    assert!(figures(&plain, "static").notes > 0);
    let recall = learning.recall_trigger.expect("coverable files");
    let poc_recall = poc_learning.recall_trigger.expect("coverable files");
    assert!(
        (recall - poc_recall).abs() <= 0.1,
        "learning with plain notes {}, with the PoC's {}",
        summary(learning),
        summary(poc_learning)
    );
}

/// A companion of a generated family, in one of the forms a pack writes.
#[derive(Clone, Copy, Debug)]
enum Form {
    /// `tests/test_{}.py`: the source's own test.
    Template,
    /// `CHANGELOG.md`.
    Literal,
    /// `docs/*.md`, one page per source.
    Glob,
    /// `cases/**`, a directory of cases per source.
    Deep,
    /// `changelog.d/<name>.md`, a new fragment each time.
    Placeholder,
}

impl Form {
    const ALL: [Form; 5] = [
        Form::Template,
        Form::Literal,
        Form::Glob,
        Form::Deep,
        Form::Placeholder,
    ];

    fn path(self) -> &'static str {
        match self {
            Form::Template => "tests/test_{}.py",
            Form::Literal => "CHANGELOG.md",
            Form::Glob => "docs/*.md",
            Form::Deep => "cases/**",
            Form::Placeholder => "changelog.d/<name>.md",
        }
    }

    /// The file a change to source `name` touches for this companion (`fragment`: a new
    /// fragment's number).
    fn touched(self, name: &str, fragment: usize) -> String {
        match self {
            Form::Template => format!("tests/test_{name}.py"),
            Form::Literal => "CHANGELOG.md".into(),
            Form::Glob => format!("docs/{name}.md"),
            Form::Deep => format!("cases/{name}/expected.txt"),
            Form::Placeholder => format!("changelog.d/{fragment}.md"),
        }
    }
}

const SOURCES: [&str; 6] = ["parser", "lexer", "printer", "config", "render", "cache"];

/// A generated history: one family over `src/*.py` with three or four companions of random
/// forms, priors and rates at which a change to a source touches them.
struct Generated {
    companions: Vec<(Form, f64, f64)>,
    edits: usize,
}

impl Generated {
    fn draw(draw: &mut Draw) -> Generated {
        let mut forms = Form::ALL.to_vec();
        // Three or four: enough for the static engine's gate to pass on the pack's word.
        let count = 3 + draw.below(2);
        let companions = (0..count)
            .map(|_| {
                let form = forms.remove(draw.below(forms.len()));
                let prior = [0.5, 0.7, 0.9, 1.0][draw.below(4)];
                let rate = [0.05, 0.3, 0.6, 0.9][draw.below(4)];
                (form, prior, rate)
            })
            .collect();
        Generated {
            companions,
            edits: 40,
        }
    }

    fn pack(&self) -> String {
        self.pack_with("")
    }

    /// The pack with `extra` written into every companion (`, "validated": …`).
    fn pack_with(&self, extra: &str) -> String {
        let companions: Vec<String> = self
            .companions
            .iter()
            .map(|(form, prior, _)| {
                format!(r#"{{"path": "{}", "prior": {prior}{extra}}}"#, form.path())
            })
            .collect();
        format!(
            r#"{{"signature": ["LICENSE"], "families": [{{"name": "Src", "rules": ["src/*.py"],
               "companions": [{}]}}]}}"#,
            companions.join(", ")
        )
    }

    /// Writes the history: a root with every file, then `edits` commits each changing one
    /// source and each companion at its rate.
    fn write(&self, dir: &Path, draw: &mut Draw) {
        self.write_with_pack(dir, draw, &self.pack());
    }

    fn write_with_pack(&self, dir: &Path, draw: &mut Draw, pack: &str) {
        let mut files: BTreeMap<String, String> = BTreeMap::new();
        files.insert("LICENSE".into(), "MIT".into());
        files.insert(".dsh/doc-pack.json".into(), pack.to_string());
        files.insert("changelog.d/0.md".into(), "0".into());
        for name in SOURCES {
            files.insert(format!("src/{name}.py"), "0".into());
            for form in Form::ALL
                .into_iter()
                .filter(|f| !matches!(f, Form::Placeholder))
            {
                files.insert(form.touched(name, 0), "0".into());
            }
        }
        let mut states = vec![files.clone()];
        for edit in 1..=self.edits {
            let name = SOURCES[draw.below(SOURCES.len())];
            let body = edit.to_string();
            files.insert(format!("src/{name}.py"), body.clone());
            for (form, _, rate) in &self.companions {
                if draw.chance(*rate) {
                    files.insert(form.touched(name, edit), body.clone());
                }
            }
            states.push(files.clone());
        }
        testkit::repository(dir, &states);
    }
}

/// On any history, learning never collapses: where the static engine's notes are followed at
/// least 40 % of the time, learning recalls at least half of what it does; and learning nags
/// no more than it unless it names more companions, at least as precisely.
#[test]
fn learning_recalls_half_of_static_and_nags_no_more() {
    for seed in 1..=4u64 {
        let mut draw = Draw(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        let generated = Generated::draw(&mut draw);
        let repo = tempfile::tempdir().expect("a temporary directory");
        generated.write(repo.path(), &mut draw);
        let report = backtest_with(repo.path(), "{}", false);
        let (fixed, learning) = (figures(&report, "static"), figures(&report, "learning"));
        let case = format!(
            "seed {seed}, companions {:?}: static {}, learning {}",
            generated.companions,
            summary(fixed),
            summary(learning)
        );
        let recall = |f: &backtest::score::Figures| f.recall_trigger.unwrap_or(0.0);
        if fixed.note_precision.is_some_and(|p| p >= 0.4) {
            assert!(recall(learning) >= recall(fixed) / 2.0, "recall: {case}");
        }
        let names_more_as_well = learning.companions_named > fixed.companions_named
            && learning.companion_precision >= fixed.companion_precision;
        assert!(
            learning.nag_per_100_commits <= fixed.nag_per_100_commits || names_more_as_well,
            "nag: {case}"
        );
    }
}

/// A family whose one good companion is followed a little under half the time (as
/// jekyll's tests and scalafmt's cases are) does not fall silent for good once its notes dip
/// under `followThreshold`: while it speaks on fewer than half its calls, its bar is its own
/// follow rate. With the full bar alone it made 4 notes here (recall 0.015 against static's
/// 1.0); now it keeps a quarter of static's recall, more precisely than static.
#[test]
fn a_family_followed_under_half_the_time_does_not_fall_silent() {
    let generated = under_half();
    let repo = tempfile::tempdir().expect("a temporary directory");
    generated.write(repo.path(), &mut Draw(UNDER_HALF_SEED));
    let report = backtest_with(repo.path(), "{}", false);
    let (fixed, learning) = (figures(&report, "static"), figures(&report, "learning"));
    let case = format!("static {}, learning {}", summary(fixed), summary(learning));
    let recall = |f: &backtest::score::Figures| f.recall_trigger.unwrap_or(0.0);
    assert!(recall(fixed) > 0.8, "the static engine speaks: {case}");
    assert!(recall(learning) >= recall(fixed) / 4.0, "recall: {case}");
    assert!(
        learning.companion_precision >= fixed.companion_precision,
        "precision: {case}"
    );
}

/// The same family as a mined pack writes it, each companion with the validated figures the
/// miner kept it on, is held to the full `followThreshold`: its notes were earned on the
/// history, not asserted by the pack's author, and a dip silences them.
#[test]
fn a_validated_family_is_held_to_the_full_bar() {
    let generated = under_half();
    let (written, mined) = (tempfile::tempdir(), tempfile::tempdir());
    let (written, mined) = (written.expect("a directory"), mined.expect("a directory"));
    generated.write(written.path(), &mut Draw(UNDER_HALF_SEED));
    let validated = r#", "validated": {"named": 40, "followed": 18}"#;
    generated.write_with_pack(
        mined.path(),
        &mut Draw(UNDER_HALF_SEED),
        &generated.pack_with(validated),
    );
    let learning = |repo: &Path| {
        let report = backtest_with(repo, "{}", true);
        let f = figures(&report, "learning");
        (f.notes, summary(f))
    };
    let ((written_notes, written), (mined_notes, mined)) =
        (learning(written.path()), learning(mined.path()));
    assert!(
        mined_notes * 2 < written_notes,
        "written: {written}; mined: {mined}"
    );
}

const UNDER_HALF_SEED: u64 = 0x5eed_1234_abcd_0042;

/// One family whose template companion is followed 45 % of the time, with two rarely followed
/// others.
fn under_half() -> Generated {
    Generated {
        companions: vec![
            (Form::Template, 0.9, 0.45),
            (Form::Glob, 0.7, 0.05),
            (Form::Literal, 0.5, 0.05),
        ],
        edits: 160,
    }
}
