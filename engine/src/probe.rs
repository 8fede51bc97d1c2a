//! The engine's only window on the disk: a small file-probe trait.
//!
//! Everything the pipeline learns about files goes through [`FileProbe`], so tests can give
//! it a fake disk and the pure core never opens, stats or walks anything itself.

use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// The largest file [`OsProbe::read_to_string`] reads: a pack is a few kilobytes.
pub const MAX_READ_BYTES: u64 = 1 << 20;

/// The most entries [`FileProbe::plain_entries`] answers for one directory.
pub const MAX_LISTED: usize = 2048;

/// A workspace root with its symlinks resolved, computed at most once per call.
pub type RealRoot = std::cell::OnceCell<Option<PathBuf>>;

/// What a path names, following symlinks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Something else that exists (a socket, a device).
    Other,
}

/// Enough of a file's metadata to notice that it changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// Last modification time.
    pub modified: Option<SystemTime>,
    /// Length in bytes.
    pub len: u64,
}

/// How long a probe's answers stay true, for a caller that wants to keep what it derived from
/// them past the call: `epoch` stays the same for as long as every answer the probe gave from
/// change-notified listings stays true, and `unsure` counts the answers it gave any other way
/// (asked of the OS, or from a listing validated by its stamp). What was derived only from
/// answers given while `unsure` did not move stays true while `epoch` stays the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Freshness {
    /// Changes whenever something a change-notified answer depended on may have changed.
    pub epoch: u64,
    /// Answers given so far that no change notification guards.
    pub unsure: u64,
}

/// The file queries the pipeline makes.
pub trait FileProbe {
    /// What `path` names, or `None` when nothing is there.
    fn kind(&self, path: &Path) -> Option<EntryKind>;
    /// The change stamp of a file, or `None` when it does not exist.
    fn stamp(&self, path: &Path) -> Option<Stamp>;
    /// A whole small text file. [`OsProbe`] reads only a regular file of at most
    /// [`MAX_READ_BYTES`], never follows a final symlink and never blocks on a FIFO.
    fn read_to_string(&self, path: &Path) -> std::io::Result<String>;
    /// The names of the immediate subdirectories of `dir` (empty when unreadable).
    fn subdirectories(&self, dir: &Path) -> Vec<PathBuf>;
    /// The path with every symlink resolved, or `None` when it does not exist.
    fn canonicalize(&self, path: &Path) -> Option<PathBuf>;
    /// The regular files and directories immediately in `dir`, sorted by name: symlinks,
    /// other entries and names that are not UTF-8 left out, at most [`MAX_LISTED`] (empty when
    /// unreadable). What a note may show as a specific file is found here, never through a
    /// symlink.
    fn plain_entries(&self, dir: &Path) -> Vec<(String, EntryKind)>;

    /// Whether anything is at `path` itself, a symlink included even when it leads nowhere
    /// (the default, for probes that know no symlinks: [`FileProbe::kind`]).
    fn is_entry(&self, path: &Path) -> bool {
        self.kind(path).is_some()
    }

    /// Whether `path` exists and, symlinks resolved, lies inside the workspace whose lexical
    /// root is `root`. `real_root` resolves the root at most once per call, when needed.
    fn resolves_within(&self, path: &Path, root: &Path, real_root: &RealRoot) -> bool {
        let Some(real_root) = real_root.get_or_init(|| self.canonicalize(root)) else {
            return false;
        };
        self.canonicalize(path)
            .is_some_and(|real| real.starts_with(real_root))
    }

    /// Marks the start of one judged call: a caching probe may trust what it validated
    /// earlier in the same call, and must look again after.
    fn begin_call(&self) {}

    /// What the probe promises about how long its answers stay true; `None` (the default)
    /// promises nothing past the call.
    fn freshness(&self) -> Option<Freshness> {
        None
    }
}

/// The operating system's file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct OsProbe;

impl FileProbe for OsProbe {
    fn kind(&self, path: &Path) -> Option<EntryKind> {
        let meta = std::fs::metadata(path).ok()?;
        Some(if meta.is_file() {
            EntryKind::File
        } else if meta.is_dir() {
            EntryKind::Dir
        } else {
            EntryKind::Other
        })
    }

    fn stamp(&self, path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(Stamp {
            modified: meta.modified().ok(),
            len: meta.len(),
        })
    }

    fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        read_regular(path)
    }

    fn subdirectories(&self, dir: &Path) -> Vec<PathBuf> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.path().is_dir())
            .map(|e| PathBuf::from(e.file_name()))
            .collect();
        out.sort();
        out
    }

    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        std::fs::canonicalize(path).ok()
    }

    fn plain_entries(&self, dir: &Path) -> Vec<(String, EntryKind)> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut out: Vec<(String, EntryKind)> = entries
            .filter_map(Result::ok)
            .take(MAX_LISTED)
            .filter_map(|e| {
                // `file_type` does not follow a symlink: a link is neither kind.
                let file_type = e.file_type().ok()?;
                let kind = if file_type.is_file() {
                    EntryKind::File
                } else if file_type.is_dir() {
                    EntryKind::Dir
                } else {
                    return None;
                };
                Some((e.file_name().into_string().ok()?, kind))
            })
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    fn is_entry(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok()
    }
}

/// What a non-regular file is, for the error that refuses it.
fn file_type_name(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() || file_type.is_block_device() {
            return "a device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a directory"
    } else if file_type.is_symlink() {
        "a symlink"
    } else {
        "not a regular file"
    }
}

fn refuse(kind: io::ErrorKind, why: String) -> io::Error {
    io::Error::new(kind, why)
}

/// Reads a regular file of at most [`MAX_READ_BYTES`] as UTF-8 text. The type is checked
/// before opening (so a FIFO or a device is never opened) and again on the open file (so a
/// swap in between is caught); the open neither follows a final symlink nor waits for a
/// FIFO's writer, so a hostile file can neither block the caller nor lead it to its own
/// standard input.
pub fn read_regular(path: &Path) -> io::Result<String> {
    let not_regular = |t: std::fs::FileType| {
        refuse(
            io::ErrorKind::InvalidInput,
            format!("it is {}; only a regular file is read", file_type_name(t)),
        )
    };
    let too_big = |len: u64| {
        refuse(
            io::ErrorKind::InvalidData,
            format!(
                "it is {len} bytes long, more than the limit of {MAX_READ_BYTES} bytes (1 MiB)"
            ),
        )
    };
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type()));
    }
    if meta.len() > MAX_READ_BYTES {
        return Err(too_big(meta.len()));
    }
    let file = open_no_follow(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type()));
    }
    let mut bytes = Vec::new();
    file.take(MAX_READ_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_READ_BYTES {
        return Err(too_big(bytes.len() as u64));
    }
    String::from_utf8(bytes).map_err(|e| {
        refuse(
            io::ErrorKind::InvalidData,
            format!(
                "it is not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

#[cfg(unix)]
fn open_no_follow(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
}

#[cfg(not(unix))]
fn open_no_follow(path: &Path) -> io::Result<std::fs::File> {
    std::fs::File::open(path)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Answers `ok <text>` or the refusal, for one kind of file at `pack`.
    fn check(make: impl FnOnce(&Path), expect: &str) {
        let dir = tempfile::tempdir().expect("tempdir");
        let pack = dir.path().join("pack.json");
        make(&pack);
        let got = match read_regular(&pack) {
            Ok(text) => format!("ok {text}"),
            Err(e) => e.to_string(),
        };
        assert_eq!(got, expect);
    }

    #[test]
    fn only_small_regular_text_files_are_read() {
        check(|p| std::fs::write(p, "{}").expect("write"), "ok {}");
        check(
            |p| std::fs::create_dir(p).expect("mkdir"),
            "it is a directory; only a regular file is read",
        );
        check(
            |p| {
                mkfifo(p);
            },
            "it is a FIFO; only a regular file is read",
        );
        check(
            |p| std::os::unix::fs::symlink("/dev/stdin", p).expect("symlink"),
            "it is a symlink; only a regular file is read",
        );
        check(
            |p| std::os::unix::fs::symlink("/dev/null", p).expect("symlink"),
            "it is a symlink; only a regular file is read",
        );
        check(
            |p| std::fs::write(p, vec![b' '; MAX_READ_BYTES as usize + 1]).expect("write"),
            "it is 1048577 bytes long, more than the limit of 1048576 bytes (1 MiB)",
        );
        check(
            |p| std::fs::write(p, b"{\xff}").expect("write"),
            "it is not UTF-8 text (byte 1)",
        );
    }

    fn mkfifo(path: &Path) {
        let status = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("mkfifo runs");
        assert!(status.success(), "mkfifo {}", path.display());
    }
}
