//! Pre-filling a store with rate rows through its own write API.
//!
//! The store traits have no bulk-load operation, so a fill goes the way the engine writes:
//! a pending decision is recorded and resolved with many moves, one write transaction per
//! resolution. Each move creates one rate row, so the live rows, the history and
//! `live == fold(base, history)` are exactly what a long-lived store would hold.
//!
//! Keys: the *hot set* is the keys the judged calls read (the sample workspace's Plan family
//! row and its four companions); the *other* keys belong to other workspaces, each with the
//! built-in pack's 30 family and companion rows.

use docsuggest_schema::{
    Decision, DecisionStore, Outcome, Pack, RateEvent, RateKey, RateMove, Resolution, StoreError,
};
use docsuggest_store::testkit;
use std::time::{Duration, Instant};

/// Moves per resolution (per write transaction) in a fill.
pub const BATCH: usize = 10_000;

/// The keys a judged Plan call in workspace `ws` reads: the family row, then its companions.
pub fn hot_keys(ws: &str) -> Vec<RateKey> {
    let pack = Pack::builtin();
    let plan = pack
        .families
        .iter()
        .find(|f| f.name == "Plan")
        .expect("the built-in pack has a Plan family");
    std::iter::once(RateKey::family(ws, "Plan"))
        .chain(
            plan.companions
                .iter()
                .map(|c| RateKey::companion(ws, "Plan", &c.path)),
        )
        .collect()
}

/// The other keys, in a fixed order: key `i` of `n`.
pub struct OtherKeys {
    /// (family, companion) pairs of one workspace, family rows first.
    slots: Vec<(String, String)>,
}

impl Default for OtherKeys {
    fn default() -> Self {
        let pack = Pack::builtin();
        let mut slots = Vec::new();
        for family in &pack.families {
            slots.push((family.name.clone(), String::new()));
            for c in &family.companions {
                slots.push((family.name.clone(), c.path.clone()));
            }
        }
        OtherKeys { slots }
    }
}

impl OtherKeys {
    /// Rows per other workspace.
    pub fn per_workspace(&self) -> usize {
        self.slots.len()
    }

    /// Key number `i`.
    pub fn key(&self, i: u64) -> RateKey {
        let per = self.slots.len() as u64;
        let w = i / per;
        let (family, companion) = &self.slots[(i % per) as usize];
        RateKey::companion(
            &format!("repo{w:06}-{:08x}", mix(w) as u32),
            family,
            companion,
        )
    }
}

/// A fixed mixing of `x` into 64 well-spread bits (foldhash with a fixed seed): key names
/// and samples drawn by index, so decision `i` is the same on every run without a stream.
pub fn mix(x: u64) -> u64 {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0x5eed_d0c5).hash_one(x)
}

/// `count` keys drawn uniformly (with a fixed seed) from the `n` other keys: the random set.
pub fn random_keys(n: u64, count: usize) -> Vec<RateKey> {
    let others = OtherKeys::default();
    (0..count as u64)
        .map(|i| others.key(mix(i ^ 0x5eed) % n.max(1)))
        .collect()
}

/// What a fill did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FillReport {
    /// Rate rows written (the hot set plus the other keys).
    pub rows: u64,
    /// Write transactions used: a record and a resolution per batch.
    pub transactions: u64,
    /// Wall-clock time of the fill, flush included.
    pub elapsed: Duration,
}

/// The decision a fill records: a Plan decision in `workspace` by agent `fill` at kappa 0.9,
/// naming no companion.
fn decision(workspace: &str) -> Decision {
    Decision {
        workspace: workspace.into(),
        agent: "fill".into(),
        kappa: 0.9,
        ..testkit::decision("Plan")
    }
}

/// Records one decision and resolves it with `moves`: one accept (`step > 0`) or one reject.
fn resolve_batch(
    store: &mut dyn DecisionStore,
    moves: Vec<RateMove>,
    accept: bool,
) -> Result<(), StoreError> {
    let workspace = moves
        .first()
        .map(|m| m.key.workspace.clone())
        .unwrap_or_default();
    let seq = store.record_pending(decision(&workspace))?;
    let (outcome, accepted) = if accept {
        let companion = moves
            .iter()
            .map(|m| m.key.companion.clone())
            .find(|c| !c.is_empty())
            .unwrap_or_default();
        (Outcome::Accepted, Some(companion))
    } else {
        (Outcome::Rejected, None)
    };
    store.resolve(Resolution {
        decision_seq: seq,
        outcome,
        accepted,
        moves,
    })
}

/// Fills `store` with the hot set of workspace `ws` (each row moved up once, so the judged
/// Plan note stays above the default gate) and `n` other keys, in resolutions of [`BATCH`]
/// moves, then flushes.
pub fn fill(store: &mut dyn DecisionStore, ws: &str, n: u64) -> Result<FillReport, StoreError> {
    let start = Instant::now();
    let mut transactions = 0;
    let hot: Vec<RateMove> = hot_keys(ws)
        .into_iter()
        .map(|key| RateMove {
            key,
            event: RateEvent::Accept,
            step: 0.1,
        })
        .collect();
    let rows = hot.len() as u64 + n;
    resolve_batch(store, hot, true)?;
    transactions += 1;
    let others = OtherKeys::default();
    let mut i = 0;
    while i < n {
        let end = (i + BATCH as u64).min(n);
        // Alternate accepts and rejects so rows hold different values.
        let accept = transactions % 2 == 0;
        let (event, step) = if accept {
            (RateEvent::Accept, 0.1)
        } else {
            (RateEvent::Reject, -0.2)
        };
        let moves = (i..end)
            .map(|k| RateMove {
                key: others.key(k),
                event,
                step,
            })
            .collect();
        resolve_batch(store, moves, accept)?;
        transactions += 1;
        i = end;
    }
    store.flush()?;
    Ok(FillReport {
        rows,
        transactions: transactions * 2,
        elapsed: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::StoreContents;
    use docsuggest_store::{MemoryStore, RedbStore, StoreOptions, check_fold};

    fn check(contents: &dyn StoreContents, n: u64) {
        let rows = contents.rate_rows().expect("rows");
        assert_eq!(rows.len() as u64, n + 5);
        assert!(check_fold(contents).expect("fold").is_clean());
        let hot = hot_keys("poc-00000001");
        for key in &hot {
            let (_, row) = rows.iter().find(|(k, _)| k == key).expect("a hot row");
            assert_eq!((row.accepts, row.rejects), (1, 0), "{key:?}");
        }
    }

    #[test]
    fn fills_every_key_through_resolutions() {
        let n = 2 * BATCH as u64 + 7;
        let mut memory = MemoryStore::new(100_000);
        let report = fill(&mut memory, "poc-00000001", n).expect("fill");
        assert_eq!((report.rows, report.transactions), (n + 5, 8));
        check(&memory, n);
        let dir = tempfile::tempdir().expect("tempdir");
        let mut redb = RedbStore::open(StoreOptions::new(dir.path().join("s.redb"))).expect("open");
        fill(&mut redb, "poc-00000001", n).expect("fill");
        check(&redb, n);
    }

    #[test]
    fn keys_are_distinct_and_random_keys_stay_in_range() {
        let others = OtherKeys::default();
        assert_eq!(others.per_workspace(), 30);
        let keys: std::collections::BTreeSet<RateKey> = (0..300).map(|i| others.key(i)).collect();
        assert_eq!(keys.len(), 300);
        let in_range: std::collections::BTreeSet<RateKey> =
            (0..60).map(|i| others.key(i)).collect();
        assert!(random_keys(60, 500).iter().all(|k| in_range.contains(k)));
    }
}
