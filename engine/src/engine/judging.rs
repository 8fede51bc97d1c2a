//! One call through the engine: its scene (read with the pack its workspace is judged with),
//! the agent's state, the follow-through of the agent's open notes, the decision, and the
//! writes it intends, applied to the store and the agent.

use super::{Call, Engine, Mode, Verdict, resolve};
use crate::agent::{AgentState, MAX_EVIDENCE_WINDOWS, MAX_SHADOWS};
use crate::call_ledger::Ledger;
use crate::follow::FollowView;
use crate::judge;
use crate::line_format::Abstain;
use crate::locate::Workspace;
use crate::mined::Resolved;
use crate::paths::{self, CallError};
use crate::pipeline::{Effects, Located, Record, Settings};
use crate::probe::FileProbe;
use crate::scene::Scene;
use docsuggest_schema::{Config, RateModel, Resolution};
use std::path::Path;
use std::sync::Arc;

impl<P: FileProbe> Engine<P> {
    /// Judges `call` in `mode`, its path resolved into the engine's reused path buffer.
    pub(super) fn judge_as(&mut self, call: &Call, mode: Mode) -> Result<Verdict, CallError> {
        paths::check_field("agent", &call.agent)?;
        paths::check_field("tool", &call.tool)?;
        let mut path = std::mem::take(&mut self.path);
        let verdict = paths::resolve_into(&mut path, &call.path, call.cwd.as_deref())
            .map(|()| self.judge_at(Path::new(&path), call, mode));
        self.path = path;
        verdict
    }

    /// The scene of `path`: kept from an earlier call while the probe vouches for it, else
    /// read (and kept when the probe can vouch for it from now on).
    fn scene(&mut self, path: &Path) -> Arc<Scene> {
        let before = self.probe.freshness();
        if let Some(scene) = self.scenes.get(path, before) {
            return scene;
        }
        let scene = Arc::new(Scene::read(
            path,
            &mut self.packs,
            &self.probe,
            &self.config.exclude,
            (self.config.note_style, self.config.learn),
        ));
        self.scenes.keep(&scene, before, self.probe.freshness());
        scene
    }

    /// Moves what was learned under the path keys of workspaces now keyed by their
    /// repository (an older build, or a repository with no commit yet, keyed them by path).
    fn rekey_workspaces(&mut self) {
        for (from, to) in self.packs.take_rekeys() {
            match self.store.rekey_workspace(&from, &to) {
                Ok(moved) if moved.moved() => {
                    tracing::info!(from, to, ?moved, "rows learned under the path key moved");
                }
                Ok(_) => {}
                Err(e) => tracing::warn!(from, to, error = %e, "the path key's rows stay"),
            }
        }
    }

    /// Judges `call`, its path resolved to `path`: scene, agent state, follow-through, then
    /// (unless the call only settles a boundary) the decision and its writes.
    fn judge_at(&mut self, path: &Path, call: &Call, mode: Mode) -> Verdict {
        let mut verdict = Verdict::default();
        // A boundary's files are the change's, whatever tools the config judges.
        let boundary = mode.is_boundary();
        if !self.config.enabled || !(boundary || self.config.tools.contains(&call.tool)) {
            return verdict;
        }
        self.probe.begin_call();
        let Some((scene, abstain)) = self.call_scene(path, mode, &mut verdict.warnings) else {
            return verdict;
        };
        let peek = mode.is_peek();
        // A peek works on a copy of the agent's state and keeps it nowhere.
        let mut copy: AgentState;
        let state = if peek {
            copy = self.agents.get(&call.agent).cloned().unwrap_or_default();
            &mut copy
        } else {
            self.see_agent(&call.agent);
            let Some(state) = self.agents.get_mut(&call.agent) else {
                return verdict;
            };
            state
        };
        state.calls += 1;
        let located = match abstain {
            None => Located::of(&scene),
            Some(_) => None,
        };
        let Some(located) = located else {
            let reason = abstain.unwrap_or(Abstain::ForeignWorkspace);
            // A file touched while its repository's pack is mined is still this turn's: the
            // turn's later notes do not ask for it.
            if reason == Abstain::PackMining {
                state.touch(path);
            }
            let entry = judge::lines::abstained_entry(reason, None, 0.0);
            if !peek {
                self.stats.observe(entry.event());
            }
            verdict.ledger.push(entry);
            return verdict;
        };
        if boundary {
            state.boundary = true;
        }
        let resolutions = follow_through(state, &located, mode, &self.config, &mut verdict.ledger);
        state.touch(located.path);
        if !peek {
            for resolution in resolutions {
                resolve(self.store.as_mut(), resolution);
            }
        }
        if mode == Mode::Settle {
            self.stats.observe_all(&verdict.ledger);
            return verdict;
        }
        let mut effects = Effects::default();
        let settings = Settings {
            views: &self.views,
            heuristics: &self.config.heuristics,
            weights: self.weights,
            weights_text: &self.weights_text,
            store: self.store.as_ref(),
            agent: &call.agent,
        };
        let ledger = &mut verdict.ledger;
        let mut decided = judge::decide(&settings, state, &located, ledger, &mut effects);
        verdict.claims = std::mem::take(&mut decided.claims);
        verdict.note = decided.note();
        if !peek {
            self.finish(&call.agent, mode, &mut verdict, effects);
        }
        verdict
    }

    /// The call's scene, read with the pack its workspace is judged with, and the abstention
    /// of a zero-config workspace whose pack cannot be had (its words, where a person should
    /// know them, join `warnings` after the scene's own); `None` for an excluded path.
    fn call_scene(
        &mut self,
        path: &Path,
        mode: Mode,
        warnings: &mut Vec<String>,
    ) -> Option<(Arc<Scene>, Option<Abstain>)> {
        let mut scene = self.scene(path);
        if !mode.is_peek() {
            self.rekey_workspaces();
        }
        if scene.excluded {
            return None;
        }
        // A zero-config workspace is judged only with the pack its miner says to use.
        let mut abstain = None;
        let mut why_abstained = None;
        if let Some(workspace) = scene.workspace.as_ref().filter(|w| w.mined) {
            match self.zero_config(workspace) {
                Ok(false) => {}
                Ok(true) => {
                    scene = self.scene(path);
                    if scene.excluded {
                        return None;
                    }
                }
                Err((reason, why)) => {
                    abstain = Some(reason);
                    why_abstained = why;
                }
            }
        }
        warnings.clone_from(&scene.warnings);
        warnings.extend(why_abstained);
        Some((scene, abstain))
    }

    /// Counts a judged call of `agent` and remembers the agent as the one seen last. Past
    /// `maxAgents`, the agents seen longest ago are forgotten and their windows close as
    /// abandoned; the agent just seen is the newest, never among them.
    fn see_agent(&mut self, agent: &str) {
        self.stats.judged += 1;
        self.agents.seen(agent);
        let evicted = self.agents.evict_over(self.config.max_agents);
        self.abandon(evicted);
    }

    /// The end of a decided call that is kept: its writes (a boundary's only for a note the
    /// evidence model settles), then any store degradation, then the counts of its lines.
    fn finish(&mut self, agent: &str, mode: Mode, verdict: &mut Verdict, mut effects: Effects) {
        let evidence = self.config.learn && self.config.rate_model == RateModel::Evidence;
        if mode == Mode::Boundary && (verdict.note.is_none() || !evidence) {
            // A boundary records what it named, not its silences, and only where its notes
            // are settled as the evidence model settles them. Every claim is settled, those
            // that only informed the user too: the change the agent ends with says whether it
            // was missing.
            effects.record = None;
            effects.resolutions.clear();
        }
        self.apply(agent, effects);
        verdict.ledger.extend(self.degradation_line());
        self.stats.observe_all(&verdict.ledger);
    }

    /// Asks the miner which pack the zero-config workspace `workspace` is judged with: `Ok`
    /// with whether that pack was just put in use (the call's scene must be read again), or
    /// why the call abstains (and, where a person should know, why in words).
    fn zero_config(&mut self, workspace: &Workspace) -> Result<bool, (Abstain, Option<String>)> {
        let Some(mined) = self.mined.as_mut() else {
            return Err((Abstain::ForeignWorkspace, None));
        };
        let (resolved, forgot) =
            mined.resolve(&workspace.root, &workspace.key, self.store.as_mut());
        if forgot {
            self.packs.clear_mined();
        }
        // The judged call's path allocates nothing here unless a root's state changes.
        match &resolved {
            Resolved::Abstain(_, Some(why)) => {
                let root = workspace.root.display().to_string();
                if self.unmined.len() >= crate::mined::MAX_MINED_ROOTS
                    && !self.unmined.contains_key(&root)
                {
                    self.unmined.clear();
                }
                self.unmined.insert(root, why.clone());
            }
            Resolved::Use(_) if !self.unmined.is_empty() => {
                self.unmined.remove(&workspace.root.display().to_string());
            }
            _ => {}
        }
        match resolved {
            Resolved::Use(pack) if Arc::ptr_eq(&pack, &workspace.pack) => Ok(false),
            Resolved::Use(pack) => {
                self.packs.set_mined(&workspace.root, Some(pack));
                // Scenes read with the previous pack of this root are stale.
                self.scenes.clear();
                Ok(true)
            }
            Resolved::Abstain(reason, why) => Err((reason, why)),
        }
    }

    /// Writes a decided call's effects: closed windows resolved, then the decision recorded
    /// pending and its window opened for `agent`.
    fn apply(&mut self, agent: &str, effects: Effects) {
        for resolution in effects.resolutions {
            resolve(self.store.as_mut(), resolution);
        }
        let Some(Record {
            decision,
            mut window,
        }) = effects.record
        else {
            return;
        };
        let seq = match self.store.record_pending(decision) {
            Ok(seq) => seq,
            Err(e) => {
                tracing::error!(error = %e, "recording a decision failed; no window opens");
                return;
            }
        };
        window.decision_seq = seq;
        let Some(state) = self.agents.get_mut(agent) else {
            // The agent was seen by this very call; should it be gone, the record must not
            // stay pending.
            self.abandon(vec![window]);
            return;
        };
        if !window.observe_only && !window.evidence {
            state.window = Some(window);
            return;
        }
        let bound = if window.evidence {
            MAX_EVIDENCE_WINDOWS
        } else {
            MAX_SHADOWS
        };
        state.shadows.push(window);
        if state.shadows.len() > bound {
            let oldest = state.shadows.remove(0);
            self.abandon(vec![oldest]);
        }
    }
}

/// Which of the agent's open windows the call closes (none when not learning). A boundary's
/// notes watch the whole change: no file of it ages them out, and deciding one follows none.
fn follow_through(
    state: &mut AgentState,
    located: &Located<'_>,
    mode: Mode,
    config: &Config,
    ledger: &mut Ledger,
) -> Vec<Resolution> {
    let view = match mode {
        _ if !config.learn => return Vec::new(),
        Mode::Judge | Mode::Peek => FollowView::of(config),
        Mode::Settle => FollowView {
            learn_window: u32::MAX,
            ..FollowView::of(config)
        },
        Mode::Boundary | Mode::BoundaryPeek => return Vec::new(),
    };
    let followed = judge::follow(state, located, view);
    judge::apply(state, followed, view, ledger)
}
