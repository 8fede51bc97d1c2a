//! Tidy: ARCHITECTURE.md's dependency table (Bird's-eye view) against each crate's
//! `Cargo.toml`. A row is `| `crate` | workspace crates | outside crates |`, each crate a code
//! span; a crate its manifest marks `optional` is written `` `name` (optional, feature …) ``.
//! Every workspace member but the tests and the bench (which may use any crate) has a row,
//! and a row lists exactly the crate's `[dependencies]`: what the manifest has and the table
//! lacks, or the other way round, is named, so the picture cannot drift from the build.

use std::collections::{BTreeMap, BTreeSet};

use crate::tidy::{architecture, code_spans, members, read, root};

/// Members whose dependencies the table does not list: they may use any crate.
const ANY_CRATE: &[&str] = &["tests", "bench"];

/// One crate's links: each dependency's name and whether it is optional.
type Links = BTreeMap<String, bool>;

/// The table's rows: crate name → (workspace links, outside links).
fn table(doc: &str) -> BTreeMap<String, (Links, Links)> {
    let mut rows = BTreeMap::new();
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split(" | ").collect();
        let [name, workspace, outside] = cells[..] else {
            panic!("ARCHITECTURE.md: a dependency row has three cells: {line}");
        };
        let name = code_spans(name).concat();
        rows.insert(name, (links(workspace), links(outside)));
    }
    rows
}

/// A cell's crates: each code span outside parentheses (`(optional, feature `fleet`)` is a
/// remark), optional when `(optional` follows it.
fn links(cell: &str) -> Links {
    let mut depth = 0usize;
    let outside_remarks: String = cell
        .chars()
        .filter(|&c| {
            match c {
                '(' => depth += 1,
                ')' => depth = depth.saturating_sub(1),
                _ => return depth == 0,
            }
            false
        })
        .collect();
    code_spans(&outside_remarks)
        .into_iter()
        .map(|name| {
            let optional = cell.contains(&format!("`{name}` (optional"));
            (name, optional)
        })
        .collect()
}

/// A member's `[dependencies]`, split into workspace crates and outside crates.
fn manifest_links(dir: &std::path::Path, workspace: &BTreeSet<String>) -> (String, Links, Links) {
    let manifest: toml::Table =
        toml::from_str(&read(&dir.join("Cargo.toml"))).expect("a member's Cargo.toml parses");
    let name = manifest["package"]["name"]
        .as_str()
        .expect("package.name is a string")
        .to_owned();
    let (mut inner, mut outer) = (Links::new(), Links::new());
    if let Some(deps) = manifest.get("dependencies").and_then(|d| d.as_table()) {
        for (dep, spec) in deps {
            let optional = spec
                .get("optional")
                .and_then(|o| o.as_bool())
                .unwrap_or(false);
            let side = if workspace.contains(dep) {
                &mut inner
            } else {
                &mut outer
            };
            side.insert(dep.clone(), optional);
        }
    }
    (name, inner, outer)
}

/// What `doc` and `manifest` disagree on, in words.
fn differences(krate: &str, kind: &str, doc: &Links, manifest: &Links) -> Vec<String> {
    let mut problems = Vec::new();
    for (dep, optional) in manifest {
        match doc.get(dep) {
            None => problems.push(format!("{krate}: {kind} `{dep}` is missing from the table")),
            Some(said) if said != optional => problems.push(format!(
                "{krate}: {kind} `{dep}` is {} in Cargo.toml but {} in the table",
                if *optional { "optional" } else { "required" },
                if *said { "optional" } else { "required" },
            )),
            Some(_) => {}
        }
    }
    for dep in doc.keys().filter(|d| !manifest.contains_key(*d)) {
        problems.push(format!(
            "{krate}: the table lists {kind} `{dep}`, which Cargo.toml does not"
        ));
    }
    problems
}

#[test]
fn dependency_table_matches_every_manifest() {
    let root = root();
    let doc = architecture(&root);
    let rows = table(&doc);
    let members: Vec<String> = members(&root)
        .into_iter()
        .filter(|m| !ANY_CRATE.contains(&m.as_str()))
        .collect();
    let manifests: Vec<_> = {
        let names: BTreeSet<String> = members
            .iter()
            .map(|m| manifest_links(&root.join(m), &BTreeSet::new()).0)
            .collect();
        members
            .iter()
            .map(|m| manifest_links(&root.join(m), &names))
            .collect()
    };
    let mut problems = Vec::new();
    for (name, inner, outer) in &manifests {
        let Some((doc_inner, doc_outer)) = rows.get(name) else {
            problems.push(format!("{name}: no row in the dependency table"));
            continue;
        };
        problems.extend(differences(name, "workspace crate", doc_inner, inner));
        problems.extend(differences(name, "outside crate", doc_outer, outer));
    }
    for name in rows.keys() {
        if !manifests.iter().any(|(n, _, _)| n == name) {
            problems.push(format!(
                "{name}: a row in the table, but no such workspace member"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "ARCHITECTURE.md's dependency table (Bird's-eye view) disagrees with Cargo.toml:\n  {}",
        problems.join("\n  ")
    );
}
