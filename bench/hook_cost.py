#!/usr/bin/env python3
"""What a hook costs against a bare process: `bench/hook_cost.py PATH/TO/docsuggest [ROUNDS]`.

Builds a PoC workspace and a fresh HOME in a temporary directory, starts the hooks' daemon
with one hook call, then times 30 runs each of `sh -c true`, `docsuggest --version`,
`docsuggest hook --harness claude-code` and, when it is installed beside `docsuggest`, the lean
entry point `docsuggest-hook --harness claude-code`, on a `PostToolUse` `Read` of a plan
(medians), ROUNDS times (default 1) interleaved, and stops the daemon. bench/README.md
("Installing it, and what a hook costs") has the figures.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    binary = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as tmp:
        home = os.path.join(tmp, "home")
        ws = os.path.join(tmp, "ws")
        os.makedirs(home)
        for f in ["Documentation/ARCHIVE-STYLE.md", "Documentation/INDEX.md",
                  "Documentation/Plans/X.md", "POC-BRIEF.md", "CHANGELOG.md"]:
            path = os.path.join(ws, f)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()
        env = dict(os.environ, HOME=home)
        event = json.dumps({"hook_event_name": "PostToolUse", "session_id": "s", "cwd": ws,
                            "tool_name": "Read",
                            "tool_input": {"file_path": ws + "/Documentation/Plans/X.md"}}).encode()

        def run(cmd, stdin=b""):
            start = time.perf_counter()
            subprocess.run(cmd, input=stdin, env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
            return (time.perf_counter() - start) * 1000

        hook = [binary, "hook", "--harness", "claude-code"]
        run(hook, event)
        time.sleep(1)
        for _ in range(3):
            run(hook, event)
        cases = [("sh -c true", ["sh", "-c", "true"], b""),
                 ("docsuggest --version", [binary, "--version"], b""),
                 ("hook (warm daemon)", hook, event)]
        lean = os.path.join(os.path.dirname(binary), "docsuggest-hook")
        if os.path.exists(lean):
            cases.append(("docsuggest-hook (warm daemon)", [lean, "--harness", "claude-code"], event))
        rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 1
        for _ in range(rounds):
            medians = {}
            for name, cmd, stdin in cases:
                medians[name] = statistics.median(run(cmd, stdin) for _ in range(30))
            base = medians["sh -c true"]
            print("; ".join(f"{name}: median {ms:.2f} ms ({ms / base:.1f}x)"
                            for name, ms in medians.items()))
        pid_file = os.path.join(home, ".dsh/playform/docsuggest.sock.pid")
        if os.path.exists(pid_file):
            os.kill(int(open(pid_file).read().strip()), 15)


if __name__ == "__main__":
    main()
