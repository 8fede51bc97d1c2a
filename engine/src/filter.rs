//! The existence filter: a companion survives when it exists under one of the call's bases.

use crate::compiled::{CompanionForm, CompiledCompanion};
use crate::paths::strip_base;
use crate::probe::{EntryKind, FileProbe, RealRoot};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// The directories a call's companions are looked up under, and the root's real path.
#[derive(Clone, Debug)]
pub struct Bases {
    /// The workspace root.
    pub root: PathBuf,
    /// The nearest ancestor of the call path, at or below the root, holding `package.json`.
    pub package_root: Option<PathBuf>,
    /// The package root's parent, when it is at or below the root.
    pub package_parent: Option<PathBuf>,
    /// The root with symlinks resolved (lazily): nothing may resolve outside it.
    real_root: RealRoot,
    /// The distinct bases, root first (computed once: every companion is looked up under
    /// each).
    distinct: Vec<PathBuf>,
    /// A reused buffer for `base/companion` (one allocation per call rather than per lookup).
    scratch: RefCell<PathBuf>,
}

/// `dir.join(rest)`, built in `buf`.
fn joined<'b>(buf: &'b mut PathBuf, dir: &Path, rest: impl AsRef<Path>) -> &'b Path {
    buf.as_mut_os_string().clear();
    buf.push(dir);
    buf.push(rest);
    buf
}

impl Bases {
    /// Finds the bases of a call path inside `root`.
    pub fn find(root: &Path, call_path: &Path, probe: &dyn FileProbe) -> Bases {
        let start = match probe.kind(call_path) {
            Some(EntryKind::Dir) => call_path,
            _ => call_path.parent().unwrap_or(call_path),
        };
        let mut scratch = PathBuf::new();
        let package_root = start
            .ancestors()
            .take_while(|dir| strip_base(dir, root).is_some())
            .find(|dir| {
                probe
                    .kind(joined(&mut scratch, dir, "package.json"))
                    .is_some()
            })
            .map(Path::to_path_buf);
        let package_parent = package_root
            .as_deref()
            .filter(|p| *p != root)
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        let mut distinct = vec![root.to_path_buf()];
        for base in [&package_root, &package_parent].into_iter().flatten() {
            if !distinct.contains(base) {
                distinct.push(base.clone());
            }
        }
        Bases {
            root: root.to_path_buf(),
            package_root,
            package_parent,
            real_root: RealRoot::default(),
            distinct,
            scratch: RefCell::new(scratch),
        }
    }

    /// The distinct bases, root first.
    pub fn all(&self) -> &[PathBuf] {
        &self.distinct
    }

    /// The distinct bases, root first, kept past the filter.
    pub fn into_all(self) -> Vec<PathBuf> {
        self.distinct
    }

    /// Whether `path` exists and, symlinks resolved, stays inside the root.
    fn inside(&self, path: &Path, probe: &dyn FileProbe) -> bool {
        probe.resolves_within(path, &self.root, &self.real_root)
    }

    /// Whether a companion survives the filter. The filter drops, it never rewrites (a
    /// template is kept or dropped by its substitution: [`Bases::keeps_substituted`]).
    pub fn keeps(&self, companion: &CompiledCompanion, probe: &dyn FileProbe) -> bool {
        match &companion.form {
            CompanionForm::Placeholder => true,
            CompanionForm::Escaping | CompanionForm::Template => false,
            CompanionForm::Literal => self.all().iter().any(|base| {
                let mut scratch = self.scratch.borrow_mut();
                self.inside(joined(&mut scratch, base, &companion.path), probe)
            }),
            CompanionForm::Glob { prefix } => self.all().iter().any(|base| {
                let dir = base.join(prefix);
                probe.kind(&dir) == Some(EntryKind::Dir) && self.inside(&dir, probe)
            }),
            CompanionForm::AnySubdir { rest } => {
                let mut parents: Vec<&Path> = Vec::new();
                for dir in [self.package_parent.as_deref(), Some(self.root.as_path())]
                    .into_iter()
                    .flatten()
                {
                    if !parents.contains(&dir) {
                        parents.push(dir);
                    }
                }
                parents.iter().any(|parent| {
                    probe
                        .subdirectories(parent)
                        .iter()
                        .any(|sub| self.inside(&parent.join(sub).join(rest), probe))
                })
            }
        }
    }

    /// Whether a template's substitution `path` (relative, checked by
    /// [`crate::compiled::substitute`]) survives: the file exists under a base, or nothing is
    /// there yet and its parent directory exists (a file the change must create is the most
    /// useful companion). Something at the path that does not resolve inside the root (a
    /// symlink out, a dangling one) is never a file to create: it is dropped.
    pub fn keeps_substituted(&self, path: &str, probe: &dyn FileProbe) -> bool {
        let mut scratch = self.scratch.borrow_mut();
        self.all().iter().any(|base| {
            let file = joined(&mut scratch, base, path);
            if self.inside(file, probe) {
                return true;
            }
            if probe.is_entry(file) {
                return false;
            }
            match path.rsplit_once('/') {
                // The base itself is the parent.
                None => self.inside(base, probe),
                Some((dir, _)) => {
                    let dir = joined(&mut scratch, base, dir);
                    probe.kind(dir) == Some(EntryKind::Dir) && self.inside(dir, probe)
                }
            }
        })
    }
}
