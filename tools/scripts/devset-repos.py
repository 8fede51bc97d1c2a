#!/usr/bin/env python3
"""Rebuilds the development set's repositories as git repositories, for `docsuggest backtest`.

usage: devset-repos.py OUT_DIR [--data DIR] [--repos a,b]

For each repo in the data folder (default ../shared/learning/data beside the checkout) it
writes OUT_DIR/<repo>, a git repository (with a work tree checked out) whose first-parent
history holds the kept commits of commits.jsonl.gz, oldest first, with the same changed paths
and statuses, and whose tip tree is files.txt.gz plus the pack at .dsh/doc-pack.json. File
contents are placeholders (a counter), enough for every change to show in a diff.

The dropped commits are not in the data, so whenever a kept commit needs a path to exist
(`M`, `D`) or not (`A`) and it does not, a fix-up commit goes before it; every fix-up commit
(and the root, and the last one that brings the tree to files.txt.gz) also touches 41 pad
files, so a backtest skips it as bulk (more than 40 files) and keeps exactly the data's
commits. Needs python3 and the git binary (fast-import, checkout).
"""
import argparse, gzip, json, os, subprocess, sys

PAD_DIR = ".backtest-pad"
PAD = 41
PACK = ".dsh/doc-pack.json"


def build(name, data, out):
    d = os.path.join(data, name)
    pack = open(os.path.join(d, "pack.json"), "rb").read()
    head = [l.rstrip("\n") for l in gzip.open(os.path.join(d, "files.txt.gz"), "rt") if l.strip()]
    commits = [json.loads(l) for l in gzip.open(os.path.join(d, "commits.jsonl.gz"), "rt")]
    repo = os.path.join(out, name)
    if os.path.exists(repo):
        raise SystemExit(f"{repo} exists: remove it first")
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True)
    stream = []
    counter = [0]
    present = set()

    def blob(path):
        counter[0] += 1
        body = f"{counter[0]}\n".encode()
        stream.append(f"M 100644 inline {path}\ndata {len(body)}\n".encode() + body + b"\n")

    def commit(message, when, ops):
        msg = message.encode()
        stream.append(f"commit refs/heads/main\ncommitter backtest <backtest@example.invalid> {when} +0000\n"
                      f"data {len(msg)}\n".encode() + msg + b"\n")
        for op, path in ops:
            if op == "D":
                stream.append(f"D {path}\n".encode())
                present.discard(path)
            else:
                blob(path)
                present.add(path)
        stream.append(b"\n")

    pads = [f"{PAD_DIR}/{i}" for i in range(PAD)]
    # Paths a kept commit modifies or deletes before any kept commit adds them existed before.
    first = {}
    for c in commits:
        for s, p in c["files"]:
            first.setdefault(p, s)
    start = commits[0]["time"] - 1 if commits else 0
    root_ops = [("M", p) for p, s in first.items() if s != "A"] + [("M", PACK)] + [("M", p) for p in pads]
    commit("root (placeholder contents)", start, root_ops)
    # The pack's real text, written as a blob of its own below.
    stream.append(f"commit refs/heads/main\ncommitter backtest <backtest@example.invalid> {start} +0000\n"
                  f"data 4\npack\n".encode())
    stream.append(f"M 100644 inline {PACK}\ndata {len(pack)}\n".encode() + pack + b"\n")
    for p in pads:
        blob(p)
    stream.append(b"\n")
    fixups = 0
    for c in commits:
        need = []
        for s, p in c["files"]:
            if s == "A" and p in present:
                need.append(("D", p))
            elif s != "A" and p not in present:
                need.append(("M", p))
        if need:
            fixups += 1
            commit("fix-up", c["time"], need + [("M", p) for p in pads])
        ops = [("D" if s == "D" else "M", p) for s, p in c["files"]]
        commit(c["sha"], c["time"], ops)
    want = set(head) | {PACK}
    last = commits[-1]["time"] if commits else start
    final = [("D", p) for p in sorted(present - want) if p not in pads and p != PACK]
    final += [("M", p) for p in sorted(want - present) if p != PACK]
    final += [("D", p) for p in pads]
    commit("tip: the paths at HEAD", last, final)
    subprocess.run(["git", "-C", repo, "fast-import", "--quiet"], input=b"".join(stream), check=True)
    subprocess.run(["git", "-C", repo, "checkout", "-q", "-f", "main"], check=True)
    print(f"{name}: {len(commits)} kept commits, {fixups} fix-ups -> {repo}", file=sys.stderr)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--data", default=os.path.join(here, "..", "..", "..", "shared", "learning", "data"))
    ap.add_argument("--repos", default=None)
    a = ap.parse_args()
    data = os.path.abspath(a.data)
    names = a.repos.split(",") if a.repos else sorted(
        d for d in os.listdir(data) if os.path.isfile(os.path.join(data, d, "pack.json")))
    os.makedirs(a.out, exist_ok=True)
    for name in names:
        build(name, data, a.out)


if __name__ == "__main__":
    main()
