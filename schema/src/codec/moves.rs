//! The rate moves of a stored history entry, read without building them.
//!
//! A recompute needs only each entry's resolution sequence number and its moves, which schema
//! v3 stores apart from the decision (the `moves` table holds an [`EntryMoves`](crate::EntryMoves)
//! per entry). This walks those bytes in the layout bincode 2 gives `EntryMoves` under this
//! codec's configuration (fields in order; integers, lengths and enum variants as varints — a
//! byte below 251, or 251, 252, 253 followed by a little-endian u16, u32, u64; `f64` as 8
//! little-endian bytes; strings and sequences behind their length), checks the layout the way
//! bincode's decode does (lengths, variant ranges, trailing bytes), and hands each move's key
//! over as its stored bytes: equal keys are equal bytes, so a caller can find a key it has
//! seen without decoding it again. Nothing is allocated. A key's strings are checked as UTF-8
//! when the caller decodes the key. The props in `codec.rs` check the walk against bincode's
//! own decode, on valid values, on damaged ones and on arbitrary bytes.

use super::CodecError;
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
    /// The key's stored bytes. Two keys are equal exactly when their canonical bytes are (see
    /// [`StoredKey::is_canonical`]), so canonical bytes seen before name a key seen before.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Whether the bytes are the key's canonical encoding — what this build writes: each
    /// string's length in its shortest varint. A decoder also accepts longer forms, which
    /// only a damaged or foreign file holds; such bytes name the same key as its canonical
    /// bytes ([`stored_key_bytes`] of the decoded key).
    pub fn is_canonical(&self) -> bool {
        let shortest: usize = self
            .parts
            .iter()
            .map(|p| varint_len(p.len()) + p.len())
            .sum();
        shortest == self.bytes.len()
    }

    /// Checks the key's strings as UTF-8 without building the key.
    pub fn check(&self) -> Result<(), CodecError> {
        self.parts.iter().try_for_each(|p| utf8(p).map(drop))
    }

    /// The key, its strings checked as UTF-8.
    pub fn decode(&self) -> Result<RateKey, CodecError> {
        let [w, f, c] = self.parts.map(utf8);
        Ok(RateKey::companion(w?, f?, c?))
    }
}

/// The canonical stored bytes of `key` (what the codec writes for it), appended to `out`.
pub fn stored_key_bytes(key: &RateKey, out: &mut Vec<u8>) {
    for part in [&key.workspace, &key.family, &key.companion] {
        push_varint(part.len() as u64, out);
        out.extend_from_slice(part.as_bytes());
    }
}

/// The key stored as `bytes` (a key's encoding, as [`StoredKey::bytes`] hands it over).
pub fn decode_stored_key(bytes: &[u8]) -> Result<RateKey, CodecError> {
    let mut r = Reader { rest: bytes };
    let start = r.rest;
    let parts = [r.bytes()?, r.bytes()?, r.bytes()?];
    if !r.rest.is_empty() {
        return Err(CodecError::Trailing(r.rest.len()));
    }
    StoredKey {
        bytes: &start[..start.len() - r.rest.len()],
        parts,
    }
    .decode()
}

/// The shortest varint of `n`, as bincode writes it.
fn push_varint(n: u64, out: &mut Vec<u8>) {
    match n {
        0..=250 => out.push(n as u8),
        251..=0xffff => {
            out.push(251);
            out.extend_from_slice(&(n as u16).to_le_bytes());
        }
        0x1_0000..=0xffff_ffff => {
            out.push(252);
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        _ => {
            out.push(253);
            out.extend_from_slice(&n.to_le_bytes());
        }
    }
}

/// The bytes of the shortest varint of `n`.
fn varint_len(n: usize) -> usize {
    match n {
        0..=250 => 1,
        251..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

fn utf8(bytes: &[u8]) -> Result<&str, CodecError> {
    std::str::from_utf8(bytes).map_err(|e| malformed(format!("a string is not UTF-8: {e}")))
}

fn malformed(detail: String) -> CodecError {
    CodecError::Malformed(detail)
}

/// Walks the body (after the version tag) of an [`EntryMoves`](crate::EntryMoves); answers its
/// resolution sequence number.
pub(super) fn walk(body: &[u8], sink: &mut (impl MoveSink + ?Sized)) -> Result<u64, CodecError> {
    let mut r = Reader { rest: body };
    let resolution_seq = r.varint()?;
    // Each move: key (workspace, family, companion), event, step.
    for _ in 0..r.len()? {
        let start = r.rest;
        let parts = [r.bytes()?, r.bytes()?, r.bytes()?];
        let bytes = &start[..start.len() - r.rest.len()];
        let event = event(r.variant("RateEvent", EVENTS)?);
        let step = r.f64()?;
        sink.push(StoredKey { bytes, parts }, event, step)?;
    }
    if !r.rest.is_empty() {
        return Err(CodecError::Trailing(r.rest.len()));
    }
    Ok(resolution_seq)
}

/// How many variants `RateEvent` has; the exhaustive match in [`event`] stops the build when
/// it grows, so the walk cannot fall behind the type.
const EVENTS: u32 = 4;

/// `RateEvent` by variant index (declaration order); `index` is below [`EVENTS`].
fn event(index: u32) -> RateEvent {
    let event = match index {
        0 => RateEvent::Accept,
        1 => RateEvent::Reject,
        2 => RateEvent::ShadowHit,
        _ => RateEvent::ShadowMiss,
    };
    // A new variant must be added above and to `EVENTS`.
    match event {
        RateEvent::Accept | RateEvent::Reject | RateEvent::ShadowHit | RateEvent::ShadowMiss => {
            event
        }
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
    #[inline(always)]
    fn varint_up_to(&mut self, max_tag: u8) -> Result<u64, CodecError> {
        // Nearly every varint here is one byte: that case is inlined, the rest is not.
        if let Some((&tag @ 0..=250, tail)) = self.rest.split_first() {
            self.rest = tail;
            return Ok(u64::from(tag));
        }
        self.long_varint(max_tag)
    }

    #[cold]
    #[inline(never)]
    fn long_varint(&mut self, max_tag: u8) -> Result<u64, CodecError> {
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
}
