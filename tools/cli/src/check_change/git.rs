//! git, asked so that a hostile repository, a slow one or a value from a model cannot turn it
//! against us:
//!
//! - each call ends by a deadline: past it git is killed and the call fails (a hook answers
//!   within its budget whatever `core.fsmonitor` or a huge work tree does);
//! - each answer is bounded ([`MAX_OUTPUT`] bytes; git's own message, [`MAX_MESSAGE`]);
//! - names are read NUL-separated (`-z`): no C-quoting to undo (`core.quotePath`), and no line
//!   break inside a name splits it in two;
//! - a revision from outside is never passed where git reads options: it is refused when it
//!   starts with `-`, verified as a commit behind `--end-of-options`, and only the object id
//!   git answers goes on to the next call.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The most bytes one git call may answer (a list of names): past it the call fails.
pub const MAX_OUTPUT: usize = 16 << 20;

/// The most bytes of git's own message an error quotes.
pub const MAX_MESSAGE: usize = 600;

/// Why git gave no answer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GitError {
    /// git could not be started.
    #[error("cannot run git: {0}")]
    Spawn(std::io::Error),
    /// git answered with an error.
    #[error("git {args}: {message}")]
    Failed {
        /// The arguments, as a person reads them.
        args: String,
        /// What git said, one line, escaped and bounded.
        message: String,
    },
    /// git did not answer by the deadline, and was killed.
    #[error("git {args} did not answer within {waited_ms} ms; it was stopped")]
    TimedOut {
        /// The arguments.
        args: String,
        /// How long it was given.
        waited_ms: u128,
    },
    /// git answered more than [`MAX_OUTPUT`] bytes.
    #[error("git {args} answered more than {MAX_OUTPUT} bytes; it was stopped")]
    TooLong {
        /// The arguments.
        args: String,
    },
    /// A revision that cannot be a commit of this repository.
    #[error("{rev} is not a commit of this repository ({why})")]
    NotARevision {
        /// The revision, quoted and escaped.
        rev: String,
        /// Why.
        why: &'static str,
    },
}

/// git in one directory, every call ending by one deadline.
#[derive(Clone, Copy, Debug)]
pub struct Git<'a> {
    dir: &'a Path,
    deadline: Instant,
}

impl<'a> Git<'a> {
    /// git run in `dir` (`git -C dir`), each call killed at `deadline`.
    pub fn new(dir: &'a Path, deadline: Instant) -> Git<'a> {
        Git { dir, deadline }
    }

    /// The same git in `dir`.
    pub fn at<'b>(&self, dir: &'b Path) -> Git<'b> {
        Git {
            dir,
            deadline: self.deadline,
        }
    }

    /// The directory git runs in.
    pub fn dir(&self) -> &'a Path {
        self.dir
    }

    /// The root of the work tree `dir` lies in.
    pub fn toplevel(&self) -> Result<PathBuf, GitError> {
        let mut out = self.run(&["rev-parse", "--show-toplevel"])?;
        // One line: the path, then a newline (a path may hold others; only the last goes).
        if out.last() == Some(&b'\n') {
            out.pop();
        }
        Ok(PathBuf::from(OsString::from_vec(out)))
    }

    /// The commit `HEAD` is on (`None`: no commit yet, or not a repository).
    pub fn head(&self) -> Option<String> {
        let out = self
            .run(&["rev-parse", "--verify", "--quiet", "HEAD^{commit}"])
            .ok()?;
        object_id(&out)
    }

    /// The object id of the commit `rev` names. `rev` comes from outside: one starting with
    /// `-` is refused before git sees it, and git reads it after `--end-of-options`, so it is
    /// only ever a revision.
    pub fn commit(&self, rev: &str) -> Result<String, GitError> {
        let refuse = |why| GitError::NotARevision {
            rev: docsuggest_schema::text::quoted(rev),
            why,
        };
        if rev.is_empty() {
            return Err(refuse("it is empty"));
        }
        if rev.starts_with('-') {
            return Err(refuse("a revision never starts with '-'"));
        }
        let spec = format!("{rev}^{{commit}}");
        let args: [&OsStr; 5] = [
            "rev-parse".as_ref(),
            "--verify".as_ref(),
            "--quiet".as_ref(),
            "--end-of-options".as_ref(),
            spec.as_ref(),
        ];
        match self.run_os(&args) {
            Ok(out) => object_id(&out).ok_or_else(|| refuse("git answered no object id")),
            Err(GitError::Failed { .. }) => Err(refuse("git knows no such commit")),
            Err(other) => Err(other),
        }
    }

    /// Runs git with `args` (constants of this crate, or an object id git answered).
    pub fn run(&self, args: &[&str]) -> Result<Vec<u8>, GitError> {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        self.run_os(&args)
    }

    fn run_os(&self, args: &[&OsStr]) -> Result<Vec<u8>, GitError> {
        let shown = || {
            args.iter()
                .map(|a| docsuggest_schema::text::bounded(&a.to_string_lossy(), 80))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let started = Instant::now();
        let mut child = Command::new("git")
            .arg("-C")
            .arg(self.dir)
            .args(args)
            // A read takes no lock the agent's own git may want (the index's).
            .env("GIT_OPTIONAL_LOCKS", "0")
            .env("GIT_TERMINAL_PROMPT", "0")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(GitError::Spawn)?;
        let (out, err) = (reader(child.stdout.take()), reader(child.stderr.take()));
        let waited = |child: &mut Child| {
            // A killed git is reaped; what it left in the pipes is not waited for.
            let _ = child.kill();
            let _ = child.wait();
            GitError::TimedOut {
                args: shown(),
                waited_ms: self.deadline.saturating_duration_since(started).as_millis(),
            }
        };
        let Some(out) = received(&out, self.deadline) else {
            return Err(waited(&mut child));
        };
        let Some(err) = received(&err, self.deadline) else {
            return Err(waited(&mut child));
        };
        let status = loop {
            match child.try_wait() {
                Ok(Some(status)) => break status,
                Ok(None) if Instant::now() < self.deadline => {
                    std::thread::sleep(Duration::from_millis(1));
                }
                _ => return Err(waited(&mut child)),
            }
        };
        let Some(out) = out else {
            return Err(GitError::TooLong { args: shown() });
        };
        if !status.success() {
            return Err(GitError::Failed {
                args: shown(),
                message: message(err.as_deref().unwrap_or_default()),
            });
        }
        Ok(out)
    }
}

/// A thread reading `pipe` to its end, up to [`MAX_OUTPUT`] bytes: it sends the bytes, or
/// `None` past the bound (and closes the pipe, which stops git).
fn reader(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Option<Vec<u8>>> {
    let (send, receive) = mpsc::sync_channel(1);
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = match pipe {
            Some(pipe) => pipe
                .take(MAX_OUTPUT as u64 + 1)
                .read_to_end(&mut bytes)
                .is_ok(),
            None => true,
        };
        let _ = send.send((read && bytes.len() <= MAX_OUTPUT).then_some(bytes));
    });
    receive
}

/// What a [`reader`] sent, waiting until `deadline` (`None`: nothing by then).
fn received(from: &mpsc::Receiver<Option<Vec<u8>>>, deadline: Instant) -> Option<Option<Vec<u8>>> {
    from.recv_timeout(deadline.saturating_duration_since(Instant::now()))
        .ok()
}

/// git's message as one line: each of its lines escaped, joined with `; `, bounded.
fn message(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let joined = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ");
    docsuggest_schema::text::bounded(&joined, MAX_MESSAGE)
}

/// An object id, when `out` is one (hex digits, then a newline).
fn object_id(out: &[u8]) -> Option<String> {
    let id = out.strip_suffix(b"\n").unwrap_or(out);
    (!id.is_empty() && id.iter().all(u8::is_ascii_hexdigit))
        .then(|| String::from_utf8_lossy(id).into_owned())
}

/// The names of a `-z` answer: each ends with NUL; none is empty.
pub fn split_names(out: &[u8]) -> Vec<Vec<u8>> {
    out.split(|&b| b == 0)
        .filter(|name| !name.is_empty())
        .map(<[u8]>::to_vec)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_on_nul_only() {
        let out = b"a b.md\0src/\xe2\x80\xae.py\0line\nbreak.md\0\0";
        assert_eq!(
            split_names(out),
            [
                b"a b.md".to_vec(),
                "src/\u{202e}.py".as_bytes().to_vec(),
                b"line\nbreak.md".to_vec()
            ]
        );
        assert!(split_names(b"").is_empty());
    }

    #[test]
    fn git_messages_are_one_escaped_bounded_line() {
        let said = message(b"fatal: bad revision 'x'\nhint: \xe2\x80\xae two\n\n");
        assert_eq!(said, "fatal: bad revision 'x'; hint: \\u{202e} two");
        assert!(message(&vec![b'x'; 10_000]).len() < MAX_MESSAGE + 40);
    }

    #[test]
    fn only_hex_is_an_object_id() {
        assert_eq!(object_id(b"0a1b\n").as_deref(), Some("0a1b"));
        for bad in [&b"\n"[..], b"--output=x\n", b"0a1b c\n", b""] {
            assert_eq!(object_id(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_revision_that_reads_as_an_option_is_refused_before_git_runs() {
        // No repository is needed: these never reach git.
        let git = Git::new(Path::new("/nonexistent"), Instant::now());
        for rev in ["--output=/tmp/x", "-p", ""] {
            assert!(
                matches!(git.commit(rev), Err(GitError::NotARevision { .. })),
                "{rev:?}"
            );
        }
    }
}
