#!/usr/bin/env bash
# GPU check for the live agent. Needs: CUDA toolkit (nvcc, CUPTI, cuBLAS), CMake, ninja; PyTorch
# optional. No network, no other packages. Under 5 minutes on one GPU.
#
#   scripts/gpu-check.sh            # writes everything under $OUT (default: a temp folder)
#
# Builds the agent standalone (cmake -S src/collect; without zstd it writes stored chunks),
# compiles a CUDA workload (GEMM of known size, memory-bound kernel, copies), runs it with and
# without the agent, and where PyTorch is present a few training steps under the agent launcher
# and under torch.profiler. Agent traces stay in $OUT for analysis elsewhere. Summary table last.
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${OUT:-$(mktemp -d /tmp/plasmient-gpu-check.XXXXXX)}"
mkdir -p "$OUT"
WORK="$OUT/work"
mkdir -p "$WORK"
LOG="$OUT/gpu-check.log"
: > "$LOG"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$CUDA_HOME/bin:$PATH"
SUMMARY=()   # "name|status|detail"
FAILED=0

note() { echo "== $*" | tee -a "$LOG"; }
record() {   # record NAME STATUS DETAIL
  SUMMARY+=("$1|$2|$3")
  [[ "$2" == FAIL ]] && FAILED=1
  return 0
}
run_logged() {   # run_logged LABEL CMD...: output to the log; returns the command's status
  local label="$1"; shift
  echo "\$ $*" >> "$LOG"
  "$@" >> "$LOG" 2>&1
  local rc=$?
  [[ $rc -ne 0 ]] && echo "   ($label exited $rc; see $LOG)"
  return $rc
}
seconds_of() {   # seconds_of CMD...: wall seconds of CMD (its output to the log)
  local t0 t1
  t0=$(date +%s.%N)
  "$@" >> "$LOG" 2>&1
  t1=$(date +%s.%N)
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}
checks_from() {   # checks_from FILE: turn compare.py's CHECK lines into summary rows
  while read -r _ name status detail; do
    record "$name" "$status" "$detail"
  done < <(grep '^CHECK ' "$1")
}

note "GPU"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee -a "$LOG"
fi

note "build the agent (standalone, CUDA + C++ only)"
if run_logged cmake cmake -S "$ROOT/src/collect" -B "$WORK/build-agent" -G Ninja \
     -DCMAKE_BUILD_TYPE=Release -DPLASMIENT_WITH_CUDA=ON &&
   run_logged ninja ninja -C "$WORK/build-agent" plasmient_agent plasmient_agent_dump plasmient_agent_run; then
  record build_agent PASS "$WORK/build-agent/libplasmient_agent.so"
else
  record build_agent FAIL "see $LOG"
fi
AGENT="$WORK/build-agent/libplasmient_agent.so"
DUMP="$WORK/build-agent/plasmient_agent_dump"
LAUNCH="$WORK/build-agent/plasmient_agent_run"

note "build the CUDA workload"
if run_logged nvcc nvcc -O2 -std=c++17 "$ROOT/src/collect/gpu_check/workload.cu" -lcublas \
     -o "$WORK/workload"; then
  record build_workload PASS "nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
else
  record build_workload FAIL "see $LOG"
fi

have_python=0
command -v python3 > /dev/null && have_python=1

if [[ -x "$WORK/workload" && -f "$AGENT" ]]; then
  note "workload without the agent"
  base_s=$(seconds_of "$WORK/workload" 8192 20)
  note "workload under the agent"
  rm -rf "$OUT/workload-trace"
  agent_s=$(seconds_of "$LAUNCH" --out "$OUT/workload-trace" --agent "$AGENT" -- \
            "$WORK/workload" 8192 20)
  grep '^{"m"' "$LOG" | tail -n 1 > "$OUT/workload.json" || true
  trace=$(find "$OUT/workload-trace" -name '*.pltrace' 2> /dev/null | head -n 1)
  if [[ -n "$trace" && -s "$OUT/workload.json" ]]; then
    record workload_trace PASS "$trace ($(stat -c %s "$trace") bytes)"
    "$DUMP" "$trace" | tee -a "$LOG"
    "$DUMP" "$trace" --kernels > "$OUT/workload-kernels.csv"
    if [[ $have_python == 1 ]]; then
      python3 "$ROOT/src/collect/gpu_check/compare.py" workload "$OUT/workload.json" \
        "$OUT/workload-kernels.csv" > "$OUT/workload-checks.txt" 2>> "$LOG"
      checks_from "$OUT/workload-checks.txt"
      python3 "$ROOT/src/collect/gpu_check/compare.py" overhead workload "$base_s" "$agent_s" \
        > "$OUT/overhead-workload.txt" 2>> "$LOG"
      checks_from "$OUT/overhead-workload.txt"
    fi
  else
    record workload_trace FAIL "no trace or no workload output (see $LOG)"
  fi
fi

if [[ $have_python == 1 ]] && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>> "$LOG"; then
  STEPS="$ROOT/src/collect/gpu_check/torch_steps.py"
  note "PyTorch steps: torch.profiler (reference)"
  run_logged torch-profile python3 "$STEPS" profile "$OUT/torch-profile.json"
  note "PyTorch steps: plain"
  run_logged torch-plain python3 "$STEPS" plain "$OUT/torch-plain.json"
  note "PyTorch steps: under the agent"
  rm -rf "$OUT/torch-trace"
  run_logged torch-agent "$LAUNCH" --out "$OUT/torch-trace" --agent "$AGENT" -- \
    python3 "$STEPS" plain "$OUT/torch-agent.json"
  # The largest file: the training process (the launcher's shell children trace nothing).
  trace=$(find "$OUT/torch-trace" -name '*.pltrace' -printf '%s %p\n' 2> /dev/null |
          sort -rn | head -n 1 | cut -d' ' -f2-)
  if [[ -n "$trace" && -s "$OUT/torch-profile.json" ]]; then
    record torch_trace PASS "$trace"
    "$DUMP" "$trace" | tee -a "$LOG"
    "$DUMP" "$trace" --kernels > "$OUT/torch-kernels.csv"
    python3 "$ROOT/src/collect/gpu_check/compare.py" torch "$OUT/torch-profile.json" \
      "$OUT/torch-kernels.csv" > "$OUT/torch-checks.txt" 2>> "$LOG"
    checks_from "$OUT/torch-checks.txt"
    base=$(python3 -c "import json; print(json.load(open('$OUT/torch-plain.json'))['seconds'])")
    with=$(python3 -c "import json; print(json.load(open('$OUT/torch-agent.json'))['seconds'])")
    python3 "$ROOT/src/collect/gpu_check/compare.py" overhead torch_steps "$base" "$with" \
      > "$OUT/overhead-torch.txt" 2>> "$LOG"
    checks_from "$OUT/overhead-torch.txt"
  else
    record torch_trace FAIL "no agent trace or no torch.profiler reference (see $LOG)"
  fi
else
  record torch SKIP "PyTorch with CUDA not available"
fi

echo
echo "Agent traces and logs: $OUT"
printf '%-32s %-5s %s\n' CHECK STATUS DETAIL
for row in "${SUMMARY[@]}"; do
  IFS='|' read -r name status detail <<< "$row"
  printf '%-32s %-5s %s\n' "$name" "$status" "$detail"
done
exit $FAILED
