//! Tidy: no file-level import cycles. Within each crate, file A *imports* file B when A names
//! an item B defines: a `use` path, a path in code (`super::run::peek_turn()`,
//! `crate::file::FileState`), or such a path inside a macro call. A name is followed through
//! the `use` items that re-export it to where it is defined, and a glob import (`use
//! super::*`) imports the module it names. A file that names an item of its own child modules
//! (the modules it declares with `mod`, and theirs) does not import them: a parent composes
//! its children, and the child naming its parent's items is the one edge that counts. No file
//! may reach itself along imports; the test names each loop, with the line and path that make
//! each step of it. Test code (modules and items under `#[cfg(test)]`) is left out: a test
//! may use any helper.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use syn::visit::Visit;

use super::modules::{Crate, crates, is_test_item, unraw, use_paths};
use super::{architecture, assert_doc_says, plant, root};

/// Why file A imports file B: the first path that names B's item, and where.
#[derive(Clone)]
struct Step {
    line: usize,
    path: String,
}

/// Files to the files they import, each with its first reason.
type Graph = BTreeMap<String, BTreeMap<String, Step>>;

/// Every file-level import cycle of the workspace at `root`, described.
fn cycles(root: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for krate in crates(root) {
        let graph = imports(&krate);
        for component in strongly_connected(&graph) {
            found.insert(describe(&graph, &component, &krate.member));
        }
    }
    found
}

/// The crate's file-level imports.
fn imports(krate: &Crate) -> Graph {
    let mut graph = Graph::new();
    for (id, module) in krate.modules.iter().enumerate().filter(|(_, m)| !m.test) {
        let mut paths = Paths::default();
        for item in module.items.iter().filter(|i| !is_test_item(i)) {
            paths.visit_item(item);
        }
        let from = krate.file_module(id);
        for (line, segments) in paths.found {
            let Some(target) = resolve(krate, id, &segments, 0) else {
                continue;
            };
            let to = krate.file_module(target.module());
            if to == from || krate.within(to, from) {
                continue;
            }
            let step = Step {
                line,
                path: segments.join("::"),
            };
            graph
                .entry(module.file.clone())
                .or_default()
                .entry(krate.modules[to].file.clone())
                .and_modify(|s| {
                    if s.line > step.line {
                        *s = step.clone();
                    }
                })
                .or_insert(step);
        }
    }
    graph
}

/// What a path names in the crate: a module, or an item defined in one.
#[derive(Clone, Copy)]
enum Named {
    Module(usize),
    Item(usize),
}

impl Named {
    fn module(self) -> usize {
        match self {
            Named::Module(m) | Named::Item(m) => m,
        }
    }
}

/// Re-exports followed this deep at most (a glob may import a glob importing it back).
const DEPTH: usize = 8;

/// What `segments`, written in module `from`, name in the crate; `None` when it is outside
/// (another crate, a local, a generic).
fn resolve(krate: &Crate, from: usize, segments: &[String], depth: usize) -> Option<Named> {
    if depth > DEPTH || segments.is_empty() {
        return None;
    }
    let mut at = from;
    let mut rest = segments;
    let anchored = matches!(segments[0].as_str(), "crate" | "super" | "self");
    if segments[0] == "crate" {
        at = 0;
        rest = &segments[1..];
    }
    while let Some(first) = rest.first() {
        match first.as_str() {
            "super" => at = krate.modules[at].parent?,
            "self" => {}
            _ => break,
        }
        rest = &rest[1..];
    }
    for (i, segment) in rest.iter().enumerate() {
        match lookup(krate, at, segment, depth) {
            Some(Named::Module(m)) => at = m,
            Some(item) => return Some(item),
            // An associated item, a variant, or a name a macro defines: in the module reached.
            None if anchored || i > 0 => return Some(Named::Item(at)),
            None => return None,
        }
    }
    Some(Named::Module(at))
}

/// What `name` is in module `at`: a child module, an item it defines, or what a `use`
/// binds it to (by name or through a glob).
fn lookup(krate: &Crate, at: usize, name: &str, depth: usize) -> Option<Named> {
    let module = &krate.modules[at];
    if let Some(&child) = module.children.get(name) {
        return Some(Named::Module(child));
    }
    if module.defined.contains(name) {
        return Some(Named::Item(at));
    }
    if let Some(path) = module.uses.get(name) {
        return resolve(krate, at, path, depth + 1);
    }
    module
        .globs
        .iter()
        .find_map(|glob| match resolve(krate, at, glob, depth + 1)? {
            Named::Module(m) if m != at => lookup(krate, m, name, depth + 1),
            _ => None,
        })
}

/// The paths an item names, each with its line.
#[derive(Default)]
struct Paths {
    found: Vec<(usize, Vec<String>)>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.leading_colon.is_none()
            && let Some(first) = path.segments.first()
        {
            let segments = path.segments.iter().map(|s| unraw(&s.ident)).collect();
            self.found.push((first.ident.span().start().line, segments));
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        if item.leading_colon.is_some() {
            return;
        }
        let line = item.use_token.span.start().line;
        for (_, path) in use_paths(&item.tree, Vec::new()) {
            self.found.push((line, path));
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        anchored_paths(mac.tokens.clone(), &mut self.found);
        syn::visit::visit_macro(self, mac);
    }
}

/// The paths in a macro call's tokens that start at `crate`, `super` or `self`
/// (`super::x::y`), each with its line.
fn anchored_paths(tokens: proc_macro2::TokenStream, found: &mut Vec<(usize, Vec<String>)>) {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let is_colon =
        |t: Option<&TokenTree>| matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ':');
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Group(group) => anchored_paths(group.stream(), found),
            TokenTree::Ident(first) if ["crate", "super", "self"].iter().any(|a| first == a) => {
                let mut segments = vec![first.to_string()];
                while is_colon(tokens.get(i + 1)) && is_colon(tokens.get(i + 2)) {
                    let Some(TokenTree::Ident(next)) = tokens.get(i + 3) else {
                        break;
                    };
                    segments.push(next.to_string().trim_start_matches("r#").to_owned());
                    i += 3;
                }
                if segments.len() > 1 {
                    found.push((first.span().start().line, segments));
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// The graph's strongly connected components of more than one file (Tarjan's algorithm).
fn strongly_connected(graph: &Graph) -> Vec<Vec<String>> {
    struct Walk<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        on_stack: BTreeSet<&'g str>,
        components: Vec<Vec<String>>,
    }
    impl<'g> Walk<'g> {
        fn visit(&mut self, file: &'g str) {
            let index = self.index.len();
            self.index.insert(file, index);
            self.low.insert(file, index);
            self.stack.push(file);
            self.on_stack.insert(file);
            for next in self.graph.get(file).into_iter().flat_map(|n| n.keys()) {
                let next = next.as_str();
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[file].min(self.low[next]);
                    self.low.insert(file, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[file].min(self.index[next]);
                    self.low.insert(file, low);
                }
            }
            if self.low[file] == self.index[file] {
                let mut component = Vec::new();
                while let Some(top) = self.stack.pop() {
                    self.on_stack.remove(top);
                    component.push(top.to_owned());
                    if top == file {
                        break;
                    }
                }
                if component.len() > 1 {
                    component.sort();
                    self.components.push(component);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        components: Vec::new(),
    };
    for file in graph.keys() {
        if !walk.index.contains_key(file.as_str()) {
            walk.visit(file);
        }
    }
    walk.components
}

/// One loop through `component` (the shortest from its first file back to it), each step
/// with its reason, and the component's other files.
fn describe(graph: &Graph, component: &[String], member: &str) -> String {
    let start = &component[0];
    let inside: BTreeSet<&String> = component.iter().collect();
    let mut came_from: BTreeMap<&String, &String> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    'search: while let Some(file) = queue.pop_front() {
        for next in graph[file].keys().filter(|n| inside.contains(n)) {
            if next == start {
                came_from.insert(start, file);
                break 'search;
            }
            if !came_from.contains_key(next) {
                came_from.insert(next, file);
                queue.push_back(next);
            }
        }
    }
    let mut loop_files = vec![start];
    let mut at = came_from[start];
    while at != start {
        loop_files.push(at);
        at = came_from[at];
    }
    loop_files.reverse();
    loop_files.rotate_right(1);
    let mut text = format!("in `{member}/`:");
    for (i, from) in loop_files.iter().enumerate() {
        let to = loop_files[(i + 1) % loop_files.len()];
        let step = &graph[*from][to];
        text.push_str(&format!(
            "\n    {from}:{} names `{}` (in {to})",
            step.line, step.path
        ));
    }
    let others: Vec<&str> = component
        .iter()
        .filter(|f| !loop_files.contains(f))
        .map(String::as_str)
        .collect();
    if !others.is_empty() {
        text.push_str(&format!("\n    (in the same knot: {})", others.join(", ")));
    }
    text
}

#[test]
fn no_file_imports_itself_around_a_loop() {
    let root = root();
    assert_doc_says(
        &architecture(&root),
        "no file imports itself around a loop of other files",
    );
    let found = cycles(&root);
    assert!(
        found.is_empty(),
        "files import each other in a loop; move the item they share into the file that owns \
         it (or one both import), so that imports run one way:\n  {}",
        found.into_iter().collect::<Vec<_>>().join("\n  ")
    );
}

/// The check itself, on a planted crate: a loop through a re-export and a macro call is
/// named, step by step; a parent naming its child's items, and test code, make no loop.
#[test]
fn a_planted_loop_is_named() {
    let text = |s: &str| s.to_owned();
    let dir = plant(&[
        ("Cargo.toml", text("[workspace]\nmembers = [\"k\"]\n")),
        ("k/Cargo.toml", text("[package]\nname = \"k\"\n")),
        (
            "k/src/lib.rs",
            text("mod a;\nmod b;\nmod p;\npub use b::B;\n"),
        ),
        // a → b, through the root's re-export.
        (
            "k/src/a.rs",
            text("pub struct A;\npub fn b() -> crate::B { todo!() }\n"),
        ),
        // b → a, inside a macro call; b → p only in test code.
        (
            "k/src/b.rs",
            text(
                "pub struct B;\nfn f() { println!(\"{}\", super::a::A); }\n\
                 #[cfg(test)]\nmod tests { use crate::p::P; }\n",
            ),
        ),
        // p → b, and p → its child c, which names p's item: no loop.
        (
            "k/src/p.rs",
            text("mod c;\npub use c::C;\npub struct P;\nfn b() -> crate::b::B { todo!() }\n"),
        ),
        ("k/src/p/c.rs", text("use super::P;\npub struct C;\n")),
    ]);
    let found: Vec<String> = cycles(dir.path()).into_iter().collect();
    assert_eq!(
        found,
        [concat!(
            "in `k/`:\n",
            "    k/src/a.rs:2 names `crate::B` (in k/src/b.rs)\n",
            "    k/src/b.rs:2 names `super::a::A` (in k/src/a.rs)",
        )]
    );
}
