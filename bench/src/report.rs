//! Latency samples and their percentiles, the machine a run happened on, and the targets.

use std::time::Duration;

/// Latency samples of one measurement, in nanoseconds.
#[derive(Clone, Debug, Default)]
pub struct Samples(Vec<u64>);

impl Samples {
    /// An empty set with room for `n` samples.
    pub fn with_capacity(n: usize) -> Samples {
        Samples(Vec::with_capacity(n))
    }

    /// Adds one sample.
    pub fn push(&mut self, d: Duration) {
        self.0.push(u64::try_from(d.as_nanos()).unwrap_or(u64::MAX));
    }

    /// Adds every sample of `other`.
    pub fn append(&mut self, mut other: Samples) {
        self.0.append(&mut other.0);
    }

    /// How many samples were taken.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no sample was taken.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `p`-th percentile (0..=100, nearest rank), in microseconds.
    pub fn percentile_us(&self, p: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        let mut sorted = self.0.clone();
        sorted.sort_unstable();
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1] as f64 / 1000.0
    }

    /// The mean, in microseconds.
    pub fn mean_us(&self) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        self.0.iter().map(|&n| n as f64).sum::<f64>() / self.0.len() as f64 / 1000.0
    }
}

/// The figures of one measurement, in microseconds.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Summary {
    /// Median.
    pub p50_us: f64,
    /// 99th percentile.
    pub p99_us: f64,
    /// Mean.
    pub mean_us: f64,
    /// Timed iterations.
    pub samples: usize,
}

impl Samples {
    /// The median, 99th percentile and mean.
    pub fn summary(&self) -> Summary {
        Summary {
            p50_us: self.percentile_us(50.0),
            p99_us: self.percentile_us(99.0),
            mean_us: self.mean_us(),
            samples: self.len(),
        }
    }
}

/// What a run's machine is.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Machine {
    /// Cores available to the process.
    pub nproc: usize,
    /// The CPU model from `/proc/cpuinfo`.
    pub cpu_model: String,
    /// Total memory from `/proc/meminfo`, in MiB.
    pub memory_mib: u64,
    /// The kernel release.
    pub kernel: String,
    /// `/proc/loadavg` when the run started.
    pub load_before: String,
}

impl Machine {
    /// Reads what Linux tells about this machine; unknown fields stay empty.
    pub fn probe() -> Machine {
        let read = |p: &str| std::fs::read_to_string(p).unwrap_or_default();
        let cpu_model = read("/proc/cpuinfo")
            .lines()
            .find_map(|l| l.strip_prefix("model name")?.split_once(':').map(|x| x.1))
            .unwrap_or("")
            .trim()
            .to_string();
        let memory_mib = read("/proc/meminfo")
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024);
        Machine {
            nproc: std::thread::available_parallelism().map_or(0, |n| n.get()),
            cpu_model,
            memory_mib,
            kernel: read("/proc/sys/kernel/osrelease").trim().to_string(),
            load_before: load_average(),
        }
    }
}

/// The first three fields of `/proc/loadavg` (1, 5 and 15 minute load).
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `secs` since the Unix epoch as an RFC 3339 UTC timestamp (`2026-04-14T09:30:00Z`): the
/// hook log's formatter.
pub fn utc_timestamp(secs: u64) -> String {
    docsuggest_cli::hook::rfc3339(secs)
}

/// How a ratio is judged against its target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// The ratio must be at most the target.
    AtMost,
    /// The ratio must be at least the target.
    AtLeast,
}

/// One headline ratio and its verdict.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Ratio {
    /// A short identifier.
    pub name: String,
    /// What is divided by what.
    pub definition: String,
    /// The measured ratio.
    pub value: f64,
    /// The target.
    pub target: f64,
    /// How the target bounds the ratio.
    pub bound: Bound,
    /// Whether the target is met.
    pub pass: bool,
}

impl Ratio {
    /// `numerator / denominator` judged against `target`.
    pub fn new(
        name: &str,
        definition: &str,
        numerator: f64,
        denominator: f64,
        bound: Bound,
        target: f64,
    ) -> Ratio {
        let value = numerator / denominator;
        let pass = match bound {
            Bound::AtMost => value <= target,
            Bound::AtLeast => value >= target,
        };
        Ratio {
            name: name.into(),
            definition: definition.into(),
            value,
            target,
            bound,
            pass,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_the_nearest_rank() {
        let mut s = Samples::default();
        for us in 1..=100u64 {
            s.push(Duration::from_micros(us));
        }
        for (p, expect) in [(50.0, 50.0), (99.0, 99.0), (100.0, 100.0), (0.0, 1.0)] {
            assert_eq!(s.percentile_us(p), expect, "p{p}");
        }
        assert_eq!(s.mean_us(), 50.5);
        assert!(Samples::default().percentile_us(50.0).is_nan());
    }

    #[test]
    fn timestamps_are_utc_civil_dates() {
        for (secs, expect) in [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_776_159_000, "2026-04-14T09:30:00Z"),
            (4_107_542_399, "2100-02-28T23:59:59Z"),
        ] {
            assert_eq!(utc_timestamp(secs), expect);
        }
    }

    #[test]
    fn ratios_are_judged_by_their_bound() {
        let r = Ratio::new("x", "a/b", 3.0, 2.0, Bound::AtMost, 1.5);
        assert!(r.pass);
        assert!(!Ratio::new("x", "a/b", 3.0, 2.0, Bound::AtLeast, 2.0).pass);
    }
}
