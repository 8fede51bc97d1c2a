//! The crash workload: a scripted session against a real `RedbStore`, and a model of what
//! each of its commits holds.
//!
//! The model is independent of the store: it numbers decisions and resolutions, applies moves
//! with `RateRow::apply`, and keeps every history entry ever made. After every step the
//! runner logs the model's state; a crash image must reopen at one of those states, no older
//! than the last one the store acknowledged as durable.

use crate::scale::Rng;
use docsuggest_schema::codec;
use docsuggest_schema::{
    Decision, DecisionStore, Durability, HistoryEntry, Outcome, RateKey, RateRow, Resolution,
    SilenceReason, StoreError,
};
use docsuggest_store::recompute::{self, RecomputeOptions};
use docsuggest_store::{
    Plan, RedbStore, SCHEMA_VERSION, SeqMarks, Step as UpgradeStep, StoreOptions, testkit,
};
use redb::{ReadableTable, TableDefinition, WriteTransaction};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::time::Duration;

pub const WORKSPACES: [&str; 2] = ["docs-3f9a", "site-77c1"];
pub const FAMILIES: [&str; 3] = ["Plan", "Scheme", "Changelog"];
pub const COMPANIONS: [&str; 3] = ["Documentation/INDEX.md", "README.md", "CHANGELOG.md"];

/// The ring bound of the workload (small, so it wraps many times).
pub const RING: u64 = 6;
/// The bound after the workload shrinks the ring.
pub const SMALL_RING: u64 = 3;
/// The ring bound the workload's last phase grows to.
pub const GROWN_RING: u64 = 4096;

const RATES: TableDefinition<(&str, &str, &str), &[u8]> = TableDefinition::new("rates");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
/// The meta key the test migration writes.
pub const MIGRATED: &str = "test_migrated_rows";

/// A test upgrade (1 → 2): re-encodes every live row in place and counts them, so the
/// upgrade's transaction rewrites pages across the file. The rows' values do not change.
fn rewrite_rows(txn: &WriteTransaction, path: &str) -> Result<(), StoreError> {
    let err = |e: &dyn std::fmt::Display| StoreError::Backend(format!("{path}: test step: {e}"));
    let mut rates = txn.open_table(RATES).map_err(|e| err(&e))?;
    let mut rows = Vec::new();
    for item in rates.iter().map_err(|e| err(&e))? {
        let (k, v) = item.map_err(|e| err(&e))?;
        let (w, f, c) = k.value();
        let row: RateRow = codec::decode(v.value()).map_err(|e| err(&e))?;
        rows.push(((w.to_string(), f.to_string(), c.to_string()), row));
    }
    for ((w, f, c), row) in &rows {
        let bytes = codec::encode(row).map_err(|e| err(&e))?;
        rates
            .insert((w.as_str(), f.as_str(), c.as_str()), bytes.as_slice())
            .map_err(|e| err(&e))?;
    }
    let mut meta = txn.open_table(META).map_err(|e| err(&e))?;
    meta.insert(MIGRATED, rows.len() as u64)
        .map_err(|e| err(&e))?;
    Ok(())
}

const TO_NEXT: [UpgradeStep; 1] = [UpgradeStep {
    from: SCHEMA_VERSION,
    to: SCHEMA_VERSION + 1,
    name: "test: rewrite every live row",
    apply: rewrite_rows,
}];

/// The schema plan of the workload: this build's version plus a test upgrade to the next.
pub const PLAN_NEXT: Plan<'static> = Plan {
    current: SCHEMA_VERSION + 1,
    steps: &TO_NEXT,
};

/// A decision of `family` in `workspace` by `agent-1`, naming every companion.
pub fn decision(workspace: &str, family: &str) -> Decision {
    Decision {
        workspace: workspace.into(),
        agent: "agent-1".into(),
        companions: testkit::companions(&COMPANIONS),
        ..testkit::decision(family)
    }
}

pub use docsuggest_store::testkit::resolution;

/// One step of a session.
#[derive(Clone, Debug)]
pub enum Step {
    /// Open the store (the first open of the workload upgrades the file).
    Open,
    /// Record a pending decision.
    Pending { workspace: usize, family: usize },
    /// Record a gated silence.
    Silent { workspace: usize, family: usize },
    /// Accept an open decision (picked modulo how many are open) naming a companion.
    Accept { pick: usize, companion: usize },
    /// Reject an open decision.
    Reject { pick: usize },
    /// Abandon an open decision (a turn reset).
    Abandon { pick: usize },
    /// Read a few rows through one snapshot, as a judge call does.
    Read,
    /// Make every commit durable.
    Flush,
    /// Switch the durability mode.
    Durability(Durability),
    /// Change the ring bound (a smaller one evicts at once).
    Ring(u64),
    /// Recompute every row from base + history and swap them in (recompute `--write`).
    Recompute,
    /// redb's page check and the fold invariant (makes every commit durable).
    Check,
    /// Close and reopen (open windows are abandoned).
    Reopen,
    /// Close.
    Close,
}

/// A random session step (resolutions, records and reads).
fn random_step(rng: &mut Rng) -> Step {
    let workspace = rng.below(WORKSPACES.len() as u64) as usize;
    let family = rng.below(FAMILIES.len() as u64) as usize;
    let pick = rng.below(8) as usize;
    match rng.below(20) {
        0..=5 => Step::Pending { workspace, family },
        6..=8 => Step::Silent { workspace, family },
        9..=11 => Step::Accept {
            pick,
            companion: rng.below(COMPANIONS.len() as u64) as usize,
        },
        12..=15 => Step::Reject { pick },
        16 => Step::Abandon { pick },
        _ => Step::Read,
    }
}

fn random_steps(rng: &mut Rng, n: usize, flush_every: Option<usize>) -> Vec<Step> {
    let mut out = Vec::new();
    for i in 1..=n {
        out.push(random_step(rng));
        if flush_every.is_some_and(|k| i % k == 0) {
            out.push(Step::Flush);
        }
    }
    out
}

/// The session that writes the version-1 file the workload starts from: some history past
/// the ring, and open windows for the upgrade's open to abandon.
pub fn setup_script(rng: &mut Rng) -> Vec<Step> {
    let mut s = vec![Step::Open];
    s.extend(random_steps(rng, 16, None));
    s.push(Step::Pending {
        workspace: 0,
        family: 0,
    });
    s.push(Step::Pending {
        workspace: 1,
        family: 1,
    });
    s.push(Step::Close);
    s
}

/// The workload: the upgrade, immediate commits, group commits with flushes, an integrity
/// check, recompute in both modes, a ring shrink, a reopen, a ring that grows, and a close.
pub fn workload_script(rng: &mut Rng) -> Vec<Step> {
    let mut s = vec![Step::Open];
    s.extend(random_steps(rng, 18, None));
    s.push(Step::Durability(Durability::Group));
    s.extend(random_steps(rng, 24, Some(7)));
    s.push(Step::Check);
    s.extend(random_steps(rng, 4, None));
    s.push(Step::Recompute);
    s.push(Step::Flush);
    s.push(Step::Durability(Durability::Immediate));
    s.push(Step::Recompute);
    s.push(Step::Ring(SMALL_RING));
    s.extend(random_steps(rng, 10, None));
    s.push(Step::Reopen);
    s.extend(random_steps(rng, 8, None));
    // A larger ring lets the history grow past what the file held, so the storage must grow
    // (group commits wait in memory and no longer grow the file by themselves).
    s.push(Step::Ring(GROWN_RING));
    s.extend(random_steps(rng, 120, None));
    s.push(Step::Close);
    s
}

/// What the store should hold: counters, live rows, open windows, and every history entry.
#[derive(Clone, Debug, Default)]
pub struct Model {
    pub marks: SeqMarks,
    pub rates: BTreeMap<RateKey, RateRow>,
    pub pending: BTreeMap<u64, Decision>,
    /// Every history entry ever made; entry `i` has resolution number `i + 1`.
    pub history: Vec<HistoryEntry>,
}

impl Model {
    pub fn record_pending(&mut self, mut d: Decision) -> u64 {
        self.marks.decision_seq += 1;
        d.seq = self.marks.decision_seq;
        self.pending.insert(d.seq, d);
        self.marks.decision_seq
    }

    pub fn record_silent(&mut self, mut d: Decision) -> u64 {
        self.marks.decision_seq += 1;
        self.marks.resolution_seq += 1;
        d.seq = self.marks.decision_seq;
        d.outcome = Outcome::Silent;
        d.accepted = None;
        d.silence = Some(SilenceReason::LowConfidence);
        self.history.push(HistoryEntry {
            resolution_seq: self.marks.resolution_seq,
            decision: d,
            moves: vec![],
        });
        self.marks.decision_seq
    }

    pub fn resolve(&mut self, r: &Resolution) {
        let mut d = self
            .pending
            .remove(&r.decision_seq)
            .expect("a modelled window");
        self.marks.resolution_seq += 1;
        d.outcome = r.outcome;
        d.accepted = r.accepted.clone();
        for mv in &r.moves {
            let row = self.rates.entry(mv.key.clone()).or_default();
            *row = row.apply(mv);
        }
        self.history.push(HistoryEntry {
            resolution_seq: self.marks.resolution_seq,
            decision: d,
            moves: r.moves.clone(),
        });
    }

    /// What opening does: every open window closes as abandoned, oldest first.
    pub fn abandon_all(&mut self) -> usize {
        let seqs: Vec<u64> = self.pending.keys().copied().collect();
        for &seq in &seqs {
            let d = self.pending[&seq].clone();
            self.resolve(&resolution(&d, Outcome::Abandoned, None));
        }
        seqs.len()
    }
}

/// The model's state after one step (the history is the model's prefix up to `marks`).
#[derive(Clone, Debug)]
pub struct Logged {
    pub marks: SeqMarks,
    pub rates: BTreeMap<RateKey, RateRow>,
    pub pending: Vec<Decision>,
}

/// A session run against a store, with what it acknowledged.
pub struct Runner<'a> {
    pub options: StoreOptions,
    pub plan: &'a Plan<'a>,
    pub store: Option<RedbStore>,
    pub model: Model,
    /// The model's state after every step that may have reached the disk, oldest first.
    pub log: Vec<Logged>,
    /// The store's last durable marks, as it reported them after its last successful step.
    pub acked: SeqMarks,
    /// Index in `log` of the state after the last step that succeeded.
    pub committed: usize,
    /// The decisions the session holds open, in the order it opened them.
    open: Vec<Decision>,
    /// Steps that completed.
    pub done: usize,
}

/// Why a run stopped early.
#[derive(Debug)]
pub enum Stop {
    /// The store answered an error (a host would switch to memory here).
    Failed(String),
    /// The store panicked.
    Panicked(String),
}

impl<'a> Runner<'a> {
    /// A runner starting from `model` (what the file holds, all of it durable).
    pub fn new(options: StoreOptions, plan: &'a Plan<'a>, model: Model) -> Self {
        let mut runner = Runner {
            options,
            plan,
            store: None,
            acked: model.marks,
            model,
            log: Vec::new(),
            committed: 0,
            open: Vec::new(),
            done: 0,
        };
        runner.log_state();
        runner
    }

    fn log_state(&mut self) {
        self.log.push(Logged {
            marks: self.model.marks,
            rates: self.model.rates.clone(),
            pending: self.model.pending.values().cloned().collect(),
        });
    }

    fn store(&mut self) -> &mut RedbStore {
        self.store
            .as_mut()
            .expect("the script opens the store first")
    }

    fn pick(&mut self, i: usize) -> Option<Decision> {
        if self.open.is_empty() {
            None
        } else {
            let n = i % self.open.len();
            Some(self.open.remove(n))
        }
    }

    /// Runs `steps` until one fails; the model is advanced before each step, so the log's
    /// last state is the one the failing step would have committed.
    pub fn run(&mut self, steps: &[Step]) -> Result<(), Stop> {
        for step in steps {
            let outcome =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.step(step)));
            match outcome {
                Ok(Ok(())) => {
                    if let Some(store) = &self.store {
                        self.acked = store.last_durable();
                    }
                    self.committed = self.log.len() - 1;
                    self.done += 1;
                }
                Ok(Err(e)) => return Err(Stop::Failed(e.to_string())),
                Err(payload) => {
                    let msg = payload
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_default();
                    return Err(Stop::Panicked(msg));
                }
            }
        }
        Ok(())
    }

    fn step(&mut self, step: &Step) -> Result<(), StoreError> {
        match *step {
            Step::Open => {
                // The upgrade commits first (same marks), then the abandon of open windows.
                self.model.abandon_all();
                self.open.clear();
                self.open_store_logged()?;
            }
            Step::Pending { workspace, family } => {
                let d = decision(WORKSPACES[workspace], FAMILIES[family]);
                let mut expected = d.clone();
                expected.seq = self.model.record_pending(d.clone());
                self.log_state();
                let seq = self.store().record_pending(d)?;
                assert_eq!(
                    seq, expected.seq,
                    "the store numbers decisions like the model"
                );
                self.open.push(expected);
            }
            Step::Silent { workspace, family } => {
                let mut d = decision(WORKSPACES[workspace], FAMILIES[family]);
                d.outcome = Outcome::Silent;
                d.silence = Some(SilenceReason::LowConfidence);
                let expected = self.model.record_silent(d.clone());
                self.log_state();
                let seq = self.store().record_silent(d)?;
                assert_eq!(seq, expected, "the store numbers silences like the model");
            }
            Step::Accept { pick, companion } => {
                if let Some(d) = self.pick(pick) {
                    let r = resolution(&d, Outcome::Accepted, Some(COMPANIONS[companion]));
                    self.resolve(r)?;
                }
            }
            Step::Reject { pick } => {
                if let Some(d) = self.pick(pick) {
                    self.resolve(resolution(&d, Outcome::Rejected, None))?;
                }
            }
            Step::Abandon { pick } => {
                if let Some(d) = self.pick(pick) {
                    self.resolve(resolution(&d, Outcome::Abandoned, None))?;
                }
            }
            Step::Read => {
                let keys: Vec<RateKey> = FAMILIES
                    .iter()
                    .map(|f| RateKey::family(WORKSPACES[0], f))
                    .collect();
                let expected: Vec<Option<RateRow>> = keys
                    .iter()
                    .map(|k| self.model.rates.get(k).copied())
                    .collect();
                let snapshot = self.store().snapshot()?;
                for (key, want) in keys.iter().zip(expected) {
                    let got = snapshot.row(key)?;
                    assert_eq!(got, want, "a snapshot reads what was committed: {key:?}");
                }
            }
            Step::Flush => {
                self.store().flush()?;
            }
            Step::Durability(mode) => {
                let config = docsuggest_schema::Config {
                    durability: mode,
                    flush_interval_ms: 3_600_000,
                    ring_capacity: self.store().ring_capacity(),
                    ..docsuggest_schema::Config::default()
                };
                self.store().apply_config(&config)?;
            }
            Step::Ring(capacity) => {
                let config = docsuggest_schema::Config {
                    durability: self.store().durability(),
                    flush_interval_ms: 3_600_000,
                    ring_capacity: capacity,
                    ..docsuggest_schema::Config::default()
                };
                self.options.ring_capacity = capacity;
                self.store().apply_config(&config)?;
            }
            Step::Recompute => {
                let done = AtomicU64::new(0);
                let options = RecomputeOptions {
                    model: docsuggest_schema::RateModel::Step,
                    parallel: false,
                };
                let recomputed = recompute::recompute(self.store(), options, &done)?;
                assert_eq!(
                    recomputed.report.rows_differing, 0,
                    "recompute reproduces the live rows"
                );
                self.store().replace_rates(&recomputed.rows)?;
            }
            Step::Check => {
                let report = self.store().check_integrity()?;
                assert!(report.is_ok(), "integrity mid-session: {report:?}");
            }
            Step::Reopen => {
                let mut store = self.store.take().expect("open");
                store.close()?;
                drop(store);
                self.model.abandon_all();
                self.open.clear();
                self.open_store_logged()?;
            }
            Step::Close => {
                let mut store = self.store.take().expect("open");
                store.close()?;
                self.acked = store.last_durable();
            }
        }
        Ok(())
    }

    /// Opens the store; the model has already abandoned the open windows. The state before
    /// (which an upgrade commits first, with the same marks) is already logged.
    fn open_store_logged(&mut self) -> Result<(), StoreError> {
        self.log_state();
        self.store = Some(RedbStore::open_with_plan(self.options.clone(), self.plan)?);
        Ok(())
    }

    fn resolve(&mut self, r: Resolution) -> Result<(), StoreError> {
        self.model.resolve(&r);
        self.log_state();
        self.store().resolve(r)
    }
}

/// Options for a store named `path` on `factory`'s storage, group commits flushed only when
/// asked (so runs are deterministic).
pub fn options(
    path: &Path,
    factory: Option<docsuggest_store::BackendFactory>,
    ring: u64,
) -> StoreOptions {
    StoreOptions {
        ring_capacity: ring,
        flush_interval: Duration::from_secs(3600),
        durability: Durability::Immediate,
        backend: factory,
        ..StoreOptions::new(path)
    }
}
