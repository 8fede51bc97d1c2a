//! Exporting the decision history as JSON lines, and importing it into a store.
//!
//! One `HistoryEntry` per line, oldest first. Import checks **every** line before it writes
//! anything and refuses the whole file at the first bad line, naming its number and field:
//! each entry must be a valid resolution by the store's own rules
//! (`docsuggest_store::check_resolution`) and the entries must hold together as one history
//! does (resolution numbers strictly increasing, no decision number twice), so an export of a
//! damaged or hand-edited store is refused before it can spread to a healthy one.
//! It then replays the entries through the store's own API, as the engine records them:
//! `record_pending`, then `resolve` with the recorded outcome, accepted companion and moves (a
//! gated silence closes as `silent`, naming the would-be companion its shadow window saw, if
//! any). The imported rates thus move exactly as they did when recorded, and the store assigns
//! fresh sequence numbers.
//!
//! Import is idempotent: an entry is identified by everything it records except the two
//! numbers a store hands out (`resolution_seq` and `decision.seq`), counted with multiplicity,
//! and an entry the store's history already holds is skipped. Importing a store's own export
//! changes nothing, and importing a file twice equals importing it once (docs/OFFLINE.md).

use docsuggest_host::stores::{self, InspectError};
use docsuggest_schema::{
    DecisionStore, Durability, HistoryEntry, Outcome, Resolution, StoreContents, StoreError,
};
use docsuggest_schema::{RateEvent, RateMove};
use docsuggest_store::{RedbStore, StoreOptions, catch_damage, check_resolution};
use std::collections::HashMap;
use std::io::Write;
use std::path::Path;

/// An export or import that failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransferError {
    /// The store could not be read.
    #[error(transparent)]
    Inspect(#[from] InspectError),
    /// The store failed while importing; entries before it were written.
    #[error("importing failed at line {line}: {source}")]
    Store {
        /// The line being imported.
        line: usize,
        /// Why.
        source: StoreError,
    },
    /// The store could not be closed after the import.
    #[error("closing the store failed: {0}")]
    Close(StoreError),
    /// A file could not be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line of the import file is not a valid history entry; nothing was written.
    #[error("{file}: line {line}: {problem}; nothing was imported")]
    BadLine {
        /// The file.
        file: String,
        /// The 1-based line number.
        line: usize,
        /// The field and what is wrong with it.
        problem: String,
    },
}

/// Writes the whole history of a store as JSON lines to `out`; answers how many entries.
pub fn export(store: Option<&Path>, out: impl Write) -> Result<usize, TransferError> {
    write_entries(&read_history(store)?, out)
}

/// Like [`export`], into `file`; the file is created only once the history was read, so a
/// store that cannot be opened leaves no empty export behind.
pub fn export_file(store: Option<&Path>, file: &Path) -> Result<usize, TransferError> {
    let entries = read_history(store)?;
    let out = std::fs::File::create(file).map_err(|source| TransferError::Io {
        what: format!("creating {}", file.display()),
        source,
    })?;
    write_entries(&entries, std::io::BufWriter::new(out))
}

fn read_history(store: Option<&Path>) -> Result<Vec<HistoryEntry>, TransferError> {
    Ok(stores::read(store, |_, view| view.history())?)
}

fn write_entries(entries: &[HistoryEntry], mut out: impl Write) -> Result<usize, TransferError> {
    let io = |source| TransferError::Io {
        what: "writing the export".into(),
        source,
    };
    for entry in entries {
        let line = serde_json::to_string(entry).map_err(|e| TransferError::Io {
            what: format!("encoding history entry {}", entry.resolution_seq),
            source: e.into(),
        })?;
        out.write_all(line.as_bytes()).map_err(io)?;
        out.write_all(b"\n").map_err(io)?;
    }
    out.flush().map_err(io)?;
    Ok(entries.len())
}

/// Parses and checks every line of an export; the first bad line refuses the whole text.
pub fn parse(text: &[u8], file: &str) -> Result<Vec<(usize, HistoryEntry)>, TransferError> {
    let bad = |line: usize, problem: String| TransferError::BadLine {
        file: file.into(),
        line,
        problem,
    };
    let mut out = Vec::new();
    let mut previous: Option<u64> = None;
    // Each decision number and the line that holds it: a decision is resolved once.
    let mut decisions: HashMap<u64, usize> = HashMap::new();
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let raw = std::str::from_utf8(raw)
            .map_err(|e| bad(line, format!("not valid UTF-8 (byte {})", e.valid_up_to())))?;
        let mut de = serde_json::Deserializer::from_str(raw);
        let entry: HistoryEntry = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            let field = if path == "." || path == "?" {
                "(line)".to_string()
            } else {
                path
            };
            bad(line, format!("{field}: {}", e.into_inner()))
        })?;
        de.end()
            .map_err(|e| bad(line, format!("(line): trailing text after the entry: {e}")))?;
        check_entry(&entry, previous).map_err(|p| bad(line, p))?;
        if let Some(first) = decisions.insert(entry.decision.seq, line) {
            return Err(bad(
                line,
                format!(
                    "decision.seq: decision {} is already resolved on line {first} (a decision \
                     is resolved once)",
                    entry.decision.seq
                ),
            ));
        }
        previous = Some(entry.resolution_seq);
        out.push((line, entry));
    }
    Ok(out)
}

/// The rules a history entry obeys, each naming its field: the store's own rules for a
/// resolution, then what the export format adds (numbers from 1 in resolution order, a unit
/// confidence, finite companion scores and values, steps in -1..1 with the sign of their
/// event, moves on the entry's own workspace and family).
fn check_entry(e: &HistoryEntry, previous: Option<u64>) -> Result<(), String> {
    let d = &e.decision;
    for (field, seq) in [
        ("resolution_seq", e.resolution_seq),
        ("decision.seq", d.seq),
    ] {
        if seq == 0 {
            return Err(format!(
                "{field}: 0 is not a sequence number (a store numbers from 1)"
            ));
        }
    }
    if let Some(prev) = previous
        && e.resolution_seq <= prev
    {
        return Err(format!(
            "resolution_seq: {} does not follow the previous line's {prev} \
             (history must be in resolution order)",
            e.resolution_seq
        ));
    }
    for (field, value) in [
        ("decision.workspace", &d.workspace),
        ("decision.agent", &d.agent),
        ("decision.family", &d.family),
    ] {
        if value.is_empty() || value.contains('\0') {
            return Err(format!("{field}: must be a non-empty string without NUL"));
        }
    }
    if !(0.0..=1.0).contains(&d.kappa) {
        return Err(format!("decision.kappa: {} is outside 0..1", d.kappa));
    }
    for (i, c) in d.companions.iter().enumerate() {
        if c.path.is_empty() || c.path.contains('\0') {
            return Err(format!(
                "decision.companions[{i}].path: must be a non-empty string without NUL"
            ));
        }
        if !c.score.is_finite() {
            return Err(format!(
                "decision.companions[{i}].score: {} is not finite",
                c.score
            ));
        }
        if let Some(v) = c.values.0.iter().find(|v| !v.is_finite()) {
            return Err(format!(
                "decision.companions[{i}].values: {v} is not finite"
            ));
        }
    }
    if let Some(w) = d.weights.0.iter().find(|w| !w.is_finite()) {
        return Err(format!("decision.weights: {w} is not finite"));
    }
    if d.accepted
        .as_deref()
        .is_some_and(|c| c.is_empty() || c.contains('\0'))
    {
        return Err("decision.accepted: must be a non-empty string without NUL".into());
    }
    // The store's own rules: outcome, accepted companion and moves agree, steps are finite.
    check_resolution(&Resolution {
        decision_seq: d.seq,
        outcome: d.outcome,
        accepted: d.accepted.clone(),
        moves: e.moves.clone(),
    })
    .map_err(|err| match err {
        StoreError::Invalid(why) => format!("(entry): {why}"),
        other => format!("(entry): {other}"),
    })?;
    for (i, mv) in e.moves.iter().enumerate() {
        check_step(mv).map_err(|why| format!("moves[{i}].step: {} {why}", mv.step))?;
        if mv.key.workspace != d.workspace || mv.key.family != d.family {
            return Err(format!(
                "moves[{i}].key: {}/{} is not the decision's workspace and family {}/{}",
                mv.key.workspace, mv.key.family, d.workspace, d.family
            ));
        }
    }
    Ok(())
}

/// A move's step as the engine makes it: an accept moves up and a reject down by at most 1
/// (`acceptBonus` and `rejectPenalty` are in 0..1); a shadow hit or miss moves nothing.
fn check_step(mv: &RateMove) -> Result<(), &'static str> {
    let fits = match mv.event {
        RateEvent::Accept => (0.0..=1.0).contains(&mv.step),
        RateEvent::Reject => (-1.0..=0.0).contains(&mv.step),
        RateEvent::ShadowHit | RateEvent::ShadowMiss => mv.step == 0.0,
    };
    if fits {
        Ok(())
    } else {
        Err(match mv.event {
            RateEvent::Accept => "is not an accept's step in 0..1",
            RateEvent::Reject => "is not a reject's step in -1..0",
            _ => "is not a shadow observation's step 0",
        })
    }
}

/// What an import wrote.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ImportCounts {
    /// Entries imported.
    pub entries: usize,
    /// Of which silences.
    pub silences: usize,
    /// Entries skipped because the store's history already holds them.
    pub skipped: usize,
}

/// An entry's identity: everything it records apart from the numbers a store assigns, which
/// an import renumbers. Two genuinely distinct decisions can look alike (the same agent,
/// family, values and outcome), so identities are counted, not merely collected.
fn identity(entry: &HistoryEntry) -> Result<String, TransferError> {
    let mut unnumbered = entry.clone();
    unnumbered.resolution_seq = 0;
    unnumbered.decision.seq = 0;
    serde_json::to_string(&unnumbered).map_err(|e| TransferError::Io {
        what: format!("encoding history entry {}", entry.resolution_seq),
        source: e.into(),
    })
}

/// Drops from `entries` those the history `known` already holds: each known entry cancels one
/// entry of the same identity, in file order. Answers the rest and how many were dropped.
pub fn skip_known(
    known: &[HistoryEntry],
    entries: Vec<(usize, HistoryEntry)>,
) -> Result<(Vec<(usize, HistoryEntry)>, usize), TransferError> {
    let mut counts: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for entry in known {
        *counts.entry(identity(entry)?).or_default() += 1;
    }
    let mut fresh = Vec::with_capacity(entries.len());
    let mut skipped = 0;
    for (line, entry) in entries {
        match counts.get_mut(&identity(&entry)?) {
            Some(n) if *n > 0 => {
                *n -= 1;
                skipped += 1;
            }
            _ => fresh.push((line, entry)),
        }
    }
    Ok((fresh, skipped))
}

/// Imports an export file into the store (created when missing).
pub fn import(file: &Path, store: Option<&Path>) -> Result<ImportCounts, TransferError> {
    let name = file.display().to_string();
    let text = std::fs::read(file).map_err(|source| TransferError::Io {
        what: format!("reading {name}"),
        source,
    })?;
    let entries = parse(&text, &name)?;
    let path = stores::store_file(store);
    let label = path.display().to_string();
    if path.exists() {
        // Asked read-only first, so an import that brings nothing new leaves the file as it
        // was, byte for byte.
        let known = stores::read(store, |_, view| view.history())?;
        let (fresh, skipped) = skip_known(&known, entries.clone())?;
        if fresh.is_empty() {
            return Ok(ImportCounts {
                skipped,
                ..ImportCounts::default()
            });
        }
    }
    let mut options = StoreOptions::new(path);
    // One fsync at the end instead of one per entry; close makes it all durable.
    options.durability = Durability::Group;
    // A panic inside redb (a store damaged since it was read) is an error naming the file,
    // whatever step met it; the transaction it interrupted is not committed.
    catch_damage(&label, "importing", || Ok(write_into(options, entries)))
        .map_err(|e| TransferError::Inspect(e.into()))?
}

/// Opens the store for writing and writes the entries it does not hold yet.
fn write_into(
    options: StoreOptions,
    entries: Vec<(usize, HistoryEntry)>,
) -> Result<ImportCounts, TransferError> {
    let mut store = RedbStore::open(options).map_err(InspectError::from)?;
    let written = store
        .history()
        .map_err(|e| TransferError::Inspect(e.into()))
        .and_then(|known| skip_known(&known, entries))
        .and_then(|(fresh, skipped)| {
            let counts = write_all(&mut store, fresh)?;
            Ok(ImportCounts { skipped, ..counts })
        });
    let closed = store.close();
    let counts = written?;
    closed.map_err(TransferError::Close)?;
    Ok(counts)
}

/// Replays checked entries through the store API, in order.
pub fn write_all(
    store: &mut dyn DecisionStore,
    entries: Vec<(usize, HistoryEntry)>,
) -> Result<ImportCounts, TransferError> {
    let mut counts = ImportCounts::default();
    for (line, entry) in entries {
        let at = |source| TransferError::Store { line, source };
        let mut decision = entry.decision;
        let outcome = decision.outcome;
        let accepted = decision.accepted.take();
        decision.outcome = Outcome::Pending;
        let seq = store.record_pending(decision).map_err(at)?;
        store
            .resolve(Resolution {
                decision_seq: seq,
                outcome,
                accepted,
                moves: entry.moves,
            })
            .map_err(at)?;
        if outcome == Outcome::Silent {
            counts.silences += 1;
        }
        counts.entries += 1;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use docsuggest_schema::{Decision, RateEvent, RateKey, RateMove, StoreKind, Table};
    use docsuggest_store::{FailOpenStore, check_fold};

    fn entry(seq: u64, outcome: Outcome, accepted: Option<&str>, steps: &[f64]) -> HistoryEntry {
        HistoryEntry {
            resolution_seq: seq,
            decision: Decision {
                seq,
                workspace: "ws-1".into(),
                agent: "a".into(),
                family: "Plan".into(),
                kappa: 0.9,
                companions: vec![],
                weights: Table::DEFAULT_WEIGHTS,
                enabled: vec![],
                outcome,
                silence: None,
                accepted: accepted.map(String::from),
                store: StoreKind::Redb,
            },
            moves: steps
                .iter()
                .map(|&step| RateMove {
                    key: RateKey::family("ws-1", "Plan"),
                    event: if step > 0.0 {
                        RateEvent::Accept
                    } else {
                        RateEvent::Reject
                    },
                    step,
                })
                .collect(),
        }
    }

    fn line(e: &HistoryEntry) -> String {
        serde_json::to_string(e).expect("encodes")
    }

    /// Parses `lines` joined by newlines; answers `ok N` or the error text.
    fn check(lines: &[String], expect: &str) {
        let text = lines.join("\n");
        let got = match parse(text.as_bytes(), "h.jsonl") {
            Ok(entries) => format!("ok {}", entries.len()),
            Err(e) => e.to_string(),
        };
        assert_eq!(got, expect);
    }

    #[test]
    fn every_line_is_checked_and_named() {
        let good = line(&entry(1, Outcome::Accepted, Some("INDEX.md"), &[0.1]));
        let silent = line(&entry(2, Outcome::Silent, Some("INDEX.md"), &[]));
        check(&[good.clone(), String::new(), silent.clone()], "ok 2");
        let refused =
            |n: usize, problem: &str| format!("h.jsonl: line {n}: {problem}; nothing was imported");
        check(
            &[good.clone(), silent.clone(), "{".into()],
            &refused(3, "(line): EOF while parsing an object at line 1 column 1"),
        );
        check(
            &[good.clone(), r#"{"resolution_seq":2}"#.into()],
            &refused(2, "(line): missing field `decision` at line 1 column 20"),
        );
        check(
            &[format!("{good} {good}")],
            &refused(
                1,
                "(line): trailing text after the entry: trailing characters at line 1 column 342",
            ),
        );
        // The store's own rules for a resolution (`check_resolution`).
        check(
            &[line(&entry(1, Outcome::Pending, None, &[]))],
            &refused(
                1,
                "(entry): resolution of decision 1: outcome pending (expected accepted, \
                 rejected, abandoned or silent)",
            ),
        );
        check(
            &[line(&entry(1, Outcome::Accepted, None, &[0.1]))],
            &refused(
                1,
                "(entry): resolution of decision 1: accepted without a companion",
            ),
        );
        check(
            &[line(&entry(
                1,
                Outcome::Rejected,
                Some("INDEX.md"),
                &[-0.2],
            ))],
            &refused(
                1,
                "(entry): resolution of decision 1: rejected names accepted companion \"INDEX.md\"",
            ),
        );
        check(
            &[line(&entry(1, Outcome::Abandoned, None, &[-0.2]))],
            &refused(
                1,
                "(entry): resolution of decision 1: an abandoned window moves no rate",
            ),
        );
        check(
            &[line(&entry(1, Outcome::Silent, None, &[-0.2]))],
            &refused(
                1,
                "(entry): resolution of decision 1: a silent window moves no rate, it only \
                 counts shadow hits and misses",
            ),
        );
        // What the export format adds: steps of their event's sign, within one step.
        check(
            &[line(&entry(1, Outcome::Rejected, None, &[-2.0]))],
            &refused(1, "moves[0].step: -2 is not a reject's step in -1..0"),
        );
        let mut upside_down = entry(1, Outcome::Accepted, Some("INDEX.md"), &[0.1]);
        upside_down.moves[0].step = -0.1;
        check(
            &[line(&upside_down)],
            &refused(1, "moves[0].step: -0.1 is not an accept's step in 0..1"),
        );
        let mut shadow = entry(1, Outcome::Rejected, None, &[-0.2]);
        shadow.moves[0].event = RateEvent::ShadowMiss;
        check(
            &[line(&shadow)],
            &refused(
                1,
                "moves[0].step: -0.2 is not a shadow observation's step 0",
            ),
        );
        // The entries hold together: numbers from 1, strictly increasing, each decision once.
        check(
            &[line(&entry(0, Outcome::Abandoned, None, &[]))],
            &refused(
                1,
                "resolution_seq: 0 is not a sequence number (a store numbers from 1)",
            ),
        );
        check(
            &[silent.clone(), good.clone()],
            &refused(
                2,
                "resolution_seq: 1 does not follow the previous line's 2 (history must be in resolution order)",
            ),
        );
        check(
            &[good.clone(), good.clone()],
            &refused(
                2,
                "resolution_seq: 1 does not follow the previous line's 1 (history must be in resolution order)",
            ),
        );
        let mut twice = entry(3, Outcome::Rejected, None, &[-0.2]);
        twice.decision.seq = 1;
        check(
            &[good.clone(), silent.clone(), line(&twice)],
            &refused(
                3,
                "decision.seq: decision 1 is already resolved on line 1 (a decision is resolved once)",
            ),
        );
        let mut odd_score = entry(1, Outcome::Rejected, None, &[-0.2]);
        odd_score
            .decision
            .companions
            .push(docsuggest_schema::CompanionRow {
                path: String::new(),
                score: 0.5,
                values: Table([0.0; 6]),
            });
        check(
            &[line(&odd_score)],
            &refused(
                1,
                "decision.companions[0].path: must be a non-empty string without NUL",
            ),
        );
        let mut foreign = entry(1, Outcome::Rejected, None, &[-0.2]);
        foreign.moves[0].key.workspace = "other-2".into();
        check(
            &[line(&foreign)],
            &refused(
                1,
                "moves[0].key: other-2/Plan is not the decision's workspace and family ws-1/Plan",
            ),
        );
        check(
            &[String::from_utf8_lossy(b"\xff").into_owned()],
            &refused(1, "(line): expected value at line 1 column 1"),
        );
    }

    #[test]
    fn invalid_utf8_is_named() {
        let err = parse(b"\xff\xfe\n", "h.jsonl").expect_err("refused");
        assert_eq!(
            err.to_string(),
            "h.jsonl: line 1: not valid UTF-8 (byte 0); nothing was imported"
        );
    }

    /// `known` and `file` as outcomes (`a` accepted, `r` rejected, `x` abandoned, identical
    /// entries for equal letters); answers the letters kept and how many were skipped.
    fn check_skip(known: &str, file: &str, expect: (&str, usize)) {
        let entry_of = |i: usize, c: char| match c {
            'a' => entry(i as u64 + 1, Outcome::Accepted, Some("INDEX.md"), &[0.1]),
            'r' => entry(i as u64 + 1, Outcome::Rejected, None, &[-0.2]),
            _ => entry(i as u64 + 1, Outcome::Abandoned, None, &[]),
        };
        // The store numbers its own entries differently from the file's.
        let known: Vec<HistoryEntry> = known
            .chars()
            .enumerate()
            .map(|(i, c)| {
                let mut e = entry_of(i + 100, c);
                e.decision.seq += 7;
                e
            })
            .collect();
        let file: Vec<(usize, HistoryEntry)> = file
            .chars()
            .enumerate()
            .map(|(i, c)| (i + 1, entry_of(i, c)))
            .collect();
        let (fresh, skipped) = skip_known(&known, file).expect("identities");
        let kept: String = fresh
            .iter()
            .map(|(_, e)| match e.decision.outcome {
                Outcome::Accepted => 'a',
                Outcome::Rejected => 'r',
                _ => 'x',
            })
            .collect();
        assert_eq!((kept.as_str(), skipped), expect, "{known:?}");
    }

    #[test]
    fn known_entries_are_skipped_with_multiplicity() {
        check_skip("", "arx", ("arx", 0));
        check_skip("arx", "arx", ("", 3));
        check_skip("ar", "arxx", ("xx", 2));
        // Two identical abandoned entries are two decisions: one known cancels one.
        check_skip("x", "xx", ("x", 1));
        check_skip("xx", "x", ("", 1));
        check_skip("rrr", "arr", ("a", 2));
    }

    #[test]
    fn writing_replays_moves_in_order() {
        let entries = vec![
            (1, entry(1, Outcome::Rejected, None, &[-0.2])),
            (2, entry(2, Outcome::Rejected, None, &[-0.2])),
            (3, entry(3, Outcome::Accepted, Some("INDEX.md"), &[0.1])),
            (4, entry(4, Outcome::Silent, Some("INDEX.md"), &[])),
            (5, entry(5, Outcome::Abandoned, None, &[])),
        ];
        let mut store = FailOpenStore::memory(64);
        let counts = write_all(&mut store, entries).expect("imports");
        assert_eq!(
            counts,
            ImportCounts {
                entries: 5,
                silences: 1,
                skipped: 0
            }
        );
        let history = store.history().expect("history");
        assert_eq!(history[3].decision.outcome, Outcome::Silent);
        assert_eq!(history[3].decision.accepted.as_deref(), Some("INDEX.md"));
        assert_eq!(history[4].decision.outcome, Outcome::Abandoned);
        let rows = store.rate_rows().expect("rows");
        // 1/3 − 0.2 − 0.2 clamps at 0, then + 0.1: order matters and was kept.
        assert_eq!(rows.len(), 1);
        assert!((rows[0].1.step - 0.1).abs() < 1e-12, "{:?}", rows[0].1);
        assert_eq!((rows[0].1.accepts, rows[0].1.rejects), (1, 2));
        assert!(check_fold(&store).expect("fold").is_clean());
    }
}
