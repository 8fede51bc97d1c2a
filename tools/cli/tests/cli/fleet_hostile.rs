//! Fleet files come from other machines and are treated as hostile input: a damaged file, a
//! value out of range or a foreign format is refused by name with nothing written; an import
//! never drops learning the store did not export itself; a workspace of any name exports.

use crate::backtest::small_history;
use crate::common::{Env, workspace_key};
use crate::fleet::{merge, parquet_export, path, session, three_machines};
use datafusion::arrow::array::{
    ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use datafusion::arrow::datatypes::{Field, Schema};
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use docsuggest_fleet::columns::{self, HELD_KEY, MODEL_KEY};
use docsuggest_fleet::export::write;
use docsuggest_fleet::seed::{FleetRates, read_rates};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Every file below `dir` whose name starts with `prefix`.
fn files(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).expect("dir") {
        let p = entry.expect("entry").path();
        if p.is_dir() {
            found.extend(files(&p, prefix));
        } else if p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
        {
            found.push(p);
        }
    }
    found.sort();
    found
}

/// Asserts `run` failed with one line naming `file` and saying `says`, and wrote nothing.
fn refused(run: &std::process::Output, file: &Path, says: &str, out: &Path) {
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(!run.status.success(), "{stderr}");
    let name = file.file_name().expect("a name").to_string_lossy();
    assert!(stderr.contains(name.as_ref()), "{name} in {stderr}");
    assert!(stderr.contains(says), "{says:?} in {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(!out.exists(), "{} was written", out.display());
}

#[test]
fn a_damaged_export_is_refused_by_name_or_merges_exactly_as_the_intact_one() {
    let fleet = three_machines();
    let env = &fleet.env;
    let dirs: Vec<&Path> = fleet.exports.iter().map(PathBuf::as_path).collect();
    let intact = env.home().join("intact.parquet");
    assert!(merge(env, &dirs, &intact).status.success());
    let expected: FleetRates = read_rates(&intact).expect("the intact merge reads");
    let moves = files(&fleet.exports[0], "moves-").remove(0);
    let original = std::fs::read(&moves).expect("read");
    let (mut refusals, mut same) = (0, 0);
    let positions = 160;
    for k in 0..positions {
        let at = k * original.len() / positions;
        let mut damaged = original.clone();
        damaged[at] ^= 1 << (k % 8);
        std::fs::write(&moves, &damaged).expect("write");
        let out = env.home().join(format!("flip{k}.parquet"));
        let run = merge(env, &dirs, &out);
        if run.status.success() {
            let merged = read_rates(&out).expect("what a merge writes reads");
            assert_eq!(merged, expected, "byte {at} flipped merged into other rows");
            same += 1;
        } else {
            refused(&run, &moves, "", &out);
            refusals += 1;
        }
    }
    std::fs::write(&moves, &original).expect("restore");
    assert_eq!(refusals + same, positions);
    assert!(
        refusals > positions / 2,
        "{refusals} of {positions} refused"
    );
}

/// A moves file's rows: (store id, resolution, decision, move, workspace, event, step); the
/// store id may be followed by `/` and a run, which is otherwise a valid one.
type Row<'a> = (&'a str, i64, i64, i32, Option<&'a str>, &'a str, f64);

fn moves_batch(rows: &[Row<'_>]) -> RecordBatch {
    // The workspace column may hold a null here (a file written by something else).
    let schema = columns::moves();
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone().with_nullable(f.name() == "workspace"))
        .collect();
    let texts = |f: &dyn Fn(&Row<'_>) -> Option<String>| -> ArrayRef {
        Arc::new(StringArray::from(rows.iter().map(f).collect::<Vec<_>>()))
    };
    fn split<'a>(r: &Row<'a>) -> (&'a str, &'a str) {
        r.0.split_once('/').unwrap_or((r.0, "00000000000000bb"))
    }
    let columns: Vec<ArrayRef> = vec![
        texts(&|r| Some(split(r).0.to_string())),
        texts(&|r| Some(split(r).1.to_string())),
        Arc::new(Int64Array::from(
            rows.iter().map(|r| r.1).collect::<Vec<_>>(),
        )),
        Arc::new(Int64Array::from(
            rows.iter().map(|r| r.2).collect::<Vec<_>>(),
        )),
        Arc::new(Int32Array::from(
            rows.iter().map(|r| r.3).collect::<Vec<_>>(),
        )),
        texts(&|r| r.4.map(str::to_string)),
        texts(&|_| Some("F".to_string())),
        texts(&|_| Some("CHANGELOG.md".to_string())),
        texts(&|r| Some(r.5.to_string())),
        Arc::new(Float64Array::from(
            rows.iter().map(|r| r.6).collect::<Vec<_>>(),
        )),
    ];
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).expect("batch")
}

/// A file's rows, the format it says it is, metadata added, and what its refusal says.
type Case = (
    Vec<Row<'static>>,
    &'static str,
    Vec<(&'static str, String)>,
    &'static str,
);

#[test]
fn garbage_in_an_export_is_refused_with_its_file_and_row() {
    let env = Env::new();
    let id = "00000000000000aa";
    let good: Row<'_> = (id, 1, 1, 0, Some("ws-1"), "accept", 0.1);
    let with = |i: usize, row: Row<'static>| {
        let mut rows = vec![good, good, good];
        for (n, r) in rows.iter_mut().enumerate() {
            (r.1, r.2) = (n as i64 + 1, n as i64 + 1);
        }
        rows[i] = row;
        rows
    };
    let bad_step = |s: f64| with(1, (id, 2, 2, 0, Some("ws-1"), "accept", s));
    let cases: Vec<Case> = vec![
        (bad_step(f64::NAN), "moves", vec![], "row 2: the step NaN"),
        (
            bad_step(f64::INFINITY),
            "moves",
            vec![],
            "row 2: the step inf",
        ),
        (bad_step(-1e308), "moves", vec![], "row 2: the step -1"),
        (
            with(2, (id, -3, 3, 0, Some("ws-1"), "accept", 0.1)),
            "moves",
            vec![],
            "row 3: a negative or zero number",
        ),
        (
            with(1, (id, 2, 2, -1, Some("ws-1"), "accept", 0.1)),
            "moves",
            vec![],
            "row 2: a negative or zero number",
        ),
        (
            with(1, (id, 2, 2, 0, None, "accept", 0.1)),
            "moves",
            vec![],
            "row 2: `workspace` is null",
        ),
        (
            with(0, (id, 1, 1, 0, Some("ws-1"), "maybe", 0.1)),
            "moves",
            vec![],
            "row 1: the unknown event \"maybe\"",
        ),
        (
            with(0, ("zz", 1, 1, 0, Some("ws-1"), "accept", 0.1)),
            "moves",
            vec![],
            "row 1: the store id \"zz\" is not 16 hex digits",
        ),
        (
            with(
                2,
                ("00000000000000aa/run", 3, 3, 0, Some("ws-1"), "accept", 0.1),
            ),
            "moves",
            vec![],
            "row 3: the run \"run\" is not 16 hex digits",
        ),
        (
            with(0, good),
            "moves",
            vec![("docsuggest.version", "99".to_string())],
            "moves of version \"99\"",
        ),
        (
            with(0, good),
            "decisions",
            vec![],
            "a docsuggest \"decisions\" file, not moves",
        ),
        (
            with(2, (id, 4, 3, 0, Some("ws-1"), "accept", 0.1)),
            "moves",
            vec![],
            "row 3: resolution 4 of run 00000000000000bb lies outside the ranges the file covers",
        ),
        (
            with(0, good),
            "moves",
            vec![(columns::RUNS_KEY, "[".to_string())],
            "its docsuggest.runs do not read",
        ),
        (
            with(1, (id, 2, 2, 0, Some("ws-2"), "accept", 0.1)),
            "moves",
            vec![],
            "row 2: store \"00000000000000aa\" of workspace \"ws-2\", not the file's",
        ),
    ];
    // What an export says of its file: its store, workspace and runs' ranges.
    let head = |extra: &[(&'static str, String)]| {
        let mut all = vec![
            (columns::STORE_KEY, id.to_string()),
            (columns::WORKSPACE_KEY, "ws-1".to_string()),
            (
                columns::RUNS_KEY,
                r#"{"00000000000000bb":[1,3]}"#.to_string(),
            ),
        ];
        all.extend(extra.iter().cloned());
        all
    };
    // The same rows with nothing wrong merge.
    let fine_dir = env.home().join("fine/ws");
    std::fs::create_dir_all(&fine_dir).expect("dir");
    let fine = fine_dir.join(format!("moves-{id}-1-3.parquet"));
    write(&fine, &moves_batch(&with(0, good)), "moves", &head(&[])).expect("write");
    let out = env.home().join("fine.parquet");
    let run = merge(&env, &[&env.home().join("fine")], &out);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for (n, (rows, format, extra, says)) in cases.into_iter().enumerate() {
        let dir = env.home().join(format!("bad{n}/ws"));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join(format!("moves-{id}-1-3.parquet"));
        write(&file, &moves_batch(&rows), format, &head(&extra)).expect("write");
        let out = env.home().join(format!("bad{n}.parquet"));
        let run = merge(
            &env,
            &[
                &env.home().join("fine"),
                &env.home().join(format!("bad{n}")),
            ],
            &out,
        );
        refused(&run, &file, says, &out);
    }
}

#[test]
fn an_import_drops_only_what_this_store_exported_whatever_the_held_mark_says() {
    let fleet = three_machines();
    let env = &fleet.env;
    let (clone, store, out) = (&fleet.clones[0], &fleet.stores[0], &fleet.exports[0]);
    let exported = parquet_export(env, store, out)["through"]
        .as_u64()
        .expect("a mark");
    // The machine learns on and does not export it.
    env.ok(
        &["serve", "--store", path(store)],
        session(clone, "agent-0b", 4, 1).as_bytes(),
    );
    let history = |store: &Path| -> Vec<u64> {
        crate::fleet::history(store)
            .iter()
            .map(|e| e.resolution_seq)
            .collect()
    };
    let unexported: Vec<u64> = history(store)
        .into_iter()
        .filter(|&s| s > exported)
        .collect();
    assert!(!unexported.is_empty());

    // A rates file whose held marks for every run of this store run past its own export (a
    // store that shares its id, or a crafted file), its digest right.
    let dirs: Vec<&Path> = fleet.exports.iter().map(PathBuf::as_path).collect();
    let merged = env.home().join("fleet.parquet");
    assert!(merge(env, &dirs, &merged).status.success());
    let rates = read_rates(&merged).expect("reads");
    let mut held = rates.held.clone();
    let lineage = docsuggest_store::RedbStore::open(docsuggest_store::StoreOptions::new(store))
        .expect("opens")
        .lineage()
        .expect("lineage");
    assert!(lineage.starts().len() >= 2, "the later session runs apart");
    let past = i64::try_from(exported).expect("small") + 10_000;
    let runs = held.entry(fleet.ids[0].clone()).or_default();
    for &(_, run) in lineage.starts() {
        runs.insert(format!("{run:016x}"), past);
    }
    let reader =
        ParquetRecordBatchReaderBuilder::try_new(std::fs::File::open(&merged).expect("open"))
            .expect("parquet")
            .build()
            .expect("reader");
    let batches: Vec<RecordBatch> = reader.map(|b| b.expect("batch")).collect();
    let batch = datafusion::arrow::compute::concat_batches(&batches[0].schema(), &batches)
        .expect("one batch");
    let crafted = env.home().join("crafted.parquet");
    write(
        &crafted,
        &batch,
        "fleet-rates",
        &[
            (MODEL_KEY, rates.model.clone()),
            (HELD_KEY, serde_json::to_string(&held).expect("json")),
        ],
    )
    .expect("write");
    let report: Value = serde_json::from_str(&env.ok(
        &[
            "import",
            "--rates",
            path(&crafted),
            "--store",
            path(store),
            "--json",
        ],
        b"",
    ))
    .expect("a JSON report");
    let left = history(store);
    assert_eq!(left, unexported, "{report}");
    env.ok(&["check", "--store", path(store)], b"");
}

#[test]
fn a_workspace_of_any_name_exports_and_one_that_cannot_be_written_holds_back_no_other() {
    let env = Env::new();
    // A directory name as long as a file name may be (its key adds a hash to it).
    let long = env.home().join(format!("m/{}", "r".repeat(250)));
    small_history(&long);
    let other = env.home().join("m/other");
    small_history(&other);
    let git = |dir: &Path, args: &[&str]| {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .status()
            .expect("git runs");
        assert!(ok.success());
    };
    // Two repositories, two keys (the same history otherwise shares one).
    git(&other, &["config", "docsuggest.identity", "other"]);
    git(&long, &["config", "docsuggest.identity", "long"]);
    let store = env.home().join("s.redb");
    for (clone, agent) in [(&long, "a"), (&other, "b")] {
        env.ok(
            &["serve", "--store", path(&store)],
            session(clone, agent, 6, 2).as_bytes(),
        );
    }
    let out = env.home().join("exports");
    // The other repository's directory cannot be made: a file stands in its place.
    let blocked = out.join(columns::key_dir(&workspace_key(&other)));
    std::fs::create_dir_all(&out).expect("dir");
    std::fs::write(&blocked, "").expect("file");
    let args = [
        "export",
        "--format",
        "parquet",
        "--out",
        path(&out),
        "--store",
        path(&store),
    ];
    let run = env.run(&args, b"");
    assert!(!run.status.success());
    let written = files(&out, "moves-");
    assert_eq!(written.len(), 1, "{written:?}");
    assert!(
        written[0]
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n.len() <= 64)
    );
    // Cleared, the next export writes what was held back.
    std::fs::remove_file(&blocked).expect("remove");
    env.ok(&args, b"");
    assert_eq!(
        files(&out, "moves-").len(),
        2,
        "{:?}",
        files(&out, "moves-")
    );
    let merged = env.home().join("fleet.parquet");
    assert!(merge(&env, &[&out], &merged).status.success());
    let rates = read_rates(&merged).expect("reads");
    for clone in [&long, &other] {
        let key = workspace_key(clone);
        assert!(rates.rows.iter().any(|(k, _)| k.workspace == key), "{key}");
    }
}
