//! A simulated agent session over the demo workspace, from a seed.
//!
//! The agent works task by task: it opens a doc of some family, then — with the habit's
//! probability — opens one companion within the follow-through window (after zero to two
//! other calls), else goes on with source files. Some companions are thus usually followed
//! (a plan's `Documentation/INDEX.md`, a scheme's `package.json`) and others mostly ignored
//! (the root changelog's). Turns end at random. The same seed gives the same trace.

use rand::rngs::ChaCha8Rng;
use rand::{RngExt, SeedableRng};
use serde::Serialize;

/// The agent name the trace uses.
pub const AGENT: &str = "demo-agent";

/// One kind of task: the docs it starts from, and the companion habit of the agent.
struct Task {
    /// How often the agent does it (relative weight).
    weight: u32,
    /// The docs it opens first (one is picked).
    targets: &'static [&'static str],
    /// The companion the agent opens afterwards, with `{pkg}` standing for the target's
    /// package directory, and how often.
    habit: Option<(&'static str, f64)>,
}

const TASKS: &[Task] = &[
    Task {
        weight: 30,
        targets: &[
            "Documentation/Plans/SEARCH.md",
            "Documentation/Plans/LEARN.md",
            "Documentation/Plans/STORE.md",
        ],
        habit: Some(("Documentation/INDEX.md", 0.85)),
    },
    Task {
        weight: 25,
        targets: &[
            "packages/core/SCHEME.md",
            "packages/web/SCHEME.md",
            "packages/cli/SCHEME.md",
        ],
        habit: Some(("{pkg}/package.json", 0.8)),
    },
    Task {
        weight: 15,
        targets: &["CHANGELOG.md"],
        habit: Some(("README.md", 0.15)),
    },
    Task {
        weight: 10,
        targets: &["POC-BRIEF.md"],
        habit: Some(("Documentation/Plans/SEARCH.md", 0.5)),
    },
    Task {
        weight: 10,
        targets: &["packages/core/README.md", "packages/web/README.md"],
        habit: Some(("{pkg}/package.json", 0.6)),
    },
    Task {
        weight: 5,
        targets: &["Documentation/INDEX.md"],
        habit: Some(("Documentation/ARCHIVE-STYLE.md", 0.4)),
    },
    Task {
        weight: 5,
        targets: &["Documentation/ARCHIVE-STYLE.md"],
        habit: None,
    },
];

/// Calls between tasks: source files, a pattern, an unjudged tool, a path outside.
const FILLERS: &[(&str, &str)] = &[
    ("read", "packages/core/src/index.ts"),
    ("edit", "packages/core/src/index.ts"),
    ("read", "packages/web/src/app.ts"),
    ("edit", "packages/web/src/app.ts"),
    ("read", "packages/cli/src/main.ts"),
    ("grep", "packages/*/src"),
    ("bash", "packages/core"),
    ("read", "/tmp/elsewhere/notes.md"),
];

/// One request of the trace, in the protocol's field order.
#[derive(Serialize)]
struct TraceLine<'a> {
    id: u64,
    op: &'static str,
    agent: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cwd: Option<&'a str>,
}

struct Trace<'a> {
    cwd: &'a str,
    lines: Vec<String>,
    judges: usize,
    limit: usize,
}

impl Trace<'_> {
    fn push(&mut self, op: &'static str, tool: Option<&str>, path: Option<&str>) {
        let line = TraceLine {
            id: self.lines.len() as u64 + 1,
            op,
            agent: AGENT,
            tool,
            path,
            cwd: path.map(|_| self.cwd),
        };
        // A struct of strings and numbers always encodes.
        if let Ok(text) = serde_json::to_string(&line) {
            self.lines.push(text);
        }
    }

    /// Adds a judge request, until the session has its `calls`.
    fn judge(&mut self, tool: &str, path: &str) {
        if self.judges >= self.limit {
            return;
        }
        self.push("judge", Some(tool), Some(path));
        self.judges += 1;
    }
}

fn package_of(target: &str) -> &str {
    let mut parts = target.splitn(3, '/');
    match (parts.next(), parts.next()) {
        (Some("packages"), Some(pkg)) => &target[..("packages/".len() + pkg.len())],
        _ => ".",
    }
}

fn pick_task(rng: &mut ChaCha8Rng) -> &'static Task {
    let total: u32 = TASKS.iter().map(|t| t.weight).sum();
    let mut n = rng.random_range(0..total);
    for task in TASKS {
        if n < task.weight {
            return task;
        }
        n -= task.weight;
    }
    &TASKS[0]
}

fn filler(rng: &mut ChaCha8Rng, trace: &mut Trace<'_>) {
    // Outside paths and unjudged tools are rare; source files are the bulk.
    let i = if rng.random_bool(0.9) {
        rng.random_range(0..5)
    } else {
        rng.random_range(5..FILLERS.len())
    };
    let (tool, path) = FILLERS[i];
    trace.judge(tool, path);
}

/// The trace of a session of `calls` judge requests (plus `turn` resets), as request lines
/// whose paths are relative to `cwd`.
pub fn generate(seed: u64, calls: usize, cwd: &str) -> Vec<String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut trace = Trace {
        cwd,
        lines: Vec::new(),
        judges: 0,
        limit: calls,
    };
    while trace.judges < calls {
        let task = pick_task(&mut rng);
        let target = task.targets[rng.random_range(0..task.targets.len())];
        let tool = if rng.random_bool(0.7) { "read" } else { "edit" };
        trace.judge(tool, target);
        match task.habit {
            Some((companion, p)) if rng.random_bool(p) => {
                for _ in 0..rng.random_range(0..=2) {
                    filler(&mut rng, &mut trace);
                }
                let path = companion.replace("{pkg}", package_of(target));
                let path = path.strip_prefix("./").unwrap_or(&path);
                trace.judge("read", path);
            }
            _ => {
                for _ in 0..rng.random_range(1..=4) {
                    filler(&mut rng, &mut trace);
                }
            }
        }
        if rng.random_bool(0.3) {
            trace.push("turn", None, None);
        }
    }
    trace.lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_trace() {
        let a = generate(7, 120, "/ws");
        assert_eq!(a, generate(7, 120, "/ws"));
        assert_ne!(a, generate(8, 120, "/ws"));
        let judges = a.iter().filter(|l| l.contains(r#""op":"judge""#)).count();
        assert_eq!(judges, 120);
        assert!(a.iter().any(|l| l.contains(r#""op":"turn""#)));
        assert_eq!(
            a[0],
            format!(
                r#"{{"id":1,"op":"judge","agent":"demo-agent","tool":"{}","path":"{}","cwd":"/ws"}}"#,
                serde_json::from_str::<serde_json::Value>(&a[0]).expect("json")["tool"]
                    .as_str()
                    .expect("tool"),
                serde_json::from_str::<serde_json::Value>(&a[0]).expect("json")["path"]
                    .as_str()
                    .expect("path"),
            )
        );
    }

    #[test]
    fn companions_resolve_to_the_target_package() {
        assert_eq!(package_of("packages/web/SCHEME.md"), "packages/web");
        assert_eq!(package_of("CHANGELOG.md"), ".");
    }
}
