//! Damaged store files: a byte changed outside redb (a bad sector, a stray write, a bit flip)
//! is either in space the store does not use — every command then answers exactly what it
//! answers on the healthy file — or the inspection commands refuse the file as corrupt, naming
//! it. Never a panic, never an answer read from damaged bytes as if they were healthy.
//!
//! Without the verification `ReadOnlyStore::open` now runs (redb's page check on an image of
//! the file), a read-only redb open trusts whatever it finds: some flipped bytes make redb
//! panic (`range end index 64809 out of range for slice of length 4096` and the like), others
//! are read as a different sequence number or score. [`unverified`] is that old reading, kept
//! to show what the check prevents.
//!
//! The fixtures `tests/fixtures/damaged-panics.redb` and `damaged-silent.redb` are [`build`]'s
//! store with one byte XORed with `0xff`: the first offset (in [`offsets`]' order) at which
//! the unverified reading panics, and the first at which it answers different content without
//! any error. Regenerate them with
//!
//! ```sh
//! DOCSUGGEST_REGEN_DAMAGED=1 cargo test -p docsuggest-tests --test reliability \
//!     damaged::a_flipped_byte_read_unverified_can_panic_or_read_as_other_content -- --nocapture
//! ```
//!
//! `the_kept_fixtures_are_one_flipped_byte_of_the_built_store` holds them to this procedure;
//! the CLI tests (`tools/cli/tests/cli/damaged.rs`) run the real binary on them.

use crate::scale;
use docsuggest_cli::inspect;
use docsuggest_cli::{evaluate, maintain, transfer};
use docsuggest_host::stores::{self, InspectError, RatesFilter};
use docsuggest_schema::codec;
use docsuggest_schema::{
    CompanionRow, Decision, DecisionStore, Durability, EntryHead, EntryMoves, Outcome, RateEvent,
    RateKey, RateMove, RateRow, Resolution, StoreError, Table,
};
use docsuggest_store::{ReadOnlyStore, RedbStore, StoreOptions, catch_damage};
use redb::{ReadableDatabase, ReadableTable, TableDefinition, TableHandle};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// The kept fixture whose unverified reading makes redb panic.
const PANICS: &str = "damaged-panics.redb";
/// The kept fixture whose unverified reading answers different content without an error.
const SILENT: &str = "damaged-silent.redb";

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The store the fixtures and the corpus damage, built through the public store API: two
/// workspaces, three families, 160 decisions — accepted, rejected, abandoned, gated silences,
/// and five left pending — with scores and kappas that differ from one decision to the next,
/// so a damaged value shows. Deterministic: the same bytes on every run of one build.
pub fn build(path: &Path) {
    let mut options = StoreOptions::new(path);
    options.durability = Durability::Immediate;
    // The same bytes every time: the kept fixtures are this file with one byte flipped.
    options.run = Some(0x5eed);
    let mut store = RedbStore::open(options).expect("open a new store");
    let companions = ["INDEX.md", "ARCHIVE-STYLE.md", "Plans/SEARCH.md"];
    for i in 0..160u32 {
        let ws = ["docs-3f9a", "web-77c1"][(i % 2) as usize];
        let family = ["Plan", "Scheme", "Readme"][(i % 3) as usize];
        let n = f64::from(i);
        let decision = Decision {
            workspace: ws.into(),
            agent: format!("agent-{}", i % 4),
            kappa: 0.5 + n * 0.0021,
            companions: companions
                .iter()
                .zip(0u32..)
                .map(|(c, k)| CompanionRow {
                    path: (*c).into(),
                    score: 0.9 - f64::from(k) * 0.1 - n * 0.000_137,
                    values: Table([1.0, 0.5, 1.0, 0.5, 1.0 / 3.0, 0.25 + f64::from(k) * 0.01]),
                })
                .collect(),
            ..docsuggest_store::testkit::decision(family)
        };
        if i % 5 == 4 {
            store.record_silent(decision).expect("record a silence");
            continue;
        }
        let seq = store.record_pending(decision).expect("record");
        if i >= 155 {
            continue; // left pending
        }
        let key = |c: &str| RateKey::companion(ws, family, c);
        let mv = |c: &str, event, step| RateMove {
            key: key(c),
            event,
            step,
        };
        let accepted = companions[(i % 3) as usize];
        let (outcome, accepted, moves) = match i % 5 {
            0 => (
                Outcome::Accepted,
                Some(accepted.to_string()),
                vec![
                    mv(accepted, RateEvent::Accept, 0.1),
                    mv("", RateEvent::Accept, 0.1),
                ],
            ),
            3 => (Outcome::Abandoned, None, vec![]),
            _ => (
                Outcome::Rejected,
                None,
                companions
                    .iter()
                    .chain(&[""])
                    .map(|c| mv(c, RateEvent::Reject, -0.2))
                    .collect(),
            ),
        };
        store
            .resolve(Resolution {
                decision_seq: seq,
                outcome,
                accepted,
                moves,
            })
            .expect("resolve");
    }
    store.close().expect("close");
}

/// The bytes of [`build`]'s store.
fn built_bytes() -> Vec<u8> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("built.redb");
    build(&path);
    std::fs::read(&path).expect("read the built store")
}

/// `n` offsets spread over a file of `len` bytes, one in each of `n` equal slices, at a
/// deterministic place within it (the run's seed).
fn offsets(len: usize, n: usize) -> Vec<usize> {
    let mut rng = scale::Rng::new(0x0da3_a6ed);
    let slice = (len / n).max(1);
    (0..n.min(len))
        .map(|i| i * slice + rng.below(slice as u64) as usize)
        .collect()
}

/// What reading a file without verification did.
#[derive(Debug, PartialEq, Eq)]
enum Unverified {
    /// Every table, decoded.
    Read(String),
    /// redb or the codec refused it.
    Refused(String),
    /// redb panicked.
    Panicked(String),
}

const RATES: TableDefinition<(&str, &str, &str), &[u8]> = TableDefinition::new("rates");
const BASE: TableDefinition<(&str, &str, &str), &[u8]> = TableDefinition::new("base");
const HISTORY: TableDefinition<u64, &[u8]> = TableDefinition::new("history");
const MOVES: TableDefinition<u64, &[u8]> = TableDefinition::new("moves");
const PENDING: TableDefinition<u64, &[u8]> = TableDefinition::new("pending");
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");

/// Reads every table as inspection did before it verified the file: a read-only redb open,
/// trusted, and every value decoded.
fn unverified(path: &Path) -> Unverified {
    fn all(path: &Path) -> Result<String, String> {
        let s = |e: &dyn std::fmt::Display| e.to_string();
        let db = redb::Builder::new()
            .open_read_only(path)
            .map_err(|e| s(&e))?;
        let txn = db.begin_read().map_err(|e| s(&e))?;
        let mut out = String::new();
        for def in [RATES, BASE] {
            for item in txn
                .open_table(def)
                .map_err(|e| s(&e))?
                .iter()
                .map_err(|e| s(&e))?
            {
                let (k, v) = item.map_err(|e| s(&e))?;
                let row: RateRow = codec::decode(v.value()).map_err(|e| s(&e))?;
                let _ = writeln!(out, "{} {:?} {row:?}", def.name(), k.value());
            }
        }
        let numbered = [HISTORY, MOVES, PENDING];
        for def in numbered {
            for item in txn
                .open_table(def)
                .map_err(|e| s(&e))?
                .iter()
                .map_err(|e| s(&e))?
            {
                let (k, v) = item.map_err(|e| s(&e))?;
                let value = match def.name() {
                    "history" => codec::decode::<EntryHead>(v.value()).map(|x| format!("{x:?}")),
                    "moves" => codec::decode::<EntryMoves>(v.value()).map(|x| format!("{x:?}")),
                    _ => codec::decode::<Decision>(v.value()).map(|x| format!("{x:?}")),
                };
                let _ = writeln!(
                    out,
                    "{} {} {}",
                    def.name(),
                    k.value(),
                    value.map_err(|e| s(&e))?
                );
            }
        }
        for item in txn
            .open_table(META)
            .map_err(|e| s(&e))?
            .iter()
            .map_err(|e| s(&e))?
        {
            let (k, v) = item.map_err(|e| s(&e))?;
            let _ = writeln!(out, "meta {} {}", k.value(), v.value());
        }
        Ok(out)
    }
    // `catch_damage` catches the panic (quietly: the hook is installed below); its message
    // says "redb failed reading it (<panic message>)".
    match catch_damage("unverified", "reading", || {
        Ok(all(path).map_err(|e| e.to_string()))
    }) {
        Ok(Ok(text)) => Unverified::Read(text),
        Ok(Err(e)) => Unverified::Refused(e),
        Err(e) => Unverified::Panicked(e.to_string()),
    }
}

/// What the inspection commands answer on a store file, through the library functions they
/// call: `check`, `rates --json`, `history --json`, `export`, `evaluate --json`.
fn answers(path: &Path) -> Vec<(&'static str, Result<String, InspectError>)> {
    let store = Some(path);
    let json = |v: serde_json::Result<String>| v.expect("encodes");
    let reading = docsuggest_host::protocol::Reading {
        model: docsuggest_schema::RateModel::Evidence,
        ..docsuggest_host::protocol::Reading::of(&docsuggest_schema::Config::default())
    };
    vec![
        ("check", maintain::check(store).map(|r| r.to_string())),
        (
            "rates",
            stores::rates(store, &RatesFilter::All).map(|rows| inspect::rates_json(&rows, reading)),
        ),
        (
            "history",
            stores::history(store, usize::MAX).map(|e| inspect::history_json(&e)),
        ),
        ("export", {
            let mut out = Vec::new();
            transfer::export(store, &mut out)
                .map(|_| String::from_utf8_lossy(&out).into_owned())
                .map_err(|e| match e {
                    transfer::TransferError::Inspect(e) => e,
                    other => panic!("export failed otherwise than reading: {other}"),
                })
        }),
        (
            "evaluate",
            evaluate::evaluate(store, None).map(|r| json(serde_json::to_string(&r))),
        ),
    ]
}

/// Whether `e` is the refusal of a damaged file: corrupt, naming it.
fn is_corrupt_naming(e: &InspectError, path: &Path) -> bool {
    matches!(e, InspectError::Store(StoreError::Corrupt { path: p, .. }) if Path::new(p) == path)
        && e.to_string().contains("is corrupt")
}

/// Why inspection verifies a file before reading it: read unverified, one flipped byte of
/// [`build`]'s store makes redb panic and another is read as different content. Finds the
/// first offset of each; with `DOCSUGGEST_REGEN_DAMAGED=1` also writes them as the kept
/// fixtures (see the module's documentation), which
/// [`the_kept_fixtures_are_one_flipped_byte_of_the_built_store`] checks.
#[test]
fn a_flipped_byte_read_unverified_can_panic_or_read_as_other_content() {
    docsuggest_store::quiet_caught_panics();
    let healthy = built_bytes();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    std::fs::write(&path, &healthy).expect("write");
    let Unverified::Read(expected) = unverified(&path) else {
        panic!("the healthy store does not read");
    };
    let (mut panics, mut silent) = (None, None);
    for at in offsets(healthy.len(), healthy.len() / 8) {
        let mut bytes = healthy.clone();
        bytes[at] ^= 0xff;
        std::fs::write(&path, &bytes).expect("write");
        match unverified(&path) {
            Unverified::Panicked(_) if panics.is_none() => panics = Some((at, bytes)),
            Unverified::Read(text) if text != expected && silent.is_none() => {
                silent = Some((at, bytes));
            }
            _ => {}
        }
        if panics.is_some() && silent.is_some() {
            break;
        }
    }
    let regenerate = std::env::var_os("DOCSUGGEST_REGEN_DAMAGED").is_some_and(|v| v == "1");
    for (name, found) in [(PANICS, panics), (SILENT, silent)] {
        let (at, bytes) = found.unwrap_or_else(|| panic!("no offset makes {name}"));
        if regenerate {
            std::fs::write(fixture(name), bytes).expect("write the fixture");
            eprintln!("{name}: byte {at} of {} flipped", healthy.len());
        }
    }
}

/// The one offset at which `damaged` differs from `healthy`, by XOR 0xff.
fn flipped_at(healthy: &[u8], damaged: &[u8]) -> Option<usize> {
    if healthy.len() != damaged.len() {
        return None;
    }
    let differ: Vec<usize> = (0..healthy.len())
        .filter(|&i| healthy[i] != damaged[i])
        .collect();
    match differ[..] {
        [at] if healthy[at] ^ 0xff == damaged[at] => Some(at),
        _ => None,
    }
}

#[test]
fn the_kept_fixtures_are_one_flipped_byte_of_the_built_store() {
    docsuggest_store::quiet_caught_panics();
    let healthy = built_bytes();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("healthy.redb");
    std::fs::write(&path, &healthy).expect("write");
    let Unverified::Read(expected) = unverified(&path) else {
        panic!("the healthy store does not read");
    };
    for name in [PANICS, SILENT] {
        let damaged = std::fs::read(fixture(name)).expect("the fixture is kept");
        let at = flipped_at(&healthy, &damaged).unwrap_or_else(|| {
            panic!(
                "{name} is not the built store with one byte flipped: regenerate it \
                 (DOCSUGGEST_REGEN_DAMAGED=1, see tests/reliability/damaged.rs)"
            )
        });
        let copy = dir.path().join(name);
        std::fs::write(&copy, &damaged).expect("copy");
        // Without the verification, what the fixture is named for.
        match (name, unverified(&copy)) {
            (PANICS, Unverified::Panicked(_)) => {}
            (SILENT, Unverified::Read(text)) => assert_ne!(text, expected, "{name}"),
            (_, other) => panic!("{name} (byte {at}) no longer shows its damage: {other:?}"),
        }
        // With it: refused as corrupt, naming the file and what to do.
        let err = ReadOnlyStore::open(&copy).expect_err("a damaged file is refused");
        let text = err.to_string();
        assert!(
            matches!(err, StoreError::Corrupt { .. })
                && text.contains(&copy.display().to_string())
                && text.contains("restore it from a backup"),
            "{name}: {text}"
        );
        // The file is left as it was.
        assert_eq!(std::fs::read(&copy).expect("read"), damaged, "{name}");
    }
}

/// A byte flipped at each of N offsets spread over a store file: every inspection command
/// answers exactly what it answers on the healthy file, or refuses the file as corrupt
/// naming it. Never a panic, never a different answer.
#[test]
fn a_flipped_byte_is_read_identically_or_refused_as_corrupt() {
    docsuggest_store::quiet_caught_panics();
    let healthy = built_bytes();
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    std::fs::write(&path, &healthy).expect("write");
    let expected: Vec<(&str, String)> = answers(&path)
        .into_iter()
        .map(|(cmd, a)| {
            (
                cmd,
                a.unwrap_or_else(|e| panic!("{cmd} on the healthy file: {e}")),
            )
        })
        .collect();
    let Unverified::Read(expected_raw) = unverified(&path) else {
        panic!("the healthy store does not read");
    };
    let n = scale::pick(200, 2_000);
    let (mut unused, mut refused) = (0, 0);
    let (mut old_panics, mut old_wrong, mut old_refused) = (0, 0, 0);
    let mut violations = Vec::new();
    for at in offsets(healthy.len(), n) {
        let mut bytes = healthy.clone();
        bytes[at] ^= 0xff;
        std::fs::write(&path, &bytes).expect("write");
        match unverified(&path) {
            Unverified::Panicked(_) => old_panics += 1,
            Unverified::Refused(_) => old_refused += 1,
            Unverified::Read(text) if text != expected_raw => old_wrong += 1,
            Unverified::Read(_) => {}
        }
        let got = std::panic::catch_unwind(|| answers(&path));
        let Ok(got) = got else {
            violations.push(format!("byte {at}: a command panicked"));
            continue;
        };
        let mut all_same = true;
        for ((cmd, answer), (_, want)) in got.into_iter().zip(&expected) {
            match answer {
                Ok(text) if &text == want => {}
                Ok(_) => {
                    all_same = false;
                    violations.push(format!("byte {at}: {cmd} answered different content"));
                }
                Err(e) if is_corrupt_naming(&e, &path) => all_same = false,
                Err(e) => {
                    all_same = false;
                    violations.push(format!("byte {at}: {cmd} failed otherwise: {e}"));
                }
            }
        }
        if all_same {
            unused += 1;
        } else {
            refused += 1;
        }
        // Inspection never writes: the damaged bytes are still there.
        assert_eq!(std::fs::read(&path).expect("read"), bytes, "byte {at}");
    }
    scale::report(
        "damaged store files",
        &[
            ("file_bytes", healthy.len().to_string()),
            ("offsets", n.to_string()),
            ("read_identically", unused.to_string()),
            ("refused_as_corrupt", refused.to_string()),
            ("unverified_panicked", old_panics.to_string()),
            ("unverified_read_wrong", old_wrong.to_string()),
            ("unverified_refused", old_refused.to_string()),
            ("violations", violations.len().to_string()),
        ],
    );
    assert!(violations.is_empty(), "{violations:#?}");
}
