//! Reading the history's moves from one snapshot in parallel, for a recompute.
//!
//! Only the `moves` table is read (the decisions are stored apart, in `history`). Its key
//! range (resolution sequence numbers) is split into chunks; each chunk is read through its
//! own range over the same read transaction — redb's read-only tables are `Sync`, so every
//! worker sees the one snapshot the view began — and each entry's moves are walked without
//! building them ([`codec::decode_moves`]) straight into the chunk's per-key groups. No
//! `HistoryEntry` is built.

use crate::errors::{self, ResultExt};
use crate::per_key_moves::{Chunk, HistoryMoves};
use crate::reader::StoreView;
use crate::tables;
use docsuggest_schema::StoreError;
use docsuggest_schema::codec;
use rayon::prelude::*;
use redb::{ReadOnlyTable, ReadableTable, ReadableTableMetadata};

/// Entries per chunk of a large history: few enough chunks that each key is allocated only a
/// few dozen times, enough that the cores stay busy to the end.
const CHUNK_ENTRIES: u64 = 32_768;
/// The smallest chunk a history is cut into to give every thread several chunks.
const MIN_CHUNK_ENTRIES: u64 = 1_024;

const DOING: &str = "reading history";

/// The history's moves, grouped; `parallel` reads chunks of it on rayon's pool.
pub(crate) fn read_moves(view: &StoreView, parallel: bool) -> Result<HistoryMoves, StoreError> {
    let chunks = if parallel {
        let len = view.moves_table()?.len().at(view.label(), DOING)?;
        let threads = rayon::current_num_threads() as u64;
        len.div_ceil(CHUNK_ENTRIES)
            .max((4 * threads).min(len.div_ceil(MIN_CHUNK_ENTRIES)))
    } else {
        1
    };
    read_moves_in(view, chunks)
}

/// The history's moves read as (at most) `chunks` chunks, in parallel when more than one.
pub(crate) fn read_moves_in(view: &StoreView, chunks: u64) -> Result<HistoryMoves, StoreError> {
    let label = view.label();
    let table = view.moves_table()?;
    let first = table.first().at(label, DOING)?.map(|(k, _)| k.value());
    let last = table.last().at(label, DOING)?.map(|(k, _)| k.value());
    let (Some(first), Some(last)) = (first, last) else {
        return Ok(HistoryMoves::default());
    };
    let ranges = split(first, last, chunks);
    let read = |&(lo, hi): &(u64, u64)| read_range(label, &table, lo, hi);
    let chunks = if ranges.len() > 1 {
        ranges.par_iter().map(read).collect::<Result<Vec<_>, _>>()?
    } else {
        ranges.iter().map(read).collect::<Result<Vec<_>, _>>()?
    };
    Ok(HistoryMoves::from_chunks(chunks))
}

/// `first..=last` cut into at most `n` consecutive inclusive ranges of near-equal width.
fn split(first: u64, last: u64, n: u64) -> Vec<(u64, u64)> {
    let span = u128::from(last - first) + 1;
    let n = u128::from(n.max(1)).min(span);
    // `span * i / n` is in 1..=span for i in 1..=n, so each offset below is at most
    // `last - first`: it fits a u64 and the bound stays at most `last`.
    (0..n)
        .map(|i| {
            let lo = first + (span * i / n) as u64;
            let hi = first + (span * (i + 1) / n - 1) as u64;
            (lo, hi)
        })
        .collect()
}

fn read_range(
    label: &str,
    table: &ReadOnlyTable<u64, &'static [u8]>,
    lo: u64,
    hi: u64,
) -> Result<Chunk, StoreError> {
    let mut chunk = Chunk::default();
    for item in table.range(lo..=hi).at(label, DOING)? {
        let (k, v) = item.at(label, DOING)?;
        let seq = k.value();
        let stored = codec::decode_moves(v.value(), &mut chunk)
            .map_err(|e| errors::codec("moves", seq, e))?;
        tables::check_seq(label, "moves", seq, stored)?;
        chunk.count_entry();
    }
    chunk.finish();
    Ok(chunk)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_cover_the_keys_once_in_order() {
        for (first, last, n, expect) in [
            (1, 10, 3, vec![(1, 3), (4, 6), (7, 10)]),
            (5, 5, 4, vec![(5, 5)]),
            (1, 4, 8, vec![(1, 1), (2, 2), (3, 3), (4, 4)]),
            (7, 9, 0, vec![(7, 9)]),
            (
                0,
                u64::MAX,
                2,
                vec![(0, u64::MAX / 2), (u64::MAX / 2 + 1, u64::MAX)],
            ),
        ] {
            assert_eq!(split(first, last, n), expect, "{first}..={last} in {n}");
        }
    }
}
