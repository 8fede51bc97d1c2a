//! Whether `init` lets the Stop reminder block in this repository, from what its backtests
//! measured of the boundary.

use crate::backtest::boundary::{BLOCK_BAR, BoundaryReport};
use docsuggest_schema::pack::BoundaryFigures;

/// Whether the Stop reminder may block in this repository, from the boundaries of `init`'s
/// backtests (the report's and the estimate's later splits, each out-of-sample, the learning
/// engine learning from its own reminders), pooled: the reminders it would have blocked with
/// at every Stop — each commit cut short when it has a companion file to leave out, else
/// whole, where whatever it names is wrong — and how many were right (every named file in
/// the real commit). The whole commits keep the figure honest where the reference is the
/// mined pack itself: a cut leaves out only what that pack names; pooling the splits keeps a
/// few blocks from deciding. It may block where at least [`BLOCK_BAR`] of them were right; a
/// history on which it never blocked gives no evidence, and it does not. `None` when no
/// backtest measured the learning engine's boundary.
pub(super) fn may_block(boundaries: &[&BoundaryReport]) -> Option<BoundaryFigures> {
    let (mut reminders, mut right, mut measured) = (0.0, 0.0, false);
    for boundary in boundaries {
        let Some(learning) = (boundary.checks.iter()).find(|c| c.name == "learning") else {
            continue;
        };
        let Some(at_bar) = learning.cut.iter().find(|p| p.bar >= BLOCK_BAR) else {
            continue;
        };
        let blocks =
            (at_bar.every_stop_reminders_per_100_commits * boundary.commits as f64 / 100.0).round();
        reminders += blocks;
        right += (at_bar.every_stop_right_share.unwrap_or(0.0) * blocks).round();
        measured = true;
    }
    measured.then_some(())?;
    Some(BoundaryFigures {
        may_block: reminders > 0.0 && right >= BLOCK_BAR * reminders,
        reminders: reminders as u32,
        right: right as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backtest::boundary::{CheckFigures, CutPoint, Point};

    fn report(every_stop: f64, right: Option<f64>, cut_right: Option<f64>) -> BoundaryReport {
        let point = |bar| Point {
            bar,
            false_alarms_per_100_commits: 0.0,
            commits_alarmed_per_100: 0.0,
            misses_caught: 0,
            caught_share: None,
        };
        let cut = |bar| CutPoint {
            bar,
            cut_commits: 50,
            reminders_per_100_commits: 20.0,
            reminders_right_share: cut_right,
            named_right_share: cut_right,
            named_right_share_first_third: None,
            named_right_share_last_third: None,
            left_out_named_share: None,
            uncut_reminders_per_100_commits: 0.0,
            every_stop_reminders_per_100_commits: every_stop,
            every_stop_right_share: right,
        };
        BoundaryReport {
            reference: "the mined pack".into(),
            commits: 200,
            simulated_misses: 0,
            false_alarm_budget: 10.0,
            checks: vec![CheckFigures {
                name: "learning".into(),
                at_default: point(0.0),
                within_budget: point(0.0),
                cut: vec![cut(0.0), cut(BLOCK_BAR)],
                at_learning_precision: None,
            }],
        }
    }

    #[test]
    fn it_may_block_where_its_blocks_at_every_stop_were_right() {
        // 10 per 100 of 200 stops: 20 reminders, 16 right.
        let figures = may_block(&[&report(10.0, Some(0.8), Some(1.0))]).expect("measured");
        assert_eq!((figures.reminders, figures.right), (20, 16));
        assert!(figures.may_block);
    }

    #[test]
    fn blocks_on_finished_changes_count_against_it_however_right_the_cut_ones_were() {
        // Every reminder on a cut change was right, but the finished ones were reminded too.
        let figures = may_block(&[&report(10.0, Some(0.5), Some(1.0))]).expect("measured");
        assert_eq!((figures.reminders, figures.right), (20, 10));
        assert!(!figures.may_block);
    }

    #[test]
    fn the_splits_are_pooled_so_a_few_blocks_do_not_decide() {
        // The report's split: 20 blocks, 16 right; a later one: 10 of 40 (5 per 100 of 200).
        let later = report(20.0, Some(0.25), Some(1.0));
        let figures = may_block(&[&report(10.0, Some(0.8), Some(1.0)), &later]).expect("measured");
        assert_eq!((figures.reminders, figures.right), (60, 26));
        assert!(!figures.may_block);
        assert!(may_block(&[]).is_none());
    }

    #[test]
    fn a_history_on_which_it_never_blocked_gives_no_evidence() {
        let figures = may_block(&[&report(0.0, None, None)]).expect("measured");
        assert_eq!((figures.reminders, figures.right), (0, 0));
        assert!(!figures.may_block);
    }
}
