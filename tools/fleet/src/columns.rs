//! The Parquet files' columns (docs/FLEET.md has them as a table): an export's `moves` and
//! `decisions`, and the fleet's `rates`. Numbers are signed (`Int64`, `Int32`), as Spark
//! and most engines read them; ids are hex text.

use crate::FleetError;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use docsuggest_schema::{RateEvent, RateModel};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use std::fs::File;
use std::path::Path;
use std::sync::Arc;

/// The key-value metadata key naming what a file is (`moves`, `decisions`, `fleet-rates`).
pub const FORMAT_KEY: &str = "docsuggest.format";
/// The key-value metadata key of the format's version.
pub const VERSION_KEY: &str = "docsuggest.version";
/// The version of every format this build writes and reads (2: every file carries a digest;
/// 3: every entry names its run, and held marks are per run).
pub const FORMAT_VERSION: &str = "3";
/// The key-value metadata key of the digest of a file's rows ([`crate::digest`]).
pub const DIGEST_KEY: &str = "docsuggest.digest";
/// A rates file's rate model (`evidence`, `beta`, `step`).
pub const MODEL_KEY: &str = "docsuggest.model";
/// A rates file's held marks: per store id, per run, the last resolution number merged
/// (JSON: `{"<store id>": {"<run>": n}}`).
pub const HELD_KEY: &str = "docsuggest.held";

/// An export file's runs: per run, the first and last resolution of it the export covered
/// (JSON: `{"<run>": [first, last]}`): every entry of those ranges of the file's workspace
/// is in the file.
pub const RUNS_KEY: &str = "docsuggest.runs";

/// An export file's workspace key and store id (every row's).
pub const WORKSPACE_KEY: &str = "docsuggest.workspace";
/// See [`WORKSPACE_KEY`].
pub const STORE_KEY: &str = "docsuggest.store";

/// The key under which Arrow's writer embeds its schema (a flatbuffer) in a Parquet file.
const ARROW_SCHEMA_KEY: &str = "ARROW:schema";

/// The prefix of an export's moves files.
pub const MOVES_PREFIX: &str = "moves-";
/// The prefix of an export's decisions files.
pub const DECISIONS_PREFIX: &str = "decisions-";

fn text(name: &str) -> Field {
    Field::new(name, DataType::Utf8, false)
}

/// One row per move of a resolved decision.
pub fn moves() -> SchemaRef {
    Arc::new(Schema::new(vec![
        text("store_id"),
        text("run"),
        Field::new("resolution_seq", DataType::Int64, false),
        Field::new("decision_seq", DataType::Int64, false),
        Field::new("move_index", DataType::Int32, false),
        text("workspace"),
        text("family"),
        text("companion"),
        text("event"),
        Field::new("step", DataType::Float64, false),
    ]))
}

/// One row per resolved decision (history entry).
pub fn decisions() -> SchemaRef {
    Arc::new(Schema::new(vec![
        text("store_id"),
        text("run"),
        Field::new("resolution_seq", DataType::Int64, false),
        Field::new("decision_seq", DataType::Int64, false),
        text("workspace"),
        text("agent"),
        text("family"),
        Field::new("kappa", DataType::Float64, false),
        text("outcome"),
        Field::new("accepted", DataType::Utf8, true),
        Field::new(
            "companions",
            DataType::List(Arc::new(Field::new("item", DataType::Utf8, true))),
            false,
        ),
        Field::new("moves", DataType::Int32, false),
    ]))
}

/// One row per rate key of the fleet: the fold of its merged moves, and its rate.
pub fn rates() -> SchemaRef {
    Arc::new(Schema::new(vec![
        text("workspace"),
        text("family"),
        text("companion"),
        Field::new("step", DataType::Float64, false),
        Field::new("accepts", DataType::Int64, false),
        Field::new("rejects", DataType::Int64, false),
        Field::new("shadow_hits", DataType::Int64, false),
        Field::new("shadow_misses", DataType::Int64, false),
        Field::new("recent_hits", DataType::Float64, false),
        Field::new("recent_misses", DataType::Float64, false),
        Field::new("rate", DataType::Float64, false),
    ]))
}

/// A move's event as the files write it.
pub fn event_name(event: RateEvent) -> &'static str {
    match event {
        RateEvent::Accept => "accept",
        RateEvent::Reject => "reject",
        RateEvent::ShadowHit => "shadow-hit",
        RateEvent::ShadowMiss => "shadow-miss",
    }
}

/// The event a file's text names.
pub fn event_of(name: &str) -> Option<RateEvent> {
    Some(match name {
        "accept" => RateEvent::Accept,
        "reject" => RateEvent::Reject,
        "shadow-hit" => RateEvent::ShadowHit,
        "shadow-miss" => RateEvent::ShadowMiss,
        _ => return None,
    })
}

/// A rate model as configs and the files name it (`evidence`, `beta`, `step`).
pub fn model_name(model: RateModel) -> String {
    match serde_json::to_value(model) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{model:?}").to_lowercase(),
    }
}

/// A store id (or a run id) as the files write it: 16 hex digits.
pub fn store_id_text(id: u64) -> String {
    format!("{id:016x}")
}

/// Whether `id` is a store id or run id as the files write them.
pub fn is_id_text(id: &str) -> bool {
    id.len() == 16 && id.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Opens a Parquet file's footer: a missing, truncated or foreign file is an error naming it.
pub fn open_parquet(file: &Path) -> Result<ParquetRecordBatchReaderBuilder<File>, FleetError> {
    let handle = File::open(file).map_err(|source| FleetError::Io {
        doing: "reading",
        path: file.to_path_buf(),
        source,
    })?;
    let bad = |problem: String| FleetError::BadFile {
        file: file.to_path_buf(),
        problem,
    };
    // The types come from the Parquet schema: an embedded Arrow schema (which this build never
    // writes) is a flatbuffer whose damage the Arrow reader does not survive, so it is never
    // decoded, and a file carrying one is refused before DataFusion would decode it.
    let options = ArrowReaderOptions::new().with_skip_arrow_metadata(true);
    let builder = ParquetRecordBatchReaderBuilder::try_new_with_options(handle, options)
        .map_err(|e| bad(format!("not a readable Parquet file ({e})")))?;
    let foreign = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .is_some_and(|kv| kv.iter().any(|kv| kv.key == ARROW_SCHEMA_KEY));
    if foreign {
        return Err(bad(format!(
            "not written by this build ({ARROW_SCHEMA_KEY} in its metadata)"
        )));
    }
    // Likewise the page locators this build never writes: a reader would trust their offsets.
    let located = builder.metadata().row_groups().iter().any(|group| {
        group.columns().iter().any(|c| {
            c.offset_index_offset().is_some()
                || c.column_index_offset().is_some()
                || c.bloom_filter_offset().is_some()
        })
    });
    if located {
        return Err(bad(
            "not written by this build (it has a page index or bloom filter)".into(),
        ));
    }
    Ok(builder)
}

/// Checks that `found` (a file's schema) has every column of `expected`, of its type.
pub fn check_schema(file: &Path, found: &Schema, expected: &Schema) -> Result<(), FleetError> {
    for want in expected.fields() {
        let problem = match found.field_with_name(want.name()) {
            Err(_) => format!("no column `{}`", want.name()),
            Ok(got) if got.data_type().equals_datatype(want.data_type()) => continue,
            Ok(got) => format!(
                "column `{}` is {}, not {}",
                want.name(),
                got.data_type(),
                want.data_type()
            ),
        };
        return Err(FleetError::BadFile {
            file: file.to_path_buf(),
            problem: format!("not a docsuggest file of this kind ({problem})"),
        });
    }
    Ok(())
}

/// The longest directory name a key is written as whole; a longer one (a directory name can
/// be as long as a file name may be, and the key adds its hash) is cut and a hash of the
/// whole key added, so every key makes a name any file system takes.
const MAX_KEY_DIR: usize = 64;

/// The name of the directory holding a workspace key's files: the key, with any byte other
/// than `A-Za-z0-9._-` written `%XX` (a key holds a directory's name, which may be odd); past
/// [`MAX_KEY_DIR`] bytes, its first 40 and 16 hex digits of the whole key's SHA-256.
pub fn key_dir(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for b in key.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    // `.` and `..` name no directory of their own.
    if out.chars().all(|c| c == '.') {
        out = out.replace('.', "%2E");
    }
    if out.len() > MAX_KEY_DIR {
        use sha2::Digest;
        let hash = sha2::Sha256::digest(key.as_bytes());
        // The escaped text is ASCII, so any byte index is a character boundary.
        out.truncate(40);
        out.push('-');
        for byte in hash.iter().take(8) {
            out.push_str(&format!("{byte:02x}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_keys_make_plain_directory_names() {
        for e in [
            RateEvent::Accept,
            RateEvent::Reject,
            RateEvent::ShadowHit,
            RateEvent::ShadowMiss,
        ] {
            assert_eq!(event_of(event_name(e)), Some(e));
        }
        assert_eq!(event_of("maybe"), None);
        assert_eq!(key_dir("git-0123abcdef01"), "git-0123abcdef01");
        assert_eq!(key_dir("my dir/x"), "my%20dir%2Fx");
        assert_eq!(key_dir(".."), "%2E%2E");
        // A name as long as a file name may be: cut, hashed, distinct from its neighbour's.
        let long = format!("{}-0123abcdef01", "d".repeat(255));
        let other = format!("{}-0123abcdef02", "d".repeat(255));
        assert_eq!(key_dir(&long).len(), 57);
        assert!(key_dir(&long).starts_with(&"d".repeat(40)));
        assert_ne!(key_dir(&long), key_dir(&other));
        assert_eq!(store_id_text(255), "00000000000000ff");
    }
}
