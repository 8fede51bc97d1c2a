//! Packs: the doc graph of a workspace — families, their path rules, companions and priors.
//!
//! The built-in pack describes the PoC's own doc graph; a workspace may replace it with its own
//! file at `<root>/.dsh/doc-pack.json` ([`REPO_PACK_PATH`]).

pub use origin::BoundaryFigures;
use origin::{MinedFrom, Validated, boundary_problem, mined_problems, validated_problem};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

mod fields;
pub mod origin;

/// Where a workspace's own pack lives, relative to its root.
pub const REPO_PACK_PATH: &str = ".dsh/doc-pack.json";

/// The signature of the built-in pack.
pub const DEFAULT_SIGNATURE: &str = "Documentation/ARCHIVE-STYLE.md";

/// The family kind that drives detection.
pub const DOC_KIND: &str = "doc";

/// The most families a pack may hold: every one is compiled and matched on each call, so a
/// pack is a doc graph, not a data set.
pub const MAX_FAMILIES: usize = 256;

/// The most rules, companions or signature files one list of a pack may hold.
pub const MAX_LIST: usize = 64;

/// The longest path, glob or template a pack may hold, in bytes.
pub const MAX_PATH_BYTES: usize = 512;

/// A pack: signature files and families, in pack order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pack {
    /// Files that must all exist at a directory for it to be a workspace root
    /// (default: [`DEFAULT_SIGNATURE`]).
    #[serde(default = "default_signature")]
    pub signature: Vec<String>,
    /// The families, in pack order (ties rank by it).
    pub families: Vec<Family>,
    /// A mined pack's commits (`init`); informative, never read by the engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mined: Option<MinedFrom>,
    /// Whether the Stop reminder may hold the agent up in this repository, as `init` measured
    /// its reminders on the newer part of the history. Absent: it may, claim by claim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boundary: Option<BoundaryFigures>,
}

/// A named class of doc paths.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Family {
    /// The family's name (`Plan`).
    pub name: String,
    /// Its kind; only `doc` families drive detection.
    pub kind: String,
    /// Globs over workspace-relative paths (`*` never crosses `/`, `**` does).
    pub rules: Vec<String>,
    /// The family's own gate, overriding `config.threshold`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// The companions, in pack order.
    pub companions: Vec<Companion>,
}

/// A path a family's task conventionally needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Companion {
    /// A literal path, a glob, or an illustration with a `<placeholder>`.
    pub path: String,
    /// The pack's prior, 0..1.
    pub prior: f64,
    /// The workspace-relative files of the family this companion is for (`"for"` in the
    /// file): when not empty, it is named only on a call on one of them — a per-file
    /// companion, such as the test module a source file is tested in when the names do not
    /// mirror each other. Empty: every file of the family.
    #[serde(rename = "for", default, skip_serializing_if = "Vec::is_empty")]
    pub for_files: Vec<String>,
    /// A mined companion's figures on the newer part of the history, which kept it
    /// (`init`); informative, never read by the engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validated: Option<Validated>,
}

/// A pack file that cannot be used, with every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct PackError {
    /// The pack file.
    pub file: String,
    /// Every problem, each naming its field (`families[1].companions[0].prior`).
    pub problems: Vec<String>,
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid pack {}: {}",
            self.file,
            self.problems.join("; ")
        )
    }
}

fn default_signature() -> Vec<String> {
    vec![DEFAULT_SIGNATURE.into()]
}

fn family(name: &str, rules: &[&str], companions: &[(&str, f64)]) -> Family {
    Family {
        name: name.into(),
        kind: DOC_KIND.into(),
        rules: rules.iter().map(|r| r.to_string()).collect(),
        threshold: None,
        companions: companions
            .iter()
            .map(|(path, prior)| Companion {
                path: path.to_string(),
                prior: *prior,
                for_files: Vec::new(),
                validated: None,
            })
            .collect(),
    }
}

impl Pack {
    /// The built-in pack: seven `doc` families over the PoC's doc graph (see docs/PACK.md).
    pub fn builtin() -> Pack {
        Pack {
            signature: vec![DEFAULT_SIGNATURE.into()],
            mined: None,
            boundary: None,
            families: vec![
                family(
                    "Plan",
                    &["Documentation/Plans/*.md"],
                    &[
                        ("Documentation/INDEX.md", 1.0),
                        ("Documentation/ARCHIVE-STYLE.md", 0.9),
                        ("POC-BRIEF.md", 0.7),
                        ("CHANGELOG.md", 0.5),
                    ],
                ),
                family(
                    "Scheme",
                    &["**/SCHEME.md"],
                    &[
                        ("package.json", 1.0),
                        ("README.md", 0.9),
                        ("CHANGELOG.md", 0.8),
                        ("Documentation/Plans/*.md", 0.6),
                    ],
                ),
                family(
                    "Brief",
                    &["**/POC-BRIEF.md"],
                    &[
                        ("Documentation/Plans/*.md", 1.0),
                        ("Documentation/INDEX.md", 0.8),
                        ("CHANGELOG.md", 0.6),
                    ],
                ),
                family(
                    "Readme",
                    &["**/README.md"],
                    &[
                        ("package.json", 0.9),
                        ("SCHEME.md", 0.8),
                        ("CHANGELOG.md", 0.7),
                    ],
                ),
                family(
                    "Changelog",
                    &["**/CHANGELOG.md"],
                    &[
                        ("package.json", 1.0),
                        ("README.md", 0.8),
                        ("SCHEME.md", 0.7),
                    ],
                ),
                family(
                    "Archive",
                    &["Documentation/ARCHIVE-STYLE.md"],
                    &[
                        ("Documentation/INDEX.md", 1.0),
                        ("Documentation/Plans/<Plan>.md", 0.8),
                        ("CHANGELOG.md", 0.6),
                    ],
                ),
                family(
                    "Index",
                    &["Documentation/INDEX.md"],
                    &[
                        ("Documentation/ARCHIVE-STYLE.md", 1.0),
                        ("Documentation/Plans/*.md", 0.8),
                        ("*/SCHEME.md", 0.7),
                    ],
                ),
            ],
        }
    }

    /// Parses and validates a pack file's text; `file` names it in errors.
    pub fn from_json_str(text: &str, file: &str) -> Result<Pack, PackError> {
        let fail = |problems: Vec<String>| PackError {
            file: file.into(),
            problems,
        };
        let mut value: Value =
            serde_json::from_str(text).map_err(|e| fail(vec![format!("not valid JSON: {e}")]))?;
        // Every unknown field is named, then the rest is checked as if they were not there.
        let mut problems = fields::take_unknown(&mut value);
        match serde_json::from_value::<Pack>(normalise(value)) {
            Ok(pack) => {
                problems.extend(pack.problems());
                if problems.is_empty() {
                    return Ok(pack);
                }
            }
            Err(e) => problems.push(format!("wrong shape: {e}")),
        }
        Err(fail(problems))
    }

    /// Every structural problem of this pack (globs are checked where they are compiled).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if self.signature.is_empty() {
            out.push("signature: must list at least one file".into());
        }
        if self.signature.len() > MAX_LIST {
            out.push(too_many("signature", self.signature.len(), MAX_LIST));
        }
        if self.families.len() > MAX_FAMILIES {
            // Checking each of thousands of families would bury this one problem.
            out.push(too_many("families", self.families.len(), MAX_FAMILIES));
            return out;
        }
        for (i, s) in self.signature.iter().enumerate() {
            if let Some(p) = path_problem(s) {
                out.push(format!("signature[{i}]: {p}"));
            } else if s.starts_with('/') || s.split('/').any(|c| c == ".." || c == ".") {
                out.push(format!(
                    "signature[{i}]: must be a relative path without . or .."
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for (i, fam) in self.families.iter().enumerate() {
            family_problems(fam, &format!("families[{i}]"), &mut seen, &mut out);
        }
        out.extend(self.mined.iter().flat_map(mined_problems));
        out.extend(self.boundary.as_ref().and_then(boundary_problem));
        out
    }

    /// The families that drive detection, in pack order.
    pub fn doc_families(&self) -> impl Iterator<Item = &Family> {
        self.families.iter().filter(|f| f.kind == DOC_KIND)
    }
}

/// A list longer than its limit.
fn too_many(field: &str, n: usize, max: usize) -> String {
    format!("{field}: {n} entries, more than the limit of {max}")
}

/// The problems of one family, `at` its place in the pack (`families[2]`); `seen` holds the
/// names of the families before it.
fn family_problems<'f>(
    fam: &'f Family,
    at: &str,
    seen: &mut std::collections::HashSet<&'f str>,
    out: &mut Vec<String>,
) {
    if fam.name.is_empty()
        || fam
            .name
            .contains(|c: char| c.is_whitespace() || crate::text::is_invisible(c))
    {
        out.push(format!(
            "{at}.name: must be a non-empty word without spaces"
        ));
    } else if !seen.insert(fam.name.as_str()) {
        out.push(format!("{at}.name: {:?} is used twice", fam.name));
    }
    if fam.kind.is_empty() {
        out.push(format!("{at}.kind: must not be empty"));
    }
    if fam.kind == DOC_KIND && fam.rules.is_empty() {
        out.push(format!("{at}.rules: a doc family needs at least one rule"));
    }
    if fam.rules.len() > MAX_LIST {
        out.push(too_many(&format!("{at}.rules"), fam.rules.len(), MAX_LIST));
    }
    if fam.companions.len() > MAX_LIST {
        out.push(too_many(
            &format!("{at}.companions"),
            fam.companions.len(),
            MAX_LIST,
        ));
    }
    for (j, r) in fam.rules.iter().enumerate() {
        if let Some(p) = path_problem(r) {
            out.push(format!("{at}.rules[{j}]: {p}"));
        }
    }
    if let Some(t) = fam.threshold
        && !(0.0..=1.0).contains(&t)
    {
        out.push(format!("{at}.threshold: {t} is outside 0..1"));
    }
    let captures = Captures {
        stem: fam.rules.iter().any(|r| !single_stars(r).is_empty()),
        dirs: fam.rules.iter().any(|r| double_star_split(r).is_some()),
    };
    for (j, c) in fam.companions.iter().enumerate() {
        companion_problems(c, &format!("{at}.companions[{j}]"), captures, out);
    }
}

/// The problems of one companion, `at` its place in the pack (`families[2].companions[0]`).
fn companion_problems(c: &Companion, at: &str, captures: Captures, out: &mut Vec<String>) {
    if let Some(p) = path_problem(&c.path) {
        out.push(format!("{at}.path: {p}"));
    } else if let Some(p) = template_problem(&c.path, captures) {
        out.push(format!("{at}.path: {p}"));
    }
    if !(0.0..=1.0).contains(&c.prior) {
        out.push(format!("{at}.prior: {} is outside 0..1", c.prior));
    }
    if c.for_files.len() > MAX_LIST {
        out.push(too_many(&format!("{at}.for"), c.for_files.len(), MAX_LIST));
    }
    for (k, f) in c.for_files.iter().enumerate() {
        if let Some(p) = path_problem(f).or_else(|| file_problem(f)) {
            out.push(format!("{at}.for[{k}]: {p}"));
        }
    }
    if let Some(p) = c.validated.as_ref().and_then(validated_problem) {
        out.push(format!("{at}.validated: {p}"));
    }
}

/// What keeps a `for` entry from naming one workspace file: glob syntax, a placeholder, a
/// template, or a path that is absolute or climbs.
fn file_problem(path: &str) -> Option<String> {
    if path.contains(['*', '?', '[', ']', '{', '}']) || has_placeholder(path) {
        Some("must name one file, not a pattern".into())
    } else if path.starts_with('/') || path.split('/').any(|c| c == ".." || c == ".") {
        Some("must be a relative path without . or ..".into())
    } else {
        None
    }
}

/// `kind` defaults to `doc` when a family leaves it out.
fn normalise(mut value: Value) -> Value {
    if let Some(families) = value.get_mut("families").and_then(Value::as_array_mut) {
        for fam in families {
            if let Some(obj) = fam.as_object_mut() {
                obj.entry("kind").or_insert_with(|| Value::from(DOC_KIND));
            }
        }
    }
    value
}

/// The mark a template companion holds: each `{}` is replaced by the call's capture.
pub const TEMPLATE_MARK: &str = "{}";

/// The directory capture a template companion may hold as a whole path component: replaced
/// by the directories the rule's one `**` component matched (and gone, with one adjacent
/// `/`, where it matched none).
pub const DIR_MARK: &str = "{**}";

/// Whether a companion path is a template (holds `{}` or `{**}`).
pub fn is_template(path: &str) -> bool {
    path.contains(TEMPLATE_MARK) || path.contains(DIR_MARK)
}

/// Where a rule's `**` component stands when it has exactly one and it is neither the last
/// component nor beside another `**`: `top/**/rest` (or `**/rest`) gives the byte offsets of
/// `top` (without its `/`) and of `rest`. A `{**}` template captures what that `**` matched.
/// (Read from the text; the engine checks it against globset's own translation.)
pub fn double_star_split(rule: &str) -> Option<(&str, &str)> {
    let mut at = None;
    let mut offset = 0;
    for component in rule.split('/') {
        if component == "**" {
            if at.is_some() {
                return None;
            }
            at = Some(offset);
        } else if component.contains("**") {
            return None;
        }
        offset += component.len() + 1;
    }
    let at = at?;
    let top = rule[..at].strip_suffix('/').unwrap_or("");
    let rest = rule.get(at + 3..).filter(|r| !r.is_empty())?;
    Some((top, rest))
}

/// Whether a path holds a `<placeholder>` (a `<` closed later by a `>`, with a name between).
pub fn has_placeholder(path: &str) -> bool {
    path.find('<')
        .is_some_and(|open| path[open + 1..].find('>').is_some_and(|close| close > 0))
}

/// The byte offsets of a glob's single `*` wildcards, in order: a `*` that is neither escaped
/// (`\*`), inside a class (`[*]`), nor part of `**`. A template captures what the last one
/// matched. (Read as globset reads a glob; the engine checks each against globset's own
/// translation before it captures with it.)
pub fn single_stars(glob: &str) -> Vec<usize> {
    let bytes = glob.as_bytes();
    let mut out = Vec::new();
    // Whether the previous character was an unescaped `*` outside a class.
    let mut after_star = false;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => {
                // The escaped character is a literal (a dangling `\` is globset's error).
                i += 2;
                after_star = false;
                continue;
            }
            b'[' => {
                i = class_end(bytes, i);
                after_star = false;
                continue;
            }
            b'*' => {
                let next_star = bytes.get(i + 1) == Some(&b'*');
                if !after_star && !next_star {
                    out.push(i);
                }
                after_star = true;
            }
            _ => after_star = false,
        }
        i += 1;
    }
    out
}

/// The POSIX class names globset knows inside a class (`[[:alpha:]]`); any other `[:` is literal.
const POSIX_CLASSES: [&[u8]; 12] = [
    b"alnum", b"alpha", b"blank", b"cntrl", b"digit", b"graph", b"lower", b"print", b"punct",
    b"space", b"upper", b"xdigit",
];

/// The offset just past the class that opens at `open` (globset's rules: `!` or `^` negates,
/// a `]` first is literal, `[:name:]` is a POSIX class, no escapes inside). An unclosed class
/// runs to the end.
fn class_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    if matches!(bytes.get(i), Some(b'!' | b'^')) {
        i += 1;
    }
    let mut first = true;
    while let Some(&b) = bytes.get(i) {
        match b {
            b']' if !first => return i + 1,
            b'[' if bytes.get(i + 1) == Some(&b':') => {
                let name_end = bytes[i + 2..]
                    .iter()
                    .position(|c| !c.is_ascii_lowercase())
                    .map(|n| i + 2 + n);
                match name_end {
                    Some(e)
                        if bytes.get(e..e + 2) == Some(b":]")
                            && POSIX_CLASSES.contains(&&bytes[i + 2..e]) =>
                    {
                        i = e + 2
                    }
                    _ => i += 1,
                }
                first = false;
                continue;
            }
            _ => {}
        }
        first = false;
        i += 1;
    }
    bytes.len()
}

/// What a family's rules can capture for its templates.
#[derive(Clone, Copy)]
struct Captures {
    /// A rule has a single `*` (for `{}`).
    stem: bool,
    /// A rule has exactly one `**` component (for `{**}`).
    dirs: bool,
}

/// What is wrong with a template companion (`None` for any other path): it may hold no glob
/// syntax besides its `{}` and `{**}` and no `<placeholder>`, a `{**}` must be a whole path
/// component, and its family needs a rule to capture each mark from (`captures`).
fn template_problem(path: &str, captures: Captures) -> Option<String> {
    if !is_template(path) {
        return None;
    }
    let dirs = path.contains(DIR_MARK);
    let stem = path.replace(DIR_MARK, "").contains(TEMPLATE_MARK);
    let rest = path.replace(DIR_MARK, "").replace(TEMPLATE_MARK, "");
    if dirs
        && path
            .split('/')
            .any(|c| c != DIR_MARK && c.contains(DIR_MARK))
    {
        Some("a {**} directory capture must be a whole path component".into())
    } else if rest.contains(['*', '?', '[', ']', '{', '}', '\\']) {
        Some("a {} template may not also hold glob syntax".into())
    } else if has_placeholder(path) {
        Some("a {} template may not also hold a <placeholder>".into())
    } else if stem && !captures.stem {
        Some("a {} template needs a rule of its family with a single * to capture".into())
    } else if dirs && !captures.dirs {
        Some(
            "a {**} template needs a rule of its family with exactly one ** component \
             (top/**/rest) to capture"
                .into(),
        )
    } else {
        None
    }
}

/// Paths in a pack are short printable text: no control character, bidirectional override or
/// other invisible code point reaches a note.
fn path_problem(path: &str) -> Option<String> {
    if path.is_empty() {
        Some("must not be empty".into())
    } else if path.len() > MAX_PATH_BYTES {
        Some(format!(
            "is {} bytes long (at most {MAX_PATH_BYTES})",
            path.len()
        ))
    } else {
        let c = path.chars().find(|&c| crate::text::is_invisible(c))?;
        Some(if c.is_control() {
            "contains a control character".into()
        } else {
            format!("contains an invisible character (U+{:04X})", c as u32)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_has_seven_valid_doc_families() {
        let pack = Pack::builtin();
        assert_eq!(pack.doc_families().count(), 7);
        assert_eq!(pack.problems(), Vec::<String>::new());
    }

    #[test]
    fn parses_the_spec_example() {
        let text = r#"{"signature": ["README.md"], "families": [{"name": "Plan", "kind": "doc",
            "rules": ["Documentation/Plans/*.md"], "threshold": 0.7,
            "companions": [{"path": "Documentation/INDEX.md", "prior": 1.0}]}]}"#;
        let pack = Pack::from_json_str(text, "p.json").expect("valid");
        assert_eq!(pack.families[0].threshold, Some(0.7));
        assert_eq!(pack.families[0].companions[0].prior, 1.0);
    }

    #[test]
    fn a_per_file_companion_names_the_files_it_is_for() {
        let text = r#"{"families": [{"name": "Src", "rules": ["src/*.py"], "companions": [
            {"path": "tests/test_basic.py", "prior": 0.6, "for": ["src/app.py"]}]}]}"#;
        let pack = Pack::from_json_str(text, "p.json").expect("valid");
        assert_eq!(pack.families[0].companions[0].for_files, ["src/app.py"]);
        // Written back only where it is set: a pack without it keeps its bytes.
        let json = serde_json::to_string(&pack).expect("serialises");
        assert!(json.contains(r#""for":["src/app.py"]"#), "{json}");
        assert!(
            !serde_json::to_string(&Pack::builtin())
                .expect("serialises")
                .contains("\"for\"")
        );
        let text = r#"{"families": [{"name": "Src", "rules": ["src/*.py"], "companions": [
            {"path": "t.py", "prior": 0.6, "for": ["src/*.py", "../x.py", "/etc/x", "a/<b>.py"]}]}]}"#;
        let err = Pack::from_json_str(text, "p.json").expect_err("invalid");
        assert_eq!(
            err.to_string(),
            "invalid pack p.json: \
             families[0].companions[0].for[0]: must name one file, not a pattern; \
             families[0].companions[0].for[1]: must be a relative path without . or ..; \
             families[0].companions[0].for[2]: must be a relative path without . or ..; \
             families[0].companions[0].for[3]: must name one file, not a pattern"
        );
    }

    #[test]
    fn names_every_problem() {
        let text = r#"{"signature": [], "families": [
            {"name": "A", "rules": [], "threshold": 2, "companions": [{"path": "x\u0007", "prior": -1}]},
            {"name": "A", "kind": "other", "rules": [], "companions": []}]}"#;
        let err = Pack::from_json_str(text, "ws/.dsh/doc-pack.json").expect_err("invalid");
        assert_eq!(
            err.to_string(),
            "invalid pack ws/.dsh/doc-pack.json: signature: must list at least one file; \
             families[0].rules: a doc family needs at least one rule; \
             families[0].threshold: 2 is outside 0..1; \
             families[0].companions[0].path: contains a control character; \
             families[0].companions[0].prior: -1 is outside 0..1; \
             families[1].name: \"A\" is used twice"
        );
    }

    #[test]
    fn oversized_packs_are_refused_with_their_limit() {
        let family =
            |i: usize| format!(r#"{{"name": "F{i}", "rules": ["a/*.md"], "companions": []}}"#);
        let many: Vec<String> = (0..10_000).map(family).collect();
        let text = format!(r#"{{"families": [{}]}}"#, many.join(","));
        let err = Pack::from_json_str(&text, "p.json").expect_err("too many");
        assert_eq!(
            err.to_string(),
            "invalid pack p.json: families: 10000 entries, more than the limit of 256"
        );
        let rules: Vec<String> = (0..65).map(|i| format!("\"r{i}/*.md\"")).collect();
        let text = format!(
            r#"{{"families": [{{"name": "A", "rules": [{}], "companions": []}}]}}"#,
            rules.join(",")
        );
        let err = Pack::from_json_str(&text, "p.json").expect_err("too many rules");
        assert_eq!(
            err.to_string(),
            "invalid pack p.json: families[0].rules: 65 entries, more than the limit of 64"
        );
        let alternatives: Vec<String> = (0..10_000).map(|i| format!("d{i}")).collect();
        let text = format!(
            r#"{{"families": [{{"name": "A", "rules": ["{{{}}}/*.md"], "companions": []}}]}}"#,
            alternatives.join(",")
        );
        let err = Pack::from_json_str(&text, "p.json").expect_err("a huge glob");
        assert!(
            err.to_string().starts_with(
                "invalid pack p.json: families[0].rules[0]: is 58896 bytes long (at most 512)"
            ),
            "{err}"
        );
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = Pack::from_json_str(&deep, "p.json").expect_err("too deep");
        assert!(
            err.to_string()
                .starts_with("invalid pack p.json: not valid JSON: recursion limit exceeded"),
            "{err}"
        );
    }

    #[test]
    fn every_unknown_field_is_named_with_the_rest() {
        let text = r#"{"signatur": ["A"], "families": [
            {"name": "A", "rule": ["a/*.md"], "rules": ["a/*.md"], "companions": [
                {"path": "B", "prior": 1, "weight": 2}]},
            {"name": "B", "rules": ["b/*.md"], "threshold": 3, "companions": []}],
            "colour": 1}"#;
        let err = Pack::from_json_str(text, "p.json").expect_err("invalid");
        assert_eq!(
            err.problems,
            [
                "colour: unknown field",
                "signatur: unknown field (did you mean `signature`?)",
                "families[0].rule: unknown field (did you mean `rules`?)",
                "families[0].companions[0].weight: unknown field",
                "families[1].threshold: 3 is outside 0..1",
            ]
        );
        // A shape error after the unknown fields is named too.
        let err = Pack::from_json_str(r#"{"families": 3, "famlies": []}"#, "p.json")
            .expect_err("invalid");
        assert_eq!(err.problems.len(), 2, "{err}");
        assert!(err.problems[0].starts_with("famlies: unknown field (did you mean `families`?)"));
        assert!(err.problems[1].starts_with("wrong shape:"), "{err}");
    }

    #[test]
    fn the_known_fields_are_the_format_s() {
        let mut pack = Pack::builtin();
        pack.families[0].threshold = Some(0.5);
        pack.families[0].companions[0].for_files = vec!["Documentation/Plans/a.md".into()];
        pack.families[0].companions[0].validated = Some(origin::Validated {
            named: 2,
            followed: 1,
        });
        pack.mined = Some(origin::MinedFrom {
            from: "00ab".into(),
            validated: None,
            to: "01cd".into(),
        });
        pack.boundary = Some(origin::BoundaryFigures {
            may_block: true,
            reminders: 2,
            right: 2,
        });
        let value = serde_json::to_value(&pack).expect("serialises");
        let keys = |v: &Value| -> Vec<String> {
            let mut k: Vec<String> = v.as_object().expect("object").keys().cloned().collect();
            k.sort();
            k
        };
        let sorted = |names: &[&str]| -> Vec<String> {
            let mut k: Vec<String> = names.iter().map(|s| s.to_string()).collect();
            k.sort();
            k
        };
        assert_eq!(keys(&value), sorted(&fields::PACK));
        assert_eq!(keys(&value["families"][0]), sorted(&fields::FAMILY));
        assert_eq!(
            keys(&value["families"][0]["companions"][0]),
            sorted(&fields::COMPANION)
        );
    }

    #[test]
    fn wrong_shape_and_bad_json_name_the_file() {
        let err = Pack::from_json_str("{\"families\": 3}", "f.json").expect_err("shape");
        assert!(
            err.to_string()
                .starts_with("invalid pack f.json: wrong shape:"),
            "{err}"
        );
        let err = Pack::from_json_str("nope", "f.json").expect_err("json");
        assert!(
            err.to_string()
                .starts_with("invalid pack f.json: not valid JSON:"),
            "{err}"
        );
    }

    #[test]
    fn single_stars_skip_escapes_classes_and_double_stars() {
        for (glob, stars) in [
            ("src/*.py", &[4][..]),
            ("**/*.rs", &[3]),
            ("a/**", &[]),
            ("a**b", &[]),
            ("*_*.md", &[0, 2]),
            ("\\*.md", &[]),
            ("\\**.md", &[2]),
            ("[*]/x.md", &[]),
            ("[]*]/*.md", &[5]),
            ("[!*]*", &[4]),
            ("[[:alpha:]*]", &[]),
            ("[[:foo:]*]", &[8]),
            ("{a,*}/b", &[3]),
            ("README.md", &[]),
        ] {
            assert_eq!(single_stars(glob), stars, "{glob}");
        }
    }

    #[test]
    fn the_double_star_of_a_rule_splits_it() {
        for (rule, split) in [
            ("lib/**/*.rb", Some(("lib", "*.rb"))),
            ("a/b/**/c/*.md", Some(("a/b", "c/*.md"))),
            ("**/*.rs", Some(("", "*.rs"))),
            ("lib/**", None),
            ("**", None),
            ("a/**/b/**/c", None),
            ("a**/b", None),
            ("a/x**/b", None),
            ("src/*.rs", None),
        ] {
            assert_eq!(double_star_split(rule), split, "{rule}");
        }
        // Old packs read as before: a path without `{**}` is a template only by its `{}`.
        assert!(!is_template("spec/**/x.rb"));
        assert!(is_template("spec/{**}/x.rb"));
    }

    #[test]
    fn template_companions_are_checked() {
        let pack = |rules: &str, companion: &str| {
            format!(
                r#"{{"families": [{{"name": "A", "rules": {rules}, "companions": [{{"path": {}, "prior": 1.0}}]}}]}}"#,
                serde_json::json!(companion)
            )
        };
        for (rules, companion) in [
            (r#"["src/*.py"]"#, "tests/test_{}.py"),
            (r#"["**/*.rs"]"#, "tests/ui/{}.rs"),
            (r#"["lints/*/README.md"]"#, "lints/{}/meta.yaml"),
            (r#"["a/**", "b/*.md"]"#, "{}/{}.txt"),
            (r#"["lib/**/*.rb"]"#, "spec/{**}/{}_spec.rb"),
            (r#"["**/*.rb"]"#, "{**}/{}_test.rb"),
            (r#"["docs/**/*.md"]"#, "site/{**}/index.html"),
            (r#"["src/*.rs", "a/**/b/*.md"]"#, "x/{**}/{**}/{}"),
        ] {
            let text = pack(rules, companion);
            assert!(Pack::from_json_str(&text, "p.json").is_ok(), "{text}");
        }
        for (rules, companion, problem) in [
            (
                r#"["src/*.py"]"#,
                "tests/*/{}.py",
                "a {} template may not also hold glob syntax",
            ),
            (
                r#"["src/*.py"]"#,
                "tests/{{}}.py",
                "a {} template may not also hold glob syntax",
            ),
            (
                r#"["src/*.py"]"#,
                "tests/{a,b}/{}.py",
                "a {} template may not also hold glob syntax",
            ),
            (
                r#"["src/*.py"]"#,
                "tests/<Name>/{}.py",
                "a {} template may not also hold a <placeholder>",
            ),
            (
                r#"["src/**", "README.md", "x/\\*.md"]"#,
                "tests/{}.py",
                "a {} template needs a rule of its family with a single * to capture",
            ),
            (
                r#"["lib/**/*.rb"]"#,
                "spec/x{**}/{}_spec.rb",
                "a {**} directory capture must be a whole path component",
            ),
            (
                r#"["lib/**/*.rb"]"#,
                "spec/{**}.rb",
                "a {**} directory capture must be a whole path component",
            ),
            (
                r#"["lib/**/*.rb"]"#,
                "spec/{**}/*_spec.rb",
                "a {} template may not also hold glob syntax",
            ),
            (
                r#"["lib/**/*.rb"]"#,
                "spec/{**}/<Name>.rb",
                "a {} template may not also hold a <placeholder>",
            ),
            (
                r#"["lib/*.rb", "lib/**", "a/**/b/**/*.md", "c/x**/*.md"]"#,
                "spec/{**}/{}_spec.rb",
                "a {**} template needs a rule of its family with exactly one ** component \
                 (top/**/rest) to capture",
            ),
            (
                r#"["lib/**/x.rb"]"#,
                "spec/{**}/{}_spec.rb",
                "a {} template needs a rule of its family with a single * to capture",
            ),
        ] {
            let err = Pack::from_json_str(&pack(rules, companion), "p.json").expect_err(companion);
            assert_eq!(
                err.to_string(),
                format!("invalid pack p.json: families[0].companions[0].path: {problem}")
            );
        }
    }
}
