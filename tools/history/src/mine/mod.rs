//! The pack mined from a history: the families whose files, when changed, go with other
//! changes often enough to be worth a note, and the companions those changes conventionally
//! touched — a file, a template named from the changed file (`tests/test_{}.py`), a new file of
//! a directory (`changelog.d/<name>.md`) or a small glob.
//!
//! What the thresholds propose, the newest quarter of the history keeps or drops (`validate`).
//!
//! It is not the engine: it never judges a call. It counts; the pack it makes is an ordinary
//! pack (`docs/PACK.md`), used by `docsuggest init`, `backtest` without a pack and the
//! engine's zero-config path.

mod count;
#[cfg(test)]
mod dir_capture_tests;
mod kept;
mod per_file;
mod rules;
mod select;
mod tip;
mod validate;

use crate::history::Commit;
use docsuggest_engine::compiled::CompiledPack;
use docsuggest_schema::pack::origin::{BoundaryFigures, MinedFrom, Validated};
use docsuggest_schema::pack::{Companion, DOC_KIND, Family, MAX_PATH_BYTES, Pack, REPO_PACK_PATH};
pub use kept::Figures;
use kept::Keep;
use serde::Serialize;
pub use validate::Validation;

/// The version of the mining rules: a pack mined by another version is mined again.
pub const MINER_VERSION: u32 = 3;

/// At most this many of the newest first-parent commits are mined (by `init` and the
/// zero-config miner): older conventions weigh next to nothing (recent commits weigh more), and
/// the walk stays bounded on any history.
pub const MAX_MINED_COMMITS: usize = 50_000;

/// The gate of a mined family: the kappa, under the default weights on a fresh store, of a
/// note naming one companion of prior 0.47 — so a companion followed in about half of its
/// family's recent commits speaks alone, and weaker ones (each followed in at least
/// `min_rate`) speak in pairs. Learning then leaves out what the agent does not follow, and a
/// family whose companions all go unfollowed falls under this gate too.
pub const MINED_THRESHOLD: f64 = 0.51;

/// How a pack is mined. The defaults are what `init` and the zero-config path use.
#[derive(Clone, Debug)]
pub struct MineOptions {
    /// Commits with more changed files are left out (a sweeping change pairs everything).
    pub max_files: usize,
    /// Commits with more files than this weigh `small_commit / files`.
    pub small_commit: usize,
    /// A commit `h` commits older than the newest weighs `0.5^(h / half_life)`; `None`: a
    /// quarter of the history, at least 200 commits.
    pub half_life: Option<f64>,
    /// A family needs at least this many commits.
    pub min_commits: usize,
    /// A companion needs at least this many commits that changed it with the family.
    pub min_hits: usize,
    /// A companion needs at least this weighted share of the family's commits, over the
    /// whole history and over its newest commits.
    pub min_rate: f64,
    /// Over a family's newest commits, each weighs half as much this many family commits
    /// later: a convention that changed shows within a few commits.
    pub recent_half_life: f64,
    /// At most this many companions per family.
    pub max_companions: usize,
    /// At most this many families.
    pub max_families: usize,
    /// Where a glob and a file name the same change, the glob is preferred only when it is
    /// followed this much more often.
    pub glob_handicap: f64,
    /// A glob companion names at most this many files at the tip.
    pub max_glob_files: usize,
    /// A directory whose changes are at least this share of new files is a fragment
    /// directory: its companion is the new file (`dir/<name>.ext`).
    pub fragment_share: f64,
    /// Mine per-file companions too (the files one file of a family changed with).
    pub per_file: bool,
    /// Let the newer part of the history choose what the pack says (`validate`); off, or on
    /// a history too short to split, the fixed thresholds above do.
    pub validate: bool,
}

impl Default for MineOptions {
    fn default() -> Self {
        MineOptions {
            max_files: 40,
            small_commit: 10,
            half_life: None,
            min_commits: 5,
            min_hits: 3,
            min_rate: 0.4,
            recent_half_life: 30.0,
            max_companions: 4,
            max_families: 24,
            glob_handicap: 0.1,
            max_glob_files: 20,
            fragment_share: 0.6,
            per_file: true,
            validate: true,
        }
    }
}

/// A mined companion with what the history showed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MinedCompanion {
    /// The companion as the pack writes it.
    pub path: String,
    /// `literal`, `template`, `new-file`, `glob` or `per-file`.
    pub form: &'static str,
    /// The weighted share of the family's commits that changed it (a per-file companion: of
    /// its files' commits).
    pub rate: f64,
    /// The commits that changed it with the family.
    pub commits: u32,
    /// A per-file companion's files (the pack's `for`); empty for the others.
    #[serde(rename = "for", skip_serializing_if = "Vec::is_empty")]
    pub for_files: Vec<String>,
    /// Its figures on the newer part of the history, which kept it; `None` when the history
    /// was too short to split.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validated: Option<Figures>,
}

/// A mined family.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MinedFamily {
    /// Its name (from its rule: stable across re-mining).
    pub name: String,
    /// Its one rule.
    pub rule: String,
    /// The commits that changed its files.
    pub commits: u32,
    /// Its companions, best first.
    pub companions: Vec<MinedCompanion>,
}

/// What [`mine`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mined {
    /// The families, in pack order (the most useful first).
    pub families: Vec<MinedFamily>,
    /// Commits read.
    pub commits_read: usize,
    /// Commits counted (not empty, not sweeping, no odd path).
    pub commits_used: usize,
    /// How the newer part of the history chose what the pack says; `None` when the history
    /// was too short to split (`unvalidated` says so).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub validation: Option<Validation>,
    /// Why nothing was validated: the pack is the fixed rules'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unvalidated: Option<String>,
    /// The commits mined, as the pack records them (`None` for no commit).
    #[serde(skip)]
    pub range: Option<MinedFrom>,
    /// Whether the Stop reminder may block here, as `init` measured it out-of-sample (the
    /// pack's `boundary`); `None` until measured.
    #[serde(skip)]
    pub boundary: Option<BoundaryFigures>,
}

impl Mined {
    /// The mined pack: one family per mined rule, priors from the history's rates. Its
    /// signature is the pack file itself, so a work tree holding it is its workspace root.
    pub fn pack(&self) -> Pack {
        Pack {
            signature: vec![REPO_PACK_PATH.to_string()],
            mined: self.range.clone(),
            boundary: self.boundary,
            families: self
                .families
                .iter()
                .map(|f| Family {
                    name: f.name.clone(),
                    kind: DOC_KIND.into(),
                    rules: vec![f.rule.clone()],
                    threshold: Some(MINED_THRESHOLD),
                    companions: f
                        .companions
                        .iter()
                        .map(|c| Companion {
                            path: c.path.clone(),
                            prior: (c.rate.clamp(0.05, 1.0) * 100.0).round() / 100.0,
                            for_files: c.for_files.clone(),
                            validated: c.validated.map(|v| Validated {
                                named: v.named,
                                followed: v.followed,
                            }),
                        })
                        .collect(),
                })
                .collect(),
        }
    }

    /// The pack as the JSON text `.dsh/doc-pack.json` holds (deterministic, pretty-printed).
    pub fn pack_json(&self) -> String {
        pack_text(&self.pack())
    }
}

/// A pack as the JSON text a mined pack file holds (deterministic, pretty-printed).
pub fn pack_text(pack: &docsuggest_schema::Pack) -> String {
    // A pack of strings and numbers always serialises.
    serde_json::to_string_pretty(pack).unwrap_or_default() + "\n"
}

/// Mines `commits` (first-parent, oldest first) against the paths at their tip.
pub fn mine(commits: &[Commit], tip_paths: &[String], options: &MineOptions) -> Mined {
    let n = commits.len();
    let half_life = options
        .half_life
        .unwrap_or_else(|| (n as f64 / 4.0).max(200.0));
    let weight = |index: usize, files: usize| {
        if files > options.max_files {
            return None;
        }
        let age = (n - 1 - index) as f64;
        let size = if files > options.small_commit {
            options.small_commit as f64 / files as f64
        } else {
            1.0
        };
        Some(0.5f64.powf(age / half_life) * size)
    };
    let tip = tip::Tip::new(tip_paths);
    let split = validate::split(n).filter(|_| options.validate);
    let (mut families, counts, validation) = match split {
        Some(at) => {
            // The older part proposes, the newer part keeps; the kept set's priors are
            // counted on the whole history.
            let mut counts = count::count(&commits[..at], weight);
            let older = validate::Proposals::of(&counts, &tip, options);
            let reference = validate::cochange_reference(&counts, &older, &commits[at..], options);
            count::count_more(&mut counts, &commits[at..], at, weight);
            let proposals = older.with(validate::Proposals::of(&counts, &tip, options));
            let (kept, validation) =
                validate::keep(&counts, &proposals, commits, at, reference, options);
            let keeping = validate::keeping(options);
            let families = select::families(&counts, &tip, &keeping, Keep::Only(&kept));
            (families, counts, Some(validation))
        }
        None => {
            let counts = count::count(commits, weight);
            let families = select::families(&counts, &tip, options, Keep::All);
            (families, counts, None)
        }
    };
    families.retain_mut(loadable);
    let unvalidated = match (&validation, options.validate) {
        (Some(_), _) => None,
        (None, false) => Some("validation is off: mined by the fixed rules".to_string()),
        (None, true) => Some(format!(
            "the history is too short to validate ({n} commits; each part needs {}): mined by \
             the fixed rules",
            validate::MIN_PART_COMMITS
        )),
    };
    Mined {
        families,
        commits_read: n,
        commits_used: counts.used,
        range: range(commits, validation.as_ref()),
        boundary: None,
        validation,
        unvalidated,
    }
}

/// The commits mined from, as the pack records them.
fn range(commits: &[Commit], validation: Option<&Validation>) -> Option<MinedFrom> {
    Some(MinedFrom {
        from: commits.first()?.id.clone(),
        validated: validation.map(|v| v.validated_from.clone()),
        to: commits.last()?.id.clone(),
    })
}

/// Makes `family` something the pack loader accepts, or answers false: a companion or `for`
/// file past the pack's path limit is left out, and a family that still does not load alone
/// (its rule too long, nothing left to name) is not mined — a repository is never handed a
/// pack the engine refuses.
fn loadable(family: &mut MinedFamily) -> bool {
    for c in &mut family.companions {
        c.for_files.retain(|f| f.len() <= MAX_PATH_BYTES);
    }
    family.companions.retain(|c| {
        c.path.len() <= MAX_PATH_BYTES && (c.form != "per-file" || !c.for_files.is_empty())
    });
    if family.companions.is_empty() {
        return false;
    }
    let alone = Mined {
        families: vec![family.clone()],
        commits_read: 0,
        commits_used: 0,
        validation: None,
        unvalidated: None,
        range: None,
        boundary: None,
    }
    .pack();
    alone.problems().is_empty() && CompiledPack::compile(&alone, "mined").is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Status;

    fn commit(i: usize, files: &[(Status, String)], odd: bool) -> Commit {
        Commit {
            id: format!("{i:040x}"),
            files: files.to_vec(),
            bulk: false,
            odd,
        }
    }

    /// Twelve commits of `src/modK.rs` with `tests/modK_test.rs`.
    fn convention() -> (Vec<Commit>, Vec<String>) {
        let commits = (0..12)
            .map(|i| {
                let k = i % 3;
                let files = [
                    (Status::Modified, format!("src/mod{k}.rs")),
                    (Status::Modified, format!("tests/mod{k}_test.rs")),
                ];
                commit(i, &files, false)
            })
            .collect();
        let tip = (0..3)
            .flat_map(|k| [format!("src/mod{k}.rs"), format!("tests/mod{k}_test.rs")])
            .collect();
        (commits, tip)
    }

    #[test]
    fn odd_and_sweeping_commits_are_left_out_and_the_rest_counted() {
        let (mut commits, tip) = convention();
        let clean = mine(&commits, &tip, &MineOptions::default());
        assert_eq!(clean.commits_used, 12);
        let src = &clean.families[0];
        assert_eq!(src.rule, "src/*.rs");
        assert_eq!(src.companions[0].path, "tests/{}_test.rs");
        assert_eq!(src.companions[0].rate, 1.0);
        // An odd commit and one past `max_files` pairing src with everything count for nothing.
        commits.push(commit(
            12,
            &[(Status::Modified, "src/mod0.rs".into())],
            true,
        ));
        let wide: Vec<(Status, String)> = std::iter::once((Status::Modified, "src/mod1.rs".into()))
            .chain((0..60).map(|j| (Status::Added, format!("vendor/v{j}.txt"))))
            .collect();
        commits.push(commit(13, &wide, false));
        let noisy = mine(&commits, &tip, &MineOptions::default());
        assert_eq!((noisy.commits_read, noisy.commits_used), (14, 12));
        assert_eq!(
            noisy,
            Mined {
                commits_read: 14,
                unvalidated: noisy.unvalidated.clone(),
                range: noisy.range.clone(),
                boundary: noisy.boundary,
                ..clean
            }
        );
    }

    #[test]
    fn deleted_files_trigger_nothing_and_vanished_companions_are_not_named() {
        let (commits, mut tip) = convention();
        // At the tip the tests directory is gone: no template, glob or file there is named.
        tip.retain(|p| p.starts_with("src/"));
        let mined = mine(&commits, &tip, &MineOptions::default());
        assert!(mined.families.is_empty(), "{mined:?}");
        let deleted: Vec<Commit> = (0..12)
            .map(|i| {
                let files = [
                    (Status::Deleted, format!("src/mod{}.rs", i % 3)),
                    (Status::Deleted, format!("tests/mod{}_test.rs", i % 3)),
                ];
                commit(i, &files, false)
            })
            .collect();
        let mined = mine(&deleted, &convention().1, &MineOptions::default());
        assert_eq!(mined.commits_used, 0);
        assert!(mined.families.is_empty());
    }

    #[test]
    fn the_pack_is_valid_and_names_are_stable() {
        let (commits, tip) = convention();
        let mined = mine(&commits, &tip, &MineOptions::default());
        let pack = mined.pack();
        assert_eq!(pack.problems(), Vec::<String>::new());
        let names: Vec<&str> = pack.families.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["src-rs", "tests-_test-rs"]);
        assert!(
            pack.families
                .iter()
                .all(|f| f.threshold == Some(MINED_THRESHOLD))
        );
        let text = mined.pack_json();
        assert_eq!(
            Pack::from_json_str(&text, "mined").expect("parses"),
            pack,
            "{text}"
        );
    }

    fn modified(paths: &[String]) -> Vec<(Status, String)> {
        paths
            .iter()
            .map(|p| (Status::Modified, p.clone()))
            .collect()
    }

    /// Source files tested in modules whose names do not say so: `app.py` in `test_basic.py`,
    /// `cli.py` in `test_commands.py`, each changed with its test in two commits of three,
    /// and the changelog in every second.
    fn unmirrored() -> (Vec<Commit>, Vec<String>) {
        let pairs = [("app", "basic"), ("cli", "commands"), ("json", "encoding")];
        let commits = (0..36)
            .map(|i| {
                let (source, test) = pairs[i % 3];
                let mut files = vec![format!("src/flask/{source}.py")];
                if (i / 3) % 3 != 2 {
                    files.push(format!("tests/test_{test}.py"));
                }
                if i % 2 == 0 {
                    files.push("CHANGES.rst".into());
                }
                commit(i, &modified(&files), false)
            })
            .collect();
        let mut tip: Vec<String> = pairs
            .iter()
            .flat_map(|(s, t)| [format!("src/flask/{s}.py"), format!("tests/test_{t}.py")])
            .collect();
        tip.push("CHANGES.rst".into());
        (commits, tip)
    }

    #[test]
    fn a_source_file_gets_the_test_module_it_changes_with_as_a_per_file_companion() {
        let (commits, tip) = unmirrored();
        let mined = mine(&commits, &tip, &MineOptions::default());
        let src = mined
            .families
            .iter()
            .find(|f| f.rule == "src/flask/*.py")
            .unwrap_or_else(|| panic!("no source family: {mined:?}"));
        let mut per_file: Vec<(&str, &[String])> = src
            .companions
            .iter()
            .filter(|c| c.form == "per-file")
            .map(|c| (c.path.as_str(), c.for_files.as_slice()))
            .collect();
        per_file.sort();
        let for_one = |f: &str| vec![f.to_string()];
        assert_eq!(
            per_file,
            [
                (
                    "tests/test_basic.py",
                    for_one("src/flask/app.py").as_slice()
                ),
                (
                    "tests/test_commands.py",
                    for_one("src/flask/cli.py").as_slice()
                ),
                (
                    "tests/test_encoding.py",
                    for_one("src/flask/json.py").as_slice()
                ),
            ]
        );
        // The pack carries them as `for`, and stays valid.
        let pack = mined.pack();
        assert_eq!(pack.problems(), Vec::<String>::new());
        let text = mined.pack_json();
        assert!(text.contains("\"for\": [\n"), "{text}");
        // Without per-file mining the family names no test module: only the glob of them.
        let options = MineOptions {
            per_file: false,
            ..MineOptions::default()
        };
        let plain = mine(&commits, &tip, &options);
        let src = plain.families.iter().find(|f| f.rule == "src/flask/*.py");
        let named: Vec<&str> = src
            .map(|f| f.companions.iter().map(|c| c.path.as_str()).collect())
            .unwrap_or_default();
        assert_eq!(named, ["tests/*.py", "CHANGES.rst"], "{plain:?}");
    }

    #[test]
    fn a_capitalised_test_suffix_is_a_convention() {
        let names = ["TrailingComma", "Indentation", "Wrap"];
        let commits = (0..12)
            .map(|i| {
                let name = names[i % 3];
                let files = [
                    format!("Sources/Rules/{name}.swift"),
                    format!("Tests/Rules/{name}Tests.swift"),
                ];
                commit(i, &modified(&files), false)
            })
            .collect::<Vec<_>>();
        let tip: Vec<String> = names
            .iter()
            .flat_map(|n| {
                [
                    format!("Sources/Rules/{n}.swift"),
                    format!("Tests/Rules/{n}Tests.swift"),
                ]
            })
            .collect();
        let mined = mine(&commits, &tip, &MineOptions::default());
        let rules: Vec<(&str, &str)> = mined
            .families
            .iter()
            .map(|f| (f.rule.as_str(), f.companions[0].path.as_str()))
            .collect();
        assert!(
            rules.contains(&("Sources/Rules/*.swift", "Tests/Rules/{}Tests.swift")),
            "{rules:?}"
        );
        assert!(
            rules.contains(&("Tests/Rules/*Tests.swift", "Sources/Rules/{}.swift")),
            "{rules:?}"
        );
    }

    #[test]
    fn a_lock_file_is_named_beside_its_manifest_only() {
        // Each service's source, manifest and checksums change together.
        let commits = (0..12)
            .map(|i| {
                let k = ["alpha", "beta", "gamma"][i % 3];
                let files = [
                    format!("svc/{k}/main.go"),
                    format!("svc/{k}/go.mod"),
                    format!("svc/{k}/go.sum"),
                ];
                commit(i, &modified(&files), false)
            })
            .collect::<Vec<_>>();
        let tip: Vec<String> = ["alpha", "beta", "gamma"]
            .iter()
            .flat_map(|k| ["main.go", "go.mod", "go.sum"].map(|f| format!("svc/{k}/{f}")))
            .collect();
        let mined = mine(&commits, &tip, &MineOptions::default());
        let named = |rule: &str| -> Vec<String> {
            mined
                .families
                .iter()
                .filter(|f| f.rule == rule)
                .flat_map(|f| f.companions.iter().map(|c| c.path.clone()))
                .collect()
        };
        assert_eq!(named("svc/*/main.go"), ["svc/{}/go.mod"], "{mined:?}");
        assert!(
            named("svc/*/go.mod").contains(&"svc/{}/go.sum".to_string()),
            "{mined:?}"
        );
    }

    #[test]
    fn no_glob_companion_names_more_than_twenty_files() {
        // Every source change adds a page to a directory of 30 pages, and every page change
        // goes with one of three sources.
        let commits = (0..30)
            .map(|i| {
                let files = [
                    (Status::Modified, format!("src/m{}.rs", i % 3)),
                    (Status::Modified, format!("pages/p{i}.md")),
                ];
                commit(i, &files, false)
            })
            .collect::<Vec<_>>();
        let tip: Vec<String> = (0..3)
            .map(|k| format!("src/m{k}.rs"))
            .chain((0..30).map(|i| format!("pages/p{i}.md")))
            .collect();
        let mined = mine(&commits, &tip, &MineOptions::default());
        let globs: Vec<(&str, &str)> = mined
            .families
            .iter()
            .flat_map(|f| {
                f.companions
                    .iter()
                    .filter(|c| c.form == "glob")
                    .map(|c| (f.rule.as_str(), c.path.as_str()))
            })
            .collect();
        // The pages' family may name the sources' glob (3 files), never the reverse (30).
        assert_eq!(globs, [("pages/*.md", "src/*.rs")]);
    }

    #[test]
    fn a_glob_of_one_file_is_named_as_that_file_only() {
        let commits = (0..12)
            .map(|i| {
                let files = [format!("src/m{}.rs", i % 3), "bench/README.md".to_string()];
                commit(i, &modified(&files), false)
            })
            .collect::<Vec<_>>();
        let tip: Vec<String> = (0..3)
            .map(|k| format!("src/m{k}.rs"))
            .chain(["bench/README.md".into()])
            .collect();
        let mined = mine(&commits, &tip, &MineOptions::default());
        let src = mined
            .families
            .iter()
            .find(|f| f.rule == "src/*.rs")
            .unwrap_or_else(|| panic!("{mined:?}"));
        let named: Vec<&str> = src.companions.iter().map(|c| c.path.as_str()).collect();
        assert_eq!(named, ["bench/README.md"]);
    }

    #[test]
    fn a_convention_past_the_pack_path_limit_is_not_mined() {
        // The same convention twice: under a short directory and under one of 600 bytes.
        let long = "d".repeat(600);
        let commits = (0..24)
            .map(|i| {
                let dir = if i % 2 == 0 { "src" } else { long.as_str() };
                let k = ["alpha", "beta", "gamma"][i % 3];
                let files = [format!("{dir}/{k}.py"), format!("{dir}/test_{k}.py")];
                commit(i, &modified(&files), false)
            })
            .collect::<Vec<_>>();
        let tip: Vec<String> = ["src", long.as_str()]
            .iter()
            .flat_map(|d| {
                ["alpha", "beta", "gamma"]
                    .iter()
                    .flat_map(move |k| [format!("{d}/{k}.py"), format!("{d}/test_{k}.py")])
            })
            .collect();
        let mined = mine(&commits, &tip, &MineOptions::default());
        assert!(!mined.families.is_empty());
        assert!(
            mined.families.iter().all(|f| !f.rule.contains(&long)
                && f.companions.iter().all(|c| c.path.len() <= MAX_PATH_BYTES)),
            "{mined:?}"
        );
        let text = mined.pack_json();
        let pack = Pack::from_json_str(&text, "mined").expect("the loader accepts it");
        assert!(CompiledPack::compile(&pack, "mined").is_ok());
    }

    #[test]
    fn the_same_history_mines_the_same_pack_byte_for_byte() {
        let (mut commits, tip) = unmirrored();
        commits.extend(convention().0.into_iter().map(|mut c| {
            c.id = format!("b{}", c.id);
            c
        }));
        let mut all_tip = tip;
        all_tip.extend(convention().1);
        let first = mine(&commits, &all_tip, &MineOptions::default()).pack_json();
        // Each run hashes with new seeds: nothing may depend on a map's order.
        for _ in 0..5 {
            assert_eq!(
                mine(&commits, &all_tip, &MineOptions::default()).pack_json(),
                first
            );
        }
    }
}
