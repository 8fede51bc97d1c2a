//! `install-hooks --harness git`: a git `pre-commit` hook that names the companions the staged
//! change lacks (`docsuggest check-change --staged --quiet`) and never stops the commit.
//!
//! The hook goes where git runs hooks (`git rev-parse --git-path hooks`: `core.hooksPath`, a
//! linked worktree's common directory). It is written only where no `pre-commit` is, and
//! taken out only when the file is exactly what was written, so uninstalling gives back the
//! directory as it was; a hook docsuggest did not write is never replaced nor removed.

use super::{Change, InstallError, stage};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The first lines of the hook, after which its one command line comes.
const HEAD: &str = "#!/bin/sh\n\
# docsuggest pre-commit hook: names the companions (tests, docs, changelog) the staged change\n\
# lacks, as this repository's changes conventionally include them. It never stops the commit.\n\
# `docsuggest uninstall-hooks --harness git` removes it.\n";

/// The hook that runs `word` (the program, shell-quoted).
pub fn script(word: &str) -> String {
    format!("{HEAD}{word} check-change --staged --quiet >&2 || true\nexit 0\n")
}

/// Whether `text` is a hook this command wrote, byte for byte.
pub fn is_ours(text: &str) -> bool {
    text.strip_prefix(HEAD)
        .and_then(|rest| rest.split_once(" check-change "))
        .is_some_and(|(word, _)| script(word) == text)
}

/// The `pre-commit` file git runs for the repository at `project`.
pub fn hook_file(project: &Path) -> Result<PathBuf, InstallError> {
    let out = Command::new("git")
        .arg("-C")
        .arg(project)
        .args(["rev-parse", "--path-format=absolute", "--git-path", "hooks"])
        .output()
        .map_err(|source| InstallError::Io {
            path: "git".into(),
            source,
        })?;
    if !out.status.success() {
        return Err(InstallError::Shape {
            path: project.display().to_string(),
            why: format!(
                "not a git repository ({})",
                String::from_utf8_lossy(&out.stderr).trim()
            ),
        });
    }
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    Ok(PathBuf::from(dir).join("pre-commit"))
}

/// The hook at `path` (`None`: none), read only when it is a regular file: a link, a FIFO or
/// anything else there is refused and left as it is.
fn read(path: &Path) -> Result<Option<String>, InstallError> {
    // Not UTF-8 is a hook of someone else's, to be left alone, not an error of reading.
    Ok(stage::read(path)?.map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
}

fn io(path: &Path, source: std::io::Error) -> InstallError {
    InstallError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes the hook running `word` into the repository at `project` (or, dry, says so).
pub fn install(project: &Path, word: &str, dry_run: bool) -> Result<Change, InstallError> {
    install_at(&hook_file(project)?, word, dry_run)
}

/// Writes the hook running `word` at `path`, where no hook or only ours is (or, dry, says so).
pub fn install_at(path: &Path, word: &str, dry_run: bool) -> Result<Change, InstallError> {
    let before = read(path)?;
    if before.as_deref().is_some_and(|text| !is_ours(text)) {
        return Err(InstallError::Shape {
            path: path.display().to_string(),
            why: "it is a pre-commit hook docsuggest did not write, and is left as it is; \
                  run `docsuggest check-change --staged --quiet` from it yourself"
                .into(),
        });
    }
    let change = Change {
        path: path.to_path_buf(),
        before,
        after: Some(script(word)),
    };
    if dry_run || !change.changed() {
        return Ok(change);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    // Staged whole and renamed: git never runs half a hook.
    stage::replace(path, script(word).as_bytes(), 0o755)?;
    Ok(change)
}

/// Removes the hook this command wrote from the repository at `project`; any other
/// `pre-commit` stays.
pub fn uninstall(project: &Path, dry_run: bool) -> Result<(Change, Option<String>), InstallError> {
    uninstall_at(&hook_file(project)?, dry_run)
}

/// Removes the hook at `path` when it is the one this command wrote; any other stays.
pub fn uninstall_at(path: &Path, dry_run: bool) -> Result<(Change, Option<String>), InstallError> {
    let before = read(path)?;
    let ours = before.as_deref().is_some_and(is_ours);
    let change = Change {
        path: path.to_path_buf(),
        after: if ours { None } else { before.clone() },
        before: before.clone(),
    };
    let note = (before.is_some() && !ours).then(|| {
        format!(
            "{} is not the hook install-hooks wrote (or was edited since); it is left as it is",
            path.display()
        )
    });
    if ours && !dry_run {
        stage::remove(path)?;
    }
    Ok((change, note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_is_ours_only_as_written() {
        for word in ["docsuggest", "'/a b/docsuggest'"] {
            assert!(is_ours(&script(word)), "{word}");
            assert!(!is_ours(&format!("{}echo more\n", script(word))));
        }
        assert!(!is_ours("#!/bin/sh\nmake lint\n"));
    }
}
