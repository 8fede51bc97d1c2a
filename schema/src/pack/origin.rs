//! Where a mined pack came from, recorded in the pack file: the commits it was mined from
//! and, per companion, how it did on the newer part of them that kept it. Informative only:
//! the engine never reads either; `init` and `backtest` report them (docs/PACK.md).

use serde::{Deserialize, Serialize};

/// The first-parent commits a pack was mined from: `from` to `to`, the newer part from
/// `validated` on (when the history was split).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MinedFrom {
    /// The oldest commit read.
    pub from: String,
    /// The first commit of the newer part, which chose what the pack says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub validated: Option<String>,
    /// The newest commit read (the tip mined at).
    pub to: String,
}

/// How a mined companion did on the newer part of the history, which kept it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Validated {
    /// Commits there whose change named it.
    pub named: u32,
    /// Of those, the commits that changed it too.
    pub followed: u32,
}

/// What the Stop reminder's blocking claims came to on the newer part of the history
/// (`init`), and so whether it may block here at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct BoundaryFigures {
    /// Whether a claim whose evidence clears `blockBar` may hold the agent up; `false`: every
    /// claim only informs.
    pub may_block: bool,
    /// Unfinished changes there on which the reminder would have blocked.
    pub reminders: u32,
    /// Of those, the reminders whose every named file the change really lacked.
    pub right: u32,
}

/// The problem of a pack's `boundary` figures, if any.
pub fn boundary_problem(figures: &BoundaryFigures) -> Option<String> {
    (figures.right > figures.reminders).then(|| {
        format!(
            "boundary: right {} is more than reminders {}",
            figures.right, figures.reminders
        )
    })
}

/// Whether `id` reads as a git object id (4 to 64 hexadecimal digits).
fn commit_id(id: &str) -> bool {
    (4..=64).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The problems of a pack's `mined` record, each naming its field.
pub fn mined_problems(mined: &MinedFrom) -> Vec<String> {
    let ids = [
        ("mined.from", Some(&mined.from)),
        ("mined.validated", mined.validated.as_ref()),
        ("mined.to", Some(&mined.to)),
    ];
    ids.into_iter()
        .filter_map(|(field, id)| Some((field, id?)))
        .filter(|(_, id)| !commit_id(id))
        .map(|(field, _)| format!("{field}: must be a commit id (4 to 64 hexadecimal digits)"))
        .collect()
}

/// The problem of a companion's `validated` figures, if any.
pub fn validated_problem(figures: &Validated) -> Option<String> {
    (figures.followed > figures.named).then(|| {
        format!(
            "followed {} is more than named {}",
            figures.followed, figures.named
        )
    })
}

#[cfg(test)]
mod tests {
    use crate::Pack;

    fn pack(mined: &str, validated: &str) -> String {
        format!(
            r#"{{"signature": [".dsh/doc-pack.json"], {mined} "families": [{{"name": "A",
            "rules": ["src/*.rs"], "companions": [{{"path": "tests/{{}}_test.rs",
            "prior": 0.9 {validated}}}]}}]}}"#
        )
    }

    #[test]
    fn a_mined_record_and_validated_figures_load_and_round_trip() {
        let text = pack(
            r#""mined": {"from": "00ab", "validated": "01cd", "to": "02ef"},"#,
            r#", "validated": {"named": 40, "followed": 31}"#,
        );
        let loaded = Pack::from_json_str(&text, "p.json").expect("a valid pack");
        let mined = loaded.mined.as_ref().expect("the record");
        assert_eq!(
            (
                mined.from.as_str(),
                mined.validated.as_deref(),
                mined.to.as_str()
            ),
            ("00ab", Some("01cd"), "02ef")
        );
        let figures = loaded.families[0].companions[0].validated.expect("figures");
        assert_eq!((figures.named, figures.followed), (40, 31));
        let again = serde_json::to_string(&loaded).expect("serialises");
        assert_eq!(
            Pack::from_json_str(&again, "p.json").expect("loads"),
            loaded
        );
        // A pack without them loads as before and writes neither.
        let plain = Pack::from_json_str(&pack("", ""), "p.json").expect("a valid pack");
        assert_eq!(
            (&plain.mined, plain.families[0].companions[0].validated),
            (&None, None)
        );
        let text = serde_json::to_string(&plain).expect("serialises");
        assert!(
            !text.contains("mined") && !text.contains("validated"),
            "{text}"
        );
    }

    #[test]
    fn impossible_figures_and_ids_that_are_not_commits_are_named() {
        let text = pack(
            r#""mined": {"from": "HEAD~3", "to": "02ef"},"#,
            r#", "validated": {"named": 3, "followed": 4}"#,
        );
        let err = Pack::from_json_str(&text, "p.json").expect_err("refused");
        assert_eq!(
            err.problems,
            [
                "families[0].companions[0].validated: followed 4 is more than named 3",
                "mined.from: must be a commit id (4 to 64 hexadecimal digits)",
            ]
        );
    }

    #[test]
    fn the_boundary_figures_load_round_trip_and_must_add_up() {
        let text = pack(
            r#""boundary": {"mayBlock": false, "reminders": 20, "right": 6},"#,
            "",
        );
        let loaded = Pack::from_json_str(&text, "p.json").expect("a valid pack");
        let figures = loaded.boundary.expect("the figures");
        assert_eq!(
            (figures.may_block, figures.reminders, figures.right),
            (false, 20, 6)
        );
        let again = serde_json::to_string(&loaded).expect("serialises");
        assert!(again.contains(r#""mayBlock":false"#), "{again}");
        let text = pack(
            r#""boundary": {"mayBlock": true, "reminders": 2, "right": 3},"#,
            "",
        );
        let err = Pack::from_json_str(&text, "p.json").expect_err("refused");
        assert_eq!(err.problems, ["boundary: right 3 is more than reminders 2"]);
        let text = pack(r#""boundary": {"mayBlock": true, "blocks": 2},"#, "");
        let err = Pack::from_json_str(&text, "p.json").expect_err("refused");
        assert!(err.to_string().contains("blocks"), "{err}");
    }
}
