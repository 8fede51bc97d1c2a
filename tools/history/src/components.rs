//! Matching a path component by component where one marker component stands for any number
//! of whole directories (`**` in a glob, `{**}` in a template): shared by the miner's overlap
//! checks and the backtest's reading of a note's companions.

/// Whether `pattern`'s components read as `text`'s: a component equal to `any` takes any
/// number of whole components (none included), every other takes one, as `component` says.
/// One row per pattern component: no backtracking however many `any` there are.
pub fn components_match(
    pattern: &str,
    any: &str,
    text: &str,
    component: impl Fn(&str, &str) -> bool,
) -> bool {
    let parts: Vec<&str> = text.split('/').collect();
    // `reach[j]`: the pattern's components read so far can stand for the first `j` of `text`.
    let mut reach = vec![false; parts.len() + 1];
    reach[0] = true;
    for piece in pattern.split('/') {
        let mut next = vec![false; parts.len() + 1];
        if piece == any {
            let mut seen = false;
            for j in 0..=parts.len() {
                seen |= reach[j];
                next[j] = seen;
            }
        } else {
            for j in 0..parts.len() {
                next[j + 1] = reach[j] && component(piece, parts[j]);
            }
        }
        reach = next;
    }
    reach[parts.len()]
}

#[cfg(test)]
mod tests {
    use super::components_match;

    #[test]
    fn the_marker_takes_any_number_of_whole_components() {
        let eq = |p: &str, t: &str| p == t;
        for (pattern, text, expect) in [
            ("a/**/b", "a/b", true),
            ("a/**/b", "a/x/y/b", true),
            ("a/**/b", "a/x/y/c", false),
            ("**/b", "b", true),
            ("a/**", "a", true),
            ("a/**/**/b", "a/x/b", true),
            ("a/b", "a/b/c", false),
        ] {
            assert_eq!(
                components_match(pattern, "**", text, eq),
                expect,
                "{pattern} {text}"
            );
        }
    }
}
