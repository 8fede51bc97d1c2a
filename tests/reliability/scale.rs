//! How much each test does (short for CI, long with `DOCSUGGEST_LONG=1`), a deterministic
//! random source, and the figures each test reports.
//!
//! Figures go to stderr (`--nocapture` shows them) and, when `DOCSUGGEST_RELIABILITY_REPORT`
//! names a file, are appended to it as JSON lines: what `RELIABILITY.md` is written from.

use std::io::Write;

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};

/// Whether the long run was asked for.
pub fn long() -> bool {
    std::env::var_os("DOCSUGGEST_LONG").is_some_and(|v| v != "0" && !v.is_empty())
}

/// `short` in CI, `long` in the long run.
pub fn pick<T>(short: T, long_run: T) -> T {
    if long() { long_run } else { short }
}

/// The seed every randomised test derives its own from: fixed, so a failure reproduces;
/// `DOCSUGGEST_SEED` explores others.
pub fn seed() -> u64 {
    std::env::var("DOCSUGGEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_d0c5)
}

/// A seeded generator (ChaCha8: the same stream on every platform) for one purpose.
#[derive(Debug)]
pub struct Rng(ChaCha8Rng);

impl Rng {
    /// A generator for one purpose (`salt`) of the run's seed.
    pub fn new(salt: u64) -> Rng {
        let mut rng = ChaCha8Rng::seed_from_u64(seed());
        rng.set_stream(salt);
        Rng(rng)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.0.random_range(0..n)
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.below(den) < num
    }
}

/// Reports one test's figures: `reliability <topic>: k=v …` on stderr, and a JSON line in the
/// report file when one is named.
pub fn report(topic: &str, figures: &[(&str, String)]) {
    let text: Vec<String> = figures.iter().map(|(k, v)| format!("{k}={v}")).collect();
    eprintln!(
        "reliability {topic} ({}): {}",
        if long() { "long" } else { "short" },
        text.join(" ")
    );
    let Some(file) = std::env::var_os("DOCSUGGEST_RELIABILITY_REPORT") else {
        return;
    };
    let mut line = serde_json::Map::new();
    line.insert("topic".into(), topic.into());
    line.insert("long".into(), long().into());
    for (k, v) in figures {
        line.insert((*k).into(), v.clone().into());
    }
    let appended = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&file)
        .and_then(|mut f| writeln!(f, "{}", serde_json::Value::Object(line)));
    if let Err(e) = appended {
        eprintln!("reliability: cannot append to the report file: {e}");
    }
}
