//! Where each store's recompute reads from: a redb store through one read transaction (its
//! history read in parallel ranges of it), the others through their contents.

use super::{RecomputeInput, RecomputeSource};
use crate::history_read::read_moves;
use crate::{MemoryStore, ReadOnlyStore, RedbStore, StoreReader, StoreView};
use docsuggest_schema::{StoreContents, StoreError};

impl RecomputeSource for StoreView {
    fn recompute_input(&self, parallel: bool) -> Result<RecomputeInput, StoreError> {
        Ok(RecomputeInput {
            base: self.base_rows()?,
            live: self.rate_rows()?,
            history: read_moves(self, parallel)?,
        })
    }
}

/// One read transaction when nothing waits for the next commit. Otherwise the handle's own
/// contents, which hold the waiting resolutions as that commit will write them (and, with
/// `&self` held, nothing writes between their reads): a recompute swapped in with
/// `replace_rates` then keeps their moves.
impl RecomputeSource for RedbStore {
    fn recompute_input(&self, parallel: bool) -> Result<RecomputeInput, StoreError> {
        if self.waiting() > 0 {
            return RecomputeInput::from_contents(self, parallel);
        }
        self.view()?.recompute_input(parallel)
    }
}

impl RecomputeSource for StoreReader {
    fn recompute_input(&self, parallel: bool) -> Result<RecomputeInput, StoreError> {
        self.view()?.recompute_input(parallel)
    }
}

impl RecomputeSource for ReadOnlyStore {
    fn recompute_input(&self, parallel: bool) -> Result<RecomputeInput, StoreError> {
        self.view()?.recompute_input(parallel)
    }
}

impl RecomputeSource for MemoryStore {
    fn recompute_input(&self, parallel: bool) -> Result<RecomputeInput, StoreError> {
        RecomputeInput::from_contents(self, parallel)
    }
}

/// Through `StoreContents`: one snapshot only if the contents' reads agree with one another.
impl RecomputeSource for dyn StoreContents + '_ {
    fn recompute_input(&self, parallel: bool) -> Result<RecomputeInput, StoreError> {
        RecomputeInput::from_contents(self, parallel)
    }
}
