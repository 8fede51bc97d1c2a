//! The one module that defines stored bytes: a version tag, then bincode 2 (little-endian,
//! variable-length integers).
//!
//! bincode is pinned at 2.0.1 and used only here, so replacing it touches one file.

use serde::Serialize;
use serde::de::DeserializeOwned;

mod moves;

pub use moves::{MoveSink, StoredKey, decode_stored_key, stored_key_bytes};

/// The version tag of values written by this build. Version 2 (schema v2) added the shadow
/// counts to rate rows and the shadow events to rate moves; other layouts are unchanged.
///
/// Schema v5 appended the recent evidence to rate rows under the same tag: the schema version
/// says which layout a file's rows have, and it is checked before any row is read. The two
/// layouts cannot be taken for one another — a v4 row is 16 bytes short of a v5 row, a v5 row
/// is a v4 row and 16 trailing bytes — so a row of the other layout is always refused, never
/// read as different numbers.
pub const VALUE_VERSION: u8 = 2;

/// The version tag of values written by schema v1 builds; read only by the v1 → v2 upgrade.
pub const V1_VALUE_VERSION: u8 = 1;

/// The largest value decode accepts; protects against length prefixes that lie.
const DECODE_LIMIT: usize = 16 << 20;

/// Why bytes could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CodecError {
    /// No bytes at all.
    #[error("empty value")]
    Empty,
    /// The version tag is one this build does not know.
    #[error("unknown value version {0} (this build reads version {VALUE_VERSION})")]
    UnknownVersion(u8),
    /// The bytes after the tag are not a valid value.
    #[error("malformed value: {0}")]
    Malformed(String),
    /// The value decoded but bytes were left over.
    #[error("{0} trailing bytes after the value")]
    Trailing(usize),
    /// A value could not be encoded.
    #[error("cannot encode value: {0}")]
    Encode(String),
}

fn config() -> impl bincode::config::Config {
    bincode::config::standard()
        .with_little_endian()
        .with_variable_int_encoding()
        .with_limit::<DECODE_LIMIT>()
}

/// Encodes `value` behind the current version tag.
pub fn encode<T: Serialize>(value: &T) -> Result<Vec<u8>, CodecError> {
    let mut out = vec![VALUE_VERSION];
    bincode::serde::encode_into_std_write(value, &mut out, config())
        .map_err(|e| CodecError::Encode(e.to_string()))?;
    Ok(out)
}

/// Decodes a value written by [`encode`]; every malformed input is an error, never a panic.
pub fn decode<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    decode_tagged(bytes, VALUE_VERSION)
}

/// Decodes a value a schema v1 build wrote whose layout v2 kept (keys, decisions, history
/// entries: v2 only appended enum variants).
pub fn decode_v1<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, CodecError> {
    decode_tagged(bytes, V1_VALUE_VERSION)
}

/// Decodes the moves of a history entry as the `moves` table stores them (an
/// [`EntryMoves`](crate::EntryMoves) written by [`encode`]), handing each to `sink` in stored
/// order without building it, and answers the entry's resolution sequence number. Allocates
/// nothing; bytes [`decode`] refuses are refused here too, once the sink has decoded every key
/// it is handed (the moves read before a fault have reached `sink`).
pub fn decode_moves(bytes: &[u8], sink: &mut (impl MoveSink + ?Sized)) -> Result<u64, CodecError> {
    let (&tag, body) = bytes.split_first().ok_or(CodecError::Empty)?;
    if tag != VALUE_VERSION {
        return Err(CodecError::UnknownVersion(tag));
    }
    moves::walk(body, sink)
}

/// The most bytes a stored mined pack may take: its pack and head at their bounds, the tag
/// and the integers' and lengths' varints. A longer value is refused before it is decoded.
const MINED_VALUE_LIMIT: usize =
    crate::mined_pack::MAX_MINED_PACK_BYTES + crate::mined_pack::MAX_MINED_HEAD_BYTES + 64;

/// Encodes a mined pack (schema v4's `mined` table) behind the current version tag; a record
/// past its bounds ([`MinedPack::problem`](crate::mined_pack::MinedPack::problem)) is not encoded.
pub fn encode_mined_pack(mined: &crate::mined_pack::MinedPack) -> Result<Vec<u8>, CodecError> {
    if let Some(problem) = mined.problem() {
        return Err(CodecError::Encode(problem));
    }
    encode(mined)
}

/// Decodes a mined pack written by [`encode_mined_pack`]. A value longer than a record at its
/// bounds is refused without being decoded, and a decoded pack or head past its bound is
/// malformed: a stored pack is at most 1 MiB.
pub fn decode_mined_pack(bytes: &[u8]) -> Result<crate::mined_pack::MinedPack, CodecError> {
    if bytes.len() > MINED_VALUE_LIMIT {
        return Err(CodecError::Malformed(format!(
            "a mined pack value of {} bytes is larger than the limit of {MINED_VALUE_LIMIT}",
            bytes.len()
        )));
    }
    let mined: crate::mined_pack::MinedPack = decode(bytes)?;
    match mined.problem() {
        Some(problem) => Err(CodecError::Malformed(problem)),
        None => Ok(mined),
    }
}

/// A rate row as schema v1 stored it: the step value and the accept/reject counts.
#[derive(serde::Deserialize)]
struct RateRowV1 {
    step: f64,
    accepts: u64,
    rejects: u64,
}

/// Decodes a schema v1 rate row into a schema v4 row (no shadow observations yet); the
/// v1 → v2 upgrade writes it back as such, and the v4 → v5 upgrade seeds its recent evidence.
pub fn decode_v1_row(bytes: &[u8]) -> Result<crate::rate::RateRow, CodecError> {
    let v1: RateRowV1 = decode_tagged(bytes, V1_VALUE_VERSION)?;
    Ok(crate::rate::RateRow {
        step: v1.step,
        accepts: v1.accepts,
        rejects: v1.rejects,
        ..crate::rate::RateRow::default()
    })
}

/// A rate row as schemas v2 to v4 stored it (tag 2): the step value and the four counts.
#[derive(serde::Deserialize, serde::Serialize)]
struct RateRowV4 {
    step: f64,
    accepts: u64,
    rejects: u64,
    shadow_hits: u64,
    shadow_misses: u64,
}

/// Decodes a rate row of schema v2, v3 or v4 (tag 2, five fields) into today's row with no
/// recent evidence; the v4 → v5 upgrade seeds it from the counts. Today's [`decode`] refuses
/// such a row (it is 16 bytes short), and this refuses today's (16 trailing bytes).
pub fn decode_v4_row(bytes: &[u8]) -> Result<crate::rate::RateRow, CodecError> {
    let v4: RateRowV4 = decode_tagged(bytes, VALUE_VERSION)?;
    Ok(crate::rate::RateRow {
        step: v4.step,
        accepts: v4.accepts,
        rejects: v4.rejects,
        shadow_hits: v4.shadow_hits,
        shadow_misses: v4.shadow_misses,
        ..crate::rate::RateRow::default()
    })
}

/// Encodes a rate row in the schema v4 layout (tag 2, five fields: its recent evidence is
/// dropped). Only for tests and tools that write stores of schema v4 — the v1 → v2 upgrade,
/// which runs before the v4 → v5 one, and the fixtures' tests.
pub fn encode_v4_row(row: &crate::rate::RateRow) -> Result<Vec<u8>, CodecError> {
    encode(&RateRowV4 {
        step: row.step,
        accepts: row.accepts,
        rejects: row.rejects,
        shadow_hits: row.shadow_hits,
        shadow_misses: row.shadow_misses,
    })
}

fn decode_tagged<T: DeserializeOwned>(bytes: &[u8], version: u8) -> Result<T, CodecError> {
    let (&tag, body) = bytes.split_first().ok_or(CodecError::Empty)?;
    if tag != version {
        return Err(CodecError::UnknownVersion(tag));
    }
    let (value, used) = bincode::serde::decode_from_slice(body, config())
        .map_err(|e| CodecError::Malformed(e.to_string()))?;
    if used != body.len() {
        return Err(CodecError::Trailing(body.len() - used));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rate::{RateKey, RateRow};

    #[test]
    fn bytes_are_pinned() {
        let row = RateRow {
            step: 0.5,
            accepts: 2,
            rejects: 300,
            shadow_hits: 1,
            shadow_misses: 0,
            recent_hits: 1.5,
            recent_misses: 0.25,
        };
        let bytes = encode(&row).expect("encodes");
        // tag 2, f64 0.5 little-endian, varint 2, varint 300 (0xfb + u16 LE), varints 1, 0,
        // f64 1.5, f64 0.25.
        assert_eq!(
            bytes,
            [
                2, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 2, 0xfb, 0x2c, 0x01, 1, 0, //
                0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0, 0, 0, 0, 0, 0, 0xd0, 0x3f
            ]
        );
        assert_eq!(decode::<RateRow>(&bytes), Ok(row));
    }

    #[test]
    fn v4_rows_decode_only_through_the_upgrade() {
        // A v4 row: today's row without its last two fields, under the same tag.
        let v4 = [2, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 2, 0xfb, 0x2c, 0x01, 1, 0];
        assert!(matches!(
            decode::<RateRow>(&v4),
            Err(CodecError::Malformed(_))
        ));
        let row = decode_v4_row(&v4).expect("v4 row");
        assert_eq!((row.step, row.accepts, row.rejects), (0.5, 2, 300));
        assert_eq!((row.shadow_hits, row.shadow_misses), (1, 0));
        assert_eq!((row.recent_hits, row.recent_misses), (0.0, 0.0));
        assert_eq!(encode_v4_row(&row).expect("encodes"), v4);
        // Today's row is refused by the v4 layout: its recent evidence is left over.
        let today = encode(&RateRow {
            recent_hits: 1.0,
            ..row
        })
        .expect("encodes");
        assert_eq!(decode_v4_row(&today), Err(CodecError::Trailing(16)));
        assert!(decode_v4_row(&v4[..5]).is_err());
        assert_eq!(decode_v4_row(&[1, 0]), Err(CodecError::UnknownVersion(1)));
    }

    #[test]
    fn v1_rows_decode_only_through_the_upgrade() {
        // A v1 row: tag 1, f64 0.5, varint 2, varint 300.
        let v1 = [1, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 2, 0xfb, 0x2c, 0x01];
        assert_eq!(decode::<RateRow>(&v1), Err(CodecError::UnknownVersion(1)));
        let row = decode_v1_row(&v1).expect("v1 row");
        assert_eq!((row.step, row.accepts, row.rejects), (0.5, 2, 300));
        assert_eq!((row.shadow_hits, row.shadow_misses), (0, 0));
        assert!(decode_v1_row(&v1[..5]).is_err());
    }

    #[test]
    fn bad_bytes_are_errors() {
        assert_eq!(decode::<RateRow>(&[]), Err(CodecError::Empty));
        assert_eq!(
            decode::<RateRow>(&[9, 1]),
            Err(CodecError::UnknownVersion(9))
        );
        assert!(matches!(
            decode::<RateRow>(&[VALUE_VERSION, 0]),
            Err(CodecError::Malformed(_))
        ));
        let mut bytes = encode(&RateKey::family("w", "f")).expect("encodes");
        bytes.push(0);
        assert_eq!(decode::<RateKey>(&bytes), Err(CodecError::Trailing(1)));
    }

    #[test]
    fn mined_packs_are_bounded_both_ways() {
        use crate::mined_pack::MinedPack;
        use crate::mined_pack::{MAX_MINED_HEAD_BYTES, MAX_MINED_PACK_BYTES};
        let mined = MinedPack {
            pack: r#"{"families": []}"#.into(),
            head: "ab12".into(),
            commits: 300,
            miner: 1,
        };
        let bytes = encode_mined_pack(&mined).expect("encodes");
        // tag 2, the pack's length and text, the head's, varint 300 (0xfb + u16 LE), varint 1.
        assert_eq!(bytes[..2], [2, 16]);
        assert_eq!(
            bytes[bytes.len() - 9..],
            [4, b'a', b'b', b'1', b'2', 0xfb, 0x2c, 0x01, 1]
        );
        assert_eq!(decode_mined_pack(&bytes), Ok(mined.clone()));
        // At the bounds it still round-trips.
        let full = MinedPack {
            pack: "p".repeat(MAX_MINED_PACK_BYTES),
            head: "h".repeat(MAX_MINED_HEAD_BYTES),
            commits: u64::MAX,
            miner: u32::MAX,
        };
        let bytes = encode_mined_pack(&full).expect("encodes at the bound");
        assert_eq!(decode_mined_pack(&bytes), Ok(full.clone()));
        // One byte more is never written, and a stored one is refused as malformed.
        let over = MinedPack {
            pack: "p".repeat(MAX_MINED_PACK_BYTES + 1),
            ..full.clone()
        };
        assert!(matches!(
            encode_mined_pack(&over),
            Err(CodecError::Encode(_))
        ));
        let stored = encode(&over).expect("the plain encoder writes it");
        assert!(
            matches!(decode_mined_pack(&stored), Err(CodecError::Malformed(m)) if m.contains("larger than the limit")),
        );
        let long_head = MinedPack {
            head: "h".repeat(MAX_MINED_HEAD_BYTES + 1),
            ..mined.clone()
        };
        assert!(matches!(
            decode_mined_pack(&encode(&long_head).expect("encodes")),
            Err(CodecError::Malformed(m)) if m.contains("head")
        ));
        // A length prefix that lies, truncation, and trailing bytes are errors, never panics.
        let mut lying = encode_mined_pack(&mined).expect("encodes");
        lying[1] = 0xfc;
        assert!(decode_mined_pack(&lying).is_err());
        let good = encode_mined_pack(&mined).expect("encodes");
        assert!(decode_mined_pack(&good[..good.len() - 1]).is_err());
        let mut trailing = good.clone();
        trailing.push(0);
        assert_eq!(decode_mined_pack(&trailing), Err(CodecError::Trailing(1)));
        assert_eq!(decode_mined_pack(&[]), Err(CodecError::Empty));
    }

    #[test]
    fn decode_moves_hands_keys_over_as_their_bytes() {
        use crate::decision::EntryMoves;
        use crate::rate::{RateEvent, RateMove};
        struct Steps(Vec<(Vec<u8>, f64)>);
        impl MoveSink for Steps {
            fn push(
                &mut self,
                key: StoredKey<'_>,
                _: RateEvent,
                step: f64,
            ) -> Result<(), CodecError> {
                key.decode()?;
                self.0.push((key.bytes().to_vec(), step));
                Ok(())
            }
        }
        let key = RateKey::companion("ws", "Plan", "A.md");
        let moves = EntryMoves {
            resolution_seq: 300,
            moves: vec![RateMove {
                key: key.clone(),
                event: RateEvent::Reject,
                step: -0.2,
            }],
        };
        let mut bytes = encode(&moves).expect("encodes");
        let mut steps = Steps(vec![]);
        assert_eq!(decode_moves(&bytes, &mut steps), Ok(300));
        // A key is handed over as its stored bytes: the key's own encoding.
        assert_eq!(
            steps.0,
            [(encode(&key).expect("encodes")[1..].to_vec(), -0.2)]
        );
        // A key that is not UTF-8 is refused by the key's decode.
        let at = bytes
            .windows(4)
            .position(|w| w == b"A.md")
            .expect("the companion");
        bytes[at] = 0xff;
        assert!(
            matches!(decode_moves(&bytes, &mut Steps(vec![])), Err(CodecError::Malformed(m)) if m.contains("UTF-8"))
        );
    }
}

#[cfg(test)]
mod props;
