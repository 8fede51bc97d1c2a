//! `docsuggest report` over repositories built here: every figure the page takes from the
//! backtest equals `backtest --json`'s, the page holds every section and chart and loads
//! nothing from elsewhere, what the store learned shows, and `init` says where the report is.

use crate::common::Env;
use crate::init::convention_history;
use serde_json::Value;
use std::path::Path;

/// Each `<data>` element of a page: where its figure comes from, and its value (`None`: the
/// backtest has none).
fn figures(page: &str) -> Vec<(String, Option<String>)> {
    page.split("<data ")
        .skip(1)
        .map(|element| {
            let head = format!(" {}", &element[..element.find('>').expect("a closed tag")]);
            let pointer = attribute(&head, "data-figure").expect("every figure names its source");
            (pointer, attribute(&head, "value"))
        })
        .collect()
}

/// The unescaped value of `name` in a start tag's attributes.
fn attribute(head: &str, name: &str) -> Option<String> {
    let start = head.find(&format!(" {name}=\""))? + name.len() + 3;
    let value = &head[start..start + head[start..].find('"')?];
    Some(
        value
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&"),
    )
}

/// The value at `pointer` in a backtest report: a JSON pointer in which an array of named
/// objects is indexed by name.
fn resolve<'a>(report: &'a Value, pointer: &str) -> &'a Value {
    pointer.split('/').skip(1).fold(report, |at, segment| {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        match at {
            Value::Array(items) => match segment.parse::<usize>() {
                Ok(i) => &items[i],
                Err(_) => items
                    .iter()
                    .find(|item| item["name"] == segment.as_str())
                    .unwrap_or_else(|| panic!("no element {segment} in {pointer}")),
            },
            other => other
                .get(&segment)
                .unwrap_or_else(|| panic!("no field {segment} in {pointer}")),
        }
    })
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}

#[test]
fn every_figure_on_the_page_is_the_backtest_s_own() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 80);
    let out = env.home().join("page.html");
    let printed = env.ok(&["report", utf8(&repo), "--out", utf8(&out)], b"");
    assert!(
        printed.starts_with(&format!("wrote {}", out.display())),
        "{printed}"
    );
    let page = std::fs::read_to_string(&out).expect("the page is written");
    let backtest: Value = serde_json::from_str(&env.ok(
        &[
            "backtest",
            utf8(&repo),
            "--mine",
            "--train-fraction",
            "0.75",
            "--boundary",
            "--boundary-learns",
            "--json",
        ],
        b"",
    ))
    .expect("a backtest report");

    let shown = figures(&page);
    for (pointer, value) in &shown {
        let expected = resolve(&backtest, pointer);
        match value {
            None => assert!(
                expected.is_null(),
                "{pointer}: page has none, JSON {expected}"
            ),
            Some(text) => {
                let on_page: f64 = text.parse().unwrap_or_else(|_| panic!("{pointer}: {text}"));
                assert_eq!(
                    Some(on_page),
                    expected.as_f64(),
                    "{pointer}: the page shows {text}"
                );
            }
        }
    }
    // The page shows them all: each suggester's figures, each stretch, each calibration group,
    // each end-of-change check.
    let pointers: Vec<&str> = shown.iter().map(|(p, _)| p.as_str()).collect();
    let runs = backtest["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 4, "static, learning and two co-change runs");
    for run in runs {
        let name = run["name"].as_str().expect("a name");
        for field in [
            "companion_precision",
            "nag_per_100_commits",
            "recall_trigger",
        ] {
            let pointer = format!("/runs/{name}/{field}");
            assert!(pointers.contains(&pointer.as_str()), "{pointer} missing");
        }
        let stretches = run["stretches"].as_array().expect("stretches");
        assert!(!stretches.is_empty(), "{run}");
        for k in 0..stretches.len() {
            let pointer = format!("/runs/{name}/stretches/{k}/companion_precision");
            assert!(pointers.contains(&pointer.as_str()), "{pointer} missing");
        }
        for k in 0..run["calibration"].as_array().map_or(0, Vec::len) {
            let pointer = format!("/runs/{name}/calibration/{k}/note_precision");
            assert!(pointers.contains(&pointer.as_str()), "{pointer} missing");
        }
    }
    assert!(
        pointers
            .iter()
            .any(|p| p.starts_with("/runs/learning/calibration/")),
        "the learning engine's notes are on the calibration chart"
    );
    for check in backtest["boundary"]["checks"].as_array().expect("checks") {
        let name = check["name"].as_str().expect("a name");
        let pointer = format!("/boundary/checks/{name}/within_budget/caught_share");
        assert!(pointers.contains(&pointer.as_str()), "{pointer} missing");
        // What the Stop reminder would block on: at the block bar, the second cut point.
        assert_eq!(check["cut"][1]["bar"], 0.7, "{check}");
        for field in ["reminders_right_share", "every_stop_right_share"] {
            let pointer = format!("/boundary/checks/{name}/cut/1/{field}");
            assert!(pointers.contains(&pointer.as_str()), "{pointer} missing");
        }
    }
    assert!(
        pointers
            .iter()
            .any(|p| p.starts_with("/runs/learning/companion_hit_rate/")),
        "a companion's figures from the backtest"
    );
}

#[test]
fn the_page_holds_every_section_and_chart_and_loads_nothing() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 60);
    let path = utf8(&repo);
    // A store that has learned here: the history replayed into it.
    env.ok(&["init", path], b"");
    let store = env.store("learned.redb");
    env.ok(&["bootstrap", path, "--store", utf8(&store)], b"");
    env.ok(&["report", path, "--store", utf8(&store)], b"");
    let page = std::fs::read_to_string(repo.join(".dsh/report.html")).expect("written");
    for id in [
        "scored",
        "families",
        "over-time",
        "calibration",
        "boundary",
        "store",
    ] {
        assert!(page.contains(&format!("<section id=\"{id}\">")), "{id}");
    }
    for chart in [
        "chart-precision",
        "chart-followed",
        "chart-unfollowed",
        "chart-calibration",
        "chart-boundary",
        "chart-store",
    ] {
        let at = page
            .find(&format!("<figure class=\"chart\" id=\"{chart}\">"))
            .unwrap_or_else(|| panic!("{chart} missing"));
        let figure = &page[at..at + page[at..].find("</figure>").expect("closed")];
        assert!(
            figure.contains("<svg") && figure.contains("</svg>"),
            "{chart}"
        );
    }
    // The family mined, with its companions and what the store learned of them.
    assert!(page.contains("<code>tests/test_{}.py</code>"), "{page}");
    assert!(page.contains("Rates learned"), "{page}");
    // Self-contained: no script, style sheet, font, image or frame from anywhere.
    for outside in [
        "<script",
        "<link",
        "<img",
        "<iframe",
        "@import",
        "url(",
        "src=",
        "href=\"http",
    ] {
        assert!(!page.contains(outside), "{outside} in the page");
    }

    // No store yet: the section says so, the page is made all the same.
    let other = env.home().join("other.html");
    env.ok(
        &[
            "report",
            path,
            "--out",
            utf8(&other),
            "--store",
            utf8(&env.store("none.redb")),
        ],
        b"",
    );
    let page = std::fs::read_to_string(&other).expect("written");
    assert!(page.contains("There is no store at"), "{page}");
    assert!(
        !env.store("none.redb").exists(),
        "the report creates no store"
    );
}

#[test]
fn init_says_where_the_report_is_and_writes_it_when_asked() {
    let env = Env::new();
    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    let path = utf8(&repo);
    let text = env.ok(&["init", path], b"");
    let last = text.lines().last().expect("a line");
    assert!(
        last.starts_with("report: `docsuggest report` writes") && last.contains(".dsh/report.html"),
        "{text}"
    );
    assert!(!repo.join(".dsh/report.html").exists());

    let text = env.ok(&["init", path, "--force", "--report"], b"");
    let file = repo.join(".dsh/report.html");
    assert_eq!(
        text.lines().last(),
        Some(
            format!(
                "report: {} (charts and tables of this backtest; open it in a browser)",
                file.display()
            )
            .as_str()
        ),
        "{text}"
    );
    let page = std::fs::read_to_string(&file).expect("written");
    assert!(page.contains("<section id=\"boundary\">") && page.contains("chart-boundary"));
    let json: Value =
        serde_json::from_str(&env.ok(&["init", path, "--force", "--report", "--json"], b""))
            .expect("JSON");
    assert_eq!(json["report_file"], file.display().to_string(), "{json}");
}

#[test]
fn what_cannot_be_reported_is_one_line_naming_it() {
    let env = Env::new();
    let plain = env.home().join("plain");
    std::fs::create_dir_all(&plain).expect("mkdir");
    let out = env.run(&["report", utf8(&plain)], b"");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        text.contains("not a git repository") || text.contains(utf8(&plain)),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1, "{text}");

    let repo = env.home().join("repo");
    convention_history(&repo, 40);
    let missing = env.home().join("no/such/dir/page.html");
    let out = env.run(&["report", utf8(&repo), "--out", utf8(&missing)], b"");
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        text.contains(&format!("cannot write {}", missing.display())),
        "{text}"
    );
    assert!(
        !env.home().join("no").exists(),
        "nothing made outside the named directory"
    );
}
