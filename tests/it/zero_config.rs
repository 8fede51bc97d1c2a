//! Zero-config: a git work tree with no pack is judged with a pack mined from its history,
//! through the host's `PackMiner` (a scripted fake here), kept in the store per workspace.

use docsuggest_engine::locate::workspace_key;
use docsuggest_engine::probe::OsProbe;
use docsuggest_engine::{BoxedStore, Engine, MinedAnswer, PackMiner, Verdict};
use docsuggest_schema::{
    Config, Decision, DecisionStore, MinedPack, RateSnapshot, Resolution, StoreContents,
    StoreError, StoreKind,
};
use docsuggest_store::{MemoryStore, RedbStore, StoreOptions};
use docsuggest_tests::{Fixture, config, judge, one_family_pack};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const PACK_MINING: &str = "doc-suggester: abstained pack-mining 0.00";
const FOREIGN: &str = "doc-suggester: abstained foreign-workspace 0.00";

/// One request the miner received: the root, the key and the stored record handed over.
type Request = (PathBuf, String, Option<MinedPack>);

/// A miner that answers from a script (then `UseStored`) and records every request.
struct Scripted {
    answers: Vec<MinedAnswer>,
    asked: Arc<Mutex<Vec<Request>>>,
}

impl PackMiner for Scripted {
    fn request(&mut self, root: &Path, key: &str, stored: Option<&MinedPack>) -> MinedAnswer {
        self.asked.lock().expect("lock").push((
            root.to_path_buf(),
            key.to_string(),
            stored.cloned(),
        ));
        if self.answers.is_empty() {
            MinedAnswer::UseStored
        } else {
            self.answers.remove(0)
        }
    }
}

/// Sets a scripted miner on `engine`; answers the log of its requests.
fn script(engine: &mut Engine<OsProbe>, answers: Vec<MinedAnswer>) -> Arc<Mutex<Vec<Request>>> {
    let asked = Arc::new(Mutex::new(Vec::new()));
    engine.set_pack_miner(Box::new(Scripted {
        answers,
        asked: Arc::clone(&asked),
    }));
    asked
}

fn asked(log: &Arc<Mutex<Vec<Request>>>) -> usize {
    log.lock().expect("lock").len()
}

/// A git work tree (an empty `.git/` is all the engine looks for) with a source file and its
/// test, and no pack.
fn repo() -> Fixture {
    let f = Fixture::empty();
    std::fs::create_dir_all(f.path(".git")).expect("mkdir .git");
    f.write("src/a.py", "");
    f.write("tests/test_a.py", "");
    f
}

/// What the miner found: Python sources travel with their tests.
fn mined() -> MinedPack {
    MinedPack {
        pack: json!({"families": [{"name": "Src", "rules": ["src/*.py"], "threshold": 0.5,
            "companions": [{"path": "tests/test_a.py", "prior": 1.0}]}]})
        .to_string(),
        head: "0123456789abcdef0123456789abcdef01234567".into(),
        commits: 42,
        miner: 1,
    }
}

fn engine_on(store: BoxedStore, config: Config) -> Engine<OsProbe> {
    Engine::new(config, store, OsProbe)
}

fn lines(verdict: &Verdict) -> Vec<String> {
    verdict.ledger.iter().map(|l| l.to_string()).collect()
}

fn noted(verdict: &Verdict) -> Vec<String> {
    verdict
        .note
        .as_ref()
        .map(|n| n.companions.clone())
        .unwrap_or_default()
}

#[test]
fn a_git_work_tree_is_judged_with_its_mined_pack_once_mined() {
    let f = repo();
    let key = workspace_key(f.root());
    let dir = tempfile::tempdir().expect("tempdir");
    let store_path = dir.path().join("s.redb");
    let store = RedbStore::open(StoreOptions::new(&store_path)).expect("a new store");
    let mut engine = engine_on(Box::new(store), config(json!({})));
    let log = script(
        &mut engine,
        vec![MinedAnswer::Pending, MinedAnswer::Mined(mined())],
    );

    // Nothing mined yet: the call is silent, and says why.
    let first = judge(&mut engine, &f, "a", "src/a.py");
    assert_eq!(lines(&first), [PACK_MINING]);
    assert!(first.note.is_none());
    assert_eq!(engine.stats().abstained.get("pack-mining"), Some(&1));
    assert_eq!(engine.stats().judged, 1);
    // The miner was asked for the work tree's root and key, with nothing stored.
    assert_eq!(
        log.lock().expect("lock")[0],
        (f.root().to_path_buf(), key.clone(), None)
    );

    // Mined now: the pack is used at once, exactly as a repo pack would be.
    let second = judge(&mut engine, &f, "a", "src/a.py");
    assert_eq!(noted(&second), ["tests/test_a.py"], "{:?}", lines(&second));
    assert!(lines(&second)[0].starts_with("doc-suggester: suggest Src "));
    assert_eq!(
        engine.store().mined_pack(&key).expect("read"),
        Some(mined())
    );
    // ... and learned from: the agent opening the companion accepts the note.
    let third = judge(&mut engine, &f, "a", "tests/test_a.py");
    assert!(
        lines(&third).contains(&"doc-suggester: accepted Src tests/test_a.py".to_string()),
        "{:?}",
        lines(&third)
    );
    // Later calls hand the miner the record it mined.
    assert_eq!(
        log.lock().expect("lock").last().map(|r| r.2.clone()),
        Some(Some(mined()))
    );
    assert_eq!(asked(&log), 3);
    engine.close().expect("close");
    drop(engine);

    // The record survives the process: a reopened store holds it under the workspace key.
    let reopened = RedbStore::open(StoreOptions::new(&store_path)).expect("reopen");
    assert_eq!(reopened.mined_pack(&key).expect("read"), Some(mined()));
    assert_eq!(reopened.mined_packs().expect("all").len(), 1);
    let learned = reopened.history().expect("history");
    assert!(
        learned.iter().any(|e| e.decision.workspace == key),
        "the note was learned under the workspace key"
    );

    // A new engine on that store: the stored pack is used without mining.
    let mut engine = engine_on(Box::new(reopened), config(json!({})));
    let log = script(&mut engine, vec![MinedAnswer::UseStored]);
    let verdict = judge(&mut engine, &f, "b", "src/a.py");
    // The stored pack's family decides (one followed note is not yet evidence enough for the
    // learned gate, so it may keep silent; its decision names the pack's companion).
    let decided = lines(&verdict)
        .into_iter()
        .find(|l| l.starts_with("doc-suggester: decided Src "))
        .unwrap_or_default();
    assert!(
        decided.contains(" tests/test_a.py "),
        "{:?}",
        lines(&verdict)
    );
    assert_eq!(
        *log.lock().expect("lock"),
        [(f.root().to_path_buf(), key.clone(), Some(mined()))]
    );
    // A path of no family in the work tree is no-signal, as in any workspace.
    let other = judge(&mut engine, &f, "b", "README.md");
    assert_eq!(lines(&other), ["doc-suggester: abstained no-signal 0.00"]);
    // Paths below the work tree's root are excluded as in any workspace (`.git` among them).
    let inside_git = judge(&mut engine, &f, "b", ".git/config");
    assert!(inside_git.ledger.is_empty(), "{:?}", lines(&inside_git));
}

#[test]
fn the_store_is_read_once_per_root_and_a_new_pack_replaces_the_old() {
    let f = repo();
    let key = workspace_key(f.root());
    let (mut store, reads) = Wrapped::new(true);
    store.put_mined_pack(&key, mined()).expect("put");
    let mut engine = engine_on(Box::new(store), config(json!({})));
    // A re-mined pack (another head) in which `src/a.py` names no companion that exists.
    let remined = MinedPack {
        pack: json!({"families": [{"name": "Src", "rules": ["src/*.py"], "threshold": 0.5,
            "companions": [{"path": "docs/missing.md", "prior": 1.0}]}]})
        .to_string(),
        head: "fedcba".into(),
        ..mined()
    };
    let log = script(
        &mut engine,
        vec![
            MinedAnswer::UseStored,
            MinedAnswer::Mined(remined.clone()),
            MinedAnswer::UseStored,
        ],
    );
    assert_eq!(
        noted(&judge(&mut engine, &f, "a", "src/a.py")),
        ["tests/test_a.py"]
    );
    let after = judge(&mut engine, &f, "b", "src/a.py");
    assert_eq!(
        lines(&after),
        ["doc-suggester: abstained no-companions Src 0.00"]
    );
    let again = judge(&mut engine, &f, "c", "src/a.py");
    assert_eq!(
        lines(&again),
        ["doc-suggester: abstained no-companions Src 0.00"]
    );
    // Three calls in one work tree, one read of the store.
    assert_eq!(reads.load(Ordering::Relaxed), 1);
    assert_eq!(
        engine.store().mined_pack(&key).expect("read"),
        Some(remined.clone())
    );
    let handed: Vec<Option<String>> = log
        .lock()
        .expect("lock")
        .iter()
        .map(|r| r.2.as_ref().map(|m| m.head.clone()))
        .collect();
    assert_eq!(
        handed,
        [
            Some(mined().head),
            Some(mined().head),
            Some(remined.head.clone())
        ]
    );
}

/// The host's probe keeps each path's scene between calls: the pack in use still follows the
/// miner's every answer, and a pack file created later is seen.
#[test]
fn with_kept_scenes_the_pack_in_use_follows_the_miner() {
    use docsuggest_engine::probe_cache::CachingProbe;
    let f = repo();
    let key = workspace_key(f.root());
    let remined = MinedPack {
        pack: json!({"families": [{"name": "Py", "rules": ["src/*.py"], "threshold": 0.5,
            "companions": [{"path": "tests/test_a.py", "prior": 1.0}]}]})
        .to_string(),
        head: "fedcba".into(),
        ..mined()
    };
    let mut engine = Engine::new(
        config(json!({})),
        Box::new(MemoryStore::new(64)),
        CachingProbe::default(),
    );
    let asked = Arc::new(Mutex::new(Vec::new()));
    engine.set_pack_miner(Box::new(Scripted {
        answers: vec![
            MinedAnswer::Pending,
            MinedAnswer::Pending,
            MinedAnswer::Mined(mined()),
            MinedAnswer::UseStored,
            MinedAnswer::Pending,
            MinedAnswer::Mined(remined.clone()),
        ],
        asked: Arc::clone(&asked),
    }));
    let mut call = |agent: &str| {
        let verdict = engine
            .judge(&f.call(agent, "read", "src/a.py"))
            .expect("a well-formed call");
        (noted(&verdict), lines(&verdict))
    };
    assert_eq!(call("a").1, [PACK_MINING]);
    assert_eq!(call("a").1, [PACK_MINING]);
    assert_eq!(call("b").0, ["tests/test_a.py"]);
    assert_eq!(call("c").0, ["tests/test_a.py"]);
    // The miner's word holds even with a pack in use.
    assert_eq!(call("d").1, [PACK_MINING]);
    let (named, ledger) = call("e");
    assert_eq!(named, ["tests/test_a.py"]);
    assert!(
        ledger[0].starts_with("doc-suggester: suggest Py "),
        "{ledger:?}"
    );
    assert_eq!(asked.lock().expect("lock").len(), 6);
    // A pack file at the root takes over from the miner.
    f.write(".dsh/doc-pack.json", &one_family_pack(&["ws.marker"]));
    assert_eq!(call("f").1, [FOREIGN]);
    assert_eq!(asked.lock().expect("lock").len(), 6);
    assert_eq!(
        engine.store().mined_pack(&key).expect("read"),
        Some(remined)
    );
}

#[test]
fn outside_a_git_work_tree_the_miner_is_never_asked() {
    let outside = Fixture::empty();
    outside.write("src/a.py", "");
    let mut engine = engine_on(Box::new(MemoryStore::new(64)), config(json!({})));
    let log = script(&mut engine, vec![MinedAnswer::Mined(mined())]);
    for _ in 0..2 {
        let verdict = judge(&mut engine, &outside, "a", "src/a.py");
        assert_eq!(lines(&verdict), [FOREIGN]);
    }
    assert_eq!(asked(&log), 0);
    assert_eq!(engine.stats().abstained.get("foreign-workspace"), Some(&2));
}

#[test]
fn a_pack_file_or_a_signature_in_the_work_tree_wins_and_the_miner_is_never_asked() {
    // A repo pack whose signature is present: that pack is used.
    let f = repo();
    f.write("ws.marker", "");
    f.write("t/a.md", "");
    f.write(".dsh/doc-pack.json", &one_family_pack(&["ws.marker"]));
    let mut engine = engine_on(Box::new(MemoryStore::new(64)), config(json!({})));
    let log = script(&mut engine, vec![MinedAnswer::Mined(mined())]);
    let verdict = judge(&mut engine, &f, "a", "t/a.md");
    assert_eq!(noted(&verdict), ["ws.marker"], "{:?}", lines(&verdict));
    assert_eq!(
        lines(&judge(&mut engine, &f, "a", "src/a.py")),
        ["doc-suggester: abstained no-signal 0.00"]
    );
    // Its signature gone, the pack file is still its owner's word: foreign, not mined.
    f.remove("ws.marker");
    assert_eq!(lines(&judge(&mut engine, &f, "b", "src/a.py")), [FOREIGN]);
    // A pack file that is not even valid JSON decides as well.
    f.write(".dsh/doc-pack.json", "{ not json");
    assert_eq!(lines(&judge(&mut engine, &f, "c", "src/a.py")), [FOREIGN]);
    assert_eq!(asked(&log), 0);

    // The built-in signature inside a git work tree: the built-in pack, as today.
    let poc = Fixture::poc();
    std::fs::create_dir_all(poc.path(".git")).expect("mkdir .git");
    let verdict = judge(&mut engine, &poc, "d", "Documentation/Plans/SEARCH.md");
    assert_eq!(
        noted(&verdict).first().map(String::as_str),
        Some("Documentation/INDEX.md")
    );
    assert_eq!(
        lines(&judge(&mut engine, &poc, "d", "src/lib.rs")),
        ["doc-suggester: abstained no-signal 0.00"]
    );
    assert_eq!(asked(&log), 0);
}

#[test]
fn zero_config_off_never_asks_the_miner() {
    let f = repo();
    let mut engine = engine_on(
        Box::new(MemoryStore::new(64)),
        config(json!({"zeroConfig": false})),
    );
    let log = script(&mut engine, vec![MinedAnswer::Mined(mined())]);
    assert_eq!(lines(&judge(&mut engine, &f, "a", "src/a.py")), [FOREIGN]);
    assert_eq!(asked(&log), 0);
    // Switched on at run time, the next call asks; switched off again, none does.
    engine
        .configure(&json!({"zeroConfig": true}))
        .expect("a valid patch");
    assert_eq!(
        noted(&judge(&mut engine, &f, "a", "src/a.py")),
        ["tests/test_a.py"]
    );
    assert_eq!(asked(&log), 1);
    engine
        .configure(&json!({"zeroConfig": false}))
        .expect("a valid patch");
    assert_eq!(lines(&judge(&mut engine, &f, "b", "src/a.py")), [FOREIGN]);
    assert_eq!(asked(&log), 1);
}

#[test]
fn without_a_miner_or_with_an_unavailable_history_the_call_is_foreign() {
    let f = repo();
    // No miner: exactly today's answer.
    let mut engine = engine_on(Box::new(MemoryStore::new(64)), config(json!({})));
    assert_eq!(lines(&judge(&mut engine, &f, "a", "src/a.py")), [FOREIGN]);
    assert_eq!(engine.workspace_key_of(&f.path("src/a.py")), None);
    // A miner that cannot mine this work tree.
    let log = script(
        &mut engine,
        vec![
            MinedAnswer::Unavailable("a shallow clone".into()),
            MinedAnswer::Unavailable("a shallow clone".into()),
        ],
    );
    for agent in ["a", "b"] {
        let verdict = judge(&mut engine, &f, agent, "src/a.py");
        assert_eq!(lines(&verdict), [FOREIGN]);
        // The answer says why, not only the log.
        assert!(
            verdict
                .warnings
                .iter()
                .any(|w| w.contains("a shallow clone")),
            "{:?}",
            verdict.warnings
        );
    }
    assert_eq!(asked(&log), 2);
    assert_eq!(
        engine
            .store()
            .mined_pack(&workspace_key(f.root()))
            .expect("read"),
        None
    );
    // `use-stored` with nothing stored, and a mined pack that does not compile, are foreign
    // too; the broken pack is not stored.
    let broken = MinedPack {
        pack: "{\"families\": 3}".into(),
        ..mined()
    };
    let log = script(
        &mut engine,
        vec![MinedAnswer::UseStored, MinedAnswer::Mined(broken)],
    );
    for agent in ["c", "d"] {
        assert_eq!(lines(&judge(&mut engine, &f, agent, "src/a.py")), [FOREIGN]);
    }
    assert_eq!(asked(&log), 2);
    assert_eq!(
        engine
            .store()
            .mined_pack(&workspace_key(f.root()))
            .expect("read"),
        None
    );
}

#[test]
fn a_store_that_keeps_no_mined_packs_still_has_the_pack_used_in_memory() {
    let f = repo();
    let (store, reads) = Wrapped::new(false);
    let mut engine = engine_on(Box::new(store), config(json!({})));
    let log = script(&mut engine, vec![MinedAnswer::Mined(mined())]);
    for agent in ["a", "b"] {
        assert_eq!(
            noted(&judge(&mut engine, &f, agent, "src/a.py")),
            ["tests/test_a.py"]
        );
    }
    // The second call handed over the record kept in memory; the store was read once.
    assert_eq!(
        log.lock().expect("lock").last().map(|r| r.2.clone()),
        Some(Some(mined()))
    );
    assert_eq!(reads.load(Ordering::Relaxed), 1);
}

/// The memory store, counting reads of mined packs; with `keep_mined` false it keeps none
/// (the trait's defaults: nothing stored, every record refused).
struct Wrapped {
    inner: MemoryStore,
    keep_mined: bool,
    reads: Arc<AtomicUsize>,
}

impl Wrapped {
    fn new(keep_mined: bool) -> (Wrapped, Arc<AtomicUsize>) {
        let reads = Arc::new(AtomicUsize::new(0));
        let store = Wrapped {
            inner: MemoryStore::new(64),
            keep_mined,
            reads: Arc::clone(&reads),
        };
        (store, reads)
    }
}

impl DecisionStore for Wrapped {
    fn kind(&self) -> StoreKind {
        self.inner.kind()
    }
    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        self.inner.snapshot()
    }
    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.inner.record_pending(decision)
    }
    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.inner.record_silent(decision)
    }
    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        self.inner.resolve(resolution)
    }
    fn flush(&mut self) -> Result<u64, StoreError> {
        self.inner.flush()
    }
    fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        if self.keep_mined {
            self.inner.mined_pack(workspace)
        } else {
            Ok(None)
        }
    }
    fn put_mined_pack(&mut self, workspace: &str, mined: MinedPack) -> Result<(), StoreError> {
        if self.keep_mined {
            self.inner.put_mined_pack(workspace, mined)
        } else {
            Err(StoreError::Invalid("keeps no mined packs".into()))
        }
    }
}

/// A file touched while its repository's pack is still being mined is this turn's all the
/// same: the turn's first note, once the pack is there, does not ask for it again.
#[test]
fn a_file_touched_while_the_pack_is_mined_is_not_asked_for_by_the_turns_next_note() {
    let f = repo();
    f.write("CHANGELOG.md", "");
    f.write("docs/a.md", "");
    let pack = MinedPack {
        pack: json!({"families": [{"name": "Src", "rules": ["src/*.py"], "threshold": 0.5,
            "companions": [{"path": "tests/test_a.py", "prior": 1.0},
                {"path": "CHANGELOG.md", "prior": 1.0}, {"path": "docs/a.md", "prior": 1.0}]}]})
        .to_string(),
        ..mined()
    };
    let mut engine = engine_on(Box::new(MemoryStore::new(64)), config(json!({})));
    script(
        &mut engine,
        vec![MinedAnswer::Pending, MinedAnswer::Mined(pack)],
    );
    let first = judge(&mut engine, &f, "a", "tests/test_a.py");
    assert_eq!(lines(&first), [PACK_MINING]);
    let next = judge(&mut engine, &f, "a", "src/a.py");
    assert_eq!(
        noted(&next),
        ["CHANGELOG.md", "docs/a.md"],
        "{:?}",
        lines(&next)
    );
}
