//! The in-process history miner of the zero-config path ([`GitMiner`]), which hosts run in
//! the background (`docsuggest_host::mining`): it reads at most [`MAX_MINED_COMMITS`] of the
//! newest first-parent commits, each bounded in files (see `crate::history`).

use crate::history::{self, HistoryError, ReadOptions};
use crate::{MAX_MINED_COMMITS, MINER_VERSION, MineOptions, mine};
use docsuggest_host::mining::HistoryMiner;
use docsuggest_schema::MinedPack;
use std::path::Path;

/// The most a stored record handed to `docsuggest mine-pack` may hold: a pack and a head
/// within the store's bounds, as JSON.
pub const MAX_RECORD_BYTES: u64 =
    (docsuggest_schema::store::MAX_MINED_PACK_BYTES as u64) * 2 + 4096;

/// A stored pack is mined again once HEAD is at least this many first-parent commits past the
/// commit it was mined at (or that commit is no longer on HEAD's first-parent chain).
pub const REMINE_AFTER: usize = 200;

/// The in-process miner: the history read with gix.
#[derive(Clone, Copy, Debug, Default)]
pub struct GitMiner;

impl HistoryMiner for GitMiner {
    fn mine(&self, root: &Path, stored: Option<&MinedPack>) -> Result<Option<MinedPack>, String> {
        // A pack from another version of the miner is mined again (used meanwhile).
        if let Some(stored) = stored.filter(|s| s.miner == MINER_VERSION)
            && !moved_far(root, &stored.head)?
        {
            return Ok(None);
        }
        mine_root(root).map(Some)
    }

    fn measure(&self, root: &Path, record: &MinedPack) -> Result<Option<MinedPack>, String> {
        measure_root(root, record).map(Some)
    }

    fn identify(&self, root: &Path) -> Result<Option<String>, String> {
        match crate::repo_identity::identify(root) {
            Ok(identity) => Ok(Some(identity)),
            // A repository without a whole history has no identity: keyed by path.
            Err(HistoryError::Empty(_) | HistoryError::Shallow(_)) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// It reads git in this process: fast enough for the judged call to wait.
    fn identifies_at_once(&self) -> bool {
        true
    }
}

/// Whether HEAD is [`REMINE_AFTER`] or more first-parent commits past `head`, or off its chain.
fn moved_far(root: &Path, head: &str) -> Result<bool, String> {
    let history = history::read_with(
        root,
        &ReadOptions {
            rev: None,
            since: None,
            max_files: 0,
            newest: Some(REMINE_AFTER),
        },
        |_| {},
    )
    .map_err(|e| e.to_string())?;
    Ok(!history.commits.iter().any(|c| c.id == head))
}

/// The newest [`MAX_MINED_COMMITS`] first-parent commits of the work tree `root`, as mining
/// reads them.
fn read_root(root: &Path, options: &MineOptions) -> Result<history::History, String> {
    history::read_with(
        root,
        &ReadOptions {
            rev: None,
            since: None,
            max_files: options.max_files,
            newest: Some(MAX_MINED_COMMITS),
        },
        |_| {},
    )
    .map_err(|e| e.to_string())
}

/// Mines the history of the work tree `root` into a record to store.
pub fn mine_root(root: &Path) -> Result<MinedPack, String> {
    let options = MineOptions::default();
    let history = read_root(root, &options)?;
    let mined = mine(&history.commits, &history.tip_paths, &options);
    if mined.families.is_empty() {
        return Err(format!(
            "no family found in the {} first-parent commits",
            history.commits.len()
        ));
    }
    Ok(MinedPack {
        pack: mined.pack_json(),
        head: history.tip,
        commits: history.commits.len() as u64,
        miner: MINER_VERSION,
    })
}

/// `record` with its pack's `boundary` measured on the history of the work tree `root`, as
/// `init` measures it: whether the Stop reminder may block there. The pack is the same pack,
/// that field added.
pub fn measure_root(root: &Path, record: &MinedPack) -> Result<MinedPack, String> {
    let history = read_root(root, &MineOptions::default())?;
    let figures = crate::init::measure_stop(root, &history)
        .map_err(|e| e.to_string())?
        .ok_or("the backtest measured no change boundary")?;
    let mut pack = docsuggest_schema::Pack::from_json_str(&record.pack, "the mined pack")
        .map_err(|e| e.to_string())?;
    pack.boundary = Some(figures);
    Ok(MinedPack {
        pack: crate::mine::pack_text(&pack),
        ..record.clone()
    })
}
