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

/// The hooks flag of a `config.toml` text, read with the `toml` crate as Codex reads it: the
/// `features` table's `hooks`, else its `codex_hooks` (the earlier name), wherever TOML allows
/// writing them (`[features]`, `features.hooks = …`, `features = { … }`); profiles' features
/// are not read. A file that is not valid TOML (Codex refuses it too) reads as unset.
pub fn hooks_flag(toml: &str) -> HooksFlag {
    let Ok(config) = toml.parse::<toml::Table>() else {
        return HooksFlag::Unset;
    };
    let features = config.get("features").and_then(toml::Value::as_table);
    let flag = |name: &str| features?.get(name)?.as_bool();
    match flag("hooks").or_else(|| flag("codex_hooks")) {
        Some(true) => HooksFlag::On,
        Some(false) => HooksFlag::Off,
        None => HooksFlag::Unset,
    }
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
            // The current name wins over the earlier one.
            (
                "[features]\nhooks = false\ncodex_hooks = true",
                HooksFlag::Off,
            ),
            // Not valid TOML (a table defined twice): Codex refuses it, so nothing is read.
            (
                "[features]\ncodex_hooks = true\n[features]\nhooks = false",
                HooksFlag::Unset,
            ),
            // A multi-line string that looks like a table is a string (the line reader this
            // replaced read it as the flag).
            (
                "notes = \"\"\"\n[features]\nhooks = true\n\"\"\"",
                HooksFlag::Unset,
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
