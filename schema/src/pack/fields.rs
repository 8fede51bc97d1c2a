//! The fields a pack file may hold, checked before its shape: every unknown field of every
//! object is named (with the known field it most likely meant), not only the first serde meets.

use crate::suggest;
use serde_json::{Map, Value};

/// The fields of the pack object.
pub(super) const PACK: [&str; 4] = ["signature", "families", "mined", "boundary"];
/// The fields of a family.
pub(super) const FAMILY: [&str; 5] = ["name", "kind", "rules", "threshold", "companions"];
/// The fields of a companion.
pub(super) const COMPANION: [&str; 4] = ["path", "prior", "for", "validated"];

/// Takes every unknown field out of `value` (so the shape check that follows sees only known
/// ones) and answers a problem for each, in file order by object.
pub(super) fn take_unknown(value: &mut Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(root) = value.as_object_mut() else {
        return out;
    };
    take(root, "", &PACK, &mut out);
    let Some(families) = root.get_mut("families").and_then(Value::as_array_mut) else {
        return out;
    };
    for (i, family) in families.iter_mut().enumerate() {
        let Some(family) = family.as_object_mut() else {
            continue;
        };
        take(family, &format!("families[{i}]."), &FAMILY, &mut out);
        let Some(companions) = family.get_mut("companions").and_then(Value::as_array_mut) else {
            continue;
        };
        for (j, companion) in companions.iter_mut().enumerate() {
            if let Some(companion) = companion.as_object_mut() {
                let at = format!("families[{i}].companions[{j}].");
                take(companion, &at, &COMPANION, &mut out);
            }
        }
    }
    out
}

fn take(map: &mut Map<String, Value>, at: &str, known: &[&str], out: &mut Vec<String>) {
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .cloned()
        .collect();
    for key in unknown {
        map.remove(&key);
        out.push(format!(
            "{at}{key}: {}",
            suggest::unknown("unknown field", &key, known)
        ));
    }
}
