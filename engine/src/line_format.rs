//! The byte-stable ledger lines (docs/BEHAVIOUR.md, "The ledger"). Every line the engine writes
//! is composed here, from what it says ([`Said`]), and a line is read back into what it says
//! only here ([`Said::parse`]): the one place that knows the lines' format, both ways.
//!
//! The composers answer an [`Entry`] (or its text): the line and the [`Event`] it records,
//! which a [`crate::Ledger`] keeps beside the line, so what counts the lines
//! ([`crate::Stats`]) reads their events rather than their words.

use crate::call_ledger::{Entry, Line};
use docsuggest_schema::{Heuristic, StoreKind, Table};
use serde::Deserialize;
use serde::de::IntoDeserializer;

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
    /// Every reason.
    pub const ALL: [Abstain; 7] = [
        Abstain::LowConfidence,
        Abstain::AmbiguousTarget,
        Abstain::AlreadyTouched,
        Abstain::NoCompanions,
        Abstain::NoSignal,
        Abstain::ForeignWorkspace,
        Abstain::PackMining,
    ];

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
    /// Every kind.
    pub const ALL: [Suppress; 3] = [Suppress::Cooldown, Suppress::Dedupe, Suppress::Cap];

    /// The kind as the ledger writes it.
    pub fn name(self) -> &'static str {
        match self {
            Suppress::Cooldown => "cooldown",
            Suppress::Dedupe => "dedupe",
            Suppress::Cap => "cap",
        }
    }
}

/// A reason or kind as a line writes it: one this version knows, or the word of one it does
/// not (a newer engine's, read over the protocol).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word<'a, T> {
    /// One this version knows.
    Known(T),
    /// A word this version does not know.
    Other(&'a str),
}

/// A closed set of words a line writes (an abstention's reason, a suppression's kind).
pub trait Worded: Copy + 'static {
    /// Every word of the set.
    fn all() -> &'static [Self];
    /// The word as the ledger writes it.
    fn word(self) -> &'static str;
}

impl Worded for Abstain {
    fn all() -> &'static [Self] {
        &Abstain::ALL
    }
    fn word(self) -> &'static str {
        self.name()
    }
}

impl Worded for Suppress {
    fn all() -> &'static [Self] {
        &Suppress::ALL
    }
    fn word(self) -> &'static str {
        self.name()
    }
}

impl<'a, T: Worded> Word<'a, T> {
    /// The reason or kind as the line writes it.
    pub fn name(self) -> &'a str {
        match self {
            Word::Known(known) => known.word(),
            Word::Other(word) => word,
        }
    }

    fn read(word: &'a str) -> Self {
        T::all()
            .iter()
            .copied()
            .find(|known| known.word() == word)
            .map_or(Word::Other(word), Word::Known)
    }
}

/// The companions a line names, written joined by commas: the composer's list, or the text
/// a parsed line holds. Equal when their text is.
#[derive(Clone, Copy, Debug)]
pub enum Names<'a> {
    /// Names in order.
    List(&'a [&'a str]),
    /// Names as the line writes them, joined by commas.
    Joined(&'a str),
}

impl<'a> Names<'a> {
    /// The names in order (none for an empty text). A name holding a comma reads back as
    /// several.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let (list, joined): (&'a [&'a str], &'a str) = match *self {
            Names::List(list) => (list, ""),
            Names::Joined(joined) => (&[], joined),
        };
        let split = (!joined.is_empty()).then(|| joined.split(','));
        list.iter().copied().chain(split.into_iter().flatten())
    }

    /// The length of the names' text.
    fn text_len(&self) -> usize {
        match *self {
            Names::List(list) => list.iter().map(|c| c.len() + 1).sum(),
            Names::Joined(joined) => joined.len(),
        }
    }

    /// The names' text, byte by byte.
    fn bytes(&self) -> impl Iterator<Item = u8> + use<'a> {
        let (list, joined): (&'a [&'a str], &'a str) = match *self {
            Names::List(list) => (list, ""),
            Names::Joined(joined) => (&[], joined),
        };
        let listed = list.iter().enumerate().flat_map(|(i, name)| {
            let comma = (i > 0).then_some(b',');
            comma.into_iter().chain(name.bytes())
        });
        listed.chain(joined.bytes())
    }

    fn push_to(&self, line: &mut String) {
        match *self {
            Names::List(list) => push_joined(line, list),
            Names::Joined(joined) => line.push_str(joined),
        }
    }
}

impl PartialEq for Names<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes().eq(other.bytes())
    }
}

/// What one ledger line says. Composed into its line by [`Said::line`]; read back from it by
/// [`Said::parse`]. Names and words are borrowed: from the composer's arguments, or from
/// the parsed line.
///
/// A family name may hold spaces: a line is read with its fixed words and numbers as
/// landmarks, so a name that itself holds such a landmark (` companions `, a number) may
/// be read back split elsewhere, though always into a `Said` that composes the same line.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Said<'a> {
    /// `disabled (enabled=false)`
    Disabled,
    /// `activated (bundle <version>, families <n>, threshold <threshold>)`
    Activated {
        /// The engine's version.
        version: &'a str,
        /// The built-in pack's families.
        families: usize,
        /// The config's threshold.
        threshold: f64,
    },
    /// `suggest <family> <kappa> companions <c1,c2,...>`
    Suggest {
        /// The note's family.
        family: &'a str,
        /// Its confidence.
        confidence: f64,
        /// The companions it names.
        companions: Names<'a>,
    },
    /// `decided <family> <kappa> <head> <values> weights <weights> store=<kind>`
    Decided {
        /// The decided family.
        family: &'a str,
        /// Its confidence.
        confidence: f64,
        /// The head companion.
        head: &'a str,
        /// The head companion's values.
        values: Table,
        /// The weights, as [`table_text`] writes them (they change only with the config, and
        /// the engine writes them once).
        weights: &'a str,
        /// The store the decision is recorded in.
        store: StoreKind,
    },
    /// `accepted <family> <companion>`
    Accepted {
        /// The note's family.
        family: &'a str,
        /// The companion opened (the last word of the line).
        companion: &'a str,
    },
    /// `rejected <family> companions <c1,c2,...>`
    Rejected {
        /// The note's family.
        family: &'a str,
        /// The companions not opened.
        companions: Names<'a>,
    },
    /// `left-out <family> companions <c1,c2,...>`
    LeftOut {
        /// The family.
        family: &'a str,
        /// The companions left out of the note.
        companions: Names<'a>,
    },
    /// `abstained <reason> [<family> ]<kappa>`
    Abstained {
        /// Why.
        reason: Word<'a, Abstain>,
        /// The family, when the call got that far.
        family: Option<&'a str>,
        /// The confidence (0 when the call was not measured).
        confidence: f64,
    },
    /// `suppressed <cooldown|dedupe|cap> <family> <kappa>`
    Suppressed {
        /// Why.
        kind: Word<'a, Suppress>,
        /// The family.
        family: &'a str,
        /// The held note's confidence.
        confidence: f64,
    },
    /// `store unavailable (<reason>), using memory`
    StoreUnavailable {
        /// What the store said.
        reason: &'a str,
    },
}

/// The event a ledger line records, without its names: what a [`crate::Ledger`] keeps beside
/// each line, small and copied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// `disabled`
    Disabled,
    /// `activated`
    Activated,
    /// `suggest`: a note.
    Suggest,
    /// `decided`
    Decided,
    /// `accepted`: a window closed by an accept.
    Accepted,
    /// `rejected`: a window closed as a soft reject.
    Rejected,
    /// `left-out`
    LeftOut,
    /// `abstained`, and why.
    Abstained(Abstain),
    /// `suppressed`, and why.
    Suppressed(Suppress),
    /// `store unavailable`
    StoreUnavailable,
}

impl<'a> Said<'a> {
    /// The event the line records; `None` for a reason or kind this version does not know.
    pub fn event(&self) -> Option<Event> {
        Some(match *self {
            Said::Disabled => Event::Disabled,
            Said::Activated { .. } => Event::Activated,
            Said::Suggest { .. } => Event::Suggest,
            Said::Decided { .. } => Event::Decided,
            Said::Accepted { .. } => Event::Accepted,
            Said::Rejected { .. } => Event::Rejected,
            Said::LeftOut { .. } => Event::LeftOut,
            Said::Abstained { reason, .. } => match reason {
                Word::Known(reason) => Event::Abstained(reason),
                Word::Other(_) => return None,
            },
            Said::Suppressed { kind, .. } => match kind {
                Word::Known(kind) => Event::Suppressed(kind),
                Word::Other(_) => return None,
            },
            Said::StoreUnavailable { .. } => Event::StoreUnavailable,
        })
    }

    /// What `line` says, when it is a line the composer writes: `Some` exactly when
    /// [`Said::line`] gives `line` back, byte for byte (a reason or kind this version does
    /// not know is read as a [`Word::Other`]).
    pub fn parse(line: &'a str) -> Option<Said<'a>> {
        let said = Said::read(body(line)?)?;
        // Only the composer's spelling: numbers as it writes them, no stray spaces.
        (said.line() == line).then_some(said)
    }

    /// The words of a line after the prefix, read by their landmarks.
    fn read(body: &'a str) -> Option<Said<'a>> {
        let (event, rest) = body.split_once(' ')?;
        Some(match event {
            "disabled" => (rest == "(enabled=false)").then_some(Said::Disabled)?,
            "activated" => {
                let rest = rest.strip_prefix("(bundle ")?.strip_suffix(')')?;
                let (rest, threshold) = rest.rsplit_once(", threshold ")?;
                let (version, families) = rest.rsplit_once(", families ")?;
                Said::Activated {
                    version,
                    families: families.parse().ok()?,
                    threshold: number(threshold)?,
                }
            }
            "suggest" => {
                // `<family> <kappa> companions <names>`: the first ` companions ` after a
                // number.
                let (family, confidence, companions) = rest
                    .match_indices(" companions ")
                    .find_map(|(at, landmark)| {
                        let (family, kappa) = rest[..at].rsplit_once(' ')?;
                        Some((family, number(kappa)?, &rest[at + landmark.len()..]))
                    })?;
                Said::Suggest {
                    family,
                    confidence,
                    companions: Names::Joined(companions),
                }
            }
            "decided" => {
                let (rest, store) = rest.rsplit_once(" store=")?;
                // By the schema's own names (the whole line, composed again, checks that they
                // are the ones the ledger writes).
                let store: Result<StoreKind, serde::de::value::Error> =
                    StoreKind::deserialize(store.into_deserializer());
                let store = store.ok()?;
                let (rest, weights) = rest.rsplit_once(" weights ")?;
                read_table(weights)?;
                let (rest, values) = rest.rsplit_once(' ')?;
                let values = read_table(values)?;
                // `<family> <kappa> <head>`: the family ends before the first word after it
                // that is a number.
                let (family, confidence, head) = rest.match_indices(' ').find_map(|(at, _)| {
                    let (kappa, head) = rest[at + 1..].split_once(' ')?;
                    Some((&rest[..at], number(kappa)?, head))
                })?;
                Said::Decided {
                    family,
                    confidence,
                    head,
                    values,
                    weights,
                    store,
                }
            }
            "accepted" => {
                let (family, companion) = rest.rsplit_once(' ')?;
                Said::Accepted { family, companion }
            }
            "rejected" => {
                let (family, companions) = rest.split_once(" companions ")?;
                Said::Rejected {
                    family,
                    companions: Names::Joined(companions),
                }
            }
            "left-out" => {
                let (family, companions) = rest.split_once(" companions ")?;
                Said::LeftOut {
                    family,
                    companions: Names::Joined(companions),
                }
            }
            "abstained" => {
                let (reason, rest) = rest.split_once(' ')?;
                let (family, confidence) = match rest.rsplit_once(' ') {
                    Some((family, confidence)) => (Some(family), confidence),
                    None => (None, rest),
                };
                Said::Abstained {
                    reason: Word::<Abstain>::read(reason),
                    family,
                    confidence: number(confidence)?,
                }
            }
            "suppressed" => {
                let (kind, rest) = rest.split_once(' ')?;
                let (family, confidence) = rest.rsplit_once(' ')?;
                Said::Suppressed {
                    kind: Word::<Suppress>::read(kind),
                    family,
                    confidence: number(confidence)?,
                }
            }
            "store" => Said::StoreUnavailable {
                reason: rest
                    .strip_prefix("unavailable (")?
                    .strip_suffix("), using memory")?,
            },
            _ => return None,
        })
    }

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
            } => {
                // Sized once: every note writes one, and its companions often pass any fixed
                // guess.
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
                push_kappa(&mut line, confidence);
                line.push_str(" companions ");
                companions.push_to(&mut line);
                Line::Owned(line)
            }
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
            } => {
                let mut line = String::with_capacity(64);
                line.push_str(PREFIX);
                line.push_str("suppressed ");
                line.push_str(kind.name());
                line.push(' ');
                line.push_str(family);
                line.push(' ');
                push_kappa(&mut line, confidence);
                Line::Owned(line)
            }
            Said::StoreUnavailable { reason } => Line::Owned(format!(
                "{PREFIX}store unavailable ({reason}), using memory"
            )),
        }
    }
}

/// The words of a ledger line after its prefix (`doc-suggester: `); `None` for a line that is
/// not a ledger line.
pub fn body(line: &str) -> Option<&str> {
    line.strip_prefix(PREFIX)
}

/// A number as the composer writes it (two decimals): `None` for any other spelling, so a word
/// of a name is not taken for one.
fn number(text: &str) -> Option<f64> {
    let x = text.parse().ok()?;
    let mut written = String::with_capacity(text.len());
    push_fixed2(&mut written, x);
    (written == text).then_some(x)
}

/// A table as [`table_text`] writes it.
fn read_table(text: &str) -> Option<Table> {
    let mut table = Table([0.0; 6]);
    let mut parts = text.split(',');
    for (i, h) in Heuristic::ALL.iter().enumerate() {
        let value = parts.next()?.strip_prefix(h.name())?.strip_prefix('=')?;
        table.0[i] = number(value)?;
    }
    parts.next().is_none().then_some(table)
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
                decided::<String>(
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
                suggest::<String>("Plan", kappa, &["a.md", "b.md"]),
                format!("{PREFIX}suggest Plan {kappa:.2} companions a.md,b.md")
            );
        }
        assert_eq!(table_text(&values), values.to_string());
        assert_eq!(
            decided::<String>("F", 0.5, "x", &values, &weights, StoreKind::Memory),
            format!("{PREFIX}decided F 0.50 x {values} weights {weights} store=memory")
        );
        assert_eq!(
            suggest::<String>("F", 0.5, &[]),
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
                suppressed::<String>(Suppress::Dedupe, "Plan", kappa),
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
            assert!(matches!(got.line(), Line::Borrowed(_)), "{got:?}");
            assert_eq!(got, format!("{PREFIX}abstained {line} 0.00"));
        }
    }

    /// What `x` reads back as once written with two decimals.
    fn rounded(x: f64) -> f64 {
        format!("{x:.2}").parse().expect("a number")
    }

    /// `entry` reads back as `want` (numbers as written), composes its line again and
    /// records its event.
    fn reads_back(entry: &Entry, want: Said<'_>) -> Result<(), String> {
        let said = Said::parse(entry.as_str()).ok_or(format!("unread: {entry}"))?;
        if said.line() != entry.as_str() {
            return Err(format!("{said:?} composes {:?}, not {entry}", said.line()));
        }
        if said.event() != Some(entry.event()) {
            return Err(format!("{said:?} records {:?}", entry.event()));
        }
        // NaN is equal to nothing: its line is checked above.
        if !format!("{want:?}").contains("NaN") && said != want {
            return Err(format!("{entry} reads as {said:?}, not {want:?}"));
        }
        Ok(())
    }

    /// The weights the tests' `decided` lines write with `kappa`.
    fn weights(kappa: f64) -> Table {
        Table([0.35, 0.0, 0.25, 0.25, 0.15, kappa])
    }

    /// Every composer's line, and what it should read back as; `weights` is
    /// `table_text(&weights(kappa))`.
    fn every_composer<'a>(
        family: &'a str,
        kappa: f64,
        head: &'a str,
        companions: &'a [&'a str],
        n: usize,
        weights_text: &'a str,
    ) -> Vec<(Entry, Said<'a>)> {
        let values = Table([1.0, 0.5, 0.875, kappa, 1.0 / 3.0, 0.125]);
        let k = rounded(kappa);
        let mut out = vec![
            (disabled(), Said::Disabled),
            (
                activated("0.2.1", n, kappa),
                Said::Activated {
                    version: "0.2.1",
                    families: n,
                    threshold: k,
                },
            ),
            (
                suggest(family, kappa, companions),
                Said::Suggest {
                    family,
                    confidence: k,
                    companions: Names::List(companions),
                },
            ),
            (
                accepted(family, head),
                Said::Accepted {
                    family,
                    companion: head,
                },
            ),
            (
                rejected(family, companions),
                Said::Rejected {
                    family,
                    companions: Names::List(companions),
                },
            ),
            (
                left_out(family, companions),
                Said::LeftOut {
                    family,
                    companions: Names::List(companions),
                },
            ),
            (
                store_unavailable("database locked (os error 11)"),
                Said::StoreUnavailable {
                    reason: "database locked (os error 11)",
                },
            ),
        ];
        // The engine names one store (tests/it/golden.rs pins the other's line; the CLI's
        // explain tests read it back).
        let store = StoreKind::Memory;
        out.push((
            decided(family, kappa, head, &values, &weights(kappa), store),
            Said::Decided {
                family,
                confidence: k,
                head,
                values: Table(values.0.map(rounded)),
                weights: weights_text,
                store,
            },
        ));
        for reason in Abstain::ALL {
            for family in [None, Some(family)] {
                out.push((
                    abstained(reason, family, kappa),
                    Said::Abstained {
                        reason: Word::Known(reason),
                        family,
                        confidence: k,
                    },
                ));
            }
        }
        for kind in Suppress::ALL {
            out.push((
                suppressed(kind, family, kappa),
                Said::Suppressed {
                    kind: Word::Known(kind),
                    family,
                    confidence: k,
                },
            ));
        }
        out
    }

    #[test]
    fn every_composed_line_reads_back() {
        for family in ["Plan", "Package scheme", "A b c"] {
            for kappa in [
                0.0,
                -0.0,
                0.004,
                0.005,
                0.5436,
                0.775,
                0.999,
                1.0,
                -1.5,
                1e12,
                f64::INFINITY,
                f64::NAN,
            ] {
                let text = table_text(&weights(kappa));
                for companions in [&["INDEX.md"][..], &["a.md", "b/*.md", "c d.md"], &[]] {
                    let every = every_composer(family, kappa, "POC-BRIEF.md", companions, 7, &text);
                    for (entry, want) in every {
                        if let Err(e) = reads_back(&entry, want) {
                            panic!("{e}");
                        }
                    }
                }
            }
        }
    }

    proptest! {
        /// Over any names without the lines' landmarks and any number, each composer's line
        /// reads back as what composed it.
        #[test]
        fn composing_then_parsing_is_the_identity(
            family in "[A-Z][a-z]{0,5}( [A-Z][a-z]{0,5}){0,2}",
            bits in any::<u64>(),
            small in 0.0..1.0f64,
            head in "[a-z]{1,6}(/[a-z]{1,6})?\\.md",
            companions in proptest::collection::vec("[a-z_ ]{1,6}\\.md", 0..4),
            n in any::<usize>(),
        ) {
            let companions: Vec<&str> = companions.iter().map(String::as_str).collect();
            for kappa in [f64::from_bits(bits), small] {
                let text = table_text(&weights(kappa));
                for (entry, want) in every_composer(&family, kappa, &head, &companions, n, &text) {
                    prop_assert!(reads_back(&entry, want).is_ok(), "{:?}", reads_back(&entry, want));
                }
            }
        }
    }

    #[test]
    fn a_name_holding_a_landmark_still_composes_its_line() {
        // The companion is the last word: a family may hold spaces, so a companion that
        // does is read as part of the family, and the line is the same.
        let line: String = accepted("Plan", "a b.md");
        assert_eq!(
            Said::parse(&line),
            Some(Said::Accepted {
                family: "Plan a",
                companion: "b.md"
            })
        );
        let values = Table([0.0; 6]);
        let weights = Table::DEFAULT_WEIGHTS;
        for line in [
            decided::<String>("v 1.00", 0.5, "a.md", &values, &weights, StoreKind::Memory),
            suggest("Plan companions x", 0.5, &["a companions b.md"]),
            left_out("Plan companions x", &["a.md"]),
        ] {
            let said = Said::parse(&line).expect("a composed line");
            assert_eq!(said.line(), line);
        }
    }

    #[test]
    fn words_this_version_does_not_know_are_read_as_words() {
        let said = Said::parse("doc-suggester: abstained new-reason Plan 0.50");
        assert_eq!(
            said,
            Some(Said::Abstained {
                reason: Word::Other("new-reason"),
                family: Some("Plan"),
                confidence: 0.5
            })
        );
        assert_eq!(said.and_then(|s| s.event()), None);
        let said = Said::parse("doc-suggester: suppressed quota Plan 0.91").expect("a line");
        assert!(matches!(
            said,
            Said::Suppressed {
                kind: Word::Other("quota"),
                family: "Plan",
                ..
            }
        ));
        assert_eq!(said.line(), "doc-suggester: suppressed quota Plan 0.91");
    }

    #[test]
    fn lines_the_composer_does_not_write_are_not_read() {
        for line in [
            "",
            "abstained no-signal 0.00",
            "doc-suggester: ",
            "doc-suggester: abstained",
            "doc-suggester: abstained no-signal",
            "doc-suggester: abstained no-signal 0.0",
            "doc-suggester: abstained no-signal 0.00 ",
            "doc-suggester: abstained low-confidence Plan .54",
            "doc-suggester: suggest Plan 0.91",
            "doc-suggester: suggest Plan companions a.md",
            "doc-suggester: decided Plan 0.91 …",
            "doc-suggester: decided Changelog 0.42 silent …",
            "doc-suggester: decided Plan 0.87 a.md scope=1.00 weights scope=0.35 store=memory",
            "doc-suggester: suppressed cap 0.91",
            "doc-suggester: accepted Plan",
            "doc-suggester: rejected Plan a.md",
            "doc-suggester: activated (bundle 0.2.1, families 07, threshold 0.75)",
            "doc-suggester: disabled",
            "doc-suggester: store unavailable (locked)",
            "doc-suggester: noted Plan 0.91",
        ] {
            assert_eq!(Said::parse(line), None, "{line:?}");
        }
    }

    #[test]
    fn names_compare_by_their_text() {
        assert_eq!(Names::List(&["a.md", "b.md"]), Names::Joined("a.md,b.md"));
        assert_eq!(Names::List(&[]), Names::Joined(""));
        assert_ne!(Names::List(&["a.md"]), Names::Joined("a.md,b.md"));
        assert_eq!(
            Names::Joined("a.md,b.md").iter().collect::<Vec<_>>(),
            ["a.md", "b.md"]
        );
        assert_eq!(Names::Joined("").iter().count(), 0);
        assert_eq!(Names::List(&["x"]).iter().collect::<Vec<_>>(), ["x"]);
    }
}
