//! A file probe that is either the naive [`OsProbe`] or the engine's [`CachingProbe`],
//! switchable while one engine (and its filled store) stays in place; and a probe that never
//! looks again, which gives the pipeline's cost without any file-system call (a floor, not a
//! probe anyone should use: it is stale by construction).

use docsuggest_engine::probe::{EntryKind, FileProbe, Freshness, OsProbe, RealRoot, Stamp};
use docsuggest_engine::probe_cache::CachingProbe;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Which probe answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ProbeMode {
    /// Every query is a system call: the pipeline that stats every companion base per call.
    Os,
    /// Directory listings cached and validated by directory stamps (the host's probe).
    Caching,
    /// Every answer remembered forever ([`FrozenProbe`]): no system call after the first.
    Frozen,
}

impl ProbeMode {
    /// Both, naive first.
    pub const ALL: [ProbeMode; 2] = [ProbeMode::Os, ProbeMode::Caching];

    /// The name used in figures.
    pub fn name(self) -> &'static str {
        match self {
            ProbeMode::Os => "os",
            ProbeMode::Caching => "caching",
            ProbeMode::Frozen => "frozen",
        }
    }
}

/// The probe selected, and how often the selection was made.
#[derive(Debug)]
struct Selection {
    mode: Cell<ProbeMode>,
    /// Counts every switch: what one probe vouched for says nothing about another's answers.
    switches: Cell<u64>,
}

/// The switch a [`SwitchProbe`]'s owner keeps to change probes.
#[derive(Clone, Debug)]
pub struct ProbeSwitch(Rc<Selection>);

impl ProbeSwitch {
    /// Makes `mode` answer from the next query on.
    pub fn set(&self, mode: ProbeMode) {
        self.0.mode.set(mode);
        self.0.switches.set(self.0.switches.get() + 1);
    }
}

/// Forwards every query to the probe the switch selects. Both probes stay alive, so the
/// caching probe keeps its listings across switches.
pub struct SwitchProbe {
    selection: Rc<Selection>,
    os: OsProbe,
    caching: CachingProbe,
    frozen: FrozenProbe,
}

impl SwitchProbe {
    /// A probe starting in `mode`, and its switch.
    pub fn new(mode: ProbeMode) -> (SwitchProbe, ProbeSwitch) {
        let cell = Rc::new(Selection {
            mode: Cell::new(mode),
            switches: Cell::new(0),
        });
        let probe = SwitchProbe {
            selection: cell.clone(),
            os: OsProbe,
            caching: CachingProbe::new(),
            frozen: FrozenProbe::default(),
        };
        (probe, ProbeSwitch(cell))
    }

    fn active(&self) -> &dyn FileProbe {
        match self.selection.mode.get() {
            ProbeMode::Os => &self.os,
            ProbeMode::Caching => &self.caching,
            ProbeMode::Frozen => &self.frozen,
        }
    }
}

impl FileProbe for SwitchProbe {
    fn kind(&self, path: &Path) -> Option<EntryKind> {
        self.active().kind(path)
    }
    fn stamp(&self, path: &Path) -> Option<Stamp> {
        self.active().stamp(path)
    }
    fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        self.active().read_to_string(path)
    }
    fn subdirectories(&self, dir: &Path) -> Vec<PathBuf> {
        self.active().subdirectories(dir)
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        self.active().canonicalize(path)
    }
    fn plain_entries(&self, dir: &Path) -> Vec<(String, EntryKind)> {
        self.active().plain_entries(dir)
    }
    fn resolves_within(&self, path: &Path, root: &Path, real_root: &RealRoot) -> bool {
        self.active().resolves_within(path, root, real_root)
    }
    fn begin_call(&self) {
        self.active().begin_call();
    }
    fn freshness(&self) -> Option<Freshness> {
        // Every switch starts a new epoch (a probe's epochs stay far below 2^40).
        let f = self.active().freshness()?;
        Some(Freshness {
            epoch: f.epoch ^ (self.selection.switches.get() << 40),
            unsure: f.unsure,
        })
    }
}

/// Asks the OS once per path and query, then answers from memory forever. It never sees a
/// change, so it only measures what a judged call costs besides its file-system calls.
#[derive(Default)]
pub struct FrozenProbe {
    os: OsProbe,
    kinds: Memo<Option<EntryKind>>,
    stamps: Memo<Option<Stamp>>,
    subdirs: Memo<Vec<PathBuf>>,
    real: Memo<Option<PathBuf>>,
}

/// Answers keyed by a path's bytes: hashing bytes is cheaper than `Path`'s component-wise
/// hash, so the floor carries as little of the memo's own cost as possible.
type Memo<T> = RefCell<HashMap<Box<[u8]>, T>>;

fn remembered<T: Clone>(map: &Memo<T>, path: &Path, ask: impl FnOnce() -> T) -> T {
    let key = path.as_os_str().as_encoded_bytes();
    if let Some(v) = map.borrow().get(key) {
        return v.clone();
    }
    let v = ask();
    map.borrow_mut().insert(key.into(), v.clone());
    v
}

impl FileProbe for FrozenProbe {
    fn kind(&self, path: &Path) -> Option<EntryKind> {
        remembered(&self.kinds, path, || self.os.kind(path))
    }
    fn stamp(&self, path: &Path) -> Option<Stamp> {
        remembered(&self.stamps, path, || self.os.stamp(path))
    }
    fn read_to_string(&self, path: &Path) -> std::io::Result<String> {
        self.os.read_to_string(path)
    }
    fn subdirectories(&self, dir: &Path) -> Vec<PathBuf> {
        remembered(&self.subdirs, dir, || self.os.subdirectories(dir))
    }
    fn canonicalize(&self, path: &Path) -> Option<PathBuf> {
        remembered(&self.real, path, || self.os.canonicalize(path))
    }
    fn plain_entries(&self, dir: &Path) -> Vec<(String, EntryKind)> {
        self.os.plain_entries(dir)
    }
    fn freshness(&self) -> Option<Freshness> {
        // Its answers never change, by construction.
        Some(Freshness {
            epoch: 0,
            unsure: 0,
        })
    }
}
