#!/usr/bin/env bash
# `scripts/dev.sh demo` ends by saying how to put the binary on PATH: the export line it prints,
# run in a shell, finds this build's plasmient by name.
#   tests/cli/dev_demo_test.sh BUILD_DIR
set -uo pipefail
build=$(realpath "${1:?usage: dev_demo_test.sh BUILD_DIR}")
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
PLASMIENT_BUILD_DIR=$build PLASMIENT_JOBS=1 "$root/scripts/dev.sh" demo --ranks 2 --steps 2 -o "$work/demo" \
  --brief --no-color >"$work/out.txt" 2>"$work/err.txt" || {
  echo "FAIL: dev.sh demo: $(cat "$work/err.txt")"
  exit 1
}
line=$(grep '^  export PATH=' "$work/out.txt") || {
  echo "FAIL: no export PATH line after the demo: $(tail -5 "$work/out.txt")"
  exit 1
}
grep -q "^  install -m755 $build/plasmient ~/.local/bin/" "$work/out.txt" || {
  echo "FAIL: no install line for $build/plasmient"
  exit 1
}
found=$(env -i HOME="$work" PATH=/usr/bin:/bin bash -c "${line%%#*}; command -v plasmient")
[[ $found == "$build/plasmient" ]] || {
  echo "FAIL: after '$line' plasmient is '$found', want $build/plasmient"
  exit 1
}
echo "dev.sh demo says: $line"
