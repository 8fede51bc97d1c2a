//! Fleet files come from other machines: every one is read whole and checked before anything
//! is merged or seeded from it — what its metadata says it is, that no value is missing or out
//! of range, and that its rows are the rows its digest was written over ([`crate::digest`]).
//! The first problem refuses the whole command with one line naming the file and the row.

use crate::FleetError;
use crate::columns::{self, DIGEST_KEY, FORMAT_KEY, FORMAT_VERSION, VERSION_KEY};
use crate::digest::RowDigest;
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Float64Type, Int32Type, Int64Type, SchemaRef};
use docsuggest_schema::text::quoted;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};

/// The largest step a move may carry: a step rule moves a rate within 0..1.
const MAX_STEP: f64 = 1.0;

/// A fleet file opened and its metadata checked, its rows not yet read.
pub struct Opened {
    file: PathBuf,
    builder: ParquetRecordBatchReaderBuilder<File>,
    schema: SchemaRef,
    digest: String,
    /// The file's key-value metadata.
    pub metadata: BTreeMap<String, String>,
}

/// Opens `file` as a docsuggest file of `format` (`moves`, `fleet-rates`) of this build's
/// version, with every column of `schema`.
pub fn open(file: &Path, format: &str, schema: SchemaRef) -> Result<Opened, FleetError> {
    let bad = |problem: String| bad(file, problem);
    let builder = columns::open_parquet(file)?;
    let metadata: BTreeMap<String, String> = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .into_iter()
        .flatten()
        .filter_map(|kv| Some((kv.key.clone(), kv.value.clone()?)))
        .collect();
    match metadata.get(FORMAT_KEY).map(String::as_str) {
        Some(found) if found == format => {}
        Some(other) => {
            return Err(bad(format!(
                "a docsuggest {} file, not {format}",
                quoted(other)
            )));
        }
        None => {
            return Err(bad(format!(
                "not a docsuggest {format} file (no {FORMAT_KEY})"
            )));
        }
    }
    match metadata.get(VERSION_KEY).map(String::as_str) {
        Some(FORMAT_VERSION) => {}
        found => {
            return Err(bad(format!(
                "{format} of version {}; this build reads version {FORMAT_VERSION} (write it again with this build)",
                found.map_or_else(|| "(none)".to_string(), quoted)
            )));
        }
    }
    columns::check_schema(file, builder.schema(), &schema)?;
    let digest = metadata
        .get(DIGEST_KEY)
        .cloned()
        .ok_or_else(|| bad(format!("no {DIGEST_KEY}: nothing proves its rows intact")))?;
    Ok(Opened {
        file: file.to_path_buf(),
        builder,
        schema,
        digest,
        metadata,
    })
}

impl Opened {
    /// Reads every row, batch by batch, through `each` (given the batch and the number of the
    /// file's row it starts at); refuses a missing value, and rows that are not the rows the
    /// digest was written over.
    pub fn read(
        self,
        each: impl FnMut(&RecordBatch, usize) -> Result<(), String>,
    ) -> Result<(), FleetError> {
        let file = self.file.clone();
        contained(&file, std::panic::AssertUnwindSafe(|| self.read_all(each)))
    }

    fn read_all(
        self,
        mut each: impl FnMut(&RecordBatch, usize) -> Result<(), String>,
    ) -> Result<(), FleetError> {
        let file = self.file;
        let reader = self
            .builder
            .build()
            .map_err(|e| bad(&file, format!("cannot be read ({e})")))?;
        let mut digest = RowDigest::default();
        let mut row = 0;
        for batch in reader {
            let batch = batch.map_err(|e| bad(&file, format!("cannot be read ({e})")))?;
            if let Some((i, name)) = first_null(&batch, &self.schema) {
                return Err(bad(&file, format!("row {}: `{name}` is null", row + i + 1)));
            }
            each(&batch, row).map_err(|problem| bad(&file, problem))?;
            digest.batch(&batch)?;
            row += batch.num_rows();
        }
        if digest.finish(&self.metadata) != self.digest {
            return Err(bad(
                &file,
                "damaged: its rows are not the rows its digest was written over".into(),
            ));
        }
        Ok(())
    }
}

/// What a moves file holds, by its metadata; once [`MovesHead::check`]ed, by its rows too.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MovesHead {
    /// The file.
    pub file: PathBuf,
    /// The exporting store's id.
    pub store_id: String,
    /// The workspace key of every row.
    pub workspace: String,
    /// Per run, the resolutions the export covered (every entry of the workspace in them is in
    /// the file).
    pub runs: BTreeMap<String, (i64, i64)>,
}

/// Opens a moves file and reads what its metadata says it holds; its rows are not read.
pub fn moves_head(file: &Path) -> Result<(MovesHead, Opened), FleetError> {
    let opened = open(file, "moves", columns::moves())?;
    let meta = |key: &str| {
        opened
            .metadata
            .get(key)
            .cloned()
            .ok_or_else(|| bad(file, format!("no {key} in its metadata")))
    };
    let (store_id, workspace) = (meta(columns::STORE_KEY)?, meta(columns::WORKSPACE_KEY)?);
    if !columns::is_id_text(&store_id) || workspace.is_empty() {
        return Err(bad(
            file,
            format!(
                "its store id {} or workspace {} is not one",
                quoted(&store_id),
                quoted(&workspace)
            ),
        ));
    }
    let runs: BTreeMap<String, (i64, i64)> = serde_json::from_str(&meta(columns::RUNS_KEY)?)
        .map_err(|e| bad(file, format!("its {} do not read ({e})", columns::RUNS_KEY)))?;
    if let Some((run, range)) = runs
        .iter()
        .find(|&(run, &(a, b))| !columns::is_id_text(run) || a < 1 || a > b)
    {
        return Err(bad(
            file,
            format!("its run {} has the range {range:?}", quoted(run)),
        ));
    }
    let head = MovesHead {
        file: file.to_path_buf(),
        store_id,
        workspace,
        runs,
    };
    Ok((head, opened))
}

/// Checks a moves file whole: its metadata, every value, its digest.
pub fn moves_file(file: &Path) -> Result<MovesHead, FleetError> {
    let (head, opened) = moves_head(file)?;
    head.check(opened)?;
    Ok(head)
}

impl MovesHead {
    /// Reads every row of the file `opened` and checks it: its values, and that it is of the
    /// head's store, workspace and runs' ranges.
    pub fn check(&self, opened: Opened) -> Result<(), FleetError> {
        check_rows(self, opened)
    }
}

fn check_rows(head: &MovesHead, opened: Opened) -> Result<(), FleetError> {
    opened.read(|batch, start| {
        let text = |name: &str| {
            batch
                .column_by_name(name)
                .and_then(|c| c.as_string_opt::<i32>())
        };
        let (Some(store), Some(run), Some(workspace), Some(family), Some(event)) = (
            text("store_id"),
            text("run"),
            text("workspace"),
            text("family"),
            text("event"),
        ) else {
            return Err("a batch lacks a text column".into());
        };
        let int64 = |name: &str| {
            batch
                .column_by_name(name)
                .and_then(|c| c.as_primitive_opt::<Int64Type>())
        };
        let (Some(resolution), Some(decision)) = (int64("resolution_seq"), int64("decision_seq"))
        else {
            return Err("a batch lacks a number column".into());
        };
        let (Some(index), Some(step)) = (
            batch
                .column_by_name("move_index")
                .and_then(|c| c.as_primitive_opt::<Int32Type>()),
            batch
                .column_by_name("step")
                .and_then(|c| c.as_primitive_opt::<Float64Type>()),
        ) else {
            return Err("a batch lacks a number column".into());
        };
        for i in 0..batch.num_rows() {
            let at = |problem: String| format!("row {}: {problem}", start + i + 1);
            let id = store.value(i);
            for (what, value) in [("store id", id), ("run", run.value(i))] {
                if !columns::is_id_text(value) {
                    return Err(at(format!(
                        "the {what} {} is not 16 hex digits",
                        quoted(value)
                    )));
                }
            }
            if id != head.store_id || workspace.value(i) != head.workspace {
                return Err(at(format!(
                    "store {} of workspace {}, not the file's {} of {}",
                    quoted(id),
                    quoted(workspace.value(i)),
                    head.store_id,
                    quoted(&head.workspace)
                )));
            }
            if resolution.value(i) < 1 || decision.value(i) < 1 || index.value(i) < 0 {
                return Err(at(format!(
                    "a negative or zero number (resolution {}, decision {}, move {})",
                    resolution.value(i),
                    decision.value(i),
                    index.value(i)
                )));
            }
            let within = head
                .runs
                .get(run.value(i))
                .is_some_and(|&(a, b)| (a..=b).contains(&resolution.value(i)));
            if !within {
                return Err(at(format!(
                    "resolution {} of run {} lies outside the ranges the file covers",
                    resolution.value(i),
                    run.value(i)
                )));
            }
            if workspace.value(i).is_empty() || family.value(i).is_empty() {
                return Err(at("an empty workspace or family".into()));
            }
            if columns::event_of(event.value(i)).is_none() {
                return Err(at(format!("the unknown event {}", quoted(event.value(i)))));
            }
            let s = step.value(i);
            if !s.is_finite() || s.abs() > MAX_STEP {
                return Err(at(format!("the step {s} is not a step (-1..1)")));
            }
        }
        Ok(())
    })
}

/// The first null value of a batch in a column `expected` holds no null in (whatever the
/// file's own schema claims): its row in the batch and its column.
fn first_null(batch: &RecordBatch, expected: &SchemaRef) -> Option<(usize, String)> {
    expected
        .fields()
        .iter()
        .filter(|f| !f.is_nullable())
        .filter_map(|f| {
            let column = batch.column_by_name(f.name())?;
            (0..column.len())
                .find(|&i| column.is_null(i))
                .map(|i| (i, f.name().clone()))
        })
        .min()
}

thread_local! {
    /// Whether this thread is in [`contained`], whose panics are reported, not printed.
    static CONTAINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `read`, a panic in it refusing the file: the Parquet decoders panic on some damaged
/// pages (an index past a buffer), and a file from another machine must not end the command
/// with a backtrace. The panic hook stays quiet for such a panic and for nothing else.
fn contained<T>(
    file: &Path,
    read: std::panic::AssertUnwindSafe<impl FnOnce() -> Result<T, FleetError>>,
) -> Result<T, FleetError> {
    static QUIET_HOOK: std::sync::Once = std::sync::Once::new();
    QUIET_HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CONTAINED.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let was = CONTAINED.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(read);
    CONTAINED.with(|c| c.set(was));
    result.unwrap_or_else(|payload| {
        Err(bad(
            file,
            format!(
                "damaged: the Parquet reader failed on it ({})",
                docsuggest_host::panic_text::message(payload.as_ref())
            ),
        ))
    })
}

fn bad(file: &Path, problem: String) -> FleetError {
    FleetError::BadFile {
        file: file.to_path_buf(),
        problem,
    }
}
