//! Composing ledger lines: each composer writes what a line says ([`Said`]) as the ledger
//! writes it, numbers with two decimals, and answers it as an [`Entry`] (or its text).

use super::{Abstain, Event, Names, PREFIX, Said, Suppress, Word};
use crate::call_ledger::{Entry, Line};
use docsuggest_schema::{Heuristic, StoreKind, Table};

impl<'a> Names<'a> {
    /// The length of the names' text.
    fn text_len(&self) -> usize {
        match *self {
            Names::List(list) => list.iter().map(|c| c.len() + 1).sum(),
            Names::Joined(joined) => joined.len(),
        }
    }

    fn push_to(&self, line: &mut String) {
        match *self {
            Names::List(list) => push_joined(line, list),
            Names::Joined(joined) => line.push_str(joined),
        }
    }
}

impl<'a> Said<'a> {
    /// The line, as the ledger writes it: borrowed when it is fixed.
    pub fn line(&self) -> Line {
        match *self {
            Said::Disabled => Line::Borrowed("doc-suggester: disabled (enabled=false)"),
            Said::Activated {
                version,
                families,
                threshold,
            } => Line::Owned(format!(
                "{PREFIX}activated (bundle {version}, families {families}, threshold {threshold:.2})"
            )),
            Said::Suggest {
                family,
                confidence,
                companions,
            } => Line::Owned(suggest_line(family, confidence, companions)),
            Said::Decided {
                family,
                confidence,
                head,
                values,
                weights,
                store,
            } => Line::Owned(compose_decided(
                family, confidence, head, &values, weights, store,
            )),
            Said::Accepted { family, companion } => {
                Line::Owned(format!("{PREFIX}accepted {family} {companion}"))
            }
            Said::Rejected { family, companions } => {
                Line::Owned(named("rejected ", family, companions))
            }
            Said::LeftOut { family, companions } => {
                Line::Owned(named("left-out ", family, companions))
            }
            Said::Abstained {
                reason,
                family,
                confidence,
            } => abstained_line(reason, family, confidence),
            Said::Suppressed {
                kind,
                family,
                confidence,
            } => Line::Owned(suppressed_line(kind, family, confidence)),
            Said::StoreUnavailable { reason } => Line::Owned(format!(
                "{PREFIX}store unavailable ({reason}), using memory"
            )),
        }
    }
}

/// `doc-suggester: suggest <family> <kappa> companions <c1,c2,...>`
fn suggest_line(family: &str, kappa: f64, companions: Names<'_>) -> String {
    // Sized once: every note writes one, and its companions often pass any fixed guess.
    let mut line = String::with_capacity(
        PREFIX.len()
            + "suggest ".len()
            + family.len()
            + " companions ".len()
            + companions.text_len()
            + 8,
    );
    line.push_str(PREFIX);
    line.push_str("suggest ");
    line.push_str(family);
    line.push(' ');
    push_kappa(&mut line, kappa);
    line.push_str(" companions ");
    companions.push_to(&mut line);
    line
}

/// `doc-suggester: suppressed <kind> <family> <kappa>`, appended rather than formatted.
fn suppressed_line(kind: Word<'_, Suppress>, family: &str, kappa: f64) -> String {
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

/// Answers `said`, composed, as the entry of `event` (or its text).
fn compose<T: From<Entry>>(event: Event, said: Said<'_>) -> T {
    T::from(Entry::new(said.line(), event))
}

/// `doc-suggester: disabled (enabled=false)`
pub fn disabled<T: From<Entry>>() -> T {
    compose(Event::Disabled, Said::Disabled)
}

/// `doc-suggester: activated (bundle <version>, families <n>, threshold <threshold>)`
pub fn activated<T: From<Entry>>(version: &str, families: usize, threshold: f64) -> T {
    compose(
        Event::Activated,
        Said::Activated {
            version,
            families,
            threshold,
        },
    )
}

/// `doc-suggester: suggest <family> <kappa> companions <c1,c2,...>`
pub fn suggest<T: From<Entry>>(family: &str, kappa: f64, companions: &[&str]) -> T {
    compose(
        Event::Suggest,
        Said::Suggest {
            family,
            confidence: kappa,
            companions: Names::List(companions),
        },
    )
}

/// `doc-suggester: decided <family> <kappa> <head> <values> weights <weights> store=<kind>`
pub fn decided<T: From<Entry>>(
    family: &str,
    kappa: f64,
    head: &str,
    values: &Table,
    weights: &Table,
    store: StoreKind,
) -> T {
    decided_weighted(family, kappa, head, values, &table_text(weights), store)
}

/// [`decided`] with its weights already written by [`table_text`]: they change only with
/// the config, and they are six of the line's thirteen numbers.
pub fn decided_weighted<T: From<Entry>>(
    family: &str,
    kappa: f64,
    head: &str,
    values: &Table,
    weights: &str,
    store: StoreKind,
) -> T {
    compose(
        Event::Decided,
        Said::Decided {
            family,
            confidence: kappa,
            head,
            values: *values,
            weights,
            store,
        },
    )
}

fn compose_decided(
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
pub fn accepted<T: From<Entry>>(family: &str, companion: &str) -> T {
    compose(Event::Accepted, Said::Accepted { family, companion })
}

/// `doc-suggester: rejected <family> companions <c1,c2,...>`
pub fn rejected<T: From<Entry>>(family: &str, companions: &[&str]) -> T {
    compose(
        Event::Rejected,
        Said::Rejected {
            family,
            companions: Names::List(companions),
        },
    )
}

/// `doc-suggester: left-out <family> companions <c1,c2,...>`: companions the evidence model
/// left out of a note (or a would-be note) because the agent rarely follows them.
pub fn left_out<T: From<Entry>>(family: &str, companions: &[&str]) -> T {
    compose(
        Event::LeftOut,
        Said::LeftOut {
            family,
            companions: Names::List(companions),
        },
    )
}

/// `doc-suggester: <event><family> companions <c1,c2,...>`
fn named(event: &str, family: &str, companions: Names<'_>) -> String {
    let mut line = String::with_capacity(
        PREFIX.len() + event.len() + family.len() + " companions ".len() + companions.text_len(),
    );
    line.push_str(PREFIX);
    line.push_str(event);
    line.push_str(family);
    line.push_str(" companions ");
    companions.push_to(&mut line);
    line
}

/// `doc-suggester: abstained <reason> [<family> ]<kappa>`: an entry whose line is borrowed
/// when it is fixed.
pub fn abstained(reason: Abstain, family: Option<&str>, kappa: f64) -> Entry {
    compose(
        Event::Abstained(reason),
        Said::Abstained {
            reason: Word::Known(reason),
            family,
            confidence: kappa,
        },
    )
}

fn abstained_line(reason: Word<'_, Abstain>, family: Option<&str>, kappa: f64) -> Line {
    // Most calls of a session touch no family: their line is fixed and borrowed.
    if family.is_none() && kappa.to_bits() == 0 {
        match reason {
            Word::Known(Abstain::NoSignal) => {
                return Line::Borrowed("doc-suggester: abstained no-signal 0.00");
            }
            Word::Known(Abstain::ForeignWorkspace) => {
                return Line::Borrowed("doc-suggester: abstained foreign-workspace 0.00");
            }
            Word::Known(Abstain::PackMining) => {
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
pub fn suppressed<T: From<Entry>>(kind: Suppress, family: &str, kappa: f64) -> T {
    compose(
        Event::Suppressed(kind),
        Said::Suppressed {
            kind: Word::Known(kind),
            family,
            confidence: kappa,
        },
    )
}

/// `doc-suggester: store unavailable (<reason>), using memory`
pub fn store_unavailable<T: From<Entry>>(reason: &str) -> T {
    compose(Event::StoreUnavailable, Said::StoreUnavailable { reason })
}
