//! Any interleaving of learning, exports, copies of a store file, restores of an older copy
//! and imports: the fleet's merge counts every exported observation once — never one lost,
//! never one twice — and a store that imports holds the fleet's counts plus what it has not
//! exported, against a model that knows every observation. Every merge is made twice, by the
//! day (continuing the last merge's state) and of everything at once: the same bytes. At the
//! end, once every machine exported and imported, every store holds the fleet's counts.

use docsuggest_fleet::export::{ExportOptions, export};
use docsuggest_fleet::merge::{DEFAULT_MEMORY_LIMIT, MergeOptions, merge};
use docsuggest_fleet::seed::{SeedOptions, read_rates, seed};
use docsuggest_schema::{DecisionStore, RateEvent, RateKey, RateModel, RateMove, StoreContents};
use docsuggest_store::testkit::{decision, reject};
use docsuggest_store::{RedbStore, StoreOptions, check_fold};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const MACHINES: usize = 3;

#[derive(Clone, Debug)]
enum Op {
    /// Machine resolves this many new observations.
    Learn(usize, u8),
    Export(usize),
    /// The store file of the first machine copied over the second's.
    Copy(usize, usize),
    Backup(usize),
    /// The machine's last backup restored over its store.
    Restore(usize),
    /// Every export merged, and the machine imports the result.
    Import(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let m = 0..MACHINES;
    prop_oneof![
        3 => (m.clone(), 1..6u8).prop_map(|(m, n)| Op::Learn(m, n)),
        2 => m.clone().prop_map(Op::Export),
        1 => (m.clone(), m.clone()).prop_map(|(a, b)| Op::Copy(a, b)),
        1 => m.clone().prop_map(Op::Backup),
        1 => m.clone().prop_map(Op::Restore),
        1 => m.prop_map(Op::Import),
    ]
}

/// Per key, (accepts, rejects).
type Counts = BTreeMap<RateKey, [u64; 2]>;

/// What a store file holds, as the model knows it: the fleet's counts it was seeded with, its
/// history's observations in order, and how many of them it exported.
#[derive(Clone, Debug, Default)]
struct File {
    base: Counts,
    entries: Vec<u64>,
    exported: usize,
}

/// The moves of observation `id`: one or two rows, accept or reject, by the id.
fn moves(id: u64) -> Vec<RateMove> {
    (0..1 + id % 2)
        .map(|j| RateMove {
            key: RateKey::companion("ws", "Plan", &format!("c{}", (id + j) % 3)),
            event: if (id / 2 + j).is_multiple_of(3) {
                RateEvent::Accept
            } else {
                RateEvent::Reject
            },
            step: 0.05,
        })
        .collect()
}

fn add(counts: &mut Counts, id: u64) {
    for mv in moves(id) {
        let slot = usize::from(mv.event == RateEvent::Reject);
        counts.entry(mv.key).or_default()[slot] += 1;
    }
}

fn counts_of(ids: impl IntoIterator<Item = u64>) -> Counts {
    let mut counts = Counts::new();
    for id in ids {
        add(&mut counts, id);
    }
    counts
}

fn live_counts(store: &Path) -> Counts {
    let s = RedbStore::open(StoreOptions::new(store)).expect("opens");
    assert!(
        check_fold(&s).expect("check").is_clean(),
        "live == fold(base, history)"
    );
    s.rate_rows()
        .expect("rows")
        .into_iter()
        .map(|(key, r)| (key, [r.accepts, r.rejects]))
        .filter(|(_, c)| c.iter().any(|&n| n > 0))
        .collect()
}

struct Fleet {
    dir: tempfile::TempDir,
    files: Vec<File>,
    backups: Vec<Option<File>>,
    /// Every observation some export carried.
    exported: BTreeSet<u64>,
    next_id: u64,
}

impl Fleet {
    fn store(&self, m: usize) -> PathBuf {
        self.dir.path().join(format!("machine{m}.redb"))
    }

    fn backup(&self, m: usize) -> PathBuf {
        self.dir.path().join(format!("machine{m}.backup"))
    }

    fn exports(&self) -> PathBuf {
        self.dir.path().join("exports")
    }

    fn learn(&mut self, m: usize, n: u8) {
        let mut store = RedbStore::open(StoreOptions::new(self.store(m))).expect("opens");
        for _ in 0..n {
            let id = self.next_id;
            self.next_id += 1;
            let seq = store.record_pending(decision("Plan")).expect("record");
            store.resolve(reject(seq, moves(id))).expect("resolve");
            self.files[m].entries.push(id);
        }
        store.flush().expect("flush");
    }

    fn export(&mut self, m: usize) {
        let out = self.exports().join(format!("machine{m}"));
        export(&ExportOptions {
            store: Some(self.store(m)),
            out,
            since: None,
        })
        .expect("export");
        let file = &mut self.files[m];
        self.exported.extend(&file.entries[file.exported..]);
        file.exported = file.entries.len();
    }

    /// Merges every export; the merged counts must be every exported observation's, once.
    fn merge(&self) -> Option<PathBuf> {
        if !self.exports().exists() {
            return None;
        }
        // By the day: each merge continues the last one's state, and gives the bytes of a
        // merge of everything.
        let out = self.dir.path().join("fleet.parquet");
        let full = self.dir.path().join("full.parquet");
        for (file, state) in [
            (&out, Some(self.dir.path().join("state.parquet"))),
            (&full, None),
        ] {
            merge(&MergeOptions {
                inputs: vec![self.exports()],
                out: file.clone(),
                model: RateModel::Evidence,
                memory_limit: DEFAULT_MEMORY_LIMIT,
                state,
            })
            .expect("merge");
        }
        assert_eq!(
            std::fs::read(&out).expect("rates"),
            std::fs::read(&full).expect("rates"),
            "a merge by the day makes the rows of a merge of everything"
        );
        let merged: Counts = read_rates(&out)
            .expect("reads")
            .rows
            .into_iter()
            .map(|(key, r)| (key, [r.accepts, r.rejects]))
            .filter(|(_, c)| c.iter().any(|&n| n > 0))
            .collect();
        assert_eq!(
            merged,
            counts_of(self.exported.iter().copied()),
            "the merge counts every exported observation once"
        );
        Some(out)
    }

    fn import(&mut self, m: usize) {
        let Some(rates) = self.merge() else {
            return;
        };
        if self.files[m].entries.is_empty() && self.files[m].base.is_empty() {
            // A store that holds nothing of the workspace has nothing to seed.
            return;
        }
        seed(&SeedOptions {
            rates,
            store: Some(self.store(m)),
            workspaces: Vec::new(),
            model: RateModel::Evidence,
        })
        .expect("import");
        // Its exported entries are the fleet's now; what it has not exported stays.
        let file = &mut self.files[m];
        file.base = counts_of(self.exported.iter().copied());
        file.entries.drain(..file.exported);
        file.exported = 0;
        self.check(m);
    }

    /// The store holds its base and its history's observations.
    fn check(&self, m: usize) {
        let file = &self.files[m];
        let mut expected = file.base.clone();
        for &id in &file.entries {
            add(&mut expected, id);
        }
        assert_eq!(live_counts(&self.store(m)), expected, "machine {m}");
    }

    fn apply(&mut self, op: &Op) {
        match *op {
            Op::Learn(m, n) => self.learn(m, n),
            Op::Export(m) => self.export(m),
            Op::Copy(a, b) if a != b => {
                std::fs::copy(self.store(a), self.store(b)).expect("copy");
                self.files[b] = self.files[a].clone();
            }
            Op::Copy(..) => {}
            Op::Backup(m) => {
                std::fs::copy(self.store(m), self.backup(m)).expect("back up");
                self.backups[m] = Some(self.files[m].clone());
            }
            Op::Restore(m) => {
                if let Some(backup) = self.backups[m].clone() {
                    std::fs::copy(self.backup(m), self.store(m)).expect("restore");
                    self.files[m] = backup;
                }
            }
            Op::Import(m) => self.import(m),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn copies_restores_and_imports_lose_no_observation_and_count_none_twice(
        ops in prop::collection::vec(op(), 1..32)
    ) {
        let mut fleet = Fleet {
            dir: tempfile::tempdir().expect("tempdir"),
            files: vec![File::default(); MACHINES],
            backups: vec![None; MACHINES],
            exported: BTreeSet::new(),
            next_id: 0,
        };
        for m in 0..MACHINES {
            // Every machine's store exists and learned something.
            fleet.learn(m, 1);
        }
        for op in &ops {
            fleet.apply(op);
        }
        // Everyone exports, then everyone imports one merge: every store holds the fleet's
        // counts, which are every exported observation's.
        for m in 0..MACHINES {
            fleet.export(m);
        }
        for m in 0..MACHINES {
            fleet.import(m);
            prop_assert_eq!(
                live_counts(&fleet.store(m)),
                counts_of(fleet.exported.iter().copied())
            );
        }
    }
}
