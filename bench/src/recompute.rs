//! Recompute throughput: synthetic store contents held in memory, so a measurement times the
//! fold and not redb's I/O; a redb store filled through the public write API for the
//! end-to-end figure; and the thread settings a recompute is measured under.
//!
//! The synthetic history is what the engine writes: every entry is a decision with four
//! ranked companion rows, closed as an accept (the accepted companion and the family move up:
//! two moves) or a reject (one to four named companions and the family move down: two to five
//! moves), over a key space of 50 workspaces × the built-in pack's 7 families × 6 rows (5
//! companions and the family row) = 2 100 keys. Every key also has a base row (history evicted
//! earlier), and the live rows are `fold(base, history)`, so a recompute finds no drift.

use crate::fill::mix;
use crate::rig::Result;
use docsuggest_schema::{
    CompanionRow, Decision, DecisionStore, HistoryEntry, Outcome, Pack, RateEvent, RateKey,
    RateModel, RateMove, RateRow, Resolution, StoreContents, StoreError, Table,
};
use docsuggest_store::recompute::{
    HistoryMoves, RecomputeInput, RecomputeOptions, RecomputeSource, Recomputed, recompute,
};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

mod figures;

pub use figures::*;

/// Workspaces in the synthetic key space.
pub const WORKSPACES: usize = 50;
/// Companions per family in the synthetic key space.
pub const COMPANIONS: usize = 5;
/// Companion rows a synthetic decision records (the note's ranked companions).
pub const RANKED: usize = 4;

/// Paths that complete a built-in family's companions to [`COMPANIONS`].
const EXTRA: [&str; 5] = [
    "README.md",
    "CHANGELOG.md",
    "package.json",
    "CONTRIBUTING.md",
    "docs/OVERVIEW.md",
];

/// The synthetic key space: workspace keys, and each family with its companions.
pub struct KeySpace {
    workspaces: Vec<String>,
    families: Vec<(String, Vec<String>)>,
}

impl Default for KeySpace {
    fn default() -> Self {
        KeySpace::with_workspaces(WORKSPACES)
    }
}

impl KeySpace {
    /// The key space over `count` workspaces (the default has [`WORKSPACES`]).
    pub fn with_workspaces(count: usize) -> KeySpace {
        let workspaces = (0..count as u64)
            .map(|w| format!("repo{w:03}-{:08x}", mix(w ^ 0xd0c5) as u32))
            .collect();
        let families = Pack::builtin()
            .families
            .into_iter()
            .map(|f| {
                let mut companions: Vec<String> =
                    f.companions.into_iter().map(|c| c.path).collect();
                for extra in EXTRA {
                    if companions.len() == COMPANIONS {
                        break;
                    }
                    if !companions.iter().any(|c| c == extra) {
                        companions.push(extra.into());
                    }
                }
                (f.name, companions)
            })
            .collect();
        KeySpace {
            workspaces,
            families,
        }
    }

    /// How many keys there are (companion rows and family rows).
    pub fn len(&self) -> usize {
        self.workspaces.len() * self.families.len() * (COMPANIONS + 1)
    }

    /// Whether the key space is empty (it never is).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Every key: per workspace and family, the family row then its companions.
    pub fn keys(&self) -> impl Iterator<Item = RateKey> + '_ {
        self.workspaces.iter().flat_map(move |ws| {
            self.families.iter().flat_map(move |(family, companions)| {
                std::iter::once(RateKey::family(ws, family)).chain(
                    companions
                        .iter()
                        .map(move |c| RateKey::companion(ws, family, c)),
                )
            })
        })
    }

    /// Synthetic decision number `i` (from 0) as it is recorded (outcome pending), and the
    /// resolution that closes it. Deterministic in `i`.
    pub fn decision(&self, i: u64) -> (Decision, Resolution) {
        let r = mix(i ^ 0x7ec0_4b07);
        let ws = &self.workspaces[(r % self.workspaces.len() as u64) as usize];
        let (family, companions) = &self.families[((r >> 8) % self.families.len() as u64) as usize];
        // Four of the family's five companions, ranked from a rotating head.
        let head = ((r >> 16) % COMPANIONS as u64) as usize;
        let ranked: Vec<&String> = (0..RANKED)
            .map(|k| &companions[(head + k) % COMPANIONS])
            .collect();
        let rows = ranked
            .iter()
            .enumerate()
            .map(|(k, path)| {
                let prior = 1.0 - 0.1 * k as f64;
                let history = ((r >> (24 + k)) & 0xff) as f64 / 255.0;
                let values = Table([1.0, 0.5, prior, 0.5, history, 0.4]);
                let score = values
                    .0
                    .iter()
                    .zip(Table::DEFAULT_WEIGHTS.0)
                    .map(|(v, w)| v * w)
                    .sum();
                CompanionRow {
                    path: (*path).clone(),
                    score,
                    values,
                }
            })
            .collect();
        let decision = Decision {
            workspace: ws.clone(),
            agent: format!("agent-{}", (r >> 40) % 8),
            kappa: 0.75 + ((r >> 48) & 0xff) as f64 / 1024.0,
            companions: rows,
            ..docsuggest_store::testkit::decision(family)
        };
        let mv = |companion: &str, event, step| RateMove {
            key: RateKey::companion(ws, family, companion),
            event,
            step,
        };
        let resolution = if (r >> 56).is_multiple_of(3) {
            // An accept: the opened companion (usually the head) and the family move up.
            let opened = ranked[((r >> 58) % 2) as usize];
            Resolution {
                decision_seq: 0,
                outcome: Outcome::Accepted,
                accepted: Some(opened.clone()),
                moves: vec![
                    mv(opened, RateEvent::Accept, 0.1),
                    mv("", RateEvent::Accept, 0.1),
                ],
            }
        } else {
            // A reject: the one to four companions the note named and the family move down.
            let named = 1 + ((r >> 60) % RANKED as u64) as usize;
            let mut moves: Vec<RateMove> = ranked[..named]
                .iter()
                .map(|c| mv(c, RateEvent::Reject, -0.2))
                .collect();
            moves.push(mv("", RateEvent::Reject, -0.2));
            Resolution {
                decision_seq: 0,
                outcome: Outcome::Rejected,
                accepted: None,
                moves,
            }
        };
        (decision, resolution)
    }
}

/// Store contents held in memory: base rows, a resolved history and the live rows.
pub struct SyntheticContents {
    base: Vec<(RateKey, RateRow)>,
    live: Vec<(RateKey, RateRow)>,
    history: Vec<HistoryEntry>,
    moves: u64,
}

impl SyntheticContents {
    /// `decisions` synthetic decisions over the [`KeySpace`], a base row for every key, and
    /// the live rows folded from them.
    pub fn new(decisions: u64) -> SyntheticContents {
        SyntheticContents::over(decisions, &KeySpace::default(), true)
    }

    /// `decisions` synthetic decisions over `space`; `companions: false` leaves the decisions'
    /// companion rows out (a recompute reads the moves alone; it saves memory at 10^7).
    pub fn over(decisions: u64, space: &KeySpace, companions: bool) -> SyntheticContents {
        let base: Vec<(RateKey, RateRow)> = space
            .keys()
            .enumerate()
            .map(|(i, key)| {
                let r = mix(i as u64 ^ 0xba5e);
                let (accepts, rejects) = (r % 40, (r >> 8) % 40);
                let step = ((r >> 16) % 1000) as f64 / 1000.0;
                (
                    key,
                    RateRow {
                        step,
                        accepts,
                        rejects,
                        ..RateRow::default()
                    },
                )
            })
            .collect();
        // The live rows, kept the way a store keeps them: each move applied as it commits.
        let mut live: BTreeMap<RateKey, RateRow> = base.iter().cloned().collect();
        let mut moves = 0;
        let history = (0..decisions)
            .map(|i| {
                let (mut decision, resolution) = space.decision(i);
                if !companions {
                    decision.companions = Vec::new();
                }
                decision.seq = i + 1;
                for mv in &resolution.moves {
                    let row = live.entry(mv.key.clone()).or_default();
                    *row = row.apply(mv);
                }
                moves += resolution.moves.len() as u64;
                HistoryEntry::closing(decision, resolution, i + 1)
            })
            .collect();
        SyntheticContents {
            base,
            live: live.into_iter().collect(),
            history,
            moves,
        }
    }

    /// History entries.
    pub fn decisions(&self) -> usize {
        self.history.len()
    }

    /// Rate moves in the history.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// Live rows.
    pub fn rows(&self) -> usize {
        self.live.len()
    }
}

/// The history is grouped where it lies, not copied first (as `StoreContents::history()`
/// would).
impl RecomputeSource for SyntheticContents {
    fn recompute_input(&self, parallel: bool) -> std::result::Result<RecomputeInput, StoreError> {
        Ok(RecomputeInput {
            base: self.base.clone(),
            live: self.live.clone(),
            history: HistoryMoves::from_entries(&self.history, parallel),
        })
    }
}

impl StoreContents for SyntheticContents {
    fn rate_rows(&self) -> std::result::Result<Vec<(RateKey, RateRow)>, StoreError> {
        Ok(self.live.clone())
    }
    fn base_rows(&self) -> std::result::Result<Vec<(RateKey, RateRow)>, StoreError> {
        Ok(self.base.clone())
    }
    fn history(&self) -> std::result::Result<Vec<HistoryEntry>, StoreError> {
        Ok(self.history.clone())
    }
    fn pending(&self) -> std::result::Result<Vec<Decision>, StoreError> {
        Ok(Vec::new())
    }
}

/// Records and resolves `decisions` synthetic decisions in `store` through the public write
/// API (two write transactions each), then flushes. The store's ring must hold them all for
/// the history to keep every one. Answers the moves written and the time taken.
pub fn fill_decisions(store: &mut dyn DecisionStore, decisions: u64) -> Result<(u64, Duration)> {
    let space = KeySpace::default();
    let start = Instant::now();
    let mut moves = 0;
    for i in 0..decisions {
        let (decision, mut resolution) = space.decision(i);
        moves += resolution.moves.len() as u64;
        resolution.decision_seq = store.record_pending(decision)?;
        store.resolve(resolution)?;
    }
    store.flush()?;
    Ok((moves, start.elapsed()))
}

/// The threads a recompute runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Threads {
    /// `parallel: false`: the keys folded in a plain loop on the calling thread.
    Sequential,
    /// `parallel: true` inside a rayon pool of one thread.
    OneThreadPool,
    /// `parallel: true` inside a rayon pool of two threads.
    TwoThreads,
    /// `parallel: true` on rayon's global pool (one thread per core).
    AllCores,
}

impl Threads {
    /// Every setting, one core first.
    pub const ALL: [Threads; 4] = [
        Threads::Sequential,
        Threads::OneThreadPool,
        Threads::TwoThreads,
        Threads::AllCores,
    ];

    /// The name used in figures.
    pub fn name(self) -> &'static str {
        match self {
            Threads::Sequential => "1 core, parallel=false",
            Threads::OneThreadPool => "1 core, 1-thread rayon pool",
            Threads::TwoThreads => "2 threads, 2-thread rayon pool",
            Threads::AllCores => "all cores, global rayon pool",
        }
    }

    /// A short identifier (criterion benchmark names).
    pub fn id(self) -> &'static str {
        match self {
            Threads::Sequential => "sequential",
            Threads::OneThreadPool => "one-thread-pool",
            Threads::TwoThreads => "two-threads",
            Threads::AllCores => "all-cores",
        }
    }

    /// Threads that fold.
    pub fn threads(self) -> usize {
        match self {
            Threads::Sequential | Threads::OneThreadPool => 1,
            Threads::TwoThreads => 2,
            Threads::AllCores => rayon::current_num_threads(),
        }
    }
}

/// Runs recomputes under each [`Threads`] setting; holds the one- and two-thread pools.
pub struct Recomputer {
    one: rayon::ThreadPool,
    two: rayon::ThreadPool,
}

impl Recomputer {
    /// Builds the one- and two-thread pools.
    pub fn new() -> Result<Recomputer> {
        Ok(Recomputer {
            one: rayon::ThreadPoolBuilder::new().num_threads(1).build()?,
            two: rayon::ThreadPoolBuilder::new().num_threads(2).build()?,
        })
    }

    /// One `recompute` of `contents` under `threads` (`step` model), and its wall-clock time.
    pub fn run<C>(&self, contents: &C, threads: Threads) -> Result<(Recomputed, Duration)>
    where
        C: RecomputeSource + Sync + ?Sized,
    {
        let options = RecomputeOptions {
            model: RateModel::Step,
            parallel: threads != Threads::Sequential,
        };
        let (out, took) = self.timed(threads, || {
            recompute(contents, options, &std::sync::atomic::AtomicU64::new(0))
        });
        Ok((out?, took))
    }

    /// `recompute_input` alone — what a recompute reads, grouped by key — under `threads`:
    /// answers the decisions read and the wall-clock time.
    pub fn read<C>(&self, contents: &C, threads: Threads) -> Result<(usize, Duration)>
    where
        C: RecomputeSource + Sync + ?Sized,
    {
        let parallel = threads != Threads::Sequential;
        let (input, took) = self.timed(threads, || contents.recompute_input(parallel));
        Ok((input?.history.decisions(), took))
    }

    /// `f` on the threads of `threads`, timed (dropping its result is not timed).
    fn timed<T: Send>(&self, threads: Threads, f: impl FnOnce() -> T + Send) -> (T, Duration) {
        let timed = || {
            let start = Instant::now();
            let out = f();
            (out, start.elapsed())
        };
        match threads {
            Threads::OneThreadPool => self.one.install(timed),
            Threads::TwoThreads => self.two.install(timed),
            Threads::Sequential | Threads::AllCores => timed(),
        }
    }
}

/// The median of `samples` (the lower middle for an even count); zero when empty.
pub fn median(samples: &[Duration]) -> Duration {
    let mut sorted = samples.to_vec();
    sorted.sort_unstable();
    sorted
        .get(sorted.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_store::{RedbStore, StoreOptions, check_fold, same_bits};

    fn same_rows(a: &Recomputed, b: &Recomputed) -> bool {
        a.rows.len() == b.rows.len()
            && a.rows
                .iter()
                .zip(&b.rows)
                .all(|(x, y)| x.0 == y.0 && same_bits(&x.1, &y.1))
    }

    #[test]
    fn synthetic_history_is_realistic_and_recomputes_clean() {
        let space = KeySpace::default();
        assert_eq!(space.len(), 2_100);
        let keys: std::collections::BTreeSet<RateKey> = space.keys().collect();
        assert_eq!(keys.len(), 2_100);
        let contents = SyntheticContents::new(3_000);
        assert_eq!(contents.decisions(), 3_000);
        for entry in contents.history().expect("history") {
            assert_eq!(entry.decision.companions.len(), RANKED);
            assert!(
                (2..=5).contains(&entry.moves.len()),
                "{}",
                entry.moves.len()
            );
            assert!(entry.moves.iter().all(|m| keys.contains(&m.key)));
        }
        assert_eq!(contents.rows(), 2_100);
        assert!(check_fold(&contents).expect("fold").is_clean());
        let runner = Recomputer::new().expect("pool");
        let runs: Vec<Recomputed> = Threads::ALL
            .iter()
            .map(|&t| runner.run(&contents, t).expect("recompute").0)
            .collect();
        for run in &runs {
            assert_eq!(run.report.decisions, 3_000);
            assert_eq!(run.report.rows_compared, 2_100);
            assert_eq!(run.report.rows_differing, 0);
            assert!(same_rows(run, &runs[0]));
        }
    }

    #[test]
    fn a_redb_store_filled_with_decisions_recomputes_clean() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut options = StoreOptions::new(dir.path().join("s.redb"));
        options.durability = docsuggest_schema::Durability::Group;
        options.ring_capacity = 1 << 20;
        let mut store = RedbStore::open(options).expect("open");
        let (moves, _) = fill_decisions(&mut store, 500).expect("fill");
        assert!((1_000..=2_500).contains(&moves), "{moves}");
        assert_eq!(store.history().expect("history").len(), 500);
        let (run, _) = Recomputer::new()
            .expect("pool")
            .run(&store, Threads::OneThreadPool)
            .expect("recompute");
        assert_eq!(run.report.decisions, 500);
        assert_eq!(run.report.rows_differing, 0);
        assert!(run.report.rows_compared > 0);
    }
}
