//! The judge pipeline's pure steps (SPEC §2): it reads rates through a snapshot and what the
//! disk says from the call's [`Scene`], mutates only the agent's state, and returns the writes
//! it intends.

use crate::agent::{AgentState, Window};
use crate::compiled::Detection;
use crate::decision::{Shape, Subject, decision, push_decided, silence};
use crate::ledger::{self, Abstain, Suppress};
use crate::lines::Ledger;
use crate::locate::Workspace;
use crate::measure::{self, Rates};
use crate::note::{self, Gauge, Note};
use crate::paths::relative_to;
use crate::scene::Scene;

pub use crate::follow::{abandon, close_with_evidence, cut_short, follow, soft_reject};
use docsuggest_schema::rate::NEUTRAL;
use docsuggest_schema::{
    CompanionRow, Config, Decision, DecisionStore, RateKey, RateModel, RateRow, RateSnapshot,
    Resolution, SilenceReason, Table,
};
use std::path::Path;

/// A call resolved to a path inside a workspace.
#[derive(Clone, Copy, Debug)]
pub struct Located<'a> {
    /// The resolved, normalised call path (may hold a pattern).
    pub path: &'a Path,
    /// The path relative to the workspace root.
    pub rel: &'a str,
    /// The workspace.
    pub workspace: &'a Workspace,
    /// What the disk says about the path: its family and which companions exist.
    pub scene: &'a Scene,
}

impl<'a> Located<'a> {
    /// The located call of a scene, if its path lies in a workspace.
    pub fn of(scene: &'a Scene) -> Option<Located<'a>> {
        let workspace = scene.workspace.as_ref()?;
        Some(Located {
            path: &scene.path,
            rel: &scene.rel,
            workspace,
            scene,
        })
    }
}

/// What the engine must write for one call, in order.
#[derive(Debug, Default)]
pub struct Effects {
    /// Windows closed by this call.
    pub resolutions: Vec<Resolution>,
    /// A decision to record.
    pub record: Option<Record>,
}

/// A decision to record pending, and the window that opens once the store has numbered it:
/// a note's window, or a silence's observe-only shadow window.
#[derive(Debug)]
pub struct Record {
    /// The decision.
    pub decision: Decision,
    /// Its window.
    pub window: Window,
}

/// Everything one call is judged with besides the agent's state.
pub struct Settings<'a> {
    /// The config in force.
    pub config: &'a Config,
    /// Its effective weights.
    pub weights: Table,
    /// The same weights as the `decided` line writes them (written once per config).
    pub weights_text: &'a str,
    /// The store: the call opens one snapshot of it, and only once it has companions to
    /// measure (a call that stops earlier reads nothing).
    pub store: &'a (dyn DecisionStore + Send),
    /// The agent that made the call.
    pub agent: &'a str,
}

/// The learned rates of one family, read through one snapshot (neutral when not learning).
struct SnapshotRates<'a> {
    snapshot: Option<&'a dyn RateSnapshot>,
    config: &'a Config,
    /// The family's key, reused for each companion's (one allocation per call, not per read).
    key: std::cell::RefCell<RateKey>,
    /// The family's row, read once: every companion's `accept` value is the same row.
    family: std::cell::OnceCell<Option<RateRow>>,
}

impl SnapshotRates<'_> {
    fn row(&self, companion: &str) -> Option<RateRow> {
        let snapshot = self.snapshot.filter(|_| self.config.learn)?;
        let mut key = self.key.borrow_mut();
        key.companion.clear();
        key.companion.push_str(companion);
        snapshot
            .row(&key)
            .map_err(|e| tracing::error!(error = %e, "rate read failed; using the neutral rate"))
            .ok()
            .flatten()
    }

    fn read(&self, companion: &str) -> f64 {
        self.row(companion)
            .map_or(NEUTRAL, |row| row.rate(self.config.rate_model))
    }

    fn family_row(&self) -> Option<RateRow> {
        *self.family.get_or_init(|| self.row(""))
    }

    /// Whether the family has seen any outcome: from then on the evidence model gates on the
    /// probability that a note is followed instead of the PoC's kappa.
    fn family_observed(&self) -> bool {
        self.family_row().is_some_and(|row| row.observations() > 0)
    }
}

impl Rates for SnapshotRates<'_> {
    fn family(&self) -> f64 {
        self.family_row()
            .map_or(NEUTRAL, |row| row.rate(self.config.rate_model))
    }
    fn companion(&self, path: &str) -> f64 {
        self.read(path)
    }
}

/// Steps 6–12 for a located call: detect, filter, measure, gate, suppress, emit.
pub fn decide(
    settings: &Settings<'_>,
    state: &mut AgentState,
    located: &Located<'_>,
    ledger: &mut Ledger,
    effects: &mut Effects,
) -> Option<Note> {
    let config = settings.config;
    let pack = &located.workspace.pack;
    let family = match located.scene.detection {
        Detection::NoSignal => {
            ledger.push(ledger::abstained(Abstain::NoSignal, None, 0.0));
            return None;
        }
        Detection::Ambiguous(f) => {
            let name = &pack.families[f].name;
            ledger.push(ledger::abstained(Abstain::AmbiguousTarget, Some(name), 0.0));
            return None;
        }
        Detection::Family(f) => &pack.families[f],
    };
    let name = family.name.as_str();
    let filtered = located.scene.filtered.as_ref()?;
    let subject = Subject {
        located,
        family,
        bases: &filtered.bases,
        filtered,
    };
    let existing = &filtered.existing;
    if existing.is_empty() {
        ledger.push(ledger::abstained(Abstain::NoCompanions, Some(name), 0.0));
        return None;
    }
    let touched = state.touched_under(subject.bases);
    let untouched: Vec<usize> = existing
        .iter()
        .copied()
        .filter(|&i| !touched.iter().any(|rel| filtered.names(family, i, rel)))
        .collect();
    let snapshot = if config.learn {
        settings
            .store
            .snapshot()
            .map_err(|e| tracing::error!(error = %e, "snapshot failed; using neutral rates"))
            .ok()
    } else {
        None
    };
    let rates = SnapshotRates {
        snapshot: snapshot.as_deref(),
        config,
        key: std::cell::RefCell::new(RateKey::family(&located.workspace.key, name)),
        family: std::cell::OnceCell::new(),
    };
    let candidates = if untouched.is_empty() {
        existing
    } else {
        &untouched
    };
    let mut rows = measure::rank(
        candidates.iter().map(|&i| &family.companions[i]),
        &rates,
        &settings.weights,
    );
    let evidence = config.learn && config.rate_model == RateModel::Evidence;
    // The evidence model gates on the probability that the note is followed once the family
    // has evidence; until then (and under every other setting) on the PoC's kappa.
    let gauge = if evidence && rates.family_observed() {
        Gauge::Followed
    } else {
        Gauge::Kappa
    };
    // The PoC's kappa over the companions it would name, before evidence weighs or leaves any
    // out: the pack's own confidence in this note.
    let pack_kappa = measure::pack_kappa(&rows, &settings.weights, config.max_companions);
    let family_followed = rates
        .family_row()
        .map_or(pack_kappa, |row| measure::family_follow(&row, pack_kappa));
    let measure = |rows: &[CompanionRow]| match gauge {
        Gauge::Kappa => measure::kappa(rows),
        Gauge::Followed => measure::follow_probability(rows, family_followed),
    };
    if untouched.is_empty() {
        rows.truncate(config.max_companions);
        let confidence = measure(&rows);
        let shape = Shape {
            rows,
            watched: Vec::new(),
            kappa: confidence,
        };
        silence(
            settings,
            state,
            &subject,
            shape,
            SilenceReason::AlreadyTouched,
            ledger,
            effects,
        );
        return None;
    }
    let mut watched = Vec::new();
    // Whether the PoC's gate would make this note sets how likely followed it must be.
    let pack_gate = family.threshold.unwrap_or(config.threshold);
    let prompted = gauge == Gauge::Followed && pack_kappa >= pack_gate;
    if evidence {
        measure::weigh_evidence(&mut rows, config.evidence_exponent);
        let (kept, left) = measure::prune(rows, config.prune_below);
        if !left.is_empty() {
            let names: Vec<&str> = left.iter().map(|r| subject.shown(&r.path)).collect();
            ledger.push(ledger::left_out(name, &names));
        }
        rows = kept;
        watched = left;
    }
    if rows.len() > config.max_companions {
        watched.extend(rows.drain(config.max_companions..));
    }
    let paths: Vec<&str> = rows.iter().map(|r| subject.shown(&r.path)).collect();
    let fit = note::fitting(name, gauge, &paths, config.max_note_chars);
    if fit == 0 && !rows.is_empty() {
        ledger.push(ledger::abstained(Abstain::NoCompanions, Some(name), 0.0));
        return None;
    }
    if evidence {
        watched.extend(rows.drain(fit..));
    } else {
        rows.truncate(fit);
    }
    let gate = match gauge {
        Gauge::Kappa => pack_gate,
        Gauge::Followed if prompted => config.follow_threshold,
        Gauge::Followed => config.unprompted_threshold,
    };
    let mut confidence = measure(&rows);
    let cooling = state
        .last_noted
        .get(name)
        .is_some_and(|&at| state.calls - at <= u64::from(config.cooldown_calls));
    if evidence && !rows.is_empty() && confidence >= gate && !cooling {
        // What an open note of this agent already names is not named again: a note left with
        // nothing new is a repeat, one left with less is gated on what it still names.
        let (repeated, fresh): (Vec<CompanionRow>, Vec<CompanionRow>) =
            rows.into_iter().partition(|r| {
                let shown = subject.shown(&r.path);
                state.names_open(&located.workspace.key, subject.bases, shown)
            });
        if fresh.is_empty() {
            ledger.push(ledger::suppressed(Suppress::Dedupe, name, confidence));
            return None;
        }
        rows = fresh;
        watched.extend(repeated);
        confidence = measure(&rows);
    }
    if rows.is_empty() || confidence < gate {
        let shape = Shape {
            rows,
            watched,
            kappa: confidence,
        };
        silence(
            settings,
            state,
            &subject,
            shape,
            SilenceReason::LowConfidence,
            ledger,
            effects,
        );
        return None;
    }
    let name_refs: Vec<&str> = rows.iter().map(|r| subject.shown(&r.path)).collect();
    let suppression = if cooling {
        Some(Suppress::Cooldown)
    } else if state.emitted.contains(name, &name_refs) {
        Some(Suppress::Dedupe)
    } else if state.notes >= config.max_notes_per_turn {
        Some(Suppress::Cap)
    } else {
        None
    };
    if let Some(kind) = suppression {
        ledger.push(ledger::suppressed(kind, name, confidence));
        return None;
    }
    state.last_noted.insert(name.to_string(), state.calls);
    state.emitted.insert(name, &name_refs);
    state.notes += 1;
    if config.learn
        && let Some(older) = state.window.take()
    {
        // The older window closes as a soft reject before the newer one opens. (Under the
        // evidence model note windows live beside each other and none is closed early.)
        effects.resolutions.push(soft_reject(older, config, ledger));
    }
    ledger.push(ledger::suggest(name, confidence, &name_refs));
    push_decided(settings, &subject, confidence, &rows, ledger);
    let note = note::compose(name, gauge, confidence, &name_refs);
    if config.learn {
        let shape = Shape {
            rows,
            watched,
            kappa: confidence,
        };
        let window = subject.window(state, &shape, false, evidence);
        let decision = decision(settings, &subject, shape.rows, confidence, None);
        effects.record = Some(Record { decision, window });
    }
    Some(note)
}

/// The workspace-relative target of a located call.
pub fn relative_target(path: &Path, root: &Path) -> String {
    relative_to(path, root).unwrap_or_default().to_string()
}
