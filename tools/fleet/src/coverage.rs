//! Which resolutions of each workspace's runs a merge has folded in: what a later merge by
//! the day skips as already merged, and what it refuses as late (docs/FLEET.md).
//!
//! An export's files each say, per run, the resolutions the export covered
//! ([`RUNS_KEY`](crate::columns::RUNS_KEY)); a run's resolutions are contiguous in its
//! store, so a merged file covers those ranges of its workspace's runs whole.

use std::collections::BTreeMap;

/// (workspace, store id, run).
pub type RunOf = (String, String, String);

/// Per workspace's run, the merged resolution ranges, in order and disjoint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Coverage(BTreeMap<RunOf, Vec<(i64, i64)>>);

/// How a range of a run stands against what was merged before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Standing {
    /// Every resolution of it was merged: its moves count already.
    Merged,
    /// It goes on past what was merged (or the run is new).
    New,
    /// Part of it lies before resolutions already merged and was not merged itself: folded
    /// now, it would come after moves that follow it.
    Late,
}

impl Coverage {
    /// The ranges of one run.
    pub fn ranges(&self, run: &RunOf) -> &[(i64, i64)] {
        self.0.get(run).map_or(&[], Vec::as_slice)
    }

    /// Whether resolution `seq` of `run` was merged.
    pub fn covers(&self, run: &RunOf, seq: i64) -> bool {
        within(self.ranges(run), seq)
    }

    /// How `first..=last` of `run` stands.
    pub fn standing(&self, run: &RunOf, first: i64, last: i64) -> Standing {
        let ranges = self.ranges(run);
        let Some(&(_, end)) = ranges.last() else {
            return Standing::New;
        };
        // The part at or before the last merged resolution must have been merged whole.
        let upto = last.min(end);
        let mut next = first;
        for &(a, b) in ranges {
            if b < next {
                continue;
            }
            if a > next {
                break;
            }
            next = b + 1;
            if next > upto {
                break;
            }
        }
        match (next > upto, last > end) {
            (false, _) if first <= end => Standing::Late,
            (_, true) => Standing::New,
            _ => Standing::Merged,
        }
    }

    /// Adds `first..=last` of `run`.
    pub fn add(&mut self, run: RunOf, first: i64, last: i64) {
        let ranges = self.0.entry(run).or_default();
        ranges.push((first, last));
        ranges.sort_unstable();
        let mut merged: Vec<(i64, i64)> = Vec::with_capacity(ranges.len());
        for &(a, b) in ranges.iter() {
            match merged.last_mut() {
                Some(prev) if a <= prev.1.saturating_add(1) => prev.1 = prev.1.max(b),
                _ => merged.push((a, b)),
            }
        }
        *ranges = merged;
    }

    /// Every run's ranges.
    pub fn iter(&self) -> impl Iterator<Item = (&RunOf, &[(i64, i64)])> {
        self.0.iter().map(|(k, v)| (k, v.as_slice()))
    }
}

/// Whether `seq` lies in one of `ranges` (in order, disjoint).
pub fn within(ranges: &[(i64, i64)], seq: i64) -> bool {
    let i = ranges.partition_point(|&(first, _)| first <= seq);
    i.checked_sub(1)
        .and_then(|i| ranges.get(i))
        .is_some_and(|&(_, last)| seq <= last)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run() -> RunOf {
        ("w".into(), "s".into(), "r".into())
    }

    #[test]
    fn a_range_is_merged_new_or_late_against_what_was_merged() {
        let mut c = Coverage::default();
        assert_eq!(c.standing(&run(), 5, 9), Standing::New);
        c.add(run(), 1, 10);
        c.add(run(), 11, 20);
        c.add(run(), 31, 40);
        assert_eq!(c.ranges(&run()), [(1, 20), (31, 40)]);
        assert!(c.covers(&run(), 20) && !c.covers(&run(), 21) && c.covers(&run(), 31));
        assert_eq!(c.standing(&run(), 3, 18), Standing::Merged);
        assert_eq!(c.standing(&run(), 35, 50), Standing::New);
        assert_eq!(c.standing(&run(), 41, 50), Standing::New);
        // 21..30 was never merged and 31..40 was: folding it now comes too late.
        assert_eq!(c.standing(&run(), 21, 30), Standing::Late);
        assert_eq!(c.standing(&run(), 15, 45), Standing::Late);
        assert_eq!(c.standing(&run(), 1, 20), Standing::Merged);
    }
}
