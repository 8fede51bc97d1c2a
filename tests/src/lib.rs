//! Fixtures shared by the integration tests: sample workspaces on disk and engines over them.
#![deny(missing_docs)]

pub mod fuzzing;

use docsuggest_engine::probe::OsProbe;
use docsuggest_engine::{BoxedStore, Call, Engine, Verdict};
use docsuggest_schema::{Config, RateRow, StoreContents};
use std::path::{Path, PathBuf};

/// A temporary workspace laid out like the PoC's doc graph.
pub struct Fixture {
    dir: tempfile::TempDir,
}

/// The files of the PoC's doc graph that [`Fixture::poc`] creates.
pub const POC_FILES: &[&str] = &[
    "Documentation/ARCHIVE-STYLE.md",
    "Documentation/INDEX.md",
    "Documentation/Plans/SEARCH.md",
    "Documentation/Plans/LEARN.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
    "README.md",
    "packages/core/package.json",
    "packages/core/SCHEME.md",
    "packages/core/README.md",
    "packages/core/CHANGELOG.md",
    "packages/web/package.json",
    "packages/web/SCHEME.md",
];

impl Fixture {
    /// An empty temporary directory (no workspace signature).
    pub fn empty() -> Fixture {
        Fixture {
            dir: tempfile::tempdir().expect("a temporary directory"),
        }
    }

    /// A workspace with every file of [`POC_FILES`].
    pub fn poc() -> Fixture {
        let f = Fixture::empty();
        for file in POC_FILES {
            f.write(file, "");
        }
        f
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    /// The absolute path of a root-relative file.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    /// Writes a root-relative file, creating its directories.
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("create directories");
        }
        std::fs::write(path, text).expect("write a fixture file");
    }

    /// Removes a root-relative file.
    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path(rel)).expect("remove a fixture file");
    }

    /// A call with this root as cwd.
    pub fn call(&self, agent: &str, tool: &str, rel: &str) -> Call {
        Call {
            agent: agent.into(),
            tool: tool.into(),
            path: rel.into(),
            cwd: Some(self.root().display().to_string()),
        }
    }
}

/// A config patched from JSON, panicking on a bad patch (test input is ours).
pub fn config(patch: serde_json::Value) -> Config {
    Config::default()
        .patched(&patch, "test")
        .expect("a valid test config")
}

/// An engine over a store that keeps nothing (every rate reads neutral).
pub fn null_engine(config: Config) -> Engine<OsProbe> {
    Engine::new(
        config,
        docsuggest_engine::testing::NullStore::boxed(),
        OsProbe,
    )
}

/// The note's companions, or the ledger when there is no note (for table assertions).
pub fn named(verdict: &Verdict) -> String {
    match &verdict.note {
        Some(note) => note.companions.join(","),
        None => verdict.ledger.join(" | "),
    }
}

/// A repo pack with one family `T` over `t/*.md`, gate 0, and these companions (prior 1).
pub fn one_family_pack(companions: &[&str]) -> String {
    let cs: Vec<String> = companions
        .iter()
        .map(|c| format!(r#"{{"path": {}, "prior": 1.0}}"#, serde_json::json!(c)))
        .collect();
    format!(
        r#"{{"signature": ["ws.marker"], "families": [{{"name": "T", "rules": ["t/*.md"], "threshold": 0.0, "companions": [{}]}}]}}"#,
        cs.join(",")
    )
}

/// An engine over the bounded memory store.
pub fn memory_engine(config: Config) -> Engine<OsProbe> {
    let store: BoxedStore = Box::new(docsuggest_store::MemoryStore::new(config.store_limit));
    Engine::new(config, store, OsProbe)
}

/// Judges a root-relative path and returns the verdict, panicking on a call error.
pub fn judge(engine: &mut Engine<OsProbe>, fixture: &Fixture, agent: &str, rel: &str) -> Verdict {
    engine
        .judge(&fixture.call(agent, "read", rel))
        .expect("a well-formed call")
}

/// The companions a verdict's note names (none when silent).
pub fn note_companions(v: &Verdict) -> Vec<String> {
    v.note
        .as_ref()
        .map(|n| n.companions.clone())
        .unwrap_or_default()
}

/// What an engine's store holds (a memory or redb store shows it).
pub fn contents(engine: &Engine<OsProbe>) -> &dyn StoreContents {
    engine
        .store()
        .contents()
        .expect("the store shows its contents")
}

/// Every live rate row as `family/companion`, in key order.
pub fn rows(engine: &Engine<OsProbe>) -> Vec<(String, RateRow)> {
    contents(engine)
        .rate_rows()
        .expect("rows")
        .into_iter()
        .map(|(k, r)| (format!("{}/{}", k.family, k.companion), r))
        .collect()
}
