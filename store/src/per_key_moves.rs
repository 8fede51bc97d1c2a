//! The history's moves grouped by key, one chunk of consecutive entries at a time, and the
//! fold of every key over its chunks.
//!
//! A chunk keeps, per key, the steps and events of that key's moves in resolution order.
//! Chunks are built independently (in parallel) and never merged: the fold of a key replays
//! its moves chunk after chunk, in chunk order, through `RateRow::apply` — the function the
//! stores apply live — so the step rule (which clamps, so neither commutes nor associates) and
//! the recent evidence (each move ages the ones before it) see exactly the order a sequential
//! replay sees, and the row is the same bit for bit.
//!
//! A chunk takes its moves in one flat list (key number, step, event) as they come, and groups
//! them by key once, when it is complete, with a stable counting sort: one growing list per
//! chunk instead of one per key, and each key's moves left contiguous for the fold.
//!
//! Within a chunk a key is known by its canonical stored bytes alone (checked once, never
//! decoded there): a key costs a chunk one hash entry and its bytes, and each distinct key is
//! decoded once, at the fold.

use docsuggest_schema::codec::{self, CodecError, MoveSink, StoredKey};
use docsuggest_schema::{HistoryEntry, RateEvent, RateKey, RateMove, RateRow, StoreError};
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
    /// Each distinct key's canonical stored bytes (`codec::stored_key_bytes`), in order of
    /// first sight; equal keys have equal canonical bytes, so a key is known by its bytes
    /// alone and decoded once per recompute, at the fold.
    keys: Vec<Box<[u8]>>,
    /// Indices into `keys`, found by the hash of their bytes.
    index: HashTable<u32>,
    hasher: DefaultHashBuilder,
    /// Every move's key number, in resolution order; emptied by [`Chunk::finish`].
    move_keys: Vec<u32>,
    /// Every move's signed step, in resolution order; grouped by key by [`Chunk::finish`].
    steps: Vec<f64>,
    /// Every move's event, beside its step and grouped with it.
    events: Vec<RateEvent>,
    /// Once finished: where each key's moves start in `steps` and `events`, and the end
    /// (`keys.len() + 1` bounds).
    starts: Vec<usize>,
    entries: usize,
    /// A key's canonical bytes, built for a key held in memory or stored in a longer form.
    scratch: Vec<u8>,
}

impl Chunk {
    /// Counts one history entry whose moves were pushed.
    pub(crate) fn count_entry(&mut self) {
        self.entries += 1;
    }

    /// Groups the moves by key, each key's moves kept in resolution order (a stable counting
    /// sort). Done once, when the last move is in; a finished chunk takes no more moves.
    pub(crate) fn finish(&mut self) {
        if !self.starts.is_empty() {
            return;
        }
        let mut starts = vec![0usize; self.keys.len() + 1];
        for &k in &self.move_keys {
            starts[k as usize + 1] += 1;
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut grouped = vec![0.0; self.steps.len()];
        let mut events = vec![RateEvent::Accept; self.events.len()];
        for ((&k, &step), &event) in self.move_keys.iter().zip(&self.steps).zip(&self.events) {
            let at = &mut next[k as usize];
            grouped[*at] = step;
            events[*at] = event;
            *at += 1;
        }
        self.steps = grouped;
        self.events = events;
        self.starts = starts;
        self.move_keys = Vec::new();
    }

    /// Key number `k`'s steps and events, in resolution order (of a finished chunk).
    fn moves_of(&self, k: usize) -> (&[f64], &[RateEvent]) {
        match (self.starts.get(k), self.starts.get(k + 1)) {
            (Some(&lo), Some(&hi)) => (&self.steps[lo..hi], &self.events[lo..hi]),
            _ => (&[], &[]),
        }
    }

    /// Adds one entry held in memory.
    fn add(&mut self, entry: &HistoryEntry) {
        let mut scratch = std::mem::take(&mut self.scratch);
        for mv in &entry.moves {
            scratch.clear();
            codec::stored_key_bytes(&mv.key, &mut scratch);
            let at = self.key_at(&scratch);
            self.record(at, mv.event, mv.step);
        }
        self.scratch = scratch;
        self.count_entry();
    }

    /// The number of the key whose canonical bytes are `bytes`, added if not seen before.
    fn key_at(&mut self, bytes: &[u8]) -> u32 {
        let hash = self.hasher.hash_one(bytes);
        let keys = &self.keys;
        if let Some(&at) = self.index.find(hash, |&i| *keys[i as usize] == *bytes) {
            return at;
        }
        // A chunk holds far fewer than 2^32 keys: it holds fewer moves than that.
        let at = self.keys.len() as u32;
        self.keys.push(bytes.into());
        let (keys, hasher) = (&self.keys, &self.hasher);
        self.index
            .insert_unique(hash, at, |&i| hasher.hash_one(&*keys[i as usize]));
        at
    }

    fn record(&mut self, at: u32, event: RateEvent, step: f64) {
        debug_assert!(
            self.starts.is_empty(),
            "a move pushed into a finished chunk"
        );
        self.move_keys.push(at);
        self.steps.push(step);
        self.events.push(event);
    }
}

impl MoveSink for Chunk {
    fn push(&mut self, key: StoredKey<'_>, event: RateEvent, step: f64) -> Result<(), CodecError> {
        let bytes = key.bytes();
        let hash = self.hasher.hash_one(bytes);
        let keys = &self.keys;
        let at = match self.index.find(hash, |&i| *keys[i as usize] == *bytes) {
            Some(&at) => at,
            // Bytes not seen in this chunk: checked once here, so the fold's decode of
            // them cannot fail; a longer (foreign) form is known by its canonical bytes.
            None if key.is_canonical() => {
                key.check()?;
                self.key_at(bytes)
            }
            None => {
                let decoded = key.decode()?;
                let mut scratch = std::mem::take(&mut self.scratch);
                scratch.clear();
                codec::stored_key_bytes(&decoded, &mut scratch);
                let at = self.key_at(&scratch);
                self.scratch = scratch;
                at
            }
        };
        self.record(at, event, step);
        Ok(())
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
            c.finish();
            c
        };
        let chunks = if parallel {
            entries.par_chunks(chunk.max(1)).map(group).collect()
        } else {
            vec![group(entries)]
        };
        HistoryMoves::from_chunks(chunks)
    }

    /// Chunks of consecutive entries, in resolution order; each is finished here unless its
    /// builder already did (on its own thread).
    pub(crate) fn from_chunks(mut chunks: Vec<Chunk>) -> HistoryMoves {
        chunks.iter_mut().for_each(Chunk::finish);
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
    ) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        // Per key (by its canonical bytes), where its moves are: (chunk, key within the
        // chunk), in chunk order.
        let mut parts: HashMap<&[u8], Vec<(u32, u32)>> = HashMap::new();
        for (c, chunk) in self.chunks.iter().enumerate() {
            for (k, bytes) in chunk.keys.iter().enumerate() {
                parts
                    .entry(&**bytes)
                    .or_default()
                    .push((c as u32, k as u32));
            }
        }
        // Each key decoded once; canonical bytes are one per key, so no key comes twice.
        let mut keyed: BTreeMap<RateKey, &[(u32, u32)]> = BTreeMap::new();
        for (bytes, at) in &parts {
            // Bytes were checked when first seen, so this fails only on a bug.
            let key = codec::decode_stored_key(bytes)
                .map_err(|e| crate::errors::codec("moves", "a key", e))?;
            keyed.insert(key, at);
        }
        for key in base.keys() {
            keyed.entry(key.clone()).or_insert(&[]);
        }
        let keys: Vec<(RateKey, &[(u32, u32)])> = keyed.into_iter().collect();
        let one = |(key, at): (RateKey, &[(u32, u32)])| {
            let mut row = base.get(&key).copied().unwrap_or_default();
            // `apply` reads a move's event and step, never its key: one move with an empty
            // key (no allocation) carries each of them in turn.
            let mut mv = RateMove {
                key: RateKey::family("", ""),
                event: RateEvent::Accept,
                step: 0.0,
            };
            for &(c, k) in at {
                let (steps, events) = self.chunks[c as usize].moves_of(k as usize);
                for (&step, &event) in steps.iter().zip(events) {
                    (mv.step, mv.event) = (step, event);
                    row = row.apply(&mv);
                }
            }
            done.fetch_add(1, Ordering::Relaxed);
            (key, row)
        };
        Ok(if parallel {
            keys.into_par_iter().map(one).collect()
        } else {
            keys.into_iter().map(one).collect()
        })
    }
}

/// `fold(base, moves)` for every key with a base row or a move in `history` (resolution
/// order), in key order. `done` counts folded keys as they finish (for a progress bar).
pub fn fold_all(
    base: &BTreeMap<RateKey, RateRow>,
    history: &[HistoryEntry],
    parallel: bool,
    done: &AtomicU64,
) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
    HistoryMoves::from_entries(history, parallel).fold(base, parallel, done)
}
