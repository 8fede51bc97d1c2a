//! The ledger lines, composed and read back.

use super::*;
use crate::call_ledger::{Entry, Line};
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
