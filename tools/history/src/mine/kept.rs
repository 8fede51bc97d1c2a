//! What validation kept (`validate.rs`): each kept companion with its figures on the newer
//! part of the history, and which companions the counts may name.

use super::rules::Shape;
use serde::Serialize;
use std::collections::HashMap;

/// How often a companion was named on the newer part and how often the commit then changed
/// it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Figures {
    /// Commits of the newer part whose change named it.
    pub named: u32,
    /// Of those, the commits that changed it too.
    pub followed: u32,
}

impl Figures {
    /// Both figures added.
    pub fn plus(self, other: Figures) -> Figures {
        Figures {
            named: self.named + other.named,
            followed: self.followed + other.followed,
        }
    }
}

/// The companions the newer part kept, each with its figures there.
#[derive(Debug, Default)]
pub struct Kept {
    pub(super) rules: HashMap<Shape, HashMap<String, Figures>>,
    pub(super) files: HashMap<String, HashMap<String, Figures>>,
}

impl Kept {
    /// The figures a rule's companion was kept on, if it was.
    pub fn rule(&self, shape: &Shape, path: &str) -> Option<Figures> {
        self.rules.get(shape)?.get(path).copied()
    }

    /// The figures a file's per-file companion was kept on, if it was.
    pub fn file(&self, file: &str, companion: &str) -> Option<Figures> {
        self.files.get(file)?.get(companion).copied()
    }
}

/// Which companions the counts may name: every one they support, or only those the newer
/// part of the history kept (`validate.rs`).
#[derive(Clone, Copy)]
pub enum Keep<'k> {
    /// Every companion the counts support.
    All,
    /// Only the kept ones, each with the figures it was kept on.
    Only(&'k Kept),
}

impl Keep<'_> {
    /// Whether the rule's companion may be named, and what validated it: `Err` when it may
    /// not.
    pub(super) fn rule(&self, shape: &Shape, path: &str) -> Result<Option<Figures>, ()> {
        match self {
            Keep::All => Ok(None),
            Keep::Only(kept) => kept.rule(shape, path).map(Some).ok_or(()),
        }
    }
}
