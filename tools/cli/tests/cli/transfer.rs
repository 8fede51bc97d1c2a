//! `export` and `import`: a round trip reproduces the rates; a bad line refuses the file;
//! importing what a store already holds changes nothing.

use crate::common::Env;

fn learn(env: &Env, store: &str) {
    let dir = env.home().join("demo-ws").display().to_string();
    env.ok(
        &["demo", "--store", store, "--dir", &dir, "--calls", "120"],
        b"",
    );
}

#[test]
fn an_export_imports_into_the_same_rates() {
    let env = Env::new();
    let source = env.store("a.redb").display().to_string();
    learn(&env, &source);
    let export = env.home().join("h.jsonl");
    let out = env.run(
        &[
            "export",
            "--store",
            &source,
            "--out",
            &export.display().to_string(),
        ],
        b"",
    );
    assert!(out.status.success());
    let lines = std::fs::read_to_string(&export)
        .expect("export")
        .lines()
        .count();
    assert!(lines > 20, "{lines}");
    let target = env.store("b.redb").display().to_string();
    let imported = env.ok(
        &["import", &export.display().to_string(), "--store", &target],
        b"",
    );
    assert!(
        imported.starts_with(&format!("imported {lines} history entries (")),
        "{imported}"
    );
    let rates = |store: &str| env.ok(&["rates", "--store", store, "--json"], b"");
    assert_eq!(rates(&target), rates(&source));
    assert!(
        env.ok(&["check", "--store", &target], b"")
            .trim_end()
            .ends_with("ok")
    );
    // The imported history is the exported one; only decision numbers are fresh, since a
    // note's number was handed out when it was recorded, before later silences.
    let without_seq = |text: &str| -> Vec<serde_json::Value> {
        text.lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).expect("json");
                v["decision"]["seq"] = serde_json::Value::Null;
                v
            })
            .collect()
    };
    let original = without_seq(&std::fs::read_to_string(&export).expect("read"));
    let reimported = without_seq(&env.ok(&["export", "--store", &target], b""));
    assert_eq!(original.len(), reimported.len());
    for (i, (a, b)) in original.iter().zip(&reimported).enumerate() {
        assert!(a == b, "line {} differs:\n{a}\n{b}", i + 1);
    }
}

#[test]
fn a_bad_third_line_refuses_the_whole_file() {
    let env = Env::new();
    let source = env.store("a.redb").display().to_string();
    learn(&env, &source);
    let good = env.ok(&["export", "--store", &source], b"");
    let mut lines: Vec<String> = good.lines().map(String::from).collect();
    let mut third: serde_json::Value = serde_json::from_str(&lines[2]).expect("json");
    third["decision"]["kappa"] = serde_json::json!("high");
    lines[2] = third.to_string();
    let bad = env.home().join("bad.jsonl");
    std::fs::write(&bad, lines.join("\n") + "\n").expect("write");

    // Into a new store: refused, and no file is created.
    let fresh = env.store("fresh.redb");
    let out = env.run(
        &[
            "import",
            &bad.display().to_string(),
            "--store",
            &fresh.display().to_string(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "{}: line 3: decision.kappa: invalid type: string \"high\"",
            bad.display()
        )),
        "{err}"
    );
    assert!(err.contains("nothing was imported"), "{err}");
    assert!(!fresh.exists());

    // Into the populated store: refused, and its history is unchanged.
    let out = env.run(
        &["import", &bad.display().to_string(), "--store", &source],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(env.ok(&["export", "--store", &source], b""), good);

    // A rule broken rather than a type: an out-of-order line names its field.
    let mut swapped: Vec<String> = good.lines().map(String::from).collect();
    swapped.swap(3, 4);
    std::fs::write(&bad, swapped.join("\n")).expect("write");
    let out = env.run(
        &["import", &bad.display().to_string(), "--store", &source],
        b"",
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 5: resolution_seq:"), "{err}");
}

fn store_bytes(path: &str) -> Vec<u8> {
    std::fs::read(path).expect("read the store")
}

#[test]
fn imports_are_idempotent_and_say_what_they_skipped() {
    let env = Env::new();
    let source = env.store("a.redb").display().to_string();
    learn(&env, &source);
    let export = env.home().join("h.jsonl");
    let file = export.display().to_string();
    env.ok(&["export", "--store", &source, "--out", &file], b"");
    let lines = std::fs::read_to_string(&export)
        .expect("export")
        .lines()
        .count();
    let rates = |store: &str| env.ok(&["rates", "--store", store, "--json"], b"");
    let history = |store: &str| env.ok(&["export", "--store", store], b"");

    // A store's own export: nothing is written, nothing changes.
    let (rates_before, history_before) = (rates(&source), history(&source));
    let out = env.ok(&["import", &file, "--store", &source], b"");
    assert!(
        out.starts_with("imported 0 history entries (0 silences)")
            && out
                .trim_end()
                .ends_with(&format!("skipped {lines} already there")),
        "{out}"
    );
    assert_eq!(rates(&source), rates_before);
    assert_eq!(history(&source), history_before);

    // The same file twice into another store equals once.
    let target = env.store("b.redb").display().to_string();
    let first = env.ok(&["import", &file, "--store", &target], b"");
    assert!(
        first.trim_end().ends_with("skipped 0 already there"),
        "{first}"
    );
    let (rates_once, history_once) = (rates(&target), history(&target));
    let image = store_bytes(&target);
    let second = env.ok(&["import", &file, "--store", &target], b"");
    assert!(
        second
            .trim_end()
            .ends_with(&format!("skipped {lines} already there")),
        "{second}"
    );
    assert_eq!(rates(&target), rates_once);
    assert_eq!(history(&target), history_once);
    assert_eq!(rates_once, rates_before);
    // Nothing to write: the file's bytes are those the first import left.
    assert_eq!(store_bytes(&target), image);

    // An overlapping file: its first half is known, the rest is imported once.
    let all: Vec<&str> = history_before.lines().collect();
    let half = all.len() / 2;
    let third = env.store("c.redb").display().to_string();
    let head = env.home().join("head.jsonl");
    std::fs::write(&head, all[..half].join("\n") + "\n").expect("write");
    env.ok(
        &["import", &head.display().to_string(), "--store", &third],
        b"",
    );
    let out = env.ok(&["import", &file, "--store", &third], b"");
    assert!(
        out.starts_with(&format!("imported {} history entries", all.len() - half))
            && out
                .trim_end()
                .ends_with(&format!("skipped {half} already there")),
        "{out}"
    );
    assert_eq!(rates(&third), rates_before);
    assert_eq!(history(&third).lines().count(), all.len());
}
