//! The pipeline's steps, table by table: locate, exclude, detect, filter, gate.

use docsuggest_tests::{Fixture, config, judge, named, null_engine, one_family_pack};
use serde_json::json;

/// A workspace whose repo pack has one family `T` with the given companions.
fn pack_fixture(companions: &[&str]) -> Fixture {
    let f = Fixture::empty();
    f.write("ws.marker", "");
    f.write("t/a.md", "");
    f.write(".dsh/doc-pack.json", &one_family_pack(companions));
    f
}

fn named_for(f: &Fixture, rel: &str) -> String {
    let mut engine = null_engine(config(json!({"noteStyle": "poc"})));
    named(&judge(&mut engine, f, "a", rel))
}

#[test]
fn locate_walks_up_to_the_nearest_signature() {
    let f = Fixture::poc();
    f.write("nested/Documentation/ARCHIVE-STYLE.md", "");
    let mut engine = null_engine(config(json!({})));
    let outer = engine.workspace_key_of(&f.path("packages/core/SCHEME.md"));
    let inner = engine.workspace_key_of(&f.path("nested/Documentation/INDEX.md"));
    let root_name = f.root().file_name().and_then(|n| n.to_str()).unwrap_or("");
    assert!(
        outer.as_deref().is_some_and(|k| k.starts_with(root_name)),
        "{outer:?}"
    );
    assert!(
        inner.as_deref().is_some_and(|k| k.starts_with("nested-")),
        "{inner:?}"
    );
    let foreign = Fixture::empty();
    assert_eq!(
        engine.workspace_key_of(&foreign.path("Documentation/INDEX.md")),
        None
    );
    assert_eq!(
        judge(&mut engine, &foreign, "a", "Documentation/Plans/X.md")
            .ledger
            .into_strings(),
        ["doc-suggester: abstained foreign-workspace 0.00"]
    );
}

#[test]
fn a_repo_pack_sets_its_own_signature() {
    let f = pack_fixture(&["ws.marker"]);
    assert_eq!(named_for(&f, "t/a.md"), "ws.marker");
    // Without its marker the directory is no workspace: the pack's signature is the rule.
    f.remove("ws.marker");
    assert_eq!(
        named_for(&f, "t/a.md"),
        "doc-suggester: abstained foreign-workspace 0.00"
    );
}

#[test]
fn excluded_components_are_ignored_like_unjudged_calls() {
    let f = Fixture::poc();
    let mut engine = null_engine(config(json!({})));
    for rel in [
        "node_modules/x/README.md",
        "packages/core/Target/CHANGELOG.md",
        ".git/README.md",
        "dist/README.md",
    ] {
        assert_eq!(
            judge(&mut engine, &f, "a", rel),
            Default::default(),
            "{rel}"
        );
    }
    let kept = judge(&mut engine, &f, "a", "distribution/README.md");
    assert!(!kept.ledger.is_empty());
    let custom = config(json!({"exclude": ["Documentation"]}));
    let mut engine = null_engine(custom);
    assert!(
        judge(&mut engine, &f, "a", "Documentation/Plans/SEARCH.md")
            .ledger
            .is_empty()
    );
    assert_eq!(engine.stats().judged, 0);
}

#[test]
fn exclusion_is_relative_to_the_workspace_root() {
    let outer = Fixture::empty();
    // Every component above the root is an excluded name; none of them counts.
    let nested = "dist/Target/node_modules/.git/ws";
    for file in docsuggest_tests::POC_FILES {
        outer.write(&format!("{nested}/{file}"), "");
    }
    outer.write(&format!("{nested}/node_modules/x/README.md"), "");
    outer.write("dist/notes/README.md", "");
    let mut engine = null_engine(config(json!({})));
    let root = outer.path(nested).display().to_string();
    let call = |path: String| docsuggest_engine::Call {
        agent: "a".into(),
        tool: "read".into(),
        path,
        cwd: Some(root.clone()),
    };
    let judged = engine
        .judge(&call("Documentation/Plans/SEARCH.md".into()))
        .expect("valid call");
    assert_eq!(judged.note.map(|n| n.family), Some("Plan".to_string()));
    // Below the root an excluded component still ignores the call.
    let below = engine
        .judge(&call("node_modules/x/README.md".into()))
        .expect("valid call");
    assert_eq!(below, Default::default());
    // A path in no workspace has no root: any excluded component ignores it.
    let foreign = outer.path("dist/notes/README.md").display().to_string();
    assert_eq!(
        engine.judge(&call(foreign)).expect("valid call"),
        Default::default()
    );
    assert_eq!(engine.stats().judged, 1);
}

#[test]
fn unjudged_tools_and_disabled_engines_say_nothing() {
    let f = Fixture::poc();
    let mut engine = null_engine(config(json!({"tools": ["read"]})));
    let v = engine
        .judge(&f.call("a", "grep", "Documentation/Plans/SEARCH.md"))
        .expect("valid call");
    assert_eq!(v, Default::default());
    let mut engine = null_engine(config(json!({"enabled": false})));
    assert_eq!(
        judge(&mut engine, &f, "a", "Documentation/Plans/SEARCH.md"),
        Default::default()
    );
    assert_eq!(
        engine.startup(),
        ["doc-suggester: disabled (enabled=false)"]
    );
}

#[test]
fn detect_classifies_paths_and_patterns() {
    let f = Fixture::poc();
    let mut engine = null_engine(config(json!({})));
    for (tool, rel, first_line) in [
        (
            "read",
            "src/main.rs",
            "doc-suggester: abstained no-signal 0.00",
        ),
        (
            "grep",
            "**/*.md",
            "doc-suggester: abstained ambiguous-target Plan 0.00",
        ),
        (
            "glob",
            "Documentation/*.md",
            "doc-suggester: abstained ambiguous-target Archive 0.00",
        ),
        (
            "glob",
            "Documentation/Plans/*.md",
            "doc-suggester: suggest Plan 0.91 companions Documentation/INDEX.md,Documentation/ARCHIVE-STYLE.md,POC-BRIEF.md,CHANGELOG.md",
        ),
    ] {
        let v = engine
            .judge(&f.call(&format!("{tool}-agent"), tool, rel))
            .expect("valid call");
        assert_eq!(v.ledger.first_line(), Some(first_line), "{tool} {rel}");
    }
}

#[test]
fn filter_keeps_what_exists_under_a_base_and_never_rewrites() {
    let cases: &[(&[&str], &[&str], &str)] = &[
        // (companions, extra files, expected note companions or ledger)
        (&["ws.marker", "missing.md"], &[], "ws.marker"),
        (&["*/SCHEME.md"], &["pkg/SCHEME.md"], "*/SCHEME.md"),
        (
            &["*/SCHEME.md"],
            &["deep/pkg/SCHEME.md"],
            "doc-suggester: abstained no-companions T 0.00",
        ),
        (&["docs/*.md"], &["docs/x.txt"], "docs/*.md"),
        (
            &["nodir/*.md"],
            &[],
            "doc-suggester: abstained no-companions T 0.00",
        ),
        (
            &["Documentation/Plans/<Plan>.md"],
            &[],
            "Documentation/Plans/<Plan>.md",
        ),
        (
            &["../outside.md", "/etc/hostname", "t/../ws.marker"],
            &[],
            "doc-suggester: abstained no-companions T 0.00",
        ),
    ];
    for (companions, files, expect) in cases {
        let f = pack_fixture(companions);
        for file in *files {
            f.write(file, "");
        }
        assert_eq!(
            named_for(&f, "t/a.md"),
            *expect,
            "{companions:?} with {files:?}"
        );
    }
}

#[test]
fn filter_looks_under_the_package_root_and_its_parent() {
    let f = pack_fixture(&["package.json", "*/README.md", "LICENSE"]);
    f.write("t/pkgs/one/package.json", "");
    f.write("t/pkgs/two/README.md", "");
    f.write("t/pkgs/one/t/a.md", "");
    let pack =
        one_family_pack(&["package.json", "*/README.md", "LICENSE"]).replace("t/*.md", "**/t/*.md");
    f.write(".dsh/doc-pack.json", &pack);
    // package.json exists only in the package root; */README.md only beside it in the parent.
    assert_eq!(
        named_for(&f, "t/pkgs/one/t/a.md"),
        "package.json,*/README.md"
    );
    assert_eq!(
        named_for(&f, "t/a.md"),
        "doc-suggester: abstained no-companions T 0.00"
    );
}

#[cfg(unix)]
#[test]
fn symlinks_that_leave_the_root_are_dropped() {
    let outside = Fixture::empty();
    outside.write("secret.md", "");
    let f = pack_fixture(&["escape.md", "inside.md", "escdir/*.md"]);
    f.write("real.md", "");
    std::os::unix::fs::symlink(outside.path("secret.md"), f.path("escape.md")).expect("symlink");
    std::os::unix::fs::symlink(f.path("real.md"), f.path("inside.md")).expect("symlink");
    std::os::unix::fs::symlink(outside.root(), f.path("escdir")).expect("symlink");
    assert_eq!(named_for(&f, "t/a.md"), "inside.md");
}

#[test]
fn the_family_threshold_overrides_the_config_gate() {
    let f = Fixture::poc();
    let strict = Fixture::poc();
    let pack = serde_json::to_string(&docsuggest_schema::Pack {
        families: docsuggest_schema::Pack::builtin()
            .families
            .into_iter()
            .map(|mut fam| {
                fam.threshold = (fam.name == "Plan").then_some(0.95);
                fam
            })
            .collect(),
        ..docsuggest_schema::Pack::builtin()
    })
    .expect("serialise");
    strict.write(".dsh/doc-pack.json", &pack);
    for (fixture, threshold, expect) in [
        (&f, 0.75, "doc-suggester: suggest Plan 0.91"),
        (
            &f,
            0.92,
            "doc-suggester: abstained low-confidence Plan 0.91",
        ),
        (
            &strict,
            0.5,
            "doc-suggester: abstained low-confidence Plan 0.91",
        ),
    ] {
        let mut engine = null_engine(config(json!({ "threshold": threshold })));
        let v = judge(&mut engine, fixture, "a", "Documentation/Plans/SEARCH.md");
        assert!(
            v.ledger[0].starts_with(expect),
            "{threshold}: {:?}",
            v.ledger
        );
    }
}

#[test]
fn max_companions_and_max_note_chars_trim_whole_lines() {
    let f = Fixture::poc();
    let mut engine = null_engine(config(json!({"maxCompanions": 2, "threshold": 0.0})));
    let v = judge(&mut engine, &f, "a", "Documentation/Plans/SEARCH.md");
    assert_eq!(
        named(&v),
        "Documentation/INDEX.md,Documentation/ARCHIVE-STYLE.md"
    );
    // Header (82 chars) + "\n- Documentation/INDEX.md" (25) fits in 110, the next line does not.
    let mut engine = null_engine(config(json!({"maxNoteChars": 110, "threshold": 0.0})));
    let v = judge(&mut engine, &f, "a", "Documentation/Plans/SEARCH.md");
    let note = v.note.expect("a note");
    assert_eq!(note.companions, ["Documentation/INDEX.md"]);
    assert_eq!(note.text.chars().count(), 107);
    assert!(
        v.ledger[0].starts_with("doc-suggester: suggest Plan 0.54 "),
        "{:?}",
        v.ledger
    );
}

#[test]
fn already_touched_companions_are_dropped() {
    let f = Fixture::poc();
    // The step rule: the evidence model would also leave out what agent a's Index note names.
    let mut engine = null_engine(config(json!({"threshold": 0.0, "rateModel": "step"})));
    judge(&mut engine, &f, "a", "Documentation/INDEX.md");
    let v = judge(&mut engine, &f, "b", "Documentation/Plans/SEARCH.md");
    assert!(
        named(&v).starts_with("Documentation/INDEX.md"),
        "other agents' touches do not count"
    );
    let v = judge(&mut engine, &f, "a", "Documentation/Plans/SEARCH.md");
    assert_eq!(
        named(&v),
        "Documentation/ARCHIVE-STYLE.md,POC-BRIEF.md,CHANGELOG.md"
    );
}

#[test]
fn a_repo_pack_is_reread_when_it_changes_and_a_bad_one_falls_back() {
    let f = pack_fixture(&["ws.marker"]);
    let mut engine = null_engine(config(json!({})));
    assert_eq!(named(&judge(&mut engine, &f, "a", "t/a.md")), "ws.marker");
    f.write("t/b.md", "");
    f.write(
        ".dsh/doc-pack.json",
        &one_family_pack(&["t/b.md", "ws.marker"]),
    );
    assert_eq!(
        named(&judge(&mut engine, &f, "b", "t/a.md")),
        "t/b.md,ws.marker"
    );
    // A malformed pack: the built-in pack (and its signature) takes over, with a warning.
    f.write("Documentation/ARCHIVE-STYLE.md", "");
    f.write("Documentation/Plans/P.md", "");
    f.write("Documentation/INDEX.md", "");
    f.write(
        ".dsh/doc-pack.json",
        r#"{"families": [{"name": "T", "rules": ["t/[.md"], "companions": []}]}"#,
    );
    let v = judge(&mut engine, &f, "c", "Documentation/Plans/P.md");
    assert_eq!(v.warnings.len(), 1, "{v:?}");
    let pack_file = f.path(".dsh/doc-pack.json").display().to_string();
    assert!(
        v.warnings[0].starts_with(&format!(
            "invalid pack {pack_file}: families[0].rules[0]: invalid glob"
        )),
        "{}",
        v.warnings[0]
    );
    assert_eq!(
        v.ledger[0],
        "doc-suggester: abstained low-confidence Plan 0.72"
    );
}

#[test]
fn bad_calls_are_errors_that_name_the_problem() {
    let f = Fixture::poc();
    let mut engine = null_engine(config(json!({})));
    let mut call = f.call("a", "read", "x.md");
    call.cwd = None;
    let err = engine.judge(&call).expect_err("relative without cwd");
    assert_eq!(err.code(), "relative-path-without-cwd");
    assert_eq!(
        err.to_string(),
        "path \"x.md\" is relative and the call has no cwd"
    );
    for (agent, path, code) in [
        ("", "x.md", "empty-field"),
        ("a", "x\0.md", "nul-byte"),
        ("a", "/../../..", "path-above-root"),
    ] {
        let err = engine
            .judge(&f.call(agent, "read", path))
            .expect_err("a bad call");
        assert_eq!(err.code(), code, "{agent:?} {path:?}");
    }
    assert_eq!(engine.stats().judged, 0);
}

#[test]
fn a_bad_config_patch_changes_nothing() {
    let mut engine = null_engine(config(json!({})));
    let before = engine.config().clone();
    let err = engine
        .configure(&json!({"threshold": -1, "learnWindow": 0, "weights": {"scope": "high"}}))
        .expect_err("three problems");
    assert_eq!(
        err.to_string(),
        "invalid config in configure (3 problems): learnWindow: 0 is outside 1..=1048576; \
         threshold: -1 is outside 0..1; weights.scope: expected a number, found a string"
    );
    assert_eq!(engine.config(), &before);
}

#[test]
fn the_caching_probe_judges_like_the_os_probe_and_sees_changes_at_once() {
    use docsuggest_engine::{Engine, probe_cache::CachingProbe, testing::NullStore};
    let f = Fixture::poc();
    let mut cached = Engine::new(config(json!({})), NullStore::boxed(), CachingProbe::new());
    let mut plain = null_engine(config(json!({})));
    let mut both = |f: &Fixture, agent: &str, rel: &str| {
        let call = f.call(agent, "read", rel);
        let a = cached.judge(&call).expect("valid call");
        let b = plain.judge(&call).expect("valid call");
        assert_eq!(a, b, "{rel}");
        named(&a)
    };
    for (i, rel) in docsuggest_tests::POC_FILES.iter().enumerate() {
        both(&f, &format!("agent{i}"), rel);
    }
    let plan = "Documentation/Plans/SEARCH.md";
    f.remove("CHANGELOG.md");
    assert_eq!(
        both(&f, "x1", plan),
        "Documentation/INDEX.md,Documentation/ARCHIVE-STYLE.md,POC-BRIEF.md"
    );
    f.write("CHANGELOG.md", "");
    assert!(both(&f, "x2", plan).ends_with(",CHANGELOG.md"));
    f.remove("Documentation/ARCHIVE-STYLE.md");
    assert_eq!(
        both(&f, "x3", plan),
        "doc-suggester: abstained foreign-workspace 0.00"
    );
}

#[test]
fn a_judged_call_reads_each_rate_once_through_one_snapshot() {
    use docsuggest_engine::{Engine, locate::workspace_key, testing::NullStore};
    use docsuggest_schema::RateKey;
    let f = Fixture::poc();
    let store = NullStore::default();
    let reads = store.reads.clone();
    let mut engine = Engine::new(
        config(json!({})),
        Box::new(store),
        docsuggest_engine::probe::OsProbe,
    );
    let plan = judge(&mut engine, &f, "a", "Documentation/Plans/SEARCH.md");
    assert!(plan.note.is_some());
    let ws = workspace_key(f.root());
    let expected: Vec<RateKey> = vec![
        RateKey::companion(&ws, "Plan", "Documentation/INDEX.md"),
        RateKey::family(&ws, "Plan"),
        RateKey::companion(&ws, "Plan", "Documentation/ARCHIVE-STYLE.md"),
        RateKey::companion(&ws, "Plan", "POC-BRIEF.md"),
        RateKey::companion(&ws, "Plan", "CHANGELOG.md"),
    ];
    let seen = reads.lock().expect("the read log").clone();
    assert_eq!(seen, vec![expected], "one snapshot, each key once");
    // A call that stops before measuring opens no snapshot.
    judge(&mut engine, &f, "a", "packages/alpha/src/index.ts");
    assert_eq!(reads.lock().expect("the read log").len(), 1);
}
