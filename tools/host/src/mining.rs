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

    /// `record` with what the Stop reminder would do with its pack measured on the history
    /// (the pack's `boundary`, as `init` writes it): `Ok(None)` when this miner does not
    /// measure. Run after the record is handed to the engine, so no call waits on it.
    fn measure(&self, root: &Path, record: &MinedPack) -> Result<Option<MinedPack>, String> {
        let _ = (root, record);
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
    /// The Stop reminder is being measured on the history for this record (not yet taken by
    /// the engine while `Some`); the measured record follows as [`Job::Mined`].
    Measuring(Option<MinedPack>),
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
        while (jobs.values()).any(|j| matches!(j, Job::Running | Job::Measuring(_))) {
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
            .spawn(move || run_job(&shared, miner.as_ref(), job_root, stored));
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

/// One mining job: mine `root` (one job at a time per process), hand the record over, then
/// measure its Stop reminder (or the stored pack's, never measured) and hand it over again.
fn run_job(shared: &Shared, miner: &dyn HistoryMiner, root: PathBuf, stored: Option<MinedPack>) {
    let _turn = lock(&shared.turn);
    // A panicking miner (a bug, a dependency) fails this job only: the process
    // and every other work tree go on.
    let outcome = guarded("mining", || miner.mine(&root, stored.as_ref()));
    let (job, unmeasured) = match outcome {
        Ok(Some(record)) => {
            let unmeasured = unmeasured(&record).then(|| record.clone());
            (Job::Mined(record), unmeasured)
        }
        Ok(None) => (Job::Settled, stored.filter(unmeasured)),
        Err(reason) => {
            tracing::warn!(root = %root.display(), %reason,
                "mining a pack from the history failed; the work tree stays without one");
            (
                Job::Failed(docsuggest_schema::text::bounded(&reason, 400)),
                None,
            )
        }
    };
    let Some(record) = unmeasured else {
        lock(&shared.jobs).insert(root, job);
        shared.ended.notify_all();
        return;
    };
    // The engine may take the pack while its Stop reminder is measured.
    let untaken = match job {
        Job::Mined(record) => Some(record),
        _ => None,
    };
    lock(&shared.jobs).insert(root.clone(), Job::Measuring(untaken));
    let measured = guarded("measuring", || miner.measure(&root, &record));
    let mut jobs = lock(&shared.jobs);
    let untaken = match jobs.remove(&root) {
        Some(Job::Measuring(untaken)) => untaken,
        _ => None,
    };
    let job = match measured {
        Ok(Some(measured)) => Job::Mined(measured),
        Ok(None) => untaken.map_or(Job::Settled, Job::Mined),
        Err(reason) => {
            tracing::warn!(root = %root.display(), %reason,
                "measuring the Stop reminder on the history failed; each claim's evidence decides");
            untaken.map_or(Job::Settled, Job::Mined)
        }
    };
    jobs.insert(root, job);
    drop(jobs);
    shared.ended.notify_all();
}

/// Runs one step of a job, a panic turned into its error.
fn guarded<T>(step: &str, run: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)).unwrap_or_else(|panic| {
        Err(format!(
            "the {step} job panicked: {}",
            crate::panic_text::message(panic.as_ref())
        ))
    })
}

/// Whether `record`'s pack has no measurement of the Stop reminder yet (a pack that does not
/// load is left to the engine, which says why).
fn unmeasured(record: &MinedPack) -> bool {
    docsuggest_schema::Pack::from_json_str(&record.pack, "the mined pack")
        .is_ok_and(|pack| pack.boundary.is_none())
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
            Some(Job::Measuring(Some(_))) => {
                let Some(Job::Measuring(Some(record))) =
                    jobs.insert(root.to_path_buf(), Job::Measuring(None))
                else {
                    return MinedAnswer::Pending;
                };
                MinedAnswer::Mined(record)
            }
            Some(Job::Measuring(None)) if stored.is_some() => MinedAnswer::UseStored,
            Some(Job::Measuring(None)) => MinedAnswer::Pending,
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

impl CommandMiner {
    /// Runs `docsuggest mine-pack [flag] ROOT` with `input` (JSON) on stdin: its answer, JSON.
    fn run<T: serde::de::DeserializeOwned>(
        &self,
        flag: Option<&str>,
        root: &Path,
        input: &impl serde::Serialize,
    ) -> Result<T, String> {
        let shown = self.program.display();
        let input = serde_json::to_vec(input).map_err(|e| e.to_string())?;
        let mut child = Command::new(&self.program)
            .arg("mine-pack")
            .args(flag)
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot run {shown} to mine the history ({BINARY_VAR}): {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write as _;
            stdin
                .write_all(&input)
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
}

impl HistoryMiner for CommandMiner {
    fn mine(&self, root: &Path, stored: Option<&MinedPack>) -> Result<Option<MinedPack>, String> {
        self.run(None, root, &stored)
    }

    fn measure(&self, root: &Path, record: &MinedPack) -> Result<Option<MinedPack>, String> {
        self.run(Some("--measure"), root, record)
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

    const PACK: &str = r#"{"signature": ["README.md"], "families": [{"name": "src",
        "rules": ["src/*.py"], "companions": [{"path": "tests/test_{}.py", "prior": 0.9}]}]}"#;

    fn record(pack: &str) -> MinedPack {
        MinedPack {
            pack: pack.into(),
            head: "c0ffee".into(),
            commits: 300,
            miner: 1,
        }
    }

    fn measured_pack() -> String {
        let mut pack = docsuggest_schema::Pack::from_json_str(PACK, "p").expect("a pack");
        pack.boundary = Some(docsuggest_schema::pack::BoundaryFigures {
            may_block: true,
            reminders: 10,
            right: 9,
        });
        serde_json::to_string(&pack).expect("JSON")
    }

    /// A miner whose measurement waits for the test's word, then answers `measured`.
    struct Gated {
        release: Mutex<std::sync::mpsc::Receiver<()>>,
        measured: Result<Option<MinedPack>, String>,
        measures: AtomicUsize,
    }

    impl Gated {
        fn new(
            measured: Result<Option<MinedPack>, String>,
        ) -> (Arc<Gated>, std::sync::mpsc::Sender<()>) {
            let (send, release) = std::sync::mpsc::channel();
            let gated = Gated {
                release: Mutex::new(release),
                measured,
                measures: AtomicUsize::new(0),
            };
            (Arc::new(gated), send)
        }
    }

    impl HistoryMiner for Gated {
        fn mine(&self, _: &Path, stored: Option<&MinedPack>) -> Result<Option<MinedPack>, String> {
            Ok(stored.is_none().then(|| record(PACK)))
        }

        fn measure(&self, _: &Path, _: &MinedPack) -> Result<Option<MinedPack>, String> {
            self.measures.fetch_add(1, Ordering::SeqCst);
            let _ = lock(&self.release).recv();
            self.measured.clone()
        }
    }

    /// Asks until the answer is not `Pending` (bounded).
    fn answer(
        background: &mut BackgroundMiner,
        root: &Path,
        stored: Option<&MinedPack>,
    ) -> MinedAnswer {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        loop {
            match background.request(root, "k", stored) {
                MinedAnswer::Pending => {
                    assert!(std::time::Instant::now() < deadline, "never answered");
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                other => return other,
            }
        }
    }

    #[test]
    fn the_pack_is_handed_over_at_once_and_again_once_its_stop_reminder_is_measured() {
        let measured = record(&measured_pack());
        let (miner, release) = Gated::new(Ok(Some(measured.clone())));
        let mut background = BackgroundMiner::with(miner.clone());
        let root = Path::new("/some/repo");
        // The mined pack comes while the measurement still runs …
        assert_eq!(background.request(root, "k", None), MinedAnswer::Pending);
        let first = answer(&mut background, root, None);
        assert_eq!(first, MinedAnswer::Mined(record(PACK)));
        let stored = record(PACK);
        assert_eq!(
            background.request(root, "k", Some(&stored)),
            MinedAnswer::UseStored
        );
        // … and the measured one once it is done; `wait_idle` waits for it.
        release.send(()).expect("the job waits");
        background.wait_idle();
        assert_eq!(
            background.request(root, "k", Some(&stored)),
            MinedAnswer::Mined(measured.clone())
        );
        assert_eq!(
            background.request(root, "k", Some(&measured)),
            MinedAnswer::UseStored
        );
        assert_eq!(miner.measures.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_stored_pack_never_measured_is_measured_and_a_measured_one_is_not() {
        let measured = record(&measured_pack());
        let (miner, release) = Gated::new(Ok(Some(measured.clone())));
        let root = Path::new("/some/repo");
        // Current (the miner mines nothing new) but never measured: measured now.
        let stored = record(PACK);
        let mut background = BackgroundMiner::with(miner.clone());
        assert_eq!(
            background.request(root, "k", Some(&stored)),
            MinedAnswer::UseStored
        );
        release.send(()).expect("the job waits");
        background.wait_idle();
        assert_eq!(
            background.request(root, "k", Some(&stored)),
            MinedAnswer::Mined(measured.clone())
        );
        // Measured already: nothing more is asked of the miner.
        let mut again = BackgroundMiner::with(miner.clone());
        assert_eq!(
            again.request(root, "k", Some(&measured)),
            MinedAnswer::UseStored
        );
        again.wait_idle();
        assert_eq!(
            again.request(root, "k", Some(&measured)),
            MinedAnswer::UseStored
        );
        assert_eq!(miner.measures.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn a_measurement_that_fails_leaves_the_mined_pack_in_use() {
        let (miner, release) = Gated::new(Err("the history is too short to split".into()));
        let mut background = BackgroundMiner::with(miner);
        let root = Path::new("/some/repo");
        assert_eq!(background.request(root, "k", None), MinedAnswer::Pending);
        release.send(()).expect("the job waits");
        background.wait_idle();
        // Not taken while measuring: handed over now, as mined.
        assert_eq!(
            background.request(root, "k", None),
            MinedAnswer::Mined(record(PACK))
        );
        let stored = record(PACK);
        assert_eq!(
            background.request(root, "k", Some(&stored)),
            MinedAnswer::UseStored
        );
    }

    /// A miner whose measurement panics.
    struct PanicsMeasuring;

    impl HistoryMiner for PanicsMeasuring {
        fn mine(&self, _: &Path, stored: Option<&MinedPack>) -> Result<Option<MinedPack>, String> {
            Ok(stored.is_none().then(|| record(PACK)))
        }

        fn measure(&self, _: &Path, _: &MinedPack) -> Result<Option<MinedPack>, String> {
            panic!("a bug in the measurement")
        }
    }

    #[test]
    fn a_measurement_that_panics_leaves_the_mined_pack_in_use_and_the_miner_serving() {
        let mut background = BackgroundMiner::with(Arc::new(PanicsMeasuring));
        // The first work tree, then the next, each mined as before.
        for root in ["/some/repo", "/another/repo"].map(Path::new) {
            assert_eq!(background.request(root, "k", None), MinedAnswer::Pending);
            background.wait_idle();
            assert_eq!(
                background.request(root, "k", None),
                MinedAnswer::Mined(record(PACK)),
                "{}",
                root.display()
            );
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
