//! From counts to a pack: the companions each rule's commits followed often enough, the
//! rules worth a family, and no two families claiming the same file.

use super::count::{CompanionKey, Counts, Kind, RuleStats};
use super::kept::{Figures, Keep};
use super::per_file::{self, FileCompanion, FileRules, generated};
use super::rules::{Capture, Shape, extension, manifest_extension, split};
use super::tip::Tip;
use super::{MineOptions, MinedCompanion, MinedFamily};
use docsuggest_engine::compiled::{Captured, substitute};
use docsuggest_schema::pack::{DIR_MARK, MAX_LIST, is_template};
use std::collections::{BTreeMap, HashMap, HashSet};

/// A rule's family before the overlap check.
pub struct Candidate {
    /// Its rule.
    pub shape: Shape,
    commits: u32,
    /// Its pattern companions, best first.
    pub companions: Vec<MinedCompanion>,
    value: f64,
}

/// Whether the pack companion `companion` names exactly `path` on a call whose capture is
/// `capture`: equal, or its template's substitution. (A glob holding `path` does not: the
/// file says which one, as a literal beside its glob does.)
fn names(companion: &str, capture: Option<Capture<'_>>, path: &str) -> bool {
    resolved(companion, capture) == path
}

/// Whether the pack companion `companion` names `path` or a glob holding it names it, on a
/// call whose capture is `capture`.
pub(super) fn covers(companion: &str, capture: Option<Capture<'_>>, path: &str) -> bool {
    names(companion, capture, path) || glob_match(&wildcards(companion), path)
}

/// What a companion names on a call whose capture is `capture`: a template its substitution
/// as the engine makes it, any other companion (or a template without one) as written.
fn resolved(companion: &str, capture: Option<Capture<'_>>) -> String {
    let substituted = capture.filter(|_| is_template(companion)).and_then(|c| {
        let captured = Captured {
            stem: Some(c.stem),
            dirs: c.dirs,
        };
        substitute(companion, &captured)
    });
    substituted.unwrap_or_else(|| companion.to_string())
}

/// The per-file companions `file` keeps in a family of rule `shape` whose pattern companions
/// are `pattern`: those the rule does not match and no pattern companion already names.
fn kept_for<'r>(
    counts: &'r Counts,
    rules: &'r FileRules,
    shape: &'r Shape,
    file: &'r str,
    pattern: &'r [MinedCompanion],
) -> impl Iterator<Item = &'r FileCompanion> + 'r {
    let capture = shape.capture(file);
    rules.companions.iter().filter(move |c| {
        let path = counts.text((Kind::Literal, c.companion));
        !shape.matches(path) && !pattern.iter().any(|p| names(&p.path, capture, path))
    })
}

/// The weighted commits the per-file companions of a rule's tip files explain.
fn per_file_value(
    counts: &Counts,
    file_rules: &HashMap<u32, FileRules>,
    shape: &Shape,
    tip: &Tip<'_>,
    pattern: &[MinedCompanion],
) -> f64 {
    tip.files_of(shape)
        .filter_map(|f| Some((f, file_rules.get(&counts.id(f)?)?)))
        .map(|(f, rules)| {
            // The best companion only: what one note on the file would be followed for.
            kept_for(counts, rules, shape, f, pattern)
                .map(|c| c.rate * rules.weight)
                .fold(0.0, f64::max)
        })
        .sum()
}

/// Whether a companion lives in the directory of each file of the rule: a lock file beside
/// its manifest (`*/go.mod` → `{}/go.sum`) is what editing the manifest regenerates; beside
/// a source file it is only a side effect.
fn beside_its_files(shape: &Shape, companion: &str) -> bool {
    let (dir, _) = split(companion);
    if !manifest_like(shape) {
        return false;
    }
    match shape {
        Shape::DirExt { dir: d, .. } | Shape::Affix { dir: d, .. } => dir == d,
        Shape::Item { parent, .. } if parent.is_empty() => dir == "{}",
        Shape::Item { parent, .. } => dir == format!("{parent}/{{}}"),
        Shape::Deep { top, .. } => dir == format!("{top}/{DIR_MARK}"),
    }
}

/// Whether a rule's files are manifests ([`manifest_extension`]).
fn manifest_like(shape: &Shape) -> bool {
    match shape {
        Shape::DirExt { ext, .. } | Shape::Affix { ext, .. } | Shape::Deep { ext, .. } => {
            manifest_extension(Some(ext))
        }
        Shape::Item { name, .. } => manifest_extension(extension(name)),
    }
}

/// The companion a candidate key becomes at the tip, if any.
fn companion_at_tip(
    counts: &Counts,
    key: CompanionKey,
    shape: &Shape,
    tip: &Tip<'_>,
    options: &MineOptions,
) -> Option<(String, &'static str)> {
    let text = counts.text(key);
    if generated(text) && !beside_its_files(shape, text) {
        return None;
    }
    match key.0 {
        Kind::Literal => (tip.paths.contains(text) && !shape.matches(text))
            .then(|| (text.to_string(), "literal")),
        Kind::Dir => {
            let (dir, _) = split(text);
            // A root glob (`*.md`) names files of every directory once package roots count.
            if dir.is_empty() || !tip.dir_exists(dir) {
                return None;
            }
            let files = tip.dir_files.get(text).copied().unwrap_or(0);
            (1..=options.max_glob_files)
                .contains(&files)
                .then(|| (text.to_string(), "glob"))
        }
        Kind::NewFile => {
            let (dir, _) = split(text);
            let changes = counts.dir_changes.get(&key.1)?;
            let fragments = changes.additions > 0
                && f64::from(changes.additions)
                    >= options.fragment_share * f64::from(changes.changes);
            if !fragments || !tip.dir_exists(dir) {
                return None;
            }
            // A directory whose changes are new files: name the file the change adds, with
            // the extension every new file had, or any (a convention that changed its
            // extension is still the same convention).
            Some((
                match &changes.added_extension {
                    Some(ext) => format!("{dir}/<name>.{ext}"),
                    None => text.to_string(),
                },
                "new-file",
            ))
        }
        Kind::Template => {
            let (dir, _) = split(text);
            // Below a `{**}` lie the call's own directories: the ones above it must be there.
            let fixed = match dir.split_once(DIR_MARK) {
                Some((above, _)) => tip.dir_exists(above.trim_end_matches('/')),
                None => dir.contains("{}") || tip.dir_exists(dir),
            };
            fixed.then(|| (text.to_string(), "template"))
        }
    }
}

/// The rule's companions followed often enough, each with its recency-weighted rate, best
/// first.
fn ranked_keys<'c>(
    counts: &Counts,
    stats: &'c RuleStats,
    options: &MineOptions,
) -> Vec<(&'c CompanionKey, f64)> {
    let events = stats.events.count;
    let recent = |key: &CompanionKey| -> f64 {
        // Each of the rule's commits weighs half as much `recent_half_life` commits later.
        let q = 0.5f64.powf(1.0 / options.recent_half_life);
        let total = (1.0 - q.powi(events as i32)) / (1.0 - q);
        let hits: f64 = stats.recent.get(key).map_or(0.0, |hits| {
            hits.iter()
                .map(|(k, share)| f64::from(*share) * q.powi((events - 1 - k) as i32))
                .sum()
        });
        // The sums are rounded; a rate is a share.
        (hits / total).min(1.0)
    };
    let mut keys: Vec<(&CompanionKey, f64)> = stats
        .companions
        .iter()
        .filter(|(_, t)| t.count as usize >= options.min_hits)
        .map(|(k, _)| (k, recent(k)))
        .filter(|(_, rate)| *rate >= options.min_rate)
        .collect();
    // Best first, a glob ranked as if followed `glob_handicap` less often (it leaves the
    // agent to pick the file); equal ranks by kind (the more specific first) and text.
    let rank = |key: &CompanionKey, rate: f64| match key.0 {
        Kind::Dir | Kind::NewFile => rate - options.glob_handicap,
        _ => rate,
    };
    keys.sort_by(|a, b| {
        rank(b.0, b.1)
            .total_cmp(&rank(a.0, a.1))
            .then_with(|| b.0.0.cmp(&a.0.0))
            .then_with(|| counts.text(*a.0).cmp(counts.text(*b.0)))
    });
    keys
}

fn candidate(
    counts: &Counts,
    file_rules: &HashMap<u32, FileRules>,
    rule: usize,
    tip: &Tip<'_>,
    options: &MineOptions,
    keep: Keep<'_>,
) -> Option<Candidate> {
    let stats = &counts.stats[rule];
    let shape = &counts.shapes[rule];
    // A family generalises over files: one file changing with others is a pair, not a
    // convention.
    let tip_files = tip.rule_files.get(shape).map_or(0, Vec::len);
    if (stats.events.count as usize) < options.min_commits || tip_files < 2 || !stats.several_files
    {
        return None;
    }
    let keys = ranked_keys(counts, stats, options);
    let mut companions: Vec<MinedCompanion> = Vec::new();
    let mut value = 0.0;
    for (key, rate) in keys {
        if companions.len() >= options.max_companions {
            break;
        }
        let Some((path, form)) = companion_at_tip(counts, *key, shape, tip, options) else {
            continue;
        };
        let Ok(validated) = keep.rule(shape, &path) else {
            continue;
        };
        // Of companions naming the same files, the best followed one is enough.
        if companions.iter().any(|c| overlap(&c.path, &path)) {
            continue;
        }
        value += rate * stats.events.weight;
        companions.push(MinedCompanion {
            path,
            form,
            rate,
            commits: stats.companions[key].count,
            for_files: Vec::new(),
            validated,
        });
    }
    // A glob of one file beside that file's literal names the file twice: the literal says
    // it precisely.
    let single =
        |c: &MinedCompanion| c.form == "glob" && tip.dir_files.get(&c.path).copied() == Some(1);
    let literals: Vec<String> = companions
        .iter()
        .filter(|c| c.form == "literal")
        .map(|c| c.path.clone())
        .collect();
    companions.retain(|c| !(single(c) && literals.iter().any(|l| glob_match(&c.path, l))));
    // A family is worth a note when its pattern companions explain its commits, or, where
    // no name says what goes with its files, its files' own companions do. The second ranks
    // by what they explain; per-file companions never lift a family with a pattern of its
    // own (they are attached to whichever family owns the file).
    if !companions.is_empty() {
        return Some(Candidate {
            shape: shape.clone(),
            commits: stats.events.count,
            companions,
            value,
        });
    }
    let per_file = per_file_value(counts, file_rules, shape, tip, &companions);
    (per_file > 0.0).then(|| Candidate {
        shape: shape.clone(),
        commits: stats.events.count,
        companions,
        value: per_file,
    })
}

/// Whether one companion names files the other names too: equal, a file of a glob or a
/// new-file directory, or the substitution of a template.
fn overlap(a: &str, b: &str) -> bool {
    let pattern = wildcards;
    // A file and a glob holding it are both worth naming (the glob says where, the file
    // which one is likeliest; leaving either out cost a third of the hits on three of the
    // development repositories); two globs, or a template and one of its files, say it
    // twice. A `{**}` template names files, as any template does.
    let broad = |p: &str| p.replace(DIR_MARK, "").contains(['*', '<']);
    if broad(a) != broad(b) {
        // But a glob of one of the directories a `{**}` template stands for names the
        // files of that one where the template names the call's own: one is enough.
        return in_one_instance(a, b) || in_one_instance(b, a);
    }
    let (pa, pb) = (pattern(a), pattern(b));
    a == b
        || glob_match(&pa, b)
        || glob_match(&pb, a)
        || glob_match(&pa, &pb)
        || glob_match(&pb, &pa)
}

/// Whether `glob` (a glob or new-file companion) names files of one directory the `{**}`
/// template `template` stands for, of a name the template could give.
fn in_one_instance(template: &str, glob: &str) -> bool {
    if !template.contains(DIR_MARK) {
        return false;
    }
    let ((template_dir, template_name), (glob_dir, glob_name)) = (split(template), split(glob));
    glob_match(&wildcards(template_dir), glob_dir)
        && component_match(&wildcards(glob_name), &template_name.replace("{}", "x"))
}

/// A companion as a `*`-and-`**` glob: each `{}` and `<placeholder>` as `*`, each `{**}` as
/// `**`.
fn wildcards(companion: &str) -> String {
    let mut out = companion.replace(DIR_MARK, "**").replace("{}", "*");
    while let (Some(open), Some(close)) = (out.find('<'), out.find('>')) {
        if close < open {
            break;
        }
        out.replace_range(open..=close, "*");
    }
    out
}

/// A glob of `*` (never crossing `/`) and `**` components (any number of whole components,
/// none included) against a text, `*` and `**` in the text taken literally.
fn glob_match(pattern: &str, text: &str) -> bool {
    let (p, t): (Vec<&str>, Vec<&str>) = (pattern.split('/').collect(), text.split('/').collect());
    if !p.contains(&"**") {
        return p.len() == t.len() && p.iter().zip(&t).all(|(p, t)| component_match(p, t));
    }
    crate::components::components_match(pattern, "**", text, component_match)
}

fn component_match(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, tail)) => text.strip_prefix(head).is_some_and(|rest| {
            (0..=rest.len())
                .filter(|i| rest.is_char_boundary(*i))
                .any(|i| component_match(tail, &rest[i..]))
        }),
    }
}

/// A family name from its rule, stable across re-mining: the rule's words joined by `-`.
fn family_name(rule: &str) -> String {
    let words: Vec<&str> = rule
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    if words.is_empty() {
        "files".into()
    } else {
        words.join("-")
    }
}

/// Every rule's pattern companions the counts support (each rule a family of its own, no
/// overlap check), and each tip file's per-file companions, by path: what the newer part of
/// the history is asked to validate.
pub fn proposed(
    counts: &Counts,
    tip: &Tip<'_>,
    options: &MineOptions,
) -> (Vec<Candidate>, BTreeMap<String, Vec<FileCompanion>>) {
    let file_rules = if options.per_file {
        per_file::file_rules(counts, tip, options, Keep::All)
    } else {
        HashMap::new()
    };
    let rules = (0..counts.shapes.len())
        .filter_map(|rule| candidate(counts, &HashMap::new(), rule, tip, options, Keep::All))
        .filter(|c| !c.companions.is_empty())
        .collect();
    let files = file_rules
        .into_iter()
        .map(|(file, rules)| (counts.texts[file as usize].clone(), rules.companions))
        .collect();
    (rules, files)
}

/// The families of `counts`, best first, no two claiming a tip file, naming only what `keep`
/// allows.
pub fn families(
    counts: &Counts,
    tip: &Tip<'_>,
    options: &MineOptions,
    keep: Keep<'_>,
) -> Vec<MinedFamily> {
    let file_rules = if options.per_file {
        per_file::file_rules(counts, tip, options, keep)
    } else {
        HashMap::new()
    };
    let mut candidates: Vec<Candidate> = (0..counts.shapes.len())
        .filter_map(|rule| candidate(counts, &file_rules, rule, tip, options, keep))
        .collect();
    candidates.sort_by(|a, b| {
        b.value
            .total_cmp(&a.value)
            .then_with(|| a.shape.cmp(&b.shape))
    });
    let mut claimed: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut chosen: Vec<Candidate> = Vec::new();
    for c in candidates {
        if chosen.len() >= options.max_families {
            break;
        }
        // Families may overlap when one is more specific than the other: the engine then
        // gives each shared file to the more specific one. Equally specific ones would leave
        // the file ambiguous.
        let files = &tip.rule_files[&c.shape];
        let specificity = c.shape.specificity();
        let ambiguous = files.iter().any(|f| {
            claimed
                .get(f)
                .is_some_and(|owners| owners.contains(&specificity))
        });
        // A family whose every file a more specific one already takes would never be
        // detected; one with exactly another's files says the same thing twice.
        let dead = files.iter().all(|f| {
            claimed
                .get(f)
                .is_some_and(|owners| owners.iter().any(|s| *s > specificity))
        });
        let twin = chosen.iter().any(|o| tip.rule_files[&o.shape] == *files);
        // A family nested in a broader chosen one that names nothing the broader one does
        // not would only split what is learned of the same companions.
        let redundant = chosen.iter().any(|o| {
            o.shape.specificity() < specificity
                && files.iter().all(|&f| {
                    let file = tip.list[f].as_str();
                    o.shape.matches(file)
                        && c.companions.iter().all(|mine| {
                            let named = resolved(&mine.path, c.shape.capture(file));
                            o.companions
                                .iter()
                                .any(|theirs| covers(&theirs.path, o.shape.capture(file), &named))
                        })
                })
        });
        if ambiguous || dead || twin || redundant {
            continue;
        }
        for f in files {
            claimed.entry(*f).or_default().push(specificity);
        }
        chosen.push(c);
    }
    let names = unique_names(&chosen);
    let per_file = attach_per_file(counts, &file_rules, &chosen, tip, keep);
    chosen
        .into_iter()
        .zip(names)
        .zip(per_file)
        .map(|((c, name), per_file)| {
            let mut companions = c.companions;
            companions.extend(per_file);
            MinedFamily {
                name,
                rule: c.shape.glob(),
                commits: c.commits,
                companions,
            }
        })
        .filter(|f| !f.companions.is_empty())
        .collect()
}

/// The chosen families' names: from the rule, made unique in rule order so they do not
/// depend on the ranking.
fn unique_names(chosen: &[Candidate]) -> Vec<String> {
    let mut by_rule: BTreeMap<String, usize> = BTreeMap::new();
    for (i, c) in chosen.iter().enumerate() {
        by_rule.insert(c.shape.glob(), i);
    }
    let mut names = vec![String::new(); chosen.len()];
    let mut used: HashSet<String> = HashSet::new();
    for (rule, i) in &by_rule {
        let base = family_name(rule);
        let mut name = base.clone();
        let mut n = 2;
        while !used.insert(name.clone()) {
            name = format!("{base}-{n}");
            n += 1;
        }
        names[*i] = name;
    }
    names
}

/// Each chosen family's per-file companions: for every tip file the family owns (the most
/// specific chosen rule matching it, as the engine detects), the companions it keeps, one
/// pack companion per path with the files it is for — best explained first, as many as a
/// pack list holds.
fn attach_per_file(
    counts: &Counts,
    file_rules: &HashMap<u32, FileRules>,
    chosen: &[Candidate],
    tip: &Tip<'_>,
    keep: Keep<'_>,
) -> Vec<Vec<MinedCompanion>> {
    let mut out = vec![Vec::new(); chosen.len()];
    if file_rules.is_empty() {
        return out;
    }
    for (index, family) in chosen.iter().enumerate() {
        let specificity = family.shape.specificity();
        // Per companion path: the files it is for, with the weight each explains.
        let mut by_path: BTreeMap<&str, Vec<(&str, f64, f64, u32)>> = BTreeMap::new();
        for file in tip.files_of(&family.shape) {
            let owned = !chosen.iter().any(|o| {
                o.shape.specificity() >= specificity
                    && o.shape != family.shape
                    && o.shape.matches(file)
            });
            let Some(rules) = counts.id(file).and_then(|id| file_rules.get(&id)) else {
                continue;
            };
            if !owned {
                continue;
            }
            for c in kept_for(counts, rules, &family.shape, file, &family.companions) {
                let path = counts.text((Kind::Literal, c.companion));
                by_path
                    .entry(path)
                    .or_default()
                    .push((file, c.rate, rules.weight, c.commits));
            }
        }
        let room = MAX_LIST.saturating_sub(family.companions.len());
        let mut ranked: Vec<(f64, MinedCompanion)> = by_path
            .into_iter()
            .map(|(path, mut files)| {
                // The files it explains most first; a pack list holds at most MAX_LIST.
                files.sort_by(|a, b| (b.1 * b.2).total_cmp(&(a.1 * a.2)).then(a.0.cmp(b.0)));
                files.truncate(MAX_LIST);
                let value: f64 = files.iter().map(|f| f.1 * f.2).sum();
                let weight: f64 = files.iter().map(|f| f.2).sum();
                let mut for_files: Vec<String> = files.iter().map(|f| f.0.to_string()).collect();
                for_files.sort();
                // What validated it: the sum over its files.
                let validated = match keep {
                    Keep::All => None,
                    Keep::Only(kept) => Some(
                        for_files
                            .iter()
                            .filter_map(|f| kept.file(f, path))
                            .fold(Figures::default(), Figures::plus),
                    ),
                };
                let companion = MinedCompanion {
                    path: path.to_string(),
                    form: "per-file",
                    rate: value / weight,
                    commits: files.iter().map(|f| f.3).sum(),
                    for_files,
                    validated,
                };
                (value, companion)
            })
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.path.cmp(&b.1.path)));
        out[index] = ranked.into_iter().take(room).map(|(_, c)| c).collect();
    }
    out
}
