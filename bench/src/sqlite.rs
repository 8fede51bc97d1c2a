//! A SQLite-backed store with the same traits and semantics as the redb store, kept in the
//! bench crate so the comparison runs the engine's pipeline unchanged.
//!
//! Layout: `rates` and `base` are `WITHOUT ROWID` tables keyed by `(workspace, family,
//! companion)` with the row in plain columns; `history` and `pending` hold values encoded by
//! the schema's codec under their sequence numbers; `meta` holds the two counters. The database
//! runs in WAL mode. A snapshot is one deferred read transaction whose lookups go through one
//! cached prepared statement; every write is one `BEGIN IMMEDIATE` transaction that also evicts
//! the history ring past its capacity into `base`, so `live == fold(base, history)` holds as in
//! the redb store.
//!
//! Durability mirrors the redb store's commit policy: `immediate` commits with
//! `synchronous=FULL` (the WAL is fsynced at every commit); `group` commits with
//! `synchronous=NORMAL` and makes one commit `FULL` whenever the last durable one is older than
//! the flush interval, and on `flush`.

use docsuggest_schema::codec;
use docsuggest_schema::{
    Config, Decision, DecisionStore, Durability, HistoryEntry, Outcome, RateEvent, RateKey,
    RateMove, RateRow, RateSnapshot, Resolution, StoreContents, StoreError, StoreKind,
};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const SCHEMA: &str = "
    CREATE TABLE IF NOT EXISTS rates (
        workspace TEXT NOT NULL, family TEXT NOT NULL, companion TEXT NOT NULL,
        step REAL NOT NULL, accepts INTEGER NOT NULL, rejects INTEGER NOT NULL,
        shadow_hits INTEGER NOT NULL, shadow_misses INTEGER NOT NULL,
        recent_hits REAL NOT NULL, recent_misses REAL NOT NULL,
        PRIMARY KEY (workspace, family, companion)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS base (
        workspace TEXT NOT NULL, family TEXT NOT NULL, companion TEXT NOT NULL,
        step REAL NOT NULL, accepts INTEGER NOT NULL, rejects INTEGER NOT NULL,
        shadow_hits INTEGER NOT NULL, shadow_misses INTEGER NOT NULL,
        recent_hits REAL NOT NULL, recent_misses REAL NOT NULL,
        PRIMARY KEY (workspace, family, companion)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY, entry BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS pending (seq INTEGER PRIMARY KEY, decision BLOB NOT NULL);
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
    INSERT OR IGNORE INTO meta VALUES ('next_decision_seq', 1), ('next_resolution_seq', 1);
";

const SELECT_RATE: &str = "SELECT step, accepts, rejects, shadow_hits, shadow_misses, recent_hits, recent_misses FROM rates WHERE workspace = ?1 AND family = ?2 AND companion = ?3";
const SELECT_BASE: &str = "SELECT step, accepts, rejects, shadow_hits, shadow_misses, recent_hits, recent_misses FROM base WHERE workspace = ?1 AND family = ?2 AND companion = ?3";
const UPSERT_RATE: &str =
    "INSERT OR REPLACE INTO rates VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";
const UPSERT_BASE: &str =
    "INSERT OR REPLACE INTO base VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

/// How a [`SqliteStore`] commits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SqliteOptions {
    /// The database file (created when missing).
    pub path: PathBuf,
    /// `Immediate` or `Group`, as for the redb store.
    pub durability: Durability,
    /// In `Group` durability, the longest time between durable commits while commits flow.
    pub flush_interval: Duration,
    /// The bound of the resolved history; older entries are folded into `base`.
    pub ring_capacity: u64,
}

impl SqliteOptions {
    /// Options for `path` with the store fields of `config`.
    pub fn from_config(path: impl Into<PathBuf>, config: &Config) -> SqliteOptions {
        SqliteOptions {
            path: path.into(),
            durability: config.durability,
            flush_interval: Duration::from_millis(config.flush_interval_ms),
            ring_capacity: config.ring_capacity,
        }
    }
}

/// The SQLite-backed store.
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
    label: String,
    durability: Durability,
    flush_interval: Duration,
    ring_capacity: u64,
    /// Whether the connection currently commits with `synchronous=FULL`.
    full_sync: bool,
    /// The decision sequence of the last commit, and of the last durable one.
    committed: u64,
    durable: u64,
    last_durable: Instant,
    unsynced: bool,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.label)
            .field("durability", &self.durability)
            .field("ring_capacity", &self.ring_capacity)
            .finish()
    }
}

fn failed(label: &str, doing: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Backend(format!("{label}: {doing}: {e}"))
}

fn to_i64(label: &str, v: u64) -> Result<i64, StoreError> {
    i64::try_from(v).map_err(|_| failed(label, "storing a counter", format!("{v} exceeds i64")))
}

fn to_u64(v: i64) -> rusqlite::Result<u64> {
    u64::try_from(v).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(0, v))
}

fn read_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<RateRow> {
    Ok(RateRow {
        step: row.get(0)?,
        accepts: to_u64(row.get(1)?)?,
        rejects: to_u64(row.get(2)?)?,
        shadow_hits: to_u64(row.get(3)?)?,
        shadow_misses: to_u64(row.get(4)?)?,
        recent_hits: row.get(5)?,
        recent_misses: row.get(6)?,
    })
}

fn read_key_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<(RateKey, RateRow)> {
    let key = RateKey {
        workspace: row.get(0)?,
        family: row.get(1)?,
        companion: row.get(2)?,
    };
    let rate = RateRow {
        step: row.get(3)?,
        accepts: to_u64(row.get(4)?)?,
        rejects: to_u64(row.get(5)?)?,
        shadow_hits: to_u64(row.get(6)?)?,
        shadow_misses: to_u64(row.get(7)?)?,
        recent_hits: row.get(8)?,
        recent_misses: row.get(9)?,
    };
    Ok((key, rate))
}

/// The checks the redb store makes before it touches anything: a malformed resolution is
/// refused whole.
fn check_resolution(r: &Resolution) -> Result<(), StoreError> {
    let bad = |why: &str| {
        Err(StoreError::Invalid(format!(
            "resolution of decision {}: {why}",
            r.decision_seq
        )))
    };
    match (r.outcome, &r.accepted) {
        (Outcome::Pending, _) => return bad("outcome pending"),
        (Outcome::Accepted, None) => return bad("accepted without a companion"),
        (Outcome::Rejected | Outcome::Abandoned, Some(_)) => {
            return bad("only an accept names a companion");
        }
        _ => {}
    }
    let shadow = |m: &RateMove| {
        matches!(m.event, RateEvent::ShadowHit | RateEvent::ShadowMiss) && m.step == 0.0
    };
    if r.outcome == Outcome::Abandoned && !r.moves.is_empty()
        || r.outcome == Outcome::Silent && !r.moves.iter().all(shadow)
    {
        return bad("this window moves no rate");
    }
    if r.moves.iter().any(|m| !m.step.is_finite()) {
        return bad("a move has a non-finite step");
    }
    Ok(())
}

/// One write transaction's view: every operation of the store's write side.
struct Tx<'c> {
    tx: rusqlite::Transaction<'c>,
    label: &'c str,
}

impl Tx<'_> {
    fn fail(&self, doing: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        let label = self.label;
        let doing = doing.to_string();
        move |e| failed(label, &doing, e)
    }

    fn take(&self, key: &str) -> Result<u64, StoreError> {
        let seq: i64 = self
            .tx
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")
            .and_then(|mut s| s.query_row([key], |r| r.get(0)))
            .map_err(self.fail("reading meta"))?;
        self.tx
            .prepare_cached("UPDATE meta SET value = ?2 WHERE key = ?1")
            .and_then(|mut s| s.execute(params![key, seq + 1]))
            .map_err(self.fail("writing meta"))?;
        u64::try_from(seq).map_err(|_| failed(self.label, "reading meta", "negative counter"))
    }

    fn marks(&self) -> Result<u64, StoreError> {
        let next: i64 = self
            .tx
            .prepare_cached("SELECT value FROM meta WHERE key = 'next_decision_seq'")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(self.fail("reading meta"))?;
        Ok(u64::try_from(next - 1).unwrap_or(0))
    }

    fn row(&self, sql: &str, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        self.tx
            .prepare_cached(sql)
            .and_then(|mut s| {
                s.query_row(params![key.workspace, key.family, key.companion], read_row)
                    .optional()
            })
            .map_err(self.fail("reading a row"))
    }

    fn put(&self, sql: &str, key: &RateKey, row: &RateRow) -> Result<(), StoreError> {
        let accepts = to_i64(self.label, row.accepts)?;
        let rejects = to_i64(self.label, row.rejects)?;
        let shadow_hits = to_i64(self.label, row.shadow_hits)?;
        let shadow_misses = to_i64(self.label, row.shadow_misses)?;
        self.tx
            .prepare_cached(sql)
            .and_then(|mut s| {
                s.execute(params![
                    key.workspace,
                    key.family,
                    key.companion,
                    row.step,
                    accepts,
                    rejects,
                    shadow_hits,
                    shadow_misses,
                    row.recent_hits,
                    row.recent_misses
                ])
            })
            .map_err(self.fail("writing a row"))?;
        Ok(())
    }

    fn apply(&self, select: &str, upsert: &str, mv: &RateMove) -> Result<(), StoreError> {
        let next = self.row(select, &mv.key)?.unwrap_or_default().apply(mv);
        self.put(upsert, &mv.key, &next)
    }

    fn append(&self, entry: &HistoryEntry) -> Result<(), StoreError> {
        let bytes = codec::encode(entry).map_err(|e| StoreError::Codec {
            what: format!("history[{}]", entry.resolution_seq),
            source: e,
        })?;
        let seq = to_i64(self.label, entry.resolution_seq)?;
        self.tx
            .prepare_cached("INSERT INTO history VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![seq, bytes]))
            .map_err(self.fail("appending history"))?;
        Ok(())
    }

    fn record_pending(&self, mut decision: Decision) -> Result<u64, StoreError> {
        let seq = self.take("next_decision_seq")?;
        decision.seq = seq;
        let bytes = codec::encode(&decision).map_err(|e| StoreError::Codec {
            what: format!("pending[{seq}]"),
            source: e,
        })?;
        let key = to_i64(self.label, seq)?;
        self.tx
            .prepare_cached("INSERT INTO pending VALUES (?1, ?2)")
            .and_then(|mut s| s.execute(params![key, bytes]))
            .map_err(self.fail("writing pending"))?;
        Ok(seq)
    }

    fn record_silent(&self, mut decision: Decision) -> Result<u64, StoreError> {
        let seq = self.take("next_decision_seq")?;
        let resolution_seq = self.take("next_resolution_seq")?;
        decision.seq = seq;
        decision.outcome = Outcome::Silent;
        decision.accepted = None;
        self.append(&HistoryEntry {
            resolution_seq,
            decision,
            moves: Vec::new(),
        })?;
        Ok(seq)
    }

    fn resolve(&self, resolution: Resolution) -> Result<(), StoreError> {
        check_resolution(&resolution)?;
        let seq = to_i64(self.label, resolution.decision_seq)?;
        let bytes: Option<Vec<u8>> = self
            .tx
            .prepare_cached("DELETE FROM pending WHERE seq = ?1 RETURNING decision")
            .and_then(|mut s| s.query_row([seq], |r| r.get(0)).optional())
            .map_err(self.fail("removing pending"))?;
        let Some(bytes) = bytes else {
            return Err(StoreError::UnknownDecision(resolution.decision_seq));
        };
        let decision: Decision = codec::decode(&bytes).map_err(|e| StoreError::Codec {
            what: format!("pending[{seq}]"),
            source: e,
        })?;
        let resolution_seq = self.take("next_resolution_seq")?;
        for mv in &resolution.moves {
            self.apply(SELECT_RATE, UPSERT_RATE, mv)?;
        }
        self.append(&HistoryEntry::closing(decision, resolution, resolution_seq))
    }

    fn abandon_pending(&self) -> Result<usize, StoreError> {
        let seqs: Vec<i64> = self
            .tx
            .prepare_cached("SELECT seq FROM pending ORDER BY seq")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(self.fail("reading pending"))?;
        for &seq in &seqs {
            self.resolve(Resolution {
                decision_seq: u64::try_from(seq).unwrap_or_default(),
                outcome: Outcome::Abandoned,
                accepted: None,
                moves: Vec::new(),
            })?;
        }
        Ok(seqs.len())
    }

    fn evict(&self, capacity: u64) -> Result<(), StoreError> {
        // Resolution numbers in the ring are contiguous, so its length is max − min + 1: two
        // index lookups, where `count(*)` would scan the whole table. (SQLite answers min or
        // max from the index only when it is alone in its query, hence two subqueries.)
        let len: i64 = self
            .tx
            .prepare_cached(
                "SELECT coalesce((SELECT max(seq) FROM history) - (SELECT min(seq) FROM history) \
                 + 1, 0)",
            )
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .map_err(self.fail("counting history"))?;
        let excess = u64::try_from(len).unwrap_or(0).saturating_sub(capacity);
        for _ in 0..excess {
            let oldest: Option<(i64, Vec<u8>)> = self
                .tx
                .prepare_cached(
                    "DELETE FROM history WHERE seq = (SELECT min(seq) FROM history) \
                     RETURNING seq, entry",
                )
                .and_then(|mut s| s.query_row([], |r| Ok((r.get(0)?, r.get(1)?))).optional())
                .map_err(self.fail("evicting history"))?;
            let Some((seq, bytes)) = oldest else { break };
            let entry: HistoryEntry = codec::decode(&bytes).map_err(|e| StoreError::Codec {
                what: format!("history[{seq}]"),
                source: e,
            })?;
            for mv in &entry.moves {
                self.apply(SELECT_BASE, UPSERT_BASE, mv)?;
            }
        }
        Ok(())
    }
}

impl SqliteStore {
    /// Opens (creating when missing) the database, in WAL mode, and closes pending decisions
    /// left by a previous process as abandoned, as the redb store does.
    pub fn open(options: SqliteOptions) -> Result<SqliteStore, StoreError> {
        let label = options.path.display().to_string();
        let conn = Connection::open(&options.path).map_err(|e| failed(&label, "opening", e))?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .and_then(|()| conn.execute_batch(SCHEMA))
            .map_err(|e| failed(&label, "initialising", e))?;
        conn.set_prepared_statement_cache_capacity(32);
        let mut store = SqliteStore {
            conn,
            path: options.path,
            label,
            durability: options.durability,
            flush_interval: options.flush_interval,
            ring_capacity: options.ring_capacity,
            full_sync: false,
            committed: 0,
            durable: 0,
            last_durable: Instant::now(),
            unsynced: false,
        };
        store.commit("abandoning pending decisions", true, |tx| {
            tx.abandon_pending()
        })?;
        Ok(store)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn set_full_sync(&mut self, full: bool) -> Result<(), StoreError> {
        if self.full_sync != full {
            let mode = if full { "FULL" } else { "NORMAL" };
            self.conn
                .pragma_update(None, "synchronous", mode)
                .map_err(|e| failed(&self.label, "setting synchronous", e))?;
            self.full_sync = full;
        }
        Ok(())
    }

    /// Runs `op` and the ring eviction in one immediate transaction, durable or not as the
    /// policy says.
    fn write<R>(
        &mut self,
        doing: &str,
        op: impl FnOnce(&Tx<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        self.commit(doing, false, op)
    }

    /// [`SqliteStore::write`], made durable when `force` is set.
    fn commit<R>(
        &mut self,
        doing: &str,
        force: bool,
        op: impl FnOnce(&Tx<'_>) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let now = Instant::now();
        let durable = force
            || self.durability == Durability::Immediate
            || now.duration_since(self.last_durable) >= self.flush_interval;
        self.set_full_sync(durable)?;
        let label = self.label.as_str();
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| failed(label, doing, e))?;
        let tx = Tx { tx, label };
        let out = op(&tx)?;
        tx.evict(self.ring_capacity)?;
        let committed = tx.marks()?;
        tx.tx.commit().map_err(|e| failed(label, doing, e))?;
        self.committed = committed;
        if durable {
            self.durable = committed;
            self.last_durable = now;
            self.unsynced = false;
        } else {
            self.unsynced = true;
        }
        Ok(out)
    }

    fn rows(&self, table: &str) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        let sql = format!(
            "SELECT workspace, family, companion, step, accepts, rejects, shadow_hits, \
             shadow_misses, recent_hits, recent_misses FROM {table} \
             ORDER BY workspace, family, companion"
        );
        self.conn
            .prepare(&sql)
            .and_then(|mut s| s.query_map([], read_key_row)?.collect())
            .map_err(|e| failed(&self.label, &format!("reading {table}"), e))
    }

    fn blobs<T: serde::de::DeserializeOwned>(&self, table: &str) -> Result<Vec<T>, StoreError> {
        let column = if table == "history" {
            "entry"
        } else {
            "decision"
        };
        let sql = format!("SELECT seq, {column} FROM {table} ORDER BY seq");
        let raw: Vec<(i64, Vec<u8>)> = self
            .conn
            .prepare(&sql)
            .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
            .map_err(|e| failed(&self.label, &format!("reading {table}"), e))?;
        raw.into_iter()
            .map(|(seq, bytes)| {
                codec::decode(&bytes).map_err(|e| StoreError::Codec {
                    what: format!("{table}[{seq}]"),
                    source: e,
                })
            })
            .collect()
    }
}

/// One deferred read transaction: its first lookup takes the read lock, every lookup after it
/// sees the same state.
struct SqliteSnapshot<'c> {
    tx: rusqlite::Transaction<'c>,
    label: &'c str,
}

impl RateSnapshot for SqliteSnapshot<'_> {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        self.tx
            .prepare_cached(SELECT_RATE)
            .and_then(|mut s| {
                s.query_row(params![key.workspace, key.family, key.companion], read_row)
                    .optional()
            })
            .map_err(|e| failed(self.label, "reading rates", e))
    }
}

impl DecisionStore for SqliteStore {
    /// The engine's ledger knows two kinds; this one reports itself as the durable kind.
    fn kind(&self) -> StoreKind {
        StoreKind::Redb
    }

    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        let tx = self
            .conn
            .unchecked_transaction()
            .map_err(|e| failed(&self.label, "starting a snapshot", e))?;
        Ok(Box::new(SqliteSnapshot {
            tx,
            label: &self.label,
        }))
    }

    fn record_pending(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.write("recording a pending decision", |tx| {
            tx.record_pending(decision)
        })
    }

    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.write("recording a silence", |tx| tx.record_silent(decision))
    }

    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        self.write("resolving a decision", |tx| tx.resolve(resolution))
    }

    fn flush(&mut self) -> Result<u64, StoreError> {
        if self.unsynced {
            // An empty durable commit fsyncs the WAL up to every earlier commit.
            self.commit("flushing", true, |_| Ok(()))?;
        }
        Ok(self.durable)
    }

    fn configure(&mut self, config: &Config) {
        self.durability = config.durability;
        self.flush_interval = Duration::from_millis(config.flush_interval_ms);
        let shrunk = config.ring_capacity < self.ring_capacity;
        self.ring_capacity = config.ring_capacity;
        let result = if self.durability == Durability::Immediate && self.unsynced {
            self.flush().map(drop)
        } else if shrunk {
            self.write("evicting history", |_| Ok(()))
        } else {
            Ok(())
        };
        if let Err(e) = result {
            tracing::warn!(path = %self.label, error = %e, "sqlite store configure incomplete");
        }
    }

    fn contents(&self) -> Option<&dyn StoreContents> {
        Some(self)
    }
}

impl StoreContents for SqliteStore {
    fn rate_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        self.rows("rates")
    }

    fn base_rows(&self) -> Result<Vec<(RateKey, RateRow)>, StoreError> {
        self.rows("base")
    }

    fn history(&self) -> Result<Vec<HistoryEntry>, StoreError> {
        self.blobs("history")
    }

    fn pending(&self) -> Result<Vec<Decision>, StoreError> {
        self.blobs("pending")
    }
}

impl Drop for SqliteStore {
    fn drop(&mut self) {
        if self.unsynced
            && let Err(e) = self.flush()
        {
            tracing::error!(path = %self.label, error = %e, "sqlite store flush at close failed");
        }
    }
}

#[cfg(test)]
mod tests;
