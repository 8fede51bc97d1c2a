//! The byte-stable ledger lines (docs/BEHAVIOUR.md, "The ledger"). Every line the engine writes
//! is composed in this module, from what it says ([`Said`]), and a line is read back into what
//! it says only here ([`Said::parse`]): the one place that knows the lines' format, both ways.
//! This file holds what both ways share (what a line says, its event, its words); `compose.rs`
//! writes lines and `read.rs` reads them back.
//!
//! The composers answer an [`Entry`](crate::call_ledger::Entry) (or its text): the line and
//! the [`Event`] it records, which a [`crate::Ledger`] keeps beside the line, so what counts
//! the lines ([`crate::Stats`]) reads their events rather than their words.

mod compose;
mod read;
#[cfg(test)]
mod tests;

pub(crate) use compose::push_fixed2;
pub use compose::{
    abstained, accepted, activated, decided, decided_weighted, disabled, left_out, rejected,
    store_unavailable, suggest, suppressed, table_text,
};
pub use read::body;

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
}
