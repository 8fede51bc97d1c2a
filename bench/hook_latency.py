#!/usr/bin/env python3
"""End-to-end latency of `docsuggest hook`: process start, connect, judge, answer.

Usage: bench/hook_latency.py [BINARY] [N]   (default target/release/docsuggest, 200)

Warm: the daemon is already running. Cold: the daemon is stopped before each call, so the
hook starts it (spawn, open the store, bind) and waits for it. A temporary HOME holds the
workspace, the socket and the store; the daemon is stopped at the end.
"""
import json, os, signal, subprocess, sys, tempfile, time

binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/docsuggest")
n = int(sys.argv[2]) if len(sys.argv) > 2 else 200
home = tempfile.mkdtemp(prefix="hookbench-")
ws = os.path.join(home, "ws")
for f in ["Documentation/ARCHIVE-STYLE.md", "Documentation/INDEX.md",
          "Documentation/Plans/X.md", "POC-BRIEF.md", "CHANGELOG.md"]:
    os.makedirs(os.path.dirname(os.path.join(ws, f)), exist_ok=True)
    open(os.path.join(ws, f), "w").close()
socket = os.path.join(home, "docsuggest.sock")
env = dict(os.environ, HOME=home)
env.pop("RUST_LOG", None)


def event(i):
    # A new session each call, so every call is judged and answered with a note.
    return json.dumps({
        "session_id": f"bench-{i}", "transcript_path": f"{home}/t.jsonl", "cwd": ws,
        "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": f"{ws}/Documentation/Plans/X.md"},
        "tool_response": {}, "tool_use_id": f"toolu_{i}"}).encode()


def hook(i):
    start = time.perf_counter()
    out = subprocess.run([binary, "hook", "--socket", socket, "--timeout-ms", "5000"],
                         input=event(i), env=env, capture_output=True, check=True).stdout
    took = (time.perf_counter() - start) * 1e3
    assert b"additionalContext" in out, out
    return took


def stop():
    try:
        pid = int(open(socket + ".pid").read())
    except (OSError, ValueError):
        return
    os.kill(pid, signal.SIGTERM)
    while os.path.exists(socket):
        time.sleep(0.001)
    # The store lock goes with the process.
    while True:
        try:
            os.kill(pid, 0)
        except OSError:
            break
        if open(f"/proc/{pid}/stat").read().split()[2] == "Z":
            break
        time.sleep(0.001)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(p / 100 * len(xs) + 0.5) - 1))]


hook(0)
warm = [hook(i) for i in range(1, n + 1)]
cold = []
for i in range(n // 4):
    stop()
    cold.append(hook(n + 1 + i))
stop()
for name, xs in [("warm (daemon running)", warm), ("cold (hook starts the daemon)", cold)]:
    print(f"{name:32} n={len(xs):4}  p50 {pct(xs, 50):6.2f} ms  p99 {pct(xs, 99):6.2f} ms  max {max(xs):6.2f} ms")
