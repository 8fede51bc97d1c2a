#!/usr/bin/env bash
# Builds the docsuggest wheel (a debug build on the workspace's target directory, so it reuses
# what the tests built), installs it into a fresh venv, and runs the installed command with no
# Rust toolchain on PATH: `--version`, `status` in a git repository, and `hook` on an event.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/build-env"
"$work/build-env/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.5,<2"
# From this directory, so maturin reads pyproject.toml (which names the CLI crate).
(cd "$here" && CARGO_TARGET_DIR="$root/target" "$work/build-env/bin/maturin" build --quiet \
    --profile dev --out "$work/wheels" >/dev/null)
wheel="$(ls "$work"/wheels/docsuggest-*.whl)"
echo "built $(basename "$wheel")"

python3 -m venv "$work/user"
"$work/user/bin/pip" install --quiet --disable-pip-version-check --no-index "$wheel"
bin="$work/user/bin"
# Only the venv and the system: no cargo, no target directory.
export PATH="$bin:/usr/local/bin:/usr/bin:/bin"
export HOME="$work/home"
mkdir -p "$HOME"
command -v cargo >/dev/null && { echo "cargo is still on PATH"; exit 1; }
[ "$(command -v docsuggest)" = "$bin/docsuggest" ] || { echo "docsuggest is not the venv's"; exit 1; }

version="$(docsuggest --version)"
expected="docsuggest $(sed -n 's/^version = "\(.*\)"/\1/p' "$root/Cargo.toml" | head -1)"
[ "$version" = "$expected" ] || { echo "--version said '$version', expected '$expected'"; exit 1; }

repo="$work/repo"
mkdir -p "$repo/src" "$repo/tests"
git -C "$repo" init --quiet
echo x > "$repo/src/a.py"
docsuggest status "$repo/src/a.py" > "$work/status.txt"
grep -q "git work tree" "$work/status.txt" || { cat "$work/status.txt"; echo "status said no git work tree"; exit 1; }

# A Claude Code event through the installed hook: it answers (exit 0) with no daemon yet.
event='{"hook_event_name":"PostToolUse","session_id":"s","cwd":"'"$repo"'","tool_name":"Read","tool_input":{"file_path":"'"$repo"'/src/a.py"}}'
echo "$event" | docsuggest hook --harness claude-code >/dev/null
# The lean entry point is in the venv beside it, and answers the same way.
[ "$(command -v docsuggest-hook)" = "$bin/docsuggest-hook" ] || { echo "docsuggest-hook is not the venv's"; exit 1; }
echo "$event" | docsuggest-hook --harness claude-code >/dev/null
# The MCP server from the venv: the handshake and its tool list over stdio.
printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"test-wheel","version":"0"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' |
  (cd "$repo" && docsuggest mcp) > "$work/mcp.txt"
grep -q '"name":"companions"' "$work/mcp.txt" || { cat "$work/mcp.txt"; echo "mcp listed no companions tool"; exit 1; }
# The daemon that hook started stops with its socket directory; stop it now.
pid_file="$HOME/.dsh/playform/docsuggest.sock.pid"
for _ in $(seq 50); do [ -f "$pid_file" ] && break; sleep 0.1; done
[ -f "$pid_file" ] && kill -TERM "$(cat "$pid_file")" 2>/dev/null || true
echo "the wheel installs and runs: $version, status, hook, docsuggest-hook, mcp"
