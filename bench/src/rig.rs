//! A benchmark rig: the sample workspace, a filled store of one backend, and one engine over
//! them, with the scenarios the benchmarks time.
//!
//! One engine per filled store: scenarios are switched with `Engine::configure` (every config
//! field is volatile) and each uses its own agent, so filling a store once serves every
//! scenario and both probes.

use crate::fill::{self, FillReport};
use crate::fixture::{PLAN, PLAN_COMPANION, SOURCE, Workspace};
use crate::probe::{ProbeMode, ProbeSwitch, SwitchProbe};
#[cfg(feature = "sqlite")]
use crate::sqlite::{SqliteOptions, SqliteStore};
use docsuggest_engine::{BoxedStore, Call, Engine, Verdict};
use docsuggest_schema::{Config, Durability};
use docsuggest_store::{FailOpenStore, MemoryStore, RedbStore, StoreOptions};
use serde_json::json;
use std::collections::HashMap;
use std::error::Error;

/// What a rig operation answers.
pub type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// The store under the engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// `MemoryStore`, bounded high enough to hold every filled row.
    Memory,
    /// `RedbStore`, opened directly.
    Redb,
    /// [`SqliteStore`]: the same traits over SQLite in WAL mode.
    Sqlite,
    /// `FailOpenStore` over redb: the wrapper the host actually holds.
    FailOpenRedb,
}

impl Backend {
    /// The stores compared side by side (SQLite with the `sqlite` feature).
    pub const COMPARED: &'static [Backend] = &[
        Backend::Memory,
        Backend::Redb,
        #[cfg(feature = "sqlite")]
        Backend::Sqlite,
    ];

    /// The name used in figures.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Memory => "memory",
            Backend::Redb => "redb",
            Backend::Sqlite => "sqlite",
            Backend::FailOpenRedb => "failopen-redb",
        }
    }

    /// Whether commits can reach a disk (durability modes mean something).
    pub fn is_durable(self) -> bool {
        self != Backend::Memory
    }
}

/// What one timed call does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scenario {
    /// A read of a source file in the workspace: located, no family (`abstained no-signal`).
    NonMatching,
    /// A Plan read that passes the gate with all four companions and reads its five rates
    /// through one snapshot, then is suppressed because the same note was already emitted this
    /// turn (`suppressed dedupe`): the full decision, with nothing recorded and no window.
    Noted,
    /// A Plan read under `threshold=0.95`: `abstained low-confidence`. A gated silence is a
    /// decision: it is recorded with a shadow window, and the shadow opened three calls earlier
    /// closes as `silent` (two commits per call).
    Silence,
    /// A Plan read that emits its note and records it (`learn=true`): one commit. The agent's
    /// turn is reset before each call, outside the timing.
    Recording,
    /// A Plan read that emits its note with `learn=false`: the PoC's behaviour, no rate read,
    /// nothing recorded. The turn is reset before each call, outside the timing.
    NotedLearnOff,
}

impl Scenario {
    /// The calls of the judge matrix.
    pub const JUDGE: [Scenario; 3] = [Scenario::NonMatching, Scenario::Noted, Scenario::Silence];

    /// The name used in figures.
    pub fn name(self) -> &'static str {
        match self {
            Scenario::NonMatching => "non-matching",
            Scenario::Noted => "noted",
            Scenario::Silence => "silence",
            Scenario::Recording => "recording",
            Scenario::NotedLearnOff => "noted-learn-off",
        }
    }

    fn agent(self) -> &'static str {
        match self {
            Scenario::NonMatching => "x",
            Scenario::Noted => "n",
            Scenario::Silence => "s",
            Scenario::Recording => "r",
            Scenario::NotedLearnOff => "p",
        }
    }

    fn target(self) -> &'static str {
        match self {
            Scenario::NonMatching => SOURCE,
            _ => PLAN,
        }
    }

    fn patch(self, durability: Durability) -> serde_json::Value {
        let threshold = if self == Scenario::Silence {
            0.95
        } else {
            0.75
        };
        let durability = match durability {
            Durability::Immediate => "immediate",
            Durability::Group => "group",
        };
        json!({
            "learn": self != Scenario::NotedLearnOff,
            "threshold": threshold,
            "durability": durability,
        })
    }

    /// Whether the agent's turn is reset before every call (outside the timing).
    fn resets_turn(self) -> bool {
        matches!(self, Scenario::Recording | Scenario::NotedLearnOff)
    }

    /// Whether a steady-state verdict is the one this scenario means to time.
    fn expects(self, verdict: &Verdict) -> bool {
        let first = verdict.ledger.first_line().unwrap_or("");
        match self {
            Scenario::NonMatching => first == "doc-suggester: abstained no-signal 0.00",
            Scenario::Noted => {
                verdict.note.is_none() && first.starts_with("doc-suggester: suppressed dedupe Plan")
            }
            // Under the evidence model the silenced companions are soon left out, so the
            // steady state may open with their `left-out` line.
            Scenario::Silence => {
                verdict.note.is_none()
                    && verdict
                        .ledger
                        .iter()
                        .any(|l| l.starts_with("doc-suggester: abstained low-confidence Plan"))
            }
            Scenario::Recording | Scenario::NotedLearnOff => verdict
                .note
                .as_ref()
                .is_some_and(|n| n.companions.len() == 4),
        }
    }
}

/// The engine's config for a rig: `group` durability, a memory bound that holds every row,
/// and no ledger file. The scenarios share one store, so they run under the `step` rule,
/// whose silences move no rate: under the evidence model the silence scenario's shadow misses
/// would leave the Plan companions out of every later scenario's note.
pub fn base_config(rows: u64) -> Result<Config> {
    let limit = rows.saturating_add(65_536);
    Ok(Config::default().patched(
        &json!({"log": false, "durability": "group", "storeLimit": limit, "rateModel": "step"}),
        "bench",
    )?)
}

/// A sample workspace, a store filled with `rows` other rows, and an engine over them.
pub struct Rig {
    backend: Backend,
    fill: FillReport,
    engine: Engine<SwitchProbe>,
    switch: ProbeSwitch,
    workspace: Workspace,
    key: String,
    /// Each scenario's call, built once: a host hands the engine a decoded call, so building
    /// one is not part of what a judged call costs.
    calls: HashMap<Scenario, Call>,
    /// The learning cycle's two calls: a Plan read and its first companion's read.
    cycle: [Call; 2],
    _store_dir: tempfile::TempDir,
}

impl Rig {
    /// Creates the workspace, opens and fills a store of `backend` with the hot set and `rows`
    /// other keys, and builds the engine.
    pub fn new(backend: Backend, rows: u64) -> Result<Rig> {
        let workspace = Workspace::create()?;
        let key = docsuggest_engine::locate::workspace_key(workspace.root());
        let config = base_config(rows)?;
        let store_dir = tempfile::tempdir()?;
        let (store, fill): (BoxedStore, FillReport) = match backend {
            Backend::Memory => {
                let mut s = MemoryStore::new(config.store_limit);
                let report = fill::fill(&mut s, &key, rows)?;
                (Box::new(s), report)
            }
            Backend::Redb => {
                let options = StoreOptions::from_config(store_dir.path().join("s.redb"), &config);
                let mut s = RedbStore::open(options)?;
                let report = fill::fill(&mut s, &key, rows)?;
                (Box::new(s), report)
            }
            #[cfg(feature = "sqlite")]
            Backend::Sqlite => {
                let options =
                    SqliteOptions::from_config(store_dir.path().join("s.sqlite"), &config);
                let mut s = SqliteStore::open(options)?;
                let report = fill::fill(&mut s, &key, rows)?;
                (Box::new(s), report)
            }
            #[cfg(not(feature = "sqlite"))]
            Backend::Sqlite => {
                return Err(
                    "the SQLite store is compared only in a build with the bench's \
                            `sqlite` feature (cargo run -p docsuggest-bench --features sqlite …)"
                        .into(),
                );
            }
            Backend::FailOpenRedb => {
                let options = StoreOptions::from_config(store_dir.path().join("s.redb"), &config);
                let mut s = FailOpenStore::open(options, config.store_limit);
                if let Some(reason) = docsuggest_schema::DecisionStore::take_degradation(&mut s) {
                    return Err(format!("the redb store did not open: {reason}").into());
                }
                let report = fill::fill(&mut s, &key, rows)?;
                (Box::new(s), report)
            }
        };
        let (probe, switch) = SwitchProbe::new(ProbeMode::Caching);
        let mut engine = Engine::new(config, store, probe);
        let located = engine.workspace_key_of(workspace.root());
        if located.as_deref() != Some(key.as_str()) {
            return Err(format!("the engine keys the workspace as {located:?}, not {key}").into());
        }
        let cycle = [
            workspace.call("c", PLAN),
            workspace.call("c", PLAN_COMPANION),
        ];
        Ok(Rig {
            backend,
            fill,
            engine,
            switch,
            workspace,
            key,
            calls: HashMap::new(),
            cycle,
            _store_dir: store_dir,
        })
    }

    /// The backend.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// What the fill did.
    pub fn fill_report(&self) -> FillReport {
        self.fill
    }

    /// The sample workspace's key (the hot set's workspace).
    pub fn workspace_key(&self) -> &str {
        &self.key
    }

    /// The engine, for store-level measurements.
    pub fn engine(&self) -> &Engine<SwitchProbe> {
        &self.engine
    }

    /// Sets up `scenario` with `probe` and `durability` and brings it to its steady state;
    /// fails when the steady-state verdict is not the one the scenario means to time.
    pub fn prepare(
        &mut self,
        scenario: Scenario,
        probe: ProbeMode,
        durability: Durability,
    ) -> Result<()> {
        self.switch.set(probe);
        self.engine.configure(&scenario.patch(durability))?;
        self.engine.turn(scenario.agent());
        // Past the note's window (3 calls) and cooldown (6 calls) the Plan note is deduped;
        // past three silences a shadow closes on every call.
        for _ in 0..12 {
            self.before(scenario);
            self.call(scenario)?;
        }
        self.before(scenario);
        let verdict = self.call(scenario)?;
        if !scenario.expects(&verdict) {
            return Err(format!(
                "{} on {}: unexpected steady state {:?}",
                scenario.name(),
                self.backend.name(),
                verdict.ledger
            )
            .into());
        }
        // Nothing of the preparation waits for a commit (under `group` a store keeps waiting
        // writes in memory): a timed call that records nothing reads every rate from redb,
        // not from the rows a waiting resolution left.
        self.engine.flush()?;
        Ok(())
    }

    /// The untimed step before each timed call (a turn reset for the scenarios that emit).
    pub fn before(&mut self, scenario: Scenario) {
        if scenario.resets_turn() {
            self.engine.turn(scenario.agent());
        }
    }

    /// One timed call.
    pub fn call(&mut self, scenario: Scenario) -> Result<Verdict> {
        let call = self
            .calls
            .entry(scenario)
            .or_insert_with(|| self.workspace.call(scenario.agent(), scenario.target()));
        Ok(self.engine.judge(call)?)
    }

    /// Sets up [`Rig::learning_cycle`]: learning on, the default gate, `probe` and `durability`.
    pub fn prepare_cycle(&mut self, probe: ProbeMode, durability: Durability) -> Result<()> {
        self.switch.set(probe);
        self.engine
            .configure(&Scenario::Recording.patch(durability))?;
        for _ in 0..3 {
            self.learning_cycle()?;
        }
        Ok(())
    }

    /// One cycle of sustained learning by agent `c`: a turn reset (closing the last cycle's
    /// shadow window as abandoned), a Plan read that emits and records a note, and a read of
    /// its first companion that accepts it (a resolution with two moves) and is itself judged
    /// (an Index-family gated silence, recorded). Answers the decisions it recorded.
    pub fn learning_cycle(&mut self) -> Result<u64> {
        let before = self.decisions();
        self.engine.turn("c");
        let [plan, companion] = &self.cycle;
        self.engine.judge(plan)?;
        self.engine.judge(companion)?;
        Ok(self.decisions() - before)
    }

    /// Decisions recorded so far: notes and gated silences.
    pub fn decisions(&self) -> u64 {
        let stats = self.engine.stats();
        let silences: u64 = ["low-confidence", "already-touched"]
            .iter()
            .filter_map(|r| stats.abstained.get(*r))
            .sum();
        stats.notes + silences
    }

    /// Flushes the store (so a durability switch starts clean).
    pub fn flush(&mut self) -> Result<u64> {
        Ok(self.engine.flush()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::DecisionStore;
    use docsuggest_store::check_fold;

    /// Every scenario reaches the steady state it times, on every backend and with both
    /// probes, and the filled rows are all there and fold from history.
    #[test]
    fn every_scenario_reaches_its_steady_state() {
        let backends = [
            Backend::Memory,
            Backend::Redb,
            #[cfg(feature = "sqlite")]
            Backend::Sqlite,
            Backend::FailOpenRedb,
        ];
        let scenarios = [
            Scenario::NonMatching,
            Scenario::Noted,
            Scenario::Silence,
            Scenario::Recording,
            Scenario::NotedLearnOff,
        ];
        for backend in backends {
            let mut rig = Rig::new(backend, 1_000).expect("rig");
            assert_eq!(rig.fill_report().rows, 1_005);
            // `RedbStore` answers no contents through the engine's trait object.
            if let Some(contents) = rig.engine().store().contents() {
                assert_eq!(contents.rate_rows().expect("rows").len(), 1_005);
                assert!(check_fold(contents).expect("fold").is_clean());
            }
            for durability in [Durability::Group, Durability::Immediate] {
                for probe in [ProbeMode::Os, ProbeMode::Caching, ProbeMode::Frozen] {
                    for scenario in scenarios {
                        rig.prepare(scenario, probe, durability)
                            .unwrap_or_else(|e| panic!("{}: {e}", backend.name()));
                    }
                }
            }
            rig.prepare_cycle(ProbeMode::Caching, Durability::Group)
                .expect("cycle");
            assert_eq!(rig.learning_cycle().expect("cycle"), 2);
            let store: &dyn DecisionStore = rig.engine().store();
            let hot = &fill::hot_keys(rig.workspace_key())[1];
            let row = store.snapshot().expect("snapshot").row(hot).expect("read");
            assert!(row.is_some_and(|r| r.accepts == 5), "{row:?}");
        }
    }
}
