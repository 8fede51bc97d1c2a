//! The scored commits in consecutive stretches of nearly equal length, each with a
//! suggester's figures over it: how they moved as the history went on (the report's chart
//! over time reads exactly these).

/// The scored commits are cut into at most this many stretches.
pub const STRETCHES: usize = 20;

/// One stretch's figures.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Stretch {
    /// Its first commit, counted from the first scored commit (0).
    pub from: usize,
    /// Scored commits in it.
    pub commits: usize,
    /// Notes made.
    pub notes: u64,
    /// Notes with at least one hit.
    pub notes_followed: u64,
    /// Companions named.
    pub companions_named: u64,
    /// Companions named that the commit went on to touch.
    pub hits: u64,
    /// Hits ÷ companions named.
    pub companion_precision: Option<f64>,
    /// Notes with a hit per 100 of its commits.
    pub followed_per_100_commits: f64,
    /// Notes with no hit per 100 of its commits.
    pub nag_per_100_commits: f64,
}

/// Counts per stretch while notes are scored.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Where each stretch begins, in scored commits; ascending, the first 0.
    starts: Vec<usize>,
    /// Scored commits in all.
    commits: usize,
    /// Per stretch: notes, notes followed, companions named, hits.
    counts: Vec<[u64; 4]>,
}

impl Tally {
    /// A tally over `commits` scored commits: `min(STRETCHES, commits)` stretches, the
    /// longer ones last when they cannot all be equal.
    pub fn new(commits: usize) -> Tally {
        let n = STRETCHES.min(commits);
        Tally {
            starts: (0..n).map(|k| k * commits / n).collect(),
            commits,
            counts: vec![[0; 4]; n],
        }
    }

    /// A note made at the scored commit `offset` (0 = the first scored commit).
    pub fn add(&mut self, offset: usize, named: u64, hits: u64) {
        // The last stretch that begins at or before `offset`.
        let k = self.starts.partition_point(|&s| s <= offset);
        if let Some(c) = k.checked_sub(1).and_then(|k| self.counts.get_mut(k)) {
            c[0] += 1;
            c[1] += u64::from(hits > 0);
            c[2] += named;
            c[3] += hits;
        }
    }

    /// The stretches with their figures.
    pub fn stretches(&self) -> Vec<Stretch> {
        self.starts
            .iter()
            .zip(&self.counts)
            .enumerate()
            .map(|(k, (&from, &[notes, followed, named, hits]))| {
                let end = self.starts.get(k + 1).copied().unwrap_or(self.commits);
                let commits = end - from;
                let per100 = |x: u64| 100.0 * x as f64 / commits.max(1) as f64;
                Stretch {
                    from,
                    commits,
                    notes,
                    notes_followed: followed,
                    companions_named: named,
                    hits,
                    companion_precision: (named > 0).then(|| hits as f64 / named as f64),
                    followed_per_100_commits: per100(followed),
                    nag_per_100_commits: per100(notes - followed),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scored_commit_falls_in_one_stretch_and_the_counts_add_up() {
        let mut tally = Tally::new(45);
        for offset in 0..45 {
            tally.add(offset, 2, u64::from(offset % 3 == 0));
        }
        let stretches = tally.stretches();
        assert_eq!(stretches.len(), STRETCHES);
        assert_eq!(stretches[0].from, 0);
        assert_eq!(stretches.iter().map(|s| s.commits).sum::<usize>(), 45);
        assert!(
            stretches
                .windows(2)
                .all(|w| w[0].from + w[0].commits == w[1].from)
        );
        assert_eq!(stretches.iter().map(|s| s.notes).sum::<u64>(), 45);
        assert_eq!(stretches.iter().map(|s| s.hits).sum::<u64>(), 15);
        let first = &stretches[0];
        // Commits 0 and 1: one note followed, one not.
        assert_eq!(
            (first.commits, first.notes, first.notes_followed),
            (2, 2, 1)
        );
        assert_eq!(first.companion_precision, Some(0.25));
        assert_eq!(
            (first.followed_per_100_commits, first.nag_per_100_commits),
            (50.0, 50.0)
        );
    }

    #[test]
    fn a_short_history_has_a_stretch_per_commit_and_none_without_commits() {
        let mut tally = Tally::new(3);
        tally.add(2, 1, 0);
        let stretches = tally.stretches();
        assert_eq!(stretches.len(), 3);
        assert_eq!(
            (stretches[2].notes, stretches[2].companion_precision),
            (1, Some(0.0))
        );
        assert_eq!(stretches[2].nag_per_100_commits, 100.0);
        assert_eq!(stretches[0].companion_precision, None);
        assert!(Tally::new(0).stretches().is_empty());
    }
}
