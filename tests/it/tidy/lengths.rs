//! Tidy: no production function is longer than 100 lines, from the line of its `fn` to the
//! line of its closing brace. Production code is what the libraries and binaries of the
//! workspace's members build, the `tests/` member aside, without its test code (`#[test]`
//! functions, modules and items under `#[cfg(test)]`); test, bench and example targets are
//! not production. A free function, a method, and a trait's provided method each count; a
//! function inside another counts within it.

use std::path::Path;

use super::modules::{Kind, crates, only_under_test};
use super::{architecture, assert_doc_says, plant, root};

/// The longest a production function may be, in lines.
const MOST_LINES: usize = 100;

/// Every production function longer than `MOST_LINES` in the workspace at `root`, as
/// `file:line: fn name is N lines`.
fn long_functions(root: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for krate in crates(root) {
        if krate.kind == Kind::Check || krate.member == "tests" {
            continue;
        }
        for module in krate.modules.iter().filter(|m| !m.test) {
            for item in &module.items {
                for (name, lines, line) in functions(item) {
                    if lines > MOST_LINES {
                        found.push(format!(
                            "{}:{line}: fn {name} is {lines} lines",
                            module.file
                        ));
                    }
                }
            }
        }
    }
    // A file two binaries share is read once for each.
    found.sort();
    found.dedup();
    found
}

/// The production functions `item` defines: name, length in lines, first line.
fn functions(item: &syn::Item) -> Vec<(String, usize, usize)> {
    let measure = |sig: &syn::Signature, block: &syn::Block| {
        let first = sig.fn_token.span.start().line;
        let last = block.brace_token.span.close().end().line;
        (sig.ident.to_string(), last + 1 - first, first)
    };
    match item {
        syn::Item::Fn(f) if !only_under_test(&f.attrs) => vec![measure(&f.sig, &f.block)],
        syn::Item::Impl(i) if !only_under_test(&i.attrs) => i
            .items
            .iter()
            .filter_map(|item| match item {
                syn::ImplItem::Fn(f) if !only_under_test(&f.attrs) => {
                    Some(measure(&f.sig, &f.block))
                }
                _ => None,
            })
            .collect(),
        syn::Item::Trait(t) if !only_under_test(&t.attrs) => t
            .items
            .iter()
            .filter_map(|item| match item {
                syn::TraitItem::Fn(f) if !only_under_test(&f.attrs) => {
                    f.default.as_ref().map(|block| measure(&f.sig, block))
                }
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[test]
fn no_production_function_is_over_100_lines() {
    let root = root();
    assert_doc_says(
        &architecture(&root),
        "No production function is longer than 100 lines.",
    );
    let found = long_functions(&root);
    assert!(
        found.is_empty(),
        "production functions over {MOST_LINES} lines (ARCHITECTURE.md, Shape of the code); \
         split each into steps with names of their own:\n  {}",
        found.join("\n  ")
    );
}

/// A function of `lines` lines.
fn function(name: &str, lines: usize) -> String {
    format!(
        "fn {name}() {{\n{}}}\n",
        "    let _ = 0;\n".repeat(lines - 2)
    )
}

/// The check itself, on a planted crate: a free function and a method of 101 lines are named;
/// one of 100, test code, and a test target are not.
#[test]
fn a_planted_long_function_is_named() {
    let lib = [
        function("hundred", 100),
        function("long", 101),
        format!("struct S;\nimpl S {{\n{}}}\n", function("method", 101)),
        format!(
            "#[cfg(test)]\nmod tests {{\n{}}}\n",
            function("in_tests", 101)
        ),
        format!("#[test]\n{}", function("a_test", 101)),
    ]
    .concat();
    let dir = plant(&[
        ("Cargo.toml", "[workspace]\nmembers = [\"k\"]\n".to_owned()),
        ("k/Cargo.toml", "[package]\nname = \"k\"\n".to_owned()),
        ("k/src/lib.rs", lib),
        ("k/tests/t.rs", function("target", 101)),
    ]);
    assert_eq!(
        long_functions(dir.path()),
        [
            "k/src/lib.rs:101: fn long is 101 lines",
            "k/src/lib.rs:204: fn method is 101 lines",
        ]
    );
}
