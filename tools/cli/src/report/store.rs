//! What the store has recorded for the repository, read as `rates` and `history` read it
//! (read-only; a copy when a writer holds the file): the workspace's rows and history, and
//! the pack mined for it when the work tree has none.

use docsuggest_host::stores;
use docsuggest_report::{Learned, Recorded};
use docsuggest_schema::StoreContents;
use std::path::Path;

/// The store's rows and history for the repository at `root`, and its mined pack's text.
pub(super) fn learned(root: &Path, store: Option<&Path>) -> (Learned, Option<String>) {
    let path = stores::store_file(store);
    let name = path.display().to_string();
    if !path.exists() {
        return (Learned::Missing { store: name }, None);
    }
    let key = match stores::workspace_key(root) {
        Ok(key) => key,
        Err(e) => {
            let reason = e.to_string();
            return (
                Learned::Unreadable {
                    store: name,
                    reason,
                },
                None,
            );
        }
    };
    let read = stores::read_holding(Some(&path), |store, view, _| {
        let rows = view
            .rate_rows()?
            .into_iter()
            .filter(|(k, _)| k.workspace == key)
            .collect();
        let history = view
            .history()?
            .into_iter()
            .filter(|e| e.decision.workspace == key)
            .collect();
        let mined = store.mined_pack(&key)?.map(|m| m.pack);
        Ok((rows, history, mined))
    });
    match read {
        Ok((rows, history, mined)) => (
            Learned::Read(Recorded {
                store: name,
                workspace_key: key,
                rows,
                history,
            }),
            mined,
        ),
        Err(e) => (
            Learned::Unreadable {
                store: name,
                reason: e.to_string(),
            },
            None,
        ),
    }
}
