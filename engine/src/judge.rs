//! The judge pipeline's pure steps (SPEC §2): it reads rates through a snapshot and files
//! through a probe, mutates only the agent's state, and returns the writes it intends.

use crate::agent::{AgentState, Window};
use crate::compiled::{CompiledFamily, Detection};
use crate::filter::Bases;
use crate::ledger::{self, Abstain, Suppress};
use crate::locate::Workspace;
use crate::measure::{self, Rates};
use crate::note::{self, Note};
use crate::paths::{is_pattern, literal_prefix, relative_to};
use crate::probe::FileProbe;

pub use crate::follow::{abandon, follow, soft_reject};
use docsuggest_schema::rate::NEUTRAL;
use docsuggest_schema::{
    CompanionRow, Config, Decision, DecisionStore, Outcome, RateKey, RateSnapshot, Resolution,
    SilenceReason, Table,
};
use std::path::{Path, PathBuf};

/// A call resolved to a path inside a workspace.
#[derive(Clone, Debug)]
pub struct Located {
    /// The resolved, normalised call path (may hold a pattern).
    pub path: PathBuf,
    /// The path relative to the workspace root.
    pub rel: String,
    /// The workspace.
    pub workspace: Workspace,
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
    /// The store: the call opens one snapshot of it, and only once it has companions to
    /// measure (a call that stops earlier reads nothing).
    pub store: &'a (dyn DecisionStore + Send),
    /// The disk.
    pub probe: &'a dyn FileProbe,
    /// The agent that made the call.
    pub agent: &'a str,
}

/// The learned rates of one family, read through one snapshot (neutral when not learning).
struct SnapshotRates<'a> {
    snapshot: Option<&'a dyn RateSnapshot>,
    config: &'a Config,
    /// The family's key, reused for each companion's (one allocation per call, not per read).
    key: std::cell::RefCell<RateKey>,
    /// The family's rate, read once: every companion's `accept` value is the same row.
    family: std::cell::OnceCell<f64>,
}

impl SnapshotRates<'_> {
    fn read(&self, companion: &str) -> f64 {
        let Some(snapshot) = self.snapshot.filter(|_| self.config.learn) else {
            return NEUTRAL;
        };
        let mut key = self.key.borrow_mut();
        key.companion.clear();
        key.companion.push_str(companion);
        match snapshot.row(&key) {
            Ok(Some(row)) => row.rate(self.config.rate_model),
            Ok(None) => NEUTRAL,
            Err(e) => {
                tracing::error!(error = %e, "rate read failed; using the neutral rate");
                NEUTRAL
            }
        }
    }
}

impl Rates for SnapshotRates<'_> {
    fn family(&self) -> f64 {
        *self.family.get_or_init(|| self.read(""))
    }
    fn companion(&self, path: &str) -> f64 {
        self.read(path)
    }
}

/// Steps 6–12 for a located call: detect, filter, measure, gate, suppress, emit.
pub fn decide(
    settings: &Settings<'_>,
    state: &mut AgentState,
    located: &Located,
    ledger: &mut Vec<String>,
    effects: &mut Effects,
) -> Option<Note> {
    let config = settings.config;
    let probe = settings.probe;
    let pack = &located.workspace.pack;
    let family = match pack.detect(&located.rel) {
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
    let prefix;
    let lookup = if is_pattern(&located.rel) {
        prefix = literal_prefix(&located.path);
        &prefix
    } else {
        &located.path
    };
    let bases = Bases::find(&located.workspace.root, lookup, probe);
    let subject = Subject {
        located,
        family,
        bases: bases.all(),
    };
    let existing: Vec<usize> = (0..family.companions.len())
        .filter(|&i| bases.keeps(&family.companions[i], probe))
        .collect();
    if existing.is_empty() {
        ledger.push(ledger::abstained(Abstain::NoCompanions, Some(name), 0.0));
        return None;
    }
    let touched = state.touched_under(subject.bases);
    let untouched: Vec<usize> = existing
        .iter()
        .copied()
        .filter(|&i| {
            let matcher = &family.companions[i].matcher;
            !touched.iter().any(|rel| matcher.is_match(rel))
        })
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
        &existing
    } else {
        &untouched
    };
    let mut rows = measure::rank(
        candidates.iter().map(|&i| &family.companions[i]),
        &rates,
        &settings.weights,
    );
    rows.truncate(config.max_companions);
    if untouched.is_empty() {
        let kappa = measure::kappa(&rows);
        silence(
            settings,
            &subject,
            rows,
            kappa,
            SilenceReason::AlreadyTouched,
            ledger,
            effects,
        );
        return None;
    }
    let paths: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
    let fit = note::fitting(name, &paths, config.max_note_chars);
    if fit == 0 {
        ledger.push(ledger::abstained(Abstain::NoCompanions, Some(name), 0.0));
        return None;
    }
    rows.truncate(fit);
    let kappa = measure::kappa(&rows);
    if kappa < family.threshold.unwrap_or(config.threshold) {
        silence(
            settings,
            &subject,
            rows,
            kappa,
            SilenceReason::LowConfidence,
            ledger,
            effects,
        );
        return None;
    }
    let name_refs: Vec<&str> = rows.iter().map(|r| r.path.as_str()).collect();
    let suppression = if state
        .last_noted
        .get(name)
        .is_some_and(|&at| state.calls - at <= u64::from(config.cooldown_calls))
    {
        Some(Suppress::Cooldown)
    } else if state.emitted.contains(name, &name_refs) {
        Some(Suppress::Dedupe)
    } else if state.notes >= config.max_notes_per_turn {
        Some(Suppress::Cap)
    } else {
        None
    };
    if let Some(kind) = suppression {
        ledger.push(ledger::suppressed(kind, name, kappa));
        return None;
    }
    state.last_noted.insert(name.to_string(), state.calls);
    state.emitted.insert(name, &name_refs);
    state.notes += 1;
    if config.learn
        && let Some(older) = state.window.take()
    {
        // The older window closes as a soft reject before the newer one opens.
        effects.resolutions.push(soft_reject(older, config, ledger));
    }
    ledger.push(ledger::suggest(name, kappa, &name_refs));
    push_decided(settings, name, kappa, &rows, ledger);
    let note = note::compose(name, kappa, &name_refs);
    if config.learn {
        let window = subject.window(&rows, false);
        let decision = decision(settings, &subject, rows, kappa, None);
        effects.record = Some(Record { decision, window });
    }
    Some(note)
}

/// What a decision is about: the call, its family, and the bases its companions live under.
struct Subject<'a> {
    located: &'a Located,
    family: &'a CompiledFamily,
    bases: &'a [PathBuf],
}

impl Subject<'_> {
    /// A window over the companions `rows` names.
    fn window(&self, rows: &[CompanionRow], observe_only: bool) -> Window {
        Window {
            decision_seq: 0,
            workspace: self.located.workspace.key.clone(),
            family: self.family.name.clone(),
            companions: rows
                .iter()
                .filter_map(|r| {
                    let c = self.family.companions.iter().find(|c| c.path == r.path)?;
                    Some((c.path.clone(), c.matcher.clone()))
                })
                .collect(),
            bases: self.bases.to_vec(),
            age: 0,
            observe_only,
        }
    }
}

fn push_decided(
    settings: &Settings<'_>,
    family: &str,
    kappa: f64,
    rows: &[CompanionRow],
    ledger: &mut Vec<String>,
) {
    if let Some(head) = rows.first() {
        ledger.push(ledger::decided(
            family,
            kappa,
            &head.path,
            &head.values,
            &settings.weights,
            settings.store.kind(),
        ));
    }
}

/// A gated silence: its `abstained` and `decided` lines, and (when learning) a shadow window
/// that observes whether the would-be companions are touched anyway.
fn silence(
    settings: &Settings<'_>,
    subject: &Subject<'_>,
    rows: Vec<CompanionRow>,
    kappa: f64,
    reason: SilenceReason,
    ledger: &mut Vec<String>,
    effects: &mut Effects,
) {
    let abstain = match reason {
        SilenceReason::LowConfidence => Abstain::LowConfidence,
        SilenceReason::AlreadyTouched => Abstain::AlreadyTouched,
    };
    let family = subject.family.name.as_str();
    ledger.push(ledger::abstained(abstain, Some(family), kappa));
    push_decided(settings, family, kappa, &rows, ledger);
    if settings.config.learn {
        let window = subject.window(&rows, true);
        let decision = decision(settings, subject, rows, kappa, Some(reason));
        effects.record = Some(Record { decision, window });
    }
}

/// A pending decision record (a note, or a silence whose shadow window is open).
fn decision(
    settings: &Settings<'_>,
    subject: &Subject<'_>,
    companions: Vec<CompanionRow>,
    kappa: f64,
    silence: Option<SilenceReason>,
) -> Decision {
    Decision {
        seq: 0,
        workspace: subject.located.workspace.key.clone(),
        agent: settings.agent.into(),
        family: subject.family.name.clone(),
        kappa,
        companions,
        weights: settings.weights,
        enabled: settings.config.heuristics.clone(),
        outcome: Outcome::Pending,
        silence,
        accepted: None,
        store: settings.store.kind(),
    }
}

/// The workspace-relative target of a located call.
pub fn relative_target(path: &Path, root: &Path) -> String {
    relative_to(path, root).unwrap_or_default().to_string()
}
