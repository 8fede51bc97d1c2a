//! The workspace's crates as module trees, read with `syn`: every target of every member (its
//! library, binaries, tests, benches and examples, named in its `Cargo.toml` or found where
//! Cargo looks), each module with its file, the names it defines and the names its `use`
//! items bind. A module is test code when a `cfg` attribute on it, or on a module above it,
//! holds only under `test` (`#[cfg(test)]`, `#[cfg(all(test, unix))]`).
//!
//! Only what the two checks need is read: `#[path]` is followed from a file (not from an
//! inline module), and a `mod` whose file is missing is an error unless a `cfg` leaves it out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::{members, read, rel};

/// What a target is built as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Lib,
    Bin,
    /// A test, bench or example target.
    Check,
}

/// One target: its modules, the first its root.
pub(super) struct Crate {
    pub(super) member: String,
    pub(super) kind: Kind,
    pub(super) modules: Vec<Module>,
}

pub(super) struct Module {
    pub(super) parent: Option<usize>,
    /// The file its items are in, relative to the workspace root.
    pub(super) file: String,
    /// Whether its items are written in a file of its own (not inline in its parent's).
    pub(super) owns_file: bool,
    pub(super) test: bool,
    pub(super) children: BTreeMap<String, usize>,
    /// The items it defines, by name (modules are `children`).
    pub(super) defined: BTreeSet<String>,
    /// The names its `use` items bind, each to its path as written.
    pub(super) uses: BTreeMap<String, Vec<String>>,
    /// The paths of its glob imports (`use super::*`).
    pub(super) globs: Vec<Vec<String>>,
    /// Its items, inline modules' contents taken out into their own `Module`s.
    pub(super) items: Vec<syn::Item>,
}

impl Crate {
    /// Whether `module` is `ancestor` or below it.
    pub(super) fn within(&self, module: usize, ancestor: usize) -> bool {
        let mut at = Some(module);
        while let Some(m) = at {
            if m == ancestor {
                return true;
            }
            at = self.modules[m].parent;
        }
        false
    }

    /// The module whose own file `module`'s items are written in.
    pub(super) fn file_module(&self, module: usize) -> usize {
        let mut at = module;
        while !self.modules[at].owns_file {
            at = self.modules[at].parent.expect("the root owns its file");
        }
        at
    }
}

/// Every target of every workspace member.
pub(super) fn crates(root: &Path) -> Vec<Crate> {
    let mut crates = Vec::new();
    for member in members(root) {
        for (kind, path) in targets(&root.join(&member)) {
            let mut loader = Loader {
                root,
                krate: Crate {
                    member: member.clone(),
                    kind,
                    modules: Vec::new(),
                },
            };
            loader.file(&path, None, false);
            crates.push(loader.krate);
        }
    }
    crates
}

/// A member's targets: its crate roots and what each is built as.
fn targets(dir: &Path) -> Vec<(Kind, PathBuf)> {
    let manifest: toml::Table = toml::from_str(&read(&dir.join("Cargo.toml")))
        .unwrap_or_else(|e| panic!("{}/Cargo.toml: {e}", dir.display()));
    let mut found: BTreeMap<PathBuf, Kind> = BTreeMap::new();
    let declared = |key: &str| -> Vec<PathBuf> {
        let tables = match manifest.get(key) {
            Some(toml::Value::Array(all)) => all.iter().filter_map(|t| t.as_table()).collect(),
            Some(toml::Value::Table(one)) => vec![one],
            _ => Vec::new(),
        };
        tables
            .into_iter()
            .filter_map(|t| t.get("path").and_then(|p| p.as_str()))
            .map(|p| dir.join(p))
            .collect()
    };
    let mut add = |kind: Kind, paths: Vec<PathBuf>| {
        for path in paths.into_iter().filter(|p| p.is_file()) {
            found.entry(path).or_insert(kind);
        }
    };
    add(Kind::Lib, declared("lib"));
    add(Kind::Lib, vec![dir.join("src/lib.rs")]);
    add(Kind::Bin, declared("bin"));
    add(Kind::Bin, vec![dir.join("src/main.rs")]);
    add(Kind::Bin, discovered(&dir.join("src/bin")));
    for key in ["test", "bench", "example"] {
        add(Kind::Check, declared(key));
    }
    for sub in ["tests", "benches", "examples"] {
        add(Kind::Check, discovered(&dir.join(sub)));
    }
    found.into_iter().map(|(path, kind)| (kind, path)).collect()
}

/// The targets Cargo finds in `dir` by itself: `dir/N.rs` and `dir/N/main.rs`.
fn discovered(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .map(|e| e.expect("a directory entry").path())
        .map(|p| if p.is_dir() { p.join("main.rs") } else { p })
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    found.sort();
    found
}

struct Loader<'a> {
    root: &'a Path,
    krate: Crate,
}

/// Where a module's items are: its file, its parent, whether it is test code, and the
/// directory its `mod name;` files are in.
struct Place<'a> {
    file: &'a Path,
    parent: Option<usize>,
    owns_file: bool,
    test: bool,
    dir: PathBuf,
}

impl Loader<'_> {
    /// Reads `file` as a module (the root when `parent` is `None`) and, below it, every module
    /// it declares.
    fn file(&mut self, file: &Path, parent: Option<usize>, test: bool) -> usize {
        let text = read(file);
        let parsed = syn::parse_file(&text).unwrap_or_else(|e| {
            let at = e.span().start();
            panic!("{}:{}:{}: {e}", file.display(), at.line, at.column + 1)
        });
        // Beside a crate root or a `mod.rs`, else in a directory named like the file.
        let beside = parent.is_none() || file.file_name().is_some_and(|n| n == "mod.rs");
        let dir = if beside {
            file.parent().expect("a file has a directory").to_path_buf()
        } else {
            file.with_extension("")
        };
        let place = Place {
            file,
            parent,
            owns_file: true,
            test,
            dir,
        };
        self.module(&place, parsed.items)
    }

    /// Adds the module made of `items`, and the modules it declares, to the crate.
    fn module(&mut self, place: &Place, mut items: Vec<syn::Item>) -> usize {
        let id = self.krate.modules.len();
        self.krate.modules.push(Module {
            parent: place.parent,
            file: rel(place.file, self.root),
            owns_file: place.owns_file,
            test: place.test,
            children: BTreeMap::new(),
            defined: BTreeSet::new(),
            uses: BTreeMap::new(),
            globs: Vec::new(),
            items: Vec::new(),
        });
        for item in &mut items {
            if let syn::Item::Mod(declared) = item {
                if let Some(child) = self.child(place, id, declared) {
                    let name = unraw(&declared.ident);
                    self.krate.modules[id].children.insert(name, child);
                }
            } else {
                bind(&mut self.krate.modules[id], item);
            }
        }
        self.krate.modules[id].items = items;
        id
    }

    /// The module `declared` in module `id`, inline or from its file (none when its file is
    /// missing and a `cfg` leaves it out).
    fn child(&mut self, place: &Place, id: usize, declared: &mut syn::ItemMod) -> Option<usize> {
        let name = unraw(&declared.ident);
        let test = place.test || only_under_test(&declared.attrs);
        if let Some((_, content)) = declared.content.take() {
            let inline = Place {
                file: place.file,
                parent: Some(id),
                owns_file: false,
                test,
                dir: place.dir.join(&name),
            };
            return Some(self.module(&inline, content));
        }
        let beside = place.file.parent().expect("a file has a directory");
        let file = match path_attribute(&declared.attrs) {
            Some(path) => Some(beside.join(path)),
            None => [
                place.dir.join(format!("{name}.rs")),
                place.dir.join(&name).join("mod.rs"),
            ]
            .into_iter()
            .find(|p| p.is_file()),
        };
        match file {
            Some(file) => Some(self.file(&file, Some(id), test)),
            None if has_cfg(&declared.attrs) => None,
            None => panic!(
                "{}: `mod {name};` has no file in {}",
                place.file.display(),
                place.dir.display()
            ),
        }
    }
}

/// Records the name `item` defines, or the names it binds when it is a `use`.
fn bind(module: &mut Module, item: &syn::Item) {
    let name = match item {
        syn::Item::Const(i) => &i.ident,
        syn::Item::Enum(i) => &i.ident,
        syn::Item::ExternCrate(i) => i.rename.as_ref().map_or(&i.ident, |(_, r)| r),
        syn::Item::Fn(i) => &i.sig.ident,
        syn::Item::Macro(i) => match &i.ident {
            Some(ident) => ident,
            None => return,
        },
        syn::Item::Static(i) => &i.ident,
        syn::Item::Struct(i) => &i.ident,
        syn::Item::Trait(i) => &i.ident,
        syn::Item::TraitAlias(i) => &i.ident,
        syn::Item::Type(i) => &i.ident,
        syn::Item::Union(i) => &i.ident,
        syn::Item::Use(u) => {
            let mut prefix = Vec::new();
            if u.leading_colon.is_some() {
                prefix.push("::".to_owned());
            }
            for (name, path) in use_paths(&u.tree, prefix) {
                match name {
                    Some(name) => {
                        module.uses.insert(name, path);
                    }
                    None => module.globs.push(path),
                }
            }
            return;
        }
        _ => return,
    };
    module.defined.insert(unraw(name));
}

/// The paths a `use` tree names, each with the name it binds (`None` for a glob), `prefix`
/// before each.
pub(super) fn use_paths(
    tree: &syn::UseTree,
    prefix: Vec<String>,
) -> Vec<(Option<String>, Vec<String>)> {
    let joined = |ident: &syn::Ident| {
        let mut path = prefix.clone();
        if ident != "self" {
            path.push(unraw(ident));
        }
        path
    };
    match tree {
        syn::UseTree::Path(p) => use_paths(&p.tree, joined(&p.ident)),
        syn::UseTree::Name(n) => {
            let path = joined(&n.ident);
            vec![(path.last().cloned(), path)]
        }
        syn::UseTree::Rename(r) => vec![(Some(unraw(&r.rename)), joined(&r.ident))],
        syn::UseTree::Glob(_) => vec![(None, prefix)],
        syn::UseTree::Group(g) => g
            .items
            .iter()
            .flat_map(|t| use_paths(t, prefix.clone()))
            .collect(),
    }
}

/// An identifier as the compiler names it (`r#type` is `type`).
pub(super) fn unraw(ident: &syn::Ident) -> String {
    let name = ident.to_string();
    name.strip_prefix("r#").map_or(name.clone(), str::to_owned)
}

fn path_attribute(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

fn has_cfg(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg"))
}

/// Whether `item` is test code by its own attributes.
pub(super) fn is_test_item(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => return false,
    };
    only_under_test(attrs)
}

/// Whether `attrs` make an item test code: `#[test]`, or a `cfg` that holds only under
/// `test`.
pub(super) fn only_under_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if a.path().is_ident("test") {
            return true;
        }
        if !a.path().is_ident("cfg") {
            return false;
        }
        let predicate: syn::Meta = a.parse_args().expect("a cfg predicate");
        holds_without_test(&predicate) == Some(false)
    })
}

/// Whether a `cfg` predicate can hold when `test` is off: `Some(false)` when it cannot,
/// `None` when it depends on something else (a feature, the target).
fn holds_without_test(predicate: &syn::Meta) -> Option<bool> {
    let nested = |list: &syn::MetaList| -> Vec<Option<bool>> {
        list.parse_args_with(
            syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
        )
        .expect("cfg predicates")
        .iter()
        .map(holds_without_test)
        .collect()
    };
    match predicate {
        syn::Meta::Path(p) if p.is_ident("test") => Some(false),
        syn::Meta::List(l) if l.path.is_ident("not") => nested(l)[0].map(|b| !b),
        syn::Meta::List(l) if l.path.is_ident("all") => {
            let parts = nested(l);
            if parts.contains(&Some(false)) {
                Some(false)
            } else {
                None
            }
        }
        syn::Meta::List(l) if l.path.is_ident("any") => {
            let parts = nested(l);
            if parts.iter().all(|p| *p == Some(false)) {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}
