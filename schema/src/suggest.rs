//! "Did you mean": the known name closest to a misspelt one, for the errors of config and
//! pack fields.

/// The name of `known` closest to `word` (case ignored), when it is close enough to be what was
/// meant: at most one edit (insertion, deletion, substitution or swap of neighbours) per three
/// characters of the longer name, or one name a prefix of the other (at least four
/// characters: `priority` for `prior`).
///
/// ```
/// use docsuggest_schema::suggest::closest;
/// let fields = ["threshold", "durability", "storePath"];
/// assert_eq!(closest("durabilty", fields), Some("durability"));
/// assert_eq!(closest("storepath", fields), Some("storePath"));
/// assert_eq!(closest("colour", fields), None);
/// ```
pub fn closest<'a>(word: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    known
        .into_iter()
        .map(|name| {
            let other = name.to_lowercase();
            let distance = strsim::damerau_levenshtein(&lower, &other);
            let (short, long) = if lower.len() <= other.len() {
                (&lower, &other)
            } else {
                (&other, &lower)
            };
            let prefix = short.chars().count() >= 4 && long.starts_with(short.as_str());
            (distance, prefix, name)
        })
        .filter(|(distance, prefix, name)| {
            let longer = word.chars().count().max(name.chars().count()).max(3);
            *prefix || distance * 3 <= longer
        })
        .min_by_key(|(distance, _, _)| *distance)
        .map(|(_, _, name)| name)
}

/// `what` followed by ` (did you mean `name`?)` when [`closest`] finds one.
pub fn unknown(what: &str, word: &str, known: &[&str]) -> String {
    match closest(word, known.iter().copied()) {
        Some(name) => format!("{what} (did you mean `{name}`?)"),
        None => what.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(word: &str, expect: Option<&str>) {
        let known = [
            "log",
            "logFile",
            "tools",
            "threshold",
            "followThreshold",
            "maxCompanions",
        ];
        assert_eq!(closest(word, known), expect, "{word}");
    }

    #[test]
    fn close_names_only() {
        check("treshold", Some("threshold"));
        check("THRESHOLD", Some("threshold"));
        check("tool", Some("tools"));
        check("lgo", Some("log"));
        check("maxCompanion", Some("maxCompanions"));
        check("followthresh", Some("followThreshold"));
        check("maxComp", Some("maxCompanions"));
        check("logFileName", Some("logFile"));
        check("thre", Some("threshold"));
        check("thr", None);
        check("colour", None);
        check("x", None);
        check("", None);
    }
}
