//! `check`, `migrate` and `recompute`: the integrity of a store file, its schema version, and
//! its rates rebuilt from history.

use docsuggest_host::stores::{self, Holder, InspectError};
use docsuggest_schema::RateModel;
use docsuggest_store::recompute::{self, DriftReport, RecomputeOptions};
use docsuggest_store::{IntegrityReport, RedbCheck, SCHEMA_VERSION, StoreContents, Upgrade};
use std::fmt::{self, Write as _};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// What `check` found.
#[derive(Clone, Debug)]
pub struct CheckReport {
    /// The store file.
    pub path: String,
    /// The file was not closed cleanly: it was checked through a repaired private copy and
    /// is itself unchanged until its next writer repairs it.
    pub unclean: bool,
    /// Another process held the file: it was checked through a copy holding that process's
    /// last durable commit (after the daemon flushed, when it is the holder).
    pub held: Option<Holder>,
    /// Pending decisions (open windows) the file holds.
    pub pending: usize,
    /// Entries in the history ring.
    pub history: usize,
    /// redb's page check and the fold invariant.
    pub integrity: IntegrityReport,
}

impl CheckReport {
    /// Whether the file passed every check untouched.
    pub fn is_ok(&self) -> bool {
        self.integrity.is_ok()
    }
}

/// Checks redb's pages and `live == fold(base, history)` for every key, read-only: the
/// file's bytes never change (redb's page check runs on an in-memory image when it is opened).
pub fn check(store: Option<&Path>) -> Result<CheckReport, InspectError> {
    stores::read_holding(store, |store, view, holder| {
        Ok(CheckReport {
            path: store.path().display().to_string(),
            unclean: store.was_unclean(),
            held: holder.cloned(),
            pending: view.pending()?.len(),
            history: view.history()?.len(),
            integrity: store.check_integrity()?,
        })
    })
}

impl CheckReport {
    /// The report for scripts: every figure of the human report, and `ok`.
    pub fn to_json(&self) -> serde_json::Value {
        let row = |r: &docsuggest_schema::RateRow| serde_json::json!({"step": r.step, "accepts": r.accepts, "rejects": r.rejects});
        let fold = &self.integrity.fold;
        let mismatches: Vec<serde_json::Value> = fold
            .mismatches
            .iter()
            .map(|m| {
                serde_json::json!({
                    "workspace": m.key.workspace,
                    "family": m.key.family,
                    "companion": m.key.companion,
                    "live": m.live.as_ref().map(row),
                    "folded": row(&m.folded),
                })
            })
            .collect();
        serde_json::json!({
            "store": self.path,
            "ok": self.is_ok(),
            "unclean": self.unclean,
            "held": self.held.as_ref().map(|h| serde_json::json!({
                "socket": h.socket.display().to_string(),
                "flushedBy": h.flushed_by,
            })),
            "pending": self.pending,
            "history": self.history,
            "redbPageCheck": match self.integrity.redb {
                RedbCheck::Passed => "passed",
                RedbCheck::Repaired => "repaired",
            },
            "fold": {
                "holds": fold.is_clean(),
                "keysChecked": fold.keys_checked,
                "mismatches": mismatches,
            },
        })
    }
}

impl fmt::Display for CheckReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = format!("store {}\n", self.path);
        if let Some(holder) = &self.held {
            let _ = writeln!(out, "  {holder}");
        }
        if self.unclean {
            let _ = writeln!(
                out,
                "  not closed cleanly: checked a repaired private copy (the file is unchanged; \
                 its next writer repairs it)"
            );
        }
        if self.pending > 0 {
            let _ = writeln!(
                out,
                "  {} pending decision(s): open windows, closed as abandoned when a writer next opens the file",
                self.pending
            );
        }
        let pages = match self.integrity.redb {
            RedbCheck::Passed => "passed",
            RedbCheck::Repaired => {
                "FAILED: the file was damaged and has been repaired (recent un-flushed commits may be lost)"
            }
        };
        let _ = writeln!(out, "  redb page check   {pages}");
        let fold = &self.integrity.fold;
        let _ = writeln!(
            out,
            "  fold invariant    {} ({} keys checked, {} history entries)",
            if fold.is_clean() { "holds" } else { "BROKEN" },
            fold.keys_checked,
            self.history
        );
        for m in &fold.mismatches {
            let live = m.live.map_or("none".to_string(), |r| {
                format!("{:?}/{}+/{}-", r.step, r.accepts, r.rejects)
            });
            let _ = writeln!(
                out,
                "    {} {} {:?}: live {live}, fold(base, history) {:?}/{}+/{}-",
                m.key.workspace,
                m.key.family,
                m.key.companion,
                m.folded.step,
                m.folded.accepts,
                m.folded.rejects
            );
        }
        let _ = write!(out, "{}", if self.is_ok() { "ok" } else { "check failed" });
        f.write_str(&out)
    }
}

/// What `migrate` did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MigrateReport {
    /// The store file.
    pub path: String,
    /// The upgrade performed, if the file was older.
    pub upgraded: Option<Upgrade>,
}

/// Opens the file, which upgrades an older schema after copying the file aside.
pub fn migrate(store: Option<&Path>) -> Result<MigrateReport, InspectError> {
    let mut store = stores::open_existing(store)?;
    let report = MigrateReport {
        path: store.path().display().to_string(),
        upgraded: store.open_report().upgraded.clone(),
    };
    stores::close(&mut store);
    Ok(report)
}

impl fmt::Display for MigrateReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.upgraded {
            Some(u) => write!(
                f,
                "store {}: upgraded schema v{} -> v{}; the old file is kept at {}",
                self.path,
                u.from,
                u.to,
                u.backup.display()
            ),
            None => write!(
                f,
                "store {}: schema v{SCHEMA_VERSION} is current; nothing to do",
                self.path
            ),
        }
    }
}

/// What `recompute` found and did.
#[derive(Clone, Debug)]
pub struct RecomputeReport {
    /// The store file.
    pub path: String,
    /// The comparison of recomputed and live rows.
    pub drift: DriftReport,
    /// Rows written back (`--write`), if any.
    pub written: Option<usize>,
}

/// Rebuilds every rate row from base + history (in parallel across keys) and compares it with
/// the live rows; with `write`, swaps the recomputed rows in, in one write transaction.
pub fn recompute(
    store: Option<&Path>,
    write: bool,
    model: RateModel,
) -> Result<RecomputeReport, InspectError> {
    let mut store = stores::open_existing(store)?;
    let path = store.path().display().to_string();
    let total = store.rate_rows()?.len() as u64;
    let bar = docsuggest_history::progress::bar_for(
        total,
        RECOMPUTE_PROGRESS_ROWS,
        "recompute {bar:40} {pos}/{len} rows",
    );
    let done = AtomicU64::new(0);
    let options = RecomputeOptions {
        model,
        parallel: true,
    };
    let result = std::thread::scope(|scope| {
        let store = &store;
        let worker = scope.spawn(|| recompute::recompute(store, options, &done));
        while !worker.is_finished() {
            bar.set_position(done.load(Ordering::Relaxed));
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        worker.join()
    });
    bar.finish_and_clear();
    let recomputed = match result {
        Ok(r) => r?,
        Err(_) => {
            return Err(InspectError::Store(docsuggest_schema::StoreError::Backend(
                "the recompute worker panicked".into(),
            )));
        }
    };
    let written = if write {
        store.replace_rates(&recomputed.rows)?;
        Some(recomputed.rows.len())
    } else {
        None
    };
    stores::close(&mut store);
    Ok(RecomputeReport {
        path,
        drift: recomputed.report,
        written,
    })
}

impl RecomputeReport {
    /// The report for scripts.
    pub fn to_json(&self) -> serde_json::Value {
        let d = &self.drift;
        let differing: Vec<serde_json::Value> = d
            .differing
            .iter()
            .map(|x| {
                serde_json::json!({
                    "workspace": x.key.workspace,
                    "family": x.key.family,
                    "companion": x.key.companion,
                    "live": x.live.map(|r| r.step),
                    "recomputed": x.recomputed.step,
                })
            })
            .collect();
        serde_json::json!({
            "store": self.path,
            "decisions": d.decisions,
            "rowsCompared": d.rows_compared,
            "rowsDiffering": d.rows_differing,
            "maxDifference": d.max_difference,
            "differing": differing,
            "written": self.written,
        })
    }
}

/// Live stores with at least this many rows get a progress bar on a terminal.
const RECOMPUTE_PROGRESS_ROWS: u64 = 50_000;

impl fmt::Display for RecomputeReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.drift;
        let mut out = format!(
            "store {}: recomputed from base + {} history entries\n  rows compared     {}\n  rows differing    {} (max rate difference {:.6})\n",
            self.path, d.decisions, d.rows_compared, d.rows_differing, d.max_difference
        );
        for drift in &d.differing {
            let live = drift
                .live
                .map_or("none".to_string(), |r| format!("{:?}", r.step));
            let _ = writeln!(
                out,
                "    {} {} {:?}: live {live}, recomputed {:?}",
                drift.key.workspace, drift.key.family, drift.key.companion, drift.recomputed.step
            );
        }
        match self.written {
            Some(n) => {
                let _ = write!(out, "wrote {n} recomputed rows");
            }
            None if d.rows_differing == 0 => {
                let _ = write!(out, "live rates equal the recompute; nothing to write");
            }
            None => {
                let _ = write!(out, "run with --write to replace the live rows");
            }
        }
        f.write_str(&out)
    }
}
