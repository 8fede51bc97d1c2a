//! A repository's identity, for the keys of the workspaces inside it (the engine's
//! `identity` module): the `docsuggest.identity` a user set in its git config (a fork that
//! should learn apart, a monorepo's parts), else its first-parent root commit — the same on
//! every clone, on every machine.

use crate::history::{HistoryError, MAX_COMMITS};
use std::path::Path;

/// The git config key that names a repository's identity by hand.
pub const IDENTITY_CONFIG_KEY: &str = "docsuggest.identity";

/// The identity of the repository whose work tree starts at `root`: `name:<configured>` or
/// `commit:<root commit id>`. A shallow clone, an empty repository or a first-parent chain
/// longer than [`MAX_COMMITS`] has none (an error saying why).
pub fn identify(root: &Path) -> Result<String, HistoryError> {
    let name = root.display().to_string();
    let repo = gix::open(root).map_err(|e| HistoryError::NotARepository {
        path: name.clone(),
        reason: e.to_string(),
    })?;
    if let Some(configured) = repo.config_snapshot().string(IDENTITY_CONFIG_KEY) {
        let configured = String::from_utf8_lossy(&configured).trim().to_string();
        if !configured.is_empty() {
            return Ok(format!("name:{configured}"));
        }
    }
    if repo.is_shallow() {
        return Err(HistoryError::Shallow(name));
    }
    let mut id = match repo.head_id() {
        Ok(id) => id.detach(),
        Err(_) => return Err(HistoryError::Empty(name)),
    };
    for _ in 0..MAX_COMMITS {
        let commit = repo.find_commit(id).map_err(|e| HistoryError::Object {
            id: id.to_string(),
            reason: e.to_string(),
        })?;
        match commit.parent_ids().next() {
            Some(parent) => id = parent.detach(),
            None => return Ok(format!("commit:{id}")),
        }
    }
    Err(HistoryError::TooLarge(format!(
        "the first-parent history is longer than {MAX_COMMITS} commits"
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit;
    use std::collections::BTreeMap;

    /// A repository of `commits` commits of the empty tree (the same ids wherever it is made).
    fn repository(dir: &Path, commits: usize) {
        testkit::repository(dir, &vec![BTreeMap::new(); commits]);
    }

    #[test]
    fn copies_share_the_root_commit_and_a_configured_name_wins() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (one, two) = (dir.path().join("one"), dir.path().join("elsewhere/two"));
        repository(&one, 3);
        repository(&two, 3);
        let a = identify(&one).expect("identity");
        assert_eq!(a, identify(&two).expect("identity"));
        assert!(
            a.starts_with("commit:") && a.len() == "commit:".len() + 40,
            "{a}"
        );

        let config = one.join(".git/config");
        let mut text = std::fs::read_to_string(&config).expect("config");
        text.push_str("[docsuggest]\n\tidentity = my-fork\n");
        std::fs::write(&config, text).expect("config");
        assert_eq!(identify(&one).expect("identity"), "name:my-fork");

        let empty = dir.path().join("empty");
        repository(&empty, 0);
        assert!(matches!(identify(&empty), Err(HistoryError::Empty(_))));
        assert!(identify(dir.path()).is_err(), "not a repository");
    }
}
