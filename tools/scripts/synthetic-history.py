#!/usr/bin/env python3
"""A git repository with a long synthetic history, for timing `docsuggest report` (bench/README.md).

    python3 tools/scripts/synthetic-history.py DEST [--commits N] [--seed S]

Writes a new repository at DEST with `git fast-import` (seconds for 10,000 commits): a seeded
mix of conventions an agent would follow most of the time — a module under `src/<pkg>/` with
its test under `tests/<pkg>/` and often a changelog fragment, a doc page with the docs index,
a migration with the schema, a handler with its spec — and commits that touch a few files of
anything. The same arguments write the same history.
"""

import argparse
import os
import random
import subprocess
import sys

PACKAGES = ["core", "api", "cli", "store", "net", "util"]


def change(rng, i):
    """The paths one commit changes."""
    kind = rng.random()
    if kind < 0.40:
        pkg, mod = rng.choice(PACKAGES), rng.randrange(30)
        paths = [f"src/{pkg}/mod{mod}.py"]
        if rng.random() < 0.8:
            paths.append(f"tests/{pkg}/test_mod{mod}.py")
        if rng.random() < 0.6:
            paths.append(f"changelog.d/{i}.md")
    elif kind < 0.55:
        paths = [f"docs/guide/page{rng.randrange(25)}.md"]
        if rng.random() < 0.55:
            paths.append("docs/index.md")
    elif kind < 0.65:
        paths = [f"db/migrations/{i:06d}_change.sql"]
        if rng.random() < 0.85:
            paths.append("db/schema.sql")
    elif kind < 0.80:
        name = rng.randrange(20)
        paths = [f"app/handlers/h{name}.rb"]
        if rng.random() < 0.7:
            paths.append(f"spec/handlers/h{name}_spec.rb")
    else:
        paths = [f"misc/f{rng.randrange(200)}.txt" for _ in range(rng.randrange(1, 4))]
    if rng.random() < 0.05:
        paths.append("README.md")
    return sorted(set(paths))


def stream(commits, seed):
    """The fast-import stream of the history."""
    rng = random.Random(seed)
    out = []

    def data(text):
        raw = text.encode()
        out.append(b"data %d\n" % len(raw) + raw + b"\n")

    for i in range(commits):
        paths = ["README.md", "LICENSE"] if i == 0 else change(rng, i)
        out.append(b"commit refs/heads/main\nmark :%d\n" % (i + 1))
        out.append(b"committer ci <ci@localhost> %d +0000\n" % (1_600_000_000 + 3600 * i))
        data(f"change {i}")
        if i > 0:
            out.append(b"from :%d\n" % i)
        for p in paths:
            out.append(f"M 100644 inline {p}\n".encode())
            data(f"{i}\n")
    return b"".join(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest")
    parser.add_argument("--commits", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    if os.path.exists(args.dest):
        sys.exit(f"{args.dest} exists: name a new directory")
    subprocess.run(["git", "init", "-q", "-b", "main", "--", args.dest], check=True)
    subprocess.run(
        ["git", "-C", args.dest, "fast-import", "--quiet"],
        input=stream(args.commits, args.seed),
        check=True,
    )
    subprocess.run(["git", "-C", args.dest, "checkout", "-q", "main"], check=True)
    print(f"{args.dest}: {args.commits} commits")


if __name__ == "__main__":
    main()
