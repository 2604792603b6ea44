#!/usr/bin/env bash
# GPU check for the live agent. Needs: CUDA toolkit (nvcc, CUPTI, cuBLAS), CMake, ninja; PyTorch
# optional (training steps, the two-rank NCCL run). No network, no other packages. About 5
# minutes on one GPU.
#
#   scripts/gpu-check.sh            # writes everything under $OUT (default: a temp folder)
#
# Builds the agent standalone (cmake -S src/collect; without zstd it writes stored chunks),
# compiles a CUDA workload for this GPU (-arch=native: no PTX JIT in the timings), runs it with
# and without the agent, and where PyTorch is present training steps under the agent launcher
# and under torch.profiler, and two ranks doing NCCL all-reduces under the agent; then both again
# with duty-cycled windows into a spool (files complete and alternating, overhead under 1%). Overhead is the
# in-process CUDA-event median of steady-state steps (warm-up left out), agent on vs off. Any
# dropped record or a trace without its closing chunk fails the check; so do missing GPM samples
# on Hopper or later. Agent traces stay in $OUT. Summary table last; exit 1 on any FAIL.
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
if run_logged nvcc nvcc -O2 -std=c++17 -arch=native "$ROOT/src/collect/gpu_check/workload.cu" -lcublas \
     -o "$WORK/workload"; then
  record build_workload PASS "nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
else
  record build_workload FAIL "see $LOG"
fi

have_python=0
command -v python3 > /dev/null && have_python=1
COMPARE="$ROOT/src/collect/gpu_check/compare.py"
OVERHEAD_LIMIT_PCT=5
cc_major=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n 1 | cut -d. -f1)
cc_major=${cc_major:-0}

compare() {   # compare OUTFILE MODE ARGS...: compare.py's CHECK lines into the summary
  local out="$1"; shift
  python3 "$COMPARE" "$@" > "$out" 2>> "$LOG"
  checks_from "$out"
}
json_field() {   # json_field FILE KEY
  python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"
}
dump_csv() {   # dump_csv TRACE CSV: summary to the log, CSV for compare.py
  "$DUMP" "$1" | tee -a "$LOG"
  "$DUMP" "$1" --kernels > "$2"
}

if [[ -x "$WORK/workload" && -f "$AGENT" && $have_python == 1 ]]; then
  note "workload without the agent"
  run_logged workload-plain sh -c "'$WORK/workload' 8192 20 60 > '$OUT/workload-plain.json'"
  note "workload under the agent"
  rm -rf "$OUT/workload-trace"
  run_logged workload-agent sh -c "'$LAUNCH' --out '$OUT/workload-trace' --agent '$AGENT' -- \
    '$WORK/workload' 8192 20 60 > '$OUT/workload.json'"
  trace=$(find "$OUT/workload-trace" -name '*.pltrace' 2> /dev/null | head -n 1)
  if [[ -n "$trace" && -s "$OUT/workload.json" && -s "$OUT/workload-plain.json" ]]; then
    record workload_trace PASS "$trace ($(stat -c %s "$trace") bytes)"
    dump_csv "$trace" "$OUT/workload-kernels.csv"
    compare "$OUT/workload-checks.txt" workload "$OUT/workload.json" "$OUT/workload-kernels.csv"
    compare "$OUT/workload-integrity.txt" integrity workload "$OUT/workload-kernels.csv"
    compare "$OUT/workload-gpm.txt" gpm workload "$OUT/workload-kernels.csv" "$cc_major"
    compare "$OUT/overhead-workload.txt" overhead workload_steps \
      "$(json_field "$OUT/workload-plain.json" step_ms_median)" \
      "$(json_field "$OUT/workload.json" step_ms_median)" "$OVERHEAD_LIMIT_PCT"
  else
    record workload_trace FAIL "no trace or no workload output (see $LOG)"
  fi
elif [[ $have_python == 0 ]]; then
  record workload SKIP "python3 missing: the comparisons need it"
fi

# Duty-cycled windows into a spool (PLASMIENT_PERIOD_S, PLASMIENT_WINDOW_S): the spool's files
# (complete, samples and windows alternating, kernels only in windows), and the median step time
# with windows against no agent and against whole-run tracing.
windows_check() {   # windows_check NAME SPOOL: every file of the spool through compare.py windows
  local name=$1 spool=$2 csvs=() f
  while IFS= read -r f; do
    dump_csv "$f" "$f.csv" > /dev/null
    csvs+=("$f.csv")
  done < <(find "$spool" -maxdepth 1 -name '*.pltrace' | sort)
  local parts
  parts=$(find "$spool" -maxdepth 1 -name '.*.part' | wc -l)
  record "${name}_no_part_left" "$([[ $parts == 0 ]] && echo PASS || echo FAIL)" "$parts .part files after exit"
  compare "$OUT/$name-checks.txt" windows "$name" "${csvs[@]}"
}
if [[ -x "$WORK/workload" && -f "$AGENT" && $have_python == 1 ]]; then
  WINDOW_STEPS=12000   # a few seconds of steps: several 0.3 s windows every 1 s
  note "workload, $WINDOW_STEPS steps: no agent, whole-run agent, windowed agent"
  run_logged workload-long-plain sh -c "'$WORK/workload' 8192 20 $WINDOW_STEPS > '$OUT/workload-long-plain.json'"
  rm -rf "$OUT/workload-long-trace" "$OUT/workload-spool"
  run_logged workload-long-agent sh -c "'$LAUNCH' --out '$OUT/workload-long-trace' --agent '$AGENT' -- \
    '$WORK/workload' 8192 20 $WINDOW_STEPS > '$OUT/workload-long-agent.json'"
  mkdir -p "$OUT/workload-spool"
  run_logged workload-windows env PLASMIENT_PERIOD_S=1 PLASMIENT_WINDOW_S=0.3 PLASMIENT_SPOOL="$OUT/workload-spool" \
    sh -c "'$LAUNCH' --out '$OUT/workload-windows-out' --agent '$AGENT' -- \
    '$WORK/workload' 8192 20 $WINDOW_STEPS > '$OUT/workload-windows.json'"
  if [[ -s "$OUT/workload-windows.json" && -s "$OUT/workload-long-plain.json" ]]; then
    windows_check workload_windows "$OUT/workload-spool"
    compare "$OUT/overhead-windows.txt" overhead workload_windows_vs_off \
      "$(json_field "$OUT/workload-long-plain.json" step_ms_median)" \
      "$(json_field "$OUT/workload-windows.json" step_ms_median)" 1
    compare "$OUT/overhead-windows-whole.txt" overhead workload_whole_run_vs_off \
      "$(json_field "$OUT/workload-long-plain.json" step_ms_median)" \
      "$(json_field "$OUT/workload-long-agent.json" step_ms_median)" "$OVERHEAD_LIMIT_PCT"
  else
    record workload_windows FAIL "no output from the windowed run (see $LOG)"
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
  if [[ -n "$trace" && -s "$OUT/torch-profile.json" && -s "$OUT/torch-agent.json" ]]; then
    record torch_trace PASS "$trace"
    dump_csv "$trace" "$OUT/torch-kernels.csv"
    compare "$OUT/torch-checks.txt" torch "$OUT/torch-profile.json" "$OUT/torch-agent.json" \
      "$OUT/torch-kernels.csv"
    compare "$OUT/torch-integrity.txt" integrity torch "$OUT/torch-kernels.csv"
    compare "$OUT/overhead-torch.txt" overhead torch_steps \
      "$(json_field "$OUT/torch-plain.json" step_ms_median)" \
      "$(json_field "$OUT/torch-agent.json" step_ms_median)" "$OVERHEAD_LIMIT_PCT"
  else
    record torch_trace FAIL "no agent trace, step timings or torch.profiler reference (see $LOG)"
  fi

  note "PyTorch steps under the windowed agent (0.3 s every 1 s)"
  rm -rf "$OUT/torch-spool" && mkdir -p "$OUT/torch-spool"
  run_logged torch-plain-long python3 "$STEPS" plain "$OUT/torch-plain-long.json" 400
  run_logged torch-windows env PLASMIENT_PERIOD_S=1 PLASMIENT_WINDOW_S=0.3 PLASMIENT_SPOOL="$OUT/torch-spool" \
    "$LAUNCH" --out "$OUT/torch-windows-out" --agent "$AGENT" -- python3 "$STEPS" plain "$OUT/torch-windows.json" 400
  if [[ -s "$OUT/torch-windows.json" ]]; then
    # The launcher's shell children write spools of their own: keep the training process's files.
    pid=$(find "$OUT/torch-spool" -maxdepth 1 -name '*.pltrace' -printf '%s %f\n' | sort -rn | head -n 1 |
          cut -d' ' -f2 | awk -F- '{print $(NF-1)}')
    mkdir -p "$OUT/torch-spool/main" && find "$OUT/torch-spool" -maxdepth 1 -name "*-$pid-*.pltrace" \
      -exec mv {} "$OUT/torch-spool/main/" \;
    windows_check torch_windows "$OUT/torch-spool/main"
    compare "$OUT/overhead-torch-windows.txt" overhead torch_windows_vs_off \
      "$(json_field "$OUT/torch-plain-long.json" step_ms_median)" \
      "$(json_field "$OUT/torch-windows.json" step_ms_median)" 1
  else
    record torch_windows FAIL "no output from the windowed PyTorch run (see $LOG)"
  fi

  note "NCCL: two ranks, all-reduce, under the agent"
  rm -rf "$OUT/nccl-trace"
  run_logged nccl timeout 180 "$LAUNCH" --out "$OUT/nccl-trace" --agent "$AGENT" -- \
    python3 "$ROOT/src/collect/gpu_check/nccl_allreduce.py" "$OUT/nccl.json" 50
  if [[ -s "$OUT/nccl.json" ]]; then
    csvs=()
    for rank in 0 1; do
      t=$(find "$OUT/nccl-trace" -name "plasmient.rank$rank.*.pltrace" -printf '%s %p\n' 2> /dev/null |
          sort -rn | head -n 1 | cut -d' ' -f2-)
      [[ -z "$t" ]] && continue
      dump_csv "$t" "$OUT/nccl-rank$rank.csv"
      csvs+=("$OUT/nccl-rank$rank.csv")
      if [[ "$(json_field "$OUT/nccl.json" ok)" == True ]]; then
        compare "$OUT/nccl-rank$rank-integrity.txt" integrity "nccl_rank$rank" "$OUT/nccl-rank$rank.csv"
      fi
    done
    compare "$OUT/nccl-checks.txt" nccl "$OUT/nccl.json" "${csvs[@]}"
  else
    record nccl_two_ranks FAIL "no result from the two-rank run (see $LOG)"
  fi
else
  record torch SKIP "PyTorch with CUDA not available (training steps and NCCL not run)"
fi

echo
echo "Agent traces and logs: $OUT"
printf '%-32s %-5s %s\n' CHECK STATUS DETAIL
for row in "${SUMMARY[@]}"; do
  IFS='|' read -r name status detail <<< "$row"
  printf '%-32s %-5s %s\n' "$name" "$status" "$detail"
done
exit $FAILED
