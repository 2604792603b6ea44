#!/usr/bin/env bash
# Regenerates the golden verdict corpus (tests/golden/*.json) from this checkout: builds the CLI
# in the build folder (default build), rewrites the files, and leaves the diff for a reviewer:
#   scripts/golden-update.sh [BUILD] && git diff --stat tests/golden
# The only way those files change; the ctest `golden` (label golden) compares against them.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-${PLASMIENT_BUILD_DIR:-build}}
if [[ ! -f $build/CMakeCache.txt ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPLASMIENT_UNITY_BUILD=ON >/dev/null
fi
cmake --build "$build" -j "${PLASMIENT_JOBS:-$(nproc)}" --target plasmient
tests/golden/golden.sh update "$build/plasmient"
git --no-pager diff --stat -- tests/golden
