//! The judged call's ledger lines: the only place the judge, the decision's record and the
//! follow-through compose them (`line_format` writes their bytes).

use crate::call_ledger::{Entry, Ledger};
use crate::line_format::{self, Abstain, Suppress};
use docsuggest_schema::{StoreKind, Table};

/// `abstained <reason> [<family>] <kappa>`.
#[inline]
pub(crate) fn abstained(ledger: &mut Ledger, reason: Abstain, family: Option<&str>, kappa: f64) {
    ledger.push(abstained_entry(reason, family, kappa));
}

/// The `abstained` line of a call that ends before it is judged (the caller counts it first).
#[inline]
pub(crate) fn abstained_entry(reason: Abstain, family: Option<&str>, kappa: f64) -> Entry {
    line_format::abstained(reason, family, kappa)
}

/// `left-out <family> <companions>`: what the evidence model leaves out of a note.
#[inline]
pub(crate) fn left_out(ledger: &mut Ledger, family: &str, companions: &[&str]) {
    ledger.push(line_format::left_out(family, companions));
}

/// `suppressed <kind> <family> <kappa>`.
#[inline]
pub(crate) fn suppressed(ledger: &mut Ledger, kind: Suppress, family: &str, kappa: f64) {
    ledger.push(line_format::suppressed(kind, family, kappa));
}

/// `suggest <family> <kappa> companions …`: the note.
#[inline]
pub(crate) fn suggest(ledger: &mut Ledger, family: &str, kappa: f64, companions: &[&str]) {
    ledger.push(line_format::suggest(family, kappa, companions));
}

/// `decided <family> …`: the first companion's values and the weights they were scored with.
#[inline]
pub(crate) fn decided(
    ledger: &mut Ledger,
    family: &str,
    kappa: f64,
    head: &str,
    values: &Table,
    weights: &str,
    store: StoreKind,
) {
    ledger.push(line_format::decided_weighted(
        family, kappa, head, values, weights, store,
    ));
}

/// `accepted <family> <companion>`.
#[inline]
pub(crate) fn accepted(ledger: &mut Ledger, family: &str, companion: &str) {
    ledger.push(line_format::accepted(family, companion));
}

/// `rejected <family> <companions>`.
#[inline]
pub(crate) fn rejected(ledger: &mut Ledger, family: &str, companions: &[&str]) {
    ledger.push(line_format::rejected(family, companions));
}
