//! Durability changes when commits reach the disk, never what they contain.

use crate::common::{Harness, Op, RedbHarness, contents, options, run};
use docsuggest_schema::Durability;
use docsuggest_store::{RedbStore, check_fold};

/// A long deterministic script (a small linear congruential generator picks the steps).
fn script(len: usize) -> Vec<Op> {
    let mut x: u32 = 0x2545_f491;
    (0..len)
        .map(|_| {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let a = (x >> 8) as u8;
            let b = (x >> 16) as u8;
            match (x >> 24) % 16 {
                0..=4 => Op::Pending(a),
                5..=7 => Op::Silent(a),
                8..=9 => Op::Accept(a, b),
                10..=12 => Op::Reject(a),
                13..=14 => Op::Abandon(a),
                _ => Op::Reopen,
            }
        })
        .collect()
}

#[test]
fn immediate_and_group_give_identical_contents() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ops = script(400);
    let mut immediate = RedbHarness::new(options(
        &dir.path().join("i.redb"),
        16,
        Durability::Immediate,
    ));
    let mut group = RedbHarness::new(options(&dir.path().join("g.redb"), 16, Durability::Group));
    let a = run(&mut immediate, &ops);
    let b = run(&mut group, &ops);
    assert_eq!(a, b);
    assert!(a.len() > 150, "the script records {} decisions", a.len());
    assert_eq!(contents(immediate.get()), contents(group.get()));
    assert!(check_fold(group.get()).expect("fold").is_clean());
    assert_eq!(immediate.get().last_durable(), immediate.get().committed());
}

/// A copy of the file taken mid-session is what a crash of the process would leave: it must
/// reopen consistent, holding at least everything reported durable and nothing uncommitted.
#[test]
fn a_crash_image_reopens_consistent_with_the_durable_mark() {
    let dir = tempfile::tempdir().expect("tempdir");
    let live = dir.path().join("live.redb");
    let mut h = RedbHarness::new(options(&live, 8, Durability::Group));
    let ops = script(240);
    for (i, chunk) in ops.chunks(40).enumerate() {
        let chunk: Vec<Op> = chunk
            .iter()
            .filter(|op| !matches!(op, Op::Reopen))
            .cloned()
            .collect();
        run(&mut h, &chunk);
        if i % 2 == 1 {
            h.store().flush().expect("flush");
        }
        let (durable, committed) = (h.get().last_durable(), h.get().committed());
        let image = dir.path().join(format!("crash-{i}.redb"));
        std::fs::copy(&live, &image).expect("copy");
        let reopened =
            RedbStore::open(options(&image, 8, Durability::Group)).expect("reopen image");
        let got = reopened.committed();
        assert!(
            durable.decision_seq <= got.decision_seq && got.decision_seq <= committed.decision_seq,
            "image {i}: durable {durable:?}, committed {committed:?}, reopened {got:?}"
        );
        assert!(durable.resolution_seq <= got.resolution_seq, "image {i}");
        assert!(check_fold(&reopened).expect("fold").is_clean(), "image {i}");
        assert!(reopened.ring_len().expect("ring") <= 8);
    }
}
