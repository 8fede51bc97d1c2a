//! The committed store files of every released schema version (`store-v1.redb` to
//! `store-v5.redb`): tests open a copy and find exactly what it holds, the older ones after
//! their upgrade.
//!
//! The generator below wrote them; a test checks that it still reproduces the same contents.
//! `DOCSUGGEST_REGEN_FIXTURES=1 cargo test -p docsuggest-store --test store fixture` rewrites
//! the fixture of this build's schema version only: each file stands for what its version
//! wrote.

use crate::common::{self, decision, resolution, silence};
use docsuggest_schema::rate::{FORGET, fold};
use docsuggest_schema::{
    DecisionStore, Durability, MinedPack, Outcome, RateKey, RateRow, StoreContents,
};
use docsuggest_store::{RedbStore, SCHEMA_VERSION, SeqMarks, StoreOptions, check_fold, same_bits};
use std::path::{Path, PathBuf};

fn fixture() -> PathBuf {
    fixture_of(1)
}

fn fixture_of(version: u32) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/fixtures/store-v{version}.redb"))
}

fn options(path: &Path) -> StoreOptions {
    StoreOptions {
        ring_capacity: 4,
        durability: Durability::Immediate,
        ..StoreOptions::new(path)
    }
}

/// The mined pack the generator keeps (from schema v4 on) for the fixture's workspace.
fn mined() -> MinedPack {
    MinedPack {
        pack: r#"{"families": [{"name": "Src", "rules": ["src/*.py"], "threshold": 0.5, "companions": [{"path": "tests/test_a.py", "prior": 0.9}]}]}"#.into(),
        head: "3f9a0c1d2e3f4a5b6c7d8e9f00112233445566ff".into(),
        commits: 240,
        miner: 1,
    }
}

/// The mined packs a fixture of `version`, upgraded, holds: none before v4.
fn mined_of(version: u32) -> Vec<(String, MinedPack)> {
    if version >= 4 {
        vec![(common::WORKSPACE.to_string(), mined())]
    } else {
        vec![]
    }
}

/// Five resolutions (the first already folded into base by a ring of 4), one silence among
/// them, one decision left pending, and (schema v4) one mined pack.
fn generate(path: &Path) {
    let mut s = RedbStore::open(options(path)).expect("create");
    s.put_mined_pack(common::WORKSPACE, mined()).expect("mined");
    let pending = |family: &str, s: &mut RedbStore| {
        let mut d = decision(family);
        d.seq = s.record_pending(d.clone()).expect("pending");
        d
    };
    let d1 = pending("Plan", &mut s);
    s.resolve(resolution(&d1, Outcome::Accepted, Some("README.md")))
        .expect("r1");
    let d2 = pending("Plan", &mut s);
    s.resolve(resolution(&d2, Outcome::Rejected, None))
        .expect("r2");
    s.record_silent(silence("Scheme")).expect("r3");
    let d4 = pending("Scheme", &mut s);
    s.resolve(resolution(&d4, Outcome::Rejected, None))
        .expect("r4");
    let d5 = pending("Plan", &mut s);
    s.resolve(resolution(
        &d5,
        Outcome::Accepted,
        Some("Documentation/INDEX.md"),
    ))
    .expect("r5");
    pending("Plan", &mut s);
    s.close().expect("close");
}

/// Everything the store at `path` holds, as comparable values.
fn contents_at(path: &Path) -> impl PartialEq + std::fmt::Debug + use<> {
    common::contents(&RedbStore::open(options(path)).expect("open"))
}

#[test]
fn the_generator_reproduces_the_fixture() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fresh = dir.path().join("fresh.redb");
    generate(&fresh);
    if std::env::var_os("DOCSUGGEST_REGEN_FIXTURES").is_some() {
        let current = fixture_of(SCHEMA_VERSION);
        let staged = current.with_extension("redb.tmp");
        std::fs::copy(&fresh, &staged).expect("stage fixture");
        std::fs::rename(&staged, &current).expect("install fixture");
    }
    // Every fixture, upgraded where it is older, holds what the generator writes today: the
    // v1 → v2 upgrade adds only zero shadow counts, the v2 → v3 upgrade only moves the moves,
    // the v3 → v4 upgrade only adds the (empty) mined table, and the v4 → v5 upgrade seeds
    // base rows of one observation with exactly that observation's weight (one), then replays
    // history as this build does.
    for version in 1..=SCHEMA_VERSION {
        let copy = dir.path().join(format!("copy-v{version}.redb"));
        std::fs::copy(fixture_of(version), &copy).expect("copy the fixture");
        assert_eq!(
            contents_at(&fresh),
            contents_at(&copy),
            "store-v{version}.redb"
        );
        let s = RedbStore::open(options(&copy)).expect("open");
        assert_eq!(
            s.mined_packs().expect("mined"),
            mined_of(version),
            "store-v{version}.redb"
        );
    }
    let s = RedbStore::open(options(&fresh)).expect("open");
    assert_eq!(s.mined_packs().expect("mined"), mined_of(SCHEMA_VERSION));
}

#[test]
fn every_older_fixture_upgrades_to_the_current_version() {
    for version in 1..SCHEMA_VERSION {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("copy.redb");
        std::fs::copy(fixture_of(version), &path).expect("copy the fixture");
        let mut s = RedbStore::open(options(&path)).expect("open");
        let upgrade = s.open_report().upgraded.clone().expect("upgraded");
        assert_eq!((upgrade.from, upgrade.to), (version, SCHEMA_VERSION));
        assert!(upgrade.backup.exists());
        // The mined table is there (empty before v4) and takes a pack like a new store's.
        assert_eq!(s.mined_packs().expect("mined"), mined_of(version));
        assert!(check_fold(&s).expect("fold").is_clean());
        s.put_mined_pack("other-1234", mined()).expect("put");
        drop(s);
        let s = RedbStore::open(options(&path)).expect("reopen");
        assert_eq!(s.open_report().upgraded, None);
        assert_eq!(s.mined_pack("other-1234").expect("read"), Some(mined()));
    }
}

/// `W(n)`: the weight of `n` observations of one row at ages `0..n` (at most
/// `1 / (1 − FORGET)`).
fn window(n: u64) -> f64 {
    (1.0 - FORGET.powi(i32::try_from(n).unwrap_or(i32::MAX))) / (1.0 - FORGET)
}

#[test]
fn the_v4_fixture_upgrades_one_step_gaining_recent_evidence() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("copy.redb");
    std::fs::copy(fixture_of(4), &path).expect("copy the fixture");
    // A ring wider than the fixture's, so the decision left pending closes without evicting
    // anything: base holds what the upgrade seeded.
    let wide = StoreOptions {
        ring_capacity: 16,
        ..options(&path)
    };
    let s = RedbStore::open(wide).expect("open");
    let upgrade = s.open_report().upgraded.clone().expect("upgraded");
    assert_eq!((upgrade.from, upgrade.to), (4, 5));
    assert_eq!(upgrade.backup, dir.path().join("copy.redb.v4.bak"));
    // Base rows: the counts v4 kept, and recent evidence seeded from them — W(n) shared in
    // the counts' proportion.
    let base = s.base_rows().expect("base");
    assert_eq!(
        show(&base),
        show(&[
            (
                RateKey::family("docs-3f9a", "Plan"),
                row(1.0 / 3.0 + 0.1, 1, 0)
            ),
            (
                RateKey::companion("docs-3f9a", "Plan", "README.md"),
                row(1.0 / 3.0 + 0.1, 1, 0)
            ),
        ])
    );
    for (key, row) in &base {
        let n = row.hits() + row.misses();
        let seeded = (
            row.hits() as f64 * window(n) / n as f64,
            row.misses() as f64 * window(n) / n as f64,
        );
        assert_eq!((row.recent_hits, row.recent_misses), seeded, "{key:?}");
        // One observation weighs one, as the move it was.
        assert_eq!((row.recent_hits, row.recent_misses), (1.0, 0.0), "{key:?}");
    }
    // Live rows: the fold of the seeded base and each key's moves in history order, bit for
    // bit.
    let history = s.history().expect("history");
    let base: std::collections::BTreeMap<RateKey, RateRow> = base.into_iter().collect();
    let live = s.rate_rows().expect("rates");
    assert_eq!(live.len(), 6);
    for (key, row) in &live {
        let moves = history
            .iter()
            .flat_map(|e| &e.moves)
            .filter(|m| m.key == *key);
        assert!(
            same_bits(row, &fold(base.get(key).copied(), moves)),
            "{key:?}"
        );
    }
    // The Plan family row: accepted (base), rejected, accepted: the reject aged the first
    // accept once and the last accept aged both.
    let family = &live[0];
    assert_eq!(family.0, RateKey::family("docs-3f9a", "Plan"));
    assert_eq!(
        (family.1.recent_hits, family.1.recent_misses),
        (FORGET * FORGET + 1.0, FORGET)
    );
    assert!(check_fold(&s).expect("fold").is_clean());
    // Recompute finds nothing to change, under every model, in parallel or not.
    for model in [
        docsuggest_schema::RateModel::Step,
        docsuggest_schema::RateModel::Beta,
        docsuggest_schema::RateModel::Evidence,
    ] {
        for parallel in [false, true] {
            let recomputed = docsuggest_store::recompute::recompute(
                &s,
                docsuggest_store::recompute::RecomputeOptions { model, parallel },
                &std::sync::atomic::AtomicU64::new(0),
            )
            .expect("recompute");
            assert_eq!(recomputed.report.rows_differing, 0, "{model:?} {parallel}");
        }
    }
    // Its mined pack is kept.
    assert_eq!(s.mined_packs().expect("mined"), mined_of(4));
}

#[test]
fn the_v3_fixture_upgrades_gaining_the_mined_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("copy.redb");
    std::fs::copy(fixture_of(3), &path).expect("copy the fixture");
    let before = contents_at(&fixture_copy(&dir, 3));
    let s = RedbStore::open(options(&path)).expect("open");
    let upgrade = s.open_report().upgraded.clone().expect("upgraded");
    assert_eq!((upgrade.from, upgrade.to), (3, 5));
    assert_eq!(upgrade.backup, dir.path().join("copy.redb.v3.bak"));
    assert_eq!(s.mined_pack(common::WORKSPACE).expect("read"), None);
    drop(s);
    assert_eq!(contents_at(&path), before);
}

/// A second copy of a fixture in `dir`, for comparisons.
fn fixture_copy(dir: &tempfile::TempDir, version: u32) -> PathBuf {
    let path = dir.path().join(format!("other-v{version}.redb"));
    std::fs::copy(fixture_of(version), &path).expect("copy the fixture");
    path
}

#[test]
fn the_v2_fixture_upgrades_keeping_every_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("copy.redb");
    std::fs::copy(fixture_of(2), &path).expect("copy the fixture");
    let s = RedbStore::open(options(&path)).expect("open");
    let upgrade = s.open_report().upgraded.clone().expect("upgraded");
    assert_eq!((upgrade.from, upgrade.to), (2, 5));
    assert_eq!(s.history().expect("history").len(), 4);
    assert!(check_fold(&s).expect("fold").is_clean());
    let recomputed = docsuggest_store::recompute::recompute(
        &s,
        docsuggest_store::recompute::RecomputeOptions {
            model: docsuggest_schema::RateModel::Step,
            parallel: true,
        },
        &std::sync::atomic::AtomicU64::new(0),
    )
    .expect("recompute");
    assert_eq!(recomputed.report.decisions, 4);
    assert_eq!(recomputed.report.rows_differing, 0);
}

#[test]
fn the_current_fixture_opens_without_an_upgrade() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("copy.redb");
    std::fs::copy(fixture_of(SCHEMA_VERSION), &path).expect("copy the fixture");
    let s = RedbStore::open(options(&path)).expect("open");
    assert_eq!(s.open_report().upgraded, None);
    assert!(check_fold(&s).expect("fold").is_clean());
    // Its mined pack reads back, also through a read-only open.
    assert_eq!(
        s.mined_pack(common::WORKSPACE).expect("read"),
        Some(mined())
    );
    assert_eq!(s.mined_pack("nobody-0000").expect("read"), None);
    drop(s);
    let ro = docsuggest_store::ReadOnlyStore::open(&path).expect("read-only");
    assert_eq!(ro.mined_packs().expect("mined"), mined_of(SCHEMA_VERSION));
}

fn row(step: f64, accepts: u64, rejects: u64) -> RateRow {
    RateRow {
        step,
        accepts,
        rejects,
        ..RateRow::default()
    }
}

fn show(rows: &[(RateKey, RateRow)]) -> Vec<String> {
    rows.iter()
        .map(|(k, r)| {
            format!(
                "{}/{}/{} {:?} {} {}",
                k.workspace, k.family, k.companion, r.step, r.accepts, r.rejects
            )
        })
        .collect()
}

#[test]
fn a_copy_of_the_v1_fixture_upgrades_with_its_exact_contents() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("copy.redb");
    std::fs::copy(fixture(), &path).expect("copy the fixture (never open it in place)");
    let s = RedbStore::open(options(&path)).expect("open");

    let report = s.open_report();
    assert!(!report.created);
    // This build writes schema v5: opening the fixture upgrades it, keeping every entry.
    let upgrade = report.upgraded.clone().expect("upgraded");
    assert_eq!((upgrade.from, upgrade.to), (1, 5));
    // Decision 6 was left pending by the writer: opening closes it as abandoned.
    assert_eq!(report.abandoned, 1);
    assert_eq!(
        s.committed(),
        SeqMarks {
            decision_seq: 6,
            resolution_seq: 6
        }
    );

    let history: Vec<(u64, u64, Outcome, Option<String>, usize)> = s
        .history()
        .expect("history")
        .into_iter()
        .map(|e| {
            (
                e.resolution_seq,
                e.decision.seq,
                e.decision.outcome,
                e.decision.accepted,
                e.moves.len(),
            )
        })
        .collect();
    assert_eq!(
        history,
        [
            (3, 3, Outcome::Silent, None, 0),
            (4, 4, Outcome::Rejected, None, 3),
            (
                5,
                5,
                Outcome::Accepted,
                Some("Documentation/INDEX.md".into()),
                2
            ),
            (6, 6, Outcome::Abandoned, None, 0),
        ]
    );
    assert!(s.pending().expect("pending").is_empty());

    // From 1/3: accept +0.1, reject −0.2 (no clamp is reached).
    let n = 1.0 / 3.0;
    assert_eq!(
        show(&s.rate_rows().expect("rates")),
        show(&[
            (
                RateKey::family("docs-3f9a", "Plan"),
                row(n + 0.1 - 0.2 + 0.1, 2, 1)
            ),
            (
                RateKey::companion("docs-3f9a", "Plan", "Documentation/INDEX.md"),
                row(n - 0.2 + 0.1, 1, 1)
            ),
            (
                RateKey::companion("docs-3f9a", "Plan", "README.md"),
                row(n + 0.1 - 0.2, 1, 1)
            ),
            (RateKey::family("docs-3f9a", "Scheme"), row(n - 0.2, 0, 1)),
            (
                RateKey::companion("docs-3f9a", "Scheme", "Documentation/INDEX.md"),
                row(n - 0.2, 0, 1)
            ),
            (
                RateKey::companion("docs-3f9a", "Scheme", "README.md"),
                row(n - 0.2, 0, 1)
            ),
        ])
    );
    // Resolutions 1 and 2 (Plan) left the ring of 4 and live on in base.
    assert_eq!(
        show(&s.base_rows().expect("base")),
        show(&[
            (
                RateKey::family("docs-3f9a", "Plan"),
                row(n + 0.1 - 0.2, 1, 1)
            ),
            (
                RateKey::companion("docs-3f9a", "Plan", "Documentation/INDEX.md"),
                row(n - 0.2, 0, 1)
            ),
            (
                RateKey::companion("docs-3f9a", "Plan", "README.md"),
                row(n + 0.1 - 0.2, 1, 1)
            ),
        ])
    );
    assert!(check_fold(&s).expect("fold").is_clean());
}

#[test]
fn the_fixture_stays_small() {
    for version in 1..=SCHEMA_VERSION {
        let len = std::fs::metadata(fixture_of(version))
            .expect("fixture")
            .len();
        assert!(len <= 256 * 1024, "store-v{version}.redb is {len} bytes");
    }
}

#[test]
fn every_fixture_moves_its_path_keyed_rows_to_a_repository_key() {
    // What every released schema wrote is keyed by the workspace's path; the engine moves it
    // to the repository key the first time it keys the workspace by its repository.
    let repo = "git-0123456789ab";
    for version in 1..=SCHEMA_VERSION {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = fixture_copy(&dir, version);
        let mut s = RedbStore::open(options(&path)).expect("open");
        let rows = s.rate_rows().expect("rows");
        let base = s.base_rows().expect("base");
        let (history, pending) = (s.history().expect("history"), s.pending().expect("pending"));
        assert!(!rows.is_empty() && !base.is_empty());
        assert!(rows.iter().all(|(k, _)| k.workspace == common::WORKSPACE));

        let moved = s
            .rekey_workspace(common::WORKSPACE, repo)
            .expect("re-keyed");
        assert_eq!(
            (moved.rates, moved.base, moved.history, moved.pending),
            (rows.len(), base.len(), history.len(), pending.len()),
            "v{version}"
        );
        assert_eq!(moved.mined, version >= 4, "v{version}");
        let rekeyed = |rows: Vec<(RateKey, RateRow)>| -> Vec<(RateKey, RateRow)> {
            rows.into_iter()
                .map(|(k, row)| (RateKey::companion(repo, &k.family, &k.companion), row))
                .collect()
        };
        let now = s.rate_rows().expect("rows");
        assert_eq!(now.len(), rows.len());
        for ((k, a), (want, b)) in now.iter().zip(rekeyed(rows)) {
            assert_eq!(*k, want);
            assert!(same_bits(a, &b), "v{version} {k:?}");
        }
        assert_eq!(s.base_rows().expect("base"), rekeyed(base));
        assert!(check_fold(&s).expect("fold").is_clean(), "v{version}");
        let after = s.history().expect("history");
        assert_eq!(after.len(), history.len());
        assert!(after.iter().all(|e| e.decision.workspace == repo));
        assert!(
            s.pending()
                .expect("pending")
                .iter()
                .all(|d| d.workspace == repo)
        );
        s.close().expect("close");
        // It lasts: the reopened file holds the new keys only.
        let s = RedbStore::open(options(&path)).expect("reopen");
        assert!(
            s.rate_rows()
                .expect("rows")
                .iter()
                .all(|(k, _)| k.workspace == repo)
        );
    }
}
