//! The schema v1 → v2 upgrade: rate rows gain the shadow counts of the evidence model.
//!
//! v1 values carry version tag 1. The step re-encodes every value under tag 2 (rate rows
//! through the v1 layout; keys, decisions and history entries kept their layout), then
//! rebuilds every live row from base + history, so the upgraded file satisfies
//! `live == fold(base, history)` by construction. History entries are kept one for one: v1
//! recorded no shadow observation, so the evidence model starts from the accepts and
//! rejects v1 learned.
//!
//! Rows are written in the layout schemas v2 to v4 kept (five fields, `codec::encode_v4_row`),
//! as a v2 file holds them: the later steps of the same upgrade read them as such, and the
//! v4 → v5 step (`upgrade_v5.rs`) gives them their recent evidence.

use crate::errors::{self, ResultExt};
use crate::tables::{BASE, HISTORY, KeyTuple, PENDING, RATES, ShowKey, key_tuple};
use docsuggest_schema::codec;
use docsuggest_schema::{Decision, HistoryEntry, RateKey, RateRow, StoreError};
use redb::{ReadableTable, TableDefinition, WriteTransaction};
use std::collections::BTreeMap;

/// Runs the upgrade inside the migration's write transaction.
pub(crate) fn apply(txn: &WriteTransaction, path: &str) -> Result<(), StoreError> {
    rewrite_rows(txn, path, RATES, "rates")?;
    let base = rewrite_rows(txn, path, BASE, "base")?;
    let history = rewrite_values::<HistoryEntry>(txn, path, HISTORY, "history")?;
    rewrite_values::<Decision>(txn, path, PENDING, "pending")?;
    let done = std::sync::atomic::AtomicU64::new(0);
    let live = crate::per_key_moves::fold_all(&base, &history, false, &done)?;
    let mut rates = txn.open_table(RATES).at(path, "rebuilding rates")?;
    rates.retain(|_, _| false).at(path, "rebuilding rates")?;
    for (key, row) in &live {
        let bytes = encode(row, "rates", key_tuple(key))?;
        rates
            .insert(key_tuple(key), bytes.as_slice())
            .at(path, "rebuilding rates")?;
    }
    Ok(())
}

fn encode(row: &RateRow, table: &str, key: KeyTuple<'_>) -> Result<Vec<u8>, StoreError> {
    codec::encode_v4_row(row)
        .map_err(|e| errors::encode_failed(&format!("{table}{}", ShowKey(key)), e))
}

/// Re-encodes every v1 row of a rates-shaped table; answers the rows.
fn rewrite_rows(
    txn: &WriteTransaction,
    path: &str,
    definition: TableDefinition<KeyTuple<'static>, &[u8]>,
    name: &str,
) -> Result<BTreeMap<RateKey, RateRow>, StoreError> {
    let doing = format!("upgrading {name}");
    let mut table = txn.open_table(definition).at(path, &doing)?;
    let mut rows = BTreeMap::new();
    for item in table.iter().at(path, &doing)? {
        let (k, v) = item.at(path, &doing)?;
        let (w, f, c) = k.value();
        let row = codec::decode_v1_row(v.value())
            .map_err(|e| errors::codec(name, ShowKey((w, f, c)), e))?;
        rows.insert(RateKey::companion(w, f, c), row);
    }
    for (key, row) in &rows {
        let bytes = encode(row, name, key_tuple(key))?;
        table
            .insert(key_tuple(key), bytes.as_slice())
            .at(path, &doing)?;
    }
    Ok(rows)
}

/// Re-tags every v1 value of a sequence-keyed table; answers the values in key order.
fn rewrite_values<T: serde::Serialize + serde::de::DeserializeOwned>(
    txn: &WriteTransaction,
    path: &str,
    definition: TableDefinition<u64, &[u8]>,
    name: &str,
) -> Result<Vec<T>, StoreError> {
    let doing = format!("upgrading {name}");
    let mut table = txn.open_table(definition).at(path, &doing)?;
    let mut values = Vec::new();
    for item in table.iter().at(path, &doing)? {
        let (k, v) = item.at(path, &doing)?;
        let seq = k.value();
        let value: T = codec::decode_v1(v.value()).map_err(|e| errors::codec(name, seq, e))?;
        values.push((seq, value));
    }
    for (seq, value) in &values {
        let bytes = codec::encode(value)
            .map_err(|e| errors::encode_failed(&format!("{name}[{seq}]"), e))?;
        table.insert(*seq, bytes.as_slice()).at(path, &doing)?;
    }
    Ok(values.into_iter().map(|(_, v)| v).collect())
}
