//! A store seen through the work tree's keys: the engine judges in the scratch work tree, and
//! every key it reads or records is the one the same call in the work tree would have had
//! ([`Keys`]), so a replay into a real store leaves exactly the rows, history and pending
//! decisions a session in the work tree reads.

use super::scratch::Keys;
use docsuggest_engine::BoxedStore;
use docsuggest_schema::store::{MinedPack, StoreHealth};
use docsuggest_schema::{
    Config, Decision, DecisionStore, RateKey, RateRow, RateSnapshot, Resolution, StoreContents,
    StoreError, StoreKind,
};

/// `inner`, with the scratch's workspace keys read and written as the work tree's.
pub struct Rekeyed {
    inner: BoxedStore,
    keys: Keys,
}

impl Rekeyed {
    /// `inner` seen through `keys`.
    pub fn new(inner: BoxedStore, keys: Keys) -> Rekeyed {
        Rekeyed { inner, keys }
    }

    fn workspace(&self, key: &mut String) {
        if let Some(work) = self.keys.get(key) {
            *key = work;
        }
    }
}

struct Snapshot<'a> {
    inner: Box<dyn RateSnapshot + 'a>,
    keys: &'a Keys,
}

impl RateSnapshot for Snapshot<'_> {
    fn row(&self, key: &RateKey) -> Result<Option<RateRow>, StoreError> {
        match self.keys.get(&key.workspace) {
            Some(workspace) => self.inner.row(&RateKey {
                workspace,
                ..key.clone()
            }),
            None => self.inner.row(key),
        }
    }
}

impl DecisionStore for Rekeyed {
    fn kind(&self) -> StoreKind {
        self.inner.kind()
    }

    fn snapshot(&self) -> Result<Box<dyn RateSnapshot + '_>, StoreError> {
        Ok(Box::new(Snapshot {
            inner: self.inner.snapshot()?,
            keys: &self.keys,
        }))
    }

    fn record_pending(&mut self, mut decision: Decision) -> Result<u64, StoreError> {
        self.workspace(&mut decision.workspace);
        self.inner.record_pending(decision)
    }

    fn record_silent(&mut self, mut decision: Decision) -> Result<u64, StoreError> {
        self.workspace(&mut decision.workspace);
        self.inner.record_silent(decision)
    }

    fn resolve(&mut self, mut resolution: Resolution) -> Result<(), StoreError> {
        for mv in &mut resolution.moves {
            self.workspace(&mut mv.key.workspace);
        }
        self.inner.resolve(resolution)
    }

    fn flush(&mut self) -> Result<u64, StoreError> {
        self.inner.flush()
    }

    fn close(&mut self) -> Result<u64, StoreError> {
        self.inner.close()
    }

    fn configure(&mut self, config: &Config) {
        self.inner.configure(config);
    }

    fn contents(&self) -> Option<&dyn StoreContents> {
        self.inner.contents()
    }

    fn health(&self) -> StoreHealth {
        self.inner.health()
    }

    fn take_degradation(&mut self) -> Option<String> {
        self.inner.take_degradation()
    }

    fn mined_pack(&self, workspace: &str) -> Result<Option<MinedPack>, StoreError> {
        let key = self.keys.get(workspace);
        self.inner.mined_pack(key.as_deref().unwrap_or(workspace))
    }

    fn put_mined_pack(&mut self, workspace: &str, mined: MinedPack) -> Result<(), StoreError> {
        let key = self.keys.get(workspace);
        self.inner
            .put_mined_pack(key.as_deref().unwrap_or(workspace), mined)
    }
}
