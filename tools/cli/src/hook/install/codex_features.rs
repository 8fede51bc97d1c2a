//! Whether Codex runs hooks at all: the `hooks` feature (`codex_hooks` in releases before
//! hooks were on by default) in the `[features]` table of its `config.toml`. Read only, to
//! tell the user; the file is never edited.

/// What one `config.toml` says about hooks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HooksFlag {
    /// `hooks = true` or `codex_hooks = true`.
    On,
    /// `hooks = false` or `codex_hooks = false`.
    Off,
    /// Neither key is set.
    Unset,
}

/// The hooks flag of a `config.toml` text (the last setting wins), read line by line from a
/// `[features]` table, a top-level `features.hooks = …` dotted key, or a top-level inline
/// table `features = { … }`; profiles' features are not read.
pub fn hooks_flag(toml: &str) -> HooksFlag {
    let mut flag = HooksFlag::Unset;
    let mut table = String::new();
    for line in toml.lines() {
        let line = strip_comment(line).trim();
        if line.starts_with('[') {
            table = line
                .trim_start_matches('[')
                .trim_end_matches(']')
                .split('.')
                .map(|part| part.trim().trim_matches('"'))
                .collect::<Vec<_>>()
                .join(".");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key: Vec<&str> = key.split('.').map(|k| k.trim().trim_matches('"')).collect();
        let value = value.trim();
        let mut set = |name: &str, value: &str| {
            if name == "hooks" || name == "codex_hooks" {
                match value.trim() {
                    "true" => flag = HooksFlag::On,
                    "false" => flag = HooksFlag::Off,
                    _ => {}
                }
            }
        };
        match (table.as_str(), key.as_slice()) {
            ("features", [name]) => set(name, value),
            ("", ["features", name]) => set(name, value),
            ("", ["features"]) if value.starts_with('{') => {
                for entry in value.trim_matches(['{', '}']).split(',') {
                    if let Some((name, value)) = entry.split_once('=') {
                        set(name.trim().trim_matches('"'), value);
                    }
                }
            }
            _ => {}
        }
    }
    flag
}

/// The line up to a `#` that is not inside a string.
fn strip_comment(line: &str) -> &str {
    let mut quote = None;
    for (i, c) in line.char_indices() {
        match (c, quote) {
            ('"' | '\'', None) => quote = Some(c),
            (c, Some(q)) if c == q => quote = None,
            ('#', None) => return &line[..i],
            _ => {}
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_is_read_where_codex_reads_it() {
        for (toml, expect) in [
            ("", HooksFlag::Unset),
            ("[features]\ncodex_hooks = true\n", HooksFlag::On),
            ("[features]\nhooks = false # off for now\n", HooksFlag::Off),
            ("[ features ]\n\"hooks\"=true", HooksFlag::On),
            ("features.codex_hooks = true", HooksFlag::On),
            (
                "features = { memories = true, hooks = false }",
                HooksFlag::Off,
            ),
            (
                "[features]\ncodex_hooks = true\n[features]\nhooks = false",
                HooksFlag::Off,
            ),
            ("[profiles.work.features]\nhooks = true", HooksFlag::Unset),
            ("# [features]\n# codex_hooks = true\n", HooksFlag::Unset),
            (
                "[features]\nmemories = true\n[other]\nhooks = true",
                HooksFlag::Unset,
            ),
            ("model = \"a#b\"\n[features]\nhooks = true", HooksFlag::On),
        ] {
            assert_eq!(hooks_flag(toml), expect, "{toml:?}");
        }
    }
}
