//! A store that keeps nothing, for examples and for tests of the pure pipeline.

use docsuggest_schema::{
    Decision, DecisionStore, MinedPack, RateKey, RateRow, RateSnapshot, Resolution, StoreError,
    StoreKind,
};
use std::sync::{Arc, Mutex};

/// Answers every rate as unlearned, numbers decisions, and forgets them.
#[derive(Debug, Default)]
pub struct NullStore {
    next_seq: u64,
    /// Every resolution it was asked to make, in order (for assertions).
    pub resolutions: Vec<Resolution>,
    /// Every decision it was asked to record, in order (for assertions).
    pub decisions: Vec<Decision>,
    /// Every snapshot opened and the keys read through it, in order (for assertions; shared,
    /// so a test can keep a handle after boxing the store).
    pub reads: Arc<Mutex<Vec<Vec<RateKey>>>>,
    /// Every mined pack it was asked to keep, in order, by workspace key (the last one of a
    /// workspace is what it answers for it).
    pub mined: Vec<(String, MinedPack)>,
}

impl NullStore {
    /// A boxed empty store.
    pub fn boxed() -> crate::BoxedStore {
        Box::new(NullStore::default())
    }
}

struct Unlearned<'a> {
    reads: &'a Mutex<Vec<Vec<RateKey>>>,
}

impl RateSnapshot for Unlearned<'_> {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        if let Ok(mut reads) = self.reads.lock()
            && let Some(last) = reads.last_mut()
        {
            last.push(key.clone());
        }
        Ok(None)
    }
}

impl DecisionStore for NullStore {
    fn kind(&self) -> StoreKind {
        StoreKind::Memory
    }

    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        if let Ok(mut reads) = self.reads.lock() {
            reads.push(Vec::new());
        }
        Ok(Box::new(Unlearned { reads: &self.reads }))
    }

    fn record_pending(&mut self, mut decision: Decision) -> Result<u64, StoreError> {
        self.next_seq += 1;
        decision.seq = self.next_seq;
        self.decisions.push(decision);
        Ok(self.next_seq)
    }

    fn record_silent(&mut self, decision: Decision) -> Result<u64, StoreError> {
        self.record_pending(decision)
    }

    fn resolve(&mut self, resolution: Resolution) -> Result<(), StoreError> {
        self.resolutions.push(resolution);
        Ok(())
    }

    fn flush(&mut self) -> Result<u64, StoreError> {
        Ok(self.next_seq)
    }

    fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        Ok(self
            .mined
            .iter()
            .rev()
            .find(|(w, _)| w == workspace)
            .map(|(_, m)| m.clone()))
    }

    fn put_mined_pack(&mut self, workspace: &str, mined: MinedPack) -> Result<(), StoreError> {
        self.mined.push((workspace.to_string(), mined));
        Ok(())
    }
}
