//! The types the judge pipeline's steps share: the call located in a workspace, the
//! settings it is judged with, and the writes it intends. Apart from the steps so that the
//! step that decides (`judge`) and the step that records (`decision`) both build on them
//! without depending on each other's types.

use crate::agent::Window;
use crate::judge::Views;
use crate::locate::Workspace;
use crate::scene::Scene;
use docsuggest_schema::{Decision, DecisionStore, Heuristic, Resolution, Table};
use std::path::Path;

/// A call resolved to a path inside a workspace.
#[derive(Clone, Copy, Debug)]
pub struct Located<'a> {
    /// The resolved, normalised call path (may hold a pattern).
    pub path: &'a Path,
    /// The path relative to the workspace root.
    pub rel: &'a str,
    /// The workspace.
    pub workspace: &'a Workspace,
    /// What the disk says about the path: its family and which companions exist.
    pub scene: &'a Scene,
}

impl<'a> Located<'a> {
    /// The located call of a scene, if its path lies in a workspace.
    pub fn of(scene: &'a Scene) -> Option<Located<'a>> {
        let workspace = scene.workspace.as_ref()?;
        Some(Located {
            path: &scene.path,
            rel: &scene.rel,
            workspace,
            scene,
        })
    }
}

/// What the engine must write for one call, in order.
#[derive(Debug, Default)]
pub struct Effects {
    /// Windows closed by this call.
    pub resolutions: Vec<Resolution>,
    /// A decision to record.
    pub record: Option<Record>,
}

/// A decision to record pending, and the window that opens once the store has numbered it:
/// a note's window, or a silence's observe-only shadow window.
#[derive(Debug)]
pub struct Record {
    /// The decision.
    pub decision: Decision,
    /// Its window.
    pub window: Window,
}

/// Everything one call is judged with besides the agent's state.
pub struct Settings<'a> {
    /// What each step reads of the config in force.
    pub views: &'a Views,
    /// The config's enabled heuristics, as a decision records them.
    pub heuristics: &'a [Heuristic],
    /// Its effective weights.
    pub weights: Table,
    /// The same weights as the `decided` line writes them (written once per config).
    pub weights_text: &'a str,
    /// The store: the call opens one snapshot of it, and only once it has companions to
    /// measure (a call that stops earlier reads nothing).
    pub store: &'a (dyn DecisionStore + Send),
    /// The agent that made the call.
    pub agent: &'a str,
}
