//! Per-file companions: the files one file of a family changed with, where no name says so
//! (`src/flask/app.py` is tested in `tests/test_basic.py`). They are file-level co-change
//! rules, as ROSE and TARMAQ mine them, kept beside the family's pattern companions and
//! named only on a call on their file (the pack's `for`).

use super::MineOptions;
use super::count::Counts;
use super::kept::Keep;
use super::rules::{extension, manifest_extension, split};
use super::tip::Tip;
use std::collections::HashMap;

/// A file a tip file changed with often enough.
#[derive(Clone, Copy, Debug)]
pub struct FileCompanion {
    /// The companion's text number.
    pub companion: u32,
    /// The weighted share of the file's commits that changed it too.
    pub rate: f64,
    /// The commits that changed both.
    pub commits: u32,
}

/// What the history says of one tip file.
#[derive(Clone, Debug, Default)]
pub struct FileRules {
    /// The file's weighted commits.
    pub weight: f64,
    /// Its companions, best first, at most `max_companions`.
    pub companions: Vec<FileCompanion>,
}

/// Whether a file changes as a side effect of a command rather than by hand (a lock file, a
/// checksum list): it is never a companion to open.
pub fn generated(path: &str) -> bool {
    let name = split(path).1;
    let stem = name.rsplit_once('.').map_or(name, |(stem, _)| stem);
    name.ends_with(".lock")
        || stem.ends_with("-lock")
        || stem.ends_with("_lock")
        || stem.ends_with(".lock")
        || name == "go.sum"
        || name == "npm-shrinkwrap.json"
}

/// The per-file companions of every tip file that changed in at least `min_commits` commits:
/// the tip files it changed with in at least `min_hits` of them and at least `min_rate` of
/// its weighted commits, not generated, that `keep` allows, best first.
pub fn file_rules(
    counts: &Counts,
    tip: &Tip<'_>,
    options: &MineOptions,
    keep: Keep<'_>,
) -> HashMap<u32, FileRules> {
    let mut out: HashMap<u32, FileRules> = HashMap::new();
    for (&(file, other), tally) in &counts.pairs {
        if (tally.count as usize) < options.min_hits {
            continue;
        }
        let Some(events) = counts.file_events.get(&file) else {
            continue;
        };
        if (events.count as usize) < options.min_commits || events.weight <= 0.0 {
            continue;
        }
        let rate = (tally.weight / events.weight).min(1.0);
        if rate < options.min_rate {
            continue;
        }
        let (path, companion) = (&counts.texts[file as usize], &counts.texts[other as usize]);
        // A lock file is a companion of its manifest only (the file beside it).
        let side_effect = generated(companion)
            && (split(companion).0 != split(path).0
                || !manifest_extension(extension(split(path).1)));
        if !tip.holds(path) || !tip.holds(companion) || side_effect {
            continue;
        }
        if let Keep::Only(kept) = keep
            && kept.file(path, companion).is_none()
        {
            continue;
        }
        let rules = out.entry(file).or_default();
        rules.weight = events.weight;
        rules.companions.push(FileCompanion {
            companion: other,
            rate,
            commits: tally.count,
        });
    }
    for rules in out.values_mut() {
        // Best first; equal rates by text, so the pack does not depend on hash order.
        rules.companions.sort_by(|a, b| {
            b.rate.total_cmp(&a.rate).then_with(|| {
                counts.texts[a.companion as usize].cmp(&counts.texts[b.companion as usize])
            })
        });
        rules.companions.truncate(options.max_companions);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::generated;

    #[test]
    fn lock_and_checksum_files_are_generated() {
        for path in [
            "Cargo.lock",
            "package-lock.json",
            "web/yarn.lock",
            "pnpm-lock.yaml",
            "go.sum",
            "poetry.lock",
            "Gemfile.lock",
            "composer.lock",
            "uv.lock",
            "npm-shrinkwrap.json",
        ] {
            assert!(generated(path), "{path}");
        }
        for path in [
            "Cargo.toml",
            "package.json",
            "go.mod",
            "src/lock.rs",
            "docs/locking.md",
        ] {
            assert!(!generated(path), "{path}");
        }
    }
}
