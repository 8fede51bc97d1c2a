//! The ten target ratios of the headline, from the medians of its cells.

use crate::headline::{Cell, SustainedHeadline};
use docsuggest_bench::report::{Bound, Ratio};
use docsuggest_bench::rig::Result;

/// The p50 (µs) of the cells the ratios compare.
struct HeadlineMedians {
    memory: f64,
    redb: f64,
    sqlite: f64,
    redb_large: f64,
    naive: f64,
    recording: f64,
    non_matching: f64,
    store_read: f64,
    silence: f64,
}

impl HeadlineMedians {
    /// The medians of `headline_cells`, by position.
    fn of(cells: &[Cell]) -> Result<HeadlineMedians> {
        let p50: Vec<f64> = cells
            .iter()
            .map(|c| c.samples.percentile_us(50.0))
            .collect();
        let [
            memory,
            redb,
            sqlite,
            redb_large,
            naive,
            recording,
            _,
            _,
            _,
            non_matching,
            store_read,
            silence,
        ] = <[f64; 12]>::try_from(p50).map_err(|_| "twelve cells")?;
        Ok(HeadlineMedians {
            memory,
            redb,
            sqlite,
            redb_large,
            naive,
            recording,
            non_matching,
            store_read,
            silence,
        })
    }
}

/// The ten target ratios, in the order `results.json` lists them.
pub(crate) fn target_ratios(cells: &[Cell], sustained: &SustainedHeadline) -> Result<Vec<Ratio>> {
    let p50 = HeadlineMedians::of(cells)?;
    let mut ratios = backend_ratios(&p50);
    ratios.extend(call_ratios(&p50, sustained.decisions_per_second));
    Ok(ratios)
}

/// The first four target ratios: one noted call across stores, sizes and probes.
fn backend_ratios(p50: &HeadlineMedians) -> Vec<Ratio> {
    vec![
        Ratio::new(
            "redb_vs_memory",
            "judge p50, noted call, 10^3 rows, caching probe: redb / memory",
            p50.redb,
            p50.memory,
            Bound::AtMost,
            1.5,
        ),
        Ratio::new(
            "sqlite_vs_redb",
            "judge p50, noted call, 10^3 rows, caching probe: sqlite / redb",
            p50.sqlite,
            p50.redb,
            Bound::AtLeast,
            2.0,
        ),
        Ratio::new(
            "rows_1e6_vs_1e3",
            "judge p50, noted call, redb, caching probe: 10^6 rows (hot set) / 10^3 rows",
            p50.redb_large,
            p50.redb,
            Bound::AtMost,
            1.5,
        ),
        Ratio::new(
            "naive_vs_cached",
            "judge p50, noted call, redb, 10^3 rows: os probe (stats every base) / caching probe",
            p50.naive,
            p50.redb,
            Bound::AtLeast,
            4.0,
        ),
    ]
}

/// The last six target ratios: the kinds of call on redb, against each other and the store's
/// own cost, and sustained learning (`decisions_per_second`).
fn call_ratios(p50: &HeadlineMedians, decisions_per_second: f64) -> Vec<Ratio> {
    vec![
        Ratio::new(
            "recording_vs_plain",
            "judge p50, redb, 10^3 rows, caching probe: recording call (group) / noted call",
            p50.recording,
            p50.redb,
            Bound::AtMost,
            2.0,
        ),
        Ratio::new(
            "nonmatching_vs_store_read",
            "p50, redb, 10^3 rows: non-matching call (caching probe) / one snapshot and the five reads of a Plan call (hot keys)",
            p50.non_matching,
            p50.store_read,
            Bound::AtMost,
            0.4,
        ),
        Ratio::new(
            "noted_vs_store_read",
            "p50, redb, 10^3 rows: noted call (caching probe) / one snapshot and the five reads of a Plan call (hot keys)",
            p50.redb,
            p50.store_read,
            Bound::AtMost,
            2.0,
        ),
        Ratio::new(
            "silence_vs_noted",
            "judge p50, redb, 10^3 rows, caching probe, group: recorded silence / noted call",
            p50.silence,
            p50.redb,
            Bound::AtMost,
            1.5,
        ),
        Ratio::new(
            "recording_vs_noted",
            "judge p50, redb, 10^3 rows, caching probe: recording call (group) / noted call",
            p50.recording,
            p50.redb,
            Bound::AtMost,
            1.5,
        ),
        Ratio::new(
            "sustained_learning_redb",
            "sustained learning on redb (group), decisions per second (not a ratio: the value itself), against 5x 13,900",
            decisions_per_second,
            1.0,
            Bound::AtLeast,
            69_500.0,
        ),
    ]
}
