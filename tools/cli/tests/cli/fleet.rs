//! Fleet learning end to end: three machines (stores) learn in three clones of one repository
//! at different paths, export Parquet, `fleet merge` adds their evidence up, and a fourth
//! store seeded from the merge judges as one store that saw all three histories; bad input is
//! refused by name with nothing written.

use crate::backtest::small_history;
use crate::common::Env;
use datafusion::prelude::{ParquetReadOptions, SessionContext};
use docsuggest_schema::{RateKey, RateRow, StoreContents};
use docsuggest_store::ReadOnlyStore;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One machine's session in `clone`: rounds of an edit of the family's file, then either the
/// changelog read (followed) or unrelated reads until the window closes (not followed).
pub(crate) fn session(clone: &Path, agent: &str, rounds: usize, follow_every: usize) -> String {
    let cwd = clone.display().to_string();
    let mut lines = vec![format!(
        r#"{{"id":0,"op":"configure","config":{{"learnWindow":2,"threshold":0.3,"followThreshold":0.2}}}}"#
    )];
    let mut id = 1;
    let mut judge = |lines: &mut Vec<String>, tool: &str, path: &str| {
        lines.push(
            serde_json::json!({"id": id, "op": "judge", "agent": agent, "tool": tool,
                "path": path, "cwd": cwd})
            .to_string(),
        );
        id += 1;
    };
    for round in 0..rounds {
        judge(&mut lines, "edit", "src/a.rs");
        if round % follow_every == 0 {
            judge(&mut lines, "read", "CHANGELOG.md");
        } else {
            for _ in 0..3 {
                judge(&mut lines, "read", "LICENSE");
            }
        }
        lines.push(format!(
            r#"{{"id":"t{round}","op":"turn","agent":"{agent}"}}"#
        ));
    }
    lines.push(r#"{"id":"end","op":"close"}"#.into());
    lines.join("\n") + "\n"
}

/// The notes of a `serve` run, as (family, companions, confidence text).
fn notes(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|a| a["note"].is_object())
        .map(|a| a["note"]["text"].as_str().unwrap_or_default().to_string())
        .collect()
}

pub(crate) fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A store's history entries, read as any reader would.
pub(crate) fn history(store: &Path) -> Vec<docsuggest_schema::HistoryEntry> {
    ReadOnlyStore::open(store)
        .expect("the store opens")
        .view()
        .expect("a view")
        .history()
        .expect("history")
}

pub(crate) fn rows(store: &Path) -> BTreeMap<RateKey, RateRow> {
    ReadOnlyStore::open(store)
        .expect("the store opens")
        .view()
        .expect("a view")
        .rate_rows()
        .expect("rows")
        .into_iter()
        .collect()
}

pub(crate) struct Fleet {
    pub(crate) env: Env,
    pub(crate) clones: Vec<PathBuf>,
    pub(crate) stores: Vec<PathBuf>,
    pub(crate) exports: Vec<PathBuf>,
    /// Each machine's store id, as its export reported it.
    pub(crate) ids: Vec<String>,
}

/// Three machines learn and export.
pub(crate) fn three_machines() -> Fleet {
    let env = Env::new();
    let mut fleet = Fleet {
        clones: Vec::new(),
        stores: Vec::new(),
        exports: Vec::new(),
        ids: Vec::new(),
        env,
    };
    for (m, (rounds, every)) in [(12, 2), (9, 3), (6, 1)].into_iter().enumerate() {
        let clone = fleet
            .env
            .home()
            .join(format!("machine{m}/src/the-repo-{m}"));
        small_history(&clone);
        let store = fleet.env.home().join(format!("machine{m}.redb"));
        let input = session(&clone, &format!("agent-{m}"), rounds, every);
        fleet
            .env
            .ok(&["serve", "--store", path(&store)], input.as_bytes());
        let out = fleet.env.home().join(format!("export{m}"));
        let report = parquet_export(&fleet.env, &store, &out);
        assert!(report["entries"].as_u64() > Some(0), "{report}");
        fleet
            .ids
            .push(report["store_id"].as_str().expect("an id").to_string());
        fleet.clones.push(clone);
        fleet.stores.push(store);
        fleet.exports.push(out);
    }
    fleet
}

/// `export --format parquet` of `store` into `out`: its JSON report.
pub(crate) fn parquet_export(env: &Env, store: &Path, out: &Path) -> Value {
    let args = [
        "export",
        "--format",
        "parquet",
        "--out",
        path(out),
        "--store",
        path(store),
        "--json",
    ];
    serde_json::from_str(&env.ok(&args, b"")).expect("a JSON report")
}

pub(crate) fn merge(env: &Env, dirs: &[&Path], out: &Path) -> std::process::Output {
    let mut args = vec!["fleet", "merge"];
    args.extend(dirs.iter().map(|d| path(d)));
    args.extend(["--out", path(out)]);
    env.run(&args, b"")
}

#[test]
fn three_clones_merge_into_what_one_store_that_saw_them_all_would_hold() {
    let fleet = three_machines();
    let env = &fleet.env;

    // Three clones at three paths: one workspace key.
    let keys: Vec<String> = fleet
        .stores
        .iter()
        .map(|s| {
            let keys: std::collections::BTreeSet<String> =
                rows(s).into_keys().map(|k| k.workspace).collect();
            assert_eq!(keys.len(), 1, "{keys:?}");
            keys.into_iter().next().expect("a key")
        })
        .collect();
    assert!(keys.iter().all(|k| *k == keys[0]), "{keys:?}");
    assert_eq!(keys[0], crate::common::workspace_key(&fleet.clones[0]));

    // DataFusion reads an export back: one row per move of the store's history.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let moves: usize = ReadOnlyStore::open(&fleet.stores[0])
        .expect("open")
        .view()
        .expect("a view")
        .history()
        .expect("history")
        .iter()
        .map(|e| e.moves.len())
        .sum();
    let dir = fleet.exports[0].join(docsuggest_fleet::columns::key_dir(&keys[0]));
    let files: Vec<String> = std::fs::read_dir(&dir)
        .expect("the key's directory")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("moves-"))
        })
        .map(|p| path(&p).to_string())
        .collect();
    let read = runtime.block_on(async {
        let ctx = SessionContext::new();
        let df = ctx
            .read_parquet(files, ParquetReadOptions::default())
            .await
            .expect("the moves files read");
        df.count().await.expect("a count")
    });
    assert_eq!(read, moves);

    // Merge the three; a fourth machine's store, seeded from the merge for its own clone.
    let merged = env.home().join("fleet.parquet");
    let dirs: Vec<&Path> = fleet.exports.iter().map(PathBuf::as_path).collect();
    let out = merge(env, &dirs, &merged);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fourth_clone = env.home().join("machine3/elsewhere");
    small_history(&fourth_clone);
    let fourth = env.home().join("machine3.redb");
    env.ok(
        &[
            "import",
            "--rates",
            path(&merged),
            "--store",
            path(&fourth),
            "--workspace",
            path(&fourth_clone),
        ],
        b"",
    );
    let seeded = rows(&fourth);

    // Per key, the sum of the three machines' evidence.
    let machines: Vec<BTreeMap<RateKey, RateRow>> = fleet.stores.iter().map(|s| rows(s)).collect();
    assert!(!seeded.is_empty());
    for (key, row) in &seeded {
        let sum = |f: fn(&RateRow) -> u64| -> u64 {
            machines.iter().filter_map(|m| m.get(key)).map(f).sum()
        };
        assert_eq!(row.accepts, sum(|r| r.accepts), "{key:?}");
        assert_eq!(row.rejects, sum(|r| r.rejects), "{key:?}");
        assert_eq!(row.shadow_hits, sum(|r| r.shadow_hits), "{key:?}");
        assert_eq!(row.shadow_misses, sum(|r| r.shadow_misses), "{key:?}");
    }
    let all_keys: std::collections::BTreeSet<&RateKey> =
        machines.iter().flat_map(|m| m.keys()).collect();
    assert_eq!(all_keys.len(), seeded.len());

    // One store that saw all three histories, in the merge's order (by store id): the same
    // rows (counts exact; the recent evidence and the step, which the merge combines run by
    // run, to rounding), and the same notes on a replay.
    let single = env.home().join("single.redb");
    let mut order: Vec<usize> = (0..3).collect();
    order.sort_by(|a, b| fleet.ids[*a].cmp(&fleet.ids[*b]));
    for m in order {
        let jsonl = env.home().join(format!("history{m}.jsonl"));
        env.ok(
            &[
                "export",
                "--store",
                path(&fleet.stores[m]),
                "--out",
                path(&jsonl),
            ],
            b"",
        );
        env.ok(&["import", path(&jsonl), "--store", path(&single)], b"");
    }
    let single_rows = rows(&single);
    assert_eq!(single_rows.len(), seeded.len());
    for (key, row) in &seeded {
        let other = single_rows.get(key).expect("the same keys");
        let close = [
            (row.step, other.step),
            (row.recent_hits, other.recent_hits),
            (row.recent_misses, other.recent_misses),
        ]
        .iter()
        .all(|(a, b)| (a - b).abs() < 1e-9);
        let counts = |r: &RateRow| (r.accepts, r.rejects, r.shadow_hits, r.shadow_misses);
        assert!(
            close && counts(row) == counts(other),
            "{key:?}: {row:?} vs {other:?}"
        );
    }
    let replay = session(&fourth_clone, "agent-new", 6, 2);
    let on_fleet = env.ok(&["serve", "--store", path(&fourth)], replay.as_bytes());
    let on_single = env.ok(&["serve", "--store", path(&single)], replay.as_bytes());
    assert!(!notes(&on_fleet).is_empty(), "{on_fleet}");
    assert_eq!(notes(&on_fleet), notes(&on_single));
    // Every answer the same, ledger lines (each decision's confidence and values) included,
    // confidences to rounding; only `close`'s durable mark counts each store's own history
    // entries.
    fn rounded(v: &mut Value) {
        match v {
            Value::Number(n) if n.is_f64() => {
                let x = n.as_f64().unwrap_or_default();
                *v = serde_json::json!((x * 1e9).round() / 1e9);
            }
            Value::Array(items) => items.iter_mut().for_each(rounded),
            Value::Object(fields) => fields.values_mut().for_each(rounded),
            _ => {}
        }
    }
    let answers = |out: &str| -> Vec<Value> {
        out.lines()
            .filter(|l| !l.contains(r#""durable""#))
            .map(|l| {
                let mut v: Value = serde_json::from_str(l).expect("an answer");
                rounded(&mut v);
                v
            })
            .collect()
    };
    assert_eq!(answers(&on_fleet), answers(&on_single));
    assert_eq!(on_fleet.lines().count(), on_single.lines().count());
    for store in [&fourth, &single] {
        env.ok(&["check", "--store", path(store)], b"");
    }

    // The same exports given twice, or merged again: the same file, byte for byte.
    let twice = env.home().join("twice.parquet");
    let mut doubled = dirs.clone();
    doubled.push(dirs[0]);
    assert!(merge(env, &doubled, &twice).status.success());
    let again = env.home().join("again.parquet");
    assert!(merge(env, &dirs, &again).status.success());
    let bytes = std::fs::read(&merged).expect("merged");
    assert!(
        std::fs::read(&twice).expect("twice") == bytes,
        "a doubled input changed the file"
    );
    assert!(
        std::fs::read(&again).expect("again") == bytes,
        "merging again changed the file"
    );
}

#[test]
fn a_periodic_export_writes_only_what_is_new_and_the_import_does_not_count_it_twice() {
    let fleet = three_machines();
    let env = &fleet.env;
    let (clone, store, out) = (&fleet.clones[0], &fleet.stores[0], &fleet.exports[0]);
    let export = || parquet_export(env, store, out);
    let nothing = export();
    assert_eq!(nothing["entries"], 0, "{nothing}");
    assert!(nothing["files"].as_array().is_some_and(Vec::is_empty));
    let through = nothing["through"].as_u64().expect("a mark");

    // More learning, then only the new entries are exported.
    env.ok(
        &["serve", "--store", path(store)],
        session(clone, "agent-0b", 4, 1).as_bytes(),
    );
    let more = export();
    assert_eq!(more["since"].as_u64(), Some(through), "{more}");
    assert!(more["entries"].as_u64() > Some(0), "{more}");

    // The machine seeds itself from the merge: its own exported history is in the fleet's
    // rows, so it is dropped, not folded on top a second time.
    let merged = env.home().join("fleet.parquet");
    let dirs: Vec<&Path> = fleet.exports.iter().map(PathBuf::as_path).collect();
    assert!(merge(env, &dirs, &merged).status.success());
    let report: Value = serde_json::from_str(&env.ok(
        &[
            "import",
            "--rates",
            path(&merged),
            "--store",
            path(store),
            "--json",
        ],
        b"",
    ))
    .expect("a JSON report");
    assert!(report["dropped_history"].as_u64() > Some(0), "{report}");
    let machines: Vec<BTreeMap<RateKey, RateRow>> =
        fleet.stores[1..].iter().map(|s| rows(s)).collect();
    let own_before: u64 = more["entries"].as_u64().unwrap_or(0);
    assert!(own_before > 0);
    for (key, row) in rows(store) {
        let others: u64 = machines
            .iter()
            .filter_map(|m| m.get(&key))
            .map(|r| r.accepts + r.rejects + r.shadow_hits + r.shadow_misses)
            .sum();
        // Never more than the fleet's own count: nothing counted twice.
        assert!(row.observations() >= others, "{key:?}");
    }
    env.ok(&["check", "--store", path(store)], b"");
    // Seeding again from the same file changes nothing.
    let before = rows(store);
    env.ok(
        &["import", "--rates", path(&merged), "--store", path(store)],
        b"",
    );
    assert_eq!(rows(store), before);
}

#[test]
fn bad_fleet_input_is_refused_by_name_and_nothing_is_written() {
    let fleet = three_machines();
    let env = &fleet.env;
    let out = env.home().join("never.parquet");
    let refused = |dirs: &[&Path], says: &str| {
        let run = merge(env, dirs, &out);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{stderr}");
        assert!(stderr.contains(says), "{says:?} in {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(!out.exists());
    };

    // An empty directory.
    let empty = env.home().join("empty");
    std::fs::create_dir_all(&empty).expect("dir");
    refused(&[&empty], "no docsuggest export");

    // A Parquet file of another schema, named as a moves file.
    let key_dir = std::fs::read_dir(&fleet.exports[0])
        .expect("dir")
        .next()
        .expect("a key directory")
        .expect("entry")
        .path();
    let decisions = std::fs::read_dir(&key_dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("decisions-"))
        })
        .expect("a decisions file");
    let foreign = env.home().join("foreign");
    std::fs::create_dir_all(&foreign).expect("dir");
    std::fs::copy(&decisions, foreign.join("moves-foreign.parquet")).expect("copy");
    refused(
        &[&fleet.exports[1], &foreign],
        "a docsuggest \"decisions\" file, not moves",
    );

    // A truncated file.
    let moves = std::fs::read_dir(&key_dir)
        .expect("dir")
        .map(|e| e.expect("entry").path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("moves-"))
        })
        .expect("a moves file");
    let bytes = std::fs::read(&moves).expect("read");
    let cut = env.home().join("cut");
    std::fs::create_dir_all(&cut).expect("dir");
    std::fs::write(cut.join("moves-cut.parquet"), &bytes[..bytes.len() / 2]).expect("write");
    refused(&[&cut], "moves-cut.parquet: not a readable Parquet file");

    // A rates file for a repository the store does not know, and for a directory it does
    // not hold: refused, the store byte for byte as it was.
    let merged = env.home().join("fleet.parquet");
    let dirs: Vec<&Path> = fleet.exports.iter().map(PathBuf::as_path).collect();
    assert!(merge(env, &dirs, &merged).status.success());
    let stranger = env.home().join("stranger.redb");
    let ws = env.ws();
    std::fs::create_dir_all(ws.join("Documentation/Plans")).expect("mkdir");
    for f in [
        "Documentation/ARCHIVE-STYLE.md",
        "Documentation/INDEX.md",
        "POC-BRIEF.md",
    ] {
        std::fs::write(ws.join(f), "").expect("write");
    }
    env.serve_judges(
        path(&stranger),
        &["Documentation/Plans/X.md", "Documentation/INDEX.md"],
    );
    let before = std::fs::read(&stranger).expect("store");
    for extra in [&[][..], &["--workspace", path(&ws)][..]] {
        let mut args = vec![
            "import",
            "--rates",
            path(&merged),
            "--store",
            path(&stranger),
        ];
        args.extend_from_slice(extra);
        let run = env.run(&args, b"");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(!run.status.success(), "{stderr}");
        assert!(stderr.contains("nothing was imported"), "{stderr}");
        assert!(
            std::fs::read(&stranger).expect("store") == before,
            "the store changed"
        );
    }

    // A rates file merged under another model.
    let beta = env.home().join("beta.json");
    std::fs::write(&beta, r#"{"rateModel": "beta"}"#).expect("config");
    let beta_rates = env.home().join("beta.parquet");
    let mut args = vec!["fleet", "merge"];
    args.extend(dirs.iter().map(|d| path(d)));
    args.extend(["--out", path(&beta_rates), "--config", path(&beta)]);
    env.ok(&args, b"");
    let store = &fleet.stores[0];
    let before = std::fs::read(store).expect("store");
    let run = env.run(
        &[
            "import",
            "--rates",
            path(&beta_rates),
            "--store",
            path(store),
        ],
        b"",
    );
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(
        !run.status.success() && stderr.contains("`beta` model"),
        "{stderr}"
    );
    assert!(
        std::fs::read(store).expect("store") == before,
        "the store changed"
    );

    // A JSON-lines export is not a rates file.
    let jsonl = env.home().join("h.jsonl");
    env.ok(
        &["export", "--store", path(store), "--out", path(&jsonl)],
        b"",
    );
    let run = env.run(
        &["import", "--rates", path(&jsonl), "--store", path(store)],
        b"",
    );
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("not a readable Parquet file"));
}

/// Export, merge and import run in `docsuggest-fleet` (the CLI's `fleet` feature), so the
/// default `docsuggest` links no Arrow, Parquet or DataFusion; without that binary each says
/// in one line how to get it, and writes nothing.
#[test]
fn the_fleet_commands_run_in_their_own_binary_and_a_missing_one_is_named() {
    let fleet = three_machines();
    let env = &fleet.env;
    let out = env.home().join("rates.parquet");
    let missing = env.home().join("no-such-docsuggest-fleet");
    let mut args = vec!["fleet", "merge"];
    args.extend(fleet.exports.iter().map(|d| path(d)));
    args.extend(["--out", path(&out)]);
    let store = env.store("lone.redb");
    let exported = env.home().join("lone-export");
    for command in [
        args.clone(),
        vec![
            "export",
            "--format",
            "parquet",
            "--store",
            path(&store),
            "--out",
            path(&exported),
        ],
        vec!["import", "--rates", path(&out), "--store", path(&store)],
    ] {
        let run = env
            .command(&command)
            .env("DOCSUGGEST_FLEET_BIN", &missing)
            .output()
            .expect("docsuggest runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{command:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{command:?}: {stderr}");
        assert!(
            stderr.contains(path(&missing))
                && stderr.contains("cargo install --locked --path tools/cli --features fleet"),
            "{command:?}: {stderr}"
        );
    }
    assert!(
        !out.exists() && !exported.exists() && !store.exists(),
        "nothing was written"
    );

    // The binary beside `docsuggest` is the one that runs, and says what it merged.
    let merged = env.ok(&args, b"");
    assert!(merged.starts_with("merged "), "{merged}");
    let direct = std::process::Command::new(env!("CARGO_BIN_EXE_docsuggest-fleet"))
        .args(["merge", path(&fleet.exports[0]), "--out"])
        .arg(env.home().join("one.parquet"))
        .arg("--json")
        .output()
        .expect("docsuggest-fleet runs");
    assert!(direct.status.success());
    let report: Value = serde_json::from_slice(&direct.stdout).expect("a JSON report");
    assert_eq!(report["stores"], 1, "{report}");
}
