//! The first section: which commits the backtest learned from and which it scored, and each
//! suggester's figures over the scored ones.

use crate::Input;
use crate::figure::{self, Source, count, per_100, share, short};
use maud::{Markup, html};

/// What was learned from, what was scored, and the figures over it.
pub fn section(input: &Input<'_>) -> Markup {
    let b = input.backtest;
    let root = Source::root();
    let s = &b.skipped;
    html! {
        p {
            "docsuggest read " (count(&root.at("first_parent_commits"), b.first_parent_commits as u64))
            " first-parent commits of " code { (b.repo) } ", up to " code { (short(&b.tip)) }
            ". It kept " (count(&root.at("kept"), b.kept as u64)) " of them; it left out "
            (count(&root.at("skipped").at("empty"), s.empty as u64)) " that changed nothing, "
            (count(&root.at("skipped").at("bulk"), s.bulk as u64)) " that changed too many files to be one task, "
            (count(&root.at("skipped").at("odd"), s.odd as u64)) " with paths it does not read, and "
            (count(&root.at("skipped").at("no_family"), s.no_family as u64)) " that touched no file of a convention."
        }
        @match &b.mined_from {
            Some(m) => p.split {
                strong { "Learned from: " }
                "the oldest " (count(&root.at("mined_from").at("commits"), m.commits as u64))
                " first-parent commits, up to " code { (short(&m.last_commit)) }
                ". The conventions were mined from them alone, and the learning engine learned over the "
                (count(&root.at("training_commits"), b.training_commits as u64)) " kept commits among them. "
                strong { "Scored: " }
                "the " (count(&root.at("scored_commits"), b.scored_commits as u64))
                " kept commits after it, up to the tip. No scored commit was seen before it was scored, so the figures below say what to expect on new commits."
            },
            None => p.split {
                "Conventions: " (b.pack) ". "
                strong { "Learned from: " }
                "the first " (count(&root.at("training_commits"), b.training_commits as u64)) " kept commits"
                @if let Some(last) = &b.last_training_commit { ", up to " code { (short(last)) } }
                ". " strong { "Scored: " }
                "the " (count(&root.at("scored_commits"), b.scored_commits as u64)) " kept commits after them."
            },
        }
        @if b.in_sample {
            p.warning {
                (b.in_sample_commits) " of the scored commits are commits these conventions were mined from: there the figures say how well the conventions fit, not how they will do."
            }
        }
        (runs_table(input))
        p.glossary {
            "Each scored commit is replayed as an agent would make it, file by file; a note names companion files, and a named file counts as "
            em { "followed" } " when the same commit changed it afterwards. "
            em { "Precision" } ": the share of named files that were followed. "
            em { "Coverage" } ": of the files a commit changed that a convention could have named, the share some note named. "
            em { "Co-change" } ": a baseline that needs no conventions, naming the files that changed together with this one before: "
            em { "strict" } " names those changed with it at least twice and in half of its commits, "
            em { "loose" } " those changed with it once and in a fifth. "
            em { "Static engine" } ": the conventions without learning."
        }
        p.small { "The same figures as JSON: " code { (input.backtest_command) } }
    }
}

/// One row per suggester: the figures over all scored commits.
fn runs_table(input: &Input<'_>) -> Markup {
    let runs = Source::root().at("runs");
    html! {
        table {
            thead { tr {
                th { "suggester" }
                th.num { "notes per 100 commits" }
                th.num { "named files followed (precision)" }
                th.num { "notes with a file followed" }
                th.num { "coverage" }
                th.num { "notes with nothing followed, per 100 commits" }
            } }
            tbody {
                @for r in &input.backtest.runs {
                    @let at = runs.at(&r.name);
                    @let g = &r.figures;
                    tr {
                        td { (figure::suggester(&r.name)) }
                        td.num { (per_100(&at.at("notes_per_100_commits"), g.notes_per_100_commits)) }
                        td.num { (share(&at.at("companion_precision"), g.companion_precision)) }
                        td.num { (share(&at.at("note_precision"), g.note_precision)) }
                        td.num { (share(&at.at("recall_trigger"), g.recall_trigger)) }
                        td.num { (per_100(&at.at("nag_per_100_commits"), g.nag_per_100_commits)) }
                    }
                }
            }
        }
    }
}
