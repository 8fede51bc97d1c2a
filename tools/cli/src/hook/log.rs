//! The hook log (`<socket>.log`): one line per silence for a reason, or per daemon started,
//! stamped with an RFC 3339 UTC time; a log that cannot be written is given up on silently.

use super::options::{Harness, HookOptions};
use super::state::{Open, private_file, state_dir};
use std::io::Write;
use std::time::SystemTime;

/// The most bytes of a detail one log line carries.
const MAX_DETAIL: usize = 2000;

/// Records a `hook` command line that could not be used (`bad-arguments`) in the default
/// hook log, since a harness may show nobody the hook's stderr.
pub fn log_refused_arguments(detail: &str) {
    let options = HookOptions::new(Harness::ClaudeCode);
    if state_dir(&options).is_ok() {
        append_log(&options, "-", "bad-arguments", detail);
    }
}

/// Appends one line to the hook log; a log that cannot be written is given up on silently,
/// since the agent must never wait for it.
pub(super) fn log(options: &HookOptions, kind: &str, detail: &str) {
    append_log(options, options.harness.name(), kind, detail);
}

fn append_log(options: &HookOptions, harness: &str, kind: &str, detail: &str) {
    let secs = SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    // One line, bounded: a detail may quote what a repository or a daemon sent.
    let detail = docsuggest_schema::text::bounded(detail, MAX_DETAIL);
    let line = format!("{} hook {harness} {kind}: {detail}\n", rfc3339(secs));
    if let Ok(mut file) = private_file(&options.log(), Open::Append) {
        let _ = file.write_all(line.as_bytes());
    }
}

/// `secs` after the Unix epoch as an RFC 3339 UTC time to the second,
/// `2026-12-03T01:48:41Z` (jiff's formatting; past year 9999, `@<secs>`). The one formatter
/// of the hook log and the bench reports.
pub fn rfc3339(secs: u64) -> String {
    i64::try_from(secs)
        .ok()
        .and_then(|secs| jiff::Timestamp::from_second(secs).ok())
        .map_or_else(|| format!("@{secs}"), |t| t.to_string())
}

#[cfg(test)]
mod tests {
    use super::rfc3339;

    #[test]
    fn log_times_are_rfc3339_utc() {
        for (secs, expect) in [
            (0, "1970-01-01T00:00:00Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (1_709_294_400, "2024-03-01T12:00:00Z"),
            (1_796_262_521, "2026-12-03T01:48:41Z"),
            (4_102_444_799, "2099-12-31T23:59:59Z"),
        ] {
            assert_eq!(rfc3339(secs), expect, "{secs}");
        }
    }
}
