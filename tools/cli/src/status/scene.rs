//! The workspace and its pack as a host finds them: the engine's [`Scene`] over a
//! [`PackCache`] set up as every host sets one up, the stored mined pack put in force, and from
//! them the workspace (or why none), the pack, the excluded component and the path's family.

use super::store::Learned;
use super::{CompanionStatus, FamilyStatus, MinedStatus, PackStatus, WorkspaceStatus};
use docsuggest_engine::compiled::{CompiledPack, Detection};
use docsuggest_engine::locate::{PackCache, Workspace, git_root};
use docsuggest_engine::probe::FileProbe;
use docsuggest_engine::scene::Scene;
use docsuggest_schema::pack::REPO_PACK_PATH;
use docsuggest_schema::{Config, MinedPack, Pack};
use std::path::Path;
use std::sync::Arc;

/// A pack cache as every host sets one up: zero-config as the config says, with a miner.
pub(super) fn host_packs(config: &Config) -> PackCache {
    let mut packs = PackCache::default();
    packs.set_zero_config(config.zero_config);
    packs.set_repo_identifier(Some(docsuggest_host::mining::repo_identifier()));
    packs
}

/// The scene of a call on `path`, as the engine reads it.
pub(super) fn read_scene(
    path: &Path,
    packs: &mut PackCache,
    probe: &dyn FileProbe,
    config: &Config,
) -> Scene {
    Scene::read(
        path,
        packs,
        probe,
        &config.exclude,
        (config.note_style, config.learn),
    )
}

/// Puts the stored mined pack of a zero-config workspace in force, as a host would: its
/// families and companion kinds go into `pack`. Whether it did (the scene is read again then).
pub(super) fn use_mined(
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
pub(super) fn workspace_status(
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

/// The component of `path` that `exclude` names: below the workspace root, or anywhere when
/// the path lies in no workspace (as the scene decides).
pub(super) fn excluded_component(
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
pub(super) fn pack_status(
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
            } else if docsuggest_history::history::has_no_commits(&workspace.root) {
                // Neither the daemon nor `init` can mine a history that is not there yet.
                "no-history"
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
            stop: None,
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
        stop: None,
    }
}

/// A stored mined pack, compiled as the engine compiles it.
fn compile_mined(record: &MinedPack, key: &str) -> Option<Arc<CompiledPack>> {
    let name = format!("mined pack of {key} at {}", record.head);
    let pack = Pack::from_json_str(&record.pack, &name).ok()?;
    CompiledPack::compile(&pack, &name).ok().map(Arc::new)
}

/// The family the scene detected, with its companions as a call there would see them.
pub(super) fn family_status(scene: &Scene, learned: &Learned) -> Option<FamilyStatus> {
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
