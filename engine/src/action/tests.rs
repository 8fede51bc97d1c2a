//! The unit tests of the actions: names judged, globs resolved on a temporary disk, lines read.

use super::names::{natural_cmp, parts, tokens};
use super::*;

#[test]
fn placeholder_shapes_match_names_like_them() {
    assert!(shaped("1547.change.md", "<name>.<ext>"));
    assert!(shaped("fix-thing.md", "<name>.md"));
    assert!(!shaped("README", "<name>.<ext>"));
    assert!(!shaped(".md", "<name>.md"));
    assert!(shaped("ab.b", "<x><y>.b"));
    assert!(!shaped("a.b", "<x><y>.b"));
    assert!(!shaped("anything", "<broken"));
}

#[test]
fn the_example_is_named_like_most_of_the_directory() {
    let names: Vec<String> = [
        "240.change.md",
        "1606.change.md",
        "towncrier_template.md.jinja",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(typical(&names).as_deref(), Some("1606.change.md"));
    assert_eq!(typical(&[]), None);
}

#[test]
fn an_action_less_what_a_note_already_names() {
    let named = vec!["a.py".to_string()];
    assert_eq!(Action::Update("a.py".into()).without(&named), None);
    assert_eq!(
        Action::OneOf(vec!["a.py".into(), "b.py".into()]).without(&named),
        Some(Action::OneOf(vec!["b.py".into()]))
    );
    assert_eq!(
        Action::Create("c.py".into()).without(&named),
        Some(Action::Create("c.py".into()))
    );
    // A glob says something new without its example; named already, nothing.
    let matching = |example: Option<&str>| Action::Matching {
        glob: "notes/*/*.md".into(),
        example: example.map(String::from),
    };
    assert_eq!(matching(Some("a.py")).without(&named), Some(matching(None)));
    assert_eq!(matching(None).without(&["notes/*/*.md".into()]), None);
}

#[test]
fn natural_order_reads_numbers_as_numbers() {
    let mut names = vec!["1547.change.md", "999.change.md", "10.change.md"];
    names.sort_by(|a, b| natural_cmp(a, b));
    assert_eq!(names, ["10.change.md", "999.change.md", "1547.change.md"]);
}

#[test]
fn name_parts_split_case_and_separators() {
    assert_eq!(parts("test_validators"), ["validators"]);
    assert_eq!(parts("CompletionHandlerTest"), ["completion", "handler"]);
    assert_eq!(parts("app"), ["app"]);
    assert!(parts("mod").is_empty());
    assert_eq!(tokens("lang-js"), ["lang", "js"]);
    assert!(tokens("src").is_empty());
}

/// Resolves `companion` for a call on `call` in a workspace holding `files`.
fn resolved(files: &[&str], companion: &str, call: &str) -> Action {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for f in files.iter().chain([&call]) {
        let path = dir.path().join(f);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, "").expect("write");
    }
    let probe = crate::probe::OsProbe;
    let bases = Bases::find(dir.path(), &dir.path().join(call), &probe);
    let glob = globset::GlobBuilder::new(companion)
        .literal_separator(true)
        .build()
        .expect("a glob");
    let c = CompiledCompanion::new(companion, 1.0, &glob);
    of(&c, None, &bases, call, &probe)
}

#[test]
fn a_glob_is_named_by_the_files_tied_to_the_call() {
    let specs = [
        "rules-style/src/test/kotlin/io/style/FooRuleSpec.kt",
        "rules-style/src/test/kotlin/io/style/BarSpec.kt",
        "rules-style/src/test/kotlin/io/style/BazSpec.kt",
        "rules-other/src/test/kotlin/io/other/QuxSpec.kt",
    ];
    assert_eq!(
        resolved(
            &specs,
            "rules-*/src/test/kotlin/**/*Spec.kt",
            "rules-style/src/main/kotlin/io/style/FooRule.kt"
        ),
        Action::OneOf(vec![specs[0].to_string()])
    );
    // Nothing tied, one directory: update or add a file there.
    assert_eq!(
        resolved(
            &specs[..2],
            "rules-*/src/test/kotlin/**/*Spec.kt",
            "a/Misc.kt"
        ),
        Action::UpdateOrAddIn {
            dir: "rules-style/src/test/kotlin/io/style".into(),
            example: Some(specs[0].to_string())
        }
    );
    // Nothing tied, several directories: the one nearest the call's.
    assert_eq!(
        resolved(
            &specs,
            "rules-*/src/test/kotlin/**/*Spec.kt",
            "rules-other/src/Misc.kt"
        ),
        Action::UpdateOrAddIn {
            dir: "rules-other/src/test/kotlin/io/other".into(),
            example: Some(specs[3].to_string())
        }
    );
    // Three files or fewer, far from the call's: all of them.
    assert_eq!(
        resolved(
            &specs[2..],
            "rules-*/src/test/kotlin/**/*Spec.kt",
            "a/Misc.kt"
        ),
        Action::OneOf(vec![specs[3].to_string(), specs[2].to_string()])
    );
    // The README above the call's file.
    let readmes = [
        "README.md",
        "sdk/README.md",
        "sdk/trace/README.md",
        "api/README.md",
        "x/README.md",
    ];
    assert_eq!(
        resolved(&readmes, "**/README.md", "sdk/trace/span.go"),
        Action::OneOf(vec![
            "sdk/trace/README.md".to_string(),
            "sdk/README.md".to_string()
        ])
    );
    // Nothing tied: one directory is named with an example; several are not named.
    let cases = [
        "tests/cases/a.py",
        "tests/cases/b.py",
        "tests/cases/c.py",
        "tests/cases/d.py",
    ];
    assert_eq!(
        resolved(&cases, "tests/cases/*.py", "src/linegen.py"),
        Action::UpdateOrAddIn {
            dir: "tests/cases".into(),
            example: Some("tests/cases/d.py".into())
        }
    );
    // Spread far from the call's: the glob itself, with the example nearest the call's.
    assert_eq!(
        resolved(&readmes, "**/README.md", "src/linegen.py"),
        Action::Matching {
            glob: "**/README.md".into(),
            example: Some("README.md".into())
        }
    );
    assert_eq!(
        resolved(&[], "docs/*.rst", "src/a.py"),
        Action::Matching {
            glob: "docs/*.rst".into(),
            example: None
        }
    );
}

/// The test-case layout of issue 58: a directory of cases per language and feature.
const CASES: [&str; 9] = [
    "tests/cases/js/arrow/spec.js",
    "tests/cases/js/arrow/input.js",
    "tests/cases/js/arrow/__snapshots__/spec.js.snap",
    "tests/cases/ts/arrow/spec.js",
    "tests/cases/ts/arrow/input.js",
    "tests/cases/ts/arrow/__snapshots__/spec.js.snap",
    "tests/cases/js/member/spec.js",
    "tests/cases/js/member/input.js",
    "tests/cases/js/member/__snapshots__/spec.js.snap",
];

#[test]
fn a_trailing_double_star_matches_every_file_below() {
    // Every file below, tied to the call's by the directory named after it.
    let Action::OneOf(files) = resolved(&CASES, "tests/cases/**", "src/lang-js/print/arrow.js")
    else {
        panic!("the files tied to the call's");
    };
    assert_eq!(files.len(), MAX_NAMED);
    assert!(
        files.iter().all(|f| f.starts_with("tests/cases/js/arrow/")),
        "{files:?}"
    );
    // Below a directory, however deep.
    assert_eq!(
        resolved(
            &["docs/a/b/c/guide.md", "docs/z/intro.md"],
            "docs/**",
            "src/x.py"
        ),
        Action::OneOf(vec!["docs/a/b/c/guide.md".into(), "docs/z/intro.md".into()])
    );
    // Hidden files and directories are not among them.
    assert_eq!(
        resolved(&["docs/.keep", "docs/.git/x"], "docs/**", "src/x.py"),
        Action::Matching {
            glob: "docs/**".into(),
            example: None
        }
    );
}

#[test]
fn a_directory_named_after_the_call_ties_its_files_to_it() {
    // Generic names (`spec`), tied by their feature's directory; the call's language's first,
    // the other languages' left out.
    assert_eq!(
        resolved(
            &CASES,
            "tests/cases/**/__snapshots__/*.snap",
            "src/lang-js/print/arrow.js"
        ),
        Action::OneOf(vec![
            "tests/cases/js/arrow/__snapshots__/spec.js.snap".into()
        ])
    );
    assert_eq!(
        resolved(
            &CASES,
            "tests/cases/**/input.js",
            "src/lang-ts/print/arrow.js"
        ),
        Action::OneOf(vec!["tests/cases/ts/arrow/input.js".into()])
    );
    // The glob's literal prefix ties nothing: a call named like it is not tied to every file.
    assert_eq!(
        resolved(&CASES, "tests/cases/**/*.js", "src/cases.js"),
        Action::Matching {
            glob: "tests/cases/**/*.js".into(),
            example: Some("tests/cases/js/arrow/spec.js".into())
        }
    );
}

#[test]
fn a_package_s_files_are_shown_from_the_root() {
    let files = [
        "packages/cli/package.json",
        "packages/cli/src/add.test.ts",
        "packages/cli/src/other.test.ts",
        "packages/cli/src/more.test.ts",
        "packages/cli/src/last.test.ts",
    ];
    assert_eq!(
        resolved(&files, "src/**/*.test.*", "packages/cli/src/add.ts"),
        Action::OneOf(vec!["packages/cli/src/add.test.ts".into()])
    );
}

#[test]
fn a_glob_with_no_file_for_the_call_names_the_one_to_create() {
    let files = [
        "packages/cli/package.json",
        "packages/cli/src/other/x.test.ts",
    ];
    assert_eq!(
        resolved(&files, "src/**/*.test.*", "packages/cli/src/add/index.ts"),
        Action::Create("packages/cli/src/add/index.test.ts".into())
    );
    assert_eq!(
        resolved(&["pkg/a_test.go"], "**/*_test.go", "pkg/sub/span.go"),
        Action::Create("pkg/sub/span_test.go".into())
    );
    // The call's own directory is not one the glob matches: nothing to create there.
    assert_eq!(
        resolved(&[], "tests/*.py", "src/linegen.py"),
        Action::Matching {
            glob: "tests/*.py".into(),
            example: None
        }
    );
}

#[test]
fn a_file_whose_name_prints_other_than_it_is_is_never_named() {
    let files = ["docs/a\u{202e}dm.txt.md", "docs/b\nline.md", "docs/c.md"];
    assert_eq!(
        resolved(&files, "docs/*.md", "src/x.py"),
        Action::UpdateOrAddIn {
            dir: "docs".into(),
            example: Some("docs/c.md".into())
        }
    );
    assert_eq!(
        resolved(
            &["log.d/1\u{2028}.md", "log.d/2.md"],
            "log.d/<name>.md",
            "src/x.py"
        ),
        Action::AddTo {
            dir: "log.d".into(),
            example: Some("log.d/2.md".into())
        }
    );
}

#[test]
fn actions_read_as_instructions() {
    assert_eq!(Action::Update("a.md".into()).text(), "update a.md");
    assert_eq!(
        Action::OneOf(vec!["a".into(), "b".into(), "c".into()]).text(),
        "update a, b or c"
    );
    assert_eq!(
        Action::AddTo {
            dir: "changelog.d".into(),
            example: Some("changelog.d/1.md".into())
        }
        .text(),
        "add a new file to changelog.d/, named like changelog.d/1.md"
    );
    assert_eq!(
        Action::Matching {
            glob: "notes/**/*.txt".into(),
            example: Some("notes/a/x.txt".into())
        }
        .text(),
        "update or add a file matching notes/**/*.txt, like notes/a/x.txt"
    );
}
