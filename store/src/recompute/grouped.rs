//! The history's moves grouped by key, one chunk of consecutive entries at a time, and the
//! fold of every key over its chunks.
//!
//! A chunk keeps, per key, the steps of that key's moves in resolution order and the count of
//! each event. Chunks are built independently (in parallel) and never merged: the fold of a
//! key replays its steps chunk after chunk, in chunk order, so the step rule — which clamps,
//! so neither commutes nor associates — sees exactly the order a sequential replay sees, while
//! the counts, which commute, are summed.

use docsuggest_schema::codec::{CodecError, MoveSink, StoredKey};
use docsuggest_schema::rate::step_rule;
use docsuggest_schema::{HistoryEntry, RateEvent, RateKey, RateRow};
use hashbrown::{DefaultHashBuilder, HashMap, HashTable};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};

/// History entries grouped per chunk when grouping entries already in memory.
pub(crate) const CHUNK: usize = 4096;

/// The moves of a run of consecutive history entries, per key.
#[derive(Default)]
pub(crate) struct Chunk {
    /// Stored key bytes seen in this chunk → their key, found by hash: a move of a key seen
    /// before is matched by its bytes alone, with no decoding and no allocation.
    spans: HashTable<(Box<[u8]>, u32)>,
    hasher: DefaultHashBuilder,
    /// Each distinct key once, by value (bytes seen for the first time are decoded and looked
    /// up here, so two encodings of one key still share its moves).
    by_key: HashMap<RateKey, u32>,
    keys: Vec<RateKey>,
    rows: Vec<KeyMoves>,
    entries: usize,
}

/// One key's moves within a chunk.
#[derive(Default)]
struct KeyMoves {
    /// The signed steps, in resolution order.
    steps: Vec<f64>,
    /// Accepts, rejects, shadow hits, shadow misses.
    counts: [u64; 4],
}

impl Chunk {
    /// Counts one history entry whose moves were pushed.
    pub(crate) fn count_entry(&mut self) {
        self.entries += 1;
    }

    /// Adds one entry held in memory.
    fn add(&mut self, entry: &HistoryEntry) {
        for mv in &entry.moves {
            let at = match self.by_key.get(&mv.key) {
                Some(&i) => i,
                None => self.insert(mv.key.clone()),
            };
            self.record(at, mv.event, mv.step);
        }
        self.count_entry();
    }

    /// The number of a key not seen before in this chunk.
    fn insert(&mut self, key: RateKey) -> u32 {
        // A chunk holds far fewer than 2^32 keys: it holds fewer moves than that.
        let at = self.keys.len() as u32;
        self.by_key.insert(key.clone(), at);
        self.keys.push(key);
        self.rows.push(KeyMoves::default());
        at
    }

    fn record(&mut self, at: u32, event: RateEvent, step: f64) {
        let row = &mut self.rows[at as usize];
        row.steps.push(step);
        row.counts[event_index(event)] += 1;
    }
}

impl MoveSink for Chunk {
    fn push(&mut self, key: StoredKey<'_>, event: RateEvent, step: f64) -> Result<(), CodecError> {
        let bytes = key.bytes();
        let hash = self.hasher.hash_one(bytes);
        let at = match self.spans.find(hash, |(b, _)| **b == *bytes) {
            Some(&(_, at)) => at,
            None => {
                let decoded = key.decode()?;
                let at = match self.by_key.get(&decoded) {
                    Some(&at) => at,
                    None => self.insert(decoded),
                };
                let hasher = &self.hasher;
                self.spans
                    .insert_unique(hash, (bytes.into(), at), |(b, _)| hasher.hash_one(&**b));
                at
            }
        };
        self.record(at, event, step);
        Ok(())
    }
}

fn event_index(event: RateEvent) -> usize {
    match event {
        RateEvent::Accept => 0,
        RateEvent::Reject => 1,
        RateEvent::ShadowHit => 2,
        RateEvent::ShadowMiss => 3,
    }
}

/// The whole history's moves, grouped chunk by chunk (chunks in resolution order).
#[derive(Default)]
pub struct HistoryMoves {
    chunks: Vec<Chunk>,
}

impl std::fmt::Debug for HistoryMoves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HistoryMoves")
            .field("chunks", &self.chunks.len())
            .field("decisions", &self.decisions())
            .finish()
    }
}

impl HistoryMoves {
    /// Groups a history held in memory (oldest first); `parallel` groups chunks of it on
    /// rayon's pool.
    pub fn from_entries(entries: &[HistoryEntry], parallel: bool) -> HistoryMoves {
        HistoryMoves::from_entries_in(entries, parallel, CHUNK)
    }

    pub(crate) fn from_entries_in(
        entries: &[HistoryEntry],
        parallel: bool,
        chunk: usize,
    ) -> HistoryMoves {
        let group = |slice: &[HistoryEntry]| {
            let mut c = Chunk::default();
            slice.iter().for_each(|e| c.add(e));
            c
        };
        let chunks = if parallel {
            entries.par_chunks(chunk.max(1)).map(group).collect()
        } else {
            vec![group(entries)]
        };
        HistoryMoves::from_chunks(chunks)
    }

    /// Chunks of consecutive entries, in resolution order.
    pub(crate) fn from_chunks(chunks: Vec<Chunk>) -> HistoryMoves {
        HistoryMoves { chunks }
    }

    /// History entries grouped.
    pub fn decisions(&self) -> usize {
        self.chunks.iter().map(|c| c.entries).sum()
    }

    /// `fold(base, moves)` for every key with a base row or a move, in key order; `done`
    /// counts folded keys as they finish.
    pub(crate) fn fold(
        &self,
        base: &BTreeMap<RateKey, RateRow>,
        parallel: bool,
        done: &AtomicU64,
    ) -> Vec<(RateKey, RateRow)> {
        // Per key, where its moves are: (chunk, key within the chunk), in chunk order.
        let mut parts: HashMap<&RateKey, Vec<(u32, u32)>> = HashMap::new();
        for (c, chunk) in self.chunks.iter().enumerate() {
            for (k, key) in chunk.keys.iter().enumerate() {
                parts.entry(key).or_default().push((c as u32, k as u32));
            }
        }
        let mut keys: Vec<&RateKey> = base.keys().chain(parts.keys().copied()).collect();
        keys.sort_unstable();
        keys.dedup();
        let none = Vec::new();
        let one = |key: &&RateKey| {
            let mut row = base.get(*key).copied().unwrap_or_default();
            for &(c, k) in parts.get(*key).unwrap_or(&none) {
                let moves = &self.chunks[c as usize].rows[k as usize];
                row.step = moves.steps.iter().fold(row.step, |s, &d| step_rule(s, d));
                let [a, r, h, m] = moves.counts;
                row.accepts += a;
                row.rejects += r;
                row.shadow_hits += h;
                row.shadow_misses += m;
            }
            done.fetch_add(1, Ordering::Relaxed);
            ((*key).clone(), row)
        };
        if parallel {
            keys.par_iter().map(one).collect()
        } else {
            keys.iter().map(one).collect()
        }
    }
}
