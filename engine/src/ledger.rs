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
    // Most calls of a session abstain: built by appending, not through `format!`.
    let mut line = String::with_capacity(64);
    line.push_str(PREFIX);
    line.push_str("abstained ");
    line.push_str(reason.name());
    line.push(' ');
    if let Some(family) = family {
        line.push_str(family);
        line.push(' ');
    }
    push_kappa(&mut line, kappa);
    line
}

/// `kappa` as `{:.2}` writes it; the 0.0 of every abstention without a measure is spelled out.
fn push_kappa(line: &mut String, kappa: f64) {
    use std::fmt::Write;
    if kappa.to_bits() == 0 {
        line.push_str("0.00");
    } else {
        // Writing to a `String` cannot fail.
        let _ = write!(line, "{kappa:.2}");
    }
}

/// `doc-suggester: suppressed <cooldown|dedupe|cap> <family> <kappa>`
pub fn suppressed(kind: Suppress, family: &str, kappa: f64) -> String {
    let mut line = String::with_capacity(64);
    line.push_str(PREFIX);
    line.push_str("suppressed ");
    line.push_str(kind.name());
    line.push(' ');
    line.push_str(family);
    line.push(' ');
    push_kappa(&mut line, kappa);
    line
}

/// `doc-suggester: store unavailable (<reason>), using memory`
pub fn store_unavailable(reason: &str) -> String {
    format!("{PREFIX}store unavailable ({reason}), using memory")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The appended lines are byte for byte what the pinned `format!` spelling gives.
    #[test]
    fn appended_lines_are_the_pinned_forms() {
        for kappa in [
            0.0,
            -0.0,
            0.004,
            0.005,
            0.125,
            0.5,
            0.775,
            0.999,
            1.0,
            f64::NAN,
        ] {
            for (reason, family) in [
                (Abstain::NoSignal, None),
                (Abstain::LowConfidence, Some("Plan")),
            ] {
                let expect = match family {
                    Some(f) => format!("{PREFIX}abstained {} {f} {kappa:.2}", reason.name()),
                    None => format!("{PREFIX}abstained {} {kappa:.2}", reason.name()),
                };
                assert_eq!(abstained(reason, family, kappa), expect);
            }
            assert_eq!(
                suppressed(Suppress::Dedupe, "Plan", kappa),
                format!("{PREFIX}suppressed dedupe Plan {kappa:.2}")
            );
        }
        assert_eq!(
            abstained(Abstain::NoSignal, None, 0.0),
            "doc-suggester: abstained no-signal 0.00"
        );
    }
}
