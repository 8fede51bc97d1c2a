//! The turn-id store: the last turn id seen per agent, one small owner-only file each in
//! `<socket>.turns/`, so a turn starts once per id across hook processes; pruned by age and
//! count.

use super::options::HookOptions;
use super::state::{Open, private_file};
use docsuggest_schema::beside::beside;
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// Remembered turn ids older than this are removed from `<socket>.turns/`.
pub const TURNS_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// At most this many remembered turn ids are kept (the newest).
pub const TURNS_MAX_FILES: usize = 1024;

/// The last turn id seen per agent, one small file each, so a turn starts once per id
/// across hook processes.
pub struct Turns(pub PathBuf);

impl Turns {
    /// The turn ids of the hooks that run with `options`, beside their socket.
    pub(super) fn of(options: &HookOptions) -> Turns {
        Turns(beside(&options.socket, ".turns"))
    }

    pub(super) fn file(&self, agent: &str) -> PathBuf {
        // Session ids are UUIDs; anything else is hex-encoded to stay one safe file name.
        let safe = !agent.is_empty()
            && agent.len() <= 128
            && agent
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        let name = if safe {
            agent.to_string()
        } else {
            agent.bytes().take(64).map(|b| format!("{b:02x}")).collect()
        };
        self.0.join(name)
    }

    /// What was last remembered for `agent` (`None`: nothing, or unreadable).
    pub(super) fn recall(&self, agent: &str) -> Option<String> {
        let mut last = String::new();
        private_file(&self.file(agent), Open::Read)
            .and_then(|mut file| file.read_to_string(&mut last))
            .ok()?;
        Some(last).filter(|l| !l.is_empty())
    }

    /// Forgets what was remembered for `agent`.
    pub(super) fn forget(&self, agent: &str) {
        let _ = std::fs::remove_file(self.file(agent));
    }

    pub(super) fn is_new(&self, agent: &str, turn_id: &str) -> bool {
        let mut last = String::new();
        let read = private_file(&self.file(agent), Open::Read)
            .and_then(|mut file| file.read_to_string(&mut last));
        read.is_err() || last != turn_id
    }

    pub(super) fn remember(&self, agent: &str, turn_id: &str) {
        // Losing this only costs one extra turn reset at the next tool call.
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&self.0);
        match std::fs::symlink_metadata(&self.0) {
            Ok(meta) if meta.is_dir() && meta.uid() == rustix::process::geteuid().as_raw() => {}
            _ => return,
        }
        if let Ok(mut file) = private_file(&self.file(agent), Open::Truncate) {
            let _ = file.write_all(turn_id.as_bytes());
        }
        self.prune(SystemTime::now());
    }

    /// Removes the turn ids older than [`TURNS_MAX_AGE`], then the oldest past
    /// [`TURNS_MAX_FILES`].
    pub fn prune(&self, now: SystemTime) {
        let Ok(entries) = std::fs::read_dir(&self.0) else {
            return;
        };
        let mut kept = Vec::new();
        for entry in entries.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            let modified = meta.modified().unwrap_or(now);
            if now.duration_since(modified).unwrap_or_default() > TURNS_MAX_AGE {
                let _ = std::fs::remove_file(entry.path());
            } else {
                kept.push((modified, entry.path()));
            }
        }
        if kept.len() > TURNS_MAX_FILES {
            kept.sort();
            for (_, path) in &kept[..kept.len() - TURNS_MAX_FILES] {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}
