//! `install-hooks` / `uninstall-hooks` on real files: every byte that is not ours stays,
//! uninstalling after installing gives back the file byte for byte (or no file where there
//! was none), `--local`, a missing `--project` refused with nothing created, the program the
//! hooks run, and the Codex feature note.

use crate::common::Env;
use serde_json::Value;
use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The binary under test, linked as `docsuggest` into a directory of its own.
fn path_with_docsuggest(env: &Env) -> OsString {
    let bin = env.home().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let link = bin.join("docsuggest");
    if !link.exists() {
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_docsuggest"), &link).expect("link");
    }
    std::env::join_paths([bin, PathBuf::from("/usr/bin"), PathBuf::from("/bin")]).expect("a PATH")
}

fn without_docsuggest() -> OsString {
    OsString::from("/usr/bin:/bin")
}

/// Runs `docsuggest ARGS` with `PATH` as given.
fn run(env: &Env, args: &[&str], path: &OsString) -> Output {
    env.command(args)
        .env("PATH", path)
        .env_remove("CODEX_HOME")
        .output()
        .expect("the binary runs")
}

fn ok(env: &Env, args: &[&str], path: &OsString) -> (String, String) {
    let out = run(env, args, path);
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let stderr = String::from_utf8(out.stderr).expect("UTF-8");
    assert!(out.status.success(), "{args:?}: {stdout}{stderr}");
    (stdout, stderr)
}

/// Settings files as people write them: keys in no order, odd spacing, CRLF, tabs, one line,
/// no final newline, hooks of their own.
const UNUSUAL: &[&str] = &[
    "{\"zeta\":{\"b\":2,\"a\":[3,1]},\"hooks\":{\"PreToolUse\":[{\"matcher\":\"Bash\",\"hooks\":[{\"type\":\"command\",\"command\":\"./guard.sh\",\"timeout\":3}]}]},\"alpha\":true}",
    "{\r\n  \"permissions\" : { \"allow\" : [ \"Bash(ls:*)\" ] } ,\r\n  \"model\" : \"opus\"\r\n}\r\n",
    "{\n\t\"hooks\": {\n\t\t\"PostToolUse\": [\n\t\t\t{ \"matcher\": \"Write\", \"hooks\": [ { \"type\": \"command\", \"command\": \"prettier --write\" } ] }\n\t\t],\n\t\t\"SubagentStop\": []\n\t},\n\t\"env\": { \"Z\": \"1\", \"A\": \"2\" }\n}",
    "   {\n        \"statusLine\": {\"type\": \"command\", \"command\": \"~/.claude/status.sh\"},\n\n        \"model\":\"sonnet\"   }   \n\n",
    "{}",
];

#[test]
fn install_then_uninstall_gives_back_the_bytes() {
    let env = Env::new();
    let path = path_with_docsuggest(&env);
    let ws = env.ws().display().to_string();
    for (harness, file) in [
        ("claude-code", ".claude/settings.json"),
        ("codex", ".codex/hooks.json"),
    ] {
        let config = env.ws().join(file);
        std::fs::create_dir_all(config.parent().expect("a parent")).expect("mkdir");
        for original in UNUSUAL {
            std::fs::write(&config, original).expect("write");
            let install = ["install-hooks", "--harness", harness, "--project", &ws];
            let (stdout, _) = ok(&env, &install, &path);
            assert!(stdout.starts_with("installed into"), "{stdout}");
            let installed = std::fs::read_to_string(&config).expect("read");
            let value: Value = serde_json::from_str(&installed).expect("still JSON");
            let command = format!("docsuggest hook --harness {harness}");
            let groups = value["hooks"]["PostToolUse"]
                .as_array()
                .expect("PostToolUse");
            assert_eq!(
                groups.last().expect("ours")["hooks"][0]["command"],
                command.as_str(),
                "{installed}"
            );
            // Every key of theirs keeps its value and its place before ours.
            let theirs: Value = serde_json::from_str(original).expect("JSON");
            for (key, v) in theirs.as_object().expect("an object") {
                if key != "hooks" {
                    assert_eq!(&value[key], v, "{key} in {installed}");
                }
            }
            let (again, _) = ok(&env, &install, &path);
            assert!(again.starts_with("unchanged"), "{again}");
            assert_eq!(std::fs::read_to_string(&config).expect("read"), installed);

            let uninstall = ["uninstall-hooks", "--harness", harness, "--project", &ws];
            ok(&env, &uninstall, &path);
            assert_eq!(
                std::fs::read_to_string(&config).expect("read"),
                *original,
                "{harness}: uninstall gives back the original bytes"
            );
        }
    }
}

#[test]
fn a_file_install_created_is_removed_by_uninstall_with_its_empty_directory() {
    let env = Env::new();
    let path = path_with_docsuggest(&env);
    let ws = env.ws().display().to_string();
    for (harness, dir, file) in [
        ("claude-code", ".claude", "settings.json"),
        ("codex", ".codex", "hooks.json"),
    ] {
        let config = env.ws().join(dir).join(file);
        ok(
            &env,
            &["install-hooks", "--harness", harness, "--project", &ws],
            &path,
        );
        let text = std::fs::read_to_string(&config).expect("created");
        assert!(
            text.starts_with("{\n  \"hooks\": {\n    \"PostToolUse\": [\n"),
            "{text}"
        );
        let (dry, _) = ok(
            &env,
            &[
                "uninstall-hooks",
                "--harness",
                harness,
                "--project",
                &ws,
                "--dry-run",
            ],
            &path,
        );
        assert!(
            dry.contains("+++ /dev/null") && dry.contains("would remove"),
            "{dry}"
        );
        assert!(config.exists(), "a dry run removes nothing");
        let (stdout, _) = ok(
            &env,
            &["uninstall-hooks", "--harness", harness, "--project", &ws],
            &path,
        );
        assert!(stdout.starts_with("removed"), "{stdout}");
        assert!(!config.exists(), "no file left where there was none");
        assert!(!env.ws().join(dir).exists(), "the emptied {dir} goes too");
    }
    // A directory that holds anything else stays.
    let other = env.ws().join(".claude/agents.md");
    std::fs::create_dir_all(other.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&other, "x").expect("write");
    ok(
        &env,
        &["install-hooks", "--harness", "claude", "--project", &ws],
        &path,
    );
    ok(
        &env,
        &["uninstall-hooks", "--harness", "claude", "--project", &ws],
        &path,
    );
    assert!(other.exists() && !env.ws().join(".claude/settings.json").exists());
}

#[test]
fn local_writes_the_personal_settings_file() {
    let env = Env::new();
    let path = path_with_docsuggest(&env);
    let ws = env.ws().display().to_string();
    let shared = env.ws().join(".claude/settings.json");
    let local = env.ws().join(".claude/settings.local.json");
    std::fs::create_dir_all(shared.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&shared, "{\"model\": \"opus\"}\n").expect("write");
    let original = "{\n  \"permissions\": {\n    \"allow\": []\n  }\n}\n";
    std::fs::write(&local, original).expect("write");
    std::fs::set_permissions(&local, std::fs::Permissions::from_mode(0o600)).expect("chmod");

    let args = [
        "install-hooks",
        "--harness",
        "claude-code",
        "--project",
        &ws,
        "--local",
    ];
    let (stdout, _) = ok(&env, &args, &path);
    assert!(stdout.contains("settings.local.json"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&shared).expect("read"),
        "{\"model\": \"opus\"}\n"
    );
    let text = std::fs::read_to_string(&local).expect("read");
    assert!(
        text.contains("docsuggest hook --harness claude-code"),
        "{text}"
    );
    let mode = std::fs::metadata(&local)
        .expect("stat")
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600, "the file keeps its permissions");

    ok(
        &env,
        &[
            "uninstall-hooks",
            "--harness",
            "claude-code",
            "--project",
            &ws,
            "--local",
        ],
        &path,
    );
    assert_eq!(std::fs::read_to_string(&local).expect("read"), original);

    // Codex has no local file: refused, nothing written.
    let out = run(
        &env,
        &[
            "install-hooks",
            "--harness",
            "codex",
            "--project",
            &ws,
            "--local",
        ],
        &path,
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--local"),
        "{out:?}"
    );
    assert!(!env.ws().join(".codex").exists());
    // --local is a project file.
    let out = run(
        &env,
        &[
            "install-hooks",
            "--harness",
            "claude-code",
            "--user",
            "--local",
        ],
        &path,
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn a_missing_project_is_refused_and_nothing_is_created() {
    let env = Env::new();
    let path = path_with_docsuggest(&env);
    let missing = env.home().join("no/such/dir");
    let dir = missing.display().to_string();
    for args in [
        &[
            "install-hooks",
            "--harness",
            "claude-code",
            "--project",
            &dir,
        ][..],
        &[
            "install-hooks",
            "--harness",
            "codex",
            "--project",
            &dir,
            "--dry-run",
        ],
        &[
            "install-hooks",
            "--harness",
            "claude-code",
            "--project",
            &dir,
            "--local",
        ],
        &["uninstall-hooks", "--harness", "codex", "--project", &dir],
    ] {
        let out = run(&env, args, &path);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(&dir) && stderr.contains("not an existing directory"),
            "{stderr}"
        );
        assert!(
            !env.home().join("no").exists(),
            "{args:?} created {}",
            env.home().join("no").display()
        );
    }
}

/// The command our handlers run in the config at `config`.
fn installed_command(config: &Path) -> String {
    let value: Value =
        serde_json::from_str(&std::fs::read_to_string(config).expect("read")).expect("JSON");
    value["hooks"]["UserPromptSubmit"]
        .as_array()
        .and_then(|groups| groups.last())
        .and_then(|group| group["hooks"][0]["command"].as_str())
        .expect("our command")
        .to_string()
}

#[test]
fn the_hooks_run_docsuggest_from_path_unless_pinned() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    let config = env.ws().join(".claude/settings.json");
    let exe = env!("CARGO_BIN_EXE_docsuggest");
    let install = |extra: &[&str], path: &OsString| {
        let mut args = vec![
            "install-hooks",
            "--harness",
            "claude-code",
            "--project",
            &ws,
        ];
        args.extend(extra);
        let out = ok(&env, &args, path);
        (installed_command(&config), out.1)
    };

    let (command, stderr) = install(&[], &path_with_docsuggest(&env));
    assert_eq!(command, "docsuggest hook --harness claude-code");
    assert_eq!(stderr, "");

    // By path, the lean entry point beside this binary (cargo builds both) runs the hooks.
    let lean = env!("CARGO_BIN_EXE_docsuggest-hook");
    let (command, stderr) = install(&[], &without_docsuggest());
    assert_eq!(command, format!("{lean} --harness claude-code"));
    assert!(stderr.contains("docsuggest is not on PATH"), "{stderr}");

    let (command, _) = install(&["--command", "docsuggest"], &without_docsuggest());
    assert_eq!(command, "docsuggest hook --harness claude-code");

    let (command, stderr) = install(&["--command", exe], &path_with_docsuggest(&env));
    assert_eq!(command, format!("{lean} --harness claude-code"));
    assert_eq!(stderr, "");
    // One set of ours at a time: the pinned command replaced the plain one.
    let text = std::fs::read_to_string(&config).expect("read");
    assert_eq!(
        text.matches("hook --harness claude-code").count(),
        5,
        "{text}"
    );

    // On PATH beside the docsuggest there: the bare name of the lean entry point.
    let bin = env.home().join("bin");
    std::os::unix::fs::symlink(lean, bin.join("docsuggest-hook")).expect("link");
    let (command, stderr) = install(&[], &path_with_docsuggest(&env));
    assert_eq!(command, "docsuggest-hook --harness claude-code");
    assert_eq!(stderr, "");
    let text = std::fs::read_to_string(&config).expect("read");
    assert_eq!(text.matches("--harness claude-code").count(), 5, "{text}");
    std::fs::remove_file(bin.join("docsuggest-hook")).expect("unlink");

    let out = run(
        &env,
        &[
            "install-hooks",
            "--harness",
            "claude-code",
            "--project",
            &ws,
            "--command",
            "./docsuggest",
        ],
        &without_docsuggest(),
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("absolute path"),
        "{out:?}"
    );
    // Uninstalling takes out ours whatever they run: it has no program to be told.
    let out = run(
        &env,
        &[
            "uninstall-hooks",
            "--harness",
            "claude-code",
            "--project",
            &ws,
            "--command",
            exe,
        ],
        &without_docsuggest(),
    );
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("unexpected argument '--command'"),
        "{out:?}"
    );
}

#[test]
fn codex_install_says_when_its_config_may_keep_hooks_off() {
    let env = Env::new();
    let path = path_with_docsuggest(&env);
    let ws = env.ws().display().to_string();
    let toml = env.home().join(".codex/config.toml");
    let install = || {
        ok(
            &env,
            &["install-hooks", "--harness", "codex", "--project", &ws],
            &path,
        )
        .1
    };

    let stderr = install();
    assert!(stderr.contains("codex_hooks = true"), "{stderr}");
    assert!(!toml.exists(), "the Codex config is never written");

    std::fs::create_dir_all(toml.parent().expect("a parent")).expect("mkdir");
    let on = "model = \"gpt-5-codex\"\n\n[features]\ncodex_hooks = true\n";
    std::fs::write(&toml, on).expect("write");
    assert_eq!(install(), "");
    assert_eq!(std::fs::read_to_string(&toml).expect("read"), on);

    std::fs::write(&toml, "[features]\nhooks = false\n").expect("write");
    let stderr = install();
    assert!(stderr.contains("warning: Codex runs no hooks"), "{stderr}");

    // A project config turning it on wins over the user's.
    std::fs::write(
        env.ws().join(".codex/config.toml"),
        "[features]\nhooks = true\n",
    )
    .expect("write");
    assert_eq!(install(), "");

    // Claude Code has no such flag.
    let stderr = ok(
        &env,
        &[
            "install-hooks",
            "--harness",
            "claude-code",
            "--project",
            &ws,
        ],
        &path,
    )
    .1;
    assert_eq!(stderr, "");
}
