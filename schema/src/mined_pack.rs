//! A pack mined from a workspace's git history, as a store keeps it, and its bounds. Both the
//! codec (which bounds what it decodes) and the store traits use it.

use serde::{Deserialize, Serialize};

/// The largest mined pack a store keeps, in bytes of JSON text: the bound of a repo pack file
/// (`.dsh/doc-pack.json`, read at most 1 MiB). A stored value holding more is corrupt.
pub const MAX_MINED_PACK_BYTES: usize = 1 << 20;

/// The longest `head` of a mined pack, in bytes (a SHA-256 commit id is 64 hex digits).
pub const MAX_MINED_HEAD_BYTES: usize = 256;

/// A pack mined from a workspace's git history (zero-config), as the store keeps it: one per
/// workspace key, so a restart does not mine again. It is not learned state: recomputing it
/// means reading the history again, and forgetting a workspace's learning keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MinedPack {
    /// The pack as JSON text, as `.dsh/doc-pack.json` would hold it (at most
    /// [`MAX_MINED_PACK_BYTES`]).
    pub pack: String,
    /// The hex id of the commit it was mined at (at most [`MAX_MINED_HEAD_BYTES`]).
    pub head: String,
    /// How many first-parent commits were read.
    pub commits: u64,
    /// The version of the miner that wrote it.
    pub miner: u32,
}

impl MinedPack {
    /// Why a store refuses to keep this record (a pack or head past its bound), if it does.
    pub fn problem(&self) -> Option<String> {
        if self.pack.len() > MAX_MINED_PACK_BYTES {
            return Some(format!(
                "a mined pack of {} bytes is larger than the limit of {MAX_MINED_PACK_BYTES}",
                self.pack.len()
            ));
        }
        if self.head.len() > MAX_MINED_HEAD_BYTES {
            return Some(format!(
                "a mined pack's head of {} bytes is longer than the limit of \
                 {MAX_MINED_HEAD_BYTES}",
                self.head.len()
            ));
        }
        None
    }
}
