//! `docsuggest status [PATH]`: what the engine does for a directory or a file, and why it may
//! give no notes there.
//!
//! Everything is found the way a host finds it, through the same code: the workspace and its
//! pack by the engine's [`Scene::read`](docsuggest_engine::scene::Scene::read) over a
//! [`PackCache`](docsuggest_engine::locate::PackCache) (zero-config on as in every host,
//! which plugs in a miner), the mined pack and the learned rows from the store read-only
//! ([`crate::inspect`], a copy when the daemon holds it), the daemon by its socket
//! ([`docsuggest_host::daemon`]), the hooks by reading the harnesses' config files
//! ([`hooks`]). Nothing is written and no daemon is started (a running one is asked to flush
//! before its store is read, as the store commands ask it).

mod daemon;
pub mod hooks;
mod render;
mod report;
mod scene;
mod store;
mod verdict;

pub use report::{
    CompanionStatus, ConfigStatus, FamilyStatus, LAST_NOTES, LastNote, MinedStatus, PackStatus,
    Status, StopStatus, StoreStatus, Verdict, WorkspaceStatus,
};

use daemon::{mark_mining_failed, probe_daemon};
use docsuggest_engine::paths;
use docsuggest_engine::probe::OsProbe;
use docsuggest_host::home;
use docsuggest_host::host;
use docsuggest_schema::Config;
use hooks::hooks_root;
use scene::{
    excluded_component, family_status, host_packs, pack_status, read_scene, use_mined,
    workspace_status,
};
use std::path::{Path, PathBuf};
use store::{read_store, store_path};
use verdict::{hints, verdict};

/// What `status` looks at.
#[derive(Clone, Debug, Default)]
pub struct StatusOptions {
    /// The directory or file (relative to the current directory).
    pub path: PathBuf,
    /// A config file (a patch over the defaults) as a host would be given.
    pub config_file: Option<PathBuf>,
    /// The store file [default: the config's `storePath`].
    pub store: Option<PathBuf>,
    /// The daemon's socket [default: the hooks' socket].
    pub socket: Option<PathBuf>,
}
/// Looks at `options.path` as a host would judge a call on it.
pub fn status(options: &StatusOptions) -> Status {
    let (config, config_status) = config(options.config_file.as_deref());
    let path = resolve(&options.path);
    let probe = OsProbe;
    let path_kind = path_kind(&path);
    let mut packs = host_packs(&config);
    let mut scene = read_scene(&path, &mut packs, &probe, &config);
    // The scene leaves the workspace out of an excluded path; it is still worth naming.
    let located = match &scene.workspace {
        Some(w) => Some(w.clone()),
        None => packs.locate(&path, &probe, &mut Vec::new()),
    };
    let excluded = scene
        .excluded
        .then(|| excluded_component(&path, located.as_ref(), &config.exclude).unwrap_or_default());
    let store_path = store_path(options, &config);
    let (mut store, learned) = read_store(&store_path, located.as_ref(), &config);
    let mut pack = located
        .as_ref()
        .map(|w| pack_status(w, &mut packs, &probe, learned.mined.as_ref()));
    if let (Some(w), Some(p)) = (&located, &mut pack)
        && use_mined(w, p, &learned, &mut packs)
    {
        scene = read_scene(&path, &mut packs, &probe, &config);
    }
    let workspace = workspace_status(located.as_ref(), &path, &mut packs, &probe, &config);
    // Until a mined pack is in use, no path of the work tree is in a family of it.
    let pending = pack
        .as_ref()
        .is_some_and(|p| matches!(p.source, "mining-pending" | "no-history"));
    let family = family_status(&scene, &learned).filter(|_| !pending);
    if store.error.is_some() && located.as_ref().is_some_and(|w| w.mined) {
        store.last_notes.clear();
    }
    let hooks = hooks::scan(&hooks_root(located.as_ref(), &path, &probe, path_kind));
    let daemon = probe_daemon(options);
    if let Some(p) = pack.as_mut() {
        mark_mining_failed(p, &daemon, &path);
        // The pack in use now (a mined one once it is): what it says of the Stop reminder.
        if let Some(w) = scene.workspace.as_ref().filter(|_| !pending) {
            p.stop = Some(StopStatus::of(w.pack.boundary, config.block_bar));
        }
    }
    let mut status = Status {
        path: path.display().to_string(),
        path_kind,
        verdict: Verdict {
            notes: false,
            reason: String::new(),
        },
        workspace,
        pack,
        excluded,
        family,
        config: config_status,
        store,
        daemon,
        hooks,
        hints: Vec::new(),
    };
    status.verdict = verdict(&status);
    status.hints = hints(&status);
    status
}
/// `file`, `directory`, `missing` or `other`.
fn path_kind(path: &Path) -> &'static str {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => "file",
        Ok(m) if m.is_dir() => "directory",
        Ok(_) => "other",
        Err(_) => "missing",
    }
}
/// The config given, or the defaults with why the file cannot be used.
fn config(file: Option<&Path>) -> (Config, ConfigStatus) {
    let (config, error) = match host::load_config(file) {
        Ok(config) => (config, None),
        Err(e) => (Config::default(), Some(e.to_string())),
    };
    let status = ConfigStatus {
        file: file.map(|f| f.display().to_string()),
        error,
        enabled: config.enabled,
        zero_config: config.zero_config,
        exclude: config.exclude.clone(),
    };
    (config, status)
}

/// `path` made absolute and normalised as a call path with the current directory as its cwd.
fn resolve(path: &Path) -> PathBuf {
    let expanded = home::expand(&path.to_string_lossy());
    let cwd = std::env::current_dir().ok();
    let cwd = cwd.as_ref().and_then(|c| c.to_str());
    expanded
        .to_str()
        .and_then(|p| paths::resolve(p, cwd).ok())
        .or_else(|| home::absolute(&expanded).ok())
        .unwrap_or(expanded)
}
