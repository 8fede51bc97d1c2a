//! The report `status` gives: what it found about the path, the workspace and its pack, the
//! family, the config, the store, the daemon and the hooks, as plain data (JSON by serde, text
//! by `render`). It finds nothing itself.

use super::hooks;
use docsuggest_engine::KeySource;
use serde::Serialize;

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
    /// `repo-file`, `built-in`, `mined`, `mining-pending`, `no-history` (a git work tree
    /// whose repository has no commits: nothing to mine yet), or `mining-failed` (the running
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
    /// Whether the Stop reminder may hold the agent up here, and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopStatus>,
}

/// Whether the Stop reminder may hold the agent up in a workspace, and why.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StopStatus {
    /// Whether a claim whose evidence clears `blockBar` holds the agent up (else every claim
    /// only informs the user).
    pub may_block: bool,
    /// Why, in words.
    pub why: String,
}

impl StopStatus {
    /// The Stop reminder's mode under `pack`'s measurement and the config's `blockBar`.
    pub fn of(boundary: Option<docsuggest_schema::pack::BoundaryFigures>, bar: f64) -> Self {
        let measured = |b: docsuggest_schema::pack::BoundaryFigures| {
            format!(
                "{} of {} of its blocks were right at the Stops of the newer part of the \
                 history, unfinished changes and finished ones (the pack's `boundary`, \
                 measured by `init` or the background miner)",
                b.right, b.reminders
            )
        };
        let blocks =
            format!("may hold the agent up on a claim whose evidence clears blockBar {bar}");
        match boundary {
            None => StopStatus {
                may_block: true,
                why: format!(
                    "{blocks}; the pack has no measurement of its reminders (yet: a pack mined \
                     in the background is measured once it is in use), so each claim's evidence \
                     decides"
                ),
            },
            Some(b) if b.may_block => StopStatus {
                may_block: true,
                why: format!("{blocks}: {}", measured(b)),
            },
            Some(b) => StopStatus {
                may_block: false,
                why: format!(
                    "only informs the user, never holds the agent up: {}",
                    measured(b)
                ),
            },
        }
    }
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

impl Status {
    /// The status as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}
