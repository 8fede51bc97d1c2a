//! The demo's sample workspace: the PoC's doc graph with a few packages, written identically
//! on every run so its path, and with it its workspace key, stays the same.

use std::io;
use std::path::Path;

/// The file that marks a directory as a demo workspace the demo may recreate.
pub const MARKER: &str = ".docsuggest-demo";

/// Every file of the workspace and its text.
pub const FILES: &[(&str, &str)] = &[
    (
        "Documentation/ARCHIVE-STYLE.md",
        "# Archive style\n\nHow finished plans are archived: move the plan under Plans/archive, \
         link it from INDEX.md, and note the change in CHANGELOG.md.\n",
    ),
    (
        "Documentation/INDEX.md",
        "# Index\n\n- Plans/SEARCH.md — ranked search\n- Plans/LEARN.md — learning from \
         follow-through\n- Plans/STORE.md — the durable store\n",
    ),
    (
        "Documentation/Plans/SEARCH.md",
        "# Plan: search\n\nRank documents by scope and prior; see INDEX.md for the plan list.\n",
    ),
    (
        "Documentation/Plans/LEARN.md",
        "# Plan: learn\n\nLearn accept rates from what the agent opens next.\n",
    ),
    (
        "Documentation/Plans/STORE.md",
        "# Plan: store\n\nKeep learned rates in one embedded database file.\n",
    ),
    (
        "POC-BRIEF.md",
        "# Proof-of-concept brief\n\nThe suggester names companion docs after each tool call.\n",
    ),
    (
        "README.md",
        "# demo-workspace\n\nA sample repository for `docsuggest demo`.\n",
    ),
    (
        "CHANGELOG.md",
        "# Changelog\n\n## 0.1.0\n\n- First plans: search, learn, store.\n",
    ),
    (
        "SCHEME.md",
        "# Scheme\n\nPackages live under packages/, each with its own SCHEME.md.\n",
    ),
    (
        "packages/core/package.json",
        "{\n  \"name\": \"@demo/core\",\n  \"version\": \"0.1.0\"\n}\n",
    ),
    (
        "packages/core/SCHEME.md",
        "# core scheme\n\nThe ranking core; exports rank() and learn().\n",
    ),
    (
        "packages/core/README.md",
        "# @demo/core\n\nThe ranking core.\n",
    ),
    (
        "packages/core/CHANGELOG.md",
        "# Changelog\n\n## 0.1.0\n\n- rank() and learn().\n",
    ),
    (
        "packages/core/src/index.ts",
        "export function rank(xs: number[]): number[] {\n  return [...xs].sort();\n}\n",
    ),
    (
        "packages/web/package.json",
        "{\n  \"name\": \"@demo/web\",\n  \"version\": \"0.1.0\"\n}\n",
    ),
    (
        "packages/web/SCHEME.md",
        "# web scheme\n\nThe web front end over @demo/core.\n",
    ),
    (
        "packages/web/README.md",
        "# @demo/web\n\nThe web front end.\n",
    ),
    (
        "packages/web/src/app.ts",
        "import { rank } from \"@demo/core\";\nexport const app = () => rank([3, 1, 2]);\n",
    ),
    (
        "packages/cli/package.json",
        "{\n  \"name\": \"@demo/cli\",\n  \"version\": \"0.1.0\"\n}\n",
    ),
    (
        "packages/cli/SCHEME.md",
        "# cli scheme\n\nThe command line over @demo/core.\n",
    ),
    (
        "packages/cli/src/main.ts",
        "import { rank } from \"@demo/core\";\nconsole.log(rank([2, 1]));\n",
    ),
];

/// (Re)creates the workspace at `dir`. An existing directory is replaced only when it carries
/// [`MARKER`] (or is empty), so a mistyped `--dir` never deletes someone's files.
pub fn build(dir: &Path) -> io::Result<()> {
    if dir.exists() {
        let marked = dir.join(MARKER).is_file();
        let empty = dir.read_dir()?.next().is_none();
        if !marked && !empty {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!(
                    "{} exists and is not a demo workspace (it has no {MARKER} file); \
                     choose another --dir",
                    dir.display()
                ),
            ));
        }
        std::fs::remove_dir_all(dir)?;
    }
    for (rel, text) in FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, text)?;
    }
    std::fs::write(
        dir.join(MARKER),
        "Created by `docsuggest demo`; the demo deletes and recreates this directory.\n",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recreates_its_own_directory_and_refuses_others() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let dir = tmp.path().join("ws");
        build(&dir).expect("fresh");
        std::fs::write(dir.join("stray.txt"), "x").expect("write");
        build(&dir).expect("rebuilt");
        assert!(!dir.join("stray.txt").exists());
        assert!(dir.join("Documentation/Plans/SEARCH.md").is_file());
        let other = tmp.path().join("mine");
        std::fs::create_dir_all(&other).expect("mkdir");
        std::fs::write(other.join("notes.txt"), "keep").expect("write");
        let err = build(&other).expect_err("refused");
        assert!(err.to_string().contains("is not a demo workspace"), "{err}");
        assert_eq!(
            std::fs::read_to_string(other.join("notes.txt")).expect("kept"),
            "keep"
        );
    }
}
