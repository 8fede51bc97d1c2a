//! A private copy of a store file that another process holds for writing.
//!
//! redb lets no reader open a file beside an `ExclusiveWriter` (the mode every docsuggest host
//! uses: its `group` durability rests on non-durable commits, which redb's shared modes
//! refuse). Reading the file's bytes is still safe, and a copy of them taken at one instant is
//! exactly the file a kill of the writer at that instant would leave: redb's header names each
//! commit's roots with their checksums, and its repair passes over a newest commit whose pages
//! are not all there for the one before; a page of the last durable commit is never reused
//! before the next durable commit, and the non-durable commits since live in the writer's
//! memory (docs/STORE.md). Repairing such a copy yields the last durable commit, which is what
//! `ReadOnlyStore` then reads.
//!
//! A copy is not taken at one instant, so [`steady_copy`] takes it again while the file's
//! length or times move under it (a commit landed meanwhile), and the copy is verified by
//! redb's page check after its repair, which refuses a copy whose pages come from two durable
//! commits (their checksums do not match the header).

use super::PrivateCopy;
use crate::errors::ResultExt;
use docsuggest_schema::StoreError;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// Copies taken of a held file before a verification failure is believed to be damage.
pub(super) const ATTEMPTS: u32 = 3;

/// Copies taken while the file keeps moving before the last one is used as it is (its
/// verification still decides).
const STEADY_TRIES: u32 = 8;

/// What a change of the file shows in its metadata.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Stamp {
    len: u64,
    modified: Option<SystemTime>,
    changed: Option<(i64, i64)>,
}

fn stamp(path: &Path, label: &str) -> Result<Stamp, StoreError> {
    let meta = std::fs::metadata(path).at(label, "reading a held file's metadata")?;
    #[cfg(unix)]
    let changed = {
        use std::os::unix::fs::MetadataExt;
        Some((meta.ctime(), meta.ctime_nsec()))
    };
    #[cfg(not(unix))]
    let changed = None;
    Ok(Stamp {
        len: meta.len(),
        modified: meta.modified().ok(),
        changed,
    })
}

/// A private copy of `source` during which its length and times did not move, or the last of
/// [`STEADY_TRIES`] copies when every one saw a write.
pub(super) fn steady_copy(source: &Path, label: &str) -> Result<PrivateCopy, StoreError> {
    let mut tries = 0;
    loop {
        tries += 1;
        let before = stamp(source, label)?;
        let copy = PrivateCopy::of(source, label)?;
        if stamp(source, label)? == before || tries == STEADY_TRIES {
            return Ok(copy);
        }
        // A writer that commits now usually commits again within milliseconds; the next
        // copy starts after the burst.
        std::thread::sleep(Duration::from_millis(5 * u64::from(tries)));
    }
}
