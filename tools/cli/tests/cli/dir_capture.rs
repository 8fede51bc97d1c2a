//! A repository whose specs mirror its sources' subdirectories: `init` mines a subtree
//! family whose companion keeps the subdirectory (`spec/{**}/{}_spec.rb`), and an edit of a
//! source in a subdirectory with few commits is told its own spec, not a file of the
//! subdirectory most commits went to.

use crate::common::{Env, answers};
use docsuggest_history::testkit::repository;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

/// Twenty style rules, each added with its spec, then one safety rule added with its own and
/// changed with it twice more.
fn mirrored_history(dir: &Path) {
    let mut tree: BTreeMap<String, String> = BTreeMap::new();
    let mut states = Vec::new();
    let mut change = |tree: &mut BTreeMap<String, String>, group: &str, name: &str, v: usize| {
        tree.insert(format!("lib/app/rules/{group}/{name}.rb"), v.to_string());
        tree.insert(
            format!("spec/app/rules/{group}/{name}_spec.rb"),
            v.to_string(),
        );
        states.push(tree.clone());
    };
    for (v, name) in [
        "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
        "juliett", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
        "sierra", "tango",
    ]
    .into_iter()
    .enumerate()
    {
        change(&mut tree, "style", name, v);
    }
    for v in 0..3 {
        change(&mut tree, "safety", "open_call", v);
    }
    repository(dir, &states);
}

#[test]
fn an_edit_in_a_rare_subdirectory_is_told_its_own_spec() {
    let env = Env::new();
    let repo = env.home().join("repo");
    mirrored_history(&repo);
    let path = repo.to_str().expect("utf-8");
    env.ok(&["init", path, "--no-backtest"], b"");
    let pack = std::fs::read_to_string(repo.join(".dsh/doc-pack.json")).expect("written");
    assert!(pack.contains("spec/{**}/{}_spec.rb"), "{pack}");

    let request = json!({"id": 1, "op": "judge", "agent": "a", "tool": "edit",
        "path": repo.join("lib/app/rules/safety/open_call.rb").display().to_string(),
        "cwd": path});
    let store = env.store("s.redb").display().to_string();
    let out = env.ok(
        &["serve", "--store", &store],
        format!("{request}\n").as_bytes(),
    );
    let answer = &answers(&out)[0];
    assert_eq!(answer["ok"], true, "{answer}");
    let companions = answer["note"]["companions"].to_string();
    assert!(
        companions.contains("\"spec/app/rules/safety/open_call_spec.rb\""),
        "{answer}\n{pack}"
    );
    assert!(
        !answer.to_string().contains("spec/app/rules/style/"),
        "{answer}\n{pack}"
    );
}
