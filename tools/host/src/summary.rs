//! The summary of a replayed session: what the engine decided, how often the agent followed,
//! and how long the judge took.

use docsuggest_engine::Stats;
use docsuggest_schema::StoreKind;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::time::Duration;

/// Judge latency, in microseconds (nearest-rank percentiles).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Latency {
    /// Judge calls measured.
    pub samples: u64,
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Slowest.
    pub max: f64,
}

impl Latency {
    /// The percentiles of `times` (all zero when there are none).
    pub fn of(times: &[Duration]) -> Latency {
        let mut micros: Vec<f64> = times.iter().map(|d| d.as_nanos() as f64 / 1000.0).collect();
        micros.sort_by(f64::total_cmp);
        let rank = |p: f64| -> f64 {
            if micros.is_empty() {
                return 0.0;
            }
            let i = ((p * micros.len() as f64).ceil() as usize).clamp(1, micros.len()) - 1;
            micros[i]
        };
        Latency {
            samples: micros.len() as u64,
            p50: rank(0.50),
            p99: rank(0.99),
            max: micros.last().copied().unwrap_or(0.0),
        }
    }
}

/// What one replay (or demo session) amounted to.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Request lines answered (blank lines are not requests).
    pub requests: u64,
    /// Error answers by code.
    pub errors: BTreeMap<String, u64>,
    /// The engine's counts; on the wire under the summary's names (`accepts`, `rejects`).
    #[serde(flatten, serialize_with = "summary_names")]
    pub counts: Stats,
    /// `accepts / (accepts + rejects)`; `null` when there were neither.
    pub precision: Option<f64>,
    /// Judge latency in microseconds.
    pub latency_us: Latency,
    /// The store the session ended on.
    pub store: StoreKind,
}

impl Summary {
    /// The summary of a finished session.
    pub fn new(
        stats: &Stats,
        requests: u64,
        errors: BTreeMap<String, u64>,
        times: &[Duration],
        store: StoreKind,
    ) -> Summary {
        let decided = stats.accepted + stats.rejected;
        Summary {
            requests,
            errors,
            counts: stats.clone(),
            precision: (decided > 0).then(|| stats.accepted as f64 / decided as f64),
            latency_us: Latency::of(times),
            store,
        }
    }

    /// The summary as one JSON object.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self)
            .unwrap_or_else(|e| format!("{{\"error\":{:?}}}", e.to_string()))
    }
}

/// The engine's counts as the summary names them: `accepted` and `rejected` are `accepts`
/// and `rejects` here, as in the rate rows.
fn summary_names<S: serde::Serializer>(stats: &Stats, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::Error as _;
    let serde_json::Value::Object(mut fields) =
        serde_json::to_value(stats).map_err(S::Error::custom)?
    else {
        return Err(S::Error::custom("the engine's counts are not an object"));
    };
    for (engine, summary) in [("accepted", "accepts"), ("rejected", "rejects")] {
        if let Some(value) = fields.remove(engine) {
            fields.insert(summary.into(), value);
        }
    }
    fields.serialize(serializer)
}

fn counts(map: &BTreeMap<String, u64>) -> String {
    let total: u64 = map.values().sum();
    if map.is_empty() {
        return "0".into();
    }
    let parts: Vec<String> = map.iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!("{total} ({})", parts.join(", "))
}

impl fmt::Display for Summary {
    /// The human table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut out = String::new();
        let mut row = |name: &str, value: String| {
            let _ = writeln!(out, "  {name:<15} {value}");
        };
        let errors = if self.errors.is_empty() {
            "no errors".to_string()
        } else {
            format!("errors: {}", counts(&self.errors))
        };
        row("requests", format!("{} ({errors})", self.requests));
        row("store", self.store.to_string());
        row("judged calls", self.counts.judged.to_string());
        row("notes", self.counts.notes.to_string());
        row("accepts", self.counts.accepted.to_string());
        row("rejects", self.counts.rejected.to_string());
        row("abandoned", self.counts.abandoned.to_string());
        row(
            "precision",
            match self.precision {
                Some(p) => format!("{p:.2} (accepts / (accepts + rejects))"),
                None => "n/a (no accept or reject yet)".into(),
            },
        );
        row("abstained", counts(&self.counts.abstained));
        row("suppressed", counts(&self.counts.suppressed));
        let l = &self.latency_us;
        row(
            "judge latency",
            format!(
                "p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs ({} calls)",
                l.p50, l.p99, l.max, l.samples
            ),
        );
        f.write_str(&out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn nearest_rank_percentiles() {
        let l = Latency::of(&[us(4), us(1), us(3), us(2)]);
        assert_eq!((l.samples, l.p50, l.p99, l.max), (4, 2.0, 4.0, 4.0));
        let times: Vec<Duration> = (1..=200).map(us).collect();
        let l = Latency::of(&times);
        assert_eq!((l.p50, l.p99, l.max), (100.0, 198.0, 200.0));
        assert_eq!(Latency::of(&[]), Latency::default());
    }

    #[test]
    fn precision_and_table() {
        let mut stats = Stats {
            judged: 10,
            notes: 3,
            accepted: 1,
            rejected: 3,
            abandoned: 1,
            ..Stats::default()
        };
        stats.abstained.insert("no-signal".into(), 4);
        stats.abstained.insert("low-confidence".into(), 1);
        let s = Summary::new(&stats, 12, BTreeMap::new(), &[us(5)], StoreKind::Memory);
        assert_eq!(s.precision, Some(0.25));
        let table = s.to_string();
        assert!(
            table.contains("  precision       0.25 (accepts / (accepts + rejects))\n"),
            "{table}"
        );
        assert!(
            table.contains("  abstained       5 (low-confidence 1, no-signal 4)\n"),
            "{table}"
        );
        assert!(table.contains("  suppressed      0\n"), "{table}");
        let json: serde_json::Value = serde_json::from_str(&s.to_json()).expect("json");
        assert_eq!(
            (json["accepts"].as_u64(), json["rejects"].as_u64()),
            (Some(1), Some(3))
        );
        assert_eq!(
            (json["judged"].as_u64(), json["abandoned"].as_u64()),
            (Some(10), Some(1))
        );
        assert!(
            json.get("accepted").is_none() && json.get("rejected").is_none(),
            "{json}"
        );
        assert_eq!(json["abstained"]["no-signal"], 4);
        let none = Summary::new(&Stats::default(), 0, BTreeMap::new(), &[], StoreKind::Redb);
        assert_eq!(none.precision, None);
        assert!(none.to_json().contains("\"precision\": null"));
    }
}
