//! A temporary HOME with a tiny workspace, and ways to run the binary in it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The tiny workspace every test judges in.
pub const FILES: &[&str] = &[
    "Documentation/ARCHIVE-STYLE.md",
    "Documentation/INDEX.md",
    "Documentation/Plans/X.md",
    "POC-BRIEF.md",
    "CHANGELOG.md",
];

/// A temporary HOME holding a workspace (`ws/`) and room for stores.
pub struct Env {
    home: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        let env = Env {
            home: tempfile::tempdir().expect("a temporary HOME"),
        };
        for f in FILES {
            let path = env.ws().join(f);
            std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
            std::fs::write(path, "").expect("write a workspace file");
        }
        env
    }

    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// The workspace root.
    pub fn ws(&self) -> PathBuf {
        self.home.path().join("ws")
    }

    /// Writes `text` to the workspace file `rel`, making its directories.
    pub fn write_ws(&self, rel: &str, text: &str) {
        let path = self.ws().join(rel);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, text).expect("write a workspace file");
    }

    /// The workspace key the engine gives `ws/`.
    pub fn key(&self) -> String {
        docsuggest_engine::locate::workspace_key(&self.ws())
    }

    /// A store file in the HOME.
    pub fn store(&self, name: &str) -> PathBuf {
        self.home.path().join(name)
    }

    pub fn command(&self, args: &[&str]) -> Command {
        self.command_of(env!("CARGO_BIN_EXE_docsuggest"), args)
    }

    /// `program` (another of the package's binaries) with `args`, set up as [`Env::command`].
    pub fn command_of(&self, program: &str, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env("HOME", self.home.path())
            .env_remove("RUST_LOG")
            .current_dir(self.home.path());
        cmd
    }

    /// Runs the binary with `input` on stdin (written from a thread, so a child that answers
    /// while it reads never blocks on a full pipe).
    pub fn run(&self, args: &[&str], input: &[u8]) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let mut stdin = child.stdin.take().expect("a stdin pipe");
        let input = input.to_vec();
        let writer = std::thread::spawn(move || {
            // The child may stop reading after `close`; a broken pipe is then expected.
            let _ = stdin.write_all(&input);
        });
        let output = child.wait_with_output().expect("the binary finishes");
        writer.join().expect("the writer thread ends");
        output
    }

    /// Runs and expects success; answers stdout.
    /// Serves one `judge` request per path (agent `a`, cwd `ws/`) into the store `store`.
    pub fn serve_judges(&self, store: &str, paths: &[&str]) {
        let ws = self.ws().display().to_string();
        let session: String = paths
            .iter()
            .enumerate()
            .map(|(i, path)| {
                let request = serde_json::json!({"id": i + 1, "op": "judge", "agent": "a",
                    "tool": "read", "path": path, "cwd": ws});
                format!("{request}\n")
            })
            .collect();
        self.ok(&["serve", "--store", store], session.as_bytes());
    }

    pub fn ok(&self, args: &[&str], input: &[u8]) -> String {
        let out = self.run(args, input);
        assert!(
            out.status.success(),
            "docsuggest {args:?} failed: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8 output")
    }

    /// Replaces the per-run parts of a text with placeholders.
    pub fn redact(&self, text: &str) -> String {
        text.replace(&self.ws().display().to_string(), "{WS}")
            .replace(&self.key(), "{KEY}")
    }

    /// Fills the placeholders of a template.
    pub fn fill(&self, text: &str) -> String {
        text.replace("{WS}", &self.ws().display().to_string())
            .replace("{KEY}", &self.key())
    }
}

/// The golden file `name` under `tests/golden`.
pub fn golden(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Checks `actual` against the golden file `name` (under `tests/golden/`) byte for byte;
/// `UPDATE_EXPECT=1` rewrites the file instead (review the diff before keeping it).
pub fn assert_golden(name: &str, actual: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    expect_test::expect_file![path].assert_eq(actual);
}

/// Parses JSON-lines output.
pub fn answers(stdout: &str) -> Vec<serde_json::Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l}: {e}")))
        .collect()
}

/// The key the binary gives the workspace `dir` lies in (by its repository in a git work
/// tree): this process reads the repository itself, as the binary does.
pub fn workspace_key(dir: &Path) -> String {
    docsuggest_host::mining::use_in_process(std::sync::Arc::new(
        docsuggest_history::miner::GitMiner,
    ));
    docsuggest_host::stores::workspace_key(dir).expect("a workspace")
}

/// How long a wait goes on before the test fails: far beyond what anything awaited takes
/// (mining a test history takes seconds, more on a loaded 2-core runner), so only a hung test
/// reaches it.
pub const WAIT_LIMIT: Duration = Duration::from_secs(120);

/// Polls `ready` until it answers something, failing the test naming `what` after
/// [`WAIT_LIMIT`].
pub fn wait_until<T>(what: &str, ready: impl FnMut() -> Option<T>) -> T {
    poll_within(WAIT_LIMIT, ready).unwrap_or_else(|| panic!("waited {WAIT_LIMIT:?} for {what}"))
}

/// Polls `ready` every 50 ms until it answers something; `None` once `timeout` has passed,
/// for a caller that must clean up or say more before it fails (or must not fail at all).
pub fn poll_within<T>(timeout: Duration, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = ready() {
            return Some(value);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits for `child` to exit, as [`wait_until`] waits (`what` names the exit awaited).
pub fn wait_for_exit(child: &mut Child, what: &str) -> ExitStatus {
    wait_for_exit_within(child, what, WAIT_LIMIT)
}

/// [`wait_for_exit`] bounded by `timeout`. A child still running then is killed before the
/// test fails, so a hung process does not outlive it.
pub fn wait_for_exit_within(child: &mut Child, what: &str, timeout: Duration) -> ExitStatus {
    poll_within(timeout, || child.try_wait().expect("wait for the child")).unwrap_or_else(|| {
        let _ = child.kill();
        let _ = child.wait();
        panic!("waited {timeout:?} for {what}")
    })
}
