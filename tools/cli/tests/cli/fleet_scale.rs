//! A fleet's years of exports: the merge reads any number of files within a fixed number of
//! descriptors (docs/FLEET.md, "Merge").

use crate::backtest::small_history;
use crate::common::Env;
use crate::fleet::{merge, parquet_export, path, session};
use docsuggest_fleet::seed::read_rates;
use std::path::Path;

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("dir");
    for entry in std::fs::read_dir(from).expect("read") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

#[test]
fn a_thousand_export_files_merge_within_a_hundred_descriptors() {
    let env = Env::new();
    let clone = env.home().join("repo");
    small_history(&clone);
    let store = env.home().join("s.redb");
    env.ok(
        &["serve", "--store", path(&store)],
        session(&clone, "agent", 8, 2).as_bytes(),
    );
    let exports = env.home().join("exports");
    parquet_export(&env, &store, &exports.join("0"));
    let one = env.home().join("one.parquet");
    assert!(merge(&env, &[&exports.join("0")], &one).status.success());
    // The same export a thousand times over (a merge counts each move once): a thousand
    // moves files, read under a limit of 100 open descriptors.
    for n in 1..1000 {
        copy_tree(&exports.join("0"), &exports.join(n.to_string()));
    }
    let all = env.home().join("all.parquet");
    let limited = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 100 && exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_docsuggest"))
        .args(["fleet", "merge", path(&exports), "--out", path(&all)])
        .args(["--memory-mib", "512", "--json"])
        .env("HOME", env.home())
        .output()
        .expect("sh runs");
    assert!(
        limited.status.success(),
        "{}",
        String::from_utf8_lossy(&limited.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&limited.stdout).expect("a report");
    assert_eq!(report["files"], 1000, "{report}");
    assert_eq!(
        read_rates(&all).expect("reads"),
        read_rates(&one).expect("reads"),
        "the rows of one copy"
    );
}

#[test]
fn a_merge_by_the_day_reads_only_the_new_exports_and_gives_the_bytes_of_a_merge_of_everything() {
    let env = Env::new();
    let clone = env.home().join("repo");
    small_history(&clone);
    let store = env.home().join("s.redb");
    let exports = env.home().join("exports");
    let (state, daily) = (
        env.home().join("state.parquet"),
        env.home().join("daily.parquet"),
    );
    let by_day = |dir: &Path| -> serde_json::Value {
        let out = env.ok(
            &[
                "fleet",
                "merge",
                path(dir),
                "--out",
                path(&daily),
                "--state",
                path(&state),
                "--json",
            ],
            b"",
        );
        serde_json::from_str(&out).expect("a report")
    };
    let mut moves = 0;
    for (day, (rounds, every)) in [(8, 2), (5, 1), (6, 3)].into_iter().enumerate() {
        env.ok(
            &["serve", "--store", path(&store)],
            session(&clone, "agent", rounds, every).as_bytes(),
        );
        let dir = exports.join(format!("day{day}"));
        parquet_export(&env, &store, &dir);
        // Each day's merge is given every export so far: what was merged is left unread.
        let report = by_day(&exports);
        assert_eq!(
            (report["files"].as_u64(), report["read"].as_u64()),
            (Some(day as u64 + 1), Some(1)),
            "{report}"
        );
        moves += report["moves"].as_u64().expect("moves");
    }
    let full = env.home().join("full.parquet");
    let everything = merge(&env, &[&exports], &full);
    assert!(everything.status.success());
    assert_eq!(
        std::fs::read(&daily).expect("rates"),
        std::fs::read(&full).expect("rates"),
        "the same bytes"
    );
    let report: serde_json::Value = serde_json::from_str(&env.ok(
        &[
            "fleet",
            "merge",
            path(&exports),
            "--out",
            path(&full),
            "--json",
        ],
        b"",
    ))
    .expect("a report");
    assert_eq!(
        report["moves"].as_u64(),
        Some(moves),
        "each move folded once"
    );
}
