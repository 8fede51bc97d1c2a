//! `install-hooks` / `uninstall-hooks` in a repository that plants things at the names they
//! touch: a link at a staging name the installer once used, a settings file that is a FIFO,
//! is read-only, or links out of the project, a dangling `pre-commit` link. Nothing outside
//! the project is ever written or removed, nothing blocks, and every refusal names the file.

use crate::common::{Env, wait_for_exit};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `docsuggest ARGS`, the hooks pinned to the `docsuggest` on PATH.
fn run(env: &Env, args: &[&str]) -> Output {
    let mut args = args.to_vec();
    if args[0] == "install-hooks" {
        args.extend(["--command", "docsuggest"]);
    }
    env.command(&args)
        .env_remove("CODEX_HOME")
        .output()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A file outside the project (`HOME/outside/NAME`) that nothing may write.
fn outside(env: &Env, name: &str) -> PathBuf {
    let file = env.home().join("outside").join(name);
    std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&file, "precious\n").expect("write");
    file
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path)
        .expect("stat")
        .permissions()
        .mode()
        & 0o777
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("a directory")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// `VERB --harness claude-code --project WS`.
fn claude_code<'a>(verb: &'a str, ws: &'a str) -> [&'a str; 5] {
    [verb, "--harness", "claude-code", "--project", ws]
}

#[test]
fn a_link_at_a_staging_name_is_never_written_through() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    for (harness, dir, file) in [
        ("claude-code", ".claude", "settings.json"),
        ("codex", ".codex", "hooks.json"),
    ] {
        let victim = outside(&env, harness);
        let dir = env.ws().join(dir);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(file), "{\"model\": \"opus\"}\n").expect("write");
        let planted = dir.join(format!("{file}.docsuggest-tmp"));
        std::os::unix::fs::symlink(&victim, &planted).expect("link");
        for verb in ["install-hooks", "uninstall-hooks"] {
            let out = run(&env, &[verb, "--harness", harness, "--project", &ws]);
            assert!(out.status.success(), "{verb} {harness}: {out:?}");
            assert_eq!(
                std::fs::read_to_string(&victim).expect("read"),
                "precious\n",
                "{verb} {harness} wrote through {}",
                planted.display()
            );
            assert!(!is_link(&dir.join(file)), "{verb} {harness}");
            assert!(is_link(&planted), "{verb} {harness}");
            // Nothing left behind but the two files.
            assert_eq!(
                names(&dir),
                [file.to_string(), format!("{file}.docsuggest-tmp")]
            );
        }
        assert_eq!(
            std::fs::read_to_string(dir.join(file)).expect("read"),
            "{\"model\": \"opus\"}\n"
        );
    }

    // The pre-commit hook, staged in a `core.hooksPath` directory the repository commits.
    git(&env.ws(), &["init", "-q"]);
    git(&env.ws(), &["config", "core.hooksPath", ".githooks"]);
    let hooks = env.ws().join(".githooks");
    std::fs::create_dir_all(&hooks).expect("mkdir");
    let victim = outside(&env, "git");
    let planted = hooks.join("pre-commit.docsuggest-new");
    std::os::unix::fs::symlink(&victim, &planted).expect("link");
    let out = run(
        &env,
        &["install-hooks", "--harness", "git", "--project", &ws],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&victim).expect("read"),
        "precious\n"
    );
    let hook = hooks.join("pre-commit");
    assert!(!is_link(&hook) && is_link(&planted));
    assert!(
        std::fs::read_to_string(&hook)
            .expect("the hook")
            .contains("check-change --staged")
    );
    assert_eq!(mode(&hook) & 0o111, 0o111, "executable");
    assert_eq!(names(&hooks), ["pre-commit", "pre-commit.docsuggest-new"]);
}

#[test]
fn a_settings_file_that_is_a_fifo_is_refused_without_waiting() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    for (harness, dir, file) in [
        ("claude-code", ".claude", "settings.json"),
        ("codex", ".codex", "hooks.json"),
    ] {
        let fifo = env.ws().join(dir).join(file);
        std::fs::create_dir_all(fifo.parent().expect("a parent")).expect("mkdir");
        let made = Command::new("mkfifo").arg(&fifo).status().expect("mkfifo");
        assert!(made.success(), "mkfifo");
        for verb in ["install-hooks", "uninstall-hooks", "install-hooks"] {
            let mut args = vec![verb, "--harness", harness, "--project", &ws];
            if verb == "install-hooks" {
                args.extend(["--command", "docsuggest"]);
            }
            let mut child = env
                .command(&args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("the binary runs");
            // A reader blocked on the FIFO never ends by itself: killed at the limit, failed.
            let status = wait_for_exit(&mut child, &format!("{verb} on a FIFO"));
            let out = child.wait_with_output().expect("its output");
            assert_eq!(status.code(), Some(1), "{verb} {harness}: {out:?}");
            let stderr = text(&out.stderr);
            assert!(
                stderr.contains(&fifo.display().to_string()) && stderr.contains("a FIFO"),
                "{stderr}"
            );
            let kind = std::fs::symlink_metadata(&fifo).expect("stat").file_type();
            assert!(std::os::unix::fs::FileTypeExt::is_fifo(&kind), "{verb}");
        }
    }
}

/// Runs `docsuggest ARGS` to its end, failing (after killing it) if it does not end by itself.
fn run_to_end(env: &Env, args: &[&str], what: &str) -> Output {
    let mut child = env
        .command(args)
        .env_remove("CODEX_HOME")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    wait_for_exit(&mut child, what);
    child.wait_with_output().expect("its output")
}

/// Files only read — the project's Codex `config.toml` for install's note, the settings files
/// `status` shows — never block on a FIFO either.
#[test]
fn a_fifo_read_for_a_note_or_for_status_never_blocks() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    let mkfifo = |path: &Path| {
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
        assert!(made.success(), "mkfifo");
    };
    mkfifo(&env.ws().join(".codex/config.toml"));
    let args = [
        "install-hooks",
        "--harness",
        "codex",
        "--project",
        &ws,
        "--command",
        "docsuggest",
    ];
    let out = run_to_end(&env, &args, "install-hooks beside a FIFO config.toml");
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stderr).contains("codex_hooks = true"), "{out:?}");

    mkfifo(&env.ws().join(".claude/settings.json"));
    let out = run_to_end(
        &env,
        &["status", &ws, "--json"],
        "status beside a FIFO settings file",
    );
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stdout).contains("a FIFO"), "{out:?}");
}

#[test]
fn a_dangling_pre_commit_link_is_refused_and_stays_a_link() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    git(&env.ws(), &["init", "-q"]);
    let hook = env.ws().join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().expect("a parent")).expect("mkdir");
    let nowhere = env.home().join("outside/no-such-hook");
    std::os::unix::fs::symlink(&nowhere, &hook).expect("link");
    for verb in ["install-hooks", "uninstall-hooks"] {
        let out = run(&env, &[verb, "--harness", "git", "--project", &ws]);
        assert_eq!(out.status.code(), Some(1), "{verb}: {out:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&hook.display().to_string())
                && stderr.contains("symbolic link")
                && stderr.contains("left as it is"),
            "{stderr}"
        );
        assert!(is_link(&hook), "{verb}");
        assert_eq!(std::fs::read_link(&hook).expect("a link"), nowhere);
        assert!(!nowhere.exists() && !nowhere.parent().expect("a parent").exists());
    }
}

#[test]
fn a_read_only_settings_file_is_refused_and_left_unchanged() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    let config = env.ws().join(".claude/settings.json");
    std::fs::create_dir_all(config.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&config, "{\"model\": \"opus\"}\n").expect("write");
    let (install, uninstall) = (
        claude_code("install-hooks", &ws),
        claude_code("uninstall-hooks", &ws),
    );

    // A writable file keeps its mode.
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    assert!(run(&env, &install).status.success());
    assert_eq!(mode(&config), 0o640);
    let installed = std::fs::read_to_string(&config).expect("read");

    let refused = |args: &[&str], kept: &str| {
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        let out = run(&env, args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&config.display().to_string()) && stderr.contains("read-only"),
            "{stderr}"
        );
        assert_eq!(std::fs::read_to_string(&config).expect("read"), kept);
        assert_eq!(mode(&config), 0o444);
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    };
    refused(&uninstall, &installed);
    assert!(run(&env, &uninstall).status.success());
    refused(&install, "{\"model\": \"opus\"}\n");
    // A file holding only ours is not removed either.
    std::fs::remove_file(&config).expect("rm");
    assert!(run(&env, &install).status.success());
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    assert_eq!(run(&env, &uninstall).status.code(), Some(1));
    assert!(config.exists());
}

/// The process's umask, which a new settings file's mode honours.
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix("Umask:"))
        .expect("a Umask line");
    u32::from_str_radix(line.trim(), 8).expect("octal")
}

#[test]
fn a_new_settings_file_gets_the_mode_the_umask_gives() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    let out = run(
        &env,
        &["install-hooks", "--harness", "codex", "--project", &ws],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&env.ws().join(".codex/hooks.json")), 0o666 & !umask());
}

#[test]
fn a_link_out_of_the_project_is_refused_and_what_it_leads_to_kept() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    // What installing writes into no file: uninstalling would remove a file holding it.
    let scratch = env.home().join("scratch");
    std::fs::create_dir_all(&scratch).expect("mkdir");
    let scratch_arg = scratch.display().to_string();
    let args = [
        "install-hooks",
        "--harness",
        "claude-code",
        "--project",
        &scratch_arg,
    ];
    assert!(run(&env, &args).status.success());
    let only_ours = std::fs::read_to_string(scratch.join(".claude/settings.json")).expect("read");

    let dotfile = env.home().join("dotfiles/settings.json");
    std::fs::create_dir_all(dotfile.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&dotfile, &only_ours).expect("write");
    let link = env.ws().join(".claude/settings.json");
    std::fs::create_dir_all(link.parent().expect("a parent")).expect("mkdir");
    std::os::unix::fs::symlink(&dotfile, &link).expect("link");
    for verb in ["uninstall-hooks", "install-hooks"] {
        let out = run(&env, &[verb, "--harness", "claude-code", "--project", &ws]);
        assert_eq!(out.status.code(), Some(1), "{verb}: {out:?}");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(&link.display().to_string())
                && stderr.contains(&dotfile.display().to_string())
                && stderr.contains("outside the project"),
            "{stderr}"
        );
        assert_eq!(std::fs::read_to_string(&dotfile).expect("kept"), only_ours);
        assert!(is_link(&link));
    }

    // A linked directory on the way out: nothing is created there.
    let elsewhere = env.home().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, env.ws().join(".codex")).expect("link");
    let out = run(
        &env,
        &["install-hooks", "--harness", "codex", "--project", &ws],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(text(&out.stderr).contains("outside the project"), "{out:?}");
    assert_eq!(names(&elsewhere), Vec::<String>::new());
}

#[test]
fn a_link_inside_the_scope_is_edited_and_never_deleted() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    let kept = env.ws().join("config/claude.json");
    std::fs::create_dir_all(kept.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&kept, "").expect("write");
    let link = env.ws().join(".claude/settings.json");
    std::fs::create_dir_all(link.parent().expect("a parent")).expect("mkdir");
    std::os::unix::fs::symlink("../config/claude.json", &link).expect("link");
    let (install, uninstall) = (
        claude_code("install-hooks", &ws),
        claude_code("uninstall-hooks", &ws),
    );
    assert!(run(&env, &install).status.success());
    assert!(is_link(&link));
    assert!(
        std::fs::read_to_string(&kept)
            .expect("read")
            .contains("docsuggest hook")
    );
    // Holding only ours, the file is emptied, not deleted through the link.
    let out = run(&env, &uninstall);
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stdout).starts_with("uninstalled from"), "{out:?}");
    assert!(is_link(&link));
    assert_eq!(std::fs::read_to_string(&kept).expect("kept"), "{}\n");
    let again = run(&env, &uninstall);
    assert!(text(&again.stdout).starts_with("unchanged"), "{again:?}");

    // The user's settings linked to dotfiles in their home: inside the scope.
    let dotfile = env.home().join("dotfiles/settings.json");
    std::fs::create_dir_all(dotfile.parent().expect("a parent")).expect("mkdir");
    std::fs::write(&dotfile, "{\"model\": \"opus\"}").expect("write");
    let user = env.home().join(".claude/settings.json");
    std::fs::create_dir_all(user.parent().expect("a parent")).expect("mkdir");
    std::os::unix::fs::symlink(&dotfile, &user).expect("link");
    let out = run(
        &env,
        &["install-hooks", "--harness", "claude-code", "--user"],
    );
    assert!(out.status.success(), "{out:?}");
    assert!(is_link(&user));
    assert!(
        std::fs::read_to_string(&dotfile)
            .expect("read")
            .contains("docsuggest hook")
    );
    let out = run(
        &env,
        &["uninstall-hooks", "--harness", "claude-code", "--user"],
    );
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read_to_string(&dotfile).expect("read"),
        "{\"model\": \"opus\"}"
    );
}

#[test]
fn uninstalling_twice_says_there_is_nothing_to_remove() {
    let env = Env::new();
    let ws = env.ws().display().to_string();
    git(&env.ws(), &["init", "-q"]);
    for (harness, file) in [
        ("claude-code", env.ws().join(".claude/settings.json")),
        ("git", env.ws().join(".git/hooks/pre-commit")),
    ] {
        let install = run(
            &env,
            &["install-hooks", "--harness", harness, "--project", &ws],
        );
        assert!(install.status.success(), "{install:?}");
        let uninstall = ["uninstall-hooks", "--harness", harness, "--project", &ws];
        assert!(run(&env, &uninstall).status.success());
        assert!(!file.exists());
        for dry in [false, true] {
            let mut args = uninstall.to_vec();
            if dry {
                args.push("--dry-run");
            }
            let again = run(&env, &args);
            assert!(again.status.success(), "{again:?}");
            assert_eq!(
                text(&again.stdout),
                format!("nothing to uninstall: there is no {}\n", file.display()),
                "{harness}"
            );
        }
    }
}
