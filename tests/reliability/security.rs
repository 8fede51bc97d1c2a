//! What the engine names and the files the store writes: companions never point outside the
//! workspace, notes carry no control characters, store files are readable by their owner only.

use crate::scale;
use docsuggest_engine::Verdict;
use docsuggest_schema::StoreContents;
use docsuggest_schema::text::is_invisible;
use docsuggest_store::{FailOpenStore, RedbStore, StoreOptions};
use docsuggest_tests::{Fixture, config, memory_engine, one_family_pack};
use proptest::prelude::*;
use serde_json::json;
use std::path::{Component, Path};

/// A workspace `ws/` with the one-family pack and these companions, next to a directory
/// `outside/` holding files a companion must never reach.
struct Escape {
    _dir: tempfile::TempDir,
    ws: Fixture,
    outside: std::path::PathBuf,
}

fn workspace(companions: &[&str]) -> Escape {
    let dir = tempfile::tempdir().expect("tempdir");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("sub")).expect("outside");
    for f in ["secret.md", "sub/x.md", "x.md"] {
        std::fs::write(outside.join(f), "secret").expect("outside file");
    }
    // The fixture's own temp dir is the workspace root; `outside` is a sibling elsewhere.
    let ws = Fixture::empty();
    ws.write("ws.marker", "");
    ws.write("t/a.md", "");
    ws.write("inside.md", "");
    ws.write("docs/ok.md", "");
    ws.write(".dsh/doc-pack.json", &one_family_pack(companions));
    Escape {
        _dir: dir,
        ws,
        outside,
    }
}

fn judge(e: &Escape) -> Verdict {
    let mut engine = memory_engine(config(json!({"log": false, "threshold": 0.0})));
    engine
        .judge(&e.ws.call("a", "read", "t/a.md"))
        .expect("a well-formed call")
}

/// Whether a companion the engine named stays inside the root: relative, no `..`, and (when
/// it exists) still inside once symlinks are resolved.
fn stays_inside(root: &Path, companion: &str) -> Result<(), String> {
    let path = Path::new(companion);
    if path.is_absolute() || companion.starts_with('/') {
        return Err(format!("{companion:?} is absolute"));
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(format!("{companion:?} climbs out with .."));
    }
    let literal: std::path::PathBuf = path
        .components()
        .take_while(|c| {
            !c.as_os_str()
                .to_string_lossy()
                .contains(['*', '?', '[', '{', '<'])
        })
        .collect();
    let full = root.join(&literal);
    if let (Ok(real), Ok(real_root)) = (full.canonicalize(), root.canonicalize())
        && !real.starts_with(&real_root)
    {
        return Err(format!("{companion:?} resolves to {}", real.display()));
    }
    Ok(())
}

/// Judges `t/a.md` in a workspace whose pack names `rows` (companion, whether a note may
/// name it), with symlinks that lead outside; answers every problem found.
fn escapes(rows: &[(&str, bool)]) -> Vec<String> {
    let companions: Vec<&str> = rows.iter().map(|(c, _)| *c).collect();
    let e = workspace(&companions);
    let root = e.ws.root();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(e.outside.join("secret.md"), root.join("link-file.md")).expect("symlink");
        symlink(&e.outside, root.join("link-dir")).expect("symlink");
        // `*/x.md` would match through a symlinked subdirectory of the root.
        symlink(e.outside.join("sub"), root.join("sub-link")).expect("symlink");
    }
    let verdict = judge(&e);
    let Some(note) = verdict.note else {
        return vec![format!("no note: {:?}", verdict.ledger)];
    };
    let mut problems = Vec::new();
    for c in &note.companions {
        if let Err(p) = stays_inside(root, c) {
            problems.push(p);
        }
    }
    for (c, allowed) in rows {
        let named = note.companions.iter().any(|n| n == c);
        if named && !allowed {
            problems.push(format!("the note names {c:?}"));
        }
        if !named && *allowed {
            problems.push(format!("the note drops {c:?}, which is inside"));
        }
    }
    if note.text.contains(&*e.outside.to_string_lossy()) {
        problems.push(format!(
            "the note shows the outside directory: {}",
            note.text
        ));
    }
    problems
}

#[test]
fn companions_never_leave_the_workspace() {
    let problems = escapes(&[
        ("inside.md", true),
        ("docs/*.md", true),
        ("<Name>.md", true),
        ("../outside/secret.md", false),
        ("docs/../../outside/secret.md", false),
        ("/etc/hostname", false),
        ("link-file.md", false),
        ("link-dir/x.md", false),
        ("link-dir/*.md", false),
        ("*/x.md", false),
    ]);
    assert!(problems.is_empty(), "{problems:#?}");
}

/// A `{}` template is kept when its file exists or, for a file the change must create, when
/// its directory does: neither may lead outside. A substituted file that is a symlink out of
/// the workspace (or a dangling one to an absolute path) is dropped even though its directory
/// is inside, and so is a substitution that is itself a symlink to a directory elsewhere.
#[cfg(unix)]
#[test]
fn template_companions_never_leave_the_workspace_through_symlinks() {
    use std::os::unix::fs::symlink;
    let rows: &[(&str, bool)] = &[
        ("inside.md", true),
        ("real/{}.md", true),
        ("tests/{}_test.md", false),
        ("dangle/{}.md", false),
        ("{}", false),
        ("{}.md", false),
        ("ldir/{}.md", false),
        ("ldir/{}/x.md", false),
    ];
    let companions: Vec<&str> = rows.iter().map(|(c, _)| *c).collect();
    let e = workspace(&companions);
    let root = e.ws.root();
    for dir in ["real", "tests", "dangle"] {
        std::fs::create_dir_all(root.join(dir)).expect("dir");
    }
    // The call is on `t/a.md`, so every template substitutes `a`.
    symlink(e.outside.join("secret.md"), root.join("tests/a_test.md")).expect("symlink");
    symlink(
        "/nonexistent-docsuggest-target/a.md",
        root.join("dangle/a.md"),
    )
    .expect("symlink");
    symlink(&e.outside, root.join("a")).expect("symlink");
    symlink(e.outside.join("x.md"), root.join("a.md")).expect("symlink");
    symlink(&e.outside, root.join("ldir")).expect("symlink");
    let verdict = judge(&e);
    let named = verdict
        .note
        .as_ref()
        .map(|n| n.companions.clone())
        .unwrap_or_default();
    assert_eq!(named, ["inside.md", "real/a.md"], "{:?}", verdict.ledger);
}

/// Text that prints nothing (a right-to-left override, a line separator, a zero-width space)
/// never reaches a note or a ledger line: a call path carrying it gives its template no
/// substitution, and a pack carrying it is refused (the built-in pack takes over).
#[test]
fn notes_carry_no_invisible_text() {
    for mark in [
        '\u{202e}', '\u{2028}', '\u{2029}', '\u{200b}', '\u{2066}', '\u{feff}',
    ] {
        let e = workspace(&["inside.md", "real/{}.md"]);
        std::fs::create_dir_all(e.ws.root().join("real")).expect("dir");
        let call = format!("t/a{mark}b.md");
        e.ws.write(&call, "");
        let mut engine = memory_engine(config(json!({"log": false, "threshold": 0.0})));
        let verdict = engine
            .judge(&e.ws.call("a", "read", &call))
            .expect("a well-formed call");
        let named = verdict
            .note
            .as_ref()
            .map(|n| n.companions.clone())
            .unwrap_or_default();
        assert_eq!(
            named,
            ["inside.md"],
            "{:x}: {:?}",
            mark as u32,
            verdict.ledger
        );
        assert!(
            check_verdict(&verdict).is_ok(),
            "{:?}",
            check_verdict(&verdict)
        );

        let companion = format!("in{mark}side.md");
        let e = workspace(&[&companion]);
        e.ws.write(&companion, "");
        let verdict = judge(&e);
        assert!(verdict.note.is_none(), "{:x}: {verdict:?}", mark as u32);
        assert!(
            check_verdict(&verdict).is_ok(),
            "{:?}",
            check_verdict(&verdict)
        );
        let refused = docsuggest_schema::Pack::from_json_str(&one_family_pack(&[&companion]), "p")
            .expect_err("a pack naming an invisible character");
        assert!(
            refused.to_string().contains("invisible character"),
            "{refused}"
        );
    }
}

/// A `<placeholder>` companion is kept without an existence check, so it must not be allowed
/// to climb out or be absolute either.
#[test]
fn placeholder_companions_never_leave_the_workspace() {
    let problems = escapes(&[
        ("inside.md", true),
        ("<Name>.md", true),
        ("docs/<Name>.md", true),
        ("../<Name>.md", false),
        ("/<Name>.md", false),
        ("docs/../../<Name>.md", false),
    ]);
    assert!(
        problems.is_empty(),
        "{problems:#?}\n(engine/src/compiled.rs classifies a companion as a placeholder before \
         checking whether it escapes; the escape check must come first)"
    );
}

/// A repo pack that is a symlink out of the workspace, a directory, or too big is never read:
/// the built-in pack answers, and nothing of an outside file reaches the verdict. (FIFOs and
/// devices, which would block or read forever if opened, are driven through the real binary
/// under a timeout in `tools/cli/tests/cli/hostile.rs`.)
#[cfg(unix)]
#[test]
fn repo_packs_outside_the_workspace_or_not_plain_are_not_read() {
    let secret = r#"{"signature": ["ws.marker"], "families": [{"name": "Leaked", "rules": ["t/*.md"], "threshold": 0.0, "companions": [{"path": "LEAKED-SECRET.md", "prior": 1.0}]}]}"#;
    // Each case makes the pack file from (its path, the outside file).
    type MakePack = fn(&Path, &Path);
    let cases: [(&str, MakePack); 4] = [
        ("symlink to a file outside", |pack, outside| {
            std::os::unix::fs::symlink(outside, pack).expect("symlink")
        }),
        ("symlinked .dsh directory", |pack, outside| {
            let dsh = pack.parent().expect("parent");
            std::fs::remove_dir(dsh).expect("rmdir");
            let target = outside.parent().expect("parent").join("dsh");
            std::fs::create_dir_all(&target).expect("mkdir");
            std::fs::copy(outside, target.join("doc-pack.json")).expect("copy");
            std::os::unix::fs::symlink(&target, dsh).expect("symlink");
        }),
        ("a directory", |pack, _| {
            std::fs::create_dir(pack).expect("mkdir")
        }),
        ("2 MiB", |pack, outside| {
            let mut text = std::fs::read_to_string(outside).expect("read");
            text.push_str(&" ".repeat(2 << 20));
            std::fs::write(pack, text).expect("write");
        }),
    ];
    for (what, make) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = dir.path().join("secret.json");
        std::fs::write(&outside, secret).expect("secret");
        let ws = Fixture::poc();
        std::fs::create_dir_all(ws.path(".dsh")).expect("mkdir");
        make(&ws.path(".dsh/doc-pack.json"), &outside);
        let mut engine = memory_engine(config(json!({"log": false})));
        let verdict = engine
            .judge(&ws.call("a", "read", "Documentation/Plans/SEARCH.md"))
            .expect("a well-formed call");
        assert_eq!(
            verdict.note.as_ref().map(|n| n.family.as_str()),
            Some("Plan"),
            "{what}: {verdict:?}"
        );
        assert_eq!(verdict.warnings.len(), 1, "{what}: {verdict:?}");
        assert!(
            verdict.warnings[0].contains("not read: "),
            "{what}: {verdict:?}"
        );
        let shown = format!("{verdict:?}");
        assert!(
            !shown.contains("Leaked") && !shown.contains("LEAKED"),
            "{what}: {shown}"
        );
    }
}

fn clean(text: &str, newlines: bool) -> bool {
    text.chars()
        .all(|c| !is_invisible(c) || (newlines && c == '\n'))
}

fn check_verdict(v: &Verdict) -> Result<(), String> {
    if let Some(note) = &v.note {
        if !clean(&note.text, true) || !clean(&note.summary, false) || !clean(&note.family, false) {
            return Err(format!("control character in note {note:?}"));
        }
        if let Some(c) = note.companions.iter().find(|c| !clean(c, false)) {
            return Err(format!("control character in companion {c:?}"));
        }
    }
    if let Some(line) = v.ledger.iter().find(|l| !clean(l, false)) {
        return Err(format!("control character in ledger line {line:?}"));
    }
    Ok(())
}

fn any_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_./<>*-]{1,24}",
        "\\PC{0,12}[\\x00-\\x1f\\x7f\\u{80}-\\u{9f}]\\PC{0,12}",
        "\\PC{0,12}[\\u{ad}\\u{200b}-\\u{200f}\\u{2028}-\\u{202e}\\u{2066}-\\u{2069}\\u{feff}]\\PC{0,12}",
        "\\PC{1,24}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: scale::pick(64, 4_000),
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(scale::seed()),
        ..ProptestConfig::default()
    })]

    /// Packs and call paths full of control and other invisible characters: a pack that carries one is refused
    /// (the built-in pack takes over), and nothing the engine answers carries one.
    #[test]
    fn notes_carry_no_control_characters(
        family in any_text(),
        companions in prop::collection::vec(any_text(), 1..4),
        call in any_text(),
    ) {
        let f = Fixture::poc();
        let pack = json!({
            "signature": ["Documentation/ARCHIVE-STYLE.md"],
            "families": [{"name": family, "rules": ["Documentation/Plans/*.md", "t/*"],
                "threshold": 0.0,
                "companions": companions.iter().map(|c| json!({"path": c, "prior": 1.0}))
                    .collect::<Vec<_>>()}],
        });
        f.write(".dsh/doc-pack.json", &pack.to_string());
        for c in &companions {
            if !c.contains('\0') && !c.starts_with('/') && !c.contains("..") {
                let _ = std::fs::create_dir_all(f.path(c).parent().unwrap_or(f.root()));
                let _ = std::fs::write(f.path(c), "");
            }
        }
        let mut engine = memory_engine(config(json!({"log": false, "threshold": 0.0})));
        for path in ["Documentation/Plans/SEARCH.md".to_string(), format!("t/{call}"), call] {
            if let Ok(v) = engine.judge(&f.call("a", "read", &path)) {
                prop_assert!(check_verdict(&v).is_ok(), "{:?} for {path:?}", check_verdict(&v));
            }
        }
    }
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

#[cfg(unix)]
#[test]
fn store_files_are_readable_by_their_owner_only() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A new store in new directories: the file 0600, every directory made for it 0700, and
    // no temporary file left beside it.
    let path = dir.path().join("a/b/s.redb");
    let store = RedbStore::open(StoreOptions::new(&path)).expect("open");
    drop(store);
    assert_eq!(mode(&path), 0o600);
    assert_eq!(mode(&dir.path().join("a")), 0o700);
    assert_eq!(mode(&dir.path().join("a/b")), 0o700);
    let names: Vec<String> = std::fs::read_dir(dir.path().join("a/b"))
        .expect("list")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["s.redb"]);

    // The fail-open store a host holds creates it the same way.
    let host = dir.path().join("host/s.redb");
    let store = FailOpenStore::open(StoreOptions::new(&host), 8);
    assert!(store.redb().is_some());
    drop(store);
    assert_eq!(mode(&host), 0o600);

    // An upgrade's backup holds the same data: owner-only too.
    let store = RedbStore::open_with_plan(StoreOptions::new(&path), &crate::workload::PLAN_NEXT)
        .expect("upgrade");
    let backup = store
        .open_report()
        .upgraded
        .clone()
        .expect("upgraded")
        .backup;
    assert!(store.history().expect("history").is_empty());
    drop(store);
    assert_eq!(mode(&backup), 0o600);
}
