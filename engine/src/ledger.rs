//! The byte-stable ledger lines (SPEC §3). Every line the engine writes is composed here.

use docsuggest_schema::{StoreKind, Table};

const PREFIX: &str = "doc-suggester: ";

/// Why the engine stayed silent without a suppression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Abstain {
    /// kappa below the gate.
    LowConfidence,
    /// Not one path, or two families equally specific.
    AmbiguousTarget,
    /// Every companion already touched this turn.
    AlreadyTouched,
    /// No companion exists under any base.
    NoCompanions,
    /// No doc family claims the path.
    NoSignal,
    /// No workspace root above the path.
    ForeignWorkspace,
}

impl Abstain {
    /// The reason as the ledger writes it.
    pub fn name(self) -> &'static str {
        match self {
            Abstain::LowConfidence => "low-confidence",
            Abstain::AmbiguousTarget => "ambiguous-target",
            Abstain::AlreadyTouched => "already-touched",
            Abstain::NoCompanions => "no-companions",
            Abstain::NoSignal => "no-signal",
            Abstain::ForeignWorkspace => "foreign-workspace",
        }
    }
}

/// Why an otherwise emitted note was held back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suppress {
    /// Same family noted within `cooldownCalls`.
    Cooldown,
    /// The identical note was already emitted this turn.
    Dedupe,
    /// `maxNotesPerTurn` reached.
    Cap,
}

impl Suppress {
    /// The kind as the ledger writes it.
    pub fn name(self) -> &'static str {
        match self {
            Suppress::Cooldown => "cooldown",
            Suppress::Dedupe => "dedupe",
            Suppress::Cap => "cap",
        }
    }
}

/// `doc-suggester: disabled (enabled=false)`
pub fn disabled() -> String {
    format!("{PREFIX}disabled (enabled=false)")
}

/// `doc-suggester: activated (bundle <version>, families <n>, threshold <threshold>)`
pub fn activated(version: &str, families: usize, threshold: f64) -> String {
    format!("{PREFIX}activated (bundle {version}, families {families}, threshold {threshold:.2})")
}

/// `doc-suggester: suggest <family> <kappa> companions <c1,c2,...>`
pub fn suggest(family: &str, kappa: f64, companions: &[&str]) -> String {
    format!(
        "{PREFIX}suggest {family} {kappa:.2} companions {}",
        companions.join(",")
    )
}

/// `doc-suggester: decided <family> <kappa> <head> <values> weights <weights> store=<kind>`
pub fn decided(
    family: &str,
    kappa: f64,
    head: &str,
    values: &Table,
    weights: &Table,
    store: StoreKind,
) -> String {
    format!("{PREFIX}decided {family} {kappa:.2} {head} {values} weights {weights} store={store}")
}

/// `doc-suggester: accepted <family> <companion>`
pub fn accepted(family: &str, companion: &str) -> String {
    format!("{PREFIX}accepted {family} {companion}")
}

/// `doc-suggester: rejected <family> companions <c1,c2,...>`
pub fn rejected(family: &str, companions: &[&str]) -> String {
    format!(
        "{PREFIX}rejected {family} companions {}",
        companions.join(",")
    )
}

/// `doc-suggester: left-out <family> companions <c1,c2,...>`: companions the evidence model
/// left out of a note (or a would-be note) because the agent rarely follows them.
pub fn left_out(family: &str, companions: &[&str]) -> String {
    format!(
        "{PREFIX}left-out {family} companions {}",
        companions.join(",")
    )
}

/// `doc-suggester: abstained <reason> [<family> ]<kappa>`
pub fn abstained(reason: Abstain, family: Option<&str>, kappa: f64) -> String {
    match family {
        Some(family) => format!("{PREFIX}abstained {} {family} {kappa:.2}", reason.name()),
        None => format!("{PREFIX}abstained {} {kappa:.2}", reason.name()),
    }
}

/// `doc-suggester: suppressed <cooldown|dedupe|cap> <family> <kappa>`
pub fn suppressed(kind: Suppress, family: &str, kappa: f64) -> String {
    format!("{PREFIX}suppressed {} {family} {kappa:.2}", kind.name())
}

/// `doc-suggester: store unavailable (<reason>), using memory`
pub fn store_unavailable(reason: &str) -> String {
    format!("{PREFIX}store unavailable ({reason}), using memory")
}
