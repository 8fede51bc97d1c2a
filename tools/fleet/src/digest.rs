//! What proves a fleet file intact: a SHA-256 over its rows, written into its key-value
//! metadata (`docsuggest.digest`) when the file is written and recomputed from the rows when
//! it is read. A flipped byte in a page either fails to decode or changes a value, and either
//! way the file is refused by name; a flip that changes no row (in statistics the merge never
//! reads) merges exactly as the intact file does.
//!
//! The digest is row by row, each value tagged and length-prefixed, so it does not depend on
//! how the rows were cut into batches or pages; the file's other metadata (its format,
//! version, rate model, held marks) is added after the rows, so a damaged mark is refused too.

use crate::FleetError;
use crate::columns::DIGEST_KEY;
use datafusion::arrow::array::{Array, AsArray, RecordBatch};
use datafusion::arrow::datatypes::{DataType, Float64Type, Int32Type, Int64Type};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The text before a digest's hex digits.
const SCHEME: &str = "sha256:";

/// A running digest over the rows of one file.
#[derive(Default)]
pub struct RowDigest {
    hasher: Sha256,
    row: Vec<u8>,
}

impl RowDigest {
    /// Adds every row of `batch`, in order.
    pub fn batch(&mut self, batch: &RecordBatch) -> Result<(), FleetError> {
        for i in 0..batch.num_rows() {
            self.row.clear();
            for column in batch.columns() {
                encode(column.as_ref(), i, &mut self.row)?;
            }
            self.hasher.update(&self.row);
        }
        Ok(())
    }

    /// Adds the file's own key-value metadata (`docsuggest.*` in key order, the digest itself
    /// left out; the Parquet writer adds keys of its own, such as the Arrow schema) and
    /// answers the digest as the metadata writes it (`sha256:` and 64 hex digits).
    pub fn finish(mut self, metadata: &BTreeMap<String, String>) -> String {
        let own = metadata
            .iter()
            .filter(|(k, _)| k.starts_with(NAMESPACE) && *k != DIGEST_KEY);
        for (key, value) in own {
            self.row.clear();
            text(key, &mut self.row);
            text(value, &mut self.row);
            self.hasher.update(&self.row);
        }
        let mut out = String::with_capacity(SCHEME.len() + 64);
        out.push_str(SCHEME);
        for byte in self.hasher.finalize().iter() {
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        out
    }
}

/// The prefix of the metadata keys the digest covers.
const NAMESPACE: &str = "docsuggest.";

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The digest of a file of one batch and `metadata`.
pub fn of_file(
    batch: &RecordBatch,
    metadata: &BTreeMap<String, String>,
) -> Result<String, FleetError> {
    let mut digest = RowDigest::default();
    digest.batch(batch)?;
    Ok(digest.finish(metadata))
}

/// Appends value `i` of `column`: a null tag, or a value tag and the value's bytes.
fn encode(column: &dyn Array, i: usize, out: &mut Vec<u8>) -> Result<(), FleetError> {
    if column.is_null(i) {
        out.push(0);
        return Ok(());
    }
    out.push(1);
    match column.data_type() {
        DataType::Utf8 => text(column.as_string::<i32>().value(i), out),
        DataType::Int64 => {
            out.extend_from_slice(&column.as_primitive::<Int64Type>().value(i).to_le_bytes())
        }
        DataType::Int32 => {
            out.extend_from_slice(&column.as_primitive::<Int32Type>().value(i).to_le_bytes())
        }
        DataType::Float64 => out.extend_from_slice(
            &column
                .as_primitive::<Float64Type>()
                .value(i)
                .to_bits()
                .to_le_bytes(),
        ),
        DataType::List(_) => {
            let items = column.as_list::<i32>().value(i);
            out.extend_from_slice(&(items.len() as u64).to_le_bytes());
            for j in 0..items.len() {
                encode(items.as_ref(), j, out)?;
            }
        }
        other => return Err(FleetError::unexpected(&format!("a {other} column"))),
    }
    Ok(())
}

fn text(value: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(&(value.len() as u64).to_le_bytes());
    out.extend_from_slice(value.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, Float64Array, StringArray};
    use datafusion::arrow::datatypes::{Field, Schema};
    use std::sync::Arc;

    fn batch(names: &[Option<&str>], steps: &[f64]) -> RecordBatch {
        let schema = Arc::new(Schema::new(vec![
            Field::new("name", DataType::Utf8, true),
            Field::new("step", DataType::Float64, false),
        ]));
        let columns: Vec<ArrayRef> = vec![
            Arc::new(StringArray::from(names.to_vec())),
            Arc::new(Float64Array::from(steps.to_vec())),
        ];
        RecordBatch::try_new(schema, columns).expect("batch")
    }

    #[test]
    fn the_digest_is_of_the_rows_not_of_how_they_were_batched() {
        let whole = batch(&[Some("a"), Some("bc")], &[0.1, -0.2]);
        let meta = BTreeMap::from([("docsuggest.held".to_string(), "{}".to_string())]);
        let mut split = RowDigest::default();
        split.batch(&whole.slice(0, 1)).expect("digest");
        split.batch(&whole.slice(1, 1)).expect("digest");
        let digest = of_file(&whole, &meta).expect("digest");
        assert_eq!(split.finish(&meta), digest);
        let other_meta = BTreeMap::from([("docsuggest.held".to_string(), "{\"a\":1}".to_string())]);
        assert_ne!(of_file(&whole, &other_meta).expect("digest"), digest);
        assert!(digest.starts_with(SCHEME) && digest.len() == SCHEME.len() + 64);
        // A value moved between columns, a null, a changed bit: each a different digest.
        for other in [
            batch(&[Some("ab"), Some("c")], &[0.1, -0.2]),
            batch(&[None, Some("bc")], &[0.1, -0.2]),
            batch(&[Some(""), Some("bc")], &[0.1, -0.2]),
            batch(
                &[Some("a"), Some("bc")],
                &[0.1, f64::from_bits((-0.2f64).to_bits() ^ 1)],
            ),
        ] {
            assert_ne!(of_file(&other, &meta).expect("digest"), digest);
        }
    }
}
