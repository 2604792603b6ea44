#!/usr/bin/env bash
# Whole-process benchmarks of `plasmient analyze` (wall time, MB/s of JSON, peak RSS):
#   1. one uncompressed Kineto trace of MB megabytes (default 400), plain and gzip;
#   2. a generated RANKS-rank x STEPS-step data-parallel job (default 1024 x 10), its ranks on every
#      core (--jobs, default the core count).
# Usage: bench/analyze_e2e.sh [BUILD_DIR] [MB] [RANKS] [STEPS]. Needs /usr/bin/time (Debian: time).
set -euo pipefail
build=${1:-build}
mb=${2:-400}
ranks=${3:-1024}
steps=${4:-10}
plasmient=$build/plasmient
work=$(mktemp -d "${TMPDIR:-/tmp}/plasmient-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT

# Prints "label: wall s, MB/s, peak RSS MB" for one measured command over `bytes` of input.
measure() {
  local label=$1 bytes=$2
  shift 2
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null
  read -r wall rss_kb <"$work/time"
  awk -v l="$label" -v b="$bytes" -v w="$wall" -v r="$rss_kb" \
    'BEGIN { printf "%-34s %7.2f s  %8.0f MB/s  peak RSS %6.0f MB  (input %.0f MB)\n", l, w, b / 1e6 / w, r / 1024, b / 1e6 }'
}

echo "plasmient analyze, end to end ($(nproc) cores)"
"$build/bench/ingest_tool" --make-trace "$work/big.json" "$mb" >/dev/null
size=$(stat -c %s "$work/big.json")
measure "single trace, plain JSON" "$size" "$plasmient" analyze "$work/big.json" -q --json "$work/v.json"
gzip -1 -c "$work/big.json" >"$work/big.json.gz"
measure "single trace, gzip (uncompressed MB/s)" "$size" "$plasmient" analyze "$work/big.json.gz" -q --json "$work/v.json"
rm -f "$work/big.json" "$work/big.json.gz"

"$plasmient" synth --scenario ddp --ranks "$ranks" --steps "$steps" -o "$work/job" >/dev/null
size=$(du -cb "$work"/job/rank-*.pt.trace.json | tail -1 | cut -f1)
measure "$ranks-rank x $steps-step job" "$size" "$plasmient" analyze "$work/job" -q --json "$work/job.json"
