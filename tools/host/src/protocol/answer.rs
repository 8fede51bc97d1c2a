//! The answer lines. Field order is fixed by these structs (`id`, `ok`, then the body), so
//! answers are byte-stable and hosts can pin them in golden tests.

use super::error::RequestError;
use docsuggest_engine::judge::Claim;
use docsuggest_engine::{Note, Stats};
use docsuggest_schema::{Config, Durability, RateKey, RateModel, RateRow, StoreHealth, StoreKind};
use serde::Serialize;

/// A request id as echoed: a number or a string, else `null`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Id {
    /// No id, or one that could not be read.
    #[default]
    Null,
    /// A numeric id, echoed as written.
    Number(serde_json::Number),
    /// A string id.
    Text(String),
}

/// A boundary's note and the file of the change it was given for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub(crate) struct BoundaryNote {
    pub(crate) path: String,
    pub(crate) note: Note,
    /// Each named companion's claim, in the note's order.
    pub(crate) claims: Vec<Claim>,
}

#[derive(Serialize)]
struct Success<'a, B: Serialize> {
    id: &'a Id,
    ok: bool,
    #[serde(flatten)]
    body: B,
}

#[derive(Serialize)]
struct Failure<'a> {
    id: &'a Id,
    ok: bool,
    error: ErrorBody<'a>,
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    code: &'a str,
    detail: String,
}

/// The fields of a success answer after `id` and `ok`, one variant per shape; the field
/// order of each variant is the order on the wire.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub(crate) enum Body {
    /// `hello`.
    Hello {
        protocol: u32,
        version: &'static str,
        store: StoreKind,
        #[serde(rename = "storePath")]
        store_path: Option<String>,
        durability: Durability,
    },
    /// `judge`.
    Judge {
        note: Option<Note>,
        /// A boundary peek's claims, one per companion its note names; absent otherwise.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        claims: Vec<Claim>,
        ledger: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// `boundary`: each note with the change's file it was given for.
    Boundary {
        notes: Vec<BoundaryNote>,
        ledger: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// `turn` and `configure`.
    Ledger {
        ledger: Vec<String>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<String>,
    },
    /// `flush` and `close`.
    Durable { durable: u64 },
    /// `rates`.
    Rates {
        key: String,
        #[serde(rename = "rateModel")]
        rate_model: RateModel,
        rows: Vec<RateView>,
    },
    /// `stats`.
    Stats {
        stats: Stats,
        store: StoreKind,
        startup: Vec<String>,
        /// Where the store is and what became of writes answered on memory.
        #[serde(rename = "storeHealth")]
        store_health: StoreHealth,
        /// Git work trees the engine could get no pack for, by root, and why; absent when
        /// there are none (the answer stays byte for byte what it was).
        #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
        unmined: std::collections::BTreeMap<String, String>,
    },
}

/// One learned rate row as hosts and the CLI show it.
#[derive(Clone, Debug, PartialEq, Serialize, serde::Deserialize)]
pub struct RateView {
    /// The family.
    pub family: String,
    /// The companion, or `null` for the family's own row.
    pub companion: Option<String>,
    /// Whether this is the companion's boundary row: what change boundaries saw of it, apart
    /// from its own row (its notes on edits). Written only when it is.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub boundary: bool,
    /// The rate under the rate model in force.
    pub rate: f64,
    /// The step-rule value.
    pub step: f64,
    /// Accepts seen.
    pub accepts: u64,
    /// Rejects seen.
    pub rejects: u64,
    /// Shadow hits seen: watched while unnamed (a silence, or a companion left out), touched.
    #[serde(rename = "shadowHits")]
    pub shadow_hits: u64,
    /// Shadow misses seen: watched while unnamed, not touched.
    #[serde(rename = "shadowMisses")]
    pub shadow_misses: u64,
    /// Hits (accepts and shadow hits) weighed by age: each newer observation of the row
    /// halves an older one's weight every 20 (what the evidence model's rate reads).
    #[serde(rename = "recentHits")]
    pub recent_hits: f64,
    /// Misses (rejects and shadow misses), weighed the same way.
    #[serde(rename = "recentMisses")]
    pub recent_misses: f64,
    /// Whether the evidence model leaves this companion out of notes now (a boundary row:
    /// out of what change boundaries name, on what they saw of it).
    #[serde(rename = "leftOut")]
    pub left_out: bool,
}

/// How rows are read for a view: the rate model, and the evidence model's bounds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Reading {
    /// The rate model.
    pub model: RateModel,
    /// A companion rated below this is left out (evidence model only).
    pub prune_below: f64,
    /// A companion whose boundary row has seen it, rated below this, is left out at change
    /// boundaries (evidence model only).
    pub follow_threshold: f64,
}

impl Reading {
    /// How `config` reads rows.
    pub fn of(config: &Config) -> Reading {
        Reading {
            model: config.rate_model,
            prune_below: config.prune_below,
            follow_threshold: config.follow_threshold,
        }
    }

    /// Whether the row of `key` is a companion the evidence model leaves out: of notes, or,
    /// for a boundary row whose evidence outweighs the prior, of what boundaries name.
    pub fn leaves_out(&self, key: &RateKey, row: &RateRow) -> bool {
        let rate = row.rate(RateModel::Evidence);
        let below = if key.boundary_companion().is_some() {
            row.outweighs_prior() && rate < self.follow_threshold
        } else {
            rate < self.prune_below
        };
        self.model == RateModel::Evidence && !key.companion.is_empty() && below
    }
}

impl RateView {
    /// The view of one stored row under `reading`.
    pub fn new(key: &RateKey, row: &RateRow, reading: Reading) -> RateView {
        let boundary = key.boundary_companion();
        let companion = boundary.unwrap_or(&key.companion);
        RateView {
            family: key.family.clone(),
            companion: (!companion.is_empty()).then(|| companion.to_string()),
            boundary: boundary.is_some(),
            rate: row.rate(reading.model),
            step: row.step,
            accepts: row.accepts,
            rejects: row.rejects,
            shadow_hits: row.shadow_hits,
            shadow_misses: row.shadow_misses,
            recent_hits: row.recent_hits,
            recent_misses: row.recent_misses,
            left_out: reading.leaves_out(key, row),
        }
    }

    /// The rows of one workspace key, in key order (family row first, then companions).
    pub fn of_workspace(rows: &[(RateKey, RateRow)], key: &str, reading: Reading) -> Vec<RateView> {
        rows.iter()
            .filter(|(k, _)| k.workspace == key)
            .map(|(k, r)| RateView::new(k, r, reading))
            .collect()
    }
}

/// A success line.
pub(crate) fn success(id: &Id, body: impl Serialize) -> String {
    let line = Success { id, ok: true, body };
    serde_json::to_string(&line).unwrap_or_else(|e| {
        failure(
            id,
            "internal",
            format!("the answer could not be encoded: {e}"),
        )
    })
}

/// An error line for `error`.
pub(crate) fn error(id: &Id, error: &RequestError) -> String {
    failure(id, error.code(), error.to_string())
}

fn failure(id: &Id, code: &str, detail: String) -> String {
    let line = Failure {
        id,
        ok: false,
        error: ErrorBody { code, detail },
    };
    // Every field is a string or an id, which always encode.
    serde_json::to_string(&line).unwrap_or_else(|_| {
        r#"{"id":null,"ok":false,"error":{"code":"internal","detail":"unencodable answer"}}"#.into()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_byte_stable() {
        let id = Id::Number(7.into());
        assert_eq!(
            success(&id, Body::Durable { durable: 3 }),
            r#"{"id":7,"ok":true,"durable":3}"#
        );
        assert_eq!(
            success(
                &Id::Text("a".into()),
                Body::Ledger {
                    ledger: vec!["x".into()],
                    warnings: vec![]
                }
            ),
            r#"{"id":"a","ok":true,"ledger":["x"]}"#
        );
        assert_eq!(
            success(
                &Id::Null,
                Body::Judge {
                    note: None,
                    claims: vec![],
                    ledger: vec![],
                    warnings: vec!["w".into()]
                }
            ),
            r#"{"id":null,"ok":true,"note":null,"ledger":[],"warnings":["w"]}"#
        );
        assert_eq!(
            success(
                &id,
                Body::Rates {
                    key: "w".into(),
                    rate_model: RateModel::Step,
                    rows: vec![]
                }
            ),
            r#"{"id":7,"ok":true,"key":"w","rateModel":"step","rows":[]}"#
        );
        assert_eq!(
            error(&id, &RequestError::UnknownOp("x".into())),
            r#"{"id":7,"ok":false,"error":{"code":"unknown-op","detail":"unknown op \"x\" (known: hello, judge, peek, boundary, turn, configure, flush, rates, stats, close)"}}"#
        );
    }

    #[test]
    fn rate_views_name_family_rows_with_null() {
        let row = RateRow {
            step: 0.5,
            accepts: 2,
            rejects: 1,
            recent_hits: 1.5,
            recent_misses: 1.0,
            ..RateRow::default()
        };
        let rows = vec![
            (RateKey::family("w", "Plan"), row),
            (RateKey::companion("w", "Plan", "INDEX.md"), row),
            (RateKey::family("other", "Plan"), row),
        ];
        let beta = Reading {
            model: RateModel::Beta,
            prune_below: 0.25,
            follow_threshold: 0.55,
        };
        let views = RateView::of_workspace(&rows, "w", beta);
        assert_eq!(views.len(), 2);
        assert_eq!(
            serde_json::to_string(&views[0]).expect("encodes"),
            r#"{"family":"Plan","companion":null,"rate":0.5,"step":0.5,"accepts":2,"rejects":1,"shadowHits":0,"shadowMisses":0,"recentHits":1.5,"recentMisses":1.0,"leftOut":false}"#
        );
        assert_eq!(views[1].companion.as_deref(), Some("INDEX.md"));
    }

    /// A companion's boundary row shows the companion as its own row does, marked as the
    /// boundary's, and is left out by the boundary's rule: under `followThreshold` once its
    /// evidence outweighs the prior.
    #[test]
    fn a_boundary_row_shows_its_companion_and_the_boundarys_rule() {
        let declined = |misses: usize| {
            let miss = docsuggest_schema::RateMove {
                key: RateKey::at_boundary("w", "Plan", "INDEX.md"),
                event: docsuggest_schema::RateEvent::Reject,
                step: -0.2,
            };
            docsuggest_schema::rate::fold(None, std::iter::repeat_n(&miss, misses))
        };
        let rows = vec![
            (RateKey::companion("w", "Plan", "INDEX.md"), declined(1)),
            (RateKey::at_boundary("w", "Plan", "INDEX.md"), declined(1)),
            (
                RateKey::at_boundary("w", "Plan", "POC-BRIEF.md"),
                declined(4),
            ),
        ];
        let reading = Reading::of(&Config::default());
        let views = RateView::of_workspace(&rows, "w", reading);
        let shown: Vec<_> = views
            .iter()
            .map(|v| (v.companion.as_deref(), v.boundary, v.left_out))
            .collect();
        assert_eq!(
            shown,
            [
                (Some("INDEX.md"), false, false),
                (Some("INDEX.md"), true, false),
                (Some("POC-BRIEF.md"), true, true),
            ]
        );
        let json = serde_json::to_string(&views[1]).expect("encodes");
        assert!(
            json.starts_with(r#"{"family":"Plan","companion":"INDEX.md","boundary":true,"#),
            "{json}"
        );
        assert!(
            !serde_json::to_string(&views[0])
                .expect("encodes")
                .contains("boundary")
        );
    }
}
