//! Schema versions of a store file and the steps that upgrade an older file.
//!
//! The version lives in `meta.schema_version`. Opening a file of an older version copies it
//! aside (`<path>.v<old>.bak`), then runs every step from its version up to
//! [`SCHEMA_VERSION`] and writes the new version, all in one write transaction: an upgrade
//! that fails leaves the file as it was. A newer version is refused.
//!
//! Version 1 is the first released schema; version 2 added the evidence model's shadow counts
//! to rate rows (`upgrade_v2.rs`); version 3 stores each history entry's moves apart from its
//! decision (`upgrade_v3.rs`); version 4 adds the `mined` table of packs mined from a
//! workspace's git history (`upgrade_v4.rs`); version 5 gives rate rows the recent evidence of
//! forgetting, seeded for base rows and replayed for history (`upgrade_v5.rs`). The committed
//! v1 to v4 fixtures are upgraded by the tests.

use crate::crash::{CrashHook, CrashPoint};
use crate::errors::ResultExt;
use crate::tables::{META, MINED, TABLE_NAMES, meta};
use crate::tx::Tx;
use docsuggest_schema::StoreError;
use redb::{Database, Durability, ReadableDatabase, TableHandle, WriteTransaction};
use std::fs;
use std::path::{Path, PathBuf};

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: u32 = 5;

/// One upgrade step, run inside the upgrade's write transaction.
pub struct Step {
    /// The version it upgrades from.
    pub from: u32,
    /// The version it produces.
    pub to: u32,
    /// What it does, for the log.
    pub name: &'static str,
    /// The change; it receives the transaction and the file's path (for errors).
    pub apply: fn(&WriteTransaction, &str) -> Result<(), StoreError>,
}

/// The versions and steps a build knows: [`PLAN`] for this build; tests of the upgrade path
/// (before a second schema version exists) open a store with a plan of their own through
/// [`RedbStore::open_with_plan`](crate::RedbStore::open_with_plan).
pub struct Plan<'a> {
    /// The version the steps lead to.
    pub current: u32,
    /// The steps, in any order.
    pub steps: &'a [Step],
}

/// What this build knows: version 5, reached from version 4, itself reached from version 3,
/// from version 2, from version 1.
pub const PLAN: Plan<'static> = Plan {
    current: SCHEMA_VERSION,
    steps: &[
        Step {
            from: 1,
            to: 2,
            name: "rate rows gain shadow counts; rates rebuilt from history",
            apply: crate::upgrade_v2::apply,
        },
        Step {
            from: 2,
            to: 3,
            name: "history entries' moves stored apart, in the moves table",
            apply: crate::upgrade_v3::apply,
        },
        Step {
            from: 3,
            to: 4,
            name: "the mined table: packs mined from a workspace's git history",
            apply: crate::upgrade_v4::apply,
        },
        Step {
            from: 4,
            to: 5,
            name: "rate rows gain recent evidence (base seeded from counts); rates rebuilt from history",
            apply: crate::upgrade_v5::apply,
        },
    ],
};

impl Plan<'_> {
    /// The steps from `from` to the current version, in order.
    pub(crate) fn chain(&self, path: &str, from: u32) -> Result<Vec<&Step>, StoreError> {
        let mut out = Vec::new();
        let mut at = from;
        while at < self.current {
            let step = self
                .steps
                .iter()
                .find(|s| s.from == at && s.to > at && s.to <= self.current)
                .ok_or_else(|| StoreError::Corrupt {
                    path: path.to_string(),
                    detail: format!(
                        "schema version {from} cannot be upgraded to {}: no step from version {at}",
                        self.current
                    ),
                })?;
            out.push(step);
            at = step.to;
        }
        Ok(out)
    }
}

/// What an opened file holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FileState {
    /// No tables at all: a new (or empty) redb file.
    Fresh,
    /// A store of this schema version.
    Version(u32),
}

/// Reads the schema version; a redb file with foreign tables and no meta is not a store.
pub(crate) fn inspect(db: &impl ReadableDatabase, path: &str) -> Result<FileState, StoreError> {
    let txn = db.begin_read().at(path, "reading the schema version")?;
    let names: Vec<String> = txn
        .list_tables()
        .at(path, "listing tables")?
        .map(|t| t.name().to_string())
        .collect();
    if names.is_empty() {
        return Ok(FileState::Fresh);
    }
    if !names.iter().any(|n| n == META.name()) {
        return Err(StoreError::Corrupt {
            path: path.to_string(),
            detail: format!(
                "not a docsuggest store: it holds tables {} but no meta table (expected {})",
                names.join(", "),
                TABLE_NAMES.join(", ")
            ),
        });
    }
    let table = txn.open_table(META).at(path, "reading meta")?;
    let version = crate::tables::read_meta(path, &table, meta::SCHEMA_VERSION)?;
    let version = u32::try_from(version).map_err(|_| StoreError::Corrupt {
        path: path.to_string(),
        detail: format!("meta schema_version {version} is not a version number"),
    })?;
    Ok(FileState::Version(version))
}

/// Creates the tables and meta of a new store at `version`, durably. In multi-process mode
/// two processes may both find the file fresh; whichever commits second finds the meta
/// written and leaves it alone, so no counter is ever reset.
pub(crate) fn initialise(
    db: &Database,
    path: &str,
    version: u32,
    hook: &CrashHook,
) -> Result<(), StoreError> {
    let txn = immediate_txn(db, path, "creating the store")?;
    {
        let mut tx = Tx::open(&txn, path)?;
        if tx.meta(meta::SCHEMA_VERSION).is_ok() {
            return Ok(());
        }
        txn.open_table(MINED).at(path, "creating the store")?;
        tx.set_meta(meta::SCHEMA_VERSION, u64::from(version))?;
        tx.set_meta(meta::NEXT_DECISION_SEQ, 1)?;
        tx.set_meta(meta::NEXT_RESOLUTION_SEQ, 1)?;
    }
    hook.reached(CrashPoint::MidMigration);
    txn.commit().at(path, "creating the store")
}

/// Runs every step from `from` to the plan's version and records it, in one durable
/// transaction.
pub(crate) fn upgrade(
    db: &Database,
    path: &str,
    plan: &Plan<'_>,
    from: u32,
    hook: &CrashHook,
) -> Result<(), StoreError> {
    let steps = plan.chain(path, from)?;
    let txn = immediate_txn(db, path, "upgrading the schema")?;
    for step in steps {
        tracing::info!(
            path,
            from = step.from,
            to = step.to,
            step = step.name,
            "store migration"
        );
        (step.apply)(&txn, path)?;
    }
    {
        let mut tx = Tx::open(&txn, path)?;
        tx.set_meta(meta::SCHEMA_VERSION, u64::from(plan.current))?;
    }
    hook.reached(CrashPoint::MidMigration);
    txn.commit().at(path, "upgrading the schema")
}

fn immediate_txn(db: &Database, path: &str, doing: &str) -> Result<WriteTransaction, StoreError> {
    let mut txn = db.begin_write().at(path, doing)?;
    txn.set_durability(Durability::Immediate).at(path, doing)?;
    Ok(txn)
}

/// Copies the file aside before an upgrade: `<path>.v<version>.bak`, or with a numeric suffix
/// when that name is taken (an older backup is never overwritten). The copy and its directory
/// entry are fsynced. A store on a backend (see
/// [`StoreOptions::backend`](crate::StoreOptions::backend)) is copied from a new handle on it.
pub(crate) fn backup(
    path: &Path,
    version: u32,
    backend: Option<&crate::options::BackendFactory>,
) -> Result<PathBuf, StoreError> {
    let label = path.display().to_string();
    let io = |doing: &str, source: std::io::Error| StoreError::Io {
        path: label.clone(),
        doing: doing.to_string(),
        source,
    };
    let named = |suffix: String| docsuggest_schema::beside::beside(path, &suffix);
    let mut target = named(format!(".v{version}.bak"));
    let mut n = 2;
    while target.exists() {
        if n > 1000 {
            return Err(io(
                "choosing a backup name",
                std::io::ErrorKind::AlreadyExists.into(),
            ));
        }
        target = named(format!(".v{version}.bak.{n}"));
        n += 1;
    }
    let copying = format!("copying to {}", target.display());
    match backend {
        None => {
            fs::copy(path, &target).map_err(|e| io(&copying, e))?;
        }
        Some(factory) => {
            let bytes = factory
                .open()
                .and_then(|b| {
                    let bytes = crate::file::read_all(b.as_ref());
                    b.close()?;
                    bytes
                })
                .map_err(|e| io(&copying, e))?;
            write_private(&target, &bytes).map_err(|e| io(&copying, e))?;
        }
    }
    fs::File::open(&target)
        .and_then(|f| f.sync_all())
        .and_then(|()| crate::file::sync_parent(&target))
        .map_err(|e| io(&format!("syncing {}", target.display()), e))?;
    Ok(target)
}

/// Writes a new owner-only file (the backup of a store on a backend).
fn write_private(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(target)?.write_all(bytes)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn noop(_: &WriteTransaction, _: &str) -> Result<(), StoreError> {
        Ok(())
    }

    const STEPS: [Step; 3] = [
        Step {
            from: 1,
            to: 2,
            name: "a",
            apply: noop,
        },
        Step {
            from: 2,
            to: 4,
            name: "b",
            apply: noop,
        },
        Step {
            from: 4,
            to: 5,
            name: "c",
            apply: noop,
        },
    ];

    fn check(current: u32, from: u32, expect: &str) {
        let plan = Plan {
            current,
            steps: &STEPS,
        };
        let got = match plan.chain("/s", from) {
            Ok(steps) => steps.iter().map(|s| s.name).collect::<Vec<_>>().join(","),
            Err(e) => e.to_string(),
        };
        assert_eq!(got, expect);
    }

    #[test]
    fn chains_follow_the_steps() {
        check(5, 1, "a,b,c");
        check(5, 2, "b,c");
        check(5, 5, "");
        check(4, 1, "a,b");
        check(
            3,
            1,
            "store /s is corrupt or not a docsuggest store: schema version 1 cannot be upgraded to 3: no step from version 2",
        );
        check(
            5,
            0,
            "store /s is corrupt or not a docsuggest store: schema version 0 cannot be upgraded to 5: no step from version 0",
        );
    }

    #[test]
    fn the_released_plan_upgrades_v1_to_v4() {
        assert_eq!(PLAN.current, 5);
        assert_eq!(PLAN.chain("/s", 1).expect("steps from v1").len(), 4);
        assert_eq!(PLAN.chain("/s", 2).expect("steps from v2").len(), 3);
        assert_eq!(PLAN.chain("/s", 3).expect("steps from v3").len(), 2);
        assert_eq!(PLAN.chain("/s", 4).expect("a step from v4").len(), 1);
        assert!(PLAN.chain("/s", 5).expect("no steps needed").is_empty());
    }

    #[test]
    fn backups_never_overwrite() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("s.redb");
        fs::write(&file, b"one").expect("write");
        let first = backup(&file, 0, None).expect("backup");
        assert_eq!(first, dir.path().join("s.redb.v0.bak"));
        fs::write(&file, b"two").expect("write");
        let second = backup(&file, 0, None).expect("backup");
        assert_eq!(second, dir.path().join("s.redb.v0.bak.2"));
        assert_eq!(fs::read(&first).expect("read"), b"one");
        assert_eq!(fs::read(&second).expect("read"), b"two");
    }
}
