//! What a check found ([`CheckReport`]) and how it is shown: as text, as JSON, as the Stop
//! reminder and the note before a commit. Whatever reaches a model is bounded
//! ([`CheckReport::bounded`]): a change of thousands of files gives a short answer that says
//! how much it left out.

use serde::Serialize;

/// The most bytes of a report a model is given (the JSON, and each text made from it).
pub const ANSWER_LIMIT: usize = 16 * 1024;

/// The most changed files one missing companion lists as calling for it.
const MAX_FOR_FILES: usize = 5;

/// One companion the change lacks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Missing {
    /// The companion, as the note names it.
    pub companion: String,
    /// The family whose note names it.
    pub family: String,
    /// The highest confidence of those notes.
    pub confidence: f64,
    /// The changed files whose note names it (at most a few in a bounded report).
    pub for_files: Vec<String>,
    /// How many more changed files call for it than `for_files` lists.
    pub for_more: usize,
    /// The note's line for it (what to do and why in a plain note; the path in the PoC's).
    pub line: String,
    /// At a change boundary: how often such a claim on this companion was right (its
    /// boundary rate, else the pack's validated rate, else its rate on edits); `None`:
    /// unknown, or not a boundary's note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<f64>,
    /// Whether the claim may hold the agent up at a stop: its evidence clears `blockBar` and
    /// the repository's boundary may block.
    pub blocks: bool,
}

impl Missing {
    /// Its line in a report: the note's own wording, then the family and the files that call
    /// for it.
    fn listed(&self) -> String {
        let mut files = self.for_files.join(", ");
        if self.for_more > 0 {
            files.push_str(&format!(" and {} more", self.for_more));
        }
        if self.line == self.companion {
            format!(
                "- {} ({} {:.2}; for {files})",
                self.companion, self.family, self.confidence,
            )
        } else {
            format!("- {}; for {files}", self.line)
        }
    }
}

/// What a check found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct CheckReport {
    /// The repository's root.
    pub root: String,
    /// The changed files asked about (relative to the root).
    pub changed: Vec<String>,
    /// Changed files past the check's bound, not asked about.
    pub not_asked: usize,
    /// Changed files asked about but left out of `changed` to bound the answer.
    pub changed_not_listed: usize,
    /// Changed files whose names hold a code point that prints nothing (a right-to-left
    /// override, a line separator, a control character) or are not UTF-8: part of the change,
    /// never asked about nor named.
    pub unshown: usize,
    /// The companions the change lacks, most confident first.
    pub missing: Vec<Missing>,
    /// Missing companions left out of `missing` to bound the answer (the least confident).
    pub missing_not_listed: usize,
    /// Why the check could not be made, or not whole: a pack file that cannot be used, a
    /// pack that could not be mined or is still being mined. Empty when it was.
    pub errors: Vec<String>,
    /// Whether the repository's pack was still being mined when the check ended.
    #[serde(skip)]
    pub still_mining: bool,
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

impl std::fmt::Display for CheckReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let files = self.changed.len() + self.changed_not_listed;
        for error in &self.errors {
            writeln!(f, "cannot check the change: {error}")?;
        }
        if self.missing.is_empty() && self.missing_not_listed == 0 {
            if self.errors.is_empty() {
                writeln!(
                    f,
                    "the change ({files} file{}) lacks no companion the engine names",
                    plural(files)
                )?;
            }
        } else {
            let lacking = self.missing.len() + self.missing_not_listed;
            writeln!(
                f,
                "the change ({files} file{}) lacks {lacking} companion{}:",
                plural(files),
                plural(lacking)
            )?;
            if let Some(list) = self.listed() {
                writeln!(f, "{}", list.trim_start())?;
            }
        }
        if self.not_asked > 0 {
            writeln!(
                f,
                "({} more changed files were not asked about)",
                self.not_asked
            )?;
        }
        if self.unshown > 0 {
            writeln!(
                f,
                "({} changed file{} with a name that prints other than it reads was not asked about)",
                self.unshown,
                plural(self.unshown)
            )?;
        }
        Ok(())
    }
}

/// How the reminder at a stop begins (a harness may hand it back as a prompt).
pub const STOP_REMINDER: &str = "[doc-suggester] before you finish";

impl CheckReport {
    /// The report as the agent is told it when it stops, naming only the companions whose
    /// claim blocks: `None` when none does.
    pub fn at_stop(&self) -> Option<String> {
        let list = self.only(true).listed()?;
        Some(format!(
            "{STOP_REMINDER}: the change in the work tree may be missing \
             companions this repository's changes conventionally include:{list}\n\
             Add what the task needs, or say why it needs none of them."
        ))
    }

    /// What the user alone is told at a stop: the companions the change lacks whose claim
    /// does not hold the agent up — too weak, or in a repository whose reminder may not block
    /// (`None`: none).
    pub fn informing(&self) -> Option<String> {
        let list = self.only(false).listed()?;
        Some(format!(
            "[doc-suggester] the change may also lack these companions (not likely enough to \
             be right to hold the agent up for):{list}"
        ))
    }

    /// The report cut to the missing companions that block (`blocks`) or do not.
    fn only(&self, blocks: bool) -> CheckReport {
        let mut report = self.clone();
        report.missing.retain(|m| m.blocks == blocks);
        if !blocks {
            report.missing_not_listed = 0;
        }
        report
    }

    /// The note before a commit: what the staged change lacks (`None`: nothing).
    pub fn before_commit(&self) -> Option<String> {
        let list = self.listed()?;
        Some(format!(
            "[doc-suggester] the staged change may be missing companions this repository's \
             changes conventionally include:{list}"
        ))
    }

    /// Why the check could not be made, for the user (`None`: it was, or the pack is only
    /// still being mined, which the next check waits out).
    pub fn cannot_check(&self) -> Option<String> {
        if self.errors.is_empty() || self.still_mining {
            return None;
        }
        Some(format!(
            "[doc-suggester] the change was not checked: {}",
            self.errors.join("; ")
        ))
    }

    /// One line per missing companion, each after a line break, then how many were left out
    /// (`None`: nothing missing).
    fn listed(&self) -> Option<String> {
        if self.missing.is_empty() && self.missing_not_listed == 0 {
            return None;
        }
        let mut list: String = self
            .missing
            .iter()
            .map(|m| format!("\n{}", m.listed()))
            .collect();
        if self.missing_not_listed > 0 {
            list.push_str(&format!(
                "\n- and {} more (`docsuggest check-change --json` lists them)",
                self.missing_not_listed
            ));
        }
        Some(list)
    }

    /// The report cut to at most about `limit` bytes as JSON (and so as text): each missing
    /// companion lists a few of the files that call for it, then the changed files are left
    /// out from the last, then the least confident companions; each cut is counted.
    pub fn bounded(mut self, limit: usize) -> CheckReport {
        for missing in &mut self.missing {
            if missing.for_files.len() > MAX_FOR_FILES {
                missing.for_more += missing.for_files.len() - MAX_FOR_FILES;
                missing.for_files.truncate(MAX_FOR_FILES);
            }
        }
        let mut total = json_len(&self);
        while total > limit && !self.changed.is_empty() {
            if let Some(file) = self.changed.pop() {
                total -= json_len(&file) + 1;
                self.changed_not_listed += 1;
            }
        }
        while total > limit && !self.missing.is_empty() {
            if let Some(missing) = self.missing.pop() {
                total -= json_len(&missing) + 1;
                self.missing_not_listed += 1;
            }
        }
        self
    }
}

/// The length of `value` as JSON.
fn json_len(value: &impl Serialize) -> usize {
    serde_json::to_vec(value).map_or(0, |bytes| bytes.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn missing(n: usize, files: usize) -> Missing {
        Missing {
            companion: format!("docs/{n}.md"),
            family: "Source".into(),
            confidence: 1.0 / (n as f64 + 1.0),
            for_files: (0..files).map(|f| format!("src/{f}.rs")).collect(),
            for_more: 0,
            line: format!("update docs/{n}.md"),
            evidence: Some(0.9),
            blocks: true,
        }
    }

    #[test]
    fn the_stop_reminder_names_only_what_blocks_and_the_user_is_told_the_rest() {
        let weak = Missing {
            evidence: Some(0.4),
            blocks: false,
            ..missing(1, 1)
        };
        let report = CheckReport {
            changed: vec!["src/0.rs".into()],
            missing: vec![missing(0, 1), weak.clone()],
            ..CheckReport::default()
        };
        let stop = report.at_stop().expect("a reminder");
        assert!(
            stop.contains("docs/0.md") && !stop.contains("docs/1.md"),
            "{stop}"
        );
        let told = report.informing().expect("the rest, for the user");
        assert!(
            told.contains("docs/1.md") && !told.contains("docs/0.md"),
            "{told}"
        );
        // Nothing blocks: no reminder, only the user's message.
        let only_weak = CheckReport {
            missing: vec![weak],
            ..report.clone()
        };
        assert_eq!(only_weak.at_stop(), None);
        assert!(only_weak.informing().is_some());
        let json = serde_json::to_string(&report.missing[1]).expect("JSON");
        assert!(
            json.ends_with(r#""evidence":0.4,"blocks":false}"#),
            "{json}"
        );
    }

    #[test]
    fn a_report_of_thousands_of_files_is_bounded_and_says_what_it_left_out() {
        let report = CheckReport {
            root: "/r".into(),
            changed: (0..2000).map(|f| format!("src/new/{f:04}.rs")).collect(),
            missing: (0..400).map(|n| missing(n, 30)).collect(),
            ..CheckReport::default()
        };
        let bounded = report.bounded(ANSWER_LIMIT);
        let json = serde_json::to_string(&bounded).expect("JSON");
        assert!(json.len() <= ANSWER_LIMIT, "{}", json.len());
        assert_eq!(bounded.changed.len() + bounded.changed_not_listed, 2000);
        assert_eq!(bounded.missing.len() + bounded.missing_not_listed, 400);
        assert!(bounded.missing_not_listed > 0);
        assert_eq!(bounded.missing[0].for_files.len(), MAX_FOR_FILES);
        assert_eq!(bounded.missing[0].for_more, 25);
        let stop = bounded.at_stop().expect("a reminder");
        assert!(stop.len() <= ANSWER_LIMIT, "{}", stop.len());
        assert!(stop.contains(&format!("- and {} more", bounded.missing_not_listed)));
        assert!(stop.contains("and 25 more"), "{stop}");
        assert!(bounded.to_string().len() <= ANSWER_LIMIT + 200);
    }

    #[test]
    fn a_small_report_is_whole() {
        let report = CheckReport {
            changed: vec!["a.rs".into()],
            missing: vec![missing(0, 1)],
            ..CheckReport::default()
        };
        let bounded = report.clone().bounded(ANSWER_LIMIT);
        assert_eq!(bounded.changed, report.changed);
        assert_eq!(bounded.missing, report.missing);
        assert_eq!(
            (bounded.changed_not_listed, bounded.missing_not_listed),
            (0, 0)
        );
    }

    #[test]
    fn errors_are_said_and_never_read_as_a_complete_change() {
        let report = CheckReport {
            errors: vec!["the pack file .dsh/doc-pack.json cannot be used".into()],
            ..CheckReport::default()
        };
        let text = report.to_string();
        assert!(
            text.contains("cannot check the change: the pack file"),
            "{text}"
        );
        assert!(!text.contains("lacks no companion"), "{text}");
        assert!(report.cannot_check().is_some());
    }
}
