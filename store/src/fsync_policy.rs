//! When a commit is fsynced: the durability policy of the redb store.
//!
//! `immediate` fsyncs every commit. `group` commits without fsync and makes a commit durable
//! whenever the last durable one is older than the flush interval (checked at each commit),
//! plus on `flush` and on close. No timer thread: an idle store keeps its last commits
//! unsynced until the next commit, flush or close. In multi-process mode redb refuses
//! non-durable commits (other processes could not see them), so every commit is durable there.
//!
//! The policy decides only durability: rates and sequence numbers never depend on it. (Under
//! `group`, a pending record does not even get a commit of its own: see [`crate::deferred`].)

use docsuggest_schema::Durability;
use std::time::{Duration, Instant};

/// Whether the next commit is fsynced, and the time of the last durable (fsynced) commit.
#[derive(Debug)]
pub(crate) struct FsyncPolicy {
    mode: Durability,
    interval: Duration,
    multi_process: bool,
    last_sync: Instant,
    unsynced: bool,
}

impl FsyncPolicy {
    /// A policy whose last durable commit is `now` (a store that was just opened is durable).
    pub(crate) fn new(
        mode: Durability,
        interval: Duration,
        multi_process: bool,
        now: Instant,
    ) -> FsyncPolicy {
        FsyncPolicy {
            mode,
            interval,
            multi_process,
            last_sync: now,
            unsynced: false,
        }
    }

    /// Changes the mode and interval; the time of the last durable commit is kept.
    pub(crate) fn set(&mut self, mode: Durability, interval: Duration) {
        self.mode = mode;
        self.interval = interval;
    }

    /// The durability mode in force (always `Immediate` in multi-process mode).
    pub(crate) fn mode(&self) -> Durability {
        if self.multi_process {
            Durability::Immediate
        } else {
            self.mode
        }
    }

    /// Whether a commit made at `now` must be durable.
    pub(crate) fn durable_at(&self, now: Instant) -> bool {
        match self.mode() {
            Durability::Immediate => true,
            Durability::Group => now.saturating_duration_since(self.last_sync) >= self.interval,
        }
    }

    /// Notes a commit made at `now`.
    pub(crate) fn committed(&mut self, durable: bool, now: Instant) {
        if durable {
            self.last_sync = now;
            self.unsynced = false;
        } else {
            self.unsynced = true;
        }
    }

    /// Whether commits since the last durable one are waiting for an fsync.
    pub(crate) fn unsynced(&self) -> bool {
        self.unsynced
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    /// Commits at the given offsets (ms) from the start; answers which ones were durable.
    fn check(mode: Durability, multi_process: bool, offsets_ms: &[u64], expect: &[bool]) {
        let t0 = Instant::now();
        let mut policy = FsyncPolicy::new(mode, SEC, multi_process, t0);
        let got: Vec<bool> = offsets_ms
            .iter()
            .map(|&ms| {
                let now = t0 + Duration::from_millis(ms);
                let durable = policy.durable_at(now);
                policy.committed(durable, now);
                durable
            })
            .collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn group_syncs_once_per_interval() {
        check(
            Durability::Group,
            false,
            &[0, 10, 999, 1000, 1001, 1999, 2000, 5000, 5001],
            &[false, false, false, true, false, false, true, true, false],
        );
    }

    #[test]
    fn immediate_and_multi_process_sync_every_commit() {
        check(
            Durability::Immediate,
            false,
            &[0, 1, 2],
            &[true, true, true],
        );
        check(Durability::Group, true, &[0, 1, 2], &[true, true, true]);
    }

    #[test]
    fn unsynced_tracks_non_durable_commits() {
        let t0 = Instant::now();
        let mut policy = FsyncPolicy::new(Durability::Group, SEC, false, t0);
        assert!(!policy.unsynced());
        policy.committed(false, t0);
        assert!(policy.unsynced());
        policy.committed(true, t0);
        assert!(!policy.unsynced());
        policy.set(Durability::Immediate, SEC);
        assert_eq!(policy.mode(), Durability::Immediate);
    }
}
