//! Appends ledger lines to the config's `logFile` when `log=true`.
//!
//! The log is a convenience for people tailing it: a failure to write it is a tracing
//! warning (once per file until a write succeeds again) and never fails the call that
//! produced the lines. The file follows the config in force, so a `configure` that changes
//! `log` or `logFile` takes effect at the next line.

use crate::home;
use docsuggest_schema::Config;
use std::borrow::Borrow;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The ledger file writer of one host.
#[derive(Debug, Default)]
pub struct LedgerLog {
    open: Option<(PathBuf, File)>,
    /// The file whose last write failed (its warning was already given).
    failing: Option<PathBuf>,
}

impl LedgerLog {
    /// A writer with no file open yet.
    pub fn new() -> LedgerLog {
        LedgerLog::default()
    }

    /// Appends `lines` to the log file of `config`, if it logs.
    pub fn append<L: Borrow<str>>(&mut self, config: &Config, lines: &[L]) {
        if !config.log || lines.is_empty() {
            return;
        }
        let path = home::expand(&config.log_file);
        let mut text = lines.join("\n");
        text.push('\n');
        match self.write(&path, text.as_bytes()) {
            Ok(()) => self.failing = None,
            Err(e) => {
                // Drop the handle: the next call retries with a fresh open.
                self.open = None;
                if self.failing.as_deref() != Some(path.as_path()) {
                    tracing::warn!(file = %path.display(), error = %e, "cannot append to the ledger log");
                    self.failing = Some(path);
                }
            }
        }
    }

    fn write(&mut self, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
        if self.open.as_ref().is_none_or(|(p, _)| p != path) {
            self.open = Some((path.to_path_buf(), open_append(path)?));
        }
        match &mut self.open {
            Some((_, file)) => file.write_all(bytes),
            None => Ok(()),
        }
    }
}

fn open_append(path: &Path) -> std::io::Result<File> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    OpenOptions::new().create(true).append(true).open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(log: bool, file: &Path) -> Config {
        Config {
            log,
            log_file: file.display().to_string(),
            ..Config::default()
        }
    }

    #[test]
    fn appends_lines_and_follows_the_config() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = dir.path().join("logs/a.log");
        let second = dir.path().join("b.log");
        let mut log = LedgerLog::new();
        log.append(&config(true, &first), &["one", "two"]);
        log.append(&config(true, &first), &["three"]);
        log.append(&config(false, &first), &["hidden"]);
        log.append(&config(true, &second), &["four"]);
        assert_eq!(
            std::fs::read_to_string(&first).expect("read"),
            "one\ntwo\nthree\n"
        );
        assert_eq!(std::fs::read_to_string(&second).expect("read"), "four\n");
    }

    #[test]
    fn a_failed_write_is_not_an_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        // A directory cannot be opened for appending.
        let mut log = LedgerLog::new();
        log.append(&config(true, dir.path()), &["lost"]);
        assert_eq!(log.failing.as_deref(), Some(dir.path()));
        let file = dir.path().join("ok.log");
        log.append(&config(true, &file), &["kept"]);
        assert_eq!(log.failing, None);
        assert_eq!(std::fs::read_to_string(&file).expect("read"), "kept\n");
    }
}
