//! Both validation schemes must pass every test: a change between two calls is seen.

use super::*;

fn age(dir: &Path, secs: u64) {
    let old = SystemTime::now() - Duration::from_secs(secs);
    let f = std::fs::File::open(dir).expect("open the directory");
    f.set_modified(old).expect("set the directory's mtime");
}

/// Runs `test` with a fresh stamped probe and a fresh watching probe.
fn both(test: impl Fn(CachingProbe, &str)) {
    test(CachingProbe::stamped(), "stamped");
    test(CachingProbe::new(), "watching");
}

fn is_watched(probe: &CachingProbe, dir: &Path) -> bool {
    probe
        .dirs
        .borrow()
        .get(dir.as_os_str())
        .is_some_and(|l| l.watched)
}

#[test]
fn creations_and_removals_are_seen_on_the_next_call() {
    both(|probe, mode| {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.md");
        for settle_first in [false, true] {
            if settle_first {
                age(dir.path(), 60);
            }
            probe.begin_call();
            assert_eq!(probe.kind(&file), None, "{mode}");
            std::fs::write(&file, "").expect("write");
            probe.begin_call();
            assert_eq!(
                probe.kind(&file),
                Some(EntryKind::File),
                "{mode} {settle_first}"
            );
            if settle_first {
                age(dir.path(), 60);
                probe.begin_call();
                assert_eq!(probe.kind(&file), Some(EntryKind::File), "{mode}");
            }
            std::fs::remove_file(&file).expect("remove");
            probe.begin_call();
            assert_eq!(probe.kind(&file), None, "{mode} {settle_first}");
        }
    });
}

#[test]
fn a_settled_listing_is_reused_until_the_directory_changes() {
    both(|probe, mode| {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.md"), "").expect("write");
        age(dir.path(), 60);
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("a.md")), Some(EntryKind::File));
        // The listing is kept; only a change of the directory re-reads it.
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("b.md")), None, "{mode}");
        std::fs::create_dir(dir.path().join("b.md")).expect("mkdir");
        probe.begin_call();
        assert_eq!(
            probe.kind(&dir.path().join("b.md")),
            Some(EntryKind::Dir),
            "{mode}"
        );
        assert_eq!(probe.subdirectories(dir.path()), [PathBuf::from("b.md")]);
    });
}

#[test]
fn lookups_under_absent_directories_see_them_appear() {
    both(|probe, mode| {
        let dir = tempfile::tempdir().expect("tempdir");
        age(dir.path(), 60);
        let pack = dir.path().join(".dsh/doc-pack.json");
        let deep = dir.path().join("a/b/c.md");
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("x")), None);
        assert_eq!(probe.kind(&pack), None);
        assert_eq!(probe.kind(&deep), None);
        std::fs::create_dir_all(dir.path().join(".dsh")).expect("mkdir");
        std::fs::write(&pack, "{}").expect("write");
        std::fs::create_dir_all(dir.path().join("a/b")).expect("mkdir");
        std::fs::write(&deep, "").expect("write");
        probe.begin_call();
        assert_eq!(probe.kind(&pack), Some(EntryKind::File), "{mode}");
        assert_eq!(probe.kind(&deep), Some(EntryKind::File), "{mode}");
        std::fs::remove_dir_all(dir.path().join(".dsh")).expect("rm");
        probe.begin_call();
        assert_eq!(probe.kind(&pack), None, "{mode}");
    });
}

#[test]
fn crowded_directories_are_asked_directly() {
    both(|probe, mode| {
        let dir = tempfile::tempdir().expect("tempdir");
        for i in 0..=MAX_ENTRIES {
            std::fs::write(dir.path().join(format!("f{i}")), "").expect("write");
        }
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("f7")), Some(EntryKind::File));
        assert!(!probe.dirs.borrow().contains_key(dir.path().as_os_str()));
        assert!(probe.too_big.borrow().contains(dir.path().as_os_str()));
        std::fs::remove_file(dir.path().join("f7")).expect("rm");
        probe.begin_call();
        assert_eq!(probe.kind(&dir.path().join("f7")), None, "{mode}");
    });
}

#[cfg(unix)]
#[test]
fn symlinks_are_resolved_on_every_call() {
    both(|probe, mode| {
        let root = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(root.path().join("in.md"), "").expect("write");
        std::fs::write(outside.path().join("out.md"), "").expect("write");
        let link = root.path().join("link.md");
        std::os::unix::fs::symlink(root.path().join("in.md"), &link).expect("symlink");
        age(root.path(), 60);
        let real_root = RealRoot::default();
        probe.begin_call();
        assert!(
            probe.resolves_within(&link, root.path(), &real_root),
            "{mode}"
        );
        // Retarget the link out of the root, then restore the directory's old mtime: the
        // directory's listing is unchanged, the link must still be followed afresh.
        std::fs::remove_file(&link).expect("unlink");
        std::os::unix::fs::symlink(outside.path().join("out.md"), &link).expect("symlink");
        age(root.path(), 60);
        probe.begin_call();
        assert!(
            !probe.resolves_within(&link, root.path(), &real_root),
            "{mode}"
        );
        let inside = root.path().join("in.md");
        assert!(probe.resolves_within(&inside, root.path(), &real_root));
        let absent = root.path().join("none.md");
        assert!(!probe.resolves_within(&absent, root.path(), &real_root));
    });
}

#[test]
fn a_renamed_ancestor_is_seen() {
    both(|probe, mode| {
        let root = tempfile::tempdir().expect("tempdir");
        let deep = root.path().join("a/b");
        std::fs::create_dir_all(&deep).expect("mkdir");
        std::fs::write(deep.join("old.md"), "").expect("write");
        age(&deep, 60);
        probe.begin_call();
        assert_eq!(probe.kind(&deep.join("old.md")), Some(EntryKind::File));
        assert_eq!(probe.kind(&deep.join("new.md")), None);
        // `a/b` now names another directory; the listed one lives on under `c/b`.
        std::fs::rename(root.path().join("a"), root.path().join("c")).expect("rename");
        std::fs::create_dir_all(&deep).expect("mkdir");
        std::fs::write(deep.join("new.md"), "").expect("write");
        age(&deep, 60);
        probe.begin_call();
        assert_eq!(probe.kind(&deep.join("old.md")), None, "{mode}");
        assert_eq!(
            probe.kind(&deep.join("new.md")),
            Some(EntryKind::File),
            "{mode}"
        );
        let moved = root.path().join("c/b/old.md");
        assert_eq!(probe.kind(&moved), Some(EntryKind::File), "{mode}");
    });
}

#[test]
fn a_directory_replaced_by_a_file_is_seen() {
    both(|probe, mode| {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path().join("d");
        std::fs::create_dir(&dir).expect("mkdir");
        std::fs::write(dir.join("x.md"), "").expect("write");
        probe.begin_call();
        assert_eq!(probe.kind(&dir.join("x.md")), Some(EntryKind::File));
        std::fs::remove_dir_all(&dir).expect("rm");
        std::fs::write(&dir, "").expect("write");
        probe.begin_call();
        assert_eq!(probe.kind(&dir.join("x.md")), None, "{mode}");
        assert_eq!(probe.kind(&dir), Some(EntryKind::File), "{mode}");
    });
}

/// What the stamp cannot see — a change whose directory keeps its old mtime — the watch does.
#[cfg(target_os = "linux")]
#[test]
fn a_watched_listing_sees_changes_that_keep_the_mtime() {
    let dir = tempfile::tempdir().expect("tempdir");
    age(dir.path(), 60);
    let probe = CachingProbe::new();
    assert!(probe.is_watching());
    probe.begin_call();
    assert_eq!(probe.kind(&dir.path().join("a.md")), None);
    assert!(
        is_watched(&probe, dir.path()),
        "a local, symlink-free directory is watched"
    );
    let before = std::fs::metadata(dir.path()).expect("stat").modified().ok();
    std::fs::write(dir.path().join("a.md"), "").expect("write");
    if let Some(before) = before {
        let f = std::fs::File::open(dir.path()).expect("open the directory");
        f.set_modified(before).expect("restore the mtime");
    }
    probe.begin_call();
    assert_eq!(probe.kind(&dir.path().join("a.md")), Some(EntryKind::File));
}

#[cfg(target_os = "linux")]
#[test]
fn watched_listings_are_kept_while_nothing_changes() {
    let root = tempfile::tempdir().expect("tempdir");
    let sub = root.path().join("a/sub");
    std::fs::create_dir_all(&sub).expect("mkdir");
    let probe = CachingProbe::new();
    probe.begin_call();
    assert_eq!(probe.kind(&sub.join("x")), None);
    assert!(is_watched(&probe, &sub));
    // Changes in watched ancestors under names no listing leads through keep them.
    std::fs::write(root.path().join("unrelated"), "").expect("write");
    let _elsewhere = tempfile::tempdir_in(std::env::temp_dir()).expect("tempdir");
    probe.begin_call();
    assert!(is_watched(&probe, &sub));
    std::fs::write(sub.join("x"), "").expect("write");
    probe.begin_call();
    assert_eq!(probe.kind(&sub.join("x")), Some(EntryKind::File));
}

#[cfg(unix)]
#[test]
fn a_path_through_a_symlink_is_not_watched_and_still_fresh() {
    let root = tempfile::tempdir().expect("tempdir");
    let real = root.path().join("real");
    std::fs::create_dir(&real).expect("mkdir");
    let link = root.path().join("link");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    let probe = CachingProbe::new();
    probe.begin_call();
    assert_eq!(probe.subdirectories(&link), Vec::<PathBuf>::new());
    assert!(
        !is_watched(&probe, &link),
        "a symlinked path is validated by its stamp"
    );
    std::fs::create_dir(real.join("s")).expect("mkdir");
    probe.begin_call();
    assert_eq!(probe.subdirectories(&link), [PathBuf::from("s")]);
}
