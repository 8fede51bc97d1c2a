//! A JSON text read with the byte span of every value, and edits that touch only the bytes
//! they name, so a config file keeps its key order, spacing and line ends everywhere else.
//!
//! Elements are appended after a container's last element as `,` + the whitespace that
//! preceded that element + the new element, or into an empty container after its opening
//! bracket. Removing is the exact inverse: an element after another goes with the separator
//! before it, the last elements of a container with everything inside the brackets up to
//! them. So removing what was appended gives back the bytes there were before.
//!
//! Kept over a CST editor crate: `jsonc-parser` 0.34 (`cst` feature) was tried as the editor
//! for `installed`/`uninstalled`. It kept pretty files' indentation and line ends, but it is
//! not byte-faithful (`installs_round_trip_byte_for_byte` and 6 of the `settings_file` fuzz
//! check's 3,004 corpus and mutated inputs failed). `CstObject::append`/`insert` always call
//! `ensure_multiline`, which lays out again the members a one-line object already has, and the
//! crate has no call that inserts raw text. So `{"a":1}` comes back as `{⏎  "a":1⏎}`, and `{ }`
//! comes back as `{}`. Every insert also drops blank lines just inside the brackets
//! (`{⏎⏎  "a": 1⏎}` comes back without its blank line). An object appended to `[1]` gives
//! `[1,⏎    {…}]`, and removing it leaves `[1⏎]`. Also, `get` finds the first of two members
//! with the same key, but serde_json keeps the last one.

use serde::Serialize;
use serde_json::ser::{PrettyFormatter, Serializer};

/// One JSON value of a text and where it is.
#[derive(Debug)]
pub(crate) struct Node {
    /// The offset of its first byte.
    pub start: usize,
    /// The offset past its last byte.
    pub end: usize,
    /// What it holds.
    pub kind: Kind,
}

/// The containers, with their elements; everything else is opaque.
#[derive(Debug)]
pub(crate) enum Kind {
    Object(Vec<Member>),
    Array(Vec<Node>),
    Other,
}

/// One member of an object.
#[derive(Debug)]
pub(crate) struct Member {
    /// The key, unescaped.
    pub key: String,
    /// The offset of the key's opening quote.
    pub start: usize,
    /// The value.
    pub value: Node,
}

impl Node {
    /// The last member named `key` (the one a JSON reader keeps).
    pub fn member(&self, key: &str) -> Option<&Member> {
        match &self.kind {
            Kind::Object(members) => members.iter().rev().find(|m| m.key == key),
            _ => None,
        }
    }

    /// The spans of the elements (whole members for an object); empty for a scalar.
    pub fn elements(&self) -> Vec<(usize, usize)> {
        match &self.kind {
            Kind::Object(members) => members.iter().map(|m| (m.start, m.value.end)).collect(),
            Kind::Array(items) => items.iter().map(|n| (n.start, n.end)).collect(),
            Kind::Other => Vec::new(),
        }
    }
}

/// Reads `text`, which must hold one JSON value (check it with serde first: this reader
/// trusts the grammar and only finds the spans).
pub(crate) fn parse(text: &str) -> Result<Node, String> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    reader.skip_space();
    let node = reader.value()?;
    reader.skip_space();
    if reader.at != reader.bytes.len() {
        return Err(format!("unexpected text at byte {}", reader.at));
    }
    Ok(node)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn skip_space(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8) -> Result<(), String> {
        if self.bytes.get(self.at) == Some(&byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(format!("expected {:?} at byte {}", byte as char, self.at))
        }
    }

    fn value(&mut self) -> Result<Node, String> {
        let start = self.at;
        let kind = match self.bytes.get(self.at) {
            Some(b'{') => Kind::Object(self.members()?),
            Some(b'[') => Kind::Array(self.items()?),
            Some(b'"') => {
                self.string()?;
                Kind::Other
            }
            Some(_) => {
                while self.bytes.get(self.at).is_some_and(|b| {
                    !matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r')
                }) {
                    self.at += 1;
                }
                if self.at == start {
                    return Err(format!("expected a value at byte {start}"));
                }
                Kind::Other
            }
            None => return Err("unexpected end of text".into()),
        };
        Ok(Node {
            start,
            end: self.at,
            kind,
        })
    }

    /// Skips one string; answers its span.
    fn string(&mut self) -> Result<(usize, usize), String> {
        let start = self.at;
        self.expect(b'"')?;
        loop {
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    self.at += 1;
                    return Ok((start, self.at));
                }
                Some(b'\\') => self.at += 2,
                Some(_) => self.at += 1,
                None => return Err(format!("unterminated string at byte {start}")),
            }
        }
    }

    fn members(&mut self) -> Result<Vec<Member>, String> {
        self.expect(b'{')?;
        let mut members = Vec::new();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b'}') {
            self.at += 1;
            return Ok(members);
        }
        loop {
            self.skip_space();
            let (start, key_end) = self.string()?;
            let key = std::str::from_utf8(&self.bytes[start..key_end])
                .ok()
                .and_then(|k| serde_json::from_str::<String>(k).ok())
                .ok_or_else(|| format!("bad key at byte {start}"))?;
            self.skip_space();
            self.expect(b':')?;
            self.skip_space();
            let value = self.value()?;
            members.push(Member { key, start, value });
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(members);
                }
                _ => return Err(format!("expected ',' or '}}' at byte {}", self.at)),
            }
        }
    }

    fn items(&mut self) -> Result<Vec<Node>, String> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        self.skip_space();
        if self.bytes.get(self.at) == Some(&b']') {
            self.at += 1;
            return Ok(items);
        }
        loop {
            self.skip_space();
            items.push(self.value()?);
            self.skip_space();
            match self.bytes.get(self.at) {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(items);
                }
                _ => return Err(format!("expected ',' or ']' at byte {}", self.at)),
            }
        }
    }
}

/// Byte-range replacements on one text, applied together.
#[derive(Debug, Default)]
pub(crate) struct Edits(Vec<(usize, usize, String)>);

impl Edits {
    fn replace(&mut self, start: usize, end: usize, with: String) {
        self.0.push((start, end, with));
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with every edit made; the edits must not overlap.
    pub fn apply(mut self, text: &str) -> String {
        self.0.sort_by_key(|(start, end, _)| (*start, *end));
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end, with) in self.0 {
            debug_assert!(start >= at, "overlapping edits");
            out.push_str(&text[at..start]);
            out.push_str(&with);
            at = end;
        }
        out.push_str(&text[at..]);
        out
    }
}

/// How new elements are written where they go.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// Multi-line, indented; else on one line without spaces.
    pub pretty: bool,
    /// The line end (`\n` or `\r\n`).
    pub newline: &'static str,
    /// The indentation of the new elements' first lines.
    pub indent: String,
    /// One level of indentation.
    pub unit: String,
}

impl Layout {
    /// `value` (after `key`, for a member) written at this layout.
    pub fn render<T: Serialize>(&self, key: Option<&str>, value: &T) -> String {
        let value = if self.pretty {
            let mut out = Vec::new();
            let mut ser = Serializer::with_formatter(
                &mut out,
                PrettyFormatter::with_indent(self.unit.as_bytes()),
            );
            value
                .serialize(&mut ser)
                .expect("our entries always serialize");
            String::from_utf8(out)
                .expect("JSON is UTF-8")
                .replace('\n', &format!("{}{}", self.newline, self.indent))
        } else {
            serde_json::to_string(value).expect("our entries always serialize")
        };
        match key {
            Some(key) => {
                let key = serde_json::Value::from(key).to_string();
                format!("{key}:{}{value}", if self.pretty { " " } else { "" })
            }
            None => value,
        }
    }
}

/// The indentation unit of a document: what precedes the root's first element on its line,
/// or two spaces.
pub(crate) fn unit(text: &str, root: &Node) -> String {
    root.elements()
        .first()
        .map(|&(start, _)| space_before(text, start))
        .and_then(|space| space.rfind('\n').map(|nl| space[nl + 1..].to_string()))
        .filter(|unit| !unit.is_empty())
        .unwrap_or_else(|| "  ".into())
}

/// The whitespace right before `at`.
fn space_before(text: &str, at: usize) -> &str {
    let head = &text[..at];
    let kept = head.trim_end_matches([' ', '\t', '\n', '\r']);
    &head[kept.len()..]
}

/// The leading whitespace of the line that holds `at`.
fn line_indent(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |nl| nl + 1);
    let line = &text[line_start..at];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn newline_of(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// Appends the elements `render` writes (given the layout they go in) to `container`.
/// In an empty container they are pretty when the document's root spans several lines.
pub(crate) fn append(
    text: &str,
    root: &Node,
    container: &Node,
    render: impl Fn(&Layout) -> Vec<String>,
    edits: &mut Edits,
) {
    let elements = container.elements();
    let unit = unit(text, root);
    if let Some(&(last_start, last_end)) = elements.last() {
        let space = space_before(text, last_start);
        let layout = Layout {
            pretty: space.contains('\n'),
            newline: newline_of(space),
            indent: space
                .rfind('\n')
                .map_or("", |nl| &space[nl + 1..])
                .to_string(),
            unit,
        };
        let added: String = render(&layout)
            .into_iter()
            .map(|element| format!(",{space}{element}"))
            .collect();
        edits.replace(last_end, last_end, added);
        return;
    }
    let open = container.start;
    let close = container.end - 1;
    let pretty = text[root.start..root.end].contains('\n');
    let newline = newline_of(text);
    let outer = line_indent(text, open);
    let layout = Layout {
        pretty,
        newline,
        indent: format!("{outer}{unit}"),
        unit,
    };
    let before = if pretty {
        format!("{newline}{}", layout.indent)
    } else {
        String::new()
    };
    let mut added = render(&layout)
        .into_iter()
        .map(|element| format!("{before}{element}"))
        .collect::<Vec<_>>()
        .join(",");
    // Brackets that held nothing get the closing one on a line of its own.
    if pretty && text[open + 1..close].is_empty() {
        added.push_str(&format!("{newline}{outer}"));
    }
    edits.replace(open + 1, open + 1, added);
}

/// Removes the elements of `container` marked in `doomed` (one flag per element), each with
/// its separator; when none is left, everything inside the brackets up to the last element
/// goes, and the line break before the closing bracket that [`append`] added.
pub(crate) fn remove(text: &str, container: &Node, doomed: &[bool], edits: &mut Edits) {
    let elements = container.elements();
    debug_assert_eq!(elements.len(), doomed.len());
    if elements.is_empty() || !doomed.iter().any(|d| *d) {
        return;
    }
    if doomed.iter().all(|d| *d) {
        let open = container.start;
        let close = container.end - 1;
        let last_end = elements[elements.len() - 1].1;
        let rest = &text[last_end..close];
        let closing = format!("{}{}", newline_of(rest), line_indent(text, open));
        let end = if rest == closing { close } else { last_end };
        edits.replace(open + 1, end, String::new());
        return;
    }
    let mut i = 0;
    while i < elements.len() {
        if !doomed[i] {
            i += 1;
            continue;
        }
        let first = i;
        while i + 1 < elements.len() && doomed[i + 1] {
            i += 1;
        }
        if first > 0 {
            edits.replace(elements[first - 1].1, elements[i].1, String::new());
        } else {
            // Not all are doomed, so an element follows this run.
            edits.replace(elements[0].0, elements[i + 1].0, String::new());
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Appends `element` to the container at `path` (keys and indices from the root), then
    /// removes it again: answers the text in between; the removal must give `text` back.
    fn round_trip(
        text: &str,
        path: &[&str],
        element: serde_json::Value,
        key: Option<&str>,
    ) -> String {
        let find = |text: &str| -> Node {
            let mut node = parse(text).expect("parses");
            for step in path {
                node = match node.kind {
                    Kind::Object(members) => {
                        members
                            .into_iter()
                            .rev()
                            .find(|m| m.key == *step)
                            .expect("member")
                            .value
                    }
                    Kind::Array(items) => items
                        .into_iter()
                        .nth(step.parse().expect("an index"))
                        .expect("item"),
                    Kind::Other => panic!("not a container"),
                };
            }
            node
        };
        let root = parse(text).expect("parses");
        let mut edits = Edits::default();
        append(
            text,
            &root,
            &find(text),
            |layout| vec![layout.render(key, &element)],
            &mut edits,
        );
        let added = edits.apply(text);
        serde_json::from_str::<serde_json::Value>(&added).expect("still JSON");
        let container = find(&added);
        let mut doomed = vec![false; container.elements().len()];
        *doomed.last_mut().expect("an element") = true;
        let mut edits = Edits::default();
        remove(&added, &container, &doomed, &mut edits);
        assert_eq!(edits.apply(&added), text, "removing gives the bytes back");
        added
    }

    #[test]
    fn appending_follows_the_container_and_removing_undoes_it() {
        let check = |text: &str, path: &[&str], key: Option<&str>, expect: &str| {
            assert_eq!(
                round_trip(text, path, json!({"a": [1]}), key),
                expect,
                "{text:?}"
            );
        };
        check("[1, 2]", &[], None, r#"[1, 2, {"a":[1]}]"#);
        check("[1,2]", &[], None, r#"[1,2,{"a":[1]}]"#);
        check(
            "{\n  \"x\": [\n    1\n  ]\n}\n",
            &["x"],
            None,
            "{\n  \"x\": [\n    1,\n    {\n      \"a\": [\n        1\n      ]\n    }\n  ]\n}\n",
        );
        check(
            "{\n\t\"x\": []\n}",
            &["x"],
            None,
            "{\n\t\"x\": [\n\t\t{\n\t\t\t\"a\": [\n\t\t\t\t1\n\t\t\t]\n\t\t}\n\t]\n}",
        );
        check("{}\n", &[], Some("k"), "{\"k\":{\"a\":[1]}}\n");
        check("{ }", &[], Some("k"), "{\"k\":{\"a\":[1]} }");
        check(
            "{\r\n  \"x\": 1\r\n}\r\n",
            &[],
            Some("k"),
            "{\r\n  \"x\": 1,\r\n  \"k\": {\r\n    \"a\": [\r\n      1\r\n    ]\r\n  }\r\n}\r\n",
        );
        check(
            "{\n    \"x\": {}\n}",
            &["x"],
            Some("k"),
            "{\n    \"x\": {\n        \"k\": {\n            \"a\": [\n                1\n            ]\n        }\n    }\n}",
        );
    }

    #[test]
    fn removing_runs_keeps_the_others_and_their_separators() {
        let check = |text: &str, doomed: &[bool], expect: &str| {
            let root = parse(text).expect("parses");
            let mut edits = Edits::default();
            remove(text, &root, doomed, &mut edits);
            assert_eq!(edits.apply(text), expect, "{text:?} {doomed:?}");
        };
        check("[1, 2, 3]", &[true, false, false], "[2, 3]");
        check("[1, 2, 3]", &[true, true, false], "[3]");
        check("[1, 2, 3]", &[false, true, false], "[1, 3]");
        check("[1, 2, 3]", &[true, false, true], "[2]");
        check("[1, 2, 3]", &[true, true, true], "[]");
        check("[\n  1,\n  2\n]", &[true, true], "[]");
        check("[ 1 ]", &[true], "[ ]");
        check(
            r#"{"a": 1, "b": {"c": [2]}}"#,
            &[false, true],
            r#"{"a": 1}"#,
        );
    }

    #[test]
    fn spans_and_keys_are_read_from_the_text() {
        let text = r#" {"k\u0065y": [1, "a]b", {"x": null}], "n": -1.5e3 } "#;
        let root = parse(text).expect("parses");
        let key = root.member("key").expect("the escaped key is unescaped");
        assert_eq!(
            &text[key.value.start..key.value.end],
            r#"[1, "a]b", {"x": null}]"#
        );
        assert_eq!(root.elements().len(), 2);
        assert!(parse("[1,").is_err());
    }
}
