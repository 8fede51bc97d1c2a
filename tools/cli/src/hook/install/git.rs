//! `install-hooks --harness git`: a git `pre-commit` hook that names the companions the staged
//! change lacks (`docsuggest check-change --staged --quiet`) and never stops the commit.
//!
//! The hook goes where git runs hooks (`git rev-parse --git-path hooks`: `core.hooksPath`, a
//! linked worktree's common directory). It is written only where no `pre-commit` is, and
//! taken out only when the file is exactly what was written, so uninstalling gives back the
//! directory as it was; a hook docsuggest did not write is never replaced nor removed.

use super::{Change, InstallError};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
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

fn read(path: &Path) -> Result<Option<String>, InstallError> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(String::from_utf8_lossy(&bytes).into_owned())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(io(path, source)),
    }
}

fn io(path: &Path, source: std::io::Error) -> InstallError {
    InstallError::Io {
        path: path.display().to_string(),
        source,
    }
}

/// Writes the hook running `word` into the repository at `project` (or, dry, says so).
pub fn install(project: &Path, word: &str, dry_run: bool) -> Result<Change, InstallError> {
    let path = hook_file(project)?;
    let before = read(&path)?;
    if before.as_deref().is_some_and(|text| !is_ours(text)) {
        return Err(InstallError::Shape {
            path: path.display().to_string(),
            why: "it is a pre-commit hook docsuggest did not write, and is left as it is; \
                  run `docsuggest check-change --staged --quiet` from it yourself"
                .into(),
        });
    }
    let change = Change {
        path: path.clone(),
        before,
        after: Some(script(word)),
    };
    if dry_run || !change.changed() {
        return Ok(change);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    // Written whole under a temporary name, then renamed: git never runs half a hook.
    let staged = path.with_extension("docsuggest-new");
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o755)
        .open(&staged)
        .map_err(|e| io(&staged, e))?;
    file.write_all(script(word).as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(|e| io(&staged, e))?;
    std::fs::rename(&staged, &path).map_err(|e| io(&path, e))?;
    Ok(change)
}

/// Removes the hook this command wrote from the repository at `project`; any other
/// `pre-commit` stays.
pub fn uninstall(project: &Path, dry_run: bool) -> Result<(Change, Option<String>), InstallError> {
    let path = hook_file(project)?;
    let before = read(&path)?;
    let ours = before.as_deref().is_some_and(is_ours);
    let change = Change {
        path: path.clone(),
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
        std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
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
