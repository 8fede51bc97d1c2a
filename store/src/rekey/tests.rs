use crate::testkit::{accept, decision, mv, reject};
use crate::{RedbStore, StoreOptions, check_fold};
use docsuggest_schema::{
    DecisionStore, Durability, MinedPack, RateKey, RateRow, Rekeyed, StoreContents, StoreError,
};

fn store(dir: &tempfile::TempDir, ring_capacity: u64) -> RedbStore {
    let options = StoreOptions {
        ring_capacity,
        durability: Durability::Immediate,
        ..StoreOptions::new(dir.path().join("s.redb"))
    };
    RedbStore::open(options).expect("open")
}

/// A note in workspace `ws` on `family`, resolved: followed (its companion accepted) or not.
fn resolved_in(store: &mut RedbStore, ws: &str, followed: bool) {
    let mut d = decision("Plan");
    d.workspace = ws.into();
    let seq = store.record_pending(d).expect("pending");
    let step = if followed { 0.1 } else { -0.2 };
    let mut moves = vec![mv("Plan", "A.md", step), mv("Plan", "", step)];
    for m in &mut moves {
        m.key.workspace = ws.into();
    }
    let resolution = match followed {
        true => accept(seq, "A.md", moves),
        false => reject(seq, moves),
    };
    store.resolve(resolution).expect("resolve");
}

fn rows_of(store: &RedbStore, ws: &str) -> Vec<((String, String), RateRow)> {
    store
        .rate_rows()
        .expect("rows")
        .into_iter()
        .filter(|(k, _)| k.workspace == ws)
        .map(|(k, row)| ((k.family, k.companion), row))
        .collect()
}

fn mined() -> MinedPack {
    MinedPack {
        pack: r#"{"signature":[".git"],"families":[]}"#.into(),
        head: "abc".into(),
        commits: 3,
        miner: 1,
    }
}

#[test]
fn a_path_key_moves_whole_to_a_new_key_and_the_fold_still_holds() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A ring of 2 evicts into base, so base rows move too.
    let mut s = store(&dir, 2);
    for (ws, followed) in [
        ("path", false),
        ("other", true),
        ("path", true),
        ("path", false),
    ] {
        resolved_in(&mut s, ws, followed);
    }
    let mut open = decision("Plan");
    open.workspace = "path".into();
    let open_seq = s.record_pending(open).expect("pending");
    s.put_mined_pack("path", mined()).expect("mined");
    let before = rows_of(&s, "path");
    let others = rows_of(&s, "other");
    assert!(!s.base_rows().expect("base").is_empty());

    let moved = s.rekey_workspace("path", "repo").expect("rekey");
    assert_eq!(
        moved,
        Rekeyed {
            rates: 2,
            merged: 0,
            base: 2,
            history: 2,
            pending: 1,
            mined: true
        }
    );
    assert_eq!(rows_of(&s, "repo"), before, "the rows are the same bits");
    assert!(rows_of(&s, "path").is_empty());
    assert_eq!(
        rows_of(&s, "other"),
        others,
        "other workspaces are untouched"
    );
    assert!(check_fold(&s).expect("fold").is_clean());
    let history = s.history().expect("history");
    assert!(history.iter().all(|e| e.decision.workspace == "repo"));
    assert!(
        history
            .iter()
            .flat_map(|e| &e.moves)
            .all(|m| m.key.workspace == "repo")
    );
    let pending = s.pending().expect("pending");
    assert_eq!(pending.len(), 1);
    assert_eq!(
        (pending[0].seq, pending[0].workspace.as_str()),
        (open_seq, "repo")
    );
    assert_eq!(s.mined_pack("repo").expect("mined"), Some(mined()));
    assert_eq!(s.mined_pack("path").expect("mined"), None);

    // The pending note resolves under its new key; a second move finds nothing to move.
    let mut moves = vec![mv("Plan", "A.md", 0.1)];
    moves[0].key.workspace = "repo".into();
    s.resolve(accept(open_seq, "A.md", moves)).expect("resolve");
    assert!(check_fold(&s).expect("fold").is_clean());
    let marks = s.committed();
    assert_eq!(
        s.rekey_workspace("path", "repo").expect("again"),
        Rekeyed::default()
    );
    assert_eq!(s.committed(), marks);
    s.close().expect("close");
}

#[test]
fn two_keys_that_learned_the_same_rows_fold_them_again_in_history_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = store(&dir, 1000);
    // Interleaved: the merged row is neither workspace's row, nor their sum, but the fold of
    // all four notes in the order they were resolved.
    for (ws, followed) in [
        ("repo", true),
        ("path", false),
        ("repo", false),
        ("path", true),
    ] {
        resolved_in(&mut s, ws, followed);
    }
    let moved = s.rekey_workspace("path", "repo").expect("rekey");
    assert_eq!((moved.rates, moved.merged, moved.history), (2, 2, 2));
    assert!(check_fold(&s).expect("fold").is_clean());
    let row = s
        .rate_rows()
        .expect("rows")
        .into_iter()
        .find(|(k, _)| *k == RateKey::companion("repo", "Plan", "A.md"))
        .expect("the merged row")
        .1;
    assert_eq!((row.accepts, row.rejects), (2, 2));
    assert!(rows_of(&s, "path").is_empty());
    s.close().expect("close");
}

#[test]
fn rows_that_cannot_be_added_up_exactly_stay_where_they_are() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = store(&dir, 2);
    for (ws, followed) in [
        ("repo", true),
        ("repo", false),
        ("path", false),
        ("path", true),
    ] {
        resolved_in(&mut s, ws, followed);
    }
    // The ring of 2 folded repo's moves into base: its rows and path's cannot be merged.
    let rows = s.rate_rows().expect("rows");
    let history = s.history().expect("history");
    let err = s.rekey_workspace("path", "repo").expect_err("refused");
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
    let text = err.to_string();
    assert!(
        text.contains("\"path\"") && text.contains("base row"),
        "{text}"
    );
    assert_eq!(s.rate_rows().expect("rows"), rows, "nothing moved");
    assert_eq!(s.history().expect("history"), history);
    assert!(check_fold(&s).expect("fold").is_clean());
    // Keys that are nobody's move nothing and write nothing.
    assert_eq!(
        s.rekey_workspace("nobody", "repo").expect("nothing"),
        Rekeyed::default()
    );
    assert_eq!(
        s.rekey_workspace("repo", "repo").expect("nothing"),
        Rekeyed::default()
    );
    s.close().expect("close");
}
