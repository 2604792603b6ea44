#!/usr/bin/env bash
# Builds the tests of the code that runs on several threads with ThreadSanitizer in a build folder
# of its own and runs them; any race (or other ThreadSanitizer report) fails the step.
#   scripts/tsan.sh [GTEST_FILTER]   e.g. 'ParallelParse*'
# The tests: base's (base/parallel among them), job's, serve's (the pool, the HTTP server, the
# cluster watch), the Kineto reader's (the parse pipeline: the framer thread and the parse
# threads, the inflate-ahead reader), and the cross-stage ones that run the program with several
# workers (tests/parallel_job_test.cc, tests/parallel_rank_test.cc; the program is built with
# ThreadSanitizer too).
# The folder (build-tsan; clang-16, -fsanitize=thread, -O1 -g1, a unity build) has no benchmarks,
# no fuzz targets and no live agent (a library preloaded into other processes cannot carry the
# runtime). scripts/tsan.supp names the reports of libraries built without ThreadSanitizer.
# Left out here: ChunkReaderTest.MappedFileHoldsAboutOneWindowInMemory (its RSS bound does not
# hold with the shadow memory), ParallelJobTest.OutOfMemoryNamesTheFile, which limits the address space
# (ulimit -v) below what ThreadSanitizer's shadow memory reserves at start.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${PLASMIENT_TSAN_BUILD_DIR:-build-tsan}
jobs=${PLASMIENT_JOBS:-$(nproc)}
filter=${1:-*}
scripts/install-deps.sh --checks
# clang-16 reports __cpp_concepts 201907, which hides libstdc++ 12's <expected>: raised for this
# build as in scripts/sanitized-tree.sh.
CC=clang-16 CXX=clang++-16 cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1" \
  -DPLASMIENT_SANITIZE_THREAD=ON -DPLASMIENT_BUILD_BENCH=OFF -DPLASMIENT_WITH_CUDA=OFF -DPLASMIENT_UNITY_BUILD=ON \
  "-DCMAKE_CXX_FLAGS=-U__cpp_concepts -D__cpp_concepts=202002L -Wno-builtin-macro-redefined" >/dev/null
tests=(src/base/base_test src/job/job_test src/serve/serve_test src/ingest/ingest_kineto_test
  tests/parallel_job_test tests/parallel_rank_test)
cmake --build "$build" -j "$jobs" --target plasmient "${tests[@]##*/}"

export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp}
# What CTest would set for the tests (plasmient_test in CMakeLists.txt).
export PLASMIENT_BIN=$PWD/$build/plasmient
export PLASMIENT_SHARED_TRACES=${PLASMIENT_SHARED_TRACES:-$PWD/../shared/traces}
logs=$build/tsan-logs
rm -rf "$logs" && mkdir -p "$logs"
# Each binary alone, two at a time; a log is printed whole when its binary fails.
printf '%s\n' "${tests[@]}" | xargs -P "$jobs" -I{} sh -c '
  log="$2/$(basename "$3").log"; start=$(date +%s)
  if "$1/$3" --gtest_brief=1 "--gtest_filter=$4" >"$log" 2>&1; then
    echo "tsan $(basename "$3"): passed in $(($(date +%s) - start)) s"
  else
    cat "$log"; echo "tsan $(basename "$3"): FAILED"; exit 1
  fi' _ "$build" "$logs" {} "$filter:-ParallelJobTest.OutOfMemoryNamesTheFile:ChunkReaderTest.MappedFileHoldsAboutOneWindowInMemory"
