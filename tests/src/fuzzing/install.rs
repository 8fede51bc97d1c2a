//! The `install_staging` check: a project whose hook configs, `pre-commit` and the names the
//! installer once staged at are, in turn, regular files, read-only files, links inside and
//! out of the project, dangling links, FIFOs or directories, installed into and uninstalled
//! from as the bytes say. Nothing outside the project ever changes, a refused command changes
//! nothing inside it either, nothing is left staged, a planted name is never touched, and
//! what must be refused is.

use docsuggest_cli::hook::Harness;
use docsuggest_cli::hook::install::{self, InstallError, Scope, git, stage};
use std::collections::BTreeMap;
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

const COMMAND: &str = "docsuggest hook --harness claude-code";

/// The names a byte plants a state at, relative to the project: the configs, the hook, and
/// the fixed names they were once staged at.
const FILES: [&str; 6] = [
    ".claude/settings.json",
    ".claude/settings.json.docsuggest-tmp",
    ".codex/hooks.json",
    ".codex/hooks.json.docsuggest-tmp",
    ".githooks/pre-commit",
    ".githooks/pre-commit.docsuggest-new",
];

/// The config directories, which may themselves be links.
const DIRS: [&str; 2] = [".claude", ".codex"];

/// What a file name holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Absent,
    Text(usize),
    ReadOnly(usize),
    LinkInside,
    LinkOutside,
    DanglingInside,
    DanglingOutside,
    Fifo,
    Directory,
    /// Whatever is there in a config directory that is a link.
    Unknown,
}

/// What a config directory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DirState {
    Real,
    LinkInside,
    LinkOutside,
}

fn texts() -> [String; 6] {
    [
        "{}".into(),
        "{\"model\": \"opus\"}\n".into(),
        String::new(),
        "{\"hooks\": [".into(),
        install::fresh(Harness::ClaudeCode, COMMAND),
        git::script("docsuggest"),
    ]
}

fn state(byte: u8) -> State {
    let text = usize::from(byte / 9) % 6;
    match byte % 9 {
        0 => State::Absent,
        1 => State::Text(text),
        2 => State::ReadOnly(text),
        3 => State::LinkInside,
        4 => State::LinkOutside,
        5 => State::DanglingInside,
        6 => State::DanglingOutside,
        7 => State::Fifo,
        _ => State::Directory,
    }
}

/// The project, the directory outside it, and what each name was last made.
struct World {
    _dir: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    files: [State; 6],
    dirs: [DirState; 2],
}

fn clear(path: &Path) {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path).expect("rm -r"),
        Ok(_) => std::fs::remove_file(path).expect("rm"),
        Err(_) => {}
    }
}

fn link(to: &Path, at: &Path) {
    std::os::unix::fs::symlink(to, at).expect("a link");
}

impl World {
    fn new() -> World {
        let dir = tempfile::tempdir().expect("a directory");
        let project = dir.path().join("project");
        let outside = dir.path().join("outside");
        for d in [".claude", ".codex", ".githooks", "inner/dir"] {
            std::fs::create_dir_all(project.join(d)).expect("mkdir");
        }
        std::fs::write(project.join("inner/target.json"), "{\"model\": \"opus\"}\n")
            .expect("write");
        std::fs::create_dir_all(outside.join("dir")).expect("mkdir");
        std::fs::write(outside.join("file"), "precious\n").expect("write");
        std::fs::write(outside.join("dir/settings.json"), "{}").expect("write");
        std::fs::write(outside.join("dir/hooks.json"), "{}").expect("write");
        World {
            _dir: dir,
            project,
            outside,
            files: [State::Absent; 6],
            dirs: [DirState::Real; 2],
        }
    }

    fn plant_dir(&mut self, n: usize, want: DirState) {
        let path = self.project.join(DIRS[n]);
        clear(&path);
        match want {
            DirState::Real => std::fs::create_dir(&path).expect("mkdir"),
            DirState::LinkInside => link(Path::new("inner/dir"), &path),
            DirState::LinkOutside => link(&self.outside.join("dir"), &path),
        }
        self.dirs[n] = want;
        // What was planted in the directory went with it, or was never there.
        for (file, state) in FILES.iter().zip(self.files.iter_mut()) {
            if file.starts_with(DIRS[n]) {
                *state = match want {
                    DirState::Real => State::Absent,
                    _ => State::Unknown,
                };
            }
        }
    }

    fn plant(&mut self, n: usize, want: State) {
        let path = self.project.join(FILES[n]);
        // Planted only in a real directory of the project: never through a link.
        if let Some(d) = DIRS.iter().position(|d| FILES[n].starts_with(d))
            && self.dirs[d] != DirState::Real
        {
            self.plant_dir(d, DirState::Real);
        }
        // Uninstalling removes a directory it emptied.
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("mkdir");
        clear(&path);
        let texts = texts();
        match want {
            State::Absent => {}
            State::Text(t) => std::fs::write(&path, &texts[t]).expect("write"),
            State::ReadOnly(t) => {
                std::fs::write(&path, &texts[t]).expect("write");
                let read_only = std::fs::Permissions::from_mode(0o444);
                std::fs::set_permissions(&path, read_only).expect("chmod");
            }
            State::LinkInside => link(&self.project.join("inner/target.json"), &path),
            State::LinkOutside => link(&self.outside.join("file"), &path),
            State::DanglingInside => link(Path::new("no-such-file"), &path),
            State::DanglingOutside => link(&self.outside.join("no-such-file"), &path),
            State::Fifo => {
                let mode = rustix::fs::Mode::from_raw_mode(0o644);
                rustix::fs::mknodat(
                    rustix::fs::CWD,
                    path.as_path(),
                    rustix::fs::FileType::Fifo,
                    mode,
                    0,
                )
                .expect("mkfifo");
            }
            State::Directory => std::fs::create_dir(&path).expect("mkdir"),
            State::Unknown => unreachable!("never planted"),
        }
        self.files[n] = want;
    }

    /// Runs action `byte` names: its result, and the index of the file it edits.
    fn act(&self, byte: u8) -> (Result<(), InstallError>, usize) {
        let dry = byte & 0x80 != 0;
        let scope = Scope::Project(self.project.clone());
        let claude = self.project.join(FILES[0]);
        let codex = self.project.join(FILES[2]);
        let hook = self.project.join(FILES[4]);
        match byte % 6 {
            0 => (
                install::install(&claude, &scope, Harness::ClaudeCode, COMMAND, dry).map(drop),
                0,
            ),
            1 => (
                install::uninstall(&claude, &scope, Harness::ClaudeCode, dry).map(drop),
                0,
            ),
            2 => (
                install::install(&codex, &scope, Harness::Codex, COMMAND, dry).map(drop),
                2,
            ),
            3 => (
                install::uninstall(&codex, &scope, Harness::Codex, dry).map(drop),
                2,
            ),
            4 => (git::install_at(&hook, "docsuggest", dry).map(drop), 4),
            _ => (git::uninstall_at(&hook, dry).map(drop), 4),
        }
    }
}

/// Everything under `dir`, without following a link: type, mode, and bytes or link target.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, String> {
    let mut seen = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).expect("a directory") {
            let path = entry.expect("an entry").path();
            let meta = std::fs::symlink_metadata(&path).expect("stat");
            let t = meta.file_type();
            let what = if t.is_symlink() {
                format!("link to {:?}", std::fs::read_link(&path).expect("a link"))
            } else if t.is_dir() {
                todo.push(path.clone());
                "directory".into()
            } else if t.is_fifo() {
                "fifo".into()
            } else {
                format!("{:?}", std::fs::read(&path).expect("read"))
            };
            let mode = meta.mode() & 0o7777;
            let rel = path.strip_prefix(dir).expect("under dir").to_path_buf();
            seen.insert(rel, format!("{mode:o} {what}"));
        }
    }
    seen
}

/// Whether an edit of file `n` must be refused, as the world stands.
fn must_refuse(world: &World, n: usize) -> bool {
    let dir_out = DIRS
        .iter()
        .position(|d| FILES[n].starts_with(d))
        .is_some_and(|d| world.dirs[d] == DirState::LinkOutside);
    // Git's hook is never followed, even inside the project.
    let hook_linked = n == 4 && world.files[n] == State::LinkInside;
    dir_out
        || hook_linked
        || matches!(
            world.files[n],
            State::LinkOutside
                | State::DanglingInside
                | State::DanglingOutside
                | State::Fifo
                | State::Directory
        )
}

/// The check: pairs of bytes, each a state planted at a name or an action run.
pub fn install_staging(bytes: &[u8]) {
    let mut world = World::new();
    let outside = snapshot(&world.outside);
    let top = world.project.parent().expect("a parent").to_path_buf();
    for pair in bytes.chunks(2).take(16) {
        let (how, what) = (pair[0], pair.get(1).copied().unwrap_or(0));
        match how % 8 {
            0..=2 => world.plant(
                usize::from(what) % FILES.len(),
                state((how / 8).wrapping_add(what / 8)),
            ),
            3 => {
                let dir = usize::from(what) % DIRS.len();
                let want = [DirState::Real, DirState::LinkInside, DirState::LinkOutside];
                world.plant_dir(dir, want[usize::from(how / 8) % 3]);
            }
            _ => {
                let before = snapshot(&world.project);
                let (result, n) = world.act(what);
                let after = snapshot(&world.project);
                let context = format!(
                    "action {what}: {result:?}, {:?} {:?}",
                    world.files, world.dirs
                );
                assert_eq!(
                    snapshot(&world.outside),
                    outside,
                    "outside changed; {context}"
                );
                let beside: Vec<_> = std::fs::read_dir(&top)
                    .expect("the top")
                    .map(|e| e.expect("an entry").file_name())
                    .collect();
                assert_eq!(beside.len(), 2, "{beside:?} beside the project; {context}");
                if result.is_err() {
                    assert_eq!(
                        after, before,
                        "a refused command changed the project; {context}"
                    );
                }
                if must_refuse(&world, n) {
                    assert!(result.is_err(), "not refused; {context}");
                }
                for staged in [1, 3, 5].map(|i| Path::new(FILES[i])) {
                    let (now, was) = (after.get(staged), before.get(staged));
                    assert_eq!(now, was, "{}; {context}", staged.display());
                }
                let left = after.keys().find(|p| {
                    p.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with('.') && n.ends_with(stage::STAGED_SUFFIX))
                });
                assert_eq!(left, None, "a staged file left; {context}");
                if world.files[n] == State::LinkInside {
                    // Never deleted through a link, nor the link replaced.
                    let target = after.get(Path::new("inner/target.json"));
                    assert!(target.is_some(), "the link's target went; {context}");
                    let link = after.get(Path::new(FILES[n]));
                    assert_eq!(link, before.get(Path::new(FILES[n])), "{context}");
                }
            }
        }
    }
}
