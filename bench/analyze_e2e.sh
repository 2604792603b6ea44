#!/usr/bin/env bash
# Whole-process benchmarks of `plasmient analyze` (wall time, MB/s of JSON, user+sys CPU seconds,
# peak RSS):
#   1. one uncompressed Kineto trace of MB megabytes (default 400), plain and gzip;
#   2. generated data-parallel jobs of 1, 16 and RANKS ranks (default 1024) of STEPS steps each
#      (default 2: about 440 KB a rank, 450 MB for 1,024 ranks), their ranks on every core (--jobs,
#      default the core count), beside the single-trace figure above.
# Usage: bench/analyze_e2e.sh [BUILD_DIR] [MB] [RANKS] [STEPS]. Needs /usr/bin/time (Debian: time).
# On a shared machine wall time is noise; the CPU seconds per MB are the steadier figure.
set -euo pipefail
build=${1:-build}
mb=${2:-400}
ranks=${3:-1024}
steps=${4:-2}
plasmient=$build/plasmient
work=$(mktemp -d "${TMPDIR:-/tmp}/plasmient-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

# Prints "label: wall s, MB/s, CPU s, peak RSS MB" for one measured command over `bytes` of input.
measure() {
  local label=$1 bytes=$2
  shift 2
  /usr/bin/time -f '%e %M %U %S' -o "$work/time" "$@" >/dev/null
  read -r wall rss_kb user sys <"$work/time"
  awk -v l="$label" -v b="$bytes" -v w="$wall" -v r="$rss_kb" -v c="$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" \
    'BEGIN { printf "%-38s %7.2f s  %6.0f MB/s  CPU %6.2f s (%5.0f MB per CPU-s)  peak RSS %6.0f MB  (input %.0f MB)\n", l, w, b / 1e6 / w, c, b / 1e6 / c, r / 1024, b / 1e6 }'
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
