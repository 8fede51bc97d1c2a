//! The one module that defines stored bytes: a version tag, then bincode 2 (little-endian,
//! variable-length integers).
//!
//! bincode is pinned at 2.0.1 and used only here, so replacing it touches one file.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The version tag of values written by this build. Version 2 (schema v2) added the shadow
/// counts to rate rows and the shadow events to rate moves; other layouts are unchanged.
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

/// A rate row as schema v1 stored it: the step value and the accept/reject counts.
#[derive(serde::Deserialize)]
struct RateRowV1 {
    step: f64,
    accepts: u64,
    rejects: u64,
}

/// Decodes a schema v1 rate row into today's row (no shadow observations yet).
pub fn decode_v1_row(bytes: &[u8]) -> Result<crate::rate::RateRow, CodecError> {
    let v1: RateRowV1 = decode_tagged(bytes, V1_VALUE_VERSION)?;
    Ok(crate::rate::RateRow {
        step: v1.step,
        accepts: v1.accepts,
        rejects: v1.rejects,
        ..crate::rate::RateRow::default()
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
        };
        let bytes = encode(&row).expect("encodes");
        // tag 2, f64 0.5 little-endian, varint 2, varint 300 (0xfb + u16 LE), varints 1, 0.
        assert_eq!(
            bytes,
            [2, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 2, 0xfb, 0x2c, 0x01, 1, 0]
        );
        assert_eq!(decode::<RateRow>(&bytes), Ok(row));
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
}

#[cfg(test)]
mod props {
    use super::*;
    use crate::decision::{
        CompanionRow, Decision, HistoryEntry, Outcome, SilenceReason, StoreKind,
    };
    use crate::heuristic::{Heuristic, Table};
    use crate::rate::{RateEvent, RateKey, RateMove};
    use proptest::prelude::*;

    fn table() -> impl Strategy<Value = Table> {
        proptest::array::uniform6(any::<f64>()).prop_map(Table)
    }

    fn entry() -> impl Strategy<Value = HistoryEntry> {
        let row =
            (".{0,40}", any::<f64>(), table()).prop_map(|(path, score, values)| CompanionRow {
                path,
                score,
                values,
            });
        let outcome = prop_oneof![
            Just(Outcome::Pending),
            Just(Outcome::Accepted),
            Just(Outcome::Rejected),
            Just(Outcome::Abandoned),
            Just(Outcome::Silent),
        ];
        let event = prop_oneof![
            Just(RateEvent::Accept),
            Just(RateEvent::Reject),
            Just(RateEvent::ShadowHit),
            Just(RateEvent::ShadowMiss),
        ];
        let mv = (".{0,8}", ".{0,8}", ".{0,8}", event, any::<f64>()).prop_map(
            |(w, f, c, event, step)| RateMove {
                key: RateKey::companion(&w, &f, &c),
                event,
                step,
            },
        );
        (
            (any::<u64>(), ".{0,16}", ".{0,16}", ".{0,16}", any::<f64>()),
            prop::collection::vec(row, 0..8),
            (
                table(),
                prop::sample::subsequence(Heuristic::ALL.to_vec(), 0..=6),
                outcome,
            ),
            (
                any::<bool>(),
                proptest::option::of(".{0,16}"),
                any::<bool>(),
            ),
            (any::<u64>(), prop::collection::vec(mv, 0..6)),
        )
            .prop_map(
                |(
                    (seq, workspace, agent, family, kappa),
                    companions,
                    (weights, enabled, outcome),
                    (silent, accepted, redb),
                    (resolution_seq, moves),
                )| HistoryEntry {
                    resolution_seq,
                    decision: Decision {
                        seq,
                        workspace,
                        agent,
                        family,
                        kappa,
                        companions,
                        weights,
                        enabled,
                        outcome,
                        silence: silent.then_some(SilenceReason::LowConfidence),
                        accepted,
                        store: if redb {
                            StoreKind::Redb
                        } else {
                            StoreKind::Memory
                        },
                    },
                    moves,
                },
            )
    }

    proptest! {
        #[test]
        fn decode_inverts_encode(e in entry()) {
            let bytes = encode(&e).expect("encodes");
            let back: HistoryEntry = decode(&bytes).expect("decodes");
            // Compare encodings: NaN != NaN, but equal values encode to equal bytes.
            prop_assert_eq!(encode(&back).expect("encodes"), bytes);
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
            let mut tagged = vec![VALUE_VERSION];
            tagged.extend(&bytes);
            for input in [&bytes, &tagged] {
                // Whatever decodes must encode back to the same value; whatever does not is
                // an error with a message.
                match decode::<HistoryEntry>(input) {
                    Ok(entry) => {
                        let again = encode(&entry).expect("encodes");
                        let back: HistoryEntry = decode(&again).expect("decodes");
                        prop_assert_eq!(encode(&back).expect("encodes"), again);
                    }
                    Err(e) => prop_assert!(!e.to_string().is_empty()),
                }
            }
        }
    }
}
