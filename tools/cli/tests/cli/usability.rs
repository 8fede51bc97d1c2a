//! What a new user meets first: help that says each default once, config and pack errors that
//! name every problem with a suggestion for a misspelt field, `check --json`, shell
//! completions.

use crate::common::Env;
use serde_json::{Value, json};

/// Every subcommand.
const SUBCOMMANDS: &[&str] = &[
    "serve",
    "replay",
    "demo",
    "rates",
    "history",
    "check",
    "migrate",
    "recompute",
    "evaluate",
    "export",
    "import",
    "hook",
    "install-hooks",
    "uninstall-hooks",
    "backtest",
    "bootstrap",
    "init",
    "status",
    "completions",
];

#[test]
fn help_says_each_default_once_and_only_what_the_command_does() {
    let env = Env::new();
    for sub in SUBCOMMANDS {
        let help = env.ok(&[sub, "--help"], b"");
        for line in help.lines() {
            assert!(
                line.matches("[default:").count() <= 1,
                "{sub}: two defaults on one line: {line}"
            );
        }
    }
    let bootstrap = env.ok(&["bootstrap", "--help"], b"");
    assert!(!bootstrap.contains("static"), "{bootstrap}");
    let backtest = env.ok(&["backtest", "--help"], b"");
    assert!(
        backtest.contains("[REPO]  The git repository [default: the current directory]\n"),
        "{backtest}"
    );
}

#[test]
fn a_misspelt_config_field_gets_a_suggestion() {
    let env = Env::new();
    let file = env.home().join("cfg.json");
    std::fs::write(
        &file,
        r#"{"durabilty": "group", "treshold": 0.5, "colour": 1}"#,
    )
    .expect("write");
    let out = env.run(
        &["serve", "--memory", "--config", &file.display().to_string()],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        err.trim_end(),
        format!(
            "docsuggest: error: invalid config in {} (3 problems): colour: unknown field; \
             durabilty: unknown field (did you mean `durability`?); treshold: unknown field \
             (did you mean `threshold`?)",
            file.display()
        )
    );
}

#[test]
fn a_pack_reports_every_unknown_field() {
    let env = Env::new();
    std::fs::create_dir_all(env.ws().join(".dsh")).expect("mkdir");
    let pack = json!({"famlies": [], "families": [{"name": "Plan", "rules": ["Documentation/Plans/*.md"],
        "companion": [], "companions": [{"path": "POC-BRIEF.md", "priority": 1}]}]});
    std::fs::write(env.ws().join(".dsh/doc-pack.json"), pack.to_string()).expect("write");
    let request = json!({"id": 1, "op": "judge", "agent": "a", "tool": "read",
        "path": "Documentation/Plans/X.md", "cwd": env.ws().display().to_string()});
    let out = env.ok(&["serve", "--memory"], format!("{request}\n").as_bytes());
    let answer: Value = serde_json::from_str(out.lines().next().expect("an answer")).expect("JSON");
    let warning = answer["warnings"][0].as_str().expect("a warning");
    for problem in [
        "famlies: unknown field (did you mean `families`?)",
        "families[0].companion: unknown field (did you mean `companions`?)",
        "families[0].companions[0].priority: unknown field (did you mean `prior`?)",
        "wrong shape: missing field `prior`",
    ] {
        assert!(warning.contains(problem), "{problem} missing: {warning}");
    }
}

#[test]
fn check_speaks_json() {
    let env = Env::new();
    let store = env.store("s.redb").display().to_string();
    env.serve_judges(&store, &["Documentation/Plans/X.md", "CHANGELOG.md"]);
    let out = env.ok(&["check", "--store", &store, "--json"], b"");
    let report: Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(report["store"], store);
    assert_eq!(report["ok"], true, "{report}");
    assert_eq!(report["redbPageCheck"], "passed");
    assert_eq!(report["fold"]["holds"], true);
    assert!(report["fold"]["keysChecked"].as_u64() > Some(0), "{report}");
    assert_eq!(report["fold"]["mismatches"], json!([]));
    assert_eq!(report["held"], Value::Null);
    assert_eq!(report["unclean"], false);
}

#[test]
fn completions_cover_every_subcommand() {
    let env = Env::new();
    let bash = env.ok(&["completions", "bash"], b"");
    assert!(bash.contains("complete -F _docsuggest"), "{bash}");
    for sub in SUBCOMMANDS {
        assert!(bash.contains(sub), "bash completes no {sub}");
    }
    // The script is valid bash.
    let file = env.home().join("docsuggest.bash");
    std::fs::write(&file, &bash).expect("write");
    let syntax = std::process::Command::new("bash")
        .arg("-n")
        .arg(&file)
        .status()
        .expect("bash runs");
    assert!(syntax.success());
    let zsh = env.ok(&["completions", "zsh"], b"");
    assert!(zsh.starts_with("#compdef docsuggest"), "{zsh}");
    let fish = env.ok(&["completions", "fish"], b"");
    assert!(fish.contains("complete -c docsuggest"), "{fish}");
    let out = env.run(&["completions", "tcsh"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn long_companion_names_keep_the_rates_columns_and_a_legend_explains_them() {
    let env = Env::new();
    let root = env.home().join("long");
    let long = format!("docs/{}/companion-with-a-long-name.md", "nested".repeat(12));
    for f in ["MARK", "plans/a.md", "INDEX.md", long.as_str()] {
        let path = root.join(f);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        std::fs::write(path, "").expect("write");
    }
    let pack = json!({"signature": ["MARK"], "families": [{"name": "Plan", "rules": ["plans/*.md"],
        "companions": [{"path": "INDEX.md", "prior": 1.0}, {"path": long, "prior": 0.9}]}]});
    std::fs::create_dir_all(root.join(".dsh")).expect("mkdir");
    std::fs::write(root.join(".dsh/doc-pack.json"), pack.to_string()).expect("write");
    let cwd = root.display().to_string();
    let session: String = [
        json!({"id": 1, "op": "judge", "agent": "a", "tool": "read", "path": "plans/a.md", "cwd": cwd}),
        json!({"id": 2, "op": "judge", "agent": "a", "tool": "read", "path": "INDEX.md", "cwd": cwd}),
        json!({"id": 3, "op": "turn", "agent": "a"}),
    ]
    .iter()
    .map(|r| format!("{r}\n"))
    .collect();
    let store = env.store("s.redb").display().to_string();
    env.ok(&["serve", "--store", &store], session.as_bytes());
    let table = env.ok(&["rates", "--store", &store], b"");
    let lines: Vec<&str> = table.lines().collect();
    let header = lines[0];
    let end_of = |line: &str, column: &str| -> usize {
        let at = header.find(column).expect("a column") + column.len();
        line.chars().take(at).count()
    };
    let rows: Vec<&str> = lines
        .iter()
        .copied()
        .skip(1)
        .take_while(|l| !l.starts_with("rate "))
        .collect();
    // The two companions' rows: the silence that watched the long one moved no family row.
    assert_eq!(rows.len(), 2, "{table}");
    for row in &rows {
        // Each right-aligned number ends under its header.
        let chars: Vec<char> = row.chars().collect();
        for column in ["rate", "accepts", "evidence", "shadow-"] {
            let end = end_of(header, column);
            assert!(
                chars.get(end - 1).is_some_and(|c| c.is_ascii_digit())
                    && chars.get(end).is_none_or(|c| *c == ' '),
                "{column} out of line in {row:?}\n{table}"
            );
        }
    }
    assert!(
        rows.iter()
            .any(|r| r.contains("…") && r.contains("companion-with-a-long-name.md")),
        "{table}"
    );
    assert!(table.contains("shadow+/- a watched companion"), "{table}");
    assert!(table.contains("0 accepts and 0 rejects"), "{table}");
}

/// An error is one line that says its cause once (each error's text already ends with its
/// cause's).
#[test]
fn an_error_says_its_cause_once() {
    let env = Env::new();
    let missing = env.home().join("no-such-trace.jsonl");
    let out = env.run(&["replay", &missing.display().to_string()], b"");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("docsuggest: error: cannot read trace "),
        "{stderr}"
    );
    assert_eq!(
        stderr.matches("No such file or directory").count(),
        1,
        "{stderr}"
    );
}

/// A store I/O error keeps the operating system's error as its source, through to the host.
#[test]
fn a_store_io_error_keeps_its_source() {
    let env = Env::new();
    let blocker = env.home().join("not-a-dir");
    std::fs::write(&blocker, "").expect("write");
    let options = docsuggest_store::StoreOptions::new(blocker.join("s.redb"));
    let Err(e) = docsuggest_store::RedbStore::open(options) else {
        panic!("a store under a plain file opened");
    };
    let source = std::error::Error::source(&e).expect("the I/O error is kept as the source");
    let io = source
        .downcast_ref::<std::io::Error>()
        .expect("an io::Error");
    assert!(e.to_string().ends_with(&io.to_string()), "{e}");
    let answer = docsuggest_host::protocol::RequestError::from(e);
    assert_eq!(answer.code(), "store-failed");
    assert!(std::error::Error::source(&answer).is_some());
}

/// Users reach for `explain`: it is `status`, and the top-level help says so.
#[test]
fn explain_is_status() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    assert_eq!(
        env.ok(&["explain", &ws, "--json"], b""),
        env.ok(&["status", &ws, "--json"], b"")
    );
    let help = env.ok(&["--help"], b"");
    assert!(help.contains("[alias: explain]"), "{help}");
}

/// `mcp --help` names every tool the server lists.
#[test]
fn mcp_help_names_its_three_tools() {
    let env = Env::new();
    let help = env.ok(&["mcp", "--help"], b"");
    for tool in ["companions", "why_silent", "check_change"] {
        assert!(help.contains(tool), "{tool} missing from: {help}");
    }
}

/// The README's first commands work as written: the Rust version it asks for is the one the
/// command line declares, and no step holds a placeholder to guess.
#[test]
fn the_readme_states_the_rust_version_and_holds_no_placeholder() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |file: &str| {
        std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"))
    };
    let manifest: toml::Table = toml::from_str(&read("tools/cli/Cargo.toml")).expect("TOML");
    let version = manifest["package"]["rust-version"]
        .as_str()
        .expect("tools/cli declares its rust-version");
    let readme = read("README.md");
    assert!(
        readme.contains(&format!("with Rust {version} or newer")),
        "README.md must state Rust {version}"
    );
    assert!(
        readme.contains("The first `cargo run --release` compiles for about"),
        "README.md must say how long the first build takes"
    );
    for file in ["README.md", "docs/HARNESSES.md"] {
        assert!(!read(file).contains("OWNER/"), "{file} holds a placeholder");
    }
}
