#!/usr/bin/env bash
# One entry point for newcomers and CI:
#   scripts/dev.sh demo   install what the CLI needs, build the CLI only, run `plasmient demo`,
#                         then say how to put the binary on PATH
#   scripts/dev.sh test   install what is missing, then what CI runs: the format check, the build
#                         with warnings as errors, the boundary check, clang-tidy over src/ (the
#                         files changed since .tidy-clean's commit), every unit test under
#                         ASan+UBSan, the threaded code's tests under ThreadSanitizer, a fuzz smoke
#                         of each reader, the whole test suite with the golden corpus (docs/checks.md)
#   scripts/dev.sh test-all  what `test` runs, with clang-tidy over every file of src/
#   scripts/dev.sh tidy-all  clang-tidy over every source of src/; when it is clean and src/ has
#                         no uncommitted change, records HEAD in .tidy-clean (commit it)
#   scripts/dev.sh build  install what is missing, build
# PLASMIENT_FUZZ_SECONDS (default 60) bounds each fuzz target's run.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${PLASMIENT_BUILD_DIR:-build}
jobs=${PLASMIENT_JOBS:-$(nproc)}

# build TYPE [CMAKE_ARGS...]: a folder keeps the build type it was first configured with unless
# PLASMIENT_BUILD_TYPE names one; a fresh folder gets TYPE. `test` builds Release (-O3, as
# RelWithDebInfo here, without the debug info that is a third of the compile time); `build`
# builds RelWithDebInfo, for profiles with source lines.
build() {
  local type=$1
  shift
  local type_arg=()
  if [[ -n ${PLASMIENT_BUILD_TYPE:-} ]]; then
    type_arg=(-DCMAKE_BUILD_TYPE="$PLASMIENT_BUILD_TYPE")
  elif [[ ! -f $build_dir/CMakeCache.txt ]]; then
    type_arg=(-DCMAKE_BUILD_TYPE="$type")
  fi
  cmake -S . -B "$build_dir" -G Ninja "${type_arg[@]}" "$@" >/dev/null
  cmake --build "$build_dir" -j "$jobs"
}

step() {  # step NAME CMD...: runs CMD, says how long it took; the first failing step ends the run
  local name=$1 start=$SECONDS
  shift
  echo "== dev.sh test: $name" >&2
  "$@"
  echo "== dev.sh test: $name done in $((SECONDS - start)) s" >&2
}

# The demo needs the plasmient binary alone: no test or benchmark packages, targets or browser.
# It builds in the build folder when one is configured (the libraries are shared), else in its own.
build_demo() {
  scripts/install-deps.sh --demo
  demo_dir=$build_dir
  if [[ ! -f $build_dir/CMakeCache.txt ]]; then
    demo_dir=$build_dir-demo
    cmake -S . -B "$demo_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DPLASMIENT_BUILD_TESTS=OFF -DPLASMIENT_BUILD_BENCH=OFF -DPLASMIENT_UNITY_BUILD=ON >/dev/null
  fi
  cmake --build "$demo_dir" -j "$jobs" --target plasmient
}

# clang-tidy (docs/checks.md): CI checks the stages held to it so far (widen tidy_held as each
# further stage is clean) or, once `tidy-all` has recorded a clean commit in .tidy-clean, every
# file of src/ changed since. scripts/tidy.sh lists the files clang-tidy 16 itself fails on.
tidy_held='^src/(base|model|wire|ingest|roofline|join|cluster|job|whatif|cli)/'
tidy_ci() {
  if [[ -f .tidy-clean ]]; then
    scripts/tidy.sh --since "$(cat .tidy-clean)" "$build_dir" '^src/'
  else
    scripts/tidy.sh "$build_dir" "$tidy_held"
  fi
}

case "${1:-}" in
  demo)
    build_demo
    shift
    rc=0
    "$demo_dir/plasmient" demo "$@" || rc=$?
    if [[ $rc == 0 ]]; then
      bin_dir=$(cd "$demo_dir" && pwd)
      printf '\nplasmient is %s/plasmient; to run it as `plasmient`, put it on PATH:\n' "$bin_dir"
      printf '  export PATH="%s:$PATH"    # this shell; add the line to ~/.bashrc to keep it\n' "$bin_dir"
      printf '  install -m755 %s/plasmient ~/.local/bin/    # or a copy, where ~/.local/bin is on PATH\n' "$bin_dir"
    fi
    exit "$rc"
    ;;
  test | test-all)
    scripts/install-deps.sh --checks
    if [[ ! -d ../shared/traces ]]; then
      echo "plasmient: ../shared/traces is absent: tests on real traces will be skipped (they say so)" >&2
    fi
    step format scripts/check-format.sh
    step build build Release -DPLASMIENT_WERROR=ON -DPLASMIENT_UNITY_BUILD=ON
    step boundaries scripts/check-boundaries.sh "$build_dir"
    if [[ $1 == test ]]; then
      step clang-tidy tidy_ci
    else
      # clang-tidy over every file, whatever .tidy-clean says (docs/checks.md).
      step clang-tidy scripts/tidy.sh "$build_dir" '^src/'
    fi
    step sanitize scripts/sanitize.sh --all
    step tsan scripts/tsan.sh
    step fuzz scripts/fuzz.sh "${PLASMIENT_FUZZ_SECONDS:-60}"
    # Last, so that its summary closes the output.
    step ctest ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" --timeout 600
    ;;
  tidy-all)
    scripts/install-deps.sh --checks
    if [[ ! -f $build_dir/compile_commands.json ]]; then
      cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPLASMIENT_UNITY_BUILD=ON >/dev/null
    fi
    step clang-tidy-all scripts/tidy.sh "$build_dir" '^src/'
    if git diff --quiet HEAD -- src .clang-tidy scripts/tidy.sh &&
      [[ -z $(git ls-files --others --exclude-standard -- src) ]]; then
      git rev-parse HEAD >.tidy-clean
      echo "dev.sh tidy-all: clean; .tidy-clean now names $(git rev-parse --short HEAD): commit it" >&2
    else
      echo "dev.sh tidy-all: clean, but src/ or the tidy setup differs from HEAD: .tidy-clean left as it was" >&2
    fi
    ;;
  build)
    scripts/install-deps.sh
    build RelWithDebInfo
    ;;
  *)
    echo "usage: scripts/dev.sh demo|test|test-all|tidy-all|build" >&2
    exit 2
    ;;
esac
