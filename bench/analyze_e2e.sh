#!/usr/bin/env bash
# Whole-process benchmarks of `plasmient analyze` (wall time, MB/s of JSON, user+sys CPU seconds,
# peak RSS):
#   1. one uncompressed Kineto trace of MB megabytes (default 400), plain and gzip;
#   2. generated data-parallel jobs of 1, 16 and RANKS ranks (default 1024) of STEPS steps each
#      (default 2: about 440 KB a rank, 450 MB for 1,024 ranks), their ranks on every core (--jobs,
#      default the core count), beside the single-trace figure above.
# Usage: bench/analyze_e2e.sh [BUILD_DIR] [MB] [RANKS] [STEPS]. Needs /usr/bin/time (Debian: time).
# RUNS=N (default 3) times each command N times and prints the minimum, median and maximum of each
# figure (MB/s from the wall times): the spread from run to run is part of the result.
# On a shared machine wall time is noise; the CPU seconds per MB are the steadier figure.
set -euo pipefail
build=${1:-build}
mb=${2:-400}
ranks=${3:-1024}
steps=${4:-2}
plasmient=$build/plasmient
work=$(mktemp -d "${TMPDIR:-/tmp}/plasmient-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

runs=${RUNS:-3}

# Prints "label: wall s, MB/s, CPU s, peak RSS MB", each as min / median / max of `runs` runs of
# one command over `bytes` of input.
measure() {
  local label=$1 bytes=$2
  shift 2
  : >"$work/times"
  for ((i = 0; i < runs; i++)); do
    /usr/bin/time -f '%e %M %U %S' -o "$work/time" "$@" >/dev/null
    cat "$work/time" >>"$work/times"
  done
  awk -v l="$label" -v b="$bytes" '
    function sorted(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t } }
    { w[NR] = $1; r[NR] = $2 / 1024; c[NR] = $3 + $4 }
    END {
      n = NR; m = int((n + 1) / 2); sorted(w, n); sorted(r, n); sorted(c, n)
      printf "%-38s wall %.2f / %.2f / %.2f s  %4.0f / %4.0f / %4.0f MB/s  CPU %.2f / %.2f / %.2f s  peak RSS %.0f / %.0f / %.0f MB  (input %.0f MB, %d runs: min / median / max)\n", \
        l, w[1], w[m], w[n], b / 1e6 / w[n], b / 1e6 / w[m], b / 1e6 / w[1], c[1], c[m], c[n], r[1], r[m], r[n], b / 1e6, n
    }' "$work/times"
}

echo "plasmient analyze, end to end ($(nproc) cores)"
"$build/bench/ingest_tool" --make-trace "$work/big.json" "$mb" >/dev/null
size=$(stat -c %s "$work/big.json")
measure "single trace, plain JSON" "$size" "$plasmient" analyze "$work/big.json" -q --json "$work/v.json"
gzip -1 -c "$work/big.json" >"$work/big.json.gz"
measure "single trace, gzip (uncompressed MB/s)" "$size" "$plasmient" analyze "$work/big.json.gz" -q --json "$work/v.json"
rm -f "$work/big.json" "$work/big.json.gz"

for n in $(printf '%s\n' 1 16 "$ranks" | sort -nu); do
  "$plasmient" synth --scenario ddp --ranks "$n" --steps "$steps" -o "$work/job" >/dev/null
  size=$(du -cb "$work"/job/rank-*.pt.trace.json | tail -1 | cut -f1)
  measure "$n-rank x $steps-step job" "$size" "$plasmient" analyze "$work/job" -q --json "$work/job.json"
  rm -rf "$work/job" "$work/job.json"
done
