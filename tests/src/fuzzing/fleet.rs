//! The fleet merge's check: a moves file from another machine is refused, or merged into
//! exactly the rows a model folds from what the checked reader read of it.

use docsuggest_fleet::columns;
use docsuggest_fleet::merge::{DEFAULT_MEMORY_LIMIT, MergeOptions, merge};
use docsuggest_fleet::partial::{Combined, Partial};
use docsuggest_fleet::seed::read_rates;
use docsuggest_fleet::{FleetError, verify};
use docsuggest_schema::{RateEvent, RateKey, RateModel, RateMove, RateRow};
use std::collections::BTreeMap;
use std::path::Path;

/// One move as the model reads it: its key, its identity (store, run, resolution, move
/// number), and what it does (event, step).
struct Move {
    key: RateKey,
    identity: (String, String, i64, i32),
    event: RateEvent,
    step: f64,
}

/// A moves file (any bytes): the merge refuses it, or its rows are the model's — the checked
/// reader's moves in the merge's order, each identity once, folded through `RateRow::apply` —
/// and two different moves under one identity are refused. Never a panic.
pub fn fleet_moves(bytes: &[u8]) {
    let dir = tempfile::tempdir().expect("a scratch directory");
    let exports = dir.path().join("exports");
    let ws = exports.join("ws");
    std::fs::create_dir_all(&ws).expect("a directory");
    let file = ws.join("moves-fuzzed.parquet");
    std::fs::write(&file, bytes).expect("the file is written");
    let out = dir.path().join("rates.parquet");
    let merged = merge(&MergeOptions {
        inputs: vec![exports],
        out: out.clone(),
        model: RateModel::Evidence,
        memory_limit: DEFAULT_MEMORY_LIMIT,
        state: None,
    });
    let model = verify::moves_file(&file).and_then(|_| model(&file));
    match (merged, model) {
        (Ok(_), Ok(Some(expected))) => {
            let rows = read_rates(&out).expect("what a merge writes reads").rows;
            assert_eq!(rows.len(), expected.len(), "rows merged");
            for ((key, row), (want_key, want)) in rows.iter().zip(&expected) {
                assert_eq!(key, want_key);
                assert!(
                    docsuggest_schema::rate::same_bits(row, want),
                    "{key:?}: merged {row:?}, the model folds {want:?}"
                );
            }
        }
        (Ok(report), Ok(None)) => panic!("two moves under one identity merged: {report:?}"),
        (Ok(report), Err(e)) => panic!("merged a file the check refuses ({e}): {report:?}"),
        (Err(_), _) => assert!(!out.exists(), "a refused merge wrote its output"),
    }
}

/// The rows the model folds from `file` (read by the checked reader), `None` when two
/// different moves share an identity.
fn model(file: &Path) -> Result<Option<Vec<(RateKey, RateRow)>>, FleetError> {
    let mut moves = Vec::new();
    verify::open(file, "moves", columns::moves())?.read(|batch, _| {
        let text = |name: &str| {
            let column = batch.column_by_name(name).ok_or("a column is missing")?;
            let texts = datafusion::arrow::array::AsArray::as_string_opt::<i32>(column.as_ref())
                .ok_or("a column is not text")?;
            Ok::<_, String>(texts)
        };
        let (store, run, workspace, family, companion, event) = (
            text("store_id")?,
            text("run")?,
            text("workspace")?,
            text("family")?,
            text("companion")?,
            text("event")?,
        );
        let number = |name: &str| batch.column_by_name(name).ok_or("a column is missing");
        use datafusion::arrow::array::AsArray;
        use datafusion::arrow::datatypes::{Float64Type, Int32Type, Int64Type};
        let resolution = number("resolution_seq")?.as_primitive::<Int64Type>();
        let index = number("move_index")?.as_primitive::<Int32Type>();
        let step = number("step")?.as_primitive::<Float64Type>();
        for i in 0..batch.num_rows() {
            moves.push(Move {
                key: RateKey::companion(workspace.value(i), family.value(i), companion.value(i)),
                identity: (
                    store.value(i).to_string(),
                    run.value(i).to_string(),
                    resolution.value(i),
                    index.value(i),
                ),
                event: columns::event_of(event.value(i)).ok_or("an unknown event")?,
                step: step.value(i),
            });
        }
        Ok(())
    })?;
    moves.sort_by(|a, b| (&a.key, &a.identity).cmp(&(&b.key, &b.identity)));
    // Each key's moves of each run folded in order, the runs combined in order.
    let mut partials: BTreeMap<(RateKey, String, String), Partial> = BTreeMap::new();
    let mut previous: Option<&Move> = None;
    for mv in &moves {
        if let Some(p) = previous.filter(|p| (&p.key, &p.identity) == (&mv.key, &mv.identity)) {
            if (p.event, p.step.to_bits()) != (mv.event, mv.step.to_bits()) {
                return Ok(None);
            }
            continue;
        }
        let (store, run, seq, _) = &mv.identity;
        partials
            .entry((mv.key.clone(), store.clone(), run.clone()))
            .or_default()
            .apply(
                &RateMove {
                    key: mv.key.clone(),
                    event: mv.event,
                    step: mv.step,
                },
                *seq,
            );
        previous = Some(mv);
    }
    let mut rows: BTreeMap<RateKey, Combined> = BTreeMap::new();
    for ((key, _, _), partial) in &partials {
        rows.entry(key.clone()).or_default().add(partial);
    }
    let rows: BTreeMap<RateKey, RateRow> = rows.into_iter().map(|(k, c)| (k, c.row())).collect();
    Ok(Some(rows.into_iter().collect()))
}
