//! The files a Codex `apply_patch` touches, read from the patch text.
//!
//! The format is Codex's own: `*** Begin Patch`, then per file `*** Add File: p`,
//! `*** Update File: p` (optionally followed by `*** Move to: q`) or `*** Delete File: p`,
//! then `*** End Patch`. Only those header lines matter here; hunk lines are skipped, so a
//! patch whose hunks are damaged still names its files.

/// What a patch does to one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// A new file.
    Add,
    /// An existing file changed in place.
    Update,
    /// A file removed.
    Delete,
    /// The new name of an updated file.
    MoveTo,
}

/// Every file the patch adds, updates, deletes or moves to, in the patch's order, with the
/// path as written (relative paths are resolved against the call's cwd by the engine).
pub fn files(patch: &str) -> Vec<(Change, String)> {
    const HEADERS: [(&str, Change); 4] = [
        ("*** Add File:", Change::Add),
        ("*** Update File:", Change::Update),
        ("*** Delete File:", Change::Delete),
        ("*** Move to:", Change::MoveTo),
    ];
    let mut found = Vec::new();
    for line in patch.lines() {
        let line = line.trim_end_matches('\r');
        for (header, change) in HEADERS {
            if let Some(path) = line.strip_prefix(header) {
                let path = path.trim();
                if !path.is_empty() {
                    found.push((change, path.to_string()));
                }
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(patch: &str, expect: &[(Change, &str)]) {
        let got = files(patch);
        let expect: Vec<(Change, String)> =
            expect.iter().map(|(c, p)| (*c, p.to_string())).collect();
        assert_eq!(got, expect, "{patch}");
    }

    #[test]
    fn every_header_in_order() {
        check(
            "*** Begin Patch\n*** Add File: docs/new.md\n+hello\n*** Update File: src/a.rs\n\
             *** Move to: src/b.rs\n@@ fn a\n-old\n+new\n*** Delete File: Documentation/Plans/Old.md\n\
             *** End Patch\n",
            &[
                (Change::Add, "docs/new.md"),
                (Change::Update, "src/a.rs"),
                (Change::MoveTo, "src/b.rs"),
                (Change::Delete, "Documentation/Plans/Old.md"),
            ],
        );
    }

    #[test]
    fn crlf_and_blank_and_garbage() {
        check(
            "*** Begin Patch\r\n*** Update File: Documentation/Plans/X.md\r\n*** End Patch\r\n",
            &[(Change::Update, "Documentation/Plans/X.md")],
        );
        check("", &[]);
        check("*** Add File:   \nnot a patch at all", &[]);
        // A hunk line that happens to quote a header is still a hunk line.
        check(
            "*** Begin Patch\n*** Update File: a.md\n+*** Add File: b.md\n",
            &[(Change::Update, "a.md")],
        );
    }
}
