//! Call paths: validation, resolution against the call's cwd, lexical normalisation.

use std::path::{Component, Path, PathBuf};

/// The longest path or cwd a call may carry, in bytes.
pub const MAX_PATH_BYTES: usize = 4096;

/// A call the engine cannot judge, naming what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CallError {
    /// A required field is empty.
    #[error("{field} is empty")]
    Empty {
        /// The field (`agent`, `path`, …).
        field: &'static str,
    },
    /// A field holds a NUL byte.
    #[error("{field} contains a NUL byte")]
    Nul {
        /// The field.
        field: &'static str,
    },
    /// A field is longer than [`MAX_PATH_BYTES`].
    #[error("{field} is {len} bytes long (at most {MAX_PATH_BYTES})")]
    TooLong {
        /// The field.
        field: &'static str,
        /// Its length.
        len: usize,
    },
    /// A relative path came without a cwd to resolve it against.
    #[error("path {0:?} is relative and the call has no cwd")]
    RelativeWithoutCwd(String),
    /// The cwd itself is relative.
    #[error("cwd {0:?} is not absolute")]
    RelativeCwd(String),
    /// `..` components climb above the file system root.
    #[error("path {0:?} climbs above the file system root")]
    AboveRoot(String),
}

impl CallError {
    /// A stable kebab-case code for hosts.
    pub fn code(&self) -> &'static str {
        match self {
            CallError::Empty { .. } => "empty-field",
            CallError::Nul { .. } => "nul-byte",
            CallError::TooLong { .. } => "path-too-long",
            CallError::RelativeWithoutCwd(_) => "relative-path-without-cwd",
            CallError::RelativeCwd(_) => "relative-cwd",
            CallError::AboveRoot(_) => "path-above-root",
        }
    }
}

/// Checks one text field of a call.
pub fn check_field(field: &'static str, value: &str) -> Result<(), CallError> {
    if value.is_empty() {
        Err(CallError::Empty { field })
    } else if value.contains('\0') {
        Err(CallError::Nul { field })
    } else if value.len() > MAX_PATH_BYTES {
        Err(CallError::TooLong {
            field,
            len: value.len(),
        })
    } else {
        Ok(())
    }
}

/// Resolves `path` against `cwd` and normalises `.` and `..` lexically.
pub fn resolve(path: &str, cwd: Option<&str>) -> Result<PathBuf, CallError> {
    check_field("path", path)?;
    let joined = if Path::new(path).is_absolute() {
        PathBuf::from(path)
    } else {
        let cwd = cwd.ok_or_else(|| CallError::RelativeWithoutCwd(path.into()))?;
        check_field("cwd", cwd)?;
        if !Path::new(cwd).is_absolute() {
            return Err(CallError::RelativeCwd(cwd.into()));
        }
        Path::new(cwd).join(path)
    };
    let mut out = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                if !out.pop() {
                    return Err(CallError::AboveRoot(path.into()));
                }
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    Ok(out)
}

/// `path` relative to `base` as a `/`-separated string, when `path` lies under `base`.
pub fn relative_to<'a>(path: &'a Path, base: &Path) -> Option<&'a str> {
    // Call paths are normalised (no `.`, `..` or doubled separators), so the rest of the
    // path is already the `/`-joined components.
    path.strip_prefix(base).ok()?.to_str()
}

/// Whether a path text carries glob syntax (a glob or grep pattern rather than one path).
pub fn is_pattern(text: &str) -> bool {
    text.contains(['*', '?', '[', '{'])
}

/// The leading components of `path` before the first one with glob syntax.
pub fn literal_prefix(path: &Path) -> PathBuf {
    path.components()
        .take_while(|c| !is_pattern(&c.as_os_str().to_string_lossy()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(path: &str, cwd: Option<&str>, expect: Result<&str, &str>) {
        let got = resolve(path, cwd);
        match expect {
            Ok(p) => assert_eq!(got, Ok(PathBuf::from(p)), "{path} in {cwd:?}"),
            Err(code) => assert_eq!(got.map_err(|e| e.code()), Err(code), "{path} in {cwd:?}"),
        }
    }

    #[test]
    fn resolves_and_normalises() {
        check("/ws/a/../b/./c.md", None, Ok("/ws/b/c.md"));
        check(
            "Documentation/X.md",
            Some("/ws"),
            Ok("/ws/Documentation/X.md"),
        );
        check("../other/X.md", Some("/ws/pkg"), Ok("/ws/other/X.md"));
        check("X.md", None, Err("relative-path-without-cwd"));
        check("X.md", Some("ws"), Err("relative-cwd"));
        check("/../../etc", None, Err("path-above-root"));
        check("", Some("/ws"), Err("empty-field"));
        check("a\0b", Some("/ws"), Err("nul-byte"));
        check(&"a/".repeat(3000), Some("/ws"), Err("path-too-long"));
    }

    #[test]
    fn relative_and_prefix() {
        assert_eq!(
            relative_to(Path::new("/ws/a/b.md"), Path::new("/ws")),
            Some("a/b.md")
        );
        assert_eq!(relative_to(Path::new("/ws"), Path::new("/ws")), Some(""));
        assert_eq!(relative_to(Path::new("/other"), Path::new("/ws")), None);
        assert_eq!(
            literal_prefix(Path::new("/ws/Documentation/**/*.md")),
            PathBuf::from("/ws/Documentation")
        );
        assert!(is_pattern("Documentation/*.md"));
        assert!(!is_pattern("Documentation/X.md"));
    }
}
