//! A test hook that aborts the process at a named point of the store's work, so a parent
//! process can check what a crash exactly there leaves on disk (the kill tests in
//! `tests/reliability`).
//!
//! `DOCSUGGEST_CRASH_AT=<point>[:<n>]` aborts the process with [`std::process::abort`] the
//! `n`-th time (default: the first) a store of this process reaches `<point>`:
//!
//! | point           | where |
//! |-----------------|-------|
//! | `after-commit`  | a write transaction (or a flush) has committed; nothing has been answered |
//! | `mid-migration` | an upgrade's (or a new store's initialising) transaction is written, not committed |
//! | `mid-recompute` | the live rates are replaced in the open transaction, not committed |
//! | `mid-create`    | a new file is complete under its temporary name, not yet linked in place |
//!
//! The variable is read once per open. Unset — always, outside those tests — the hook costs one
//! environment lookup per open and one branch per commit.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable that arms the hook.
pub(crate) const VAR: &str = "DOCSUGGEST_CRASH_AT";

/// A named point of the store's work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CrashPoint {
    AfterCommit,
    MidMigration,
    MidRecompute,
    MidCreate,
}

impl CrashPoint {
    const ALL: [CrashPoint; 4] = [
        CrashPoint::AfterCommit,
        CrashPoint::MidMigration,
        CrashPoint::MidRecompute,
        CrashPoint::MidCreate,
    ];

    fn name(self) -> &'static str {
        match self {
            CrashPoint::AfterCommit => "after-commit",
            CrashPoint::MidMigration => "mid-migration",
            CrashPoint::MidRecompute => "mid-recompute",
            CrashPoint::MidCreate => "mid-create",
        }
    }
}

/// Where to abort, if anywhere. Clones share the countdown.
#[derive(Clone, Debug, Default)]
pub(crate) struct CrashHook(Option<Armed>);

#[derive(Clone, Debug)]
struct Armed {
    point: CrashPoint,
    left: Arc<AtomicU64>,
}

impl CrashHook {
    /// The hook `DOCSUGGEST_CRASH_AT` asks for; a value it cannot read disarms it (with a
    /// warning), so a typo never crashes a host.
    pub(crate) fn from_env() -> CrashHook {
        let Some(value) = std::env::var_os(VAR) else {
            return CrashHook::default();
        };
        match value
            .to_str()
            .ok_or(())
            .and_then(|v| CrashHook::parse(v).map_err(|_| ()))
        {
            Ok(hook) => hook,
            Err(()) => {
                tracing::warn!(value = ?value, "{VAR} names no crash point; ignored");
                CrashHook::default()
            }
        }
    }

    /// Reads `<point>[:<n>]`, `n` ≥ 1.
    pub(crate) fn parse(text: &str) -> Result<CrashHook, String> {
        let (name, count) = match text.split_once(':') {
            Some((name, n)) => (name, n.parse::<u64>().map_err(|e| format!("{n:?}: {e}"))?),
            None => (text, 1),
        };
        let point = CrashPoint::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| format!("unknown crash point {name:?}"))?;
        if count == 0 {
            return Err("the count starts at 1".into());
        }
        Ok(CrashHook(Some(Armed {
            point,
            left: Arc::new(AtomicU64::new(count)),
        })))
    }

    /// Aborts the process if this is the armed point's `n`-th arrival.
    pub(crate) fn reached(&self, point: CrashPoint) {
        let Some(armed) = &self.0 else {
            return;
        };
        if armed.point == point && armed.left.fetch_sub(1, Ordering::SeqCst) == 1 {
            eprintln!("docsuggest: {VAR}: aborting at {}", point.name());
            std::process::abort();
        }
    }

    /// Whether `point` is armed with arrivals still to count (for tests).
    #[cfg(test)]
    fn armed_for(&self, point: CrashPoint) -> Option<u64> {
        self.0
            .as_ref()
            .filter(|a| a.point == point)
            .map(|a| a.left.load(Ordering::SeqCst))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expect: Result<(CrashPoint, u64), &str>) {
        let got = CrashHook::parse(text).map(|h| {
            let point = h.0.as_ref().expect("armed").point;
            (point, h.armed_for(point).expect("count"))
        });
        assert_eq!(got, expect.map_err(String::from), "{text}");
    }

    #[test]
    fn points_and_counts_parse() {
        check("after-commit", Ok((CrashPoint::AfterCommit, 1)));
        check("after-commit:7", Ok((CrashPoint::AfterCommit, 7)));
        check("mid-migration", Ok((CrashPoint::MidMigration, 1)));
        check("mid-recompute:2", Ok((CrashPoint::MidRecompute, 2)));
        check("mid-create", Ok((CrashPoint::MidCreate, 1)));
        check("mid-lunch", Err("unknown crash point \"mid-lunch\""));
        check("after-commit:0", Err("the count starts at 1"));
        check(
            "after-commit:x",
            Err("\"x\": invalid digit found in string"),
        );
    }

    #[test]
    fn other_points_and_early_arrivals_pass() {
        let hook = CrashHook::parse("after-commit:3").expect("parse");
        hook.reached(CrashPoint::MidMigration);
        hook.reached(CrashPoint::AfterCommit);
        hook.clone().reached(CrashPoint::AfterCommit);
        assert_eq!(hook.armed_for(CrashPoint::AfterCommit), Some(1));
        CrashHook::default().reached(CrashPoint::AfterCommit);
    }
}
