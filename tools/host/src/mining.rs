//! The hosts' pack miner: a git work tree with no pack is mined in the background, once per
//! process (again when the history says the stored pack is stale), so no call waits on it.
//!
//! The engine asks [`BackgroundMiner::request`] on every judged call in such a work tree; the
//! answer comes from memory. A mining job runs on its own thread, one at a time per process
//! (a second work tree waits its turn), through a [`HistoryMiner`]: the git reader linked
//! into the process when a binary registered one ([`use_in_process`]; `docsuggest` does), or
//! else the `docsuggest` binary run as a child ([`CommandMiner`]), so a host that links no git
//! reader (the Node addon) still gets packs mined.

use docsuggest_engine::mined::{MinedAnswer, PackMiner};
use docsuggest_engine::{Identified, RepoIdentifier};
use docsuggest_schema::MinedPack;
use std::collections::HashMap;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, OnceLock, PoisonError};

/// Turns a work tree's history into a pack to store.
pub trait HistoryMiner: Send + Sync {
    /// Mines `root` unless `stored`, the pack the store holds for it, is still current (same
    /// miner version, HEAD not moved far past it): `Ok(None)` when it is. The error is the
    /// reason, for the log.
    fn mine(&self, root: &Path, stored: Option<&MinedPack>) -> Result<Option<MinedPack>, String>;

    /// The identity of the repository whose work tree starts at `root` (`commit:<root
    /// commit>` or `name:<configured>`), for the keys of the workspaces inside it: `Ok(None)`
    /// when it has none (an empty or shallow repository). A reader that cannot tell answers
    /// `Ok(None)`, and those workspaces keep their paths' keys.
    fn identify(&self, root: &Path) -> Result<Option<String>, String> {
        let _ = root;
        Ok(None)
    }

    /// Whether [`HistoryMiner::identify`] answers at once (a git reader in this process), or
    /// takes long enough (running another process) that a judged call must not wait for it:
    /// then the identity is found on a thread of its own and the workspace keyed by its path
    /// meanwhile.
    fn identifies_at_once(&self) -> bool {
        false
    }
}

/// The engine's [`RepoIdentifier`] over a [`HistoryMiner`]: what it cannot tell is logged
/// and keyed by path. A miner that does not identify at once is asked on a thread, one per
/// work tree, and answers [`Identified::Pending`] until it is done.
struct MinerIdentity {
    miner: Arc<dyn HistoryMiner>,
    /// Per work tree: `None` while its thread runs, then the answer.
    asked: Arc<Mutex<HashMap<PathBuf, Option<Option<String>>>>>,
}

impl MinerIdentity {
    fn identity(miner: &dyn HistoryMiner, git_root: &Path) -> Option<String> {
        miner.identify(git_root).unwrap_or_else(|reason| {
            tracing::info!(root = %git_root.display(), %reason, "no repository identity; keyed by path");
            None
        })
    }
}

impl RepoIdentifier for MinerIdentity {
    fn identify(&self, git_root: &Path) -> Option<String> {
        MinerIdentity::identity(self.miner.as_ref(), git_root)
    }

    fn try_identify(&self, git_root: &Path) -> Identified {
        if self.miner.identifies_at_once() {
            return Identified::Found(self.identify(git_root));
        }
        let mut asked = lock(&self.asked);
        match asked.get(git_root) {
            Some(Some(found)) => return Identified::Found(found.clone()),
            Some(None) => return Identified::Pending,
            None => {}
        }
        if asked.len() >= MAX_ASKED {
            asked.clear();
        }
        asked.insert(git_root.to_path_buf(), None);
        drop(asked);
        let (miner, answers, root) = (
            self.miner.clone(),
            self.asked.clone(),
            git_root.to_path_buf(),
        );
        let spawned = std::thread::Builder::new()
            .name("docsuggest-identify".into())
            .spawn(move || {
                let found = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    MinerIdentity::identity(miner.as_ref(), &root)
                }))
                .unwrap_or(None);
                lock(&answers).insert(root, Some(found));
            });
        match spawned {
            Ok(_) => Identified::Pending,
            Err(_) => {
                let found = self.identify(git_root);
                lock(&self.asked).insert(git_root.to_path_buf(), Some(found.clone()));
                Identified::Found(found)
            }
        }
    }
}

/// At most this many work trees' identities are kept; past it all are forgotten (asked again).
const MAX_ASKED: usize = 4096;

/// The repository identifier hosts give the engine: through [`history_miner`].
pub fn repo_identifier() -> Box<dyn RepoIdentifier> {
    Box::new(MinerIdentity {
        miner: history_miner(),
        asked: Arc::default(),
    })
}

static IN_PROCESS: OnceLock<Arc<dyn HistoryMiner>> = OnceLock::new();

/// Registers the process's own git reader, used by every host built after this call (a
/// second registration is ignored: a process has one reader).
pub fn use_in_process(miner: Arc<dyn HistoryMiner>) {
    let _ = IN_PROCESS.set(miner);
}

/// The miner hosts use: the registered one, else [`CommandMiner::from_env`].
pub fn history_miner() -> Arc<dyn HistoryMiner> {
    match IN_PROCESS.get() {
        Some(miner) => miner.clone(),
        None => Arc::new(CommandMiner::from_env()),
    }
}

/// What is known of one work tree in this process.
#[derive(Debug)]
enum Job {
    /// A job is queued or running.
    Running,
    /// A job mined this record; the engine has not taken it yet.
    Mined(MinedPack),
    /// Nothing (more) to do: the stored pack is current, or the engine took the new one.
    Settled,
    /// The work tree cannot be mined: why (also logged), which every call there answers
    /// among its warnings.
    Failed(String),
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
#[derive(Clone)]
pub struct BackgroundMiner {
    shared: Arc<Shared>,
    miner: Arc<dyn HistoryMiner>,
}

impl Default for BackgroundMiner {
    fn default() -> BackgroundMiner {
        BackgroundMiner::with(history_miner())
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl BackgroundMiner {
    /// A miner with nothing known, mining through [`history_miner`].
    pub fn new() -> BackgroundMiner {
        BackgroundMiner::default()
    }

    /// A miner with nothing known, mining through `miner`.
    pub fn with(miner: Arc<dyn HistoryMiner>) -> BackgroundMiner {
        BackgroundMiner {
            shared: Arc::default(),
            miner,
        }
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

    fn spawn(&self, root: &Path, stored: Option<MinedPack>) {
        let shared = self.shared.clone();
        let miner = self.miner.clone();
        let job_root = root.to_path_buf();
        let spawned = std::thread::Builder::new()
            .name("docsuggest-mine".into())
            .spawn(move || {
                let root = job_root;
                let outcome = {
                    let _turn = lock(&shared.turn);
                    // A panicking miner (a bug, a dependency) fails this job only: the
                    // process and every other work tree go on.
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        miner.mine(&root, stored.as_ref())
                    }))
                    .unwrap_or_else(|panic| Err(format!("the mining job panicked: {}", crate::panic_text::message(panic.as_ref()))))
                };
                let job = match outcome {
                    Ok(Some(record)) => Job::Mined(record),
                    Ok(None) => Job::Settled,
                    Err(reason) => {
                        tracing::warn!(root = %root.display(), %reason,
                            "mining a pack from the history failed; the work tree stays without one");
                        Job::Failed(docsuggest_schema::text::bounded(&reason, 400))
                    }
                };
                lock(&shared.jobs).insert(root, job);
                shared.ended.notify_all();
            });
        if let Err(e) = spawned {
            tracing::error!(error = %e, "cannot start a mining thread");
            lock(&self.shared.jobs).insert(
                root.to_path_buf(),
                Job::Failed(format!("cannot start a mining thread: {e}")),
            );
            self.shared.ended.notify_all();
        }
    }
}

impl PackMiner for BackgroundMiner {
    fn request(&mut self, root: &Path, _key: &str, stored: Option<&MinedPack>) -> MinedAnswer {
        let mut jobs = lock(&self.shared.jobs);
        match jobs.get(root) {
            None => {
                jobs.insert(root.to_path_buf(), Job::Running);
                drop(jobs);
                self.spawn(root, stored.cloned());
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
            Some(Job::Settled | Job::Failed(_)) if stored.is_some() => MinedAnswer::UseStored,
            Some(Job::Failed(reason)) => MinedAnswer::Unavailable(reason.clone()),
            Some(Job::Settled) => MinedAnswer::Unavailable(
                "the miner found the stored pack current, but the store holds none".into(),
            ),
        }
    }
}

/// Mines through the `docsuggest` binary: `docsuggest mine-pack ROOT`, given the stored pack
/// on stdin, prints the new record as JSON, or `null` when the stored one is current.
#[derive(Clone, Debug)]
pub struct CommandMiner {
    program: PathBuf,
}

/// The environment variable naming the `docsuggest` binary a [`CommandMiner`] runs (else
/// `docsuggest` is looked up on `PATH`).
pub const BINARY_VAR: &str = "DOCSUGGEST_BIN";

/// The most a child's answer may hold: a record is bounded well below this.
const MAX_ANSWER_BYTES: u64 = 16 << 20;

impl CommandMiner {
    /// Runs `program`.
    pub fn new(program: impl Into<PathBuf>) -> CommandMiner {
        CommandMiner {
            program: program.into(),
        }
    }

    /// Runs [`BINARY_VAR`]'s binary, or `docsuggest` from `PATH`.
    pub fn from_env() -> CommandMiner {
        CommandMiner::new(std::env::var_os(BINARY_VAR).unwrap_or_else(|| "docsuggest".into()))
    }
}

impl HistoryMiner for CommandMiner {
    fn mine(&self, root: &Path, stored: Option<&MinedPack>) -> Result<Option<MinedPack>, String> {
        let shown = self.program.display();
        let stored = serde_json::to_vec(&stored).map_err(|e| e.to_string())?;
        let mut child = Command::new(&self.program)
            .arg("mine-pack")
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {shown} to mine the history ({BINARY_VAR}): {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write as _;
            stdin
                .write_all(&stored)
                .map_err(|e| format!("{shown} mine-pack: {e}"))?;
        }
        let mut answer = Vec::new();
        if let Some(stdout) = child.stdout.take() {
            stdout
                .take(MAX_ANSWER_BYTES)
                .read_to_end(&mut answer)
                .map_err(|e| format!("{shown} mine-pack: {e}"))?;
        }
        let status = child
            .wait()
            .map_err(|e| format!("{shown} mine-pack: {e}"))?;
        if !status.success() {
            return Err(format!(
                "{shown} mine-pack {} failed ({status})",
                root.display()
            ));
        }
        serde_json::from_slice(&answer)
            .map_err(|e| format!("{shown} mine-pack answered no record: {e}"))
    }

    fn identify(&self, root: &Path) -> Result<Option<String>, String> {
        let shown = self.program.display();
        let output = Command::new(&self.program)
            .args(["mine-pack", "--identity"])
            .arg(root)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .map_err(|e| {
                format!("cannot run {shown} to identify the repository ({BINARY_VAR}): {e}")
            })?;
        if !output.status.success() {
            return Err(format!(
                "{shown} mine-pack --identity {} failed ({})",
                root.display(),
                output.status
            ));
        }
        serde_json::from_slice(&output.stdout)
            .map_err(|e| format!("{shown} mine-pack --identity answered no identity: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A miner that takes a while to identify, as one running another process does.
    struct Slow(AtomicUsize);

    impl HistoryMiner for Slow {
        fn mine(&self, _: &Path, _: Option<&MinedPack>) -> Result<Option<MinedPack>, String> {
            Ok(None)
        }

        fn identify(&self, _: &Path) -> Result<Option<String>, String> {
            self.0.fetch_add(1, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(100));
            Ok(Some("commit:abc".into()))
        }
    }

    #[test]
    fn a_slow_identifier_never_holds_the_call_and_answers_once_done() {
        let slow = Arc::new(Slow(AtomicUsize::new(0)));
        let identity = MinerIdentity {
            miner: slow.clone(),
            asked: Arc::default(),
        };
        let root = Path::new("/some/repo");
        // The first asks answer at once, pending, and start one search only.
        assert_eq!(identity.try_identify(root), Identified::Pending);
        assert_eq!(identity.try_identify(root), Identified::Pending);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let found = loop {
            match identity.try_identify(root) {
                Identified::Pending => {
                    assert!(std::time::Instant::now() < deadline, "never answered");
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                found => break found,
            }
        };
        assert_eq!(found, Identified::Found(Some("commit:abc".into())));
        assert_eq!(slow.0.load(Ordering::SeqCst), 1);
    }
}
