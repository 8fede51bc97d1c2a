//! The rate moves of a stored history entry, read without decoding the rest of it.
//!
//! A recompute needs only each entry's resolution sequence number and its moves. This walks the
//! entry's bytes in the layout bincode 2 gives `HistoryEntry` under this codec's configuration
//! (fields in order; integers, lengths and enum variants as varints — a byte below 251, or 251,
//! 252, 253 followed by a little-endian u16, u32, u64; `f64` as 8 little-endian bytes; strings
//! and sequences behind their length; `Option` behind a 0 or 1 byte), checks the layout the
//! way bincode's decode does (lengths, variant ranges, option tags, trailing bytes), and hands
//! each move's key over as its stored bytes: equal keys are equal bytes, so a caller can find a
//! key it has seen without decoding it again. Nothing is allocated.
//!
//! The strings of the decision, which no move depends on, are skipped without the UTF-8 check
//! (a fifth of the walk); a move key's strings are checked when the caller decodes the key.
//! The props in `codec.rs` check the walk against bincode's own decode, on valid entries, on
//! damaged ones and on arbitrary bytes: the same moves whenever decode accepts, and a refusal
//! whenever decode refuses for any reason but a decision string that is not UTF-8.

use super::CodecError;
use crate::decision::{Outcome, SilenceReason, StoreKind};
use crate::heuristic::Heuristic;
use crate::rate::{RateEvent, RateKey};

/// Receives the moves of a history entry, in stored order.
pub trait MoveSink {
    /// One move of the row stored as `key`. An error (say, from [`StoredKey::decode`]) stops
    /// the decode and is its answer.
    fn push(&mut self, key: StoredKey<'_>, event: RateEvent, step: f64) -> Result<(), CodecError>;
}

/// A move's key as stored: its encoded bytes, its strings not yet checked as UTF-8.
#[derive(Clone, Copy, Debug)]
pub struct StoredKey<'a> {
    bytes: &'a [u8],
    parts: [&'a [u8]; 3],
}

impl<'a> StoredKey<'a> {
    /// The key's stored bytes. This build writes one encoding per key, so bytes seen before
    /// name a key seen before; other bytes may still name it (an older writer's encoding), so
    /// a new encoding must be decoded to be known.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The key, its strings checked as UTF-8.
    pub fn decode(&self) -> Result<RateKey, CodecError> {
        let [w, f, c] = self.parts.map(utf8);
        Ok(RateKey::companion(w?, f?, c?))
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, CodecError> {
    std::str::from_utf8(bytes).map_err(|e| malformed(format!("a string is not UTF-8: {e}")))
}

fn malformed(detail: String) -> CodecError {
    CodecError::Malformed(detail)
}

/// Walks one entry's body (after the version tag); answers its resolution sequence number.
pub(super) fn walk(body: &[u8], sink: &mut (impl MoveSink + ?Sized)) -> Result<u64, CodecError> {
    let mut r = Reader { rest: body };
    let resolution_seq = r.varint()?;
    // The decision: seq, workspace, agent, family, kappa, companions (path, score, six
    // values), weights, enabled, outcome, silence, accepted, store.
    r.varint()?;
    for _ in 0..3 {
        r.bytes()?;
    }
    r.f64()?;
    for _ in 0..r.len()? {
        r.bytes()?;
        r.f64s(1 + 6)?;
    }
    r.f64s(6)?;
    for _ in 0..r.len()? {
        r.variant("Heuristic", heuristics())?;
    }
    r.variant("Outcome", outcomes(Outcome::Pending))?;
    if r.option()? {
        r.variant("SilenceReason", silences(SilenceReason::LowConfidence))?;
    }
    if r.option()? {
        r.bytes()?;
    }
    r.variant("StoreKind", stores(StoreKind::Redb))?;
    // The moves: key (workspace, family, companion), event, step.
    for _ in 0..r.len()? {
        let start = r.rest;
        let parts = [r.bytes()?, r.bytes()?, r.bytes()?];
        let bytes = &start[..start.len() - r.rest.len()];
        let event = event(r.variant("RateEvent", 4)?);
        let step = r.f64()?;
        sink.push(StoredKey { bytes, parts }, event, step)?;
    }
    if !r.rest.is_empty() {
        return Err(CodecError::Trailing(r.rest.len()));
    }
    Ok(resolution_seq)
}

// How many variants each enum has; the exhaustive matches stop the build when one grows, so
// the walk cannot fall behind the types.
fn heuristics() -> u32 {
    Heuristic::ALL.len() as u32
}
fn outcomes(o: Outcome) -> u32 {
    match o {
        Outcome::Pending
        | Outcome::Accepted
        | Outcome::Rejected
        | Outcome::Abandoned
        | Outcome::Silent => 5,
    }
}
fn silences(s: SilenceReason) -> u32 {
    match s {
        SilenceReason::LowConfidence | SilenceReason::AlreadyTouched => 2,
    }
}
fn stores(s: StoreKind) -> u32 {
    match s {
        StoreKind::Redb | StoreKind::Memory => 2,
    }
}
/// `RateEvent` by variant index (declaration order); `index` is below 4.
fn event(index: u32) -> RateEvent {
    match index {
        0 => RateEvent::Accept,
        1 => RateEvent::Reject,
        2 => RateEvent::ShadowHit,
        _ => RateEvent::ShadowMiss,
    }
}

/// The unread rest of a value.
struct Reader<'a> {
    rest: &'a [u8],
}

fn ends_early(wanted: usize, left: usize) -> CodecError {
    malformed(format!(
        "the value ends early: {wanted} bytes wanted, {left} left"
    ))
}

impl<'a> Reader<'a> {
    #[inline]
    fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        match self.rest.split_at_checked(n) {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(head)
            }
            None => Err(ends_early(n, self.rest.len())),
        }
    }

    #[inline]
    fn array<const N: usize>(&mut self) -> Result<[u8; N], CodecError> {
        match self.rest.split_first_chunk::<N>() {
            Some((head, tail)) => {
                self.rest = tail;
                Ok(*head)
            }
            None => Err(ends_early(N, self.rest.len())),
        }
    }

    /// A varint of at most `max_tag` (251: u16, 252: u32, 253: u64).
    #[inline]
    fn varint_up_to(&mut self, max_tag: u8) -> Result<u64, CodecError> {
        // Nearly every varint here is one byte.
        if let Some((&tag @ 0..=250, tail)) = self.rest.split_first() {
            self.rest = tail;
            return Ok(u64::from(tag));
        }
        let [tag] = self.array()?;
        match tag {
            0..=250 => Ok(u64::from(tag)),
            251 if max_tag >= 251 => Ok(u64::from(u16::from_le_bytes(self.array()?))),
            252 if max_tag >= 252 => Ok(u64::from(u32::from_le_bytes(self.array()?))),
            253 if max_tag >= 253 => Ok(u64::from_le_bytes(self.array()?)),
            _ => Err(malformed(format!("varint tag {tag} is out of range here"))),
        }
    }

    #[inline]
    fn varint(&mut self) -> Result<u64, CodecError> {
        self.varint_up_to(253)
    }

    #[inline]
    fn len(&mut self) -> Result<u64, CodecError> {
        self.varint()
    }

    #[inline]
    fn variant(&mut self, name: &str, count: u32) -> Result<u32, CodecError> {
        // A u32 varint: u16 and u32 forms only.
        let index = self.varint_up_to(252)?;
        match u32::try_from(index) {
            Ok(i) if i < count => Ok(i),
            _ => Err(malformed(format!(
                "variant {index} of {name} is out of range (it has {count})"
            ))),
        }
    }

    #[inline]
    fn bytes(&mut self) -> Result<&'a [u8], CodecError> {
        let n = self.len()?;
        // A length past the value's end is malformed whatever its size.
        self.take(usize::try_from(n).unwrap_or(usize::MAX))
    }

    #[inline]
    fn f64(&mut self) -> Result<f64, CodecError> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    #[inline]
    fn f64s(&mut self, n: usize) -> Result<(), CodecError> {
        self.take(8 * n).map(drop)
    }

    #[inline]
    fn option(&mut self) -> Result<bool, CodecError> {
        match self.array()? {
            [0] => Ok(false),
            [1] => Ok(true),
            [tag] => Err(malformed(format!("option tag {tag} is neither 0 nor 1"))),
        }
    }
}
