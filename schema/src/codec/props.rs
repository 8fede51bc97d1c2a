//! Properties of the codec: decode inverts encode, no input panics, and the moves-only
//! decode reads what bincode's decode reads.

use super::*;
use crate::decision::{
    CompanionRow, Decision, EntryMoves, HistoryEntry, Outcome, SilenceReason, StoreKind,
};
use crate::heuristic::{Heuristic, Table};
use crate::rate::{RateEvent, RateKey, RateMove};
use proptest::prelude::*;

/// The moves `decode_moves` hands over, rebuilt as values.
#[derive(Default)]
struct Collect(Vec<RateMove>);

impl MoveSink for Collect {
    fn push(&mut self, key: StoredKey<'_>, event: RateEvent, step: f64) -> Result<(), CodecError> {
        let key = key.decode()?;
        self.0.push(RateMove { key, event, step });
        Ok(())
    }
}

/// `decode_moves` reads the moves `decode` reads, and refuses what `decode` refuses (the
/// sink decodes every key).
fn same_verdict(input: &[u8]) -> Result<(), TestCaseError> {
    let full = decode::<EntryMoves>(input);
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
        (full, partial) => prop_assert!(false, "full {:?}, moves only {:?}", full, partial),
    }
    Ok(())
}

fn table() -> impl Strategy<Value = Table> {
    proptest::array::uniform6(any::<f64>()).prop_map(Table)
}

fn entry() -> impl Strategy<Value = HistoryEntry> {
    let row = (".{0,40}", any::<f64>(), table()).prop_map(|(path, score, values)| CompanionRow {
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
    let mv =
        (".{0,8}", ".{0,8}", ".{0,8}", event, any::<f64>()).prop_map(|(w, f, c, event, step)| {
            RateMove {
                key: RateKey::companion(&w, &f, &c),
                event,
                step,
            }
        });
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
        let e = EntryMoves { resolution_seq: e.resolution_seq, moves: e.moves };
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
        let e = EntryMoves { resolution_seq: e.resolution_seq, moves: e.moves };
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

    #[test]
    fn rate_rows_round_trip_and_the_two_layouts_are_never_confused(
        step in any::<f64>(),
        counts in proptest::array::uniform4(any::<u64>()),
        recent_hits in any::<f64>(),
        recent_misses in any::<f64>(),
    ) {
        let row = crate::rate::RateRow {
            step,
            accepts: counts[0],
            rejects: counts[1],
            shadow_hits: counts[2],
            shadow_misses: counts[3],
            recent_hits,
            recent_misses,
        };
        let bytes = encode(&row).expect("encodes");
        let back: crate::rate::RateRow = decode(&bytes).expect("decodes");
        let bits = |r: &crate::rate::RateRow| {
            (r.step.to_bits(), r.accepts, r.rejects, r.shadow_hits, r.shadow_misses,
             r.recent_hits.to_bits(), r.recent_misses.to_bits())
        };
        prop_assert_eq!(bits(&back), bits(&row));
        // Today's row is a v4 row and 16 bytes: the v4 layout refuses it, and today's
        // refuses a v4 row; the v4 row keeps everything but the recent evidence.
        prop_assert_eq!(decode_v4_row(&bytes), Err(CodecError::Trailing(16)));
        let v4 = encode_v4_row(&row).expect("encodes");
        prop_assert_eq!(&bytes[..bytes.len() - 16], &v4[..]);
        prop_assert!(decode::<crate::rate::RateRow>(&v4).is_err());
        let old = decode_v4_row(&v4).expect("decodes");
        prop_assert_eq!(
            bits(&old),
            bits(&crate::rate::RateRow { recent_hits: 0.0, recent_misses: 0.0, ..row })
        );
    }

    #[test]
    fn stored_key_bytes_are_the_codec_s_and_canonical(
        w in ".{0,300}", f in ".{0,8}", c in ".{0,8}", step in any::<f64>(),
    ) {
        let key = RateKey::companion(&w, &f, &c);
        let mut bytes = Vec::new();
        stored_key_bytes(&key, &mut bytes);
        prop_assert_eq!(&bytes[..], &encode(&key).expect("encodes")[1..]);
        prop_assert_eq!(decode_stored_key(&bytes).expect("decodes"), key.clone());
        let mv = EntryMoves {
            resolution_seq: 1,
            moves: vec![RateMove { key: key.clone(), event: RateEvent::Reject, step }],
        };
        let stored = encode(&mv).expect("encodes");
        let mut seen = Canonical::default();
        decode_moves(&stored, &mut seen).expect("decodes");
        prop_assert_eq!(seen.0, vec![(bytes.clone(), true)]);
        // The workspace's length in a longer varint form: the same key to bincode, and not
        // canonical to the walk.
        let len = u16::try_from(w.len()).expect("short");
        let mut long = vec![251];
        long.extend_from_slice(&len.to_le_bytes());
        let head = if w.len() < 251 { 1 } else { 3 };
        long.extend_from_slice(&bytes[head..]);
        let mut tagged = stored[..3].to_vec();
        tagged.extend_from_slice(&long);
        tagged.extend_from_slice(&stored[3 + bytes.len()..]);
        let decoded: EntryMoves = decode(&tagged).expect("bincode accepts the longer form");
        prop_assert_eq!(&decoded.moves[0].key, &key);
        let mut seen = Canonical::default();
        decode_moves(&tagged, &mut seen).expect("decodes");
        prop_assert_eq!(seen.0.len(), 1);
        prop_assert_eq!(seen.0[0].1, w.len() >= 251, "{} bytes", w.len());
        prop_assert_eq!(decode_stored_key(&seen.0[0].0).expect("decodes"), key);
    }
}

/// Each key's bytes and whether they are canonical.
#[derive(Default)]
struct Canonical(Vec<(Vec<u8>, bool)>);

impl MoveSink for Canonical {
    fn push(&mut self, key: StoredKey<'_>, _: RateEvent, _: f64) -> Result<(), CodecError> {
        key.check()?;
        self.0.push((key.bytes().to_vec(), key.is_canonical()));
        Ok(())
    }
}
