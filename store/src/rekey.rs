//! Re-keying a workspace: what was learned under one workspace key moves to another, in one
//! durable write transaction. A workspace in a git repository used to be keyed by its path; it
//! is now keyed by its repository (docs/FLEET.md), and the store holds no paths, so no schema
//! step can tell which repository a path key belonged to. The engine moves a root's rows the
//! first time it derives the root's repository key, through this.
//!
//! Every move of a history entry is keyed to the entry's own workspace, so rewriting the
//! workspace of `from`'s rows, entries, moves and pending decisions together keeps
//! `live == fold(base, history)` for every key. A key both workspaces learned is folded again
//! from both keys' moves in history order, which is exact only when neither has a base row for
//! it (evicted moves are gone): then nothing moves.

use crate::errors::ResultExt;
use crate::redb_store::RedbStore;
use crate::tables::{
    KeyTuple, MINED, ShowKey, decode_pending, decode_row, encode_decision, encode_entry,
    read_history,
};
use crate::tx::{Tx, write_row};
use docsuggest_schema::rate::fold;
use docsuggest_schema::{RateMove, RateRow, Rekeyed, StoreError};
use redb::{ReadableTable, Table};
use std::collections::{BTreeMap, HashMap};

/// A workspace's rows of a rates-shaped table, by (family, companion).
type Rows = BTreeMap<(String, String), RateRow>;

fn rows_of(
    path: &str,
    name: &str,
    table: &Table<'_, KeyTuple<'static>, &'static [u8]>,
    workspace: &str,
) -> Result<Rows, StoreError> {
    let doing = format!("reading {name}");
    let mut rows = Rows::new();
    for item in table.range((workspace, "", "")..).at(path, &doing)? {
        let (k, v) = item.at(path, &doing)?;
        let (w, family, companion) = k.value();
        if w != workspace {
            break;
        }
        let row = decode_row(name, (w, family, companion), v.value())?;
        rows.insert((family.to_string(), companion.to_string()), row);
    }
    Ok(rows)
}

/// The moves of the keys both workspaces learned, to fold those rows again from.
type SharedMoves = HashMap<(String, String), Vec<RateMove>>;

impl Tx<'_> {
    /// Moves everything of `from` to `to` in this transaction: rows, history, pending, mined.
    fn rekey_workspace(&mut self, from: &str, to: &str) -> Result<Rekeyed, StoreError> {
        let path = self.path;
        let mut done = Rekeyed::default();
        let live = rows_of(path, "rates", &self.rates, from)?;
        let base = rows_of(path, "base", &self.base, from)?;
        let their_live = rows_of(path, "rates", &self.rates, to)?;
        let their_base = rows_of(path, "base", &self.base, to)?;
        let shared = shared_keys(from, to, &live, &base, &their_live, &their_base)?;
        let shared_moves = self.rekey_history(from, to, &shared, &mut done)?;
        self.move_live_rows(from, to, &live, &shared_moves, &mut done)?;
        self.move_base_rows(from, to, &base, &mut done)?;
        self.rekey_pending(from, to, &mut done)?;
        self.rekey_mined(from, to, &mut done)?;
        Ok(done)
    }

    /// Gives `from`'s history entries (and their moves of `from`) the key `to`, and gathers
    /// the moves of the `shared` keys, of both workspaces, in history order.
    fn rekey_history(
        &mut self,
        from: &str,
        to: &str,
        shared: &[&(String, String)],
        done: &mut Rekeyed,
    ) -> Result<SharedMoves, StoreError> {
        let path = self.path;
        let mut shared_moves: SharedMoves =
            shared.iter().map(|k| ((*k).clone(), Vec::new())).collect();
        for mut entry in read_history(path, &self.history, &self.moves)? {
            let ours = entry.decision.workspace == from;
            if ours {
                entry.decision.workspace = to.to_string();
                for mv in &mut entry.moves {
                    if mv.key.workspace == from {
                        mv.key.workspace = to.to_string();
                    }
                }
                let bytes = encode_entry(&entry)?;
                let seq = entry.resolution_seq;
                self.history
                    .insert(seq, bytes.head.as_slice())
                    .at(path, "re-keying history")?;
                self.moves
                    .insert(seq, bytes.moves.as_slice())
                    .at(path, "re-keying history")?;
                done.history += 1;
            }
            if shared_moves.is_empty() || !(ours || entry.decision.workspace == to) {
                continue;
            }
            for mv in entry.moves.iter().filter(|mv| mv.key.workspace == to) {
                let key = (mv.key.family.clone(), mv.key.companion.clone());
                if let Some(moves) = shared_moves.get_mut(&key) {
                    moves.push(mv.clone());
                }
            }
        }
        Ok(shared_moves)
    }

    /// Moves `from`'s live rows to `to`; a shared key's row is folded again from both
    /// workspaces' moves.
    fn move_live_rows(
        &mut self,
        from: &str,
        to: &str,
        live: &Rows,
        shared_moves: &SharedMoves,
        done: &mut Rekeyed,
    ) -> Result<(), StoreError> {
        let path = self.path;
        for ((family, companion), row) in live {
            let row = match shared_moves.get(&(family.clone(), companion.clone())) {
                Some(moves) => {
                    done.merged += 1;
                    fold(None, moves)
                }
                None => *row,
            };
            self.rates
                .remove((from, family.as_str(), companion.as_str()))
                .at(path, "re-keying rates")?;
            let key = (to, family.as_str(), companion.as_str());
            write_row(path, "rates", &mut self.rates, key, &row)?;
            done.rates += 1;
        }
        Ok(())
    }

    fn move_base_rows(
        &mut self,
        from: &str,
        to: &str,
        base: &Rows,
        done: &mut Rekeyed,
    ) -> Result<(), StoreError> {
        let path = self.path;
        for ((family, companion), row) in base {
            self.base
                .remove((from, family.as_str(), companion.as_str()))
                .at(path, "re-keying base rows")?;
            let key = (to, family.as_str(), companion.as_str());
            write_row(path, "base", &mut self.base, key, row)?;
            done.base += 1;
        }
        Ok(())
    }

    /// Gives `from`'s pending decisions the key `to` (all read before any is rewritten).
    fn rekey_pending(
        &mut self,
        from: &str,
        to: &str,
        done: &mut Rekeyed,
    ) -> Result<(), StoreError> {
        let path = self.path;
        let mut pending = Vec::new();
        for item in self.pending.iter().at(path, "reading pending")? {
            let (k, v) = item.at(path, "reading pending")?;
            let decision = decode_pending(path, k.value(), v.value())?;
            if decision.workspace == from {
                pending.push(decision);
            }
        }
        for mut decision in pending {
            decision.workspace = to.to_string();
            let bytes = encode_decision(&decision)?;
            self.insert_pending(decision.seq, &bytes)?;
            done.pending += 1;
        }
        Ok(())
    }

    fn rekey_mined(&mut self, from: &str, to: &str, done: &mut Rekeyed) -> Result<(), StoreError> {
        let path = self.path;
        let mut mined = self.txn.open_table(MINED).at(path, "opening mined")?;
        // The new key's own pack, if it has one, is the newer word.
        if mined.get(to).at(path, "reading mined")?.is_none() {
            let theirs = mined
                .remove(from)
                .at(path, "re-keying mined")?
                .map(|v| v.value().to_vec());
            if let Some(bytes) = theirs {
                mined
                    .insert(to, bytes.as_slice())
                    .at(path, "re-keying mined")?;
                done.mined = true;
            }
        }
        Ok(())
    }
}

/// The keys both workspaces learned; refused when either folded part of one into a base row
/// (its evicted moves are gone, so the two cannot be added up exactly).
fn shared_keys<'a>(
    from: &str,
    to: &str,
    live: &'a Rows,
    base: &Rows,
    their_live: &Rows,
    their_base: &Rows,
) -> Result<Vec<&'a (String, String)>, StoreError> {
    let shared: Vec<&(String, String)> = live
        .keys()
        .filter(|k| their_live.contains_key(*k))
        .collect();
    if let Some((family, companion)) = shared
        .iter()
        .find(|k| base.contains_key(**k) || their_base.contains_key(**k))
    {
        return Err(StoreError::Invalid(format!(
            "workspace {from:?} cannot move to {to:?}: both learned {} and part of it was \
             folded into a base row, so the two cannot be added up exactly",
            ShowKey((to, family, companion))
        )));
    }
    Ok(shared)
}

impl RedbStore {
    /// [`DecisionStore::rekey_workspace`](docsuggest_schema::DecisionStore::rekey_workspace):
    /// a read answers first whether `from` holds anything, so the common case (nothing to
    /// move) writes nothing.
    pub fn rekey_workspace(&mut self, from: &str, to: &str) -> Result<Rekeyed, StoreError> {
        if from == to || !self.view()?.holds_workspace(from)? {
            return Ok(Rekeyed::default());
        }
        self.commit(true, "re-keying a workspace", |tx| {
            tx.rekey_workspace(from, to)
        })
    }
}

#[cfg(test)]
mod tests;
