#!/usr/bin/env bash
# `docsuggest report` in a real browser: a repository with a history is made here with git,
# learned from (init, bootstrap into a store), reported on, and the page opened in headless
# Chromium (check.js): the DOM holds every section and chart, the page logs no error and loads
# nothing, and its screenshot is not blank. CI runs it (.ci/run); Debian's `chromium` must be
# at /usr/bin/chromium (`apt-get install -y chromium`).
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ -x /usr/bin/chromium ] || { echo "no /usr/bin/chromium: apt-get install -y chromium"; exit 1; }
cargo build --quiet -p docsuggest-cli --bin docsuggest
target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$(pwd)/$target"
bin="$target/debug/docsuggest"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
export HOME="$work/home"
mkdir -p "$HOME"
repo="$work/repo"
mkdir -p "$repo"
g() { git -C "$repo" -c user.name=ci -c user.email=ci@localhost "$@"; }
g init -q
# Every change of a module comes with its test and most with a changelog fragment; every
# fourth commit touches the README alone.
mkdir -p "$repo/src" "$repo/tests" "$repo/changelog.d"
echo 0 > "$repo/README.md"
echo 0 > "$repo/LICENSE"
for k in 0 1 2 3 4 5; do echo 0 > "$repo/src/mod$k.py"; echo 0 > "$repo/tests/test_mod$k.py"; done
g add -A && g commit -q -m "start"
for i in $(seq 1 119); do
  if (( i % 4 == 0 )); then
    echo "$i" > "$repo/README.md"
  else
    k=$(( i % 6 ))
    echo "$i" > "$repo/src/mod$k.py"
    echo "$i" > "$repo/tests/test_mod$k.py"
    (( i % 3 == 0 )) || echo "$i" > "$repo/changelog.d/$i.md"
  fi
  g add -A && g commit -q -m "change $i"
done
"$bin" init "$repo" > "$work/init.txt"
"$bin" bootstrap "$repo" --store "$work/store.redb" > /dev/null
"$bin" report "$repo" --store "$work/store.redb" --out "$work/report.html"
node "$(pwd)/tools/report/browser/check.js" "$work/report.html" "$work"
