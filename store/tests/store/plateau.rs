//! With a bounded ring and group durability, the file stops growing: redb reuses the pages
//! that evicted history and rewritten rows free, even between fsynced commits.
//!
//! The fsynced commits come from an explicit `flush` every 10 000 records (about one per
//! second at debug-build speed) rather than from the clock, so the file's history — and this
//! test — is the same on every run: redb grows a file by doubling, and a time-based cadence
//! decides only *when* the one early doubling happens.

use crate::common::{decision, resolution, silence};
use docsuggest_schema::{DecisionStore, Durability, Outcome};
use docsuggest_store::{RedbStore, StoreOptions};
use std::time::{Duration, Instant};

fn size(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).expect("metadata").len()
}

#[test]
fn file_size_plateaus_under_group_durability() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("plateau.redb");
    let mut store = RedbStore::open(StoreOptions {
        durability: Durability::Group,
        flush_interval: Duration::from_secs(3600),
        ring_capacity: 64,
        ..StoreOptions::new(&path)
    })
    .expect("open");
    // Half silences, half notes resolved (a third accepted): 200k records, 200k commits (a
    // note's pending record waits for its resolution's commit).
    let total: u64 = 200_000;
    let started = Instant::now();
    let mut sizes = Vec::new();
    for i in 0..total {
        if i % 2 == 0 {
            store.record_silent(silence("Plan")).expect("silent");
        } else {
            let mut d = decision("Scheme");
            d.seq = store.record_pending(d.clone()).expect("pending");
            let r = if i % 3 == 0 {
                resolution(&d, Outcome::Accepted, Some("README.md"))
            } else {
                resolution(&d, Outcome::Rejected, None)
            };
            store.resolve(r).expect("resolve");
        }
        if (i + 1) % 10_000 == 0 {
            store.flush().expect("flush");
        }
        if (i + 1) % (total / 4) == 0 {
            sizes.push(size(&path));
        }
    }
    store.flush().expect("flush");
    let end = size(&path);
    eprintln!(
        "plateau: {total} records in {:.1?}; size at each quarter {sizes:?} B, after flush {end} B",
        started.elapsed()
    );
    assert_eq!(store.ring_len().expect("ring"), 64);
    let middle = sizes[1];
    assert!(
        end * 5 <= middle * 6,
        "file grew from {middle} to {end} bytes"
    );
    assert!(
        sizes[3] * 5 <= middle * 6,
        "file grew from {middle} to {} bytes",
        sizes[3]
    );
}
