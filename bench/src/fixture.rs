//! The sample workspace on disk: the PoC's doc graph, and the calls the benchmarks judge.

use docsuggest_engine::Call;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Every file of the sample workspace, relative to its root.
pub const FILES: &[&str] = &[
    "Documentation/ARCHIVE-STYLE.md",
    "Documentation/INDEX.md",
    "Documentation/Plans/SEARCH.md",
    "Documentation/Plans/INGEST.md",
    "Documentation/Plans/RELEASE.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
    "README.md",
    "packages/alpha/package.json",
    "packages/alpha/SCHEME.md",
    "packages/alpha/README.md",
    "packages/alpha/CHANGELOG.md",
    "packages/alpha/src/index.ts",
    "packages/beta/package.json",
    "packages/beta/SCHEME.md",
    "packages/beta/README.md",
    "packages/beta/CHANGELOG.md",
];

/// The target of a noted call and of a gated silence: a plan, whose four companions exist.
pub const PLAN: &str = "Documentation/Plans/SEARCH.md";
/// The target of a non-matching call: a source file inside the workspace, in no family.
pub const SOURCE: &str = "packages/alpha/src/index.ts";
/// The companion an agent opens to accept a Plan note.
pub const PLAN_COMPANION: &str = "Documentation/INDEX.md";

/// How far in the past directory modification times are set. The caching probe reuses a
/// listing only when its directory's mtime is older than `probe_cache::SETTLE` (2 s); a
/// real doc tree is rarely changed within the last seconds, so a fresh fixture is aged to look
/// like one.
pub const AGE: Duration = Duration::from_secs(600);

/// A sample workspace in a temporary directory, removed on drop.
pub struct Workspace {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Workspace {
    /// Creates the workspace (root directory `poc`) with every file of [`FILES`], then ages
    /// every directory's modification time by [`AGE`].
    pub fn create() -> std::io::Result<Workspace> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().join("poc");
        for file in FILES {
            let path = root.join(file);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, format!("# {file}\n"))?;
        }
        age_dirs(&root)?;
        Ok(Workspace { _dir: dir, root })
    }

    /// The workspace root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A `read` call of `agent` on `rel` (relative to the root, resolved against it as cwd).
    pub fn call(&self, agent: &str, rel: &str) -> Call {
        Call {
            agent: agent.into(),
            tool: "read".into(),
            path: rel.into(),
            cwd: Some(self.root.display().to_string()),
        }
    }
}

/// Sets the modification time of `dir` and of every directory below it to [`AGE`] ago.
fn age_dirs(dir: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            age_dirs(&entry.path())?;
        }
    }
    let past = SystemTime::now() - AGE;
    std::fs::File::open(dir)?.set_modified(past)
}
