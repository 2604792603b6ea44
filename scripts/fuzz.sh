#!/usr/bin/env bash
# Builds the libFuzzer targets of the three readers (Kineto JSON, Nsight SQLite, the agent's native
# files) with Debian's clang-16 and runs each for SECONDS (default 60) on a seed corpus of small
# traces: real ones where ../shared/traces is present, and files it makes (the native seeds are
# `plasmient synth --format native` files, re-written in small uncompressed chunks).
#   scripts/fuzz.sh [SECONDS]
# The three run at once on the machine's cores (two in CI: each target gets about two thirds of a
# core for SECONDS, and the step's wall time stays SECONDS).
# PLASMIENT_FUZZ_SEED (default 1) fixes the mutation sequence so a CI run can be replayed; 0 lets
# libFuzzer pick a new seed each run (use that for longer hunts).
# The build folder (clang-16, ASan and UBSan, -O1 -g1) is the one scripts/sanitize.sh builds in:
# scripts/sanitized-tree.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
seed=${PLASMIENT_FUZZ_SEED:-1}
build=${PLASMIENT_FUZZ_BUILD_DIR:-${PLASMIENT_SANITIZE_BUILD_DIR:-build-asan}}
scripts/install-deps.sh --checks
# shellcheck source=scripts/sanitized-tree.sh
source scripts/sanitized-tree.sh
configure_sanitized_tree "$build"
cmake --build "$build" -j "${PLASMIENT_JOBS:-$(nproc)}" --target kineto_json_fuzz nsys_sqlite_reader_fuzz \
  native_reader_fuzz native_fuzz_seed
# synth writes the native seeds; the Release build's binary when there is one (dev.sh test builds
# it first), else one built here.
plasmient=${PLASMIENT_BUILD_DIR:-build}/plasmient
if [[ ! -x $plasmient ]]; then
  cmake --build "$build" -j "${PLASMIENT_JOBS:-$(nproc)}" --target plasmient
  plasmient=$build/plasmient
fi

corpus=$(mktemp -d)
trap 'rm -rf "$corpus"' EXIT
mkdir -p "$corpus/kineto" "$corpus/nsys" "$corpus/native" "$corpus/synth"
traces=${PLASMIENT_SHARED_TRACES:-../shared/traces}
if [[ -d $traces ]]; then
  cp "$traces/kineto/docs/traces/after_fix_trace.json" "$corpus/kineto/" 2>/dev/null || true
  cp "$traces/hta/triton_example/triton_example.json.gz" "$corpus/kineto/" 2>/dev/null || true
fi
printf '{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1.5,"dur":2,"args":{"correlation":1}}]}' \
  >"$corpus/kineto/tiny.json"
# A minimal Nsight-shaped database, so the SQLite fuzzer starts past the file header.
sqlite3 "$corpus/nsys/seed.sqlite" "PRAGMA page_size=512;
  CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT); INSERT INTO StringIds VALUES(1,'k'),(2,'cudaLaunchKernel');
  CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT, correlationId INT, globalPid INT, demangledName INT, shortName INT);
  INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(100,200,0,7,1,16777216,1,1);
  CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, correlationId INT, nameId INT);
  INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(50,60,0,16777217,1,2);
  CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT); INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.13.2');
  CREATE TABLE TARGET_INFO_GPU_METRICS(typeId INT, sourceId INT, typeName TEXT, metricId INT, metricName TEXT);
  INSERT INTO TARGET_INFO_GPU_METRICS VALUES(256,256,'GPU',1,'Tensor Active [Throughput %]'),
    (256,256,'GPU',2,'DRAM Read Bandwidth [Throughput %]'),(256,256,'GPU',3,'DRAM Write Bandwidth [Throughput %]');
  CREATE TABLE GPU_METRICS(timestamp INT, typeId INT, metricId INT, value INT);
  INSERT INTO GPU_METRICS VALUES(150,256,1,40),(150,256,2,30),(150,256,3,10),(160,256,2,31);"
# The agent's files of a few workloads, small: one whole-run file, a kernel window and a samples
# file of a duty-cycled rank; each cut to its first 8 KB in 2 KB chunks.
for scenario in ddp decode moe; do
  "$plasmient" synth --scenario "$scenario" --format native --ranks 1 --steps 1 --layers 1 --hidden 256 \
    --seq-len 128 --seed 1 -o "$corpus/synth/$scenario" >/dev/null
done
"$plasmient" synth --scenario ddp --format native --ranks 1 --steps 4 --layers 1 --hidden 256 --seq-len 128 \
  --period-s 0.02 --window-s 0.01 --seed 1 -o "$corpus/synth/windowed" >/dev/null
n=0
while IFS= read -r -d '' f; do
  n=$((n + 1))
  "$build/src/ingest/native/native_fuzz_seed" "$f" "$corpus/native/seed$n.pltrace" 8192
done < <(find "$corpus/synth" -name '*.pltrace' -print0 | sort -z)
# An input that crashes, hangs or leaks is kept as $build/crash-… (or timeout-…, leak-…) and fails
# this script.
# The three targets run at once; each one's log is printed whole when it fails, else
# its last lines (the coverage and execution figures).
"$build/src/ingest/kineto_json_fuzz" "$corpus/kineto" -max_total_time="$seconds" -seed="$seed" -max_len=65536 -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$build/" >"$corpus/kineto.log" 2>&1 &
kineto_pid=$!
"$build/src/ingest/nsys_sqlite/nsys_sqlite_reader_fuzz" "$corpus/nsys" -max_total_time="$seconds" -seed="$seed" -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$build/" >"$corpus/nsys.log" 2>&1 &
nsys_pid=$!
"$build/src/ingest/native/native_reader_fuzz" "$corpus/native" -max_total_time="$seconds" -seed="$seed" -max_len=65536 \
  -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$build/" >"$corpus/native.log" 2>&1 &
native_pid=$!
status=0
for target in kineto:$kineto_pid nsys:$nsys_pid native:$native_pid; do
  name=${target%%:*}
  if wait "${target#*:}"; then
    echo "fuzz $name: no crash in ${seconds} s"
    grep -E '^#[0-9]+.*cov:' "$corpus/$name.log" | tail -1 || true
    grep -E '^Done [0-9]+ runs' "$corpus/$name.log" || true
  else
    echo "fuzz $name: FAILED (inputs that crash are saved under $build/)"
    cat "$corpus/$name.log"
    status=1
  fi
done
exit "$status"
