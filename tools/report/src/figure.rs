//! A figure on the page beside where it came from.
//!
//! Every figure read from the backtest is shown in a `<data>` element: its `value` is the
//! number exactly as the backtest holds it (Rust's shortest round-trip text of the `f64`, or
//! the count), absent for a figure the backtest leaves `null`, and its `data-figure` is where
//! it is in `backtest --json`: a JSON pointer (RFC 6901) in which an array of named objects
//! (`runs`, `boundary/checks`) is indexed by the element's `name`. What is shown is the
//! value rounded for people.

use maud::{Markup, html};
use std::fmt::Display;

/// Where a figure is in `backtest --json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source(String);

impl Source {
    /// The report itself.
    pub fn root() -> Source {
        Source(String::new())
    }

    /// The field, element or key `segment` of this one (escaped as a pointer segment).
    pub fn at(&self, segment: impl Display) -> Source {
        let segment = segment.to_string().replace('~', "~0").replace('/', "~1");
        Source(format!("{}/{segment}", self.0))
    }

    /// The pointer.
    pub fn pointer(&self) -> &str {
        &self.0
    }
}

/// A share (0..1) as a percentage, or a dash for none.
pub fn share(source: &Source, value: Option<f64>) -> Markup {
    shown(source, value, percent)
}

/// A figure per 100 commits, one decimal.
pub fn per_100(source: &Source, value: f64) -> Markup {
    shown(source, Some(value), |v| format!("{v:.1}"))
}

/// A confidence or a bar (0..1), two decimals, or a dash for none.
pub fn fraction(source: &Source, value: Option<f64>) -> Markup {
    shown(source, value, |v| format!("{v:.2}"))
}

/// A count.
pub fn count(source: &Source, value: u64) -> Markup {
    html! { data value=(value) data-figure=(source.pointer()) { (value) } }
}

/// `value` in a `<data>` element naming `source`, shown as `show` makes it.
fn shown(source: &Source, value: Option<f64>, show: impl Fn(f64) -> String) -> Markup {
    match value {
        Some(v) => html! { data value=(v) data-figure=(source.pointer()) { (show(v)) } },
        None => html! { data data-figure=(source.pointer()) { "–" } },
    }
}

/// A share as a whole percentage (one decimal under 1 %, so a small share is not shown as 0).
pub fn percent(v: f64) -> String {
    let p = v * 100.0;
    if p > 0.0 && p < 1.0 {
        format!("{p:.1}%")
    } else {
        format!("{p:.0}%")
    }
}

/// The 95 % interval of a share `p` observed over `n` trials, as "low–high%".
pub fn interval(p: f64, n: f64) -> String {
    let (low, high) = docsuggest_history::init::wilson(p, n);
    format!("{:.0}–{:.0}%", low * 100.0, high * 100.0)
}

/// A backtest run's name in plain words, short enough for a legend.
pub fn suggester(name: &str) -> String {
    match name {
        "learning" => "learning engine".into(),
        "static" => "static engine".into(),
        "co-change k2 c0.5" => "co-change, strict".into(),
        "co-change k1 c0.2" => "co-change, loose".into(),
        "co-change k2" => "co-change".into(),
        other => other.into(),
    }
}

/// A commit id cut to 12 characters, as the text reports show them.
pub fn short(id: &str) -> &str {
    id.get(..12).unwrap_or(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_figure_keeps_its_exact_value_and_where_it_came_from() {
        let source = Source::root()
            .at("runs")
            .at("learning")
            .at("companion_hit_rate")
            .at("Src tests/test_{}.py~");
        assert_eq!(
            source.pointer(),
            "/runs/learning/companion_hit_rate/Src tests~1test_{}.py~0"
        );
        let third = 1.0 / 3.0;
        assert_eq!(
            share(&source, Some(third)).into_string(),
            format!(
                "<data value=\"{third}\" data-figure=\"{}\">33%</data>",
                source.pointer()
            )
        );
        assert_eq!(
            share(&Source::root().at("x"), None).into_string(),
            "<data data-figure=\"/x\">–</data>"
        );
        assert_eq!(percent(0.004), "0.4%");
        assert_eq!(percent(0.0), "0%");
    }
}
