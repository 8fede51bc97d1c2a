//! The redb tables of a store file, their key types, and typed reads of their values.
//!
//! Every stored value is `codec::encode` output (a version tag, then bincode); this module
//! decodes it and names the table and key when a value cannot be read. The layouts are
//! described in `docs/STORE.md`.

use crate::errors::{self, ResultExt};
use crate::record::SeqMarks;
use docsuggest_schema::codec;
use docsuggest_schema::{
    Decision, EntryHead, EntryMoves, HistoryEntry, MinedPack, RateKey, RateMove, RateRow,
    StoreError,
};
use redb::{ReadableTable, TableDefinition};
use std::fmt;

/// A rate key as stored: `(workspace, family, companion)`, companion `""` for the family row,
/// so one family's rows are adjacent and the family row sorts first.
pub(crate) type KeyTuple<'a> = (&'a str, &'a str, &'a str);

/// Live rate rows.
pub(crate) const RATES: TableDefinition<KeyTuple<'static>, &[u8]> = TableDefinition::new("rates");
/// Per key, the state folded from history evicted out of the ring.
pub(crate) const BASE: TableDefinition<KeyTuple<'static>, &[u8]> = TableDefinition::new("base");
/// Resolution sequence number → the entry's decision (`EntryHead`), oldest first.
pub(crate) const HISTORY: TableDefinition<u64, &[u8]> = TableDefinition::new("history");
/// Resolution sequence number → the entry's moves (`EntryMoves`): one per history entry, kept
/// apart from the decision so a recompute reads only these.
pub(crate) const MOVES: TableDefinition<u64, &[u8]> = TableDefinition::new("moves");
/// Decision sequence number → pending `Decision` (an open window).
pub(crate) const PENDING: TableDefinition<u64, &[u8]> = TableDefinition::new("pending");
/// Schema version and sequence counters.
pub(crate) const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// Workspace key → the pack mined from its git history (`MinedPack`, schema v4).
pub(crate) const MINED: TableDefinition<&str, &[u8]> = TableDefinition::new("mined");

/// The names of every table a store file holds.
pub(crate) const TABLE_NAMES: [&str; 7] = [
    "rates", "base", "history", "moves", "pending", "meta", "mined",
];

/// Keys of the `meta` table.
pub(crate) mod meta {
    /// The schema version of the file.
    pub const SCHEMA_VERSION: &str = "schema_version";
    /// The next decision sequence number to assign (starts at 1).
    pub const NEXT_DECISION_SEQ: &str = "next_decision_seq";
    /// The next resolution sequence number to assign (starts at 1).
    pub const NEXT_RESOLUTION_SEQ: &str = "next_resolution_seq";
}

/// The stored form of a key.
pub(crate) fn key_tuple(key: &RateKey) -> KeyTuple<'_> {
    (&key.workspace, &key.family, &key.companion)
}

/// A key as error messages print it.
pub(crate) struct ShowKey<'a>(pub KeyTuple<'a>);

impl fmt::Display for ShowKey<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (w, fam, c) = self.0;
        write!(f, "({w:?}, {fam:?}, {c:?})")
    }
}

/// A history entry's two stored values: its decision (for `history`) and its moves (for
/// `moves`).
pub(crate) struct EntryBytes {
    pub head: Vec<u8>,
    pub moves: Vec<u8>,
}

/// `EntryHead` and `EntryMoves` by reference: the same encoding without copying the entry.
#[derive(serde::Serialize)]
struct HeadRef<'a> {
    resolution_seq: u64,
    decision: &'a Decision,
}

#[derive(serde::Serialize)]
struct MovesRef<'a> {
    resolution_seq: u64,
    moves: &'a [RateMove],
}

/// Encodes a history entry as its two stored values.
pub(crate) fn encode_entry(entry: &HistoryEntry) -> Result<EntryBytes, StoreError> {
    let seq = entry.resolution_seq;
    let head = codec::encode(&HeadRef {
        resolution_seq: seq,
        decision: &entry.decision,
    })
    .map_err(|e| errors::encode_failed(&format!("history[{seq}]"), e))?;
    let moves = codec::encode(&MovesRef {
        resolution_seq: seq,
        moves: &entry.moves,
    })
    .map_err(|e| errors::encode_failed(&format!("moves[{seq}]"), e))?;
    Ok(EntryBytes { head, moves })
}

/// Encodes a pending decision.
pub(crate) fn encode_decision(decision: &Decision) -> Result<Vec<u8>, StoreError> {
    codec::encode(decision)
        .map_err(|e| errors::encode_failed(&format!("pending[{}]", decision.seq), e))
}

/// Encodes a mined pack for the workspace `workspace`; a record past its bounds is a request
/// error ([`StoreError::Invalid`]), refused before anything is written.
pub(crate) fn encode_mined(workspace: &str, mined: &MinedPack) -> Result<Vec<u8>, StoreError> {
    if let Some(problem) = mined.problem() {
        return Err(StoreError::Invalid(format!(
            "mined pack of {workspace:?}: {problem}"
        )));
    }
    codec::encode_mined_pack(mined)
        .map_err(|e| errors::encode_failed(&format!("mined[{workspace:?}]"), e))
}

/// Decodes the mined pack stored under `workspace`.
pub(crate) fn decode_mined(workspace: &str, bytes: &[u8]) -> Result<MinedPack, StoreError> {
    codec::decode_mined_pack(bytes).map_err(|e| errors::codec("mined", format!("{workspace:?}"), e))
}

/// The mined pack stored under `workspace` in a `mined` table, if any.
pub(crate) fn read_mined(
    path: &str,
    table: &impl ReadableTable<&'static str, &'static [u8]>,
    workspace: &str,
) -> Result<Option<MinedPack>, StoreError> {
    match table.get(workspace).at(path, "reading mined")? {
        Some(bytes) => decode_mined(workspace, bytes.value()).map(Some),
        None => Ok(None),
    }
}

/// Every mined pack of a `mined` table, by workspace key.
pub(crate) fn read_all_mined(
    path: &str,
    table: &impl ReadableTable<&'static str, &'static [u8]>,
) -> Result<Vec<(String, MinedPack)>, StoreError> {
    let mut out = Vec::new();
    for item in table.iter().at(path, "reading mined")? {
        let (k, v) = item.at(path, "reading mined")?;
        let workspace = k.value();
        out.push((workspace.to_string(), decode_mined(workspace, v.value())?));
    }
    Ok(out)
}

/// Decodes a rate row of `table` stored under `key`.
pub(crate) fn decode_row(
    table: &str,
    key: KeyTuple<'_>,
    bytes: &[u8],
) -> Result<RateRow, StoreError> {
    codec::decode(bytes).map_err(|e| errors::codec(table, ShowKey(key), e))
}

/// Decodes a history entry from its two stored values, checking that each carries the
/// sequence number both are stored under.
pub(crate) fn decode_entry(
    path: &str,
    seq: u64,
    head: &[u8],
    moves: &[u8],
) -> Result<HistoryEntry, StoreError> {
    let head: EntryHead = codec::decode(head).map_err(|e| errors::codec("history", seq, e))?;
    check_seq(path, "history", seq, head.resolution_seq)?;
    let moves = decode_moves(path, seq, moves)?;
    Ok(HistoryEntry {
        resolution_seq: seq,
        decision: head.decision,
        moves,
    })
}

/// Decodes the moves stored under `seq`.
pub(crate) fn decode_moves(
    path: &str,
    seq: u64,
    bytes: &[u8],
) -> Result<Vec<RateMove>, StoreError> {
    let moves: EntryMoves = codec::decode(bytes).map_err(|e| errors::codec("moves", seq, e))?;
    check_seq(path, "moves", seq, moves.resolution_seq)?;
    Ok(moves.moves)
}

/// A value of `table` stored under `seq` must hold resolution sequence `seq`.
pub(crate) fn check_seq(path: &str, table: &str, seq: u64, held: u64) -> Result<(), StoreError> {
    if held == seq {
        return Ok(());
    }
    Err(StoreError::Corrupt {
        path: path.to_string(),
        detail: format!("{table}[{seq}] holds resolution sequence {held}"),
    })
}

/// A history entry with no moves stored beside it (or moves with no entry).
pub(crate) fn unpaired(path: &str, table: &str, seq: u64, other: &str) -> StoreError {
    StoreError::Corrupt {
        path: path.to_string(),
        detail: format!("{table}[{seq}] has no {other} entry beside it"),
    }
}

/// Decodes a pending decision and checks that it carries the sequence number it is stored under.
pub(crate) fn decode_pending(path: &str, seq: u64, bytes: &[u8]) -> Result<Decision, StoreError> {
    let decision: Decision = codec::decode(bytes).map_err(|e| errors::codec("pending", seq, e))?;
    if decision.seq != seq {
        return Err(StoreError::Corrupt {
            path: path.to_string(),
            detail: format!("pending[{seq}] holds decision sequence {}", decision.seq),
        });
    }
    Ok(decision)
}

/// Every row of a rates-shaped table, in key order.
pub(crate) fn read_rows(
    path: &str,
    name: &str,
    table: &impl ReadableTable<KeyTuple<'static>, &'static [u8]>,
) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
    let doing = format!("reading {name}");
    let mut out = Vec::new();
    for item in table.iter().at(path, &doing)? {
        let (k, v) = item.at(path, &doing)?;
        let (w, fam, c) = k.value();
        let row = decode_row(name, (w, fam, c), v.value())?;
        out.push((RateKey::companion(w, fam, c), row));
    }
    Ok(out)
}

/// The whole history, oldest first: `history` and `moves` walked side by side, which must
/// hold the same sequence numbers.
pub(crate) fn read_history(
    path: &str,
    history: &impl ReadableTable<u64, &'static [u8]>,
    moves: &impl ReadableTable<u64, &'static [u8]>,
) -> Result<Vec<HistoryEntry>, StoreError> {
    let doing = "reading history";
    let mut out = Vec::new();
    let mut moves = moves.iter().at(path, doing)?;
    for item in history.iter().at(path, doing)? {
        let (k, v) = item.at(path, doing)?;
        let seq = k.value();
        let (mk, mv) = match moves.next() {
            Some(item) => item.at(path, doing)?,
            None => return Err(unpaired(path, "history", seq, "moves")),
        };
        match mk.value() {
            m if m == seq => out.push(decode_entry(path, seq, v.value(), mv.value())?),
            m if m < seq => return Err(unpaired(path, "moves", m, "history")),
            _ => return Err(unpaired(path, "history", seq, "moves")),
        }
    }
    if let Some(item) = moves.next() {
        let (mk, _) = item.at(path, doing)?;
        return Err(unpaired(path, "moves", mk.value(), "history"));
    }
    Ok(out)
}

/// Every pending decision, by sequence number.
pub(crate) fn read_pending(
    path: &str,
    table: &impl ReadableTable<u64, &'static [u8]>,
) -> Result<Vec<Decision>, StoreError> {
    let mut out = Vec::new();
    for item in table.iter().at(path, "reading pending")? {
        let (k, v) = item.at(path, "reading pending")?;
        out.push(decode_pending(path, k.value(), v.value())?);
    }
    Ok(out)
}

/// The sequence numbers handed out so far, from the `meta` counters.
pub(crate) fn read_marks(
    path: &str,
    table: &impl ReadableTable<&'static str, u64>,
) -> Result<SeqMarks, StoreError> {
    Ok(SeqMarks {
        decision_seq: read_meta(path, table, meta::NEXT_DECISION_SEQ)?.saturating_sub(1),
        resolution_seq: read_meta(path, table, meta::NEXT_RESOLUTION_SEQ)?.saturating_sub(1),
    })
}

/// A meta value that must be present.
pub(crate) fn read_meta(
    path: &str,
    table: &impl ReadableTable<&'static str, u64>,
    key: &str,
) -> Result<u64, StoreError> {
    match table.get(key).at(path, "reading meta")? {
        Some(v) => Ok(v.value()),
        None => Err(StoreError::Corrupt {
            path: path.to_string(),
            detail: format!("meta has no {key}"),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::decision;

    #[test]
    fn keys_print_as_tuples() {
        let key = RateKey::companion("ws", "Plan", "A \"b\".md");
        assert_eq!(
            ShowKey(key_tuple(&key)).to_string(),
            r#"("ws", "Plan", "A \"b\".md")"#
        );
    }

    #[test]
    fn values_must_carry_the_number_they_are_stored_under() {
        let entry = HistoryEntry {
            resolution_seq: 4,
            decision: decision("Plan"),
            moves: vec![],
        };
        let bytes = encode_entry(&entry).expect("encode");
        assert_eq!(
            decode_entry("/s", 4, &bytes.head, &bytes.moves).expect("decode"),
            entry
        );
        assert_eq!(
            decode_entry("/s", 5, &bytes.head, &bytes.moves)
                .expect_err("moved")
                .to_string(),
            "store /s is corrupt or not a docsuggest store: history[5] holds resolution sequence 4"
        );
        let other = HistoryEntry {
            resolution_seq: 5,
            ..entry.clone()
        };
        let other = encode_entry(&other).expect("encode");
        assert_eq!(
            decode_entry("/s", 4, &bytes.head, &other.moves)
                .expect_err("moves of another entry")
                .to_string(),
            "store /s is corrupt or not a docsuggest store: moves[4] holds resolution sequence 5"
        );
        let mut d = decision("Plan");
        d.seq = 2;
        let bytes = encode_decision(&d).expect("encode");
        assert_eq!(decode_pending("/s", 2, &bytes).expect("decode"), d);
        assert!(decode_pending("/s", 3, &bytes).is_err());
        assert_eq!(
            decode_pending("/s", 2, &bytes[..3])
                .expect_err("short")
                .to_string(),
            "stored value pending[2] cannot be decoded: malformed value: UnexpectedEnd { additional: 2 }"
        );
    }
}
