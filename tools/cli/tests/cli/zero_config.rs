//! Zero-config through `docsuggest serve`: a git repository with history and no pack file is
//! `pack-mining` until the server's background miner is done, then judged with the mined pack,
//! which the store keeps, so the next session uses it from its first call.
//! (The hook path is in `hooks.rs`.)

use crate::common::{Env, wait_until};
use crate::init::convention_history;
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};

/// One `docsuggest serve` on stdio, answering request by request.
struct Serve {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Serve {
    fn start(env: &Env, store: &Path) -> Serve {
        Serve::spawn(env, &["serve", "--store", &store.display().to_string()])
    }

    fn spawn(env: &Env, args: &[&str]) -> Serve {
        let mut child = env
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("a stdout pipe"));
        Serve {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    fn request(&mut self, mut request: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        request["id"] = json!(id);
        let stdin = self.stdin.as_mut().expect("open");
        writeln!(stdin, "{request}").expect("the request is written");
        stdin.flush().expect("flushed");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("an answer");
        let answer: Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("{request} -> {line:?}: {e}"));
        assert_eq!(answer["id"], id, "{answer}");
        assert_eq!(answer["ok"], true, "{request} -> {answer}");
        answer
    }

    /// An `edit` of `file` (relative to `repo`) by `agent`, cwd `repo`.
    fn edit(&mut self, agent: &str, repo: &Path, file: &str) -> Value {
        self.request(json!({"op": "judge", "agent": agent, "tool": "edit",
            "path": repo.join(file).display().to_string(), "cwd": repo.display().to_string()}))
    }

    /// `close`, then the process exits 0.
    fn close(mut self) {
        self.request(json!({"op": "close"}));
        drop(self.stdin.take());
        let status = self.child.wait().expect("serve ends");
        assert!(status.success(), "{status:?}");
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        // Only after a failed assertion: a closed server has exited already.
        drop(self.stdin.take());
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn ledger(answer: &Value) -> Vec<String> {
    answer["ledger"]
        .as_array()
        .unwrap_or_else(|| panic!("no ledger: {answer}"))
        .iter()
        .map(|l| l.as_str().expect("a line").to_string())
        .collect()
}

/// Whether a line of the answer's ledger names the family `src-py` (judged with the mined pack).
fn names_src_py(answer: &Value) -> bool {
    ledger(answer).iter().any(|l| l.contains(" src-py "))
}

const MINING: &str = "doc-suggester: abstained pack-mining 0.00";

/// A repository whose history pairs every `src/modK.py` change with `tests/test_modK.py`.
fn repository(env: &Env) -> PathBuf {
    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    repo
}

/// The ledger of a call judged with the mined pack: `src-py`, with the template substituted.
fn assert_mined_judgement(answer: &Value, module: &str) {
    assert!(names_src_py(answer), "{answer}");
    let lines = ledger(answer);
    assert!(!lines.iter().any(|l| l.contains("pack-mining")), "{answer}");
    assert!(
        !answer.to_string().contains("{}"),
        "a template left unsubstituted: {answer}"
    );
    // The note, or the gated silence's `decided` line, names the test module by its path.
    let test = format!("tests/test_{module}.py");
    let named = lines.iter().any(|l| {
        (l.contains("suggest src-py") || l.contains("decided src-py")) && l.contains(&test)
    });
    assert!(named, "{test} not named: {answer}");
    if !answer["note"].is_null() {
        let companions = answer["note"]["companions"].to_string();
        assert!(companions.contains(&format!("\"{test}\"")), "{answer}");
    }
}

#[test]
fn serve_abstains_while_mining_then_judges_with_the_mined_pack_which_the_store_keeps() {
    let env = Env::new();
    let repo = repository(&env);
    let store = env.store("zero-config.redb");

    let mut serve = Serve::start(&env, &store);
    let first = serve.edit("a", &repo, "src/mod1.py");
    // Mining runs in the background: the first call is silent with `pack-mining`, unless the
    // miner was already done (then it is judged with the mined pack).
    if ledger(&first) == [MINING] {
        assert!(first["note"].is_null(), "{first}");
    } else {
        assert_mined_judgement(&first, "mod1");
    }
    // A later call is judged with the mined pack (bounded wait; a file no family claims is
    // asked, so the wait teaches nothing).
    let probe = wait_until("the background miner to finish", || {
        let probe = serve.edit("probe", &repo, "README.md");
        (ledger(&probe) != [MINING]).then_some(probe)
    });
    assert_eq!(
        ledger(&probe),
        ["doc-suggester: abstained no-signal 0.00"],
        "{probe}"
    );
    let judged = serve.edit("b", &repo, "src/mod2.py");
    assert_mined_judgement(&judged, "mod2");
    serve.close();

    // The store keeps the mined pack for the repository's workspace key.
    let key = crate::common::workspace_key(&repo);
    let kept = docsuggest_store::ReadOnlyStore::open(&store)
        .expect("the store opens read-only")
        .mined_pack(&key)
        .expect("the mined table reads")
        .unwrap_or_else(|| panic!("no mined pack kept for {key}"));
    let pack: Value = serde_json::from_str(&kept.pack).expect("a JSON pack");
    let family = pack["families"]
        .as_array()
        .expect("families")
        .iter()
        .find(|f| f["name"] == "src-py")
        .unwrap_or_else(|| panic!("no src-py family: {pack}"));
    assert_eq!(family["rules"], json!(["src/*.py"]), "{pack}");
    assert!(
        family["companions"]
            .to_string()
            .contains("\"tests/test_{}.py\""),
        "{pack}"
    );
    assert_eq!(kept.commits, 40);
    // Exactly what `init --print` mines from the same history, with the Stop reminder's
    // measurement once the background has measured it (asserted where it is waited for).
    let mut unmeasured: Value = serde_json::from_str(&kept.pack).expect("a JSON pack");
    if let Some(pack) = unmeasured.as_object_mut() {
        pack.remove("boundary");
    }
    let printed = env.ok(&["init", &repo.display().to_string(), "--print"], b"");
    assert_eq!(
        unmeasured,
        serde_json::from_str::<Value>(&printed).expect("a JSON pack")
    );

    // A second session on the same store judges with the kept pack from its first call.
    let mut again = Serve::start(&env, &store);
    let first = again.edit("c", &repo, "src/mod3.py");
    assert_mined_judgement(&first, "mod3");
    again.close();
}

#[test]
fn on_a_memory_store_repeated_family_edits_reach_the_mined_pack() {
    let env = Env::new();
    let repo = repository(&env);
    let mut serve = Serve::spawn(&env, &["serve", "--memory"]);
    // Every call before the pack is mined is silent with `pack-mining`, and nothing else.
    let judged = wait_until("the background miner to finish", || {
        let answer = serve.edit("a", &repo, "src/mod4.py");
        if ledger(&answer) != [MINING] {
            return Some(answer);
        }
        assert!(answer["note"].is_null(), "{answer}");
        None
    });
    assert_mined_judgement(&judged, "mod4");
    serve.close();
}

/// The background miner re-mines a stored pack only when HEAD has moved far past it: 60
/// commits later it is kept, 260 commits later (or on a history it is not part of) it is
/// mined again, and a pack of another miner version is mined again at once. The same holds
/// mining in process and through the binary (`docsuggest mine-pack`, what a host that links
/// no git reader runs).
fn a_stored_pack_is_mined_again_only_when_head_moved_far(
    miner: std::sync::Arc<dyn docsuggest_host::mining::HistoryMiner>,
) {
    use docsuggest_engine::mined::{MinedAnswer, PackMiner};
    use docsuggest_history::miner::{REMINE_AFTER, measure_root, mine_root};
    use docsuggest_host::mining::BackgroundMiner;

    let env = Env::new();
    let ask = |root: &Path, stored: &docsuggest_schema::MinedPack| -> MinedAnswer {
        let mut background = BackgroundMiner::with(miner.clone());
        assert_eq!(
            background.request(root, "k", Some(stored)),
            MinedAnswer::UseStored
        );
        background.wait_idle();
        background.request(root, "k", Some(stored))
    };
    let measured = |root: &Path| {
        let mined = mine_root(root).expect("mined");
        measure_root(root, &mined).expect("measured")
    };
    let base = env.home().join("base");
    convention_history(&base, 40);
    let stored = measured(&base);
    assert_eq!(stored.commits, 40);

    // The same first 40 commits (identical states give identical commits), then more.
    let near = env.home().join("near");
    convention_history(&near, 100);
    assert_eq!(ask(&near, &stored), MinedAnswer::UseStored);
    let far = env.home().join("far");
    convention_history(&far, 40 + REMINE_AFTER + 60);
    match ask(&far, &stored) {
        MinedAnswer::Mined(record) => {
            assert_eq!(record.commits, (40 + REMINE_AFTER + 60) as u64);
            assert_ne!(record.head, stored.head);
            assert_eq!(record, measured(&far));
            // The Stop reminder measured as `init` measures it: the pack `init` writes.
            env.ok(&["init", &far.display().to_string()], b"");
            let written = std::fs::read_to_string(far.join(".dsh/doc-pack.json")).expect("written");
            assert_eq!(record.pack, written);
            let pack: Value = serde_json::from_str(&written).expect("a JSON pack");
            assert!(pack["boundary"]["reminders"].as_u64() > Some(0), "{pack}");
        }
        other => panic!("mined again expected, got {other:?}"),
    }
    // A current pack never measured (a process that ended while measuring) is measured, on
    // the history as it is now.
    let unmeasured = mine_root(&base).expect("mined");
    match ask(&near, &unmeasured) {
        MinedAnswer::Mined(record) => {
            assert_eq!(record.head, unmeasured.head);
            assert_eq!(record, measure_root(&near, &unmeasured).expect("measured"));
        }
        other => panic!("measured expected, got {other:?}"),
    }
    let mut older = stored.clone();
    older.miner = docsuggest_history::MINER_VERSION + 1;
    assert!(matches!(ask(&near, &older), MinedAnswer::Mined(_)));

    // Nothing stored and nothing to mine: pending while the job runs, then unavailable.
    let lonely = env.home().join("lonely");
    std::fs::create_dir_all(&lonely).expect("dir");
    let mut background = BackgroundMiner::with(miner.clone());
    assert_eq!(background.request(&lonely, "k", None), MinedAnswer::Pending);
    background.wait_idle();
    assert!(matches!(
        background.request(&lonely, "k", None),
        MinedAnswer::Unavailable(_)
    ));
}

#[test]
fn in_process_a_stored_pack_is_mined_again_only_when_head_moved_far() {
    a_stored_pack_is_mined_again_only_when_head_moved_far(std::sync::Arc::new(
        docsuggest_history::miner::GitMiner,
    ));
}

#[test]
fn through_the_binary_a_stored_pack_is_mined_again_only_when_head_moved_far() {
    a_stored_pack_is_mined_again_only_when_head_moved_far(std::sync::Arc::new(
        docsuggest_host::mining::CommandMiner::new(env!("CARGO_BIN_EXE_docsuggest")),
    ));
}

/// `mine-pack --measure` measures the record it is given, and says so when given none.
#[test]
fn mine_pack_measure_needs_a_record_and_adds_only_the_measurement() {
    let env = Env::new();
    let repo = repository(&env);
    let root = repo.display().to_string();
    let out = env.run(&["mine-pack", "--measure", &root], b"null");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("needs the record to measure"), "{stderr}");
    let mined = env.ok(&["mine-pack", &root], b"null");
    let measured: Value =
        serde_json::from_str(&env.ok(&["mine-pack", "--measure", &root], mined.as_bytes()))
            .expect("a record");
    let mut pack: Value =
        serde_json::from_str(measured["pack"].as_str().expect("a pack")).expect("JSON");
    assert_eq!(pack["boundary"]["mayBlock"], true, "{pack}");
    pack.as_object_mut().expect("an object").remove("boundary");
    let mined: Value = serde_json::from_str(&mined).expect("a record");
    let unmeasured: Value =
        serde_json::from_str(mined["pack"].as_str().expect("a pack")).expect("JSON");
    assert_eq!(pack, unmeasured);
    assert_eq!(measured["head"], mined["head"]);
}

/// A host with no binary to mine through logs why and leaves the work tree without a pack.
#[test]
fn a_missing_miner_binary_leaves_the_work_tree_unavailable() {
    use docsuggest_engine::mined::{MinedAnswer, PackMiner};
    use docsuggest_host::mining::{BackgroundMiner, CommandMiner};

    let env = Env::new();
    let root = env.home().join("repo");
    convention_history(&root, 40);
    let mut background = BackgroundMiner::with(std::sync::Arc::new(CommandMiner::new(
        env.home().join("no-such-docsuggest"),
    )));
    assert_eq!(background.request(&root, "k", None), MinedAnswer::Pending);
    background.wait_idle();
    match background.request(&root, "k", None) {
        MinedAnswer::Unavailable(reason) => {
            assert!(reason.contains("no-such-docsuggest"), "{reason}")
        }
        other => panic!("unavailable expected, got {other:?}"),
    }
}

/// A mining job that panics (a bug, a dependency) fails that work tree only, with the panic's
/// message as the reason: the process goes on, `wait_idle` returns, and the next work tree
/// is mined.
#[test]
fn a_panicking_mining_job_leaves_its_work_tree_unavailable_with_a_reason() {
    use docsuggest_engine::mined::{MinedAnswer, PackMiner};
    use docsuggest_host::mining::{BackgroundMiner, HistoryMiner};

    struct Planted;
    impl HistoryMiner for Planted {
        fn mine(
            &self,
            root: &Path,
            stored: Option<&docsuggest_schema::MinedPack>,
        ) -> Result<Option<docsuggest_schema::MinedPack>, String> {
            if root.ends_with("bad") {
                panic!("a planted bug in the miner");
            }
            docsuggest_history::miner::GitMiner.mine(root, stored)
        }
    }
    let env = Env::new();
    let (bad, good) = (env.home().join("bad"), env.home().join("good"));
    convention_history(&bad, 40);
    convention_history(&good, 40);
    let mut background = BackgroundMiner::with(std::sync::Arc::new(Planted));
    assert_eq!(background.request(&bad, "b", None), MinedAnswer::Pending);
    background.wait_idle();
    match background.request(&bad, "b", None) {
        MinedAnswer::Unavailable(reason) => assert!(
            reason.contains("panicked") && reason.contains("a planted bug"),
            "{reason}"
        ),
        other => panic!("unavailable expected, got {other:?}"),
    }
    assert_eq!(background.request(&good, "g", None), MinedAnswer::Pending);
    background.wait_idle();
    assert!(matches!(
        background.request(&good, "g", None),
        MinedAnswer::Mined(_)
    ));
}

/// What a plain line must hold: an action first, its evidence in brackets last, and nothing a
/// reader cannot act on: a glob only as the one a companion's files match (`update or add a
/// file matching tests/*.py`, a companion whose files no other line names), never a
/// placeholder or a template.
fn assert_actionable(line: &str, note: &Value) {
    let actions = ["update ", "create ", "add a new file to "];
    assert!(
        actions.iter().any(|a| line.starts_with(a)),
        "no action: {line:?} in {note}"
    );
    let evidence = line
        .rsplit_once(" (")
        .map(|(_, why)| why)
        .unwrap_or_default();
    assert!(
        evidence.starts_with("changed alongside in ") && evidence.ends_with(')'),
        "no evidence: {line:?} in {note}"
    );
    let action = line.rsplit_once(" (").map_or(line, |(action, _)| action);
    let (glob, rest) = match action.strip_prefix("update or add a file matching ") {
        Some(matching) => {
            let glob = matching.split(", like ").next().unwrap_or(matching);
            (Some(glob), &matching[glob.len()..])
        }
        None => (None, line),
    };
    if let Some(glob) = glob {
        let companions = note["companions"].as_array().cloned().unwrap_or_default();
        assert!(
            companions.contains(&json!(glob)),
            "{glob:?} is no companion: {note}"
        );
    }
    for pattern in ["*", "<", ">", "{}", "?"] {
        assert!(!rest.contains(pattern), "{pattern:?} in {line:?}: {note}");
    }
}

/// With no pack (a mined one), every note through `serve` is plain: its header says what kind
/// of change it is, and each companion line what to do and why; a fragment directory is
/// named by an example that exists.
#[test]
fn zero_config_notes_say_what_to_do_and_why() {
    let env = Env::new();
    let repo = repository(&env);
    let store = env.store("plain.redb");
    let mut serve = Serve::start(&env, &store);
    wait_until("the background miner to finish", || {
        (ledger(&serve.edit("probe", &repo, "README.md")) != [MINING]).then_some(())
    });
    let mut notes = Vec::new();
    for k in 0..6 {
        for file in [format!("src/mod{k}.py"), format!("tests/test_mod{k}.py")] {
            let answer = serve.edit(&format!("agent-{k}"), &repo, &file);
            if !answer["note"].is_null() {
                notes.push(answer["note"].clone());
            }
        }
    }
    serve.close();
    assert!(notes.len() >= 6, "{notes:?}");
    let mut fragment_examples = 0;
    for note in &notes {
        let text = note["text"].as_str().expect("a text");
        let (header, body) = text.split_once('\n').expect("a header and lines");
        assert!(
            header.starts_with("[doc-suggester] Changes to ")
                && header.contains(" usually come with these files"),
            "{header}"
        );
        let lines: Vec<&str> = body.lines().map(|l| l.trim_start_matches("- ")).collect();
        assert_eq!(json!(lines), note["lines"], "{note}");
        assert_eq!(
            lines.len(),
            note["companions"].as_array().map_or(0, Vec::len),
            "{note}"
        );
        // A note never names a file twice.
        let mut files: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.rsplit_once(" (").map(|(action, _)| action))
            .flat_map(|action| action.split([' ', ',']))
            .filter(|word| word.contains('/') && !word.ends_with('/'))
            .collect();
        let named = files.len();
        files.sort_unstable();
        files.dedup();
        assert_eq!(files.len(), named, "a file named twice: {note}");
        for line in &lines {
            assert_actionable(line, note);
            if line.starts_with("add a new file to changelog.d/, named like changelog.d/") {
                fragment_examples += 1;
            }
        }
    }
    assert!(fragment_examples > 0, "{notes:?}");
}
