//! Reading ledger lines back: what a line says ([`Said`]), read by its fixed words and
//! numbers, and only when the composer would write that very line.

use super::{Abstain, Names, PREFIX, Said, Suppress, Word, Worded, push_fixed2};
use docsuggest_schema::{Heuristic, StoreKind, Table};
use serde::Deserialize;
use serde::de::IntoDeserializer;

impl<'a, T: Worded> Word<'a, T> {
    /// The known word `word` is, or the word itself.
    fn read(word: &'a str) -> Self {
        T::all()
            .iter()
            .copied()
            .find(|known| known.word() == word)
            .map_or(Word::Other(word), Word::Known)
    }
}

impl<'a> Said<'a> {
    /// What `line` says, when it is a line the composer writes: `Some` exactly when
    /// [`Said::line`] gives `line` back, byte for byte (a reason or kind this version does
    /// not know is read as a [`Word::Other`]).
    pub fn parse(line: &'a str) -> Option<Said<'a>> {
        let said = Said::read(body(line)?)?;
        // Only the composer's spelling: numbers as it writes them, no stray spaces.
        (said.line() == line).then_some(said)
    }

    /// The words of a line after the prefix, read by their landmarks: its event word, then
    /// the rest as that event writes it.
    fn read(body: &'a str) -> Option<Said<'a>> {
        let (event, rest) = body.split_once(' ')?;
        match event {
            "disabled" => (rest == "(enabled=false)").then_some(Said::Disabled),
            "activated" => read_activated(rest),
            "suggest" => read_suggest(rest),
            "decided" => read_decided(rest),
            "accepted" => {
                let (family, companion) = rest.rsplit_once(' ')?;
                Some(Said::Accepted { family, companion })
            }
            "rejected" => {
                let (family, companions) = read_named(rest)?;
                Some(Said::Rejected { family, companions })
            }
            "left-out" => {
                let (family, companions) = read_named(rest)?;
                Some(Said::LeftOut { family, companions })
            }
            "abstained" => read_abstained(rest),
            "suppressed" => read_suppressed(rest),
            "store" => {
                let reason = rest.strip_prefix("unavailable (")?;
                let reason = reason.strip_suffix("), using memory")?;
                Some(Said::StoreUnavailable { reason })
            }
            _ => None,
        }
    }
}

/// `(bundle <version>, families <n>, threshold <threshold>)`
fn read_activated(rest: &str) -> Option<Said<'_>> {
    let rest = rest.strip_prefix("(bundle ")?.strip_suffix(')')?;
    let (rest, threshold) = rest.rsplit_once(", threshold ")?;
    let (version, families) = rest.rsplit_once(", families ")?;
    Some(Said::Activated {
        version,
        families: families.parse().ok()?,
        threshold: number(threshold)?,
    })
}

/// `<family> <kappa> companions <names>`: the family may hold spaces, so the landmark is the
/// first ` companions ` after a number.
fn read_suggest(rest: &str) -> Option<Said<'_>> {
    let (family, confidence, companions) =
        rest.match_indices(" companions ")
            .find_map(|(at, landmark)| {
                let (family, kappa) = rest[..at].rsplit_once(' ')?;
                Some((family, number(kappa)?, &rest[at + landmark.len()..]))
            })?;
    Some(Said::Suggest {
        family,
        confidence,
        companions: Names::Joined(companions),
    })
}

/// `<family> <kappa> <head> <values> weights <weights> store=<kind>`, read from its end.
fn read_decided(rest: &str) -> Option<Said<'_>> {
    let (rest, store) = rest.rsplit_once(" store=")?;
    // By the schema's own names (the whole line, composed again, checks that they are the
    // ones the ledger writes).
    let store: Result<StoreKind, serde::de::value::Error> =
        StoreKind::deserialize(store.into_deserializer());
    let store = store.ok()?;
    let (rest, weights) = rest.rsplit_once(" weights ")?;
    read_table(weights)?;
    let (rest, values) = rest.rsplit_once(' ')?;
    let values = read_table(values)?;
    // `<family> <kappa> <head>`: the family ends before the first word after it that is a
    // number.
    let (family, confidence, head) = rest.match_indices(' ').find_map(|(at, _)| {
        let (kappa, head) = rest[at + 1..].split_once(' ')?;
        Some((&rest[..at], number(kappa)?, head))
    })?;
    Some(Said::Decided {
        family,
        confidence,
        head,
        values,
        weights,
        store,
    })
}

/// `<family> companions <names>` (a `rejected` or `left-out` line's rest).
fn read_named(rest: &str) -> Option<(&str, Names<'_>)> {
    let (family, companions) = rest.split_once(" companions ")?;
    Some((family, Names::Joined(companions)))
}

/// `<reason> [<family> ]<kappa>`
fn read_abstained(rest: &str) -> Option<Said<'_>> {
    let (reason, rest) = rest.split_once(' ')?;
    let (family, confidence) = match rest.rsplit_once(' ') {
        Some((family, confidence)) => (Some(family), confidence),
        None => (None, rest),
    };
    Some(Said::Abstained {
        reason: Word::<Abstain>::read(reason),
        family,
        confidence: number(confidence)?,
    })
}

/// `<kind> <family> <kappa>`
fn read_suppressed(rest: &str) -> Option<Said<'_>> {
    let (kind, rest) = rest.split_once(' ')?;
    let (family, confidence) = rest.rsplit_once(' ')?;
    Some(Said::Suppressed {
        kind: Word::<Suppress>::read(kind),
        family,
        confidence: number(confidence)?,
    })
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

/// A table as [`super::table_text`] writes it.
fn read_table(text: &str) -> Option<Table> {
    let mut table = Table([0.0; 6]);
    let mut parts = text.split(',');
    for (i, h) in Heuristic::ALL.iter().enumerate() {
        let value = parts.next()?.strip_prefix(h.name())?.strip_prefix('=')?;
        table.0[i] = number(value)?;
    }
    parts.next().is_none().then_some(table)
}
