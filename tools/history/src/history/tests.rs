//! The history's unit tests: trees nested past the depth bound.

use super::*;
use crate::testkit;

/// A repository of no commit holding a tree that nests a file `levels` directories deep.
fn nested(dir: &Path, levels: usize) -> ObjectId {
    testkit::deep_tree(&gix::init(dir).expect("init"), levels)
}

#[test]
fn a_tree_twenty_thousand_levels_deep_is_refused_not_a_stack_overflow() {
    let dir = tempfile::tempdir().expect("temp dir");
    let root = nested(dir.path(), 20_000);
    let repo = gix::open(dir.path()).expect("open");
    let err = changes(&repo, root, None, 40).err().expect("refused");
    assert!(err.to_string().contains("nested more than 512"), "{err}");
    let mut out = Vec::new();
    let err = list(&repo, root, "", &mut out).expect_err("refused");
    assert!(err.to_string().contains("nested more than 512"), "{err}");
    // Within the cap the file is found.
    let shallow = tempfile::tempdir().expect("temp dir");
    let root = nested(shallow.path(), 100);
    let repo = gix::open(shallow.path()).expect("open");
    let diff = changes(&repo, root, None, 40).expect("read");
    assert_eq!(diff.files.len(), 1);
    assert!(diff.files[0].1.ends_with("d/f.txt"));
}
