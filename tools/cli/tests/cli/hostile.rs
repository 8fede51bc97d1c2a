//! Hostile files around a workspace, met by the real `docsuggest serve`: pack files that are
//! not plain files never block a call, never read the server's input and never leak what
//! lies outside the workspace; `exclude` applies below the workspace root only.

use crate::common::{Env, answers, wait_for_exit};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;

/// Runs `docsuggest serve --memory` on `input`, killing it (and failing the test) if it has
/// not finished within [`crate::common::WAIT_LIMIT`]: a server blocked on a FIFO or on its
/// own stdin would otherwise hang the suite.
fn serve_guarded(env: &Env, input: &str) -> Vec<Value> {
    let mut child = env
        .command(&["serve", "--memory"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary starts");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut stderr = child.stderr.take().expect("stderr");
    let input = input.as_bytes().to_vec();
    // Written and read from threads so a full pipe never blocks the guard below.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let reader = std::thread::spawn(move || {
        let mut out = String::new();
        let _ = stdout.read_to_string(&mut out);
        out
    });
    let err_reader = std::thread::spawn(move || {
        let mut err = String::new();
        let _ = stderr.read_to_string(&mut err);
        err
    });
    let status = wait_for_exit(
        &mut child,
        "docsuggest serve to finish (a pack file may block it)",
    );
    writer.join().expect("writer");
    let out = reader.join().expect("reader");
    let err = err_reader.join().expect("stderr reader");
    assert!(status.success(), "serve failed: {status}\n{err}");
    answers(&out)
}

fn judge(id: u64, ws: &Path, path: &str) -> String {
    json!({"id": id, "op": "judge", "agent": "a", "tool": "read", "path": path,
        "cwd": ws.display().to_string()})
    .to_string()
}

fn run(cmd: &str, args: &[&str]) -> bool {
    std::process::Command::new(cmd)
        .args(args)
        .status()
        .is_ok_and(|s| s.success())
}

/// A secret outside the workspace, shaped as a valid pack so that reading it would change
/// what the server answers.
const SECRET_PACK: &str = r#"{"signature": ["Documentation/ARCHIVE-STYLE.md"], "families": [{"name": "SecretFamilyX", "rules": ["Documentation/Plans/*.md"], "threshold": 0.0, "companions": [{"path": "SECRET-COMPANION.md", "prior": 1.0}]}]}"#;

/// The kinds of pack file a workspace might carry, each made at `pack`.
fn make_hostile(kind: &str, pack: &Path, outside: &Path) {
    let p = pack.display().to_string();
    match kind {
        "fifo" => assert!(run("mkfifo", &[&p]), "mkfifo"),
        "directory" => std::fs::create_dir(pack).expect("mkdir"),
        "stdin" => std::os::unix::fs::symlink("/dev/stdin", pack).expect("symlink"),
        "zero" => std::os::unix::fs::symlink("/dev/zero", pack).expect("symlink"),
        // A character device of its own (`/dev/zero`'s numbers), where the platform lets us
        // make one; else a FIFO, which blocks as a device read would.
        "device" => {
            if !run("mknod", &[&p, "c", "1", "5"]) {
                assert!(run("mkfifo", &[&p]), "mkfifo");
            }
        }
        "outside" => std::os::unix::fs::symlink(outside, pack).expect("symlink"),
        "huge" => {
            let mut text = SECRET_PACK.to_string();
            text.push_str(&" ".repeat(2 << 20));
            std::fs::write(pack, text).expect("write");
        }
        other => unreachable!("{other}"),
    }
}

#[test]
fn pack_files_that_are_not_plain_files_never_block_or_leak() {
    for kind in [
        "fifo",
        "directory",
        "stdin",
        "zero",
        "device",
        "outside",
        "huge",
    ] {
        let env = Env::new();
        let ws = env.ws();
        let outside = env.home().join("secret-pack.json");
        std::fs::write(&outside, SECRET_PACK).expect("write the secret");
        std::fs::create_dir_all(ws.join(".dsh")).expect("mkdir .dsh");
        let pack = ws.join(".dsh/doc-pack.json");
        make_hostile(kind, &pack, &outside);
        // The request after the judge would be swallowed by a server reading its own stdin.
        let input = format!(
            "{}\n{}\n",
            judge(1, &ws, "Documentation/Plans/X.md"),
            json!({"id": 2, "op": "stats"})
        );
        let got = serve_guarded(&env, &input);
        assert_eq!(got.len(), 2, "{kind}: {got:?}");
        let first = &got[0];
        assert_eq!(first["ok"], true, "{kind}: {first}");
        // The built-in pack stays in force: the Plan note, not the secret family.
        assert_eq!(first["note"]["family"], "Plan", "{kind}: {first}");
        let warnings = first["warnings"].as_array().expect("a warning");
        assert_eq!(warnings.len(), 1, "{kind}: {first}");
        let warning = warnings[0].as_str().expect("text");
        assert!(
            warning.starts_with(&format!("invalid pack {}: not read: ", pack.display())),
            "{kind}: {warning}"
        );
        assert_eq!(got[1]["ok"], true, "{kind}: {}", got[1]);
        let all = serde_json::to_string(&got).expect("json");
        for secret in ["SecretFamilyX", "SECRET-COMPANION"] {
            assert!(!all.contains(secret), "{kind}: {all}");
        }
    }
}

#[test]
fn pack_files_the_walk_passes_never_block() {
    let env = Env::new();
    let ws = env.ws();
    // Between the call and its root: visited by the walk, never the root.
    let between = ws.join("Documentation/.dsh");
    std::fs::create_dir_all(&between).expect("mkdir");
    make_hostile("fifo", &between.join("doc-pack.json"), Path::new("/"));
    // Above a path in no workspace: the walk climbs through it to `/`.
    let foreign = env.home().join("loose/notes");
    std::fs::create_dir_all(foreign.join("deeper")).expect("mkdir");
    std::fs::create_dir_all(env.home().join("loose/.dsh")).expect("mkdir");
    make_hostile(
        "stdin",
        &env.home().join("loose/.dsh/doc-pack.json"),
        Path::new("/"),
    );
    std::fs::create_dir_all(foreign.join(".dsh")).expect("mkdir");
    make_hostile("fifo", &foreign.join(".dsh/doc-pack.json"), Path::new("/"));
    let input = format!(
        "{}\n{}\n{}\n",
        judge(1, &ws, "Documentation/Plans/X.md"),
        judge(2, &foreign, "deeper/README.md"),
        json!({"id": 3, "op": "stats"})
    );
    let got = serve_guarded(&env, &input);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0]["note"]["family"], "Plan", "{}", got[0]);
    // The walk's own detours are not the workspace's pack: no warning for them.
    assert_eq!(got[0].get("warnings"), None, "{}", got[0]);
    assert_eq!(
        got[1]["ledger"],
        json!(["doc-suggester: abstained foreign-workspace 0.00"])
    );
    assert_eq!(got[2]["stats"]["judged"], 2, "{}", got[2]);
}

#[test]
fn a_pack_symlinked_inside_the_workspace_is_read() {
    let env = Env::new();
    let ws = env.ws();
    std::fs::create_dir_all(ws.join(".dsh")).expect("mkdir");
    std::fs::write(
        ws.join("shared-pack.json"),
        SECRET_PACK.replace("SecretFamilyX", "Shared"),
    )
    .expect("write");
    std::os::unix::fs::symlink("../shared-pack.json", ws.join(".dsh/doc-pack.json"))
        .expect("symlink");
    let got = serve_guarded(
        &env,
        &format!("{}\n", judge(1, &ws, "Documentation/Plans/X.md")),
    );
    assert_eq!(got[0]["ok"], true, "{}", got[0]);
    assert_eq!(got[0].get("warnings"), None, "{}", got[0]);
    // Its one companion does not exist, so the family is named in the abstention.
    assert_eq!(
        got[0]["ledger"],
        json!(["doc-suggester: abstained no-companions Shared 0.00"])
    );
}

#[test]
fn a_workspace_under_excluded_names_is_judged() {
    let env = Env::new();
    let nested = env.home().join("dist/Target/node_modules/ws");
    for f in crate::common::FILES {
        let path = nested.join(f);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, "").expect("write");
    }
    std::fs::create_dir_all(nested.join("node_modules/x")).expect("mkdir");
    std::fs::write(nested.join("node_modules/x/README.md"), "").expect("write");
    let input = format!(
        "{}\n{}\n{}\n",
        judge(1, &nested, "Documentation/Plans/X.md"),
        judge(2, &nested, "node_modules/x/README.md"),
        json!({"id": 3, "op": "stats"})
    );
    let got = serve_guarded(&env, &input);
    assert_eq!(got[0]["note"]["family"], "Plan", "{}", got[0]);
    assert_eq!(got[1]["note"], Value::Null, "{}", got[1]);
    assert_eq!(got[1]["ledger"], json!([]), "{}", got[1]);
    assert_eq!(got[2]["stats"]["judged"], 1, "{}", got[2]);
}

/// The peak resident memory of a live process, in KiB (Linux).
#[cfg(target_os = "linux")]
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

#[cfg(target_os = "linux")]
#[test]
fn a_request_line_of_100_mb_is_refused_in_bounded_memory() {
    use std::io::BufRead;
    let env = Env::new();
    let mut child = env
        .command(&["serve", "--memory"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let ws = env.ws();
    let good = judge(2, &ws, "Documentation/Plans/X.md");
    // Streamed in 1 MiB pieces: the test holds no 100 MB buffer either.
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'a'; 1 << 20];
        stdin
            .write_all(br#"{"id":1,"op":"judge","agent":"a","tool":"read","path":""#)
            .expect("write");
        for _ in 0..100 {
            stdin.write_all(&chunk).expect("write");
        }
        stdin.write_all(b"\"}\n").expect("write");
        stdin.write_all(good.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
        stdin
    });
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut lines = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        out.read_line(&mut line).expect("an answer");
        lines.push(serde_json::from_str::<Value>(&line).expect("JSON"));
    }
    let peak = peak_rss_kib(pid);
    let stdin = writer.join().expect("writer");
    drop(stdin);
    assert!(child.wait().expect("the server ends").success());
    assert_eq!(lines[0]["error"]["code"], "line-too-long", "{}", lines[0]);
    let detail = lines[0]["error"]["detail"].as_str().expect("detail");
    assert!(detail.contains("1048576"), "the limit is named: {detail}");
    assert_eq!(lines[1]["ok"], true, "{}", lines[1]);
    assert_eq!(lines[1]["note"]["family"], "Plan");
    // The line was skipped, never held: far below its 100 MB.
    assert!(peak < 64 * 1024, "peak RSS {peak} KiB");
}

/// 20 000 agents, each leaving an open note and never calling again: the server keeps at most
/// `maxAgents` (default 4096) of them, so it stays under 150 MiB resident, and the forgotten
/// ones' notes are in the history as abandoned.
#[cfg(target_os = "linux")]
#[test]
fn twenty_thousand_agents_stay_within_bounded_memory() {
    use std::io::BufRead;
    const AGENTS: usize = 20_000;
    let env = Env::new();
    let store = env.store("s.redb").display().to_string();
    // Group commits: the test is about memory, not about 20 000 fsyncs.
    let config = env.home().join("cfg.json");
    std::fs::write(&config, r#"{"durability": "group", "log": false}"#).expect("config");
    let mut child = env
        .command(&[
            "serve",
            "--store",
            &store,
            "--config",
            &config.display().to_string(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let ws = env.ws();
    let writer = std::thread::spawn(move || {
        let mut input = String::new();
        for i in 0..AGENTS {
            let request = json!({"id": i, "op": "judge", "agent": format!("agent-{i:05}"),
                "tool": "read", "path": "Documentation/Plans/X.md", "cwd": ws.display().to_string()});
            input.push_str(&format!("{request}\n"));
        }
        input.push_str(&format!("{}\n", json!({"id": "stats", "op": "stats"})));
        stdin.write_all(input.as_bytes()).expect("write");
        stdin
    });
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut notes = 0;
    let mut line = String::new();
    let stats = loop {
        line.clear();
        assert!(
            out.read_line(&mut line).expect("an answer") > 0,
            "answers ended"
        );
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        if answer["id"] == "stats" {
            break answer;
        }
        notes += usize::from(answer["note"]["family"] == "Plan");
    };
    let peak = peak_rss_kib(pid);
    drop(writer.join().expect("writer"));
    assert!(child.wait().expect("the server ends").success());
    assert_eq!(notes, AGENTS);
    let forgotten = stats["stats"]["abandoned"].as_u64().expect("abandoned");
    assert!(forgotten >= (AGENTS - 4096) as u64, "{stats}");
    assert!(peak < 150 * 1024, "peak RSS {peak} KiB");
    // Every note, forgotten or closed at the end, is in the history as abandoned.
    let history = env.ok(
        &["history", "--store", &store, "--limit", "100000", "--json"],
        b"",
    );
    let entries: Vec<Value> = serde_json::from_str(&history).expect("JSON");
    assert_eq!(entries.len(), AGENTS);
    assert!(
        entries
            .iter()
            .all(|e| e["decision"]["outcome"] == "abandoned")
    );
}
