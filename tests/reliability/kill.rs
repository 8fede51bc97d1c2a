//! The kill -9 loop: the real `docsuggest serve` driven over its protocol, killed with SIGKILL
//! at random moments or aborted at named points (`DOCSUGGEST_CRASH_AT`), restarted, and the
//! store checked after every death.
//!
//! Named points: `after-commit:<n>` (the n-th commit is on disk, its answer never written),
//! `mid-recompute` (`docsuggest recompute --write` dies with the new rows written but not
//! committed), `mid-migration` (a new store's initialising transaction written, not
//! committed) and `mid-create` (a new file complete under its temporary name, not linked).
//! Acknowledged means answered by `flush` (`"durable":N`); a store checked and closed by this
//! test is durable too, so each check must find at least what the previous one left.

use crate::scale::{self, Rng};
use docsuggest_schema::{DecisionStore, Outcome, StoreContents};
use docsuggest_store::{RedbStore, SeqMarks, StoreOptions};
use docsuggest_tests::Fixture;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const RING: u64 = 12;

/// The `docsuggest` binary of this build's profile, built (or found up to date) once.
fn docsuggest() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("the test binary's path");
        // target/<profile>/deps/reliability-<hash> → target/<profile>/docsuggest
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("a target/<profile> directory");
        let bin = profile_dir.join(format!("docsuggest{}", std::env::consts::EXE_SUFFIX));
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut build = Command::new(cargo);
        build.args([
            "build",
            "--quiet",
            "-p",
            "docsuggest-cli",
            "--bin",
            "docsuggest",
        ]);
        // The profile whose directory holds this test binary ("debug" is the dev profile).
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev",
            Some(name) => name,
        };
        build.args(["--profile", profile]);
        let status = build.status().expect("cargo runs");
        assert!(status.success(), "building docsuggest failed: {status}");
        assert!(bin.exists(), "no binary at {}", bin.display());
        bin
    })
}

/// Where a cycle runs: the workspace the calls name, the store, the config.
struct Setup {
    dir: tempfile::TempDir,
    fixture: Fixture,
    store: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = dir.path().join("state/s.redb");
        Setup {
            fixture: Fixture::poc(),
            store,
            dir,
        }
    }

    /// A config file: group durability on odd cycles (commits reach the disk in batches).
    fn config(&self, group: bool) -> PathBuf {
        let file = self.dir.path().join(if group {
            "group.json"
        } else {
            "immediate.json"
        });
        let config = json!({
            "log": false,
            "logFile": self.dir.path().join("ledger.log").display().to_string(),
            "ringCapacity": RING,
            "durability": if group { "group" } else { "immediate" },
            "flushIntervalMs": 20,
        });
        std::fs::write(&file, config.to_string()).expect("config file");
        file
    }
}

/// A random request of an agent session over the fixture.
fn request(rng: &mut Rng, id: u64, cwd: &str) -> Value {
    const PATHS: &[&str] = &[
        "Documentation/Plans/SEARCH.md",
        "Documentation/Plans/LEARN.md",
        "Documentation/INDEX.md",
        "POC-BRIEF.md",
        "CHANGELOG.md",
        "packages/core/SCHEME.md",
        "packages/core/README.md",
        "src/lib.rs",
        "src/main.rs",
    ];
    let agent = ["a", "b"][rng.below(2) as usize];
    match rng.below(20) {
        0 => json!({"id": id, "op": "turn", "agent": agent}),
        1..=3 => json!({"id": id, "op": "flush"}),
        4 => json!({"id": id, "op": "stats"}),
        _ => {
            let path = PATHS[rng.below(PATHS.len() as u64) as usize];
            json!({"id": id, "op": "judge", "agent": agent, "tool": "read", "path": path, "cwd": cwd})
        }
    }
}

/// What one run of `serve` acknowledged before it died.
#[derive(Debug, Default)]
struct Served {
    answers: u64,
    /// The largest `durable` a `flush` answered.
    acked: u64,
    /// The process ended by itself (a named crash point), not by our kill.
    aborted: bool,
}

/// Runs `serve` on the store, pipelining `requests` random requests; kills it with SIGKILL
/// after `kill_after` (if given), or lets it die at `crash_at` (if given); otherwise closes.
fn serve(
    setup: &Setup,
    store: &Path,
    group: bool,
    rng: &mut Rng,
    requests: u64,
    kill_after: Option<Duration>,
    crash_at: Option<&str>,
) -> Served {
    let mut cmd = Command::new(docsuggest());
    cmd.arg("serve")
        .arg("--store")
        .arg(store)
        .arg("--config")
        .arg(setup.config(group))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    match crash_at {
        Some(point) => cmd.env("DOCSUGGEST_CRASH_AT", point),
        None => cmd.env_remove("DOCSUGGEST_CRASH_AT"),
    };
    let mut child = cmd.spawn().expect("spawn docsuggest serve");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let cwd = setup.fixture.root().display().to_string();
    let lines: Vec<String> = (1..=requests)
        .map(|id| request(rng, id, &cwd).to_string())
        .collect();
    // The writer pipelines every request (and a close), so the kill lands mid-work.
    let writer = std::thread::spawn(move || {
        for line in lines {
            if writeln!(stdin, "{line}").is_err() {
                return;
            }
        }
        let _ = writeln!(stdin, r#"{{"id":0,"op":"close"}}"#);
    });
    // The answers are read on their own thread, so this one can kill at any moment.
    let reader = std::thread::spawn(move || {
        let mut served = Served::default();
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            served.answers += 1;
            let answer: Value = serde_json::from_str(&line).expect("answers are JSON");
            if let Some(durable) = answer.get("durable").and_then(Value::as_u64) {
                served.acked = served.acked.max(durable);
            }
        }
        served
    });
    if let Some(delay) = kill_after {
        std::thread::sleep(delay);
        // SIGKILL on Unix; an error means the process already exited.
        let _ = child.kill();
    }
    let status = child.wait().expect("wait");
    let _ = writer.join();
    let mut served = reader.join().expect("the answer reader");
    served.aborted = status.signal() == Some(6);
    served
}

/// Runs `docsuggest recompute --write`, optionally dying at `mid-recompute` or killed.
fn recompute(store: &Path, crash: bool, kill_after: Option<Duration>) -> bool {
    let mut cmd = Command::new(docsuggest());
    cmd.args(["recompute", "--write", "--store"])
        .arg(store)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if crash {
        cmd.env("DOCSUGGEST_CRASH_AT", "mid-recompute");
    } else {
        cmd.env_remove("DOCSUGGEST_CRASH_AT");
    }
    let mut child = cmd.spawn().expect("spawn docsuggest recompute");
    if let Some(delay) = kill_after {
        std::thread::sleep(delay);
        let _ = child.kill();
    }
    child.wait().expect("wait").signal() == Some(6)
}

/// Opens the store a dead process left and checks it; answers the marks it closed at.
fn check(store: &Path, acked: u64, floor: SeqMarks) -> Result<SeqMarks, String> {
    let options = StoreOptions {
        ring_capacity: RING,
        ..StoreOptions::new(store)
    };
    let mut s = match std::panic::catch_unwind(|| RedbStore::open(options)) {
        Ok(Ok(s)) => s,
        Ok(Err(e)) => return Err(format!("does not reopen: {e}")),
        Err(_) => return Err("panicked while reopening".into()),
    };
    let marks = s.committed();
    if marks.decision_seq < acked {
        return Err(format!(
            "LOST ACKNOWLEDGED: flush answered {acked}, reopened at {marks:?}"
        ));
    }
    let abandoned = s.open_report().abandoned as u64;
    let before = SeqMarks {
        resolution_seq: marks.resolution_seq - abandoned,
        ..marks
    };
    if before.decision_seq < floor.decision_seq || before.resolution_seq < floor.resolution_seq {
        return Err(format!(
            "LOST ACKNOWLEDGED: the last check closed at {floor:?}, reopened at {before:?}"
        ));
    }
    let history = s.history().map_err(|e| format!("history: {e}"))?;
    if history.len() as u64 > RING {
        return Err(format!(
            "ring holds {} entries, bound {RING}",
            history.len()
        ));
    }
    for (n, e) in history.iter().enumerate() {
        let want = marks.resolution_seq + 1 + n as u64 - history.len() as u64;
        if e.resolution_seq != want {
            return Err(format!(
                "history not contiguous: {} where {want}",
                e.resolution_seq
            ));
        }
        // A note's verdict moves rates; an abandoned window moves none; a silence only
        // counts shadow observations (the evidence model) or nothing.
        let shadow_only = e.moves.iter().all(|m| {
            matches!(
                m.event,
                docsuggest_schema::RateEvent::ShadowHit | docsuggest_schema::RateEvent::ShadowMiss
            )
        });
        let whole = match e.decision.outcome {
            Outcome::Accepted | Outcome::Rejected => !e.moves.is_empty(),
            Outcome::Abandoned => e.moves.is_empty(),
            Outcome::Silent => shadow_only,
            Outcome::Pending => false,
        };
        if !whole {
            return Err(format!("partial resolution: {e:?}"));
        }
    }
    if !s.pending().map_err(|e| format!("pending: {e}"))?.is_empty() {
        return Err("windows still pending after the reopen".into());
    }
    let integrity = s.check_integrity().map_err(|e| format!("integrity: {e}"))?;
    if !integrity.is_ok() {
        return Err(format!("integrity: {integrity:?}"));
    }
    let mode = std::fs::metadata(store)
        .map_err(|e| e.to_string())?
        .permissions()
        .mode();
    if mode & 0o777 != 0o600 {
        return Err(format!("store mode {:o}", mode & 0o777));
    }
    s.close().map_err(|e| format!("close: {e}"))?;
    Ok(s.last_durable())
}

#[derive(Default)]
struct Tally {
    cycles: u64,
    random_kills: u64,
    /// Random kills that landed before the session's last answer.
    killed_mid_session: u64,
    after_commit: u64,
    mid_recompute: u64,
    mid_migration: u64,
    mid_create: u64,
    recompute_kills: u64,
    answers: u64,
    violations: Vec<String>,
}

#[test]
fn killed_servers_restart_with_every_acknowledged_decision() {
    let setup = Setup::new();
    let mut rng = Rng::new(99);
    let mut tally = Tally::default();
    let mut floor = SeqMarks::default();
    let cycles = scale::pick(42, 280);
    let started = Instant::now();
    for cycle in 0..cycles {
        tally.cycles += 1;
        let group = cycle % 2 == 1;
        let kind = match cycle % 7 {
            0..=2 => "random-kill",
            3..=4 => "after-commit",
            5 => "recompute",
            _ => "fresh-store",
        };
        let acked;
        match kind {
            "random-kill" => {
                let delay = Duration::from_micros(2_000 + rng.below(60_000));
                let served = serve(
                    &setup,
                    &setup.store,
                    group,
                    &mut rng,
                    400,
                    Some(delay),
                    None,
                );
                tally.random_kills += 1;
                tally.killed_mid_session += u64::from(served.answers < 401);
                tally.answers += served.answers;
                acked = served.acked;
            }
            "after-commit" => {
                let point = format!("after-commit:{}", 1 + rng.below(30));
                let served = serve(
                    &setup,
                    &setup.store,
                    group,
                    &mut rng,
                    200,
                    None,
                    Some(&point),
                );
                tally.after_commit += u64::from(served.aborted);
                tally.answers += served.answers;
                acked = served.acked;
            }
            "recompute" => {
                // A session first, so there is something to recompute.
                let served = serve(&setup, &setup.store, group, &mut rng, 60, None, None);
                tally.answers += served.answers;
                acked = served.acked;
                if recompute(&setup.store, true, None) {
                    tally.mid_recompute += 1;
                } else {
                    tally
                        .violations
                        .push(format!("cycle {cycle}: recompute did not abort"));
                }
                let delay = Duration::from_micros(rng.below(20_000));
                recompute(&setup.store, false, Some(delay));
                tally.recompute_kills += 1;
            }
            _ => {
                // A store being created dies; the next start must make it usable.
                let fresh = setup.dir.path().join(format!("fresh-{cycle}/s.redb"));
                for point in ["mid-create", "mid-migration"] {
                    let served = serve(&setup, &fresh, group, &mut rng, 5, None, Some(point));
                    if !served.aborted || served.answers > 0 {
                        tally
                            .violations
                            .push(format!("cycle {cycle}: {point} did not abort"));
                    }
                    let again = serve(&setup, &fresh, group, &mut rng, 20, None, None);
                    if again.answers < 21 {
                        tally.violations.push(format!(
                            "cycle {cycle}: after {point}, serve answered {} of 21",
                            again.answers
                        ));
                    }
                    if let Err(v) = check(&fresh, again.acked, SeqMarks::default()) {
                        tally
                            .violations
                            .push(format!("cycle {cycle} after {point}: {v}"));
                    }
                    if point == "mid-create" {
                        tally.mid_create += 1;
                        // A second death mid-migration needs a file that is not yet one.
                        std::fs::remove_dir_all(fresh.parent().expect("dir")).expect("clean");
                    } else {
                        tally.mid_migration += 1;
                    }
                }
                // The main store carries on with a plain session.
                let served = serve(&setup, &setup.store, group, &mut rng, 40, None, None);
                tally.answers += served.answers;
                acked = served.acked;
            }
        }
        match check(&setup.store, acked, floor) {
            Ok(marks) => floor = marks,
            Err(v) => tally
                .violations
                .push(format!("cycle {cycle} ({kind}): {v}")),
        }
    }
    let lost = tally
        .violations
        .iter()
        .filter(|v| v.contains("LOST ACKNOWLEDGED"))
        .count();
    scale::report(
        "kill",
        &[
            ("cycles", tally.cycles.to_string()),
            ("random_sigkills", tally.random_kills.to_string()),
            ("sigkills_mid_session", tally.killed_mid_session.to_string()),
            ("aborts_after_commit", tally.after_commit.to_string()),
            ("aborts_mid_recompute", tally.mid_recompute.to_string()),
            ("recompute_sigkills", tally.recompute_kills.to_string()),
            ("aborts_mid_migration", tally.mid_migration.to_string()),
            ("aborts_mid_create", tally.mid_create.to_string()),
            ("answers", tally.answers.to_string()),
            ("decisions_at_end", floor.decision_seq.to_string()),
            ("lost_acknowledged", lost.to_string()),
            ("violations", tally.violations.len().to_string()),
            ("seconds", started.elapsed().as_secs().to_string()),
        ],
    );
    assert!(tally.violations.is_empty(), "{:#?}", tally.violations);
    assert!(floor.decision_seq > 0, "the sessions recorded decisions");
}

/// The socket server killed with SIGKILL while several clients send random requests: after
/// every death the next server replaces the stale socket, and the store reopens with every
/// decision a `flush` acknowledged to any client, its page check and fold clean.
#[test]
fn killed_socket_servers_with_several_clients_lose_no_acknowledged_decision() {
    use docsuggest_host::client::{Client, ClientError};
    let setup = Setup::new();
    let socket = setup.dir.path().join("d.sock");
    let mut rng = Rng::new(7_001);
    let mut floor = SeqMarks::default();
    let mut violations = Vec::new();
    let mut answers = 0u64;
    let cycles = scale::pick(8, 60);
    for cycle in 0..cycles {
        let group = cycle % 2 == 0;
        let mut child = Command::new(docsuggest())
            .arg("serve")
            .arg("--socket")
            .arg(&socket)
            .arg("--store")
            .arg(&setup.store)
            .arg("--config")
            .arg(setup.config(group))
            .env_remove("DOCSUGGEST_CRASH_AT")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn docsuggest serve --socket");
        // Only a hung server waits this long.
        let deadline = Instant::now() + Duration::from_secs(60);
        while Client::connect(&socket)
            .and_then(|mut c| c.hello())
            .is_err()
        {
            assert!(
                Instant::now() < deadline,
                "cycle {cycle}: the server never answered"
            );
            std::thread::sleep(Duration::from_millis(5));
        }
        let cwd = setup.fixture.root().display().to_string();
        let clients: Vec<_> = (0..4)
            .map(|n| {
                let mut rng = Rng::new(rng.below(u64::MAX));
                let socket = socket.clone();
                let cwd = cwd.clone();
                std::thread::spawn(move || {
                    // (answers, the largest durable a flush answered this client)
                    let mut seen = (0u64, 0u64);
                    let Ok(mut client) = Client::connect(&socket) else {
                        return seen;
                    };
                    for id in 1.. {
                        let mut request = request(&mut rng, id, &cwd);
                        request["agent"] = json!(format!("c{n}"));
                        match client.request(request) {
                            Ok(answer) => {
                                seen.0 += 1;
                                if let Some(durable) = answer["durable"].as_u64() {
                                    seen.1 = seen.1.max(durable);
                                }
                            }
                            Err(ClientError::Refused { .. }) => seen.0 += 1,
                            Err(_) => return seen,
                        }
                    }
                    seen
                })
            })
            .collect();
        std::thread::sleep(Duration::from_micros(5_000 + rng.below(60_000)));
        // SIGKILL on Unix; an error means the process already exited.
        let _ = child.kill();
        let _ = child.wait();
        let mut acked = 0;
        for client in clients {
            let (n, durable) = client.join().expect("a client thread");
            answers += n;
            acked = acked.max(durable);
        }
        match check(&setup.store, acked, floor) {
            Ok(marks) => floor = marks,
            Err(v) => violations.push(format!("cycle {cycle}: {v}")),
        }
    }
    scale::report(
        "kill-socket",
        &[
            ("cycles", cycles.to_string()),
            ("answers", answers.to_string()),
            ("decisions_at_end", floor.decision_seq.to_string()),
            ("violations", violations.len().to_string()),
        ],
    );
    assert!(violations.is_empty(), "{violations:#?}");
    assert!(floor.decision_seq > 0, "the clients recorded decisions");
}
