//! A subtree family whose companions mirror its files' subdirectories: the `{**}` capture.

use super::{MineOptions, Mined, mine};
use crate::history::{Commit, Status};
use docsuggest_engine::compiled::{CompiledPack, Detection};

/// Twenty style rules, each committed with its spec, under `rules/style/`.
const STYLE: [&str; 20] = [
    "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett",
    "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango",
];

fn commit(i: usize, status: Status, files: [String; 2]) -> Commit {
    Commit {
        id: format!("{i:040x}"),
        files: files.map(|f| (status, f)).to_vec(),
        bulk: false,
        odd: false,
    }
}

fn pair(group: &str, name: &str) -> [String; 2] {
    [
        format!("lib/app/rules/{group}/{name}.rb"),
        format!("spec/app/rules/{group}/{name}_spec.rb"),
    ]
}

/// The repository of the report: twenty style rules each added with its spec, then one
/// safety rule added with its own and changed with it twice more.
fn mirrored_specs() -> (Vec<Commit>, Vec<String>) {
    let mut commits: Vec<Commit> = STYLE
        .iter()
        .enumerate()
        .map(|(i, name)| commit(i, Status::Added, pair("style", name)))
        .collect();
    commits.push(commit(20, Status::Added, pair("safety", "open_call")));
    commits.extend((21..23).map(|i| commit(i, Status::Modified, pair("safety", "open_call"))));
    let tip = STYLE
        .iter()
        .flat_map(|name| pair("style", name))
        .chain(pair("safety", "open_call"))
        .collect();
    (commits, tip)
}

/// What the mined pack names for an edit of `file`: the companions of the family the engine
/// detects, a template substituted (a template without a substitution is dropped).
fn named_for(mined: &Mined, file: &str) -> Vec<String> {
    let pack = CompiledPack::compile(&mined.pack(), "mined").expect("the mined pack compiles");
    let (Detection::Family(k) | Detection::Ambiguous(k)) = pack.detect(file) else {
        panic!("no family covers {file}: {mined:?}");
    };
    let family = &pack.families[k];
    (0..family.companions.len())
        .filter_map(|i| {
            let c = &family.companions[i];
            if !c.applies_to(file) {
                None
            } else if family.has_templates() && docsuggest_schema::pack::is_template(&c.path) {
                family.substitute(i, file)
            } else {
                Some(c.path.clone())
            }
        })
        .collect()
}

#[test]
fn a_subtree_family_names_the_spec_in_the_file_s_own_subdirectory() {
    let (commits, tip) = mirrored_specs();
    let mined = mine(&commits, &tip, &MineOptions::default());
    let named = named_for(&mined, "lib/app/rules/safety/open_call.rb");
    assert!(
        named.contains(&"spec/app/rules/safety/open_call_spec.rb".to_string()),
        "{named:?} {mined:?}"
    );
    assert!(
        named
            .iter()
            .all(|p| !p.starts_with("spec/") || p.starts_with("spec/app/rules/safety/")),
        "{named:?} {mined:?}"
    );
    // The style rules keep their own specs.
    let named = named_for(&mined, "lib/app/rules/style/kilo.rb");
    assert!(
        named.contains(&"spec/app/rules/style/kilo_spec.rb".to_string()),
        "{named:?}"
    );
    // The pack the loader reads back is the one mined.
    let text = mined.pack_json();
    assert!(text.contains("{**}"), "{text}");
    let pack = docsuggest_schema::pack::Pack::from_json_str(&text, "mined").expect("valid");
    assert_eq!(pack, mined.pack());
}

#[test]
fn the_directory_template_and_a_fixed_one_are_one_companion() {
    let (commits, tip) = mirrored_specs();
    let mined = mine(&commits, &tip, &MineOptions::default());
    let family = mined
        .families
        .iter()
        .find(|f| f.rule == "lib/**/*.rb")
        .unwrap_or_else(|| panic!("no subtree family: {mined:?}"));
    // The fixed directory's template and glob are one instantiation of the directory
    // template, followed less often: it alone names the specs.
    let specs: Vec<&str> = family
        .companions
        .iter()
        .map(|c| c.path.as_str())
        .filter(|p| p.starts_with("spec/"))
        .collect();
    assert_eq!(specs, ["spec/{**}/{}_spec.rb"], "{mined:?}");
    assert_eq!(family.companions[0].commits, 23);
}
