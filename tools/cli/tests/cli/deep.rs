//! A repository whose history holds a directory 20 000 levels deep (git accepts it): `init`
//! refuses it with one line, and the daemon every agent shares, asked about it, leaves it
//! unmined with the reason in its answers and in `status`, and goes on serving every other
//! repository — same process, no decision lost.

use crate::backtest::add_deep_commit;
use crate::common::{Env, wait_until};
use crate::daemon::{Server, Told, agent_turns, assert_in_history, history};
use crate::init::convention_history;
use docsuggest_host::client::Client;
use serde_json::Value;
use std::path::Path;

fn ledger(answer: &Value) -> String {
    answer["ledger"].to_string()
}

/// Edits `file` of `repo` until the answer is no longer `pack-mining`; answers it.
fn edit_once_mined(client: &mut Client, told: &mut Told, repo: &Path, file: &str) -> Value {
    wait_until(
        &format!("the miner to be done with {}", repo.display()),
        || {
            let answer = client
                .judge(
                    "miner-watch",
                    "edit",
                    &repo.join(file).display().to_string(),
                    Some(&repo.display().to_string()),
                )
                .expect("judge answers");
            told.add(&answer);
            (!ledger(&answer).contains("pack-mining")).then_some(answer)
        },
    )
}

#[test]
fn a_twenty_thousand_level_repository_is_refused_and_the_daemon_serves_on() {
    let env = Env::new();
    let deep = env.home().join("deep");
    convention_history(&deep, 40);
    add_deep_commit(&deep, 20_000);

    let out = env.run(&["init", &deep.display().to_string()], b"");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("nested more than 512"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(!deep.join(".dsh/doc-pack.json").exists());

    let good = env.home().join("good");
    convention_history(&good, 40);
    let socket = env.store("d.sock");
    let server = Server::start(&env, &socket, &[]);
    let mut client = server.client();
    let mut told = Told::default();
    let ws = env.ws().display().to_string();
    told = told.merge(agent_turns(&mut client, "before", &ws, 3));

    // The deep repository: unmined, and every call there says why.
    let answer = edit_once_mined(&mut client, &mut told, &deep, "src/mod1.py");
    assert_eq!(
        ledger(&answer),
        r#"["doc-suggester: abstained foreign-workspace 0.00"]"#,
        "{answer}"
    );
    assert!(
        answer["warnings"]
            .to_string()
            .contains("nested more than 512"),
        "{answer}"
    );
    let status = env.ok(
        &[
            "status",
            &deep.join("src/mod1.py").display().to_string(),
            "--socket",
            &socket.display().to_string(),
            "--store",
            &env.store("s.redb").display().to_string(),
            "--json",
        ],
        b"",
    );
    let status: Value = serde_json::from_str(&status).expect("status --json");
    assert_eq!(status["pack"]["source"], "mining-failed", "{status}");
    assert!(
        status["verdict"]["reason"]
            .to_string()
            .contains("nested more than 512"),
        "{status}"
    );

    // The same daemon mines and judges another repository, and keeps serving the workspace.
    let answer = edit_once_mined(&mut client, &mut told, &good, "src/mod2.py");
    assert!(ledger(&answer).contains(" src-py "), "{answer}");
    told = told.merge(agent_turns(&mut client, "after", &ws, 3));
    assert!(client.hello().is_ok());
    drop(client);
    let (exit, stderr) = server.terminate();
    assert_eq!(exit.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_in_history(&history(&env), told);
}
