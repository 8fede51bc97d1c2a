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

/// [`resolve`] into `out`, a buffer reused from call to call (so resolving allocates nothing
/// once it is large enough). On Unix the parts are split on `/` as bytes, which is what
/// `Path::components` does there, without building a `PathBuf` part by part.
pub fn resolve_into(out: &mut String, path: &str, cwd: Option<&str>) -> Result<(), CallError> {
    if !cfg!(unix) {
        let resolved = resolve(path, cwd)?;
        out.clear();
        out.push_str(&resolved.to_string_lossy());
        return Ok(());
    }
    check_field("path", path)?;
    let cwd = if path.starts_with('/') {
        None
    } else {
        let cwd = cwd.ok_or_else(|| CallError::RelativeWithoutCwd(path.into()))?;
        check_field("cwd", cwd)?;
        if !cwd.starts_with('/') {
            return Err(CallError::RelativeCwd(cwd.into()));
        }
        Some(cwd)
    };
    out.clear();
    // The common case, both plainly spelled: the answer is their concatenation.
    if has_plain_parts(path) && cwd.is_none_or(has_plain_parts) {
        if let Some(cwd) = cwd.filter(|c| *c != "/") {
            out.push_str(cwd);
        }
        if !path.starts_with('/') {
            out.push('/');
        }
        out.push_str(path);
        return Ok(());
    }
    // Built without the leading `/` of the root (empty = the root), added once at the end.
    for part in cwd.into_iter().chain([path]).flat_map(|p| p.split('/')) {
        match part {
            "" | "." => {}
            ".." => {
                if out.is_empty() {
                    return Err(CallError::AboveRoot(path.into()));
                }
                let cut = out.rfind('/').unwrap_or(0);
                out.truncate(cut);
            }
            name => {
                out.push('/');
                out.push_str(name);
            }
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    Ok(())
}

/// Whether every `/`-separated part of `text` (after a leading `/`) is a name: none is empty,
/// `.` or `..`. `/` itself is plain; the empty text is not.
fn has_plain_parts(text: &str) -> bool {
    if text == "/" {
        return true;
    }
    let rest = text.strip_prefix('/').unwrap_or(text);
    !rest.is_empty()
        && rest
            .as_bytes()
            .split(|&b| b == b'/')
            .all(|part| !part.is_empty() && part != b"." && part != b"..")
}

/// `path` relative to `base` as a `/`-separated string, when `path` lies under `base`.
pub fn relative_to<'a>(path: &'a Path, base: &Path) -> Option<&'a str> {
    // Call paths are normalised (no `.`, `..` or doubled separators), so the rest of the
    // path is already the `/`-joined components.
    strip_base(path, base)?.to_str()
}

/// `Path::strip_prefix`, answered by comparing bytes when both paths are plainly spelled
/// (the judge calls it for every companion under every base, and comparing components is
/// several times slower). Odd spellings take the component-wise route.
pub fn strip_base<'a>(path: &'a Path, base: &Path) -> Option<&'a Path> {
    #[cfg(unix)]
    {
        use std::ffi::OsStr;
        use std::os::unix::ffi::OsStrExt;
        // Bytes, not `str`: checking the UTF-8 of both paths costs more than comparing them.
        let (p, b) = (path.as_os_str().as_bytes(), base.as_os_str().as_bytes());
        // The prefix first: when `base` ends where a part of a plainly spelled `path` ends,
        // `base` (made of `path`'s first parts) is plainly spelled too, and is not checked.
        if let Some(rest) = p.strip_prefix(b).filter(|_| !b.is_empty()) {
            let rest = if rest.is_empty() || b == b"/" {
                Some(rest)
            } else {
                rest.strip_prefix(b"/")
            };
            if let Some(rest) = rest
                && is_plain_bytes(p)
            {
                return Some(Path::new(OsStr::from_bytes(rest)));
            }
        }
        // Not a base of it by bytes (`/ws` is not a base of `/wsx`): nor by components, when
        // both are plainly spelled.
        if is_plain_bytes(p) && is_plain_bytes(b) {
            return None;
        }
    }
    path.strip_prefix(base).ok()
}

/// `(path.parent(), path.file_name())`, by bytes for plainly spelled paths (every existence
/// lookup splits its path).
pub fn split_name(path: &Path) -> Option<(&Path, &std::ffi::OsStr)> {
    if let Some(p) = path.to_str()
        && is_plain(p)
    {
        let cut = p.rfind('/')?;
        let name = &p[cut + 1..];
        if name.is_empty() {
            return None;
        }
        let parent = if cut == 0 { "/" } else { &p[..cut] };
        return Some((Path::new(parent), std::ffi::OsStr::new(name)));
    }
    Some((path.parent()?, path.file_name()?))
}

/// An absolute `/`-separated path with no empty, `.` or `..` component and no trailing
/// separator (`/` itself included): its components are exactly its `/`-separated parts.
fn is_plain(path: &str) -> bool {
    is_plain_bytes(path.as_bytes())
}

/// [`is_plain`] of a path's bytes.
fn is_plain_bytes(path: &[u8]) -> bool {
    if path == b"/" {
        return true;
    }
    let Some(rest) = path.strip_prefix(b"/") else {
        return false;
    };
    cfg!(unix) && !rest.is_empty() && is_plain_relative_bytes(rest)
}

/// A relative `/`-separated path whose parts are all names (no empty, `.` or `..` part); the
/// empty path is plain.
pub fn is_plain_relative(path: &str) -> bool {
    is_plain_relative_bytes(path.as_bytes())
}

fn is_plain_relative_bytes(bytes: &[u8]) -> bool {
    // One pass over the bytes: every call checks its paths, and splitting costs several
    // times more.
    let mut start = 0;
    for end in (0..=bytes.len()).filter(|&i| i == bytes.len() || bytes[i] == b'/') {
        if matches!(&bytes[start..end], b"" | b"." | b"..") {
            return bytes.is_empty();
        }
        start = end + 1;
    }
    true
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
    use proptest::prelude::*;

    proptest! {
        /// The byte route and the component route always agree.
        #[test]
        fn strip_base_is_strip_prefix(
            path in "/?([a.]{0,2}/?){0,4}",
            base in "/?([a.]{0,2}/?){0,3}",
        ) {
            let (path, base) = (Path::new(&path), Path::new(&base));
            prop_assert_eq!(strip_base(path, base), path.strip_prefix(base).ok());
            let expected = path.parent().zip(path.file_name());
            prop_assert_eq!(split_name(path), expected);
        }

        /// The one-pass check is the definition: every `/`-part a name.
        #[test]
        fn is_plain_relative_is_every_part_a_name(path in "[a./]{0,8}") {
            let by_parts = path.is_empty()
                || path.split('/').all(|c| !c.is_empty() && c != "." && c != "..");
            prop_assert_eq!(is_plain_relative(&path), by_parts, "{:?}", path);
        }

        /// Resolving in place answers what `resolve` answers, error or path.
        #[test]
        fn resolve_into_is_resolve(
            path in "(/?([a.]{0,3}/){0,4}[a.]{0,3})",
            cwd in proptest::option::of("(/?([a.]{0,2}/){0,3}[a.]{0,2})"),
        ) {
            let mut out = String::from("left over");
            let got = resolve_into(&mut out, &path, cwd.as_deref()).map(|()| PathBuf::from(&out));
            prop_assert_eq!(got, resolve(&path, cwd.as_deref()));
        }
    }

    fn check(path: &str, cwd: Option<&str>, expect: Result<&str, &str>) {
        let got = resolve(path, cwd);
        let mut out = String::new();
        let in_place = resolve_into(&mut out, path, cwd).map(|()| PathBuf::from(&out));
        assert_eq!(in_place, got, "{path} in {cwd:?}");
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
        check("X.md", Some("/"), Ok("/X.md"));
        check("/", Some("/ws"), Ok("/"));
        check("a/b/", Some("/ws/"), Ok("/ws/a/b"));
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
        assert_eq!(relative_to(Path::new("/wsx/a"), Path::new("/ws")), None);
        assert_eq!(
            relative_to(Path::new("/ws/a"), Path::new("/")),
            Some("ws/a")
        );
        assert_eq!(
            literal_prefix(Path::new("/ws/Documentation/**/*.md")),
            PathBuf::from("/ws/Documentation")
        );
        assert!(is_pattern("Documentation/*.md"));
        assert!(!is_pattern("Documentation/X.md"));
    }
}
