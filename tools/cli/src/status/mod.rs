//! `docsuggest status [PATH]`: what the engine does for a directory or a file, and why it may
//! give no notes there.
//!
//! Everything is found the way a host finds it, through the same code: the workspace and its
//! pack by the engine's [`Scene::read`] over a [`PackCache`] (zero-config on as in every host,
//! which plugs in a miner), the mined pack and the learned rows from the store read-only
//! ([`crate::inspect`], a copy when the daemon holds it), the daemon by its socket
//! ([`docsuggest_host::daemon`]), the hooks by reading the harnesses' config files
//! ([`hooks`]). Nothing is written and no daemon is started (a running one is asked to flush
//! before its store is read, as the store commands ask it).

pub mod hooks;
mod render;

use docsuggest_engine::KeySource;
use docsuggest_engine::compiled::{CompiledPack, Detection};
use docsuggest_engine::locate::{PackCache, Workspace, git_root};
use docsuggest_engine::paths;
use docsuggest_engine::probe::{FileProbe, OsProbe};
use docsuggest_engine::scene::Scene;
use docsuggest_host::daemon::DaemonState;
use docsuggest_host::home;
use docsuggest_host::host;
use docsuggest_host::protocol::Reading;
use docsuggest_host::stores::{self, Holder};
use docsuggest_schema::pack::REPO_PACK_PATH;
use docsuggest_schema::{Config, MinedPack, Outcome, Pack, RateModel, StoreContents};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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

/// Everything `status` found.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    /// The path, absolute and normalised as the engine resolves a call path.
    pub path: String,
    /// `file`, `directory`, `missing` or `other`.
    pub path_kind: &'static str,
    /// Whether a call on the path can get a note, and why not.
    pub verdict: Verdict,
    /// The workspace the path lies in, or why none.
    pub workspace: WorkspaceStatus,
    /// The pack in force there.
    pub pack: Option<PackStatus>,
    /// The component of the path the config's `exclude` names, if any.
    pub excluded: Option<String>,
    /// The family the path falls in (a path inside a workspace, not excluded).
    pub family: Option<FamilyStatus>,
    /// The config.
    pub config: ConfigStatus,
    /// The store and what it holds for the workspace.
    pub store: StoreStatus,
    /// The daemon on the hooks' socket.
    pub daemon: docsuggest_host::daemon::Daemon,
    /// The harnesses' hook configs.
    pub hooks: hooks::Hooks,
    /// Other things worth knowing (nothing calls the engine, the daemon serves another store).
    pub hints: Vec<String>,
}

/// Whether notes can come.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// A call on the path can get a note.
    pub notes: bool,
    /// Why (not), for a person.
    pub reason: String,
}

/// The workspace a path lies in.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase", tag = "found")]
pub enum WorkspaceStatus {
    /// An ancestor carries the pack's signature files.
    #[serde(rename_all = "camelCase")]
    Signature {
        /// The root.
        root: String,
        /// The key learned state is stored under.
        key: String,
        /// How the key was derived.
        key_source: KeySource,
        /// The signature files found at the root.
        signature: Vec<String>,
    },
    /// No signature, but a git work tree without a pack file (zero-config).
    #[serde(rename_all = "camelCase")]
    GitWorkTree {
        /// The work tree's root.
        root: String,
        /// The key learned state is stored under.
        key: String,
        /// How the key was derived.
        key_source: KeySource,
    },
    /// None: a call here is `abstained foreign-workspace`.
    #[serde(rename_all = "camelCase")]
    None {
        /// Why.
        reason: String,
    },
}

impl WorkspaceStatus {
    /// The key, when there is a workspace.
    pub fn key(&self) -> Option<&str> {
        match self {
            WorkspaceStatus::Signature { key, .. } | WorkspaceStatus::GitWorkTree { key, .. } => {
                Some(key)
            }
            WorkspaceStatus::None { .. } => None,
        }
    }
}

/// The pack in force in a workspace.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PackStatus {
    /// `repo-file`, `built-in`, `mined`, `mining-pending`, or `mining-failed` (the running
    /// daemon could not mine one; `error` says why).
    pub source: &'static str,
    /// The repo pack file, when the root has one.
    pub file: Option<String>,
    /// Why the repo pack file is not used (the built-in pack is, then).
    pub error: Option<String>,
    /// The families, in pack order.
    pub families: Vec<String>,
    /// The stored mined pack.
    pub mined: Option<MinedStatus>,
}

/// A mined pack the store keeps.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MinedStatus {
    /// The commit it was mined at.
    pub head: String,
    /// First-parent commits read.
    pub commits: u64,
    /// Whether it was mined by this build's miner (else it is mined again, used meanwhile).
    pub current_miner: bool,
    /// Its companions by kind (`literal`, `glob`, `template`, `new-file`, `per-file`).
    pub kinds: std::collections::BTreeMap<&'static str, usize>,
}

/// The family of a path.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FamilyStatus {
    /// The path relative to the workspace root.
    pub relative: String,
    /// The family (`None`: no family's rules match).
    pub name: Option<String>,
    /// Several families match equally (the first by pack order is named).
    pub ambiguous: bool,
    /// The family's companions as this path would see them.
    pub companions: Vec<CompanionStatus>,
}

/// One companion of a detected family.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompanionStatus {
    /// As a note would name it (a template substituted).
    pub path: String,
    /// It exists under one of the call's bases (a note names only those).
    pub exists: bool,
    /// Learning leaves it out of notes now (the evidence model, `pruneBelow`).
    pub left_out: bool,
}

/// The config.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigStatus {
    /// The file given, if any (`None`: the defaults, as the hooks' daemon runs).
    pub file: Option<String>,
    /// Why the file cannot be used (the defaults are shown instead).
    pub error: Option<String>,
    /// `enabled`.
    pub enabled: bool,
    /// `zeroConfig`.
    pub zero_config: bool,
    /// `exclude`.
    pub exclude: Vec<String>,
}

/// The store.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreStatus {
    /// The file.
    pub path: String,
    /// Whether it exists.
    pub exists: bool,
    /// Its size in bytes.
    pub bytes: Option<u64>,
    /// Its schema version, once read.
    pub schema_version: Option<u32>,
    /// Who held it, when it was read through a copy.
    pub held: Option<String>,
    /// Why it could not be read.
    pub error: Option<String>,
    /// Learned rows of the workspace.
    pub rate_rows: usize,
    /// Resolved decisions of the workspace in the history ring.
    pub history_entries: usize,
    /// Notes of the workspace whose window is still open.
    pub pending: usize,
    /// The workspace's last notes, newest last.
    pub last_notes: Vec<LastNote>,
}

/// One resolved note.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LastNote {
    /// Its decision number.
    pub seq: u64,
    /// The family.
    pub family: String,
    /// `accepted`, `rejected` or `abandoned`.
    pub outcome: &'static str,
    /// The companion the agent opened, when accepted.
    pub accepted: Option<String>,
    /// The companions it named.
    pub companions: Vec<String>,
}

/// The most notes [`StoreStatus::last_notes`] lists.
pub const LAST_NOTES: usize = 3;

/// What the store said about a workspace.
#[derive(Default)]
struct Learned {
    mined: Option<MinedPack>,
    left_out: Vec<(String, String)>,
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
    let pending = pack.as_ref().is_some_and(|p| p.source == "mining-pending");
    let family = family_status(&scene, &learned).filter(|_| !pending);
    if store.error.is_some() && located.as_ref().is_some_and(|w| w.mined) {
        store.last_notes.clear();
    }
    let hooks = hooks::scan(&hooks_root(located.as_ref(), &path, &probe, path_kind));
    let daemon = probe_daemon(options);
    if let Some(p) = pack.as_mut() {
        mark_mining_failed(p, &daemon, &path);
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

/// A pack cache as every host sets one up: zero-config as the config says, with a miner.
fn host_packs(config: &Config) -> PackCache {
    let mut packs = PackCache::default();
    packs.set_zero_config(config.zero_config);
    packs.set_repo_identifier(Some(docsuggest_host::mining::repo_identifier()));
    packs
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

/// The scene of a call on `path`, as the engine reads it.
fn read_scene(path: &Path, packs: &mut PackCache, probe: &dyn FileProbe, config: &Config) -> Scene {
    Scene::read(
        path,
        packs,
        probe,
        &config.exclude,
        (config.note_style, config.learn),
    )
}

/// The store file: the one given, else the config's.
fn store_path(options: &StatusOptions, config: &Config) -> PathBuf {
    stores::store_file(
        options
            .store
            .as_deref()
            .or(Some(Path::new(&config.store_path))),
    )
}

/// Puts the stored mined pack of a zero-config workspace in force, as a host would: its
/// families and companion kinds go into `pack`. Whether it did (the scene is read again then).
fn use_mined(
    workspace: &Workspace,
    pack: &mut PackStatus,
    learned: &Learned,
    packs: &mut PackCache,
) -> bool {
    if !workspace.mined {
        return false;
    }
    let Some(mined) = learned
        .mined
        .as_ref()
        .and_then(|m| compile_mined(m, &workspace.key))
    else {
        return false;
    };
    pack.families = mined.families.iter().map(|f| f.name.clone()).collect();
    if let Some(status) = &mut pack.mined {
        for c in mined.families.iter().flat_map(|f| &f.companions) {
            *status
                .kinds
                .entry(docsuggest_history::backtest::kinds::kind_of(c))
                .or_default() += 1;
        }
    }
    packs.set_mined(&workspace.root, Some(mined));
    true
}

/// The workspace found, or why a call there finds none.
fn workspace_status(
    located: Option<&Workspace>,
    path: &Path,
    packs: &mut PackCache,
    probe: &dyn FileProbe,
    config: &Config,
) -> WorkspaceStatus {
    match located {
        Some(w) if w.mined => WorkspaceStatus::GitWorkTree {
            root: w.root.display().to_string(),
            key: w.key.clone(),
            key_source: w.key_source.clone(),
        },
        Some(w) => WorkspaceStatus::Signature {
            root: w.root.display().to_string(),
            key: w.key.clone(),
            key_source: w.key_source.clone(),
            signature: w.pack.signature.clone(),
        },
        None => WorkspaceStatus::None {
            reason: foreign_reason(path, packs, probe, config),
        },
    }
}

/// Where the hooks' project config is looked for: the workspace root, else the git work
/// tree's, else the directory itself (a file's parent).
fn hooks_root(
    located: Option<&Workspace>,
    path: &Path,
    probe: &dyn FileProbe,
    path_kind: &str,
) -> PathBuf {
    located
        .map(|w| w.root.clone())
        .or_else(|| git_root(path, probe).map(Path::to_path_buf))
        .unwrap_or_else(|| match path_kind {
            "directory" => path.to_path_buf(),
            _ => path.parent().unwrap_or(path).to_path_buf(),
        })
}

/// The daemon on the socket given, else on the hooks' socket.
fn probe_daemon(options: &StatusOptions) -> docsuggest_host::daemon::Daemon {
    docsuggest_host::daemon::probe(
        &options
            .socket
            .clone()
            .unwrap_or_else(crate::hook::default_socket),
    )
}

/// A pack the daemon tried to mine and could not: its reason, not "pending" forever.
fn mark_mining_failed(
    pack: &mut PackStatus,
    daemon: &docsuggest_host::daemon::Daemon,
    path: &Path,
) {
    if pack.source == "mining-pending"
        && matches!(daemon.state, DaemonState::Running { .. })
        && let Some(reason) = docsuggest_host::daemon::why_unmined(&daemon.socket, path)
    {
        pack.source = "mining-failed";
        pack.error = Some(reason);
    }
}

impl Status {
    /// The status as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
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

/// The component of `path` that `exclude` names: below the workspace root, or anywhere when
/// the path lies in no workspace (as the scene decides).
fn excluded_component(
    path: &Path,
    workspace: Option<&Workspace>,
    exclude: &[String],
) -> Option<String> {
    let below = workspace
        .and_then(|w| path.strip_prefix(&w.root).ok())
        .unwrap_or(path);
    below
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .find(|c| exclude.iter().any(|x| x == c))
}

/// Why a path lies in no workspace, in the order the engine looks, in the user's terms (the
/// built-in pack's signature file is the engine's business, not theirs).
fn foreign_reason(
    path: &Path,
    packs: &mut PackCache,
    probe: &dyn FileProbe,
    config: &Config,
) -> String {
    let reason = foreign_reason_of(path, packs, probe, config);
    if probe.kind(path).is_none() {
        return format!("{} does not exist; {reason}", path.display());
    }
    reason
}

fn foreign_reason_of(
    path: &Path,
    packs: &mut PackCache,
    probe: &dyn FileProbe,
    config: &Config,
) -> String {
    let start = if path.is_dir() {
        path
    } else {
        path.parent().unwrap_or(path)
    };
    let Some(root) = git_root(start, probe) else {
        return format!(
            "no pack file ({REPO_PACK_PATH}) in any ancestor, nor the built-in documentation \
             layout, and not a git work tree (foreign workspace)"
        );
    };
    let file = root.join(REPO_PACK_PATH);
    if probe.kind(&file).is_some() {
        let (pack, error) = packs.pack_at(root, probe);
        return match error {
            Some(e) => format!(
                "the git work tree {} has a pack file that cannot be used ({e}), and the \
                 built-in documentation layout is not there either (foreign workspace)",
                root.display()
            ),
            None => format!(
                "the git work tree {} has a pack file whose signature ({}) is not all there \
                 (foreign workspace; a pack file turns mining from history off)",
                root.display(),
                pack.signature.join(", ")
            ),
        };
    }
    if !config.zero_config {
        return format!(
            "no pack file ({REPO_PACK_PATH}) in any ancestor, nor the built-in documentation \
             layout, and zeroConfig is off, so the git work tree {} is not mined (foreign \
             workspace)",
            root.display()
        );
    }
    format!("no workspace found above {}", path.display())
}

/// The pack in force in `workspace`.
fn pack_status(
    workspace: &Workspace,
    packs: &mut PackCache,
    probe: &dyn FileProbe,
    mined: Option<&MinedPack>,
) -> PackStatus {
    let families = workspace
        .pack
        .families
        .iter()
        .map(|f| f.name.clone())
        .collect();
    if workspace.mined {
        return PackStatus {
            source: if mined.is_some() {
                "mined"
            } else {
                "mining-pending"
            },
            file: None,
            error: None,
            families,
            mined: mined.map(|m| MinedStatus {
                kinds: Default::default(),
                head: m.head.clone(),
                commits: m.commits,
                current_miner: m.miner == docsuggest_history::MINER_VERSION,
            }),
        };
    }
    let file = workspace.root.join(REPO_PACK_PATH);
    let has_file = probe.kind(&file).is_some();
    let (_, error) = packs.pack_at(&workspace.root, probe);
    PackStatus {
        source: if has_file && error.is_none() {
            "repo-file"
        } else {
            "built-in"
        },
        file: has_file.then(|| file.display().to_string()),
        error: error.map(|e| e.to_string()),
        families,
        mined: None,
    }
}

/// A stored mined pack, compiled as the engine compiles it.
fn compile_mined(record: &MinedPack, key: &str) -> Option<Arc<CompiledPack>> {
    let name = format!("mined pack of {key} at {}", record.head);
    let pack = Pack::from_json_str(&record.pack, &name).ok()?;
    CompiledPack::compile(&pack, &name).ok().map(Arc::new)
}

/// The family the scene detected, with its companions as a call there would see them.
fn family_status(scene: &Scene, learned: &Learned) -> Option<FamilyStatus> {
    let workspace = scene.workspace.as_ref()?;
    let (index, ambiguous) = match scene.detection {
        Detection::NoSignal => {
            return Some(FamilyStatus {
                relative: scene.rel.clone(),
                name: None,
                ambiguous: false,
                companions: Vec::new(),
            });
        }
        Detection::Family(i) => (i, false),
        Detection::Ambiguous(i) => (i, true),
    };
    let family = &workspace.pack.families[index];
    let filtered = scene.filtered.as_ref();
    let companions = family
        .companions
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let path = filtered.map_or(c.path.as_str(), |f| f.shown(family, &c.path));
            CompanionStatus {
                path: path.to_string(),
                exists: filtered.is_some_and(|f| f.existing.contains(&i)),
                left_out: learned
                    .left_out
                    .iter()
                    .any(|(fam, comp)| fam == &family.name && comp == &c.path),
            }
        })
        .collect();
    Some(FamilyStatus {
        relative: scene.rel.clone(),
        name: Some(family.name.clone()),
        ambiguous,
        companions,
    })
}

/// Reads what the store holds for the workspace (read-only; a copy when a writer holds it).
fn read_store(
    path: &Path,
    workspace: Option<&Workspace>,
    config: &Config,
) -> (StoreStatus, Learned) {
    let mut status = StoreStatus {
        path: path.display().to_string(),
        exists: path.exists(),
        bytes: std::fs::metadata(path).ok().map(|m| m.len()),
        schema_version: None,
        held: None,
        error: None,
        rate_rows: 0,
        history_entries: 0,
        pending: 0,
        last_notes: Vec::new(),
    };
    let mut learned = Learned::default();
    if !status.exists {
        return (status, learned);
    }
    let key = workspace.map(|w| w.key.clone());
    let reading = Reading {
        model: RateModel::Evidence,
        prune_below: config.prune_below,
    };
    let read = stores::read_holding(Some(path), |store, view, holder| {
        let held = holder.map(Holder::to_string);
        let Some(key) = key.as_deref() else {
            return Ok((held, Learned::default(), 0, Vec::new(), 0));
        };
        let rows: Vec<_> = view
            .rate_rows()?
            .into_iter()
            .filter(|(k, _)| k.workspace == key)
            .collect();
        let left_out = rows
            .iter()
            .filter(|(k, r)| reading.leaves_out(k, r))
            .map(|(k, _)| (k.family.clone(), k.companion.clone()))
            .collect();
        let history: Vec<_> = view
            .history()?
            .into_iter()
            .filter(|e| e.decision.workspace == key)
            .collect();
        let pending = view
            .pending()?
            .iter()
            .filter(|d| d.workspace == key)
            .count();
        let learned = Learned {
            mined: store.mined_pack(key)?,
            left_out,
        };
        Ok((held, learned, rows.len(), history, pending))
    });
    match read {
        Ok((held, found, rows, history, pending)) => {
            status.schema_version = Some(docsuggest_store::SCHEMA_VERSION);
            status.held = held;
            status.rate_rows = rows;
            status.history_entries = history.len();
            status.pending = pending;
            let notes: Vec<_> = history
                .iter()
                .filter(|e| e.decision.outcome != Outcome::Silent)
                .collect();
            status.last_notes = notes[notes.len().saturating_sub(LAST_NOTES)..]
                .iter()
                .map(|e| LastNote {
                    seq: e.decision.seq,
                    family: e.decision.family.clone(),
                    outcome: e.decision.outcome.name(),
                    accepted: e.decision.accepted.clone(),
                    companions: e
                        .decision
                        .companions
                        .iter()
                        .map(|c| c.path.clone())
                        .collect(),
                })
                .collect();
            learned = found;
        }
        Err(e) => status.error = Some(e.to_string()),
    }
    (status, learned)
}

/// Whether a call on the path can get a note, and the first reason it cannot.
fn verdict(status: &Status) -> Verdict {
    let silent = |reason: String| Verdict {
        notes: false,
        reason,
    };
    if !status.config.enabled {
        return silent("the config turns the engine off (enabled: false)".into());
    }
    if let Some(component) = &status.excluded {
        return silent(format!(
            "`{component}` is excluded by the config's exclude list ({})",
            status.config.exclude.join(", ")
        ));
    }
    let pack = match (&status.workspace, &status.pack) {
        (WorkspaceStatus::None { .. }, _) | (_, None) => {
            let reason = match &status.workspace {
                WorkspaceStatus::None { reason } => reason.clone(),
                _ => "no workspace".into(),
            };
            return silent(reason);
        }
        (_, Some(pack)) => pack,
    };
    if pack.source == "mining-failed" {
        return silent(format!(
            "the daemon could not give this git work tree a pack ({}); calls here abstain \
             `foreign-workspace` until the cause is gone and the daemon restarts; `docsuggest \
             init` mines it into .dsh/doc-pack.json and says why it cannot",
            pack.error.as_deref().unwrap_or("no reason given")
        ));
    }
    if pack.source == "mining-pending" {
        return silent(match &status.store.error {
            Some(e) => format!(
                "whether a pack was mined for this git work tree cannot be told: the store \
                 cannot be read ({e})"
            ),
            None => "the pack for this git work tree is not mined yet: the first judged call \
                     here starts mining it in the daemon, and calls are silent until it is \
                     done (`abstained pack-mining`); `docsuggest init` mines it now into \
                     .dsh/doc-pack.json"
                .into(),
        });
    }
    let families = pack.families.join(", ");
    let Some(family) = &status.family else {
        return silent("no workspace".into());
    };
    match (&family.name, status.path_kind) {
        (None, "directory") => Verdict {
            notes: true,
            reason: format!(
                "calls on this workspace's documentation paths are judged with the {} pack \
                 (families: {families})",
                pack.source
            ),
        },
        (None, _) => silent(format!(
            "this path is in no family of the {} pack (families: {families}); a note follows \
             a call on a family's documentation path",
            pack.source
        )),
        (Some(name), _) => {
            let named: Vec<&str> = family
                .companions
                .iter()
                .filter(|c| c.exists && !c.left_out)
                .map(|c| c.path.as_str())
                .collect();
            if named.is_empty() {
                let why = if family.companions.iter().any(|c| c.exists) {
                    "learning leaves out every companion that exists here"
                } else {
                    "none of its companions exists here (a note names only existing files)"
                };
                silent(format!("a call on this path is a {name} task, but {why}"))
            } else {
                Verdict {
                    notes: true,
                    reason: format!(
                        "a call on this path is a {name} task: a note can name {} when its \
                         confidence passes the gate",
                        named.join(", ")
                    ),
                }
            }
        }
    }
}

/// What else stands between the engine and a harness.
fn hints(status: &Status) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(e) = &status.config.error {
        out.push(format!(
            "the config file cannot be used ({e}); the defaults are shown"
        ));
    }
    if !status.hooks.any_installed() {
        out.push(
            "no Claude Code or Codex hooks call docsuggest for this project or user (no \
             hook entries, no plugin enabled): `docsuggest install-hooks --harness claude-code` \
             or the plugins (docs/HARNESSES.md)"
                .into(),
        );
    } else if status.hooks.on_path.is_none() {
        out.push(
            "hooks are installed but no `docsuggest` is on PATH: hooks that run it by name do \
             nothing (`cargo install --locked --path tools/cli`)"
                .into(),
        );
    }
    let store = Path::new(&status.store.path);
    match &status.daemon.state {
        DaemonState::Running { store_health, .. } if store_health.degraded.is_some() => {
            out.push(format!(
                "the daemon's store runs on memory: {}",
                store_health.degraded.as_deref().unwrap_or_default()
            ));
        }
        DaemonState::Running { .. } if !status.daemon.serves(store) => out.push(format!(
            "the daemon serves another store than {}: what it learns is not in this one",
            store.display()
        )),
        _ => {}
    }
    out
}
