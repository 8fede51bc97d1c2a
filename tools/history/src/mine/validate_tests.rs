//! Validated selection on synthetic histories.

use crate::history::{Commit, Status};
use crate::{MineOptions, Mined, MinedFamily, mine};

/// 300 commits, each changing `src/modK.rs`, with `tests/modK_test.rs` in `tested` of every
/// ten; `extra(i)` names more files commit `i` changes.
fn history(tested: usize, extra: impl Fn(usize) -> Vec<String>) -> (Vec<Commit>, Vec<String>) {
    let commits = (0..300)
        .map(|i| {
            let k = i % 5;
            let mut files = vec![format!("src/mod{k}.rs")];
            if i / 5 % 10 < tested {
                files.push(format!("tests/mod{k}_test.rs"));
            }
            files.extend(extra(i));
            files.sort();
            Commit {
                id: format!("{i:040x}"),
                files: files.into_iter().map(|f| (Status::Modified, f)).collect(),
                bulk: false,
                odd: false,
            }
        })
        .collect();
    let tip = (0..5)
        .flat_map(|k| [format!("src/mod{k}.rs"), format!("tests/mod{k}_test.rs")])
        .chain(["NEWS.md".to_string(), "CHANGES.md".to_string()])
        .collect();
    (commits, tip)
}

fn family<'m>(mined: &'m Mined, rule: &str) -> &'m MinedFamily {
    mined
        .families
        .iter()
        .find(|f| f.rule == rule)
        .unwrap_or_else(|| panic!("no family {rule}: {mined:?}"))
}

fn named(mined: &Mined, rule: &str) -> Vec<String> {
    family(mined, rule)
        .companions
        .iter()
        .map(|c| c.path.clone())
        .collect()
}

fn fixed() -> MineOptions {
    MineOptions {
        validate: false,
        ..MineOptions::default()
    }
}

#[test]
fn a_companion_the_newer_part_follows_less_than_cochange_is_dropped() {
    // NEWS.md changed with every commit of the older three quarters, then with every second.
    let (commits, tip) = history(10, |i| {
        if i < 225 || i % 2 == 0 {
            vec!["NEWS.md".into()]
        } else {
            vec![]
        }
    });
    let by_rules = mine(&commits, &tip, &fixed());
    assert!(
        named(&by_rules, "src/*.rs").contains(&"NEWS.md".to_string()),
        "the fixed rules keep a companion followed half the time: {by_rules:?}"
    );
    let validated = mine(&commits, &tip, &MineOptions::default());
    let kept = named(&validated, "src/*.rs");
    assert!(!kept.contains(&"NEWS.md".to_string()), "{validated:?}");
    assert_eq!(kept[0], "tests/{}_test.rs");
    let v = validated.validation.as_ref().expect("the history is split");
    assert_eq!((v.proposing_commits, v.validating_commits), (225, 75));
    assert_eq!(v.validated_from, format!("{:040x}", 225));
    // Co-change named the test and NEWS.md there: followed 1 and ½ of the time.
    let cochange = v.cochange_precision.expect("co-change named files");
    assert!((0.7..0.8).contains(&cochange), "{v:?}");
    assert_eq!(v.bar, cochange);
    let template = &family(&validated, "src/*.rs").companions[0];
    let figures = template.validated.expect("kept on its figures");
    assert_eq!((figures.named, figures.followed), (75, 75));
    assert_eq!(validated.unvalidated, None);
}

#[test]
fn a_convention_that_began_in_the_newer_part_is_proposed_and_kept() {
    // Co-change names the test, followed 7 times in 10; CHANGES.md is followed 8 in 10 there.
    let (commits, tip) = history(7, |i| {
        if i >= 240 {
            vec!["CHANGES.md".into()]
        } else {
            vec![]
        }
    });
    let validated = mine(&commits, &tip, &MineOptions::default());
    assert!(
        named(&validated, "src/*.rs").contains(&"CHANGES.md".to_string()),
        "{validated:?}"
    );
}

#[test]
fn a_short_history_is_mined_by_the_fixed_rules_and_says_so() {
    let (mut commits, tip) = history(10, |_| vec![]);
    commits.truncate(60);
    let mined = mine(&commits, &tip, &MineOptions::default());
    assert_eq!(mined.validation, None);
    let why = mined.unvalidated.as_deref().unwrap_or_default();
    assert!(why.contains("too short to validate (60 commits"), "{why}");
    assert_eq!(named(&mined, "src/*.rs")[0], "tests/{}_test.rs");
    assert!(
        mined
            .families
            .iter()
            .flat_map(|f| &f.companions)
            .all(|c| c.validated.is_none())
    );
    // The same history with validation off says that instead.
    let off = mine(&commits, &tip, &fixed());
    assert_eq!(
        off.unvalidated.as_deref(),
        Some("validation is off: mined by the fixed rules")
    );
}
