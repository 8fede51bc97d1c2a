//! How a redb store is opened: file, durability, ring bound and process model.

use docsuggest_schema::{Config, Durability};
use std::path::PathBuf;
use std::time::Duration;

/// Everything [`RedbStore::open`](crate::RedbStore::open) needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreOptions {
    /// The store file; created (mode 0600, parent directories 0700) when missing.
    pub path: PathBuf,
    /// `Immediate` fsyncs every commit; `Group` fsyncs at least once per `flush_interval`.
    pub durability: Durability,
    /// In `Group` durability, the longest time between fsynced commits while commits flow.
    pub flush_interval: Duration,
    /// The bound of the resolved history; older entries are folded into the base table.
    pub ring_capacity: u64,
    /// Share the file between processes (redb's multi-writer mode). Every commit is then
    /// fsynced, and pending decisions are not abandoned at open (they may be another live
    /// process's open windows). Off by default: one process per file.
    pub multi_process: bool,
}

impl StoreOptions {
    /// Options for `path` with the defaults of [`Config`].
    pub fn new(path: impl Into<PathBuf>) -> StoreOptions {
        StoreOptions::from_config(path, &Config::default())
    }

    /// Options for `path` (already `~`-expanded by the host) with the store fields of `config`.
    pub fn from_config(path: impl Into<PathBuf>, config: &Config) -> StoreOptions {
        StoreOptions {
            path: path.into(),
            durability: config.durability,
            flush_interval: Duration::from_millis(config.flush_interval_ms),
            ring_capacity: config.ring_capacity,
            multi_process: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_come_from_the_config() {
        let o = StoreOptions::new("/tmp/s.redb");
        assert_eq!(o.durability, Durability::Immediate);
        assert_eq!(o.flush_interval, Duration::from_millis(1000));
        assert_eq!(o.ring_capacity, 65_536);
        assert!(!o.multi_process);
    }
}
