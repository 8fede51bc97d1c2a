//! Judging the names found on disk: whether one may be shown, whether it has a placeholder's
//! shape, which shows how a directory's files are named, and the parts that tie it to another.

/// Name parts too common to tie a file to another (`test_app.py` is not about "test").
const GENERIC: [&str; 14] = [
    "test", "tests", "spec", "specs", "index", "init", "main", "mod", "lib", "src", "the",
    "readme", "doc", "docs",
];

/// The name that best shows how a directory's files are named: of the largest group of names
/// ending alike (after their first `.`: `.change.md`), the last in natural order (the newest
/// of numbered fragments); a template or README beside them is not the example.
pub(super) fn typical(names: &[String]) -> Option<String> {
    let ending = |name: &str| name.split_once('.').map_or("", |(_, e)| e).to_string();
    let mut groups: std::collections::BTreeMap<String, usize> = Default::default();
    for name in names {
        *groups.entry(ending(name)).or_default() += 1;
    }
    // The largest group; of equal ones, the first ending in order.
    let (common, _) = groups
        .into_iter()
        .max_by(|(ea, a), (eb, b)| a.cmp(b).then(eb.cmp(ea)))?;
    names
        .iter()
        .filter(|n| ending(n) == common)
        .max_by(|a, b| natural_cmp(a, b))
        .cloned()
}

/// Whether `name` has the shape of a placeholder component (`<name>.<ext>`): each `<…>` any
/// one or more characters, the rest as written.
pub(super) fn shaped(name: &str, shape: &str) -> bool {
    let mut literals = Vec::new();
    let mut rest = shape;
    while let Some(open) = rest.find('<') {
        literals.push(&rest[..open]);
        match rest[open..].find('>') {
            Some(close) => rest = &rest[open + close + 1..],
            None => return false,
        }
    }
    literals.push(rest);
    // `literals` alternate with placeholders: first, (placeholder, literal)*.
    let Some((first, others)) = literals.split_first() else {
        return false;
    };
    let Some(mut left) = name.strip_prefix(first) else {
        return false;
    };
    for (i, literal) in others.iter().enumerate() {
        let last = i + 1 == others.len();
        let found = if last {
            left.strip_suffix(literal)
                .filter(|holder| !holder.is_empty())
                .map(|_| "")
        } else if literal.is_empty() {
            // Two placeholders side by side: each takes at least one character.
            left.get(1..)
        } else {
            left.get(1..)
                .and_then(|after| after.find(literal).map(|at| &after[at + literal.len()..]))
        };
        match found {
            Some(next) => left = next,
            None => return false,
        }
    }
    true
}

/// Whether a name found on disk may be shown in a note: a file name is the repository's, not
/// the pack's, so one holding a control character or another code point that prints nothing
/// (a right-to-left override, a line separator) could forge a line or make the note read other
/// than it is; such a file is never named.
pub(super) fn shows_as_written(name: &str) -> bool {
    !docsuggest_schema::text::has_invisible(name)
}

/// Compares names with their digit runs as numbers (`999.md` before `1547.md`).
pub(super) fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    let key = |s: &str| -> Vec<(String, u128)> {
        let mut out = Vec::new();
        let mut text = String::new();
        let mut digits = String::new();
        for ch in s.chars() {
            if ch.is_ascii_digit() {
                digits.push(ch);
            } else {
                if !digits.is_empty() {
                    out.push((
                        std::mem::take(&mut text),
                        digits.parse().unwrap_or(u128::MAX),
                    ));
                    digits.clear();
                }
                text.push(ch);
            }
        }
        out.push((text, digits.parse().unwrap_or(0)));
        out
    };
    key(a).cmp(&key(b)).then_with(|| a.cmp(b))
}

/// The file name of `path` without its extensions.
pub(super) fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or(name)
}

/// The lowercase parts of a name, split at anything not a letter or digit and where a lower
/// case letter meets an upper case one; short and generic parts left out.
pub(super) fn parts(name: &str) -> Vec<String> {
    pieces(name, 3)
}

/// The words of a directory's name: its parts, those of two characters kept (`js` of
/// `lang-js`), for telling close directories apart (never to tie a file on their own).
pub(super) fn tokens(name: &str) -> Vec<String> {
    pieces(name, 2)
}

/// The lowercase pieces of `name` of at least `shortest` characters, generic ones left out.
fn pieces(name: &str, shortest: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for ch in name.chars() {
        let boundary = !ch.is_alphanumeric() || (ch.is_uppercase() && previous_lower);
        if boundary && !current.is_empty() {
            out.push(std::mem::take(&mut current));
        }
        if ch.is_alphanumeric() {
            current.extend(ch.to_lowercase());
        }
        previous_lower = ch.is_lowercase();
    }
    if !current.is_empty() {
        out.push(current);
    }
    out.retain(|p| p.chars().count() >= shortest && !GENERIC.contains(&p.as_str()));
    out.dedup();
    out
}
