//! The one module that defines stored bytes: a version tag, then bincode 2 (little-endian,
//! variable-length integers).
//!
//! bincode is pinned at 2.0.1 and used only here, so replacing it touches one file.

use serde::Serialize;
use serde::de::DeserializeOwned;

mod moves;

pub use moves::{MoveSink, StoredKey};

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

/// Decodes only the moves of a history entry written by [`encode`], handing each to `sink` in
/// stored order, and answers the entry's resolution sequence number. Allocates nothing. The
/// rest of the entry is walked and its layout checked, so bytes [`decode`] refuses are refused
/// here too — except a decision string that is not UTF-8, which no move depends on and which
/// is not checked (the moves read before a fault have reached `sink`).
pub fn decode_moves(bytes: &[u8], sink: &mut (impl MoveSink + ?Sized)) -> Result<u64, CodecError> {
    let (&tag, body) = bytes.split_first().ok_or(CodecError::Empty)?;
    if tag != VALUE_VERSION {
        return Err(CodecError::UnknownVersion(tag));
    }
    moves::walk(body, sink)
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

    #[test]
    fn decode_moves_skips_what_the_fold_does_not_read() {
        use crate::decision::{Decision, HistoryEntry, Outcome, StoreKind};
        use crate::heuristic::Table;
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
        let entry = HistoryEntry {
            resolution_seq: 300,
            decision: Decision {
                seq: 9,
                workspace: "ws".into(),
                agent: "agent-zz".into(),
                family: "Plan".into(),
                kappa: 0.5,
                companions: vec![],
                weights: Table::DEFAULT_WEIGHTS,
                enabled: vec![],
                outcome: Outcome::Rejected,
                silence: None,
                accepted: None,
                store: StoreKind::Redb,
            },
            moves: vec![RateMove {
                key: key.clone(),
                event: RateEvent::Reject,
                step: -0.2,
            }],
        };
        let mut bytes = encode(&entry).expect("encodes");
        let mut steps = Steps(vec![]);
        assert_eq!(decode_moves(&bytes, &mut steps), Ok(300));
        // A key is handed over as its stored bytes: the key's own encoding.
        assert_eq!(
            steps.0,
            [(encode(&key).expect("encodes")[1..].to_vec(), -0.2)]
        );
        // The agent's "zz" made invalid UTF-8: decode refuses, the moves still read.
        let at = bytes
            .windows(2)
            .position(|w| w == b"zz")
            .expect("the agent");
        bytes[at..at + 2].copy_from_slice(&[0xff, 0xfe]);
        assert!(
            matches!(decode::<HistoryEntry>(&bytes), Err(CodecError::Malformed(m)) if m.starts_with("Utf8"))
        );
        assert_eq!(decode_moves(&bytes, &mut Steps(vec![])), Ok(300));
        // The same in the move's key is refused by the key's decode.
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
mod props {
    use super::*;
    use crate::decision::{
        CompanionRow, Decision, HistoryEntry, Outcome, SilenceReason, StoreKind,
    };
    use crate::heuristic::{Heuristic, Table};
    use crate::rate::{RateEvent, RateKey, RateMove};
    use proptest::prelude::*;

    /// The moves `decode_moves` hands over, rebuilt as values.
    #[derive(Default)]
    struct Collect(Vec<RateMove>);

    impl MoveSink for Collect {
        fn push(
            &mut self,
            key: StoredKey<'_>,
            event: RateEvent,
            step: f64,
        ) -> Result<(), CodecError> {
            let key = key.decode()?;
            self.0.push(RateMove { key, event, step });
            Ok(())
        }
    }

    /// `decode_moves` reads the moves `decode` reads, and refuses what `decode` refuses but for
    /// a decision string that is not UTF-8.
    fn same_verdict(input: &[u8]) -> Result<(), TestCaseError> {
        let full = decode::<HistoryEntry>(input);
        let mut sink = Collect::default();
        match (full, decode_moves(input, &mut sink)) {
            (Ok(entry), Ok(seq)) => {
                prop_assert_eq!(seq, entry.resolution_seq);
                prop_assert_eq!(
                    encode(&sink.0).expect("encodes"),
                    encode(&entry.moves).expect("encodes")
                );
            }
            (Err(_), Err(e)) => prop_assert!(!e.to_string().is_empty()),
            // The one fault left unchecked: a decision string that is not UTF-8.
            (Err(CodecError::Malformed(m)), Ok(_)) if m.starts_with("Utf8") => {}
            (full, partial) => prop_assert!(false, "full {:?}, moves only {:?}", full, partial),
        }
        Ok(())
    }

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
        fn decode_moves_reads_what_the_full_decode_reads(e in entry()) {
            let bytes = encode(&e).expect("encodes");
            let mut sink = Collect::default();
            let seq = decode_moves(&bytes, &mut sink).expect("decodes");
            prop_assert_eq!(seq, e.resolution_seq);
            // Compare encodings: NaN != NaN, but equal moves encode to equal bytes.
            prop_assert_eq!(encode(&sink.0).expect("encodes"), encode(&e.moves).expect("encodes"));
            for cut in [1, bytes.len() / 2, bytes.len() - 1] {
                prop_assert!(decode_moves(&bytes[..cut], &mut Collect::default()).is_err());
            }
        }

        #[test]
        fn decode_moves_refuses_what_the_full_decode_refuses(
            bytes in prop::collection::vec(any::<u8>(), 0..256),
        ) {
            let mut tagged = vec![VALUE_VERSION];
            tagged.extend(&bytes);
            for input in [&bytes, &tagged] {
                same_verdict(input)?;
            }
        }

        #[test]
        fn a_damaged_entry_gets_the_full_decode_s_verdict(
            e in entry(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            cut in any::<bool>(),
        ) {
            // One byte replaced (or the value cut there) anywhere: every field's check is hit.
            let mut bytes = encode(&e).expect("encodes");
            let i = at.index(bytes.len());
            if cut {
                bytes.truncate(i);
            } else {
                bytes[i] = byte;
            }
            same_verdict(&bytes)?;
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
