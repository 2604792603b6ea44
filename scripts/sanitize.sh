#!/usr/bin/env bash
# Builds unit tests (CTest label `unit`) with AddressSanitizer and UndefinedBehaviorSanitizer in
# their own build folder and runs them; any finding fails its test.
#   scripts/sanitize.sh [--all] [CTEST_ARGS...]   e.g. -R Framer
# By default the tests of the stages that read untrusted bytes and those below them (base, model,
# wire, ingest: the readers' tests, real traces included), which is what CI runs; --all: every unit
# test (the target `unit_tests`), about three times the build.
# The build folder (clang-16, -O1 -g1) is the one scripts/fuzz.sh builds in: scripts/sanitized-tree.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PLASMIENT_SANITIZE_BUILD_DIR:-build-asan}
jobs=${PLASMIENT_JOBS:-$(nproc)}
targets=(base_test model_test wire_test ingest_kineto_test ingest_native_test ingest_nsys_test)
if [[ ${1:-} == --all ]]; then
  targets=(unit_tests)
  shift
fi
scripts/install-deps.sh --checks
# shellcheck source=scripts/sanitized-tree.sh
source scripts/sanitized-tree.sh
configure_sanitized_tree "$build"
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
# Only the binaries built above register their tests; the others stand as `…_NOT_BUILT`, unlabelled.
ctest --test-dir "$build" -L unit --output-on-failure -j "$jobs" --timeout 600 "$@"
