//! Progress bars for the long jobs (reading a history, replaying it, recomputing a store).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;

/// A progress bar of `len` steps drawn with `template`, hidden below `min` steps or when
/// stderr is not a terminal (scripts and CI logs get no control characters).
pub fn bar_for(len: u64, min: u64, template: &str) -> ProgressBar {
    if len < min || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style);
    }
    bar
}
