//! The engine: config, packs, per-agent state and a store, wired around the pure pipeline.
//! This file holds its lifecycle (setup, boundaries, turns, config changes, closing);
//! one call's way through it, from scene to writes, is `judging.rs`.

mod judging;

use crate::agent::{AgentState, Window};
use crate::agents::Agents;
use crate::call_ledger::{Entry, Ledger};
use crate::follow::FollowView;
use crate::identity::{KeySource, RepoIdentifier};
use crate::judge::{self, Claim};
use crate::line_format;
use crate::locate::PackCache;
use crate::mined::{MinedPacks, PackMiner};
use crate::note::Note;
use crate::paths::{self, CallError};
use crate::probe::{FileProbe, OsProbe};
use crate::scene::Scenes;
use crate::stats::Stats;
use docsuggest_schema::{Config, ConfigError, DecisionStore, Resolution, StoreError};
use std::path::Path;

/// The engine's version, as the activation line names it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// One tool call of an agent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// The agent that made the call.
    pub agent: String,
    /// The tool (`read`, `grep`, …).
    pub tool: String,
    /// The path or pattern the call names.
    pub path: String,
    /// The directory a relative path is resolved against.
    pub cwd: Option<String>,
}

/// The engine's answer to one call.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict {
    /// At most one note.
    pub note: Option<Note>,
    /// The ledger lines this call produced.
    pub ledger: Ledger,
    /// Problems a person should fix that did not stop the call (a malformed repo pack).
    pub warnings: Vec<String>,
    /// A change boundary's claims: one per companion the note names, in its order (empty off
    /// boundaries).
    pub claims: Vec<Claim>,
}

/// What a change-boundary check said ([`Engine::boundary`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoundaryVerdict {
    /// The notes, each with the index of the change's file it was given for and its claims.
    pub notes: Vec<(usize, Note, Vec<Claim>)>,
    /// The ledger lines: what the previous boundary's notes came to, then the new notes'.
    pub ledger: Ledger,
    /// Problems a person should fix that did not stop the check.
    pub warnings: Vec<String>,
}

/// Whether a call is judged ([`Engine::judge`]), only looked at ([`Engine::peek`]), or part
/// of a change-boundary check ([`Engine::boundary`]): a file of the change that settles the
/// previous boundary's notes (`Settle`: followed, never aged out, nothing decided) or that
/// the boundary names companions for (`Boundary`: decided, nothing followed).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Judge,
    Peek,
    Settle,
    Boundary,
    /// A peek decided as a boundary decides ([`Engine::peek_boundary`]).
    BoundaryPeek,
}

impl Mode {
    /// Whether the call keeps nothing: no record, no window, no stat, no agent.
    fn is_peek(self) -> bool {
        matches!(self, Mode::Peek | Mode::BoundaryPeek)
    }

    /// Whether the call is a change boundary's: every file of the change is judged whatever
    /// tool the config judges, with no cooldown or cap, each companion a claim of its own.
    fn is_boundary(self) -> bool {
        matches!(self, Mode::Settle | Mode::Boundary | Mode::BoundaryPeek)
    }
}

/// A store boxed for the engine; any [`DecisionStore`] that can move between threads.
pub type BoxedStore = Box<dyn DecisionStore + Send>;

/// The doc-companion suggester.
pub struct Engine<P: FileProbe = OsProbe> {
    config: Config,
    weights: docsuggest_schema::Table,
    /// `weights` as every `decided` line writes them.
    weights_text: String,
    /// What each judge step reads of the config.
    views: crate::judge::Views,
    packs: PackCache,
    agents: Agents,
    store: BoxedStore,
    probe: P,
    stats: Stats,
    /// What the disk said about recent call paths, while the probe vouches for it.
    scenes: Scenes,
    /// The call path, resolved in place (a judged call allocates no path of its own).
    path: String,
    /// The host's pack miner and what it mined, for git work trees with no pack
    /// (zero-config); `None` until the host sets one.
    mined: Option<MinedPacks>,
    /// Git work trees whose pack could not be had, and why (the miner's reason, or the mined
    /// pack's load error), for `stats`; at most `MAX_MINED_ROOTS`.
    unmined: std::collections::BTreeMap<String, String>,
}

impl<P: FileProbe> Engine<P> {
    /// An engine over `store`, reading files through `probe`. The startup ledger (activation
    /// or `disabled`, and any store degradation) is answered by [`Engine::startup`].
    pub fn new(config: Config, store: BoxedStore, probe: P) -> Engine<P> {
        let mut store = store;
        store.configure(&config);
        let weights = config.effective_weights();
        Engine {
            weights_text: line_format::table_text(&weights),
            views: crate::judge::Views::of(&config),
            weights,
            config,
            packs: PackCache::default(),
            agents: Agents::default(),
            store,
            probe,
            stats: Stats::default(),
            scenes: Scenes::default(),
            path: String::new(),
            mined: None,
            unmined: std::collections::BTreeMap::new(),
        }
    }

    /// Plugs in the host's pack miner: from now on, while `zeroConfig` is on, a call in a git
    /// work tree that has neither a pack signature nor a pack file is judged with the pack
    /// mined from its history (see [`crate::mined`]). Without a miner such a call is
    /// `foreign-workspace`. Setting another miner forgets what the previous one answered.
    pub fn set_pack_miner(&mut self, miner: Box<dyn PackMiner + Send>) {
        self.mined = Some(MinedPacks::new(miner));
        self.packs.clear_mined();
        self.packs.set_zero_config(self.config.zero_config);
        // A path found foreign before may now lie in a zero-config workspace.
        self.scenes.clear();
    }

    /// The lines of the engine's start: `activated (…)` or `disabled (…)`, then any store
    /// degradation.
    pub fn startup(&mut self) -> Vec<String> {
        let mut lines = vec![self.activation_line()];
        lines.extend(self.degradation_line().map(String::from));
        lines
    }

    fn activation_line(&self) -> String {
        if self.config.enabled {
            let families = self.packs.builtin().families.len();
            line_format::activated(VERSION, families, self.config.threshold)
        } else {
            line_format::disabled()
        }
    }

    /// The config in force.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// What the engine decided so far.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// The git work trees (by root) the engine could get no pack for, and why: a mining job
    /// that failed or panicked, a mined pack that does not load. A host shows it beside the
    /// counts, so a silent repository is never silent without a reason.
    pub fn unmined(&self) -> &std::collections::BTreeMap<String, String> {
        &self.unmined
    }

    /// The store.
    pub fn store(&self) -> &dyn DecisionStore {
        self.store.as_ref()
    }

    /// Judges one call.
    pub fn judge(&mut self, call: &Call) -> Result<Verdict, CallError> {
        self.judge_as(call, Mode::Judge)
    }

    /// Judges `call` as the agent's next call would be judged, without making it: the same
    /// scene, pack, rates (one snapshot) and gates, on a copy of the agent's state (a fresh
    /// one for an agent never seen), so its cooldown, dedupe and cap apply. Nothing is kept:
    /// no decision is recorded, no window opens or closes, no stat counts, the agent is not
    /// remembered and a store degradation is left for the next judged call to report. The
    /// verdict's ledger is the lines the call would write. What a peek may still start is the
    /// host's, not learning: zero-config mining of a work tree without a pack.
    pub fn peek(&mut self, call: &Call) -> Result<Verdict, CallError> {
        self.judge_as(call, Mode::Peek)
    }

    /// A [`peek`](Engine::peek) decided as a change boundary decides its notes
    /// ([`boundary`](Engine::boundary)): no cooldown or cap, and each companion named must
    /// itself be followed at least `followThreshold` of the time where the store has seen it.
    /// What `check-change` lists when it learns nothing. Nothing is kept.
    pub fn peek_boundary(&mut self, call: &Call) -> Result<Verdict, CallError> {
        self.judge_as(call, Mode::BoundaryPeek)
    }

    /// A change-boundary check of `agent` (an agent the host keeps for boundaries only) over
    /// the change's files `paths`, resolved against `cwd`.
    ///
    /// First what the agent's previous boundary named is settled against the change as it
    /// stands now: each named companion the change holds is an accept, each it lacks a
    /// reject (the evidence model's observations, recorded like a note's, in each companion's
    /// boundary row: the family's notes on edits do not read them). Then, with
    /// `name`, each file of the change is decided as a call would be — every file of the
    /// change counts as touched, no cooldown or cap applies — and each note names what the
    /// change lacks; the notes are recorded and settled at the agent's next boundary.
    /// Without the evidence model (`learn: false`, `rateModel: step`) nothing is recorded.
    pub fn boundary(
        &mut self,
        agent: &str,
        cwd: Option<&str>,
        paths: &[String],
        name: bool,
    ) -> Result<BoundaryVerdict, CallError> {
        paths::check_field("agent", agent)?;
        let call = |path: &String| Call {
            agent: agent.to_string(),
            tool: "edit".to_string(),
            path: path.clone(),
            cwd: cwd.map(str::to_string),
        };
        let mut out = BoundaryVerdict::default();
        let take = |out: &mut BoundaryVerdict, verdict: Verdict, at: usize| {
            out.ledger.append(verdict.ledger);
            for w in verdict.warnings {
                if !out.warnings.contains(&w) {
                    out.warnings.push(w);
                }
            }
            let claims = verdict.claims;
            out.notes.extend(verdict.note.map(|n| (at, n, claims)));
        };
        let settling = self.agents.get(agent).is_some();
        if settling {
            for path in paths {
                let verdict = self.judge_as(&call(path), Mode::Settle)?;
                take(&mut out, verdict, usize::MAX);
            }
            let verdict = self.turn(agent);
            take(&mut out, verdict, usize::MAX);
        }
        if name {
            // Every file of the change is touched before any is decided.
            for path in paths {
                self.judge_as(&call(path), Mode::Settle)?;
            }
            for (at, path) in paths.iter().enumerate() {
                let verdict = self.judge_as(&call(path), Mode::Boundary)?;
                take(&mut out, verdict, at);
            }
        }
        Ok(out)
    }

    /// The per-turn reset of one agent: its open window closes as abandoned.
    pub fn turn(&mut self, agent: &str) -> Verdict {
        let mut verdict = Verdict::default();
        let windows = self
            .agents
            .get_mut(agent)
            .map(AgentState::reset_turn)
            .unwrap_or_default();
        // The turn ends the task the windows watched: an evidence window closes on what it
        // saw, its untouched companions missed; any other window is abandoned.
        let (ended, cut): (Vec<Window>, Vec<Window>) =
            windows.into_iter().partition(|w| w.evidence);
        for window in ended {
            let resolution = judge::close_with_evidence(
                window,
                FollowView::of(&self.config),
                &mut verdict.ledger,
            );
            resolve(self.store.as_mut(), resolution);
        }
        self.abandon(cut);
        self.stats.observe_all(&verdict.ledger);
        verdict.ledger.extend(self.degradation_line());
        verdict
    }

    /// Applies a config patch as a whole, or changes nothing and names every problem.
    /// Answers the ledger lines the change produced (a new activation line when `enabled`
    /// or `threshold` changed).
    pub fn configure(&mut self, patch: &serde_json::Value) -> Result<Vec<String>, ConfigError> {
        let next = self.config.patched(patch, "configure")?;
        let announce =
            next.enabled != self.config.enabled || next.threshold != self.config.threshold;
        let stop_learning = self.config.learn && !next.learn;
        self.store.configure(&next);
        // A scene depends on `exclude` and `zeroConfig`: read every path afresh under the new
        // config.
        self.scenes.clear();
        self.packs
            .set_zero_config(self.mined.is_some() && next.zero_config);
        self.weights = next.effective_weights();
        self.weights_text = line_format::table_text(&self.weights);
        self.views = crate::judge::Views::of(&next);
        self.config = next;
        let mut lines = Vec::new();
        if announce {
            lines.push(self.activation_line());
        }
        if stop_learning {
            // Nothing moves while learning is off: open windows close without a verdict.
            self.abandon_all();
        }
        lines.extend(self.degradation_line().map(String::from));
        Ok(lines)
    }

    /// Makes every commit so far durable; answers the last durable sequence number.
    pub fn flush(&mut self) -> Result<u64, StoreError> {
        self.store.flush()
    }

    /// Closes every open window as abandoned and closes the store.
    pub fn close(&mut self) -> Result<u64, StoreError> {
        self.abandon_all();
        self.store.close()
    }

    fn abandon_all(&mut self) {
        let windows: Vec<Window> = self
            .agents
            .states_mut()
            .flat_map(AgentState::take_windows)
            .collect();
        self.abandon(windows);
    }

    /// Closes windows cut short (turn reset, close, eviction, learning switched off): without a
    /// verdict, or with the hits an evidence window already saw. Only note windows count as
    /// abandoned notes.
    fn abandon(&mut self, windows: Vec<Window>) {
        for window in windows {
            let note = !window.observe_only;
            let resolution = judge::cut_short(window, FollowView::of(&self.config));
            if note && resolution.outcome == docsuggest_schema::Outcome::Abandoned {
                self.stats.abandoned += 1;
            }
            resolve(self.store.as_mut(), resolution);
        }
    }

    /// `store unavailable (…)`, once, when the store fell back to memory since it was last asked.
    fn degradation_line(&mut self) -> Option<Entry> {
        let reason = self.store.take_degradation()?;
        Some(line_format::store_unavailable(&reason))
    }

    /// Whether `path` (absolute) lies in a workspace, and its key.
    pub fn workspace_key_of(&mut self, path: &Path) -> Option<String> {
        self.workspace_of(path).map(|(key, _)| key)
    }

    /// Whether `path` (absolute) lies in a workspace, its key and how the key was derived.
    pub fn workspace_of(&mut self, path: &Path) -> Option<(String, KeySource)> {
        let mut warnings = Vec::new();
        self.packs
            .locate(path, &self.probe, &mut warnings)
            .map(|w| (w.key, w.key_source))
    }

    /// Keys workspaces inside a git repository by the repository's identity, found by
    /// `identifier`, so clones at other paths and on other machines share their keys
    /// (`None`, the default: every workspace by its path). Set it before the first call: a
    /// key that changes later leaves the rows learned under the old one behind.
    pub fn set_repo_identifier(&mut self, identifier: Option<Box<dyn RepoIdentifier>>) {
        self.packs.set_repo_identifier(identifier);
        self.scenes.clear();
    }
}

fn resolve(store: &mut (dyn DecisionStore + Send), resolution: Resolution) {
    let seq = resolution.decision_seq;
    if let Err(e) = store.resolve(resolution) {
        tracing::error!(error = %e, decision = seq, "resolving a decision failed");
    }
}

#[cfg(test)]
mod claim_tests;
#[cfg(test)]
mod tests;
