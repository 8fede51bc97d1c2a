//! The check on an agent's unfinished change: each scored commit cut short the way an agent
//! leaves a change — its files minus a seeded random half of its companion files (at least
//! one) — and what the check names on the cut change scored against the real commit: a named
//! file the commit has is **right**, one it lacks is **wrong** (docs/BACKTEST.md).

use std::collections::BTreeSet;

/// The bar a claim's evidence must clear for the Stop reminder to block on it.
pub const BLOCK_BAR: f64 = 0.7;

/// The seed of the cut: the same history is always cut the same way.
const CUT_SEED: u64 = 0x6375_745f_6861_6c66;

/// The companion files left out of commit `turn`'s cut: a seeded random half of `companions`
/// (rounded down, at least one; none when it has none).
pub fn left_out(turn: usize, companions: &BTreeSet<usize>) -> Vec<usize> {
    let mut order: Vec<(u64, usize)> = companions
        .iter()
        .map(|&j| (mix(CUT_SEED ^ ((turn as u64) << 20) ^ j as u64), j))
        .collect();
    order.sort_unstable();
    let keep = (companions.len() / 2).max(1).min(companions.len());
    let mut out: Vec<usize> = order.into_iter().take(keep).map(|(_, j)| j).collect();
    out.sort_unstable();
    out
}

/// splitmix64's finaliser: a well-spread hash of one word.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What a check named on one cut commit.
#[derive(Clone, Debug, Default)]
pub struct CutCommit {
    /// Each file named: its score and whether the real commit has it.
    pub named: Vec<(f64, bool)>,
    /// Each left-out companion file: the best score of a named file that covers it.
    pub left_out: Vec<Option<f64>>,
}

/// A check's figures on the cut commits at one bar.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct CutPoint {
    /// The bar: what the check names scores at least this.
    pub bar: f64,
    /// Commits with a companion file to leave out.
    pub cut_commits: usize,
    /// Reminders (cut commits with anything named) per 100 cut commits.
    pub reminders_per_100_commits: f64,
    /// Reminders whose every named file the real commit has, as a share of reminders.
    pub reminders_right_share: Option<f64>,
    /// Named files the real commit has, as a share of the files named.
    pub named_right_share: Option<f64>,
    /// The same over the first third of the cut commits (`--boundary-learns`: before the
    /// engine has learned from many of its reminders) …
    pub named_right_share_first_third: Option<f64>,
    /// … and over the last third.
    pub named_right_share_last_third: Option<f64>,
    /// Left-out companion files a named file covers, as a share of those left out.
    pub left_out_named_share: Option<f64>,
    /// Reminders on the uncut commits (everything named there is wrong) per 100 scored
    /// commits.
    pub uncut_reminders_per_100_commits: f64,
    /// Every scored commit as a Stop meets it: cut short when it has a companion file to
    /// leave out, else whole (then everything named is wrong). Reminders per 100 scored
    /// commits …
    pub every_stop_reminders_per_100_commits: f64,
    /// … and the share of them right: what a user of the Stop reminder meets.
    pub every_stop_right_share: Option<f64>,
}

/// The cut commits of one check.
#[derive(Default)]
pub struct CutSaid {
    /// Per cut commit.
    pub commits: Vec<CutCommit>,
    /// Per scored commit with no companion file to leave out, the scores of what was named
    /// on it whole.
    pub whole: Vec<Vec<f64>>,
}

impl CutSaid {
    /// The figures at `bar`; `uncut_reminders` is the real commits' share with anything
    /// named at that bar, per 100.
    pub fn at(&self, bar: f64, uncut_reminders: f64) -> CutPoint {
        let all = Tally::of(&self.commits, bar);
        let third = self.commits.len() / 3;
        let first = Tally::of(&self.commits[..third], bar);
        let last = Tally::of(&self.commits[self.commits.len() - third..], bar);
        let cut_commits = self.commits.len();
        let whole_reminders = (self.whole.iter())
            .filter(|named| named.iter().any(|&s| s >= bar))
            .count();
        let stops = cut_commits + self.whole.len();
        CutPoint {
            bar,
            cut_commits,
            reminders_per_100_commits: share(all.reminders, cut_commits).map_or(0.0, |s| 100.0 * s),
            reminders_right_share: share(all.right_reminders, all.reminders),
            named_right_share: share(all.right, all.named),
            named_right_share_first_third: share(first.right, first.named),
            named_right_share_last_third: share(last.right, last.named),
            left_out_named_share: share(all.left_out_named, all.left_out),
            uncut_reminders_per_100_commits: uncut_reminders,
            every_stop_reminders_per_100_commits: share(all.reminders + whole_reminders, stops)
                .map_or(0.0, |s| 100.0 * s),
            every_stop_right_share: share(all.right_reminders, all.reminders + whole_reminders),
        }
    }
}

impl CutSaid {
    /// The figures at the lowest bar, `from` or above, at which at least `right` of the
    /// reminders are right (`uncut(bar)`: the uncut commits' reminders per 100 there): the
    /// check held to another's precision. Where no bar gets there, at its most precise bar
    /// (the lowest of equals); `None` when it names nothing from `from` up.
    pub fn at_precision(
        &self,
        right: f64,
        from: f64,
        uncut: impl Fn(f64) -> f64,
    ) -> Option<CutPoint> {
        let mut bars: Vec<f64> = (self.commits.iter())
            .flat_map(|c| c.named.iter().map(|&(score, _)| score))
            .filter(|&score| score >= from)
            .collect();
        bars.sort_by(f64::total_cmp);
        bars.dedup();
        let mut best: Option<CutPoint> = None;
        for bar in bars {
            let point = self.at(bar, uncut(bar));
            let share = point.reminders_right_share.unwrap_or(0.0);
            if share >= right {
                return Some(point);
            }
            let best_share = best.as_ref().and_then(|b| b.reminders_right_share);
            if best.is_none() || share > best_share.unwrap_or(0.0) {
                best = Some(point);
            }
        }
        best
    }
}

fn share(part: usize, whole: usize) -> Option<f64> {
    (whole > 0).then(|| part as f64 / whole as f64)
}

/// The counts behind a [`CutPoint`] over some cut commits.
#[derive(Default)]
struct Tally {
    reminders: usize,
    right_reminders: usize,
    named: usize,
    right: usize,
    left_out: usize,
    left_out_named: usize,
}

impl Tally {
    fn of(commits: &[CutCommit], bar: f64) -> Tally {
        let mut tally = Tally::default();
        for commit in commits {
            let said = || commit.named.iter().filter(|(score, _)| *score >= bar);
            let named = said().count();
            let right = said().filter(|(_, right)| *right).count();
            if named > 0 {
                tally.reminders += 1;
                tally.right_reminders += usize::from(right == named);
            }
            tally.named += named;
            tally.right += right;
            tally.left_out += commit.left_out.len();
            tally.left_out_named += (commit.left_out.iter())
                .filter(|best| best.is_some_and(|s| s >= bar))
                .count();
        }
        tally
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_leaves_out_half_its_companion_files_at_least_one_and_always_the_same() {
        assert!(left_out(0, &BTreeSet::new()).is_empty());
        assert_eq!(left_out(3, &BTreeSet::from([4])), [4]);
        let five = BTreeSet::from([1, 2, 3, 4, 5]);
        let cut = left_out(7, &five);
        assert_eq!(cut.len(), 2);
        assert!(cut.iter().all(|j| five.contains(j)));
        assert_eq!(cut, left_out(7, &five));
        // Another commit is cut its own way: over many, every file is left out sometimes.
        let mut seen = BTreeSet::new();
        for turn in 0..64 {
            seen.extend(left_out(turn, &five));
        }
        assert_eq!(seen, five);
    }

    #[test]
    fn a_reminder_is_right_only_when_every_file_it_names_is_in_the_commit() {
        let said = CutSaid {
            commits: vec![
                CutCommit {
                    named: vec![(0.9, true), (0.5, false)],
                    left_out: vec![Some(0.9)],
                },
                CutCommit {
                    named: vec![(0.8, true)],
                    left_out: vec![Some(0.8), None],
                },
                CutCommit::default(),
            ],
            whole: vec![vec![0.9], vec![0.3], vec![]],
        };
        let all = said.at(0.0, 12.5);
        assert_eq!(all.cut_commits, 3);
        assert!((all.reminders_per_100_commits - 200.0 / 3.0).abs() < 1e-9);
        assert_eq!(all.reminders_right_share, Some(0.5));
        assert_eq!(all.named_right_share, Some(2.0 / 3.0));
        assert_eq!(all.left_out_named_share, Some(2.0 / 3.0));
        assert_eq!(all.uncut_reminders_per_100_commits, 12.5);
        // Every Stop: the two reminders on cut commits and two on whole ones, of six stops;
        // one is right.
        assert!((all.every_stop_reminders_per_100_commits - 400.0 / 6.0).abs() < 1e-9);
        assert_eq!(all.every_stop_right_share, Some(0.25));
        // At the block bar the weak wrong claim is not made: both reminders are right.
        let block = said.at(BLOCK_BAR, 0.0);
        assert_eq!(block.reminders_right_share, Some(1.0));
        assert_eq!(block.named_right_share, Some(1.0));
        // … and of the whole commits only the first is reminded at that bar.
        assert_eq!(block.every_stop_right_share, Some(2.0 / 3.0));
        // A third of three commits is one: the first commit, then the last (which names none).
        assert_eq!(all.named_right_share_first_third, Some(0.5));
        assert_eq!(all.named_right_share_last_third, None);
        // Held to 100 % right: the lowest bar where every reminder is right is 0.8.
        let held = said
            .at_precision(1.0, 0.0, |_| 0.0)
            .expect("a bar gets there");
        assert_eq!(held.bar, 0.8);
        assert_eq!(held.reminders_right_share, Some(1.0));
        // From 0.85 up only the first commit's 0.9 names anything: still right.
        assert_eq!(
            said.at_precision(1.0, 0.85, |_| 0.0).map(|p| p.bar),
            Some(0.9)
        );
        assert!(said.at_precision(1.0, 0.95, |_| 0.0).is_none());
        // Where no bar gets there, its most precise bar: here the lowest of the all-wrong.
        let second = CutSaid {
            commits: vec![CutCommit {
                named: vec![(0.6, true), (0.9, false)],
                left_out: vec![Some(0.6)],
            }],
            whole: Vec::new(),
        };
        let best = second
            .at_precision(1.0, 0.0, |_| 0.0)
            .expect("it names something");
        assert_eq!((best.bar, best.reminders_right_share), (0.6, Some(0.0)));
        let none = said.at(1.5, 0.0);
        assert_eq!(none.reminders_right_share, None);
        assert_eq!(none.reminders_per_100_commits, 0.0);
    }
}
