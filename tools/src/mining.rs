//! The hosts' pack miner: a git work tree with no pack is mined in the background, once per
//! process (again when its HEAD has moved far from the stored pack's), so no call waits on it.
//!
//! The engine asks [`BackgroundMiner::request`] on every judged call in such a work tree; the
//! answer comes from memory. A mining job runs on its own thread, one at a time per process
//! (a second work tree waits its turn), reading at most [`MAX_MINED_COMMITS`] of the newest
//! first-parent commits, each bounded in files (see `docsuggest_mine::history`).

use docsuggest_engine::mined::{MinedAnswer, PackMiner};
use docsuggest_mine::history::{self, ReadOptions};
use docsuggest_mine::{MINER_VERSION, MineOptions, mine};
use docsuggest_schema::MinedPack;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

pub use crate::init::MAX_MINED_COMMITS;

/// A stored pack is mined again once HEAD is at least this many first-parent commits past the
/// commit it was mined at (or that commit is no longer on HEAD's first-parent chain).
pub const REMINE_AFTER: usize = 200;

/// What is known of one work tree in this process.
#[derive(Debug)]
enum Job {
    /// A job is queued or running.
    Running,
    /// A job mined this record; the engine has not taken it yet.
    Mined(MinedPack),
    /// Nothing (more) to do: the stored pack is current, or the engine took the new one.
    Settled,
    /// The work tree cannot be mined (the reason was logged).
    Failed,
}

#[derive(Default)]
struct Shared {
    jobs: Mutex<HashMap<PathBuf, Job>>,
    /// Held by the running job: one mining job at a time.
    turn: Mutex<()>,
    /// Signalled when a job ends (for [`BackgroundMiner::wait_idle`]).
    ended: Condvar,
}

/// Mines work trees in the background for the engine's zero-config path.
#[derive(Clone, Default)]
pub struct BackgroundMiner {
    shared: Arc<Shared>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl BackgroundMiner {
    /// A miner with nothing known.
    pub fn new() -> BackgroundMiner {
        BackgroundMiner::default()
    }

    /// Blocks until no job is queued or running (tests, and hosts that want to wait).
    pub fn wait_idle(&self) {
        let mut jobs = lock(&self.shared.jobs);
        while jobs.values().any(|j| matches!(j, Job::Running)) {
            jobs = self
                .shared
                .ended
                .wait(jobs)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn spawn(&self, root: &Path, stored: Option<(String, u64)>) {
        let shared = self.shared.clone();
        let job_root = root.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("docsuggest-mine".into())
            .spawn(move || {
                let root = job_root;
                let outcome = {
                    let _turn = lock(&shared.turn);
                    run_job(&root, stored.as_ref())
                };
                let job = match outcome {
                    Ok(Some(record)) => Job::Mined(record),
                    Ok(None) => Job::Settled,
                    Err(reason) => {
                        tracing::warn!(root = %root.display(), %reason,
                            "mining a pack from the history failed; the work tree stays without one");
                        Job::Failed
                    }
                };
                lock(&shared.jobs).insert(root, job);
                shared.ended.notify_all();
            });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start a mining thread");
            lock(&self.shared.jobs).insert(root.to_path_buf(), Job::Failed);
            self.shared.ended.notify_all();
        }
    }
}

impl PackMiner for BackgroundMiner {
    fn request(&mut self, root: &Path, _key: &str, stored: Option<&MinedPack>) -> MinedAnswer {
        // A pack from another version of the miner is mined again (used meanwhile).
        let current = stored.filter(|s| s.miner == MINER_VERSION);
        let mut jobs = lock(&self.shared.jobs);
        match jobs.get(root) {
            None => {
                jobs.insert(root.to_path_buf(), Job::Running);
                drop(jobs);
                self.spawn(root, current.map(|s| (s.head.clone(), s.commits)));
                if stored.is_some() {
                    MinedAnswer::UseStored
                } else {
                    MinedAnswer::Pending
                }
            }
            Some(Job::Running) if stored.is_some() => MinedAnswer::UseStored,
            Some(Job::Running) => MinedAnswer::Pending,
            Some(Job::Mined(_)) => {
                let Some(Job::Mined(record)) = jobs.insert(root.to_path_buf(), Job::Settled) else {
                    return MinedAnswer::Pending;
                };
                MinedAnswer::Mined(record)
            }
            Some(Job::Settled | Job::Failed) if stored.is_some() => MinedAnswer::UseStored,
            Some(Job::Settled | Job::Failed) => MinedAnswer::Unavailable,
        }
    }
}

/// Mines `root` unless `stored` (head, commits) is still current: `Ok(None)` when it is.
fn run_job(root: &Path, stored: Option<&(String, u64)>) -> Result<Option<MinedPack>, String> {
    if let Some((head, _)) = stored
        && !moved_far(root, head)?
    {
        return Ok(None);
    }
    mine_root(root).map(Some)
}

/// Whether HEAD is [`REMINE_AFTER`] or more first-parent commits past `head`, or off its chain.
fn moved_far(root: &Path, head: &str) -> Result<bool, String> {
    let history = history::read_with(
        root,
        &ReadOptions {
            rev: None,
            since: None,
            max_files: 0,
            newest: Some(REMINE_AFTER),
        },
        |_| {},
    )
    .map_err(|e| e.to_string())?;
    Ok(!history.commits.iter().any(|c| c.id == head))
}

/// Mines the history of the work tree `root` into a record to store.
pub fn mine_root(root: &Path) -> Result<MinedPack, String> {
    let options = MineOptions::default();
    let history = history::read_with(
        root,
        &ReadOptions {
            rev: None,
            since: None,
            max_files: options.max_files,
            newest: Some(MAX_MINED_COMMITS),
        },
        |_| {},
    )
    .map_err(|e| e.to_string())?;
    let mined = mine(&history.commits, &history.tip_paths, &options);
    if mined.families.is_empty() {
        return Err(format!(
            "no family found in the {} first-parent commits",
            history.commits.len()
        ));
    }
    Ok(MinedPack {
        pack: mined.pack_json(),
        head: history.tip,
        commits: history.commits.len() as u64,
        miner: MINER_VERSION,
    })
}
