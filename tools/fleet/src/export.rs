//! `docsuggest export --format parquet`: a store's history as Parquet, one directory per
//! workspace key under `--out`, each holding a `moves-…` and a `decisions-…` file per export:
//! `<kind>-<store id>-<first>-<last>.parquet`, `first..=last` the resolution numbers written.
//!
//! Only what is new is written: the entries after `--since`, or after the last export this
//! store remembers. Files are written whole under a temporary name and renamed into place,
//! then the mark is moved; an export cut short between the two writes the same entries again
//! next time, which a merge counts once.

use crate::FleetError;
use crate::columns::{
    self, DECISIONS_PREFIX, DIGEST_KEY, FORMAT_KEY, FORMAT_VERSION, MOVES_PREFIX, VERSION_KEY,
};
use datafusion::arrow::array::{
    ArrayRef, Float64Builder, Int32Builder, Int64Builder, ListBuilder, StringBuilder,
};
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::record_batch::RecordBatch;
use docsuggest_host::stores;
use docsuggest_schema::{HistoryEntry, StoreContents};
use docsuggest_store::{RedbStore, StoreOptions};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_writer::ArrowWriterOptions;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What to export.
#[derive(Clone, Debug)]
pub struct ExportOptions {
    /// The store file (`None`: the default store).
    pub store: Option<PathBuf>,
    /// The directory to write into (created if missing).
    pub out: PathBuf,
    /// Export the entries after this resolution number (`None`: after the last export).
    pub since: Option<u64>,
}

/// What an export wrote.
#[derive(Clone, Debug, Serialize)]
pub struct Exported {
    /// The store.
    pub store: String,
    /// Its id, as the files write it.
    pub store_id: String,
    /// The entries written were those after this resolution number.
    pub since: u64,
    /// The last resolution number written (`since` when nothing was new).
    pub through: u64,
    /// History entries written.
    pub entries: usize,
    /// Moves written.
    pub moves: usize,
    /// The files written.
    pub files: Vec<String>,
    /// Base rows the store holds: the folded moves of history its ring let go, which no
    /// export carries (export more often than `ringCapacity` entries are resolved).
    pub unexported_base_rows: usize,
}

impl std::fmt::Display for Exported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "exported {} history entries ({} moves) of {} (store id {}) after resolution {}, through {}, in {} files",
            self.entries,
            self.moves,
            self.store,
            self.store_id,
            self.since,
            self.through,
            self.files.len()
        )?;
        if self.unexported_base_rows > 0 {
            writeln!(
                f,
                "note: {} base rows hold history the store's ring let go before it was exported; they are not in any export",
                self.unexported_base_rows
            )?;
        }
        Ok(())
    }
}

/// Exports the store's new history as Parquet and remembers how far it got.
pub fn export(options: &ExportOptions) -> Result<Exported, FleetError> {
    let file = stores::store_file(options.store.as_deref());
    let mut store = RedbStore::open(StoreOptions::new(&file))?;
    let id = columns::store_id_text(store.store_id()?);
    let since = match options.since {
        Some(since) => since,
        None => store.exported_through()?.unwrap_or(0),
    };
    let entries: Vec<HistoryEntry> = store
        .history()?
        .into_iter()
        .filter(|e| e.resolution_seq > since)
        .collect();
    let mut report = Exported {
        store: file.display().to_string(),
        store_id: id.clone(),
        since,
        through: entries.last().map_or(since, |e| e.resolution_seq),
        entries: entries.len(),
        moves: entries.iter().map(|e| e.moves.len()).sum(),
        files: Vec::new(),
        unexported_base_rows: store.base_rows()?.len(),
    };
    if entries.is_empty() {
        return Ok(report);
    }
    let lineage = store.lineage()?;
    let refs: Vec<Ran<'_>> = entries
        .iter()
        .map(|entry| Ran {
            run: columns::store_id_text(lineage.run_of(entry.resolution_seq)),
            entry,
        })
        .collect();
    let written = write_each(&options.out, &id, &refs);
    for file in written.files {
        report.files.push(file.display().to_string());
    }
    if let Some((first, error)) = written.failed {
        // The workspaces written reach the fleet; the mark stops before the failed one's
        // first entry, so it is written again next time (what is written twice counts once).
        let through = first.saturating_sub(1);
        if through > since {
            store.set_exported_through(through)?;
        }
        return Err(error);
    }
    store.set_exported_through(report.through)?;
    Ok(report)
}

/// What [`write_each`] wrote, and the first workspace it could not write (the resolution
/// number of its first entry, and why).
struct Written {
    files: Vec<PathBuf>,
    failed: Option<(u64, FleetError)>,
}

/// A history entry and the run that resolved it (`docsuggest_store::Lineage`), as 16 hex
/// digits.
pub struct Ran<'a> {
    /// The run.
    pub run: String,
    /// The entry.
    pub entry: &'a HistoryEntry,
}

impl<'a> Ran<'a> {
    /// `entries`, every one resolved by the run `run` (synthetic exports: tests, benchmarks).
    pub fn all_in(entries: &'a [HistoryEntry], run: u64) -> Vec<Ran<'a>> {
        let run = columns::store_id_text(run);
        entries
            .iter()
            .map(|entry| Ran {
                run: run.clone(),
                entry,
            })
            .collect()
    }
}

/// Writes each workspace's files; one that fails does not keep the others from being written.
fn write_each(out: &Path, store_id: &str, entries: &[Ran<'_>]) -> Written {
    let mut by_workspace: BTreeMap<&str, Vec<&Ran<'_>>> = BTreeMap::new();
    for ran in entries {
        by_workspace
            .entry(ran.entry.decision.workspace.as_str())
            .or_default()
            .push(ran);
    }
    // What the export covers of each run (a run's entries are contiguous in its store).
    let mut runs: BTreeMap<&str, [u64; 2]> = BTreeMap::new();
    for ran in entries {
        let seq = ran.entry.resolution_seq;
        let range = runs.entry(ran.run.as_str()).or_insert([seq, seq]);
        range[0] = range[0].min(seq);
        range[1] = range[1].max(seq);
    }
    let runs = serde_json::to_string(&runs).unwrap_or_else(|_| "{}".into());
    let mut written = Written {
        files: Vec::new(),
        failed: None,
    };
    for (workspace, entries) in by_workspace {
        match write_workspace(out, store_id, workspace, &entries, &runs) {
            Ok(files) => written.files.extend(files),
            Err(error) => {
                let first = entries.first().map_or(0, |r| r.entry.resolution_seq);
                if written.failed.as_ref().is_none_or(|(f, _)| first < *f) {
                    written.failed = Some((first, error));
                }
            }
        }
    }
    written
}

/// Writes `entries` (in resolution order) of the store `store_id` as export files under
/// `out`: a moves and a decisions file per workspace key. Answers the files written, or the
/// first failure once every workspace that could be written was.
pub fn write_export(
    out: &Path,
    store_id: &str,
    entries: &[Ran<'_>],
) -> Result<Vec<PathBuf>, FleetError> {
    let written = write_each(out, store_id, entries);
    match written.failed {
        Some((_, error)) => Err(error),
        None => Ok(written.files),
    }
}

/// One workspace's moves and decisions files, named by the store, the run of their last entry
/// and their range: a restored older copy of a store exporting the same range again (under
/// another run) never replaces its original's files.
fn write_workspace(
    out: &Path,
    store_id: &str,
    workspace: &str,
    entries: &[&Ran<'_>],
    runs: &str,
) -> Result<[PathBuf; 2], FleetError> {
    let dir = out.join(columns::key_dir(workspace));
    std::fs::create_dir_all(&dir).map_err(|source| FleetError::Io {
        doing: "creating",
        path: dir.clone(),
        source,
    })?;
    let range = format!(
        "{store_id}-{}-{}-{}.parquet",
        entries.last().map_or("", |r| r.run.as_str()),
        entries.first().map_or(0, |r| r.entry.resolution_seq),
        entries.last().map_or(0, |r| r.entry.resolution_seq)
    );
    let moves = dir.join(format!("{MOVES_PREFIX}{range}"));
    let metadata = [
        (columns::RUNS_KEY, runs.to_string()),
        (columns::WORKSPACE_KEY, workspace.to_string()),
        (columns::STORE_KEY, store_id.to_string()),
    ];
    write(&moves, &moves_batch(store_id, entries)?, "moves", &metadata)?;
    let decisions = dir.join(format!("{DECISIONS_PREFIX}{range}"));
    write(
        &decisions,
        &decisions_batch(store_id, entries)?,
        "decisions",
        &metadata,
    )?;
    Ok([moves, decisions])
}

fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn moves_batch(id: &str, entries: &[&Ran<'_>]) -> Result<RecordBatch, FleetError> {
    let n: usize = entries.iter().map(|r| r.entry.moves.len()).sum();
    let mut store_id = StringBuilder::with_capacity(n, n * id.len());
    let mut run = StringBuilder::with_capacity(n, n * id.len());
    let mut resolution = Int64Builder::with_capacity(n);
    let mut decision = Int64Builder::with_capacity(n);
    let mut index = Int32Builder::with_capacity(n);
    let (mut workspace, mut family, mut companion, mut event) = (
        StringBuilder::new(),
        StringBuilder::new(),
        StringBuilder::new(),
        StringBuilder::new(),
    );
    let mut step = Float64Builder::with_capacity(n);
    for ran in entries {
        let entry = ran.entry;
        for (i, mv) in entry.moves.iter().enumerate() {
            store_id.append_value(id);
            run.append_value(&ran.run);
            resolution.append_value(to_i64(entry.resolution_seq));
            decision.append_value(to_i64(entry.decision.seq));
            index.append_value(i32::try_from(i).unwrap_or(i32::MAX));
            workspace.append_value(&mv.key.workspace);
            family.append_value(&mv.key.family);
            companion.append_value(&mv.key.companion);
            event.append_value(columns::event_name(mv.event));
            step.append_value(mv.step);
        }
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(store_id.finish()),
        Arc::new(run.finish()),
        Arc::new(resolution.finish()),
        Arc::new(decision.finish()),
        Arc::new(index.finish()),
        Arc::new(workspace.finish()),
        Arc::new(family.finish()),
        Arc::new(companion.finish()),
        Arc::new(event.finish()),
        Arc::new(step.finish()),
    ];
    batch(columns::moves(), columns)
}

fn decisions_batch(id: &str, entries: &[&Ran<'_>]) -> Result<RecordBatch, FleetError> {
    let mut store_id = StringBuilder::new();
    let mut run = StringBuilder::new();
    let mut resolution = Int64Builder::new();
    let mut decision = Int64Builder::new();
    let (mut workspace, mut agent, mut family, mut outcome, mut accepted) = (
        StringBuilder::new(),
        StringBuilder::new(),
        StringBuilder::new(),
        StringBuilder::new(),
        StringBuilder::new(),
    );
    let mut kappa = Float64Builder::new();
    let mut companions = ListBuilder::new(StringBuilder::new());
    let mut moves = Int32Builder::new();
    for ran in entries {
        let (entry, d) = (ran.entry, &ran.entry.decision);
        store_id.append_value(id);
        run.append_value(&ran.run);
        resolution.append_value(to_i64(entry.resolution_seq));
        decision.append_value(to_i64(d.seq));
        workspace.append_value(&d.workspace);
        agent.append_value(&d.agent);
        family.append_value(&d.family);
        kappa.append_value(d.kappa);
        outcome.append_value(d.outcome.name());
        accepted.append_option(d.accepted.as_deref());
        for c in &d.companions {
            companions.values().append_value(&c.path);
        }
        companions.append(true);
        moves.append_value(i32::try_from(entry.moves.len()).unwrap_or(i32::MAX));
    }
    let columns: Vec<ArrayRef> = vec![
        Arc::new(store_id.finish()),
        Arc::new(run.finish()),
        Arc::new(resolution.finish()),
        Arc::new(decision.finish()),
        Arc::new(workspace.finish()),
        Arc::new(agent.finish()),
        Arc::new(family.finish()),
        Arc::new(kappa.finish()),
        Arc::new(outcome.finish()),
        Arc::new(accepted.finish()),
        Arc::new(companions.finish()),
        Arc::new(moves.finish()),
    ];
    batch(columns::decisions(), columns)
}

/// Columns into a batch of `schema` (a mismatch is this crate's bug, reported as a query error).
pub(crate) fn batch(schema: SchemaRef, columns: Vec<ArrayRef>) -> Result<RecordBatch, FleetError> {
    RecordBatch::try_new(schema, columns).map_err(|e| FleetError::Query(Box::new(e.into())))
}

/// Writes `batch` to `file` whole, as a docsuggest fleet file of `format`: under a temporary
/// name in its directory, then renamed. `extra` goes into the file's key-value metadata (a
/// key given twice keeps its last value), and the digest of the rows and that metadata
/// ([`crate::digest`]) with it.
pub fn write(
    file: &Path,
    batch: &RecordBatch,
    format: &str,
    extra: &[(&str, String)],
) -> Result<(), FleetError> {
    let dir = file.parent().unwrap_or(Path::new("."));
    let failed = |source: std::io::Error| FleetError::Io {
        doing: "writing",
        path: file.to_path_buf(),
        source,
    };
    let staged = tempfile::NamedTempFile::new_in(dir).map_err(failed)?;
    let mut metadata: BTreeMap<String, String> = BTreeMap::from([
        (FORMAT_KEY.to_string(), format.to_string()),
        (VERSION_KEY.to_string(), FORMAT_VERSION.to_string()),
    ]);
    metadata.extend(extra.iter().map(|(k, v)| ((*k).to_string(), v.clone())));
    let digest = crate::digest::of_file(batch, &metadata)?;
    metadata.insert(DIGEST_KEY.to_string(), digest);
    // Pages only, read in order: no page index, statistics or bloom filter, which locate or
    // skip pages by offsets a damaged file may get wrong and which a merge has no use for.
    let properties = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_statistics_enabled(EnabledStatistics::None)
        .set_offset_index_disabled(true)
        .set_bloom_filter_enabled(false)
        .set_key_value_metadata(Some(
            metadata
                .into_iter()
                .map(|(k, v)| KeyValue::new(k, v))
                .collect(),
        ))
        .build();
    let wrote = |source| FleetError::Write {
        file: file.to_path_buf(),
        source,
    };
    let handle = staged.as_file().try_clone().map_err(failed)?;
    // No embedded Arrow schema: readers take the types from the Parquet schema, and a reader
    // never has to decode a flatbuffer another machine may have damaged.
    let options = ArrowWriterOptions::new()
        .with_properties(properties)
        .with_skip_arrow_metadata(true);
    let mut writer =
        ArrowWriter::try_new_with_options(handle, batch.schema(), options).map_err(wrote)?;
    writer.write(batch).map_err(wrote)?;
    writer.close().map_err(wrote)?;
    staged.as_file().sync_all().map_err(failed)?;
    staged.persist(file).map_err(|e| failed(e.error))?;
    Ok(())
}
