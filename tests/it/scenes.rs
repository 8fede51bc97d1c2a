//! Kept scenes: what the disk said about a call path is reused only while the caching probe's
//! change notification vouches for it, so a kept scene never answers stale.

use docsuggest_engine::probe::{EntryKind, FileProbe, Freshness, RealRoot, Stamp};
use docsuggest_engine::probe_cache::CachingProbe;
use docsuggest_engine::testing::NullStore;
use docsuggest_engine::{Engine, Verdict};
use docsuggest_tests::{Fixture, config, null_engine, one_family_pack};
use serde_json::json;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// The caching probe, counting every query the engine makes of it.
struct Counting {
    inner: CachingProbe,
    queries: Rc<Cell<u32>>,
}

impl Counting {
    fn ask(&self) -> &CachingProbe {
        self.queries.set(self.queries.get() + 1);
        &self.inner
    }
}

impl FileProbe for Counting {
    fn kind(&self, path: &Path) -> Option<EntryKind> {
        self.ask().kind(path)
    }
    fn stamp(&self, path: &Path) -> Option<Stamp> {
        self.ask().stamp(path)
    }
    fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        self.ask().read_to_string(path)
    }
    fn subdirectories(&self, dir: &Path) -> Vec<PathBuf> {
        self.ask().subdirectories(dir)
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.ask().canonicalize(path)
    }
    fn plain_entries(&self, dir: &Path) -> Vec<(String, EntryKind)> {
        self.ask().plain_entries(dir)
    }
    fn resolves_within(&self, path: &Path, root: &Path, real_root: &RealRoot) -> bool {
        self.ask().resolves_within(path, root, real_root)
    }
    fn begin_call(&self) {
        self.inner.begin_call();
    }
    fn freshness(&self) -> Option<Freshness> {
        self.inner.freshness()
    }
}

fn counting_engine() -> (Engine<Counting>, Rc<Cell<u32>>) {
    let queries = Rc::new(Cell::new(0));
    let probe = Counting {
        inner: CachingProbe::new(),
        queries: queries.clone(),
    };
    let engine = Engine::new(config(json!({})), NullStore::boxed(), probe);
    (engine, queries)
}

/// How many probe queries one call of `rel` made, and its verdict.
fn queries_of(
    engine: &mut Engine<Counting>,
    queries: &Cell<u32>,
    f: &Fixture,
    rel: &str,
) -> (u32, Verdict) {
    let before = queries.get();
    // A new agent each time, so no cooldown or dedupe hides what the disk says.
    let agent = format!("agent{before}");
    let verdict = engine
        .judge(&f.call(&agent, "read", rel))
        .expect("a well-formed call");
    (queries.get() - before, verdict)
}

#[cfg(target_os = "linux")]
#[test]
fn a_repeated_call_asks_the_disk_nothing_until_something_changes() {
    // The temporary directories live on a local file system, where Linux probes watch.
    assert!(CachingProbe::new().is_watching());
    let f = Fixture::poc();
    let (mut engine, queries) = counting_engine();
    let plan = "Documentation/Plans/SEARCH.md";
    for rel in [plan, "packages/core/package.json", "README.md"] {
        let (first, verdict) = queries_of(&mut engine, &queries, &f, rel);
        assert!(first > 0, "{rel}: {verdict:?}");
        let (again, next) = queries_of(&mut engine, &queries, &f, rel);
        assert_eq!(again, 0, "{rel}: {next:?}");
    }
    // A change the watch sees: the next call asks again and sees it, the one after does not.
    f.remove("CHANGELOG.md");
    let (asked, verdict) = queries_of(&mut engine, &queries, &f, plan);
    assert!(asked > 0);
    assert!(
        !docsuggest_tests::named(&verdict).contains("CHANGELOG.md"),
        "{verdict:?}"
    );
    assert_eq!(queries_of(&mut engine, &queries, &f, plan).0, 0);
    // A new config may exclude what a kept scene allowed: every path is read again.
    engine
        .configure(&json!({"exclude": ["Plans"]}))
        .expect("a valid patch");
    let (asked, verdict) = queries_of(&mut engine, &queries, &f, plan);
    assert!(asked > 0);
    assert_eq!(verdict, Verdict::default());
}

#[cfg(target_os = "linux")]
#[test]
fn a_repo_pack_in_force_is_stat_ed_on_every_call() {
    // A pack file's content can change without its directory changing, which no directory
    // watch sees: a scene read under a repo pack is never kept.
    let f = Fixture::empty();
    f.write("ws.marker", "");
    f.write("t/a.md", "");
    f.write("x.md", "");
    f.write(".dsh/doc-pack.json", &one_family_pack(&["x.md"]));
    let (mut engine, queries) = counting_engine();
    for _ in 0..3 {
        let (asked, verdict) = queries_of(&mut engine, &queries, &f, "t/a.md");
        assert!(asked > 0, "{verdict:?}");
        assert_eq!(docsuggest_tests::named(&verdict), "x.md", "{verdict:?}");
    }
}

/// Judges `rel` with both engines, twice each (the second call may use a kept scene), and
/// answers the cached engine's verdict after checking the plain one agrees.
fn both(
    cached: &mut Engine<CachingProbe>,
    plain: &mut Engine<docsuggest_engine::probe::OsProbe>,
    f: &Fixture,
    step: &str,
    rel: &str,
) -> String {
    let mut answers = Vec::new();
    for round in 0..2 {
        // A new agent each time, so no window or cooldown tells the calls apart.
        let agent = format!("{step}-{rel}-{round}");
        let call = f.call(&agent, "read", rel);
        let a = cached.judge(&call).expect("a well-formed call");
        let b = plain.judge(&call).expect("a well-formed call");
        assert_eq!(a, b, "{step}: {rel}, round {round}");
        answers.push(docsuggest_tests::named(&a));
    }
    assert_eq!(answers[0], answers[1], "{step}: {rel}: {answers:?}");
    answers.swap_remove(0)
}

#[test]
fn kept_scenes_judge_like_the_os_after_every_kind_of_change() {
    let f = Fixture::poc();
    let mut cached = Engine::new(config(json!({})), NullStore::boxed(), CachingProbe::new());
    let mut plain = null_engine(config(json!({})));
    let plan = "Documentation/Plans/SEARCH.md";
    let targets = [plan, "packages/core/SCHEME.md", "x/t/a.md", "README.md"];
    let mut check = |step: &str| -> Vec<String> {
        targets
            .iter()
            .map(|rel| both(&mut cached, &mut plain, &f, step, rel))
            .collect()
    };
    let start = check("start");
    assert!(start[0].ends_with("CHANGELOG.md"), "{start:?}");
    // A nested workspace with its own repo pack appears, changes in place, and goes.
    f.write("x/ws.marker", "");
    f.write("x/t/a.md", "");
    f.write("x/y.md", "");
    f.write("x/z.md", "");
    f.write("x/.dsh/doc-pack.json", &one_family_pack(&["y.md"]));
    assert_eq!(check("pack")[2], "y.md");
    // Rewritten in place: no directory changes, only the file's content.
    f.write("x/.dsh/doc-pack.json", &one_family_pack(&["z.md"]));
    assert_eq!(check("pack changed")[2], "z.md");
    f.remove("x/.dsh/doc-pack.json");
    // Back to the outer workspace, where no family claims the file.
    assert_eq!(
        check("pack removed")[2],
        "doc-suggester: abstained no-signal 0.00"
    );
    // A companion replaced by a symlink that leaves the workspace is dropped.
    let outside = Fixture::empty();
    outside.write("INDEX.md", "");
    f.remove("Documentation/INDEX.md");
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path("INDEX.md"), f.path("Documentation/INDEX.md"))
        .expect("symlink");
    assert!(!check("symlinked")[0].contains("INDEX.md"));
    // A package gains a companion; the root loses a signature file.
    f.remove("packages/core/README.md");
    check("package changed");
    f.remove("Documentation/ARCHIVE-STYLE.md");
    let gone = check("no signature");
    assert!(
        gone.iter()
            .all(|v| v == "doc-suggester: abstained foreign-workspace 0.00"),
        "{gone:?}"
    );
}
