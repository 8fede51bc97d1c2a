#!/usr/bin/env python3
"""A whole-change co-change check, scored as `backtest --boundary` scores the engine's.

What a change-boundary check could know beyond the per-call note: the whole change. Rules
are learned from every earlier commit (prequentially: the history before the 75 % cut, then
each scored commit once it is scored), with antecedents from any file of the change — the
file itself, its directory and extension, and its directory, extension and status (added,
modified, deleted) — and consequents that are a file, or the file of another directory
named like the antecedent (`src/x.py` -> `tests/test_x.py`). A rule's score is its
confidence shrunk toward 0 (`both / (seen + 3)`); the check names every consequent a rule
of the change scores at the bar that the change lacks.

Scored on the commits after the cut that touch a family of the hand-written pack, as
docs/BACKTEST.md describes: false alarms on each real commit, and each companion file of
the commit (a file a family of another of its files names) left out in turn, caught when a
rule from the rest names it. Prints, per repository, false alarms per 100 commits and the
share caught at several bars, and the best share within 10 alarms per 100 commits.

    python3 tools/scripts/boundary-rules.py [REPO ...]   # default: all eleven
"""
import collections
import gzip
import json
import os
import re
import sys

HISTORIES = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "learning", "histories")
REPOS = "attrs changesets rust-clippy opentelemetry-go jekyll detekt vitest php-cs-fixer lintr tokio black".split()
SHRINK = 3
SUPPORT = 2
BUDGET = 10.0


def glob_re(glob):
    # compare.py's reading of a pack glob; a `{}` template stands for any name here.
    s = re.escape(glob.replace("{}", "*"))
    s = s.replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
    return re.compile("^(?:.*/)?" + s + "$")


def directory(path):
    return path.rsplit("/", 1)[0] if "/" in path else ""


def extension(path):
    name = path.rsplit("/", 1)[-1]
    return name.split(".", 1)[1] if "." in name else ""


def word(path):
    """The name a file shares with its test or source: affixes and case folded away."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    stem = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", stem).lower()
    return re.sub(r"^(test_|test-|tests_)|(_test|_tests|_spec|-test)$", "", stem)


def antecedents(path, status):
    return [("file", path), ("dir", directory(path), extension(path)),
            ("dir-status", directory(path), extension(path), status)]


def held(files):
    """What a change holds, as consequents name it."""
    out = {("path", f) for f in files}
    out |= {("named", directory(f), extension(f), word(f)) for f in files}
    return out


class Rules:
    def __init__(self):
        self.seen = collections.Counter()
        self.both = collections.defaultdict(collections.Counter)

    def named(self, change, leave_out=None):
        """Each consequent the rules of `change` (less `leave_out`) name, with its best score."""
        best = {}
        for path, status in change.items():
            if path == leave_out:
                continue
            for a in antecedents(path, status):
                n = self.seen.get(a, 0)
                if n < SUPPORT:
                    continue
                for c, b in self.both[a].items():
                    if b < SUPPORT:
                        continue
                    target = ("named", c[1], c[2], word(path)) if c[0] == "named" else c
                    best[target] = max(best.get(target, 0.0), b / (n + SHRINK))
        return best

    def learn(self, change):
        # Each antecedent and each pair once per commit, however many files raise it.
        pairs = set()
        for path, status in change.items():
            for a in antecedents(path, status):
                for other in change:
                    if other == path:
                        continue
                    pairs.add((a, ("path", other)))
                    if word(other) == word(path):
                        pairs.add((a, ("named", directory(other), extension(other))))
        for a in {a for p, s in change.items() for a in antecedents(p, s)}:
            self.seen[a] += 1
        for a, c in pairs:
            self.both[a][c] += 1


def run(name):
    folder = os.path.join(HISTORIES, name)
    commits = [json.loads(line) for line in gzip.open(os.path.join(folder, "commits.jsonl.gz"), "rt")]
    pack = json.load(open(os.path.join(folder, "pack.json")))
    families = [([glob_re(r) for r in f["rules"]],
                 [glob_re(c["path"] if isinstance(c, dict) else c) for c in f["companions"]])
                for f in pack["families"]]
    cut = 3 * len(commits) // 4
    rules = Rules()
    scored = []  # per scored commit: (alarm scores, caught scores)
    for i, commit in enumerate(commits):
        change = {f[-1]: f[0][0] for f in commit["files"]}
        if not change or len(change) > 40:
            continue
        in_family = any(any(r.match(f) for r in rs) for f in change for rs, _ in families)
        if i >= cut and in_family:
            holds = held(change)
            alarms = [s for t, s in rules.named(change).items() if t not in holds]
            caught = []
            for left in change:
                companion = any(any(c.match(left) for c in cs) and
                                any(any(r.match(o) for r in rs) for o in change if o != left)
                                for rs, cs in families)
                if companion:
                    named = rules.named(change, leave_out=left)
                    targets = [("path", left), ("named", directory(left), extension(left), word(left))]
                    caught.append(max(named.get(t, 0.0) for t in targets))
            scored.append((alarms, caught))
        rules.learn(change)
    commits_scored, misses = len(scored), sum(len(c) for _, c in scored)

    def at(bar):
        alarms = sum(sum(s >= bar for s in a) for a, _ in scored)
        caught = sum(sum(s >= bar for s in c) for _, c in scored)
        return 100 * alarms / max(commits_scored, 1), 100 * caught / max(misses, 1)

    bars = [step / 100 for step in range(30, 101)]
    within = [(c, bar) for bar in bars for fa, c in [at(bar)] if fa <= BUDGET]
    best = max(within, default=(0.0, None))
    points = "  ".join(f"{bar:.1f}: {fa:.1f} / {c:.1f} %" for bar in (0.5, 0.7, 0.9) for fa, c in [at(bar)])
    print(f"{name}: {commits_scored} commits, {misses} misses; false alarms per 100 / caught at bar {points}; "
          f"within {BUDGET:.0f} alarms: {best[0]:.1f} % (bar {best[1]})", flush=True)


if __name__ == "__main__":
    for repo in sys.argv[1:] or REPOS:
        run(repo)
