//! Repository identity: a workspace in a git repository is keyed by the repository, so copies
//! of one repository at other paths share their key (what fleet learning adds up), `status`
//! says how the key was derived, and a configured identity keys a fork apart.

use crate::common::Env;
use crate::init::convention_history;
use serde_json::Value;
use std::path::Path;

fn workspace(env: &Env, path: &Path) -> Value {
    let path = path.display().to_string();
    let out = env.ok(&["status", &path, "--json"], b"");
    let status: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    status["workspace"].clone()
}

#[test]
fn copies_at_other_paths_share_their_key_and_status_says_how_it_was_derived() {
    let env = Env::new();
    let (one, two) = (env.home().join("one"), env.home().join("else/where/two"));
    convention_history(&one, 12);
    convention_history(&two, 12);
    let (a, b) = (workspace(&env, &one), workspace(&env, &two));
    assert_eq!(a["key"], b["key"], "{a} {b}");
    assert_eq!(a["keySource"]["from"], "repository", "{a}");
    assert_eq!(a["keySource"]["inside"], "", "{a}");
    let identity = a["keySource"]["identity"].as_str().expect("an identity");
    assert!(identity.starts_with("commit:"), "{identity}");
    assert_eq!(
        a["key"],
        docsuggest_engine::identity::repository_key(identity, "")
    );
    // A file below the root is in the same workspace.
    assert_eq!(workspace(&env, &one.join("src/mod1.py"))["key"], a["key"]);

    // The human report says it too.
    let text = env.ok(&["status", one.to_str().expect("utf-8")], b"");
    assert!(text.contains("the same in every clone"), "{text}");

    // Outside a git repository the path decides, as before.
    let plain = env.ws();
    std::fs::create_dir_all(plain.join("Documentation/Plans")).expect("mkdir");
    for f in [
        "Documentation/ARCHIVE-STYLE.md",
        "Documentation/INDEX.md",
        "POC-BRIEF.md",
    ] {
        std::fs::write(plain.join(f), "").expect("write");
    }
    let p = workspace(&env, &plain);
    assert_eq!(p["keySource"]["from"], "path", "{p}");
    assert_eq!(
        p["key"],
        docsuggest_engine::locate::workspace_key(&plain).as_str()
    );
}

#[test]
fn a_configured_identity_keys_a_fork_apart() {
    let env = Env::new();
    let (one, fork) = (env.home().join("one"), env.home().join("fork"));
    convention_history(&one, 12);
    convention_history(&fork, 12);
    let config = fork.join(".git/config");
    let mut text = std::fs::read_to_string(&config).expect("git config");
    text.push_str("[docsuggest]\n\tidentity = the-fork\n");
    std::fs::write(&config, text).expect("git config");
    let (a, f) = (workspace(&env, &one), workspace(&env, &fork));
    assert_ne!(a["key"], f["key"]);
    assert_eq!(f["keySource"]["identity"], "name:the-fork", "{f}");
}

#[test]
fn a_host_without_a_git_reader_finds_the_same_identity_through_the_binary() {
    use docsuggest_host::mining::{CommandMiner, HistoryMiner};
    let env = Env::new();
    let root = env.home().join("repo");
    convention_history(&root, 12);
    let in_process = docsuggest_history::miner::GitMiner
        .identify(&root)
        .expect("identity");
    assert!(
        in_process
            .as_deref()
            .is_some_and(|i| i.starts_with("commit:"))
    );
    let binary = CommandMiner::new(env!("CARGO_BIN_EXE_docsuggest"));
    assert_eq!(binary.identify(&root).expect("identity"), in_process);
    // A directory that is no repository is an error, which hosts log and key by path.
    assert!(binary.identify(env.home()).is_err());
    let missing = CommandMiner::new(env.home().join("no-such-docsuggest"));
    assert!(missing.identify(&root).is_err());
}

#[test]
fn what_was_learned_under_the_path_key_moves_to_the_repository_key() {
    use docsuggest_schema::StoreContents;
    let env = Env::new();
    let store = env.store("s.redb");
    let store_arg = store.to_str().expect("utf-8");
    let rows = || {
        docsuggest_store::ReadOnlyStore::open(&store)
            .expect("the store opens")
            .view()
            .expect("a view")
            .rate_rows()
            .expect("rows")
    };
    // Learned while `ws/` was no repository (as an older build keyed every workspace): under
    // its path key.
    env.serve_judges(
        store_arg,
        &["Documentation/Plans/X.md", "Documentation/INDEX.md"],
    );
    let before = rows();
    assert!(!before.is_empty());
    assert!(before.iter().all(|(k, _)| k.workspace == env.key()));

    // It becomes a repository: its key is now the repository's.
    let files = crate::common::FILES
        .iter()
        .map(|f| (f.to_string(), String::new()))
        .collect();
    docsuggest_history::testkit::repository(&env.ws(), &[files]);
    let status = workspace(&env, &env.ws());
    assert_eq!(status["keySource"]["from"], "repository", "{status}");
    let key = status["key"].as_str().expect("a key").to_string();
    assert_ne!(key, env.key());

    // The first call there moves the rows, bit for bit, in one transaction.
    env.serve_judges(store_arg, &["POC-BRIEF.md"]);
    let after = rows();
    assert!(after.iter().all(|(k, _)| k.workspace == key), "{after:?}");
    assert_eq!(after.len(), before.len());
    for ((old, row), (new, moved)) in before.iter().zip(&after) {
        assert_eq!((&old.family, &old.companion), (&new.family, &new.companion));
        assert!(docsuggest_store::same_bits(row, moved), "{old:?}");
    }
    let check = env.ok(&["check", "--store", store_arg], b"");
    assert!(check.trim_end().ends_with("ok"), "{check}");
    let history = env.ok(&["history", "--store", store_arg, "--json"], b"");
    assert!(!history.contains(&env.key()), "{history}");
}
