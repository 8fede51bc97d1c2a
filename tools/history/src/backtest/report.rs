//! The human table of a backtest report.

use super::boundary::{BoundaryReport, CheckFigures};
use super::kinds::KindFigures;
use super::{Report, Run};
use docsuggest_engine::evaluate::calibration_error;
use std::fmt;

fn share(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{v:.3}"))
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_summary(f)?;
        self.write_runs(f)?;
        for r in self.runs.iter().filter(|r| !r.figures.by_family.is_empty()) {
            write_run_detail(f, r)?;
        }
        if let Some(b) = &self.boundary {
            write_boundary(f, b)?;
        }
        if !self.kinds.is_empty() {
            write_kinds(f, &self.kinds)?;
        }
        Ok(())
    }
}

impl Report {
    /// What was read and kept, the pack, and where the learning engine started.
    fn write_summary(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.skipped;
        writeln!(
            f,
            "{} at {}: {} first-parent commits, {} kept ({} empty, {} over the file limit, {} odd paths, {} touch no family skipped)",
            self.repo,
            &self.tip[..self.tip.len().min(12)],
            self.first_parent_commits,
            self.kept,
            s.empty,
            s.bulk,
            s.odd,
            s.no_family
        )?;
        writeln!(
            f,
            "pack: {}; scored commits: {} (after {} training); window {}{}",
            self.pack,
            self.scored_commits,
            self.training_commits,
            self.learn_window,
            if self.scratch_workspace {
                "; no work tree holds this pack: learned for a scratch work tree"
            } else {
                ""
            }
        )?;
        if let Some(last) = &self.last_training_commit {
            writeln!(f, "last training commit: {last}")?;
        }
        if self.in_sample {
            writeln!(
                f,
                "in-sample: {} of the {} scored commits are commits this pack was mined from; \
                 its figures there say how well it fits them, not how it will do on new ones \
                 (--since the commit it was mined at scores only later ones)",
                self.in_sample_commits, self.scored_commits
            )?;
        }
        if let Some(w) = &self.warm_start {
            writeln!(
                f,
                "learning engine started from {} rate rows of {} in {}",
                w.rows, w.workspace_key, w.store
            )?;
        }
        Ok(())
    }

    /// One line of figures per suggester.
    fn write_runs(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "\n  {:<20} {:>6} {:>9} {:>10} {:>10} {:>7} {:>8} {:>6} {:>15} {:>15}",
            "suggester",
            "notes",
            "notes/100",
            "comp.prec",
            "note.prec",
            "recall",
            "nag/100",
            "ece",
            "comp.prec h1->h2",
            "note.prec h1->h2"
        )?;
        for r in &self.runs {
            let g = &r.figures;
            let ece = g.calibration.as_deref().and_then(calibration_error);
            writeln!(
                f,
                "  {:<20} {:>6} {:>9.1} {:>10} {:>10} {:>7} {:>8.1} {:>6} {:>15} {:>15}",
                r.name,
                g.notes,
                g.notes_per_100_commits,
                share(g.companion_precision),
                share(g.note_precision),
                share(g.recall_trigger),
                g.nag_per_100_commits,
                share(ece),
                format!(
                    "{} -> {}",
                    share(g.companion_precision_h1),
                    share(g.companion_precision_h2)
                ),
                format!(
                    "{} -> {}",
                    share(g.note_precision_h1),
                    share(g.note_precision_h2)
                ),
            )?;
        }
        Ok(())
    }
}

/// One engine's figures in detail: by family, by companion, its calibration, its refusals.
fn write_run_detail(f: &mut fmt::Formatter<'_>, r: &Run) -> fmt::Result {
    writeln!(f, "\n  {} by family:", r.name)?;
    for (name, fam) in &r.figures.by_family {
        writeln!(
            f,
            "    {:<28} {:>6} notes  comp.prec {}",
            name,
            fam.notes,
            share(fam.companion_precision)
        )?;
    }
    write_companions(f, r)?;
    if let Some(bins) = r.figures.calibration.as_deref().filter(|b| !b.is_empty()) {
        writeln!(
            f,
            "  {} calibration (confidence: notes, note precision):",
            r.name
        )?;
        for b in bins {
            writeln!(
                f,
                "    {:.3}: {:>6}  {:.3}",
                b.confidence, b.notes, b.note_precision
            )?;
        }
    }
    if !r.errors.is_empty() {
        writeln!(f, "  {} refused requests: {:?}", r.name, r.errors)?;
    }
    Ok(())
}

/// An engine's companions by hit rate, the worst first (ties by name).
fn write_companions(f: &mut fmt::Formatter<'_>, r: &Run) -> fmt::Result {
    writeln!(f, "  {} companions (worst first):", r.name)?;
    let mut rows: Vec<_> = r.figures.companion_hit_rate.iter().collect();
    rows.sort_by(|a, b| {
        a.1.hit_rate
            .unwrap_or(0.0)
            .total_cmp(&b.1.hit_rate.unwrap_or(0.0))
            .then(a.0.cmp(b.0))
    });
    for (name, c) in rows {
        writeln!(
            f,
            "    {:<50} named {:>6}  hit rate {}",
            name,
            c.named,
            share(c.hit_rate)
        )?;
    }
    Ok(())
}

/// The change-boundary checks (`--boundary`): at the default bar and within the budget.
fn write_boundary(f: &mut fmt::Formatter<'_>, b: &BoundaryReport) -> fmt::Result {
    writeln!(
        f,
        "\n  change boundary: {} simulated misses in {} commits (companion files of {})",
        b.simulated_misses, b.commits, b.reference
    )?;
    writeln!(
        f,
        "  {:<20} {:>28} {:>40}",
        "check", "at its default bar", "within the false-alarm budget"
    )?;
    writeln!(
        f,
        "  {:<20} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "", "alarms", "commits", "caught", "bar", "alarms", "commits", "caught"
    )?;
    for c in &b.checks {
        let (d, w) = (&c.at_default, &c.within_budget);
        writeln!(
            f,
            "  {:<20} {:>9.1} {:>9.1} {:>9} {:>9.3} {:>9.1} {:>9.1} {:>9}",
            c.name,
            d.false_alarms_per_100_commits,
            d.commits_alarmed_per_100,
            share(d.caught_share),
            w.bar,
            w.false_alarms_per_100_commits,
            w.commits_alarmed_per_100,
            share(w.caught_share),
        )?;
    }
    write_cut(f, &b.checks)
}

/// The checks on each commit cut short as an agent leaves a change (a seeded half of its
/// companion files left out): how often a reminder comes and how often it is right.
fn write_cut(f: &mut fmt::Formatter<'_>, checks: &[CheckFigures]) -> fmt::Result {
    let Some(commits) = checks
        .iter()
        .flat_map(|c| &c.cut)
        .map(|p| p.cut_commits)
        .next()
    else {
        return Ok(());
    };
    writeln!(
        f,
        "\n  unfinished changes: {commits} commits, each cut short (a seeded half of its companion files left out)"
    )?;
    writeln!(
        f,
        "  {:<20} {:>9} {:>10} {:>10} {:>10} {:>16} {:>10} {:>10} {:>11} {:>10}",
        "check",
        "bar",
        "reminders",
        "right",
        "files ok",
        "(1st->last 3rd)",
        "left out",
        "uncut",
        "every stop",
        "right"
    )?;
    for c in checks {
        // Co-change held to the learning engine's blocks' precision, beside its own bars.
        let held = c.at_learning_precision.iter().map(|p| (" as right", p));
        for (label, p) in c.cut.iter().map(|p| ("", p)).chain(held) {
            writeln!(
                f,
                "  {:<20} {:>9.2} {:>10.1} {:>10} {:>10} {:>16} {:>10} {:>10.1} {:>11.1} {:>10}",
                format!("{}{label}", c.name),
                p.bar,
                p.reminders_per_100_commits,
                share(p.reminders_right_share),
                share(p.named_right_share),
                format!(
                    "{} -> {}",
                    share(p.named_right_share_first_third),
                    share(p.named_right_share_last_third)
                ),
                share(p.left_out_named_share),
                p.uncut_reminders_per_100_commits,
                p.every_stop_reminders_per_100_commits,
                share(p.every_stop_right_share),
            )?;
        }
    }
    Ok(())
}

/// The pack's companions by kind, and how often the learning engine's notes naming each hit.
fn write_kinds(f: &mut fmt::Formatter<'_>, kinds: &[KindFigures]) -> fmt::Result {
    writeln!(f, "\n  companions by kind (learning engine):")?;
    for k in kinds {
        writeln!(
            f,
            "    {:<10} {:>4} in the pack  named {:>6}  hit rate {}",
            k.kind,
            k.companions,
            k.named,
            share(k.hit_rate)
        )?;
    }
    Ok(())
}
