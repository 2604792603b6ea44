#!/usr/bin/env bash
# One entry point for newcomers and CI:
#   scripts/dev.sh demo   install what is missing, build, run `plasmient demo`
#   scripts/dev.sh test   install what is missing, build, run the whole test suite
#   scripts/dev.sh build  install what is missing, build
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${PLASMIENT_BUILD_DIR:-build}
jobs=${PLASMIENT_JOBS:-$(nproc)}

build() {
  scripts/install-deps.sh
  cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build_dir" -j "$jobs"
}

case "${1:-}" in
  demo)
    build
    shift
    exec "$build_dir/plasmient" demo "$@"
    ;;
  test)
    build
    if [[ ! -d ../shared/traces ]]; then
      echo "plasmient: ../shared/traces is absent: tests on real traces will be skipped (they say so)" >&2
    fi
    cd "$build_dir"
    ctest --output-on-failure -j "$jobs" --timeout 600
    ;;
  build)
    build
    ;;
  *)
    echo "usage: scripts/dev.sh demo|test|build" >&2
    exit 2
    ;;
esac
