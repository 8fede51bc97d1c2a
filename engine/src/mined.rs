//! Zero-config: the seam through which a host plugs in a pack miner, and the engine's side of
//! it — which mined pack a git work tree uses, read from the store once, compiled once.
//!
//! A judged call whose path no pack signature claims, but which lies in a git work tree whose
//! root carries no pack file, belongs to that root (see [`crate::locate`]) when the engine has
//! a miner ([`Engine::set_pack_miner`](crate::Engine::set_pack_miner)) and `zeroConfig` is
//! on. Each such call asks the miner, with what the store keeps for the root's workspace key:
//!
//! - [`MinedAnswer::UseStored`]: the stored pack is compiled (once per record) and the call is
//!   judged with it exactly as with a repo pack;
//! - [`MinedAnswer::Mined`]: the new record is stored ([`DecisionStore::put_mined_pack`]) and
//!   used from now on;
//! - [`MinedAnswer::Pending`]: the call is silent, `abstained pack-mining 0.00`;
//! - [`MinedAnswer::Unavailable`]: `abstained foreign-workspace 0.00`, as without zero-config,
//!   with the miner's reason among the answer's warnings.
//!
//! The engine stays pure: it mines nothing, starts no thread and reads no git. Reading the
//! history, and deciding when to mine again, is the miner's; it is asked on every judged call
//! in such a work tree, so it should answer from memory.

use crate::compiled::CompiledPack;
use crate::line_format::Abstain;
use docsuggest_schema::{DecisionStore, MinedPack, Pack};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the host implements to mine packs from a repository's history.
pub trait PackMiner {
    /// A call landed in the git work tree `root` (workspace key `key`), which has no pack
    /// file and no signature. `stored` is what the store holds for `key`, if anything.
    fn request(&mut self, root: &Path, key: &str, stored: Option<&MinedPack>) -> MinedAnswer;
}

/// The miner's answer for one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MinedAnswer {
    /// Use the stored pack (it may be being re-mined in the background).
    UseStored,
    /// A pack mined just now: the engine stores it (put_mined_pack) and uses it from now on.
    Mined(MinedPack),
    /// Nothing usable yet: mining runs in the background; the call is silent.
    Pending,
    /// This work tree cannot be mined (not a usable history, a failed or panicking job):
    /// foreign-workspace as today, the reason (for a person) among the answer's warnings.
    Unavailable(String),
}

/// The most work-tree roots whose mined state the engine keeps; one more forgets them all
/// (each is read from the store again when next seen).
pub const MAX_MINED_ROOTS: usize = 64;

/// What the engine knows of one zero-config root.
struct RootState {
    /// The record the store holds for the root's key (read once), or the one stored since.
    stored: Option<MinedPack>,
    /// `stored` compiled, once a call used it.
    compiled: Option<Arc<CompiledPack>>,
}

/// The pack one zero-config call is judged with, or why it abstains.
pub(crate) enum Resolved {
    /// Judge with this pack.
    Use(Arc<CompiledPack>),
    /// Abstain for this reason (no family, no kappa), saying why when a person should know
    /// (the miner failed, the mined pack does not compile).
    Abstain(Abstain, Option<String>),
}

/// The engine's miner and, per work-tree root, the stored record and its compiled pack.
pub(crate) struct MinedPacks {
    miner: Box<dyn PackMiner + Send>,
    roots: HashMap<PathBuf, RootState>,
}

impl MinedPacks {
    pub(crate) fn new(miner: Box<dyn PackMiner + Send>) -> MinedPacks {
        MinedPacks {
            miner,
            roots: HashMap::new(),
        }
    }

    /// The pack the call in the zero-config root `root` (key `key`) is judged with, asking the
    /// miner; the store is read the first time the root is seen, and written when the miner
    /// mined. Answers too whether the roots kept so far were forgotten (past
    /// [`MAX_MINED_ROOTS`]), so the packs in use must be forgotten too.
    pub(crate) fn resolve(
        &mut self,
        root: &Path,
        key: &str,
        store: &mut (dyn DecisionStore + Send),
    ) -> (Resolved, bool) {
        let mut forgot = false;
        if !self.roots.contains_key(root) {
            if self.roots.len() >= MAX_MINED_ROOTS {
                self.roots.clear();
                forgot = true;
            }
            let stored = match store.mined_pack(key) {
                Ok(stored) => stored,
                Err(e) => {
                    tracing::warn!(workspace = key, error = %e,
                        "reading the stored mined pack failed; asking the miner without it");
                    None
                }
            };
            self.roots.insert(
                root.to_path_buf(),
                RootState {
                    stored,
                    compiled: None,
                },
            );
        }
        let Some(state) = self.roots.get_mut(root) else {
            return (Resolved::Abstain(Abstain::ForeignWorkspace, None), forgot);
        };
        (answer(self.miner.as_mut(), state, root, key, store), forgot)
    }
}

fn answer(
    miner: &mut (dyn PackMiner + Send),
    state: &mut RootState,
    root: &Path,
    key: &str,
    store: &mut (dyn DecisionStore + Send),
) -> Resolved {
    let reply = match miner.request(root, key, state.stored.as_ref()) {
        // A stored record that does not compile counts as none: the miner is asked once more.
        MinedAnswer::UseStored
            if state.stored.is_some() && state.compiled_stored(key).is_none() =>
        {
            miner.request(root, key, None)
        }
        reply => reply,
    };
    match reply {
        MinedAnswer::UseStored => match state.compiled_stored(key) {
            Some(pack) => Resolved::Use(pack),
            None => {
                tracing::warn!(
                    workspace = key,
                    "the pack miner answered use-stored with no usable stored pack"
                );
                Resolved::Abstain(Abstain::ForeignWorkspace, None)
            }
        },
        MinedAnswer::Mined(record) => match compile(&record, key) {
            Ok(pack) => {
                if let Err(e) = store.put_mined_pack(key, record.clone()) {
                    tracing::error!(workspace = key, error = %e,
                        "storing the mined pack failed; it is used in memory");
                }
                state.stored = Some(record);
                state.compiled = Some(pack.clone());
                Resolved::Use(pack)
            }
            Err(e) => {
                tracing::error!(workspace = key, error = %e,
                    "the pack miner answered a pack that does not compile; not stored");
                Resolved::Abstain(
                    Abstain::ForeignWorkspace,
                    Some(format!(
                        "the pack mined from the history of {} does not load, so the work tree \
                         stays without one: {e}",
                        root.display()
                    )),
                )
            }
        },
        MinedAnswer::Pending => Resolved::Abstain(Abstain::PackMining, None),
        MinedAnswer::Unavailable(reason) => Resolved::Abstain(
            Abstain::ForeignWorkspace,
            Some(format!(
                "no pack could be mined from the history of {}: {reason}",
                root.display()
            )),
        ),
    }
}

impl RootState {
    /// The stored record compiled (once per record). A record that does not compile is
    /// dropped (logged): from then on the root has no stored record.
    fn compiled_stored(&mut self, key: &str) -> Option<Arc<CompiledPack>> {
        if let Some(pack) = &self.compiled {
            return Some(pack.clone());
        }
        let record = self.stored.as_ref()?;
        match compile(record, key) {
            Ok(pack) => {
                self.compiled = Some(pack.clone());
                Some(pack)
            }
            Err(e) => {
                tracing::error!(workspace = key, error = %e,
                    "the stored mined pack does not compile; treated as none");
                self.stored = None;
                None
            }
        }
    }
}

/// A mined record's pack, parsed and compiled as a repo pack file is.
fn compile(
    record: &MinedPack,
    key: &str,
) -> Result<Arc<CompiledPack>, docsuggest_schema::PackError> {
    let name = format!("mined pack of {key} at {}", record.head);
    let pack = Pack::from_json_str(&record.pack, &name)?;
    CompiledPack::compile(&pack, &name).map(Arc::new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::NullStore;

    type Seen = std::sync::Arc<std::sync::Mutex<Vec<Option<MinedPack>>>>;

    /// Answers from a script (then use-stored), recording what it was handed.
    struct Script {
        answers: Vec<MinedAnswer>,
        seen: Seen,
    }

    fn script(answers: Vec<MinedAnswer>) -> (MinedPacks, Seen) {
        let seen = Seen::default();
        let miner = Script {
            answers,
            seen: seen.clone(),
        };
        (MinedPacks::new(Box::new(miner)), seen)
    }

    impl PackMiner for Script {
        fn request(&mut self, _: &Path, _: &str, stored: Option<&MinedPack>) -> MinedAnswer {
            self.seen.lock().expect("lock").push(stored.cloned());
            if self.answers.is_empty() {
                MinedAnswer::UseStored
            } else {
                self.answers.remove(0)
            }
        }
    }

    fn record(pack: &str) -> MinedPack {
        MinedPack {
            pack: pack.into(),
            head: "c0ffee".into(),
            commits: 3,
            miner: 1,
        }
    }

    const PACK: &str = r#"{"families": [{"name": "Src", "rules": ["src/*.py"],
        "threshold": 0.5, "companions": [{"path": "tests/test_a.py", "prior": 1.0}]}]}"#;

    #[test]
    fn a_stored_pack_that_does_not_compile_counts_as_none_once() {
        let mut store = NullStore::default();
        store.mined.push(("ws-1".into(), record("{not json")));
        let (mut packs, seen) = script(vec![
            MinedAnswer::UseStored,
            MinedAnswer::Mined(record(PACK)),
        ]);
        let (got, forgot) = packs.resolve(Path::new("/r"), "ws-1", &mut store);
        assert!(!forgot);
        let Resolved::Use(pack) = got else {
            panic!("the freshly mined pack is used")
        };
        assert_eq!(pack.families[0].name, "Src");
        // Asked with the broken record, then with none; the new record was stored.
        assert_eq!(
            *seen.lock().expect("lock"),
            [Some(record("{not json")), None]
        );
        assert_eq!(store.mined.last().map(|(_, r)| r), Some(&record(PACK)));
        // From now on the new record is handed over and its compiled pack reused.
        let (again, _) = packs.resolve(Path::new("/r"), "ws-1", &mut store);
        let Resolved::Use(again) = again else {
            panic!("use-stored")
        };
        assert!(Arc::ptr_eq(&pack, &again));
        assert_eq!(seen.lock().expect("lock").last(), Some(&Some(record(PACK))));
    }

    #[test]
    fn use_stored_without_a_record_and_unusable_answers_are_foreign() {
        let mut store = NullStore::default();
        let (mut packs, seen) = script(vec![
            MinedAnswer::UseStored,
            MinedAnswer::Mined(record("[]")),
            MinedAnswer::Unavailable("the job panicked".into()),
            MinedAnswer::Pending,
        ]);
        // Why, where a person should know: the pack that does not load, the miner's reason.
        for (expect, why) in [
            (Abstain::ForeignWorkspace, None),
            (Abstain::ForeignWorkspace, Some("does not load")),
            (Abstain::ForeignWorkspace, Some("the job panicked")),
            (Abstain::PackMining, None),
        ] {
            match packs.resolve(Path::new("/r"), "ws-1", &mut store).0 {
                Resolved::Abstain(reason, said) => {
                    assert_eq!(reason, expect);
                    match why {
                        None => assert_eq!(said, None),
                        Some(why) => {
                            assert!(said.as_deref().is_some_and(|s| s.contains(why)), "{said:?}")
                        }
                    }
                }
                Resolved::Use(_) => panic!("no usable pack"),
            }
        }
        // A mined pack that does not compile is not stored; nothing stored, nothing handed over.
        assert!(store.mined.is_empty());
        assert_eq!(*seen.lock().expect("lock"), [None, None, None, None]);
    }

    #[test]
    fn past_the_bound_every_root_is_forgotten() {
        let mut store = NullStore::default();
        let (mut packs, _) = script(vec![]);
        for i in 0..MAX_MINED_ROOTS {
            let (_, forgot) = packs.resolve(&PathBuf::from(format!("/r{i}")), "k", &mut store);
            assert!(!forgot);
        }
        let (_, forgot) = packs.resolve(Path::new("/one-more"), "k", &mut store);
        assert!(forgot);
        assert_eq!(packs.roots.len(), 1);
    }
}
