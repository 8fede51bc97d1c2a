//! A pack's companions by kind — a file, a glob, a template, a new file, a per-file companion —
//! and how often the notes naming each kind were followed: what `init` and `backtest` report
//! of a mined pack, so its owner sees which kinds of rule carry it.

use super::score::Figures;
use docsuggest_engine::compiled::{CompanionForm, CompiledCompanion, CompiledPack};
use std::collections::BTreeMap;

/// The kinds, in report order.
pub const KINDS: [&str; 5] = ["literal", "glob", "template", "new-file", "per-file"];

/// The kind of a pack companion.
pub fn kind_of(companion: &CompiledCompanion) -> &'static str {
    if !companion.for_files.is_empty() {
        return "per-file";
    }
    match companion.form {
        CompanionForm::Literal | CompanionForm::Escaping => "literal",
        CompanionForm::Template => "template",
        CompanionForm::Placeholder => "new-file",
        CompanionForm::Glob { .. } | CompanionForm::AnySubdir { .. } => "glob",
    }
}

/// One kind's figures.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct KindFigures {
    /// `literal`, `glob`, `template`, `new-file` or `per-file`.
    pub kind: &'static str,
    /// Companions of this kind in the pack.
    pub companions: usize,
    /// Times the learning engine's notes named one.
    pub named: u64,
    /// Of those, the share the commit went on to touch.
    pub hit_rate: Option<f64>,
}

/// The kinds `pack` holds, with what `learning` (the learning engine's figures) made of each.
pub fn figures(pack: &CompiledPack, learning: &Figures) -> Vec<KindFigures> {
    let mut by_key: BTreeMap<String, &'static str> = BTreeMap::new();
    let mut out: BTreeMap<&'static str, (usize, u64, f64)> = BTreeMap::new();
    for family in &pack.families {
        for c in &family.companions {
            let kind = kind_of(c);
            by_key.insert(format!("{} {}", family.name, c.path), kind);
            out.entry(kind).or_default().0 += 1;
        }
    }
    for (key, figures) in &learning.companion_hit_rate {
        let Some(kind) = by_key.get(key) else {
            continue;
        };
        let entry = out.entry(kind).or_default();
        entry.1 += figures.named;
        entry.2 += figures.hit_rate.unwrap_or(0.0) * figures.named as f64;
    }
    KINDS
        .iter()
        .filter_map(|kind| {
            let (companions, named, hits) = *out.get(kind)?;
            Some(KindFigures {
                kind,
                companions,
                named,
                hit_rate: (named > 0).then(|| hits / named as f64),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backtest::score::CompanionFigures;
    use docsuggest_schema::Pack;

    #[test]
    fn companions_are_counted_and_scored_by_kind() {
        let text = r#"{"families": [{"name": "Src", "rules": ["src/*.py"], "companions": [
            {"path": "tests/test_{}.py", "prior": 0.8},
            {"path": "CHANGES.rst", "prior": 0.5},
            {"path": "docs/*.md", "prior": 0.4},
            {"path": "changelog.d/<name>.md", "prior": 0.6},
            {"path": "tests/test_basic.py", "prior": 0.6, "for": ["src/app.py"]}]}]}"#;
        let pack = CompiledPack::compile(&Pack::from_json_str(text, "p").expect("valid"), "p")
            .expect("compiles");
        let mut learning = Figures::default();
        for (companion, named, hit_rate) in [
            ("tests/test_{}.py", 10, 0.7),
            ("tests/test_basic.py", 4, 0.5),
            ("CHANGES.rst", 0, 0.0),
        ] {
            learning.companion_hit_rate.insert(
                format!("Src {companion}"),
                CompanionFigures {
                    named,
                    hit_rate: (named > 0).then_some(hit_rate),
                },
            );
        }
        let kinds = figures(&pack, &learning);
        let rows: Vec<(&str, usize, u64, Option<f64>)> = kinds
            .iter()
            .map(|k| (k.kind, k.companions, k.named, k.hit_rate))
            .collect();
        assert_eq!(
            rows,
            [
                ("literal", 1, 0, None),
                ("glob", 1, 0, None),
                ("template", 1, 10, Some(0.7)),
                ("new-file", 1, 0, None),
                ("per-file", 1, 4, Some(0.5)),
            ]
        );
    }
}
