//! Bad input of every kind: protocol lines, config patches, packs, stored bytes, store files.
//! Nothing panics, every bad input is answered with an error that names it, and nothing
//! already recorded is lost or altered.
//!
//! Case counts are moderate in CI and large in the long run; every target counts its
//! executions for `RELIABILITY.md`.

use crate::scale;
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_host::host::{self, StoreChoice};
use docsuggest_host::protocol::{Dispatcher, Line, parse_line};
use docsuggest_schema::codec;
use docsuggest_schema::{
    Config, Decision, DecisionStore, HistoryEntry, Outcome, Pack, RateRow, StoreContents, StoreKind,
};
use docsuggest_store::{FailOpenStore, RedbStore, StoreOptions};
use docsuggest_tests::Fixture;
use proptest::prelude::*;
use proptest::test_runner::{Config as RunnerConfig, RngSeed, TestRunner};
use serde_json::{Value, json};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// A runner seeded from the run's seed, so a failure reproduces.
fn runner(short: u32, long: u32) -> TestRunner {
    TestRunner::new(RunnerConfig {
        cases: scale::pick(short, long),
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(scale::seed()),
        ..RunnerConfig::default()
    })
}

/// Runs `test` over `strategy`, counting executions; panics with the minimal failing input.
fn fuzz<S: Strategy>(
    name: &str,
    (short, long): (u32, u32),
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) where
    S::Value: std::fmt::Debug,
{
    let executions = AtomicU64::new(0);
    let result = runner(short, long).run(&strategy, |value| {
        executions.fetch_add(1, Ordering::Relaxed);
        test(value)
    });
    scale::report(
        &format!("fuzz {name}"),
        &[("executions", executions.load(Ordering::Relaxed).to_string())],
    );
    if let Err(e) = result {
        panic!("{name}: {e}");
    }
}

/// JSON of any shape, with the protocol's and config's field names over-represented so the
/// values reach the validation code rather than stopping at "unknown field".
fn json_value() -> impl Strategy<Value = Value> {
    const NAMES: &[&str] = &[
        "id",
        "op",
        "agent",
        "tool",
        "path",
        "cwd",
        "config",
        "workspace",
        "key",
        "threshold",
        "weights",
        "heuristics",
        "learn",
        "learnWindow",
        "maxCompanions",
        "maxNoteChars",
        "cooldownCalls",
        "maxNotesPerTurn",
        "exclude",
        "tools",
        "enabled",
        "log",
        "storeLimit",
        "maxAgents",
        "durability",
        "flushIntervalMs",
        "ringCapacity",
        "acceptBonus",
        "rejectPenalty",
        "rateModel",
        "scope",
        "prior",
        "signature",
        "families",
        "name",
        "kind",
        "rules",
        "companions",
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        (0.0f64..1.5).prop_map(Value::from),
        (0u64..5000).prop_map(Value::from),
        "\\PC{0,16}".prop_map(Value::from),
        prop::sample::select(vec![
            "judge",
            "turn",
            "configure",
            "flush",
            "rates",
            "stats",
            "close",
            "read",
            "immediate",
            "group",
            "step",
            "beta",
            "scope",
            "history",
            "..",
            "/",
            "",
            "Documentation/Plans/X.md",
        ])
        .prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        prop::sample::select(NAMES).prop_map(String::from),
                        "\\PC{0,8}"
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A JSON request of any op, its fields of any shape, one of them dropped now and then.
fn structured_request() -> impl Strategy<Value = Vec<u8>> {
    let op = prop::sample::select(vec![
        "judge",
        "turn",
        "configure",
        "flush",
        "rates",
        "stats",
        "dance",
        "",
        "JUDGE",
    ]);
    (op, json_value(), json_value(), json_value(), any::<u8>()).prop_map(
        |(op, a, b, config, pick)| {
            let mut req = json!({"id": a, "op": op, "agent": b, "tool": "read",
                "path": "Documentation/Plans/X.md", "config": config});
            if let Some(obj) = req.as_object_mut() {
                // Drop a field now and then, to reach "missing field" answers.
                let keys: Vec<String> = obj.keys().cloned().collect();
                if pick % 3 == 0 {
                    obj.remove(&keys[usize::from(pick) % keys.len()]);
                }
            }
            req.to_string().into_bytes()
        },
    )
}

/// A request line: arbitrary bytes or text, a JSON request, or one with bytes flipped.
fn request_line() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        "\\PC{0,64}".prop_map(String::into_bytes),
        structured_request(),
        (
            structured_request(),
            prop::collection::vec((any::<usize>(), any::<u8>()), 1..4)
        )
            .prop_map(|(mut bytes, flips)| {
                for (at, b) in flips {
                    if !bytes.is_empty() {
                        let n = bytes.len();
                        bytes[at % n] = b;
                    }
                }
                bytes
            }),
    ]
}

/// An answer line is one JSON object; an error names a stable kebab-case code and a detail.
fn check_answer(line: &[u8], answer: &str, code: Option<&str>) -> Result<(), TestCaseError> {
    prop_assert!(!answer.contains('\n'), "an answer is one line: {answer}");
    let v: Value = serde_json::from_str(answer)
        .map_err(|e| TestCaseError::fail(format!("answer is not JSON ({e}): {answer}")))?;
    let ok = v.get("ok").and_then(Value::as_bool);
    prop_assert!(ok.is_some(), "no ok field: {answer}");
    if ok == Some(false) {
        let err = &v["error"];
        let c = err["code"].as_str().unwrap_or("");
        prop_assert!(
            !c.is_empty()
                && c.chars()
                    .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '-'),
            "error code {c:?}: {answer}"
        );
        prop_assert_eq!(Some(c), code);
        prop_assert!(
            err["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "error without a detail: {}",
            answer
        );
    }
    if serde_json::from_slice::<Value>(line).is_err() {
        prop_assert_eq!(
            ok,
            Some(false),
            "bad JSON accepted: {:?}",
            String::from_utf8_lossy(line)
        );
    }
    Ok(())
}

fn history_of(dispatcher: &Dispatcher) -> Result<Vec<HistoryEntry>, TestCaseError> {
    match dispatcher.engine().store().contents() {
        Some(c) => c.history().map_err(|e| TestCaseError::fail(e.to_string())),
        None => Err(TestCaseError::fail("the host store shows no contents")),
    }
}

/// A host over a redb store that already learned something. Commits are not fsynced (group
/// durability, flushed only when asked): what is checked here is content, not durability.
fn learned_host(dir: &Path, fixture: &Fixture) -> Dispatcher {
    let config = Config {
        log: false,
        durability: docsuggest_schema::Durability::Group,
        flush_interval_ms: 3_600_000,
        ..Config::default()
    };
    let host = host::start(config, &StoreChoice::File(dir.join("s.redb")), false);
    let mut dispatcher = Dispatcher::for_host(host);
    let cwd = fixture.root().display().to_string();
    for (i, path) in [
        "Documentation/Plans/SEARCH.md",
        "src/lib.rs",
        "x.rs",
        "y.rs",
        "Documentation/Plans/LEARN.md",
        "Documentation/INDEX.md",
    ]
    .iter()
    .enumerate()
    {
        let line =
            json!({"id": i, "op": "judge", "agent": "a", "tool": "read", "path": path, "cwd": cwd});
        let handled = dispatcher.handle_line(&Line::Bytes(line.to_string().into_bytes()));
        assert!(handled.error.is_none(), "{}", handled.answer);
    }
    dispatcher
}

#[test]
fn protocol_lines_are_answered_and_never_lose_what_was_recorded() {
    let fixture = Fixture::poc();
    // One host serves many cases (a new one when a case closed it, and every 64 cases).
    let host: std::cell::RefCell<Option<(tempfile::TempDir, Dispatcher, u32)>> = Default::default();
    fuzz(
        "protocol",
        (2_000, 50_000),
        prop::collection::vec(request_line(), 1..12),
        |lines| {
            let mut slot = host.borrow_mut();
            if slot
                .as_ref()
                .is_none_or(|(_, d, uses)| d.is_closed() || *uses >= 64)
            {
                *slot = None;
                let dir = tempfile::tempdir().expect("tempdir");
                let dispatcher = learned_host(dir.path(), &fixture);
                *slot = Some((dir, dispatcher, 0));
            }
            let Some((_, dispatcher, uses)) = slot.as_mut() else {
                unreachable!("just filled")
            };
            *uses += 1;
            let before = history_of(dispatcher)?;
            prop_assert!(!before.is_empty(), "the host learned something first");
            for line in &lines {
                let parsed = parse_line(line);
                let handled = dispatcher.handle_line(&Line::Bytes(line.clone()));
                check_answer(line, &handled.answer, handled.error)?;
                // A line the parser refuses is answered with the parser's code.
                if let Err((_, e)) = parsed {
                    prop_assert_eq!(handled.error, Some(e.code()));
                }
            }
            let too_long = dispatcher.handle_line(&Line::TooLong { len: 1 << 21 });
            prop_assert_eq!(too_long.error, Some("line-too-long"));
            // Whatever the lines did, the entries recorded before them are still there as
            // they were (the ring is large; new entries may follow).
            let after = history_of(dispatcher)?;
            prop_assert!(after.len() >= before.len());
            prop_assert_eq!(&after[..before.len()], &before[..]);
            prop_assert_eq!(dispatcher.engine().store().kind(), StoreKind::Redb);
            Ok(())
        },
    );
}

#[test]
fn config_patches_apply_whole_or_not_at_all() {
    fuzz("config", (2_000, 200_000), json_value(), |patch| {
        let before = Config::default();
        match before.patched(&patch, "fuzz") {
            Ok(config) => {
                prop_assert!((0.0..=1.0).contains(&config.threshold));
                prop_assert!(config.weights.0.iter().all(|w| (0.0..=1.0).contains(w)));
                prop_assert!(config.learn_window > 0);
                // Applying the same patch again is a no-op.
                prop_assert_eq!(config.patched(&patch, "fuzz").ok(), Some(config.clone()));
            }
            Err(e) => {
                prop_assert!(!e.problems.is_empty(), "an error names its problems");
                let text = e.to_string();
                prop_assert!(text.contains("fuzz"), "{}", text);
                for p in &e.problems {
                    prop_assert!(text.contains(&p.field), "{} not in {}", p.field, text);
                }
            }
        }
        Ok(())
    });
}

fn pack_text() -> impl Strategy<Value = String> {
    let glob = prop_oneof![
        "[a-zA-Z*?/.{},\\[\\]!-]{0,16}",
        Just("Documentation/Plans/*.md".to_string()),
        Just("**/*.md".to_string()),
        Just("{a,b".to_string()),
        Just("[z-a]".to_string()),
    ];
    let family = (
        "\\PC{0,10}",
        prop::collection::vec(glob.clone(), 0..3),
        prop::collection::vec((glob, -0.5f64..1.5), 0..4),
        prop::option::of(-0.5f64..1.5),
        prop::sample::select(vec!["doc", "other", ""]),
    )
        .prop_map(|(name, rules, companions, threshold, kind)| {
            json!({"name": name, "kind": kind, "rules": rules, "threshold": threshold,
                "companions": companions.into_iter()
                    .map(|(path, prior)| json!({"path": path, "prior": prior}))
                    .collect::<Vec<_>>()})
        });
    prop_oneof![
        "\\PC{0,128}",
        json_value().prop_map(|v| v.to_string()),
        (
            prop::collection::vec("[a-zA-Z./]{0,12}", 0..3),
            prop::collection::vec(family, 0..4)
        )
            .prop_map(|(signature, families)| {
                json!({"signature": signature, "families": families}).to_string()
            }),
    ]
}

#[test]
fn packs_are_refused_with_their_problems_or_compile() {
    let targets = [
        "Documentation/Plans/X.md",
        "README.md",
        "a/b/c.md",
        "",
        "**",
    ];
    fuzz("pack", (2_000, 200_000), pack_text(), |text| {
        match Pack::from_json_str(&text, "ws/.dsh/doc-pack.json") {
            Ok(pack) => match CompiledPack::compile(&pack, "ws/.dsh/doc-pack.json") {
                Ok(compiled) => {
                    for t in targets {
                        let _ = compiled.detect(t);
                    }
                }
                Err(e) => {
                    prop_assert!(e.to_string().contains("ws/.dsh/doc-pack.json"), "{}", e);
                }
            },
            Err(e) => {
                prop_assert!(!e.problems.is_empty());
                prop_assert!(e.to_string().contains("ws/.dsh/doc-pack.json"), "{}", e);
            }
        }
        Ok(())
    });
}

fn sample_entry() -> HistoryEntry {
    let mut d = crate::workload::decision("docs-3f9a", "Plan");
    d.seq = 7;
    d.outcome = Outcome::Rejected;
    let r = crate::workload::resolution(&d, Outcome::Rejected, None);
    HistoryEntry {
        resolution_seq: 3,
        decision: d,
        moves: r.moves,
    }
}

#[test]
fn the_codec_refuses_bytes_it_did_not_write() {
    let valid = codec::encode(&sample_entry()).expect("encode");
    // The bytes the codec wrote read back as exactly what was written.
    let back: HistoryEntry = codec::decode(&valid).expect("decodes");
    assert_eq!(back, sample_entry());
    let bytes = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..96),
        // A valid value with bytes flipped, cut, or extended.
        (
            prop::collection::vec((any::<usize>(), any::<u8>()), 0..4),
            any::<usize>(),
            prop::collection::vec(any::<u8>(), 0..4)
        )
            .prop_map(move |(flips, cut, tail)| {
                let mut b = valid.clone();
                for (at, v) in flips {
                    let n = b.len();
                    b[at % n] = v;
                }
                b.truncate(1 + cut % b.len());
                b.extend(tail);
                b
            }),
    ];
    fuzz("codec", (10_000, 1_000_000), bytes, |bytes| {
        round_trips::<HistoryEntry>(&bytes)?;
        round_trips::<Decision>(&bytes)?;
        round_trips::<RateRow>(&bytes)
    });
}

/// What `bytes` decode to, if anything, is a value the codec writes and reads back unchanged
/// (as `schema/src/codec/props.rs` checks); what does not decode is an error with a message.
fn round_trips<T>(bytes: &[u8]) -> Result<(), TestCaseError>
where
    T: serde::Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
{
    match codec::decode::<T>(bytes) {
        Ok(value) => {
            let written = codec::encode(&value).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let read: T =
                codec::decode(&written).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&read, &value);
            let again = codec::encode(&read).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(again, written);
        }
        Err(e) => prop_assert!(!e.to_string().is_empty()),
    }
    Ok(())
}

/// A store file with history, closed; its bytes.
fn learned_file(dir: &Path) -> Vec<u8> {
    let path = dir.join("learned.redb");
    let mut store = RedbStore::open(StoreOptions {
        ring_capacity: 8,
        ..StoreOptions::new(&path)
    })
    .expect("open");
    for i in 0..24 {
        let mut d = crate::workload::decision("docs-3f9a", ["Plan", "Scheme"][i % 2]);
        d.seq = store.record_pending(d.clone()).expect("record");
        let outcome = if i % 3 == 0 {
            Outcome::Accepted
        } else {
            Outcome::Rejected
        };
        let c = (outcome == Outcome::Accepted).then_some("README.md");
        store
            .resolve(crate::workload::resolution(&d, outcome, c))
            .expect("resolve");
    }
    store.close().expect("close");
    drop(store);
    std::fs::read(&path).expect("read")
}

#[derive(Clone, Debug)]
enum Damage {
    Flip(Vec<(usize, u8)>),
    ZeroPage(usize),
    Truncate(usize),
    Append(Vec<u8>),
    SwapPages(usize, usize),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        prop::collection::vec((any::<usize>(), any::<u8>()), 1..16).prop_map(Damage::Flip),
        any::<usize>().prop_map(Damage::ZeroPage),
        any::<usize>().prop_map(Damage::Truncate),
        prop::collection::vec(any::<u8>(), 1..9000).prop_map(Damage::Append),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Damage::SwapPages(a, b)),
    ]
}

fn apply_damage(bytes: &mut Vec<u8>, damage: &Damage) {
    const PAGE: usize = 4096;
    let pages = bytes.len() / PAGE;
    match damage {
        Damage::Flip(flips) => {
            for (at, v) in flips {
                let n = bytes.len();
                bytes[at % n] ^= v | 1;
            }
        }
        Damage::ZeroPage(p) => {
            let start = (p % pages) * PAGE;
            bytes[start..start + PAGE].fill(0);
        }
        Damage::Truncate(n) => bytes.truncate(n % bytes.len()),
        Damage::Append(tail) => bytes.extend(tail),
        Damage::SwapPages(a, b) => {
            let (a, b) = ((a % pages) * PAGE, (b % pages) * PAGE);
            if a != b {
                for i in 0..PAGE {
                    bytes.swap(a + i, b + i);
                }
            }
        }
    }
}

#[test]
fn damaged_store_files_never_reach_the_host_as_a_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let original = learned_file(dir.path());
    let (opened, fell_back) = (AtomicU64::new(0), AtomicU64::new(0));
    fuzz("store-file", (300, 10_000), damage(), |damage| {
        let case = tempfile::tempdir().expect("tempdir");
        let path = case.path().join("s.redb");
        let mut bytes = original.clone();
        apply_damage(&mut bytes, &damage);
        std::fs::write(&path, &bytes).expect("write");
        let mut store = FailOpenStore::open(StoreOptions::new(&path), 16);
        let mut reasons: Vec<String> = store.take_degradation().into_iter().collect();
        if store.kind() == StoreKind::Redb {
            opened.fetch_add(1, Ordering::Relaxed);
            // Reads answer or fail; none panics.
            let _ = (store.rate_rows(), store.history(), store.pending());
            let snapshot = store
                .snapshot()
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let _ = snapshot.row(&docsuggest_schema::RateKey::family("docs-3f9a", "Plan"));
            drop(snapshot);
        } else {
            fell_back.fetch_add(1, Ordering::Relaxed);
            prop_assert!(!reasons.is_empty(), "memory without a reason");
        }
        // Whatever the file held, the host keeps working.
        let mut d = crate::workload::decision("docs-3f9a", "Plan");
        d.seq = store
            .record_pending(d.clone())
            .map_err(|e| TestCaseError::fail(format!("record: {e}")))?;
        store
            .resolve(crate::workload::resolution(&d, Outcome::Rejected, None))
            .map_err(|e| TestCaseError::fail(format!("resolve: {e}")))?;
        store
            .flush()
            .map_err(|e| TestCaseError::fail(format!("flush: {e}")))?;
        reasons.extend(store.take_degradation());
        prop_assert!(
            !reasons.iter().any(|r| r.contains("panicked")),
            "a panic reached the fail-open store: {:?}",
            reasons
        );
        Ok(())
    });
    scale::report(
        "fuzz store-file outcomes",
        &[
            ("opened_as_redb", opened.load(Ordering::Relaxed).to_string()),
            (
                "fell_back_to_memory",
                fell_back.load(Ordering::Relaxed).to_string(),
            ),
        ],
    );
}

/// Large and odd inputs, each answered with the code it must carry (`None`: answered `ok`),
/// each followed by a good request that must still work. Bounded by design: every limit is
/// checked before the work it bounds (path length before resolution, pack size and family
/// count before compiling, JSON depth by the parser).
#[test]
fn large_and_odd_inputs_are_answered_and_the_next_request_works() {
    let fixture = Fixture::poc();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut dispatcher = learned_host(dir.path(), &fixture);
    let cwd = fixture.root().display().to_string();
    let judge = |agent: &str, path: &str| {
        json!({"id": 7, "op": "judge", "agent": agent, "tool": "read", "path": path, "cwd": cwd})
            .to_string()
            .into_bytes()
    };
    let many = |n: usize, item: &str| vec![item; n].join(",");
    let nested = |depth: usize| {
        format!(
            r#"{{"id":7,"op":"configure","config":{}1{}}}"#,
            r#"{"a":"#.repeat(depth),
            "}".repeat(depth)
        )
        .into_bytes()
    };
    let mut raw_nul = br#"{"id":7,"op":"judge","agent":"a","tool":"read","path":"a"#.to_vec();
    raw_nul.extend(b"\0b\"}");
    let mut bad_utf8 = br#"{"id":7,"op":"judge","agent":"a","tool":"read","path":"a"#.to_vec();
    bad_utf8.extend(b"\xff\xfe/X.md\"}");
    let cases: Vec<(&str, Vec<u8>, Option<&str>)> = vec![
        (
            "a path of 1 MB",
            judge("a", &"a".repeat(1_000_000)),
            Some("path-too-long"),
        ),
        (
            "10 000 components",
            judge("a", &"a/".repeat(10_000)),
            Some("path-too-long"),
        ),
        (
            "10 000 separators",
            judge("a", &"/".repeat(10_000)),
            Some("path-too-long"),
        ),
        (
            "10 000 `..`",
            judge("a", &"../".repeat(10_000)),
            Some("path-too-long"),
        ),
        (
            "an agent of 1 MB",
            judge(&"a".repeat(1_000_000), "README.md"),
            Some("path-too-long"),
        ),
        (
            "a NUL in the path",
            judge("a", "Documentation/\0/X.md"),
            Some("nul-byte"),
        ),
        ("a raw NUL byte", raw_nul, Some("invalid-json")),
        ("invalid UTF-8 in the path", bad_utf8, Some("invalid-utf8")),
        (
            "a lone surrogate escape",
            br#"{"id":7,"op":"judge","agent":"a","tool":"read","path":"\udc80"}"#.to_vec(),
            Some("invalid-json"),
        ),
        (
            "a glob of 10 000 alternatives",
            judge(
                "a",
                &format!("Documentation/{{{}}}/*.md", many(10_000, "ab")),
            ),
            Some("path-too-long"),
        ),
        (
            "a glob of 1 500 alternatives",
            judge("a", &format!("Documentation/{{{}}}/*.md", many(1_500, "a"))),
            None,
        ),
        (
            "a config nested 100 000 deep",
            nested(100_000),
            Some("invalid-json"),
        ),
        (
            "a config nested 200 deep",
            nested(200),
            Some("invalid-json"),
        ),
        (
            "a config nested 20 deep",
            nested(20),
            Some("invalid-config"),
        ),
    ];
    for (what, line, code) in &cases {
        let handled = dispatcher.handle_line(&Line::Bytes(line.clone()));
        assert_eq!(handled.error, *code, "{what}: {}", handled.answer);
        assert!(!handled.answer.contains('\n'), "{what}: one line");
        let answer: Value = serde_json::from_str(&handled.answer).expect("JSON");
        assert_eq!(answer["ok"], code.is_none(), "{what}");
        let good = dispatcher.handle_line(&Line::Bytes(judge("b", "Documentation/INDEX.md")));
        assert_eq!(good.error, None, "after {what}: {}", good.answer);
    }
    scale::report("fuzz odd inputs", &[("cases", cases.len().to_string())]);
}

/// Repo packs past their limits: refused with a warning naming the file and the limit, the
/// built-in pack answers, and the next call works.
#[test]
fn oversized_repo_packs_are_refused_and_named() {
    let family = |i: usize| json!({"name": format!("F{i}"), "rules": ["t/*.md"], "companions": []});
    let families: Vec<Value> = (0..10_000).map(family).collect();
    let alternatives = vec!["d"; 10_000].join(",");
    let cases = [
        (
            json!({"families": families}).to_string(),
            "families: 10000 entries, more than the limit of 256",
        ),
        (
            json!({"families": [{"name": "G", "rules": [format!("{{{alternatives}}}/*.md")],
                "companions": []}]})
            .to_string(),
            "families[0].rules[0]: is 20006 bytes long (at most 512)",
        ),
        (
            format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)),
            "not valid JSON: recursion limit exceeded",
        ),
        (
            " ".repeat(2 << 20),
            "not read: it is 2097152 bytes long, more than the limit of 1048576 bytes (1 MiB)",
        ),
    ];
    for (text, problem) in cases {
        let fixture = Fixture::poc();
        fixture.write(".dsh/doc-pack.json", &text);
        let mut engine = docsuggest_tests::memory_engine(Config {
            log: false,
            ..Config::default()
        });
        let call = fixture.call("a", "read", "Documentation/Plans/SEARCH.md");
        let verdict = engine.judge(&call).expect("a valid call");
        let file = fixture.path(".dsh/doc-pack.json").display().to_string();
        assert_eq!(verdict.warnings.len(), 1, "{problem}: {verdict:?}");
        assert!(
            verdict.warnings[0].starts_with(&format!("invalid pack {file}: {problem}")),
            "{}",
            verdict.warnings[0]
        );
        assert_eq!(verdict.note.map(|n| n.family), Some("Plan".to_string()));
        let next = engine
            .judge(&fixture.call("a", "read", "README.md"))
            .expect("a valid call");
        assert!(!next.ledger.is_empty(), "{problem}");
    }
}
