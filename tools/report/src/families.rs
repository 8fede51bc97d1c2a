//! The conventions found: each family of the pack in use with its companions, how each is
//! named, how often it changes with its family, how often the backtest's notes naming it were
//! followed, and the rate this machine has learned for it.

use crate::figure::{self, Source, count, interval, percent, share};
use crate::learned::rate_cell;
use crate::{Input, Learned};
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_history::backtest::kinds::kind_of;
use docsuggest_schema::{Companion, Family, RateRow};
use maud::{Markup, html};
use std::collections::HashMap;

/// The families, each with its table of companions.
pub fn section(input: &Input<'_>) -> Markup {
    let pack = &input.pack.pack;
    let kinds = kinds(input);
    let rows = learned_rows(&input.learned);
    let mined = pack.mined.is_some();
    html! {
        p {
            (pack.families.len()) " conventions, from " (input.pack.source) "."
            @if let Some(m) = &pack.mined {
                " They were mined from commits " code { (figure::short(&m.from)) } " to " code { (figure::short(&m.to)) }
                @if let Some(v) = &m.validated {
                    "; the newer part, from " code { (figure::short(v)) } ", chose which to keep"
                }
                "."
            }
        }
        @for family in &pack.families {
            (family_table(input, family, &kinds, &rows, mined))
        }
        p.glossary {
            em { "How it is named" } ": a file named as it is; a file named from the changed file (a template: "
            code { "tests/test_{}.py" } " for " code { "src/x.py" } "); a new file in a directory (" code { "changelog.d/<name>.md" }
            "); any file matching a pattern; or a file named only for some files of the family. "
            em { "Share when its family changes" } ": "
            @if mined { "how often a commit that changed the family changed it too, recent commits weighing more (its prior). " }
            @else { "the weight the pack gives it (its prior). " }
            em { "Kept on" } ": of the newer commits that changed the family, how many changed it too. "
            em { "Followed when named" } ": of the backtest's notes naming it on scored commits, the share whose commit changed it, with a 95 % interval. "
            em { "Learned here" } ": the rate this machine's store has learned from agents' sessions, with a 95 % interval."
        }
    }
}

/// One family: its rules, its notes in the backtest, its companions.
fn family_table(
    input: &Input<'_>,
    family: &Family,
    kinds: &HashMap<(String, String), &'static str>,
    rows: &HashMap<(&str, &str), &RateRow>,
    mined: bool,
) -> Markup {
    let learning = input.backtest.runs.iter().find(|r| r.name == "learning");
    let run = Source::root().at("runs").at("learning");
    let noted = learning.and_then(|r| r.figures.by_family.get(&family.name));
    html! {
        h3 { (family.name) }
        p.small {
            "Files matching " @for (i, rule) in family.rules.iter().enumerate() {
                @if i > 0 { ", " } code { (rule) }
            }
            @if let Some(f) = noted {
                @let at = run.at("by_family").at(&family.name);
                ". The learning engine made " (count(&at.at("notes"), f.notes)) " notes for it on the scored commits; "
                (share(&at.at("companion_precision"), f.companion_precision)) " of the files they named were followed."
            } @else { "." }
        }
        table.companions {
            thead { tr {
                th { "companion" } th { "how it is named" }
                th.num { "share when its family changes" }
                @if mined { th.num { "kept on" } }
                th.num { "followed when named (scored commits)" }
                th.num { "learned here" }
            } }
            tbody {
                @for c in &family.companions {
                    tr {
                        td { code { (c.path) } }
                        td { (how_named(kinds.get(&(family.name.clone(), c.path.clone())).copied(), c)) }
                        td.num { (percent(c.prior)) }
                        @if mined { td.num { (kept_on(c)) } }
                        td.num { (followed_cell(input, &family.name, &c.path)) }
                        td.num { (rate_cell(rows.get(&(family.name.as_str(), c.path.as_str())).copied())) }
                    }
                }
            }
        }
    }
}

/// The kind of every companion of the pack shown, as the backtest counts kinds.
fn kinds(input: &Input<'_>) -> HashMap<(String, String), &'static str> {
    let Ok(compiled) = CompiledPack::compile(&input.pack.pack, &input.pack.source) else {
        return HashMap::new();
    };
    compiled
        .families
        .iter()
        .flat_map(|f| {
            f.companions
                .iter()
                .map(|c| ((f.name.clone(), c.path.clone()), kind_of(c)))
        })
        .collect()
}

/// The store's rows for companions (not a family's own row, not a boundary row).
fn learned_rows(learned: &Learned) -> HashMap<(&str, &str), &RateRow> {
    match learned {
        Learned::Read(r) => r
            .rows
            .iter()
            .filter(|(k, _)| !k.companion.is_empty() && k.boundary_companion().is_none())
            .map(|(k, row)| ((k.family.as_str(), k.companion.as_str()), row))
            .collect(),
        _ => HashMap::new(),
    }
}

/// How a companion is named, in words.
fn how_named(kind: Option<&'static str>, c: &Companion) -> Markup {
    html! {
        @match kind {
            Some("literal") => "this file",
            Some("glob") => "any file matching",
            Some("template") => "named from the changed file",
            Some("new-file") => "a new file here",
            Some("per-file") => {
                @match c.for_files.as_slice() {
                    [one] => { "only for " code { (one) } },
                    [one, rest @ ..] => { "only for " code { (one) } " and " (rest.len()) " more" },
                    [] => "only for some files",
                }
            },
            _ => "–",
        }
    }
}

/// A mined companion's figures on the newer part of the history.
fn kept_on(c: &Companion) -> Markup {
    html! {
        @match c.validated {
            Some(v) if v.named > 0 => {
                (v.followed) " of " (v.named) @if v.named == 1 { " commit" } @else { " commits" }
            },
            _ => "–",
        }
    }
}

/// How often the learning engine's notes naming the companion were followed, from the
/// backtest's `companion_hit_rate`.
fn followed_cell(input: &Input<'_>, family: &str, companion: &str) -> Markup {
    let key = format!("{family} {companion}");
    let figures = input
        .backtest
        .runs
        .iter()
        .find(|r| r.name == "learning")
        .and_then(|r| r.figures.companion_hit_rate.get(&key));
    let at = Source::root()
        .at("runs")
        .at("learning")
        .at("companion_hit_rate")
        .at(&key);
    html! {
        @match figures {
            Some(f) if f.named > 0 => {
                (share(&at.at("hit_rate"), f.hit_rate)) " of " (count(&at.at("named"), f.named))
                @if let Some(p) = f.hit_rate { " " span.interval { "(" (interval(p, f.named as f64)) ")" } }
            },
            _ => span.none { "not named" },
        }
    }
}
