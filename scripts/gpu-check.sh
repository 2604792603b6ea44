#!/usr/bin/env bash
# GPU check for the live agent. Needs: CUDA toolkit (nvcc, CUPTI, cuBLAS), CMake, ninja; PyTorch
# optional (training steps, the two-rank NCCL run). No network, no other packages. About 5
# minutes on one GPU. Every program it starts is cut off after STEP_TIMEOUT_S (default 150 s), so
# a hang costs one step and fails the check, and none starts once BUDGET_S (default 480 s) is
# spent: the steps left are FAIL rows, and the run ends within the budget plus one step.
#
#   scripts/gpu-check.sh                 # on a GPU machine: build, run, check; all under $OUT
#   scripts/gpu-check.sh --evaluate DIR  # anywhere: the checks alone, on what a run left in DIR
#
# The run builds the agent standalone (cmake -S src/collect; without zstd it writes stored
# chunks), compiles a CUDA workload for this GPU (-arch=native: no PTX JIT in the timings), runs
# it with and without the agent, and where PyTorch is present training steps under the agent
# launcher and under torch.profiler, and two ranks doing NCCL all-reduces under the agent; then
# both again with duty-cycled windows into a spool, and the measured ceilings (dense GEMM FLOP/s per
# dtype, memory bandwidth: $OUT/ceilings.json, plasmient.ceilings/1). Each trace is dumped to CSV
# (plasmient_agent_dump --kernels) beside the programs' own JSON timings.
#
# The evaluation reads only those files (compare.py): overhead is the in-process CUDA-event
# median of steady-state steps (warm-up left out), agent on vs off, and windows vs off. Any
# dropped record or a trace without its closing chunk fails the check; so do missing GPM values
# on Hopper or later, a rank without its trace, and a comparison that cannot reach a verdict.
# Every row is printed as it is known (the run's rows as each stage ends, the checks as the
# evaluation reaches them, most important first), so a run cut short still reports what it
# measured; the summary table is repeated last; exit 1 on any FAIL. tests/gpu_check/gpu_check_evaluate_test.py runs the
# evaluation on canned outputs (ctest -L agent).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
COMPARE="$ROOT/src/collect/gpu_check/compare.py"
OVERHEAD_LIMIT_PCT=5          # agent tracing every kernel vs no agent
WINDOWS_OVERHEAD_LIMIT_PCT=1  # duty-cycled windows vs no agent
NCCL_LATENCY_LIMIT_PCT=10     # 8 KiB all-reduce with the NCCL profiler plugin vs without
STEP_TIMEOUT_S=${STEP_TIMEOUT_S:-150}
BUDGET_S=${BUDGET_S:-480}

mode=run
case "${1:-}" in
  "") ;;
  --evaluate)
    [[ -d "${2:-}" ]] || { echo "usage: $0 [--evaluate DIR]: DIR must be a folder a run wrote" >&2; exit 2; }
    mode=evaluate
    OUT="$(cd "$2" && pwd)"
    ;;
  *) echo "usage: $0 [--evaluate DIR]" >&2; exit 2 ;;
esac
OUT="${OUT:-$(mktemp -d /tmp/plasmient-gpu-check.XXXXXX)}"
mkdir -p "$OUT"
STATUS="$OUT/run-status.txt"   # the run's own rows ("name|status|detail"), read by the evaluation
if [[ $mode == run ]]; then
  LOG="$OUT/gpu-check.log"
  : > "$LOG"
  : > "$STATUS"
else
  LOG="$OUT/evaluate.log"
  : > "$LOG"
fi
SUMMARY=()   # "name|status|detail"
FAILED=0

note() { echo "== $*" | tee -a "$LOG"; }
row() { printf '%-36s %-5s %s\n' "$1" "$2" "$3"; }
record() {   # record NAME STATUS DETAIL: a summary row, printed at once
  SUMMARY+=("$1|$2|$3")
  row "$1" "$2" "$3"
  [[ "$2" == FAIL ]] && FAILED=1
  return 0
}
record_run() {   # record_run NAME STATUS DETAIL: a row of the run, kept for the evaluation
  echo "$1|$2|$3" >> "$STATUS"
  [[ $mode == run ]] && row "$1" "$2" "$3"
}
run_step() {   # run_step NAME CMD...: run_logged, and a row: a crash, a hang or a non-zero exit fails
  local name="$1" rc; shift
  run_logged "$name" "$@"
  rc=$?
  case $rc in
    0) record_run "${name}_exit" PASS "exit 0" ;;
    124) record_run "${name}_exit" FAIL "timed out" ;;
    125) record_run "${name}_exit" FAIL "not run: the check's $BUDGET_S s were spent" ;;
    *) record_run "${name}_exit" FAIL "exit $rc" ;;
  esac
  return $rc
}
attempted() {   # attempted NAME: the run started that stage
  grep -q "^$1|" "$STATUS" 2> /dev/null
}
run_logged() {   # run_logged LABEL CMD...: output to the log, cut off after STEP_TIMEOUT_S or at
  local label="$1" left=$((BUDGET_S - SECONDS)) limit rc; shift   # the budget's end; 125: not run
  if ((left <= 0)); then
    echo "\$ (not run: budget spent) $*" >> "$LOG"
    echo "   ($label not run: the check's $BUDGET_S s were spent)"
    return 125
  fi
  limit=$((left < STEP_TIMEOUT_S ? left : STEP_TIMEOUT_S))
  echo "\$ $*" >> "$LOG"
  timeout -k 10 "$limit" "$@" >> "$LOG" 2>&1
  rc=$?
  [[ $rc -eq 124 ]] && echo "   ($label timed out after $limit s; see $LOG)"
  [[ $rc -ne 0 && $rc -ne 124 ]] && echo "   ($label exited $rc; see $LOG)"
  return $rc
}

# ---------------------------------------------------------------------------------------------
# Evaluation: compare.py on the files of $OUT. No GPU, no build.

checks_from() {   # checks_from FILE: turn compare.py's CHECK lines into summary rows
  while read -r _ name status detail; do
    record "$name" "$status" "$detail"
  done < <(grep '^CHECK ' "$1")
}
compare() {   # compare OUTFILE MODE ARGS...: compare.py's CHECK lines into the summary
  local out="$1"; shift
  python3 "$COMPARE" "$@" > "$out" 2>> "$LOG"
  local rc=$?
  checks_from "$out"
  # A comparison that crashed (a missing file or field) or said nothing has no verdict: FAIL.
  if ! grep -q '^CHECK ' "$out" || { [[ $rc -ne 0 ]] && ! grep -q '^CHECK [^ ]* FAIL' "$out"; }; then
    record "compare_$1_$(basename "$out" .txt)" FAIL "compare.py $1 exited $rc without a verdict (see $LOG)"
  fi
}
json_field() {   # json_field FILE KEY (empty when absent: the comparison then fails)
  python3 -c "import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2" 2>> "$LOG"
}
overhead() {   # overhead NAME BASE.json AGENT.json LIMIT_PCT
  compare "$OUT/overhead-$1.txt" overhead "$1" "$(json_field "$2" step_ms_median)" \
    "$(json_field "$3" step_ms_median)" "$4"
}
windows_check() {   # windows_check NAME SPOOL: every file of the spool through compare.py windows
  local name=$1 spool=$2 csvs=() f parts
  while IFS= read -r f; do
    csvs+=("$f")
  done < <(find "$spool" -maxdepth 1 -name '*.pltrace.csv' | sort)
  parts=$(find "$spool" -maxdepth 1 -name '.*.part' | wc -l)
  record "${name}_no_part_left" "$([[ $parts == 0 ]] && echo PASS || echo FAIL)" "$parts .part files after exit"
  compare "$OUT/$name-checks.txt" windows "$name" "${csvs[@]}"
}

evaluate() {
  local name status detail cc_major rank ok
  while IFS='|' read -r name status detail; do
    record "$name" "$status" "$detail"
  done < "$STATUS"
  cc_major=$(cat "$OUT/compute_cap_major" 2> /dev/null)
  cc_major=${cc_major:-0}

  if attempted workload_run; then
    if [[ -s "$OUT/workload.json" && -s "$OUT/workload-plain.json" && -s "$OUT/workload-kernels.csv" ]]; then
      compare "$OUT/workload-checks.txt" workload "$OUT/workload.json" "$OUT/workload-kernels.csv"
      compare "$OUT/workload-integrity.txt" integrity workload "$OUT/workload-kernels.csv"
      overhead workload_steps "$OUT/workload-plain.json" "$OUT/workload.json" "$OVERHEAD_LIMIT_PCT"
    else
      record workload_trace FAIL "no trace or no workload output (see $LOG)"
    fi
  fi

  if attempted workload_torch_cupti_run; then
    if [[ -s "$OUT/workload-torch-cupti.json" && -s "$OUT/workload-torch-cupti-kernels.csv" ]]; then
      export CHECK_PREFIX=torch_cupti_   # the same checks, on rows of their own
      compare "$OUT/workload-torch-cupti-checks.txt" workload "$OUT/workload-torch-cupti.json" \
        "$OUT/workload-torch-cupti-kernels.csv"
      compare "$OUT/workload-torch-cupti-integrity.txt" integrity workload "$OUT/workload-torch-cupti-kernels.csv"
      unset CHECK_PREFIX
    else
      record workload_torch_cupti FAIL "no trace or no workload output with PyTorch's libcupti (see $LOG)"
    fi
  fi

  if attempted workload_windows_run; then
    if [[ -s "$OUT/workload-windows.json" && -s "$OUT/workload-long-plain.json" &&
          -s "$OUT/workload-long-agent.json" && -s "$OUT/workload-long-kernels.csv" ]]; then
      compare "$OUT/workload-long-integrity.txt" integrity workload_long "$OUT/workload-long-kernels.csv"
      # GPM windows are >= 100 ms: the long run holds many.
      compare "$OUT/workload-long-gpm.txt" gpm workload_long "$OUT/workload-long-kernels.csv" "$cc_major"
      windows_check workload_windows "$OUT/workload-spool"
      overhead workload_windows_vs_off "$OUT/workload-long-plain.json" "$OUT/workload-windows.json" \
        "$WINDOWS_OVERHEAD_LIMIT_PCT"
      overhead workload_whole_run_vs_off "$OUT/workload-long-plain.json" "$OUT/workload-long-agent.json" \
        "$OVERHEAD_LIMIT_PCT"
    else
      record workload_windows FAIL "no output from the long or windowed runs (see $LOG)"
    fi
  fi

  if attempted torch_run; then
    if [[ -s "$OUT/torch-profile.json" && -s "$OUT/torch-plain.json" && -s "$OUT/torch-agent.json" &&
          -s "$OUT/torch-kernels.csv" ]]; then
      compare "$OUT/torch-checks.txt" torch "$OUT/torch-profile.json" "$OUT/torch-agent.json" \
        "$OUT/torch-kernels.csv"
      compare "$OUT/torch-integrity.txt" integrity torch "$OUT/torch-kernels.csv"
      compare "$OUT/torch-numerics.txt" numerics torch_numerics "$OUT/torch-plain.json" "$OUT/torch-agent.json"
      overhead torch_steps "$OUT/torch-plain.json" "$OUT/torch-agent.json" "$OVERHEAD_LIMIT_PCT"
      compare "$OUT/torch-step-cost.txt" step_cost torch_whole_run "$OUT/torch-plain.json" \
        "$OUT/torch-agent.json" "$OVERHEAD_LIMIT_PCT"
    else
      record torch_trace FAIL "no agent trace, step timings or torch.profiler reference (see $LOG)"
    fi
  fi

  if attempted torch_profiler_run; then
    if [[ -s "$OUT/torch-profile-agent.json" && -s "$OUT/torch-profile.json" && -s "$OUT/torch-profile-agent.csv" ]]; then
      compare "$OUT/torch-profiler-checks.txt" profiler torch_under_agent "$OUT/torch-profile-agent.json" \
        "$OUT/torch-profile.json" "$OUT/torch-profile-agent.csv"
    else
      record torch_profiler_under_agent FAIL "no torch.profiler result or agent trace (see $LOG)"
    fi
  fi

  if attempted torch_host_run; then
    if [[ -s "$OUT/torch-host-plain.json" && -s "$OUT/torch-host-agent.json" ]]; then
      compare "$OUT/torch-host-cost.txt" host_cost torch_host_bound "$OUT/torch-host-plain.json" \
        "$OUT/torch-host-agent.json" "$OVERHEAD_LIMIT_PCT"
      compare "$OUT/torch-host-numerics.txt" numerics torch_host_numerics "$OUT/torch-host-plain.json" \
        "$OUT/torch-host-agent.json"
    else
      record torch_host_bound FAIL "no output from the host-bound runs (see $LOG)"
    fi
  fi

  if attempted torch_windows_run; then
    if [[ -s "$OUT/torch-windows.json" && -s "$OUT/torch-plain-long.json" ]]; then
      windows_check torch_windows "$OUT/torch-spool/main"
      compare "$OUT/torch-windows-numerics.txt" numerics torch_windows_numerics "$OUT/torch-plain-long.json" \
        "$OUT/torch-windows.json"
      overhead torch_windows_vs_off "$OUT/torch-plain-long.json" "$OUT/torch-windows.json" \
        "$WINDOWS_OVERHEAD_LIMIT_PCT"
      # Windows of 0.2 s every 6 s (the default 2 s in 60 s ratio): the mean over every step
      # (a median is an untraced step whatever a window costs), and the p99 at window edges.
      compare "$OUT/torch-windows-step-cost.txt" step_cost torch_windows_vs_off "$OUT/torch-plain-long.json" \
        "$OUT/torch-windows.json" "$WINDOWS_OVERHEAD_LIMIT_PCT"
    else
      record torch_windows FAIL "no output from the windowed PyTorch run (see $LOG)"
    fi
  fi

  if attempted nccl_run; then
    if [[ -s "$OUT/nccl.json" ]]; then
      # compare.py fails a rank whose CSV is missing when the run itself succeeded.
      compare "$OUT/nccl-checks.txt" nccl "$OUT/nccl.json" "$OUT/nccl-rank0.csv" "$OUT/nccl-rank1.csv"
      ok=$(json_field "$OUT/nccl.json" ok)
      for rank in 0 1; do
        if [[ $ok == True && -s "$OUT/nccl-rank$rank.csv" ]]; then
          compare "$OUT/nccl-rank$rank-integrity.txt" integrity "nccl_rank$rank" "$OUT/nccl-rank$rank.csv"
        fi
      done
    else
      record nccl_two_ranks FAIL "no result from the two-rank run (see $LOG)"
    fi
    if [[ -s "$OUT/nccl.json" && -s "$OUT/nccl-noplugin.json" && $(json_field "$OUT/nccl.json" ok) == True ]]; then
      compare "$OUT/nccl-latency.txt" nccl_latency plugin "$OUT/nccl.json" "$OUT/nccl-noplugin.json" \
        "$NCCL_LATENCY_LIMIT_PCT"
    fi
  fi

  if attempted ceilings_run; then
    # The measured ceilings (docs/counters.md): present, positive, ordered as every GPU orders its
    # pipes (16-bit tensor above TF32 above FP32), and with a bandwidth.
    if detail=$(python3 - "$OUT/ceilings.json" 2>> "$LOG" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["devices"][0]
g, bw = d["gemm_flops_per_s"], d.get("memory_bandwidth_bytes_per_s", 0)
ok = bw > 0 and all(v > 0 for v in g.values()) and g["bf16"] > g["tf32"] > g["fp32"]
print(f"{d['device']}: " + ", ".join(f"{k} {v / 1e12:.0f} TF" for k, v in g.items())
      + f", {bw / 1e12:.2f} TB/s, SM {d.get('sm_clock_mhz', '?')} MHz")
sys.exit(0 if ok else 1)
PY
    ); then
      record ceilings PASS "$detail"
    else
      record ceilings FAIL "${detail:-no ceilings file} (see $LOG)"
    fi
  fi

  if attempted sigterm_run; then
    if [[ -s "$OUT/sigterm.csv" ]]; then
      compare "$OUT/sigterm-integrity.txt" integrity sigterm "$OUT/sigterm.csv"
    else
      record sigterm_trace FAIL "no trace from the process ended by SIGTERM (see $LOG)"
    fi
  fi

  echo
  echo "Agent traces and logs: $OUT"
  printf '%-36s %-5s %s\n' CHECK STATUS DETAIL
  for row in "${SUMMARY[@]}"; do
    IFS='|' read -r name status detail <<< "$row"
    printf '%-36s %-5s %s\n' "$name" "$status" "$detail"
  done
  return $FAILED
}

if [[ $mode == evaluate ]]; then
  if [[ ! -f "$STATUS" ]]; then
    echo "$OUT: no run-status.txt: not a folder scripts/gpu-check.sh wrote" >&2
    exit 2
  fi
  evaluate
  exit $?
fi

# ---------------------------------------------------------------------------------------------
# The run (GPU machine): build, run, dump every trace to CSV.

WORK="$OUT/work"
mkdir -p "$WORK"
CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export PATH="$CUDA_HOME/bin:$PATH"

note "GPU"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm --format=csv | tee -a "$LOG"
  nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null | head -n 1 | cut -d. -f1 \
    > "$OUT/compute_cap_major"
fi

note "build the agent (standalone, CUDA + C++ only)"
if run_logged cmake cmake -S "$ROOT/src/collect" -B "$WORK/build-agent" -G Ninja \
     -DCMAKE_BUILD_TYPE=Release -DPLASMIENT_WITH_CUDA=ON &&
   run_logged ninja ninja -C "$WORK/build-agent" plasmient_agent plasmient_agent_dump plasmient_agent_run; then
  record_run build_agent PASS "$WORK/build-agent/libplasmient_agent.so"
else
  record_run build_agent FAIL "see $LOG"
fi
AGENT="$WORK/build-agent/libplasmient_agent.so"
if [[ -f "$AGENT" ]]; then   # loads wherever PyTorch loads: NEEDED, GLIBC_ <= 2.28, preload harmless
  if portable=$(sh "$ROOT/src/collect/agent/portable_check.sh" "$AGENT" 2>&1); then
    record_run agent_portable PASS "$(echo "$portable" | grep NEEDED | sed 's/^agent_portable: //')"
  else
    record_run agent_portable FAIL "$(echo "$portable" | grep FAIL | head -n 2 | tr '\n' ' ')"
  fi
fi
DUMP="$WORK/build-agent/plasmient_agent_dump"
LAUNCH="$WORK/build-agent/plasmient_agent_run"

note "build the CUDA workload"
if run_logged nvcc nvcc -O2 -std=c++17 -arch=native "$ROOT/src/collect/gpu_check/workload.cu" -lcublas \
     -o "$WORK/workload"; then
  record_run build_workload PASS "nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')"
else
  record_run build_workload FAIL "see $LOG"
fi

have_python=0
command -v python3 > /dev/null && have_python=1
[[ $have_python == 0 ]] && record_run python SKIP "python3 missing: no comparison can run"

dump_csv() {   # dump_csv TRACE CSV: summary to the log, CSV for compare.py
  "$DUMP" "$1" >> "$LOG" 2>&1
  "$DUMP" "$1" --kernels > "$2" 2>> "$LOG"
}
largest_trace() {   # largest_trace DIR [NAME-GLOB]: the biggest .pltrace (the process that worked)
  find "$1" -name "${2:-*.pltrace}" -printf '%s %p\n' 2> /dev/null | sort -rn | head -n 1 | cut -d' ' -f2-
}
dump_spool() {   # dump_spool DIR: every window file to FILE.csv
  local f
  while IFS= read -r f; do dump_csv "$f" "$f.csv"; done < <(find "$1" -maxdepth 1 -name '*.pltrace' | sort)
}
workload() {   # workload NAME OUT.json STEPS [LAUNCHER ARGS...]: the workload, under the launcher if given
  local name=$1 out=$2 steps=$3; shift 3
  # shellcheck disable=SC2016  # expanded by the inner shell, which writes stdout to $0
  run_step "$name" sh -c '"$@" > "$0"' "$out" "$@" "$WORK/workload" 8192 20 "$steps"
}

if [[ -x "$WORK/workload" && -f "$AGENT" && $have_python == 1 ]]; then
  record_run workload_run RAN "60 steps with and without the agent"
  note "workload without the agent"
  workload workload_plain "$OUT/workload-plain.json" 60
  note "workload under the agent"
  rm -rf "$OUT/workload-trace"
  workload workload_agent "$OUT/workload.json" 60 "$LAUNCH" --out "$OUT/workload-trace" --agent "$AGENT" --
  trace=$(largest_trace "$OUT/workload-trace")
  [[ -n "$trace" ]] && dump_csv "$trace" "$OUT/workload-kernels.csv"

  # PyTorch's own libcupti (cu13 wheels may ship a newer 13.x minor than the toolkit's) in place
  # of the build's, as when PyTorch has loaded it first: the agent reads its records with the
  # build's layouts, and the workload's checks say whether that holds.
  torch_cupti=$(python3 -c 'import glob, site
dirs = site.getsitepackages() + [site.getusersitepackages()]
found = [f for d in dirs for f in sorted(glob.glob(d + "/nvidia/**/libcupti.so.13*", recursive=True))]
print(found[0] if found else "")' 2>> "$LOG")
  if [[ -n "$torch_cupti" ]]; then
    record_run workload_torch_cupti_run RAN "$torch_cupti"
    note "workload under the agent with PyTorch's libcupti ($torch_cupti)"
    # Only libcupti from the wheel's folder: the rest (cuBLAS, ...) stays the toolkit's.
    mkdir -p "$WORK/torch-cupti" && ln -sf "$torch_cupti" "$WORK/torch-cupti/libcupti.so.13"
    rm -rf "$OUT/workload-torch-cupti-trace"
    workload workload_torch_cupti "$OUT/workload-torch-cupti.json" 60 env \
      LD_LIBRARY_PATH="$WORK/torch-cupti${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      NVTX_INJECTION64_PATH="$WORK/torch-cupti/libcupti.so.13" \
      "$LAUNCH" --out "$OUT/workload-torch-cupti-trace" --agent "$AGENT" --
    trace=$(largest_trace "$OUT/workload-torch-cupti-trace")
    [[ -n "$trace" ]] && dump_csv "$trace" "$OUT/workload-torch-cupti-kernels.csv"
    newer=$(grep -o 'libcupti [0-9]* is newer than the build.s [0-9]*' "$LOG" | tail -n 1)
    record_run workload_torch_cupti_version INFO "${newer:-the same CUPTI version as the build}"
  else
    record_run workload_torch_cupti SKIP "no libcupti.so.13 among PyTorch's packages"
  fi

  # Duty-cycled windows into a spool (PLASMIENT_PERIOD_S, PLASMIENT_WINDOW_S), against no agent
  # and against whole-run tracing of the same long run.
  WINDOW_STEPS=12000   # a few seconds of steps: several 0.3 s windows every 1 s
  record_run workload_windows_run RAN "$WINDOW_STEPS steps: no agent, whole-run agent, windowed agent"
  note "workload, $WINDOW_STEPS steps: no agent, whole-run agent, windowed agent"
  workload workload_long_plain "$OUT/workload-long-plain.json" "$WINDOW_STEPS"
  rm -rf "$OUT/workload-long-trace" "$OUT/workload-spool" && mkdir -p "$OUT/workload-spool"
  workload workload_long_agent "$OUT/workload-long-agent.json" "$WINDOW_STEPS" "$LAUNCH" --out "$OUT/workload-long-trace" \
    --agent "$AGENT" --
  trace=$(largest_trace "$OUT/workload-long-trace")
  [[ -n "$trace" ]] && dump_csv "$trace" "$OUT/workload-long-kernels.csv"
  workload workload_windows "$OUT/workload-windows.json" "$WINDOW_STEPS" env PLASMIENT_PERIOD_S=1 PLASMIENT_WINDOW_S=0.3 \
    PLASMIENT_SPOOL="$OUT/workload-spool" "$LAUNCH" --out "$OUT/workload-windows-out" --agent "$AGENT" --
  dump_spool "$OUT/workload-spool"
fi

if [[ $have_python == 1 ]] && python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>> "$LOG" &&
   [[ -f "$AGENT" ]]; then
  STEPS="$ROOT/src/collect/gpu_check/torch_steps.py"
  record_run torch_run RAN "30 training steps: torch.profiler, plain, agent"
  note "PyTorch steps: torch.profiler (reference)"
  run_step torch_profile python3 "$STEPS" profile "$OUT/torch-profile.json"
  note "PyTorch steps: plain"
  run_step torch_plain python3 "$STEPS" plain "$OUT/torch-plain.json"
  note "PyTorch steps: under the agent"
  rm -rf "$OUT/torch-trace"
  run_step torch_agent "$LAUNCH" --out "$OUT/torch-trace" --agent "$AGENT" -- \
    python3 "$STEPS" plain "$OUT/torch-agent.json"
  # The largest file: the training process (the launcher's shell children trace nothing).
  trace=$(largest_trace "$OUT/torch-trace")
  [[ -n "$trace" ]] && dump_csv "$trace" "$OUT/torch-kernels.csv"

  # torch.profiler under the agent: the profiler keeps every kernel, the agent counts the span it
  # could not see and traces the steps after it.
  record_run torch_profiler_run RAN "torch.profiler over 30 steps, then 30 more, under the agent"
  note "PyTorch steps: torch.profiler under the agent"
  rm -rf "$OUT/torch-profile-trace"
  run_step torch_profiler_agent "$LAUNCH" --out "$OUT/torch-profile-trace" --agent "$AGENT" -- \
    python3 "$STEPS" profile-then-plain "$OUT/torch-profile-agent.json"
  trace=$(largest_trace "$OUT/torch-profile-trace")
  [[ -n "$trace" ]] && dump_csv "$trace" "$OUT/torch-profile-agent.csv"

  # The default duty ratio (2 s in 60 s) shortened to 0.2 s in 6 s; wall-clock phased, the first
  # window opens 5.8-11.8 s after the start: ~14 s of steps hold one or two. No per-step sync:
  # the window's close must wait for the kernels queued ahead (no drops, none between windows).
  record_run torch_windows_run RAN "7000 training steps: plain, windowed agent (0.2 s every 6 s)"
  note "PyTorch steps under the windowed agent (0.2 s every 6 s: the default duty ratio)"
  rm -rf "$OUT/torch-spool" && mkdir -p "$OUT/torch-spool/main"
  run_step torch_plain_long python3 "$STEPS" plain "$OUT/torch-plain-long.json" 7000
  run_step torch_windows env PLASMIENT_PERIOD_S=6 PLASMIENT_WINDOW_S=0.2 PLASMIENT_SPOOL="$OUT/torch-spool" \
    "$LAUNCH" --out "$OUT/torch-windows-out" --agent "$AGENT" -- python3 "$STEPS" plain "$OUT/torch-windows.json" 7000
  # The launcher's shell children write spools of their own: keep the training process's files.
  pid=$(largest_trace "$OUT/torch-spool" | xargs -r basename | awk -F- '{print $(NF-1)}')
  [[ -n "$pid" ]] && find "$OUT/torch-spool" -maxdepth 1 -name "*-$pid-*.pltrace" -exec mv {} "$OUT/torch-spool/main/" \;
  dump_spool "$OUT/torch-spool/main"

  record_run nccl_run RAN "two ranks (NCCL_HOSTID each on one GPU), 50 x 4 MiB, 1000 x 8 KiB timed"
  note "NCCL: two ranks, all-reduce, under the agent"
  rm -rf "$OUT/nccl-trace"
  run_step nccl "$LAUNCH" --out "$OUT/nccl-trace" --agent "$AGENT" -- \
    python3 "$ROOT/src/collect/gpu_check/nccl_allreduce.py" "$OUT/nccl.json" 50
  note "NCCL: the same without the profiler plugin (its latency cost)"
  run_step nccl_noplugin env NCCL_PROFILER_PLUGIN=none \
    python3 "$ROOT/src/collect/gpu_check/nccl_allreduce.py" "$OUT/nccl-noplugin.json" 50
  for rank in 0 1; do
    trace=$(largest_trace "$OUT/nccl-trace" "plasmient.rank$rank.*.pltrace")
    [[ -n "$trace" ]] && dump_csv "$trace" "$OUT/nccl-rank$rank.csv"
  done

  # Host-bound steps (~50 us kernels): the agent's per-launch host cost shows in host time.
  record_run torch_host_run RAN "200 host-bound steps (width 256, batch 64): plain, agent"
  note "PyTorch host-bound steps: plain, under the agent"
  run_step torch_host_plain python3 "$STEPS" plain "$OUT/torch-host-plain.json" 200 host
  run_step torch_host_agent "$LAUNCH" --out "$OUT/torch-host-trace" --agent "$AGENT" -- \
    python3 "$STEPS" plain "$OUT/torch-host-agent.json" 200 host

  # Measured ceilings: what dense GEMMs per dtype and a device copy achieve on this GPU, for
  # `analyze --ceiling measured --ceilings $OUT/ceilings.json` (docs/counters.md).
  record_run ceilings_run RAN "8192^3 GEMMs per dtype (bf16, fp16, tf32, fp32, fp8) and a 2 GiB copy"
  note "measured ceilings"
  run_step ceilings_measure python3 "$ROOT/src/collect/gpu_check/ceilings.py" "$OUT/ceilings.json"

  # SIGTERM after 8 s: the process dies of it (143) and its trace is complete.
  record_run sigterm_run RAN "SIGTERM after 8 s of training under the agent"
  note "SIGTERM under the agent"
  rm -rf "$OUT/sigterm-trace"
  run_logged sigterm timeout --preserve-status -s TERM 8 "$LAUNCH" --out "$OUT/sigterm-trace" --agent "$AGENT" -- \
    python3 "$STEPS" plain "$OUT/sigterm.json" 1000000
  rc=$?
  record_run sigterm_exit "$([[ $rc == 143 ]] && echo PASS || echo FAIL)" "exit $rc (want 143)"
  trace=$(largest_trace "$OUT/sigterm-trace")
  [[ -n "$trace" ]] && dump_csv "$trace" "$OUT/sigterm.csv"
else
  record_run torch SKIP "PyTorch with CUDA not available (training steps and NCCL not run)"
fi
record_run run_time INFO "$SECONDS s from start to the last trace dumped"

evaluate
exit $?
