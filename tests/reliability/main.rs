//! The reliability suite: the store never loses an acknowledged decision, never corrupts, and
//! never lets bad input through.
//!
//! - `crash` — a real store on a fault-injecting redb backend (`faulty`), driven through a
//!   workload (`workload`) of migration, immediate and group commits, ring wrap-around, and
//!   recompute `--write`; at every chosen I/O operation: an I/O error once, a persistent one,
//!   a full disk, or a power cut that drops, applies or tears the unsynced writes. Each image
//!   is reopened and checked (`invariants`).
//! - `kill` — the real `docsuggest serve` (and `recompute --write`) killed with SIGKILL at
//!   random moments and aborted at named points (`DOCSUGGEST_CRASH_AT`), restarted, checked.
//! - `fuzz` — the protocol parser and dispatcher, config patches, packs, the codec, and
//!   damaged store files: no panic, every bad input answered with an error.
//! - `fuzz_targets` — the checks of the `fuzz/` targets (protocol line, hook event, settings
//!   file, Codex features, pack) over their corpus and mutations of it.
//! - `damaged` — a byte flipped at offsets spread over a store file: every inspection command
//!   answers as on the healthy file or refuses it as corrupt; the damaged fixtures' generator.
//! - `concurrency` — reader threads scoring from snapshots while a writer records and
//!   resolves; every snapshot is one consistent commit and sequences never go back.
//! - `security` — companions never leave the workspace, notes carry no control characters,
//!   store files are owner-only.
//!
//! Short by default (CI); `DOCSUGGEST_LONG=1` runs the long version whose figures
//! `RELIABILITY.md` records (`scale`).

mod concurrency;
mod crash;
mod damaged;
mod faulty;
mod fuzz;
mod fuzz_targets;
mod invariants;
#[cfg(unix)]
mod kill;
mod recovery;
mod scale;
mod security;
mod workload;
