//! The byte-stable ledger lines (docs/BEHAVIOUR.md, "The ledger"). Every line the engine writes is composed here.

use crate::lines::Line;
use docsuggest_schema::{Heuristic, StoreKind, Table};

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
    /// The path lies in a git work tree with no pack, whose pack is still being mined from
    /// its history (zero-config).
    PackMining,
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
            Abstain::PackMining => "pack-mining",
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
    // Sized once: every note writes one, and its companions often pass any fixed guess.
    let names: usize = companions.iter().map(|c| c.len() + 1).sum();
    let mut line = String::with_capacity(
        PREFIX.len() + "suggest ".len() + family.len() + " companions ".len() + names + 8,
    );
    line.push_str(PREFIX);
    line.push_str("suggest ");
    line.push_str(family);
    line.push(' ');
    push_kappa(&mut line, kappa);
    line.push_str(" companions ");
    push_joined(&mut line, companions);
    line
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
    decided_weighted(family, kappa, head, values, &table_text(weights), store)
}

/// [`decided`] with its weights already written by [`table_text`]: they change only with
/// the config, and they are six of the line's thirteen numbers.
pub fn decided_weighted(
    family: &str,
    kappa: f64,
    head: &str,
    values: &Table,
    weights: &str,
    store: StoreKind,
) -> String {
    // Every decision writes one: sized once, then appended (see `push_fixed2`). The values are
    // written under the weights' names, so the weights' length stands for theirs too; a kappa
    // or value past ten characters only grows the line.
    const FIXED: usize = PREFIX.len() + "decided ".len() + " weights ".len() + " store=".len();
    let mut line = String::with_capacity(
        FIXED + family.len() + head.len() + 2 * weights.len() + store.name().len() + 16,
    );
    line.push_str(PREFIX);
    line.push_str("decided ");
    line.push_str(family);
    line.push(' ');
    push_kappa(&mut line, kappa);
    line.push(' ');
    line.push_str(head);
    line.push(' ');
    push_table(&mut line, values);
    line.push_str(" weights ");
    line.push_str(weights);
    line.push_str(" store=");
    line.push_str(store.name());
    line
}

/// `table` as its `Display` writes it, as [`decided_weighted`] takes its weights.
pub fn table_text(table: &Table) -> String {
    let mut text = String::with_capacity(80);
    push_table(&mut text, table);
    text
}

/// `table` as its `Display` writes it: `scope=1.00,graph=0.50,...`.
fn push_table(line: &mut String, table: &Table) {
    for (i, h) in Heuristic::ALL.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push_str(h.name());
        line.push('=');
        push_fixed2(line, table.0[i]);
    }
}

fn push_joined(line: &mut String, parts: &[&str]) {
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        line.push_str(part);
    }
}

/// Appends `x` exactly as `{x:.2}` writes it. A finite non-negative `x` below 2^40 is rounded
/// on its exact binary value, ties to even as the standard formatter rounds, in integer
/// arithmetic (the formatter's exact mode costs several times more); anything else is written
/// by the formatter itself.
pub(crate) fn push_fixed2(line: &mut String, x: f64) {
    use std::fmt::Write;
    if !(x.is_finite() && x.is_sign_positive() && x < (1u64 << 40) as f64) {
        // Writing to a `String` cannot fail.
        let _ = write!(line, "{x:.2}");
        return;
    }
    let bits = x.to_bits();
    let exponent = ((bits >> 52) & 0x7ff) as i32;
    let fraction = bits & ((1 << 52) - 1);
    // x = mantissa * 2^power
    let (mantissa, power) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), exponent - 1075)
    };
    let scaled = u128::from(mantissa) * 100;
    let hundredths = if power >= 0 {
        scaled << power
    } else if power <= -127 {
        // Below 2^-67 hundredths: rounds to zero.
        0
    } else {
        let shift = power.unsigned_abs();
        let whole = scaled >> shift;
        let rest = scaled & ((1u128 << shift) - 1);
        let half = 1u128 << (shift - 1);
        if rest > half || (rest == half && whole & 1 == 1) {
            whole + 1
        } else {
            whole
        }
    };
    // Below 2^40 * 100 + 1: fits a u64 (whose digits are cheaper to write than a u128's).
    let hundredths = u64::try_from(hundredths).unwrap_or(u64::MAX);
    push_digits(line, hundredths / 100);
    line.push('.');
    let cents = (hundredths % 100) as u8;
    line.push(char::from(b'0' + cents / 10));
    line.push(char::from(b'0' + cents % 10));
}

/// Appends `n` in decimal.
fn push_digits(line: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        line.push(char::from(d));
    }
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
pub fn abstained(reason: Abstain, family: Option<&str>, kappa: f64) -> Line {
    // Most calls of a session touch no family: their line is fixed and borrowed.
    if family.is_none() && kappa.to_bits() == 0 {
        match reason {
            Abstain::NoSignal => return Line::Borrowed("doc-suggester: abstained no-signal 0.00"),
            Abstain::ForeignWorkspace => {
                return Line::Borrowed("doc-suggester: abstained foreign-workspace 0.00");
            }
            Abstain::PackMining => {
                return Line::Borrowed("doc-suggester: abstained pack-mining 0.00");
            }
            _ => {}
        }
    }
    // The others are built by appending, not through `format!`.
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
    Line::Owned(line)
}

/// `kappa` as `{:.2}` writes it; the 0.0 of every abstention without a measure is spelled out.
fn push_kappa(line: &mut String, kappa: f64) {
    if kappa.to_bits() == 0 {
        line.push_str("0.00");
    } else {
        push_fixed2(line, kappa);
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
    use proptest::prelude::*;

    fn fixed2(x: f64) -> String {
        let mut line = String::new();
        push_fixed2(&mut line, x);
        line
    }

    proptest! {
        /// Byte for byte what `{:.2}` writes, over every kind of double.
        #[test]
        fn fixed2_is_the_formatter(bits in any::<u64>(), small in 0.0..10.0f64, eighths in 0u32..100_000) {
            for x in [f64::from_bits(bits), small, f64::from(eighths) / 8.0, f64::from(eighths) / 800.0] {
                prop_assert_eq!(fixed2(x), format!("{x:.2}"), "{:?}", x);
            }
        }
    }

    #[test]
    fn fixed2_rounds_exact_ties_to_even() {
        for x in [
            0.125,
            0.375,
            0.625,
            0.875,
            1.125,
            2.5,
            0.005,
            0.015,
            0.0,
            -0.0,
            1.0 / 3.0,
        ] {
            assert_eq!(fixed2(x), format!("{x:.2}"), "{x:?}");
        }
        for x in [
            f64::MIN_POSITIVE,
            5e-324,
            1e12,
            f64::INFINITY,
            f64::NAN,
            -1.5,
        ] {
            assert_eq!(fixed2(x), format!("{x:.2}"), "{x:?}");
        }
    }

    #[test]
    fn decided_and_suggest_are_the_pinned_forms() {
        let values = Table([1.0, 0.5, 0.875, 0.5, 1.0 / 3.0, 0.125]);
        let weights = Table::DEFAULT_WEIGHTS;
        for kappa in [0.0, 0.5, 0.7749999, 0.775, 0.999, 1.0] {
            assert_eq!(
                decided(
                    "Plan",
                    kappa,
                    "POC-BRIEF.md",
                    &values,
                    &weights,
                    StoreKind::Memory
                ),
                format!(
                    "{PREFIX}decided Plan {kappa:.2} POC-BRIEF.md {values} weights {weights} store=memory"
                )
            );
            assert_eq!(
                suggest("Plan", kappa, &["a.md", "b.md"]),
                format!("{PREFIX}suggest Plan {kappa:.2} companions a.md,b.md")
            );
        }
        assert_eq!(table_text(&values), values.to_string());
        assert_eq!(
            decided("F", 0.5, "x", &values, &weights, StoreKind::Memory),
            format!("{PREFIX}decided F 0.50 x {values} weights {weights} store=memory")
        );
        assert_eq!(
            suggest("F", 0.5, &[]),
            format!("{PREFIX}suggest F 0.50 companions ")
        );
    }

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
                (Abstain::ForeignWorkspace, None),
                (Abstain::PackMining, None),
                (Abstain::AmbiguousTarget, None),
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
        // The lines of calls that reach no family are borrowed: they allocate nothing.
        for (reason, line) in [
            (Abstain::NoSignal, "no-signal"),
            (Abstain::ForeignWorkspace, "foreign-workspace"),
            (Abstain::PackMining, "pack-mining"),
        ] {
            let got = abstained(reason, None, 0.0);
            assert!(matches!(got, Line::Borrowed(_)), "{got:?}");
            assert_eq!(got, format!("{PREFIX}abstained {line} 0.00"));
        }
    }
}
