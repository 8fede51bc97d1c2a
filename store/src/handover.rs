//! What a redb handle hands over when the store leaves its file for memory: the writes it
//! answered that the file may not keep. A building block of both the handle (`redb_store`,
//! `deferred`) and the write-back that uses it (`recovery`), so neither depends on the other.

use crate::record::SeqMarks;
use docsuggest_schema::{Decision, MinedPack, Resolution};

/// One write answered by the store.
#[derive(Clone, Debug)]
pub(crate) enum Write {
    /// A pending record; its `seq` is the number memory gave it.
    Pending(Decision),
    /// A gated silence.
    Silent(Decision),
    /// A resolution, of a decision by memory's number.
    Resolve(Resolution),
    /// A mined pack kept for a workspace.
    Mined(String, MinedPack),
}

impl Write {
    /// Whether it is a decision or a resolution (what the counts count).
    pub(crate) fn is_learning(&self) -> bool {
        !matches!(self, Write::Mined(..))
    }
}

/// The most writes kept for a write-back; past it, writes are answered on memory only and
/// counted as lost (a record of about a kilobyte each: tens of megabytes at most).
pub(crate) const JOURNAL_BOUND: usize = 1 << 16;

/// What a redb handle hands over when the store leaves it for memory.
#[derive(Debug, Default)]
pub(crate) struct HandOver {
    /// The numbers of the last durable commit.
    pub(crate) durable: SeqMarks,
    /// The numbers of the last commit.
    pub(crate) committed: SeqMarks,
    /// The commits since the last durable one, as writes.
    pub(crate) unsynced: Vec<Write>,
    /// History entries of those commits the ring no longer held (or all, unreadable).
    pub(crate) unreadable: u64,
    /// What waited for the next commit, as writes.
    pub(crate) waiting: Vec<Write>,
}
