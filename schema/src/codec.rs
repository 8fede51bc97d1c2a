//! The one module that defines stored bytes: a version tag, then bincode 2 (little-endian,
//! variable-length integers).
//!
//! bincode is pinned at 2.0.1 and used only here, so replacing it touches one file.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The version tag of values written by this build.
pub const VALUE_VERSION: u8 = 1;

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
    let (&tag, body) = bytes.split_first().ok_or(CodecError::Empty)?;
    if tag != VALUE_VERSION {
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
        };
        let bytes = encode(&row).expect("encodes");
        // tag 1, f64 0.5 little-endian, varint 2, varint 300 (0xfb + u16 LE).
        assert_eq!(
            bytes,
            [1, 0, 0, 0, 0, 0, 0, 0xe0, 0x3f, 2, 0xfb, 0x2c, 0x01]
        );
        assert_eq!(decode::<RateRow>(&bytes), Ok(row));
    }

    #[test]
    fn bad_bytes_are_errors() {
        assert_eq!(decode::<RateRow>(&[]), Err(CodecError::Empty));
        assert_eq!(
            decode::<RateRow>(&[9, 1]),
            Err(CodecError::UnknownVersion(9))
        );
        assert!(matches!(
            decode::<RateRow>(&[1, 0]),
            Err(CodecError::Malformed(_))
        ));
        let mut bytes = encode(&RateKey::family("w", "f")).expect("encodes");
        bytes.push(0);
        assert_eq!(decode::<RateKey>(&bytes), Err(CodecError::Trailing(1)));
    }
}
