//! One pass over the history: for every rule a changed path proposes, how often (weighted)
//! its files changed, and how often each candidate companion changed with them.

use super::rules::{Shape, plain, proposals, split};
use crate::history::{Commit, Status};
use docsuggest_schema::pack::DIR_MARK;
use std::collections::{BTreeSet, HashMap};

/// How a candidate companion is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// One file.
    Literal,
    /// Any file of a directory with an extension: `dir/*.ext`.
    Dir,
    /// A file of a directory, by the directory: a new file there (`dir/<name>.<ext>`) when
    /// the directory's changes are mostly new files.
    NewFile,
    /// A path built from the call's capture: `tests/test_{}.py`, `spec/{**}/{}_spec.rb`.
    Template,
}

/// A candidate companion: its kind and its text (a path, `dir/*.ext`, or a template).
pub type CompanionKey = (Kind, u32);

/// Weighted and plain counts of something that happened.
#[derive(Clone, Copy, Debug, Default)]
pub struct Tally {
    /// Sum of the commits' weights.
    pub weight: f64,
    /// Commits.
    pub count: u32,
}

impl Tally {
    fn add(&mut self, weight: f64) {
        self.weight += weight;
        self.count += 1;
    }
}

/// What one rule's commits showed.
#[derive(Debug, Default)]
pub struct RuleStats {
    /// Commits that changed a file of the rule.
    pub events: Tally,
    /// For each candidate companion, the commits where it changed with the rule's files (a
    /// template's weight is the share of the rule's files whose substitution changed).
    pub companions: HashMap<CompanionKey, Tally>,
    /// For each candidate companion, the rule's commits (numbered from 0 in order) where it
    /// changed, with the share: what the newest commits of the rule say.
    pub recent: HashMap<CompanionKey, Vec<(u32, f32)>>,
    /// The first file of the rule seen changed, and whether another one was.
    first_file: Option<u32>,
    /// More than one file of the rule changed over the history.
    pub several_files: bool,
}

/// The counts of a whole history.
#[derive(Debug, Default)]
pub struct Counts {
    /// The rules, by number.
    pub shapes: Vec<Shape>,
    /// Each rule's number.
    pub shape_ids: HashMap<Shape, u32>,
    /// Each rule's stats, by number.
    pub stats: Vec<RuleStats>,
    /// Interned companion texts.
    pub texts: Vec<String>,
    text_ids: HashMap<String, u32>,
    /// For each directory (by its `NewFile` text): what its changes were over every commit
    /// used.
    pub dir_changes: HashMap<u32, DirChanges>,
    /// Commits used (not skipped).
    pub used: usize,
    /// For each file (by its literal text): the commits that changed it.
    pub file_events: HashMap<u32, Tally>,
    /// For each (file, other file) changed in one commit: the commits that changed both — a
    /// per-file companion's evidence, where names do not say which files go together.
    pub pairs: HashMap<(u32, u32), Tally>,
}

impl Counts {
    fn intern(&mut self, text: &str) -> u32 {
        if let Some(id) = self.text_ids.get(text) {
            return *id;
        }
        let id = self.texts.len() as u32;
        self.texts.push(text.to_string());
        self.text_ids.insert(text.to_string(), id);
        id
    }

    fn shape(&mut self, shape: Shape) -> u32 {
        if let Some(id) = self.shape_ids.get(&shape) {
            return *id;
        }
        let id = self.shapes.len() as u32;
        self.shapes.push(shape.clone());
        self.shape_ids.insert(shape, id);
        self.stats.push(RuleStats::default());
        id
    }

    /// The number of an interned text (a path seen changed), if any.
    pub fn id(&self, text: &str) -> Option<u32> {
        self.text_ids.get(text).copied()
    }

    /// The text of a companion key.
    pub fn text(&self, key: CompanionKey) -> &str {
        &self.texts[key.1 as usize]
    }
}

/// What a directory's changes were.
#[derive(Clone, Debug, Default)]
pub struct DirChanges {
    /// Files changed (added or modified).
    pub changes: u32,
    /// Files added.
    pub additions: u32,
    /// The extension every added file had, while they all had the same one.
    pub added_extension: Option<String>,
    /// Added files had different extensions (or none).
    pub mixed_extensions: bool,
}

/// The `NewFile` text of a path's directory: `dir/<name>.<ext>` (`None` at the root).
pub fn new_file_text(path: &str) -> Option<String> {
    let (dir, _) = split(path);
    (!dir.is_empty()).then(|| format!("{dir}/<name>.<ext>"))
}

/// The shortest capture a template is mined from: shorter ones occur by chance in any path.
const MIN_CAPTURE: usize = 3;

/// `path` with each occurrence of `capture` that stands as a word of its own (not inside a
/// longer word: `package` is not in `packages/`) replaced by `{}`; `None` when there is none.
/// A word also ends where a capitalised word begins (`Foo` in `FooTests.swift`) and begins
/// after a lower-case letter when it is capitalised itself (`Foo` in `testFoo.kt`).
pub fn template_of(path: &str, capture: &str) -> Option<String> {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
    let (first, last) = (capture.chars().next(), capture.chars().last());
    let starts_word = !word(first);
    let ends_word = !word(last);
    // Case boundaries: `xY` separates words, so a capture ending in a lower-case letter or a
    // digit ends a word before an upper-case one, and a capitalised capture starts one after
    // a lower-case letter.
    let ends_before = |after: Option<char>| {
        !word(after)
            || (after.is_some_and(char::is_uppercase)
                && last.is_some_and(|c| c.is_lowercase() || c.is_ascii_digit()))
    };
    let starts_after = |before: Option<char>| {
        !word(before)
            || (before.is_some_and(char::is_lowercase) && first.is_some_and(char::is_uppercase))
    };
    let mut out = String::with_capacity(path.len());
    let mut copied = 0;
    for (at, _) in path.match_indices(capture) {
        let before = path[..at].chars().last();
        let after = path[at + capture.len()..].chars().next();
        if at >= copied
            && (starts_word || starts_after(before))
            && (ends_word || ends_before(after))
        {
            out.push_str(&path[copied..at]);
            out.push_str("{}");
            copied = at + capture.len();
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(&path[copied..]);
    Some(out)
}

/// `dir/*.ext` for a path with an extension.
pub fn dir_glob(path: &str) -> Option<String> {
    let (dir, name) = split(path);
    let ext = super::rules::extension(name)?;
    Some(if dir.is_empty() {
        format!("*.{ext}")
    } else {
        format!("{dir}/*.{ext}")
    })
}

/// Counts `commits` (oldest first), each weighted by `weight(index, files)`; a commit for
/// which `weight` answers `None` is left out.
pub fn count(commits: &[Commit], weight: impl Fn(usize, usize) -> Option<f64>) -> Counts {
    let mut counts = Counts::default();
    count_more(&mut counts, commits, 0, weight);
    counts
}

/// Goes on counting into `counts` with `commits`, the first of which is commit `offset` of
/// the history (`weight` is asked with the history's index): the counts of an older part
/// become the whole history's without reading the older part again.
pub fn count_more(
    counts: &mut Counts,
    commits: &[Commit],
    offset: usize,
    weight: impl Fn(usize, usize) -> Option<f64>,
) {
    for (index, commit) in commits.iter().enumerate() {
        let index = index + offset;
        let Some(files) = counted_files(commit) else {
            continue;
        };
        let Some(w) = weight(index, files.len()) else {
            continue;
        };
        counts.used += 1;
        count_commit(counts, &files, w);
        if counts.pairs.len() > MAX_PAIRS {
            forget_rare_pairs(&mut counts.pairs, MAX_PAIRS / 2);
        }
    }
}

/// The files a commit is counted by: those it added or modified, with plain paths; `None`
/// for a commit left out (nothing left, an odd path, a bulk commit).
pub fn counted_files(commit: &Commit) -> Option<Vec<(Status, &str)>> {
    let files: Vec<(Status, &str)> = commit
        .files
        .iter()
        .filter(|(s, p)| *s != Status::Deleted && plain(p))
        .map(|(s, p)| (*s, p.as_str()))
        .collect();
    (!files.is_empty() && !commit.odd && !commit.bulk).then_some(files)
}

/// A commit of more files than this says which kinds of files change together, not which
/// files: its pairs are not counted.
const PAIR_MAX_FILES: usize = 20;

/// The most file pairs held at once. Past it, the pairs seen once are forgotten (lossy
/// counting): a pair that matters recurs, and memory stays bounded on any history.
const MAX_PAIRS: usize = 2_000_000;

/// Forgets the rarest pairs — seen once, then twice, … — until at most `keep` are left.
fn forget_rare_pairs(pairs: &mut HashMap<(u32, u32), Tally>, keep: usize) {
    let mut floor = 1;
    while pairs.len() > keep {
        pairs.retain(|_, t| t.count > floor);
        floor += 1;
    }
}

/// Counts one commit of `files`, weighted `w`: its files and pairs, its directories' changes,
/// and for each rule it proposes, what changed with the rule's files.
fn count_commit(counts: &mut Counts, files: &[(Status, &str)], w: f64) {
    let members = rule_members(counts, files);
    let literal: Vec<u32> = files.iter().map(|(_, p)| counts.intern(p)).collect();
    count_files_and_pairs(counts, &literal, w);
    let ids = FileIds {
        dirs: files
            .iter()
            .map(|(_, p)| dir_glob(p).map(|g| counts.intern(&g)))
            .collect(),
        new_files: files
            .iter()
            .map(|(_, p)| new_file_text(p).map(|t| counts.intern(&t)))
            .collect(),
        literal,
    };
    count_dir_changes(counts, files, &ids.new_files);
    let mut rules: Vec<u32> = members.keys().copied().collect();
    rules.sort_unstable();
    for rule in rules {
        count_rule(counts, files, &ids, rule, &members[&rule], w);
    }
}

/// What each of a commit's files is interned as: its path, its `dir/*.ext`, its new-file text.
struct FileIds {
    literal: Vec<u32>,
    dirs: Vec<Option<u32>>,
    new_files: Vec<Option<u32>>,
}

/// The rules this commit's files propose, each with its members (file index, capture).
fn rule_members<'a>(
    counts: &mut Counts,
    files: &[(Status, &'a str)],
) -> HashMap<u32, Vec<(usize, &'a str)>> {
    let mut members: HashMap<u32, Vec<(usize, &str)>> = HashMap::new();
    for (i, (_, path)) in files.iter().enumerate() {
        for (shape, capture) in proposals(path) {
            let id = counts.shape(shape);
            members.entry(id).or_default().push((i, capture));
        }
    }
    members
}

/// Each file's change, and each pair's unless the commit is too large for pairs.
fn count_files_and_pairs(counts: &mut Counts, literal: &[u32], w: f64) {
    for &a in literal {
        counts.file_events.entry(a).or_default().add(w);
        if literal.len() > PAIR_MAX_FILES {
            continue;
        }
        for &b in literal {
            if a != b {
                counts.pairs.entry((a, b)).or_default().add(w);
            }
        }
    }
}

/// Each directory's changes and additions, and the one extension its added files share.
fn count_dir_changes(counts: &mut Counts, files: &[(Status, &str)], new_files: &[Option<u32>]) {
    for (i, d) in new_files.iter().enumerate() {
        if let Some(d) = d {
            let entry = counts.dir_changes.entry(*d).or_default();
            entry.changes += 1;
            if files[i].0 == Status::Added {
                entry.additions += 1;
                let ext = super::rules::extension(split(files[i].1).1);
                match (&entry.added_extension, ext) {
                    (None, Some(e)) if !entry.mixed_extensions => {
                        entry.added_extension = Some(e.to_string())
                    }
                    (Some(known), Some(e)) if known == e => {}
                    _ => {
                        entry.mixed_extensions = true;
                        entry.added_extension = None;
                    }
                }
            }
        }
    }
}

/// Counts the commit for `rule`, whose members are `group`: what changed outside them.
fn count_rule(
    counts: &mut Counts,
    files: &[(Status, &str)],
    ids: &FileIds,
    rule: u32,
    group: &[(usize, &str)],
    w: f64,
) {
    let inside: BTreeSet<usize> = group.iter().map(|(i, _)| *i).collect();
    let hits = companions_outside(files, ids, &inside);
    // A subtree rule's members capture their directories below its top too.
    let shape = &counts.shapes[rule as usize];
    let dirs: Vec<Option<&str>> = group
        .iter()
        .map(|(i, _)| shape.capture(files[*i].1).and_then(|c| c.dirs))
        .collect();
    let shares = template_shares(counts, files, group, &dirs, &inside, w);
    let stats = &mut counts.stats[rule as usize];
    let event = stats.events.count;
    stats.events.add(w);
    for (member, _) in group {
        match stats.first_file {
            None => stats.first_file = Some(ids.literal[*member]),
            Some(f) if f != ids.literal[*member] => stats.several_files = true,
            Some(_) => {}
        }
    }
    for key in hits {
        stats.companions.entry(key).or_default().add(w);
        stats.recent.entry(key).or_default().push((event, 1.0));
    }
    let mut templates: Vec<(u32, f64)> = shares.into_iter().collect();
    templates.sort_unstable_by_key(|(id, _)| *id);
    for (id, weight) in templates {
        let key = (Kind::Template, id);
        stats.companions.entry(key).or_default().add(weight);
        stats
            .recent
            .entry(key)
            .or_default()
            .push((event, (weight / w) as f32));
    }
}

/// The literal, directory and new-file companions among the files not `inside` the rule.
fn companions_outside(
    files: &[(Status, &str)],
    ids: &FileIds,
    inside: &BTreeSet<usize>,
) -> BTreeSet<CompanionKey> {
    let mut hits: BTreeSet<CompanionKey> = BTreeSet::new();
    for (i, _) in files.iter().enumerate() {
        if inside.contains(&i) {
            continue;
        }
        hits.insert((Kind::Literal, ids.literal[i]));
        if let Some(d) = ids.dirs[i] {
            hits.insert((Kind::Dir, d));
        }
        if let Some(d) = ids.new_files[i] {
            hits.insert((Kind::NewFile, d));
        }
    }
    hits
}

/// Templates: each member's share of the commit's weight goes to the templates its capture
/// spells in the other files — its stem as `{}`, and the directories a subtree rule's member
/// lies in below the top (`dirs`, by member) as `{**}`.
fn template_shares(
    counts: &mut Counts,
    files: &[(Status, &str)],
    group: &[(usize, &str)],
    dirs: &[Option<&str>],
    inside: &BTreeSet<usize>,
    w: f64,
) -> HashMap<u32, f64> {
    let mut shares: HashMap<u32, f64> = HashMap::new();
    let share = w / group.len() as f64;
    for ((member, capture), dirs) in group.iter().zip(dirs) {
        if capture.len() < MIN_CAPTURE {
            continue;
        }
        let mut seen = BTreeSet::new();
        for (i, (_, other)) in files.iter().enumerate() {
            if i == *member || inside.contains(&i) {
                continue;
            }
            let plain = template_of(other, capture);
            let deep = dirs.and_then(|dirs| dir_template_of(other, dirs, capture));
            for template in plain.into_iter().chain(deep) {
                if seen.insert(template.clone()) {
                    let id = counts.intern(&template);
                    *shares.entry(id).or_default() += share;
                }
            }
        }
    }
    shares
}

/// `path` with the one run of its directory's whole components that spells `dirs` replaced
/// by `{**}`, and `stem`'s words by `{}` (as [`template_of`]). `None` when `dirs` is empty
/// (directly in the rule's top, a `{**}` could stand anywhere), is not there, or is there
/// more than once (which one the template means would be a guess), or the stem is not there:
/// a directory alone is met in too many paths to say which file goes with which.
pub fn dir_template_of(path: &str, dirs: &str, stem: &str) -> Option<String> {
    if dirs.is_empty() {
        return None;
    }
    let (dir, name) = split(path);
    let components: Vec<&str> = dir.split('/').collect();
    let wanted: Vec<&str> = dirs.split('/').collect();
    let mut at = components
        .windows(wanted.len())
        .enumerate()
        .filter(|(_, w)| *w == wanted.as_slice())
        .map(|(i, _)| i);
    let (Some(start), None) = (at.next(), at.next()) else {
        return None;
    };
    let mut parts: Vec<&str> = components[..start].to_vec();
    parts.push(DIR_MARK);
    parts.extend(&components[start + wanted.len()..]);
    parts.push(name);
    template_of(&parts.join("/"), stem)
}

#[cfg(test)]
mod tests {
    use super::{HashMap, Tally, dir_template_of, forget_rare_pairs, template_of};

    #[test]
    fn the_rarest_pairs_are_forgotten_first() {
        let mut pairs: HashMap<(u32, u32), Tally> = (0..10)
            .map(|i| {
                let count = i % 3 + 1;
                let tally = Tally {
                    weight: f64::from(count),
                    count,
                };
                ((i, i + 1), tally)
            })
            .collect();
        // Counts 1, 2, 3 (four, three and three pairs): keeping six forgets the ones seen once.
        forget_rare_pairs(&mut pairs, 6);
        assert_eq!(pairs.len(), 6);
        assert!(pairs.values().all(|t| t.count >= 2));
        forget_rare_pairs(&mut pairs, 1);
        assert!(
            pairs.is_empty(),
            "nothing above the floor is kept past the bound"
        );
    }

    #[test]
    fn a_directory_template_replaces_whole_components_once() {
        for (path, dirs, expect) in [
            (
                "spec/app/rules/safety/open_call_spec.rb",
                "app/rules/safety",
                Some("spec/{**}/{}_spec.rb"),
            ),
            (
                "spec/app/rules/safety/open_call_spec.rb",
                "rules/safety",
                Some("spec/app/{**}/{}_spec.rb"),
            ),
            ("site/io/open_call.html", "io", Some("site/{**}/{}.html")),
            (
                "spec/open_call/x/open_call_spec.rb",
                "open_call",
                Some("spec/{**}/x/{}_spec.rb"),
            ),
            // The stem must be there too: a directory alone says too little.
            ("spec/app/rules/helper.rb", "app/rules", None),
            ("spec/open_call_spec.rb", "", None),
            // Whole components only, in the directory only, once only.
            ("spec/apps/open_call_spec.rb", "app", None),
            ("spec/xapp/open_call_spec.rb", "app", None),
            ("spec/open_call", "open_call", None),
            ("a/x/a/open_call.rb", "a", None),
        ] {
            let stem = "open_call";
            assert_eq!(
                dir_template_of(path, dirs, stem).as_deref(),
                expect,
                "{path} {dirs}"
            );
        }
    }

    #[test]
    fn templates_replace_whole_words_only() {
        for (path, capture, expect) in [
            (
                "tests/test_validators.py",
                "validators",
                Some("tests/test_{}.py"),
            ),
            ("tests/test_make.py", "_make", Some("tests/test{}.py")),
            (
                "packages/cli/package.json",
                "package",
                Some("packages/cli/{}.json"),
            ),
            ("packages/cli/CHANGELOG.md", "package", None),
            (
                "packages/cli/CHANGELOG.md",
                "cli",
                Some("packages/{}/CHANGELOG.md"),
            ),
            ("tests/ui/foo/foo.rs", "foo", Some("tests/ui/{}/{}.rs")),
            ("tests/ui/foobar.rs", "foo", None),
            ("x.md", "foo", None),
            (
                "Tests/Rules/TrailingCommaTests.swift",
                "TrailingComma",
                Some("Tests/Rules/{}Tests.swift"),
            ),
            ("src/test/FooTest.java", "Foo", Some("src/test/{}Test.java")),
            ("src/test/testFoo.kt", "Foo", Some("src/test/test{}.kt")),
            // A capture inside a longer capitalised word is not a word of its own.
            ("src/FoobarTest.java", "Foo", None),
            ("src/FOOTest.java", "FOO", None),
        ] {
            assert_eq!(
                template_of(path, capture).as_deref(),
                expect,
                "{path} {capture}"
            );
        }
    }
}
