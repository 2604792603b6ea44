#!/usr/bin/env bash
# Two builds of `plasmient analyze` side by side on the same inputs, run after run in turn: A, B,
# B, A, A, B, ... On a shared or virtual machine the speed of the same binary drifts by tens of percent
# from one minute to the next, so only runs interleaved like this compare two builds; each
# figure is then printed as min / median / max per build, and B's medians over A's.
# Usage: bench/analyze_ab.sh PLASMIENT_A PLASMIENT_B [INPUT ...]
#   INPUT: a trace file or a folder of ranks; default a generated 400 MB trace (its gzip too)
#   and a generated 1,024-rank job, made with PLASMIENT_A. RUNS=N runs each build N times per
#   input (default 8). Needs /usr/bin/time (Debian: time).
set -euo pipefail
a=${1:?usage: bench/analyze_ab.sh PLASMIENT_A PLASMIENT_B [INPUT ...]}
b=${2:?usage: bench/analyze_ab.sh PLASMIENT_A PLASMIENT_B [INPUT ...]}
shift 2
runs=${RUNS:-8}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/plasmient-ab-XXXXXX")
trap 'rm -rf "$work"' EXIT

inputs=("$@")
if ((${#inputs[@]} == 0)); then
  tool=$(dirname "$(realpath "$a")")/bench/ingest_tool
  [[ -x $tool ]] || tool=$here/../build/bench/ingest_tool
  "$tool" --make-trace "$work/big.json" 400 >/dev/null
  gzip -1 -c "$work/big.json" >"$work/big.json.gz"
  "$a" synth --scenario ddp --ranks 1024 --steps 2 -o "$work/job" >/dev/null
  inputs=("$work/big.json" "$work/big.json.gz" "$work/job")
fi

bytes_of() {  # uncompressed JSON bytes: of a file (inflated if gzip), or of a folder's rank files
  local total=0 f
  if [[ -d $1 ]]; then
    for f in "$1"/*.json "$1"/*.json.gz; do
      [[ -f $f ]] && total=$((total + $(bytes_of "$f")))
    done
    echo "$total"
  elif [[ $1 == *.gz ]]; then
    gzip -dc "$1" | wc -c
  else
    stat -c %s "$1"
  fi
}

echo "plasmient analyze, A = $a, B = $b, $runs runs each, alternated ($(nproc) cores)"
for input in "${inputs[@]}"; do
  bytes=$(bytes_of "$input")
  : >"$work/times"
  for ((i = 0; i < runs; i++)); do
    order=(A B)
    ((i % 2 == 0)) || order=(B A)  # A B B A A B ...: neither build always goes first
    for side in "${order[@]}"; do
      bin=$a
      [[ $side == B ]] && bin=$b
      /usr/bin/time -f "$side %e %U %S %M" -a -o "$work/times" "$bin" analyze "$input" -q --json "$work/v.json" \
        >/dev/null
    done
  done
  awk -v label="$(basename "$input")" -v bytes="$bytes" '
    function sort(v, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t } }
    function median(v, n) { sort(v, n); return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
    function spread(v, n, f,   m) { m = median(v, n); return sprintf(f " / " f " / " f, v[1], m, v[n]) }
    { k = ++n[$1]; wall[$1, k] = $2; cpu[$1, k] = $3 + $4; rss[$1, k] = $5 / 1024 }
    END {
      printf "%s (%.0f MB)\n", label, bytes / 1e6
      for (s = 0; s < 2; s++) {
        side = s ? "B" : "A"; m = n[side]
        for (k = 1; k <= m; k++) { w[k] = wall[side, k]; c[k] = cpu[side, k]; r[k] = rss[side, k] }
        ws = spread(w, m, "%.2f"); mw[side] = median(w, m); cs = spread(c, m, "%.2f"); mc[side] = median(c, m)
        rs = spread(r, m, "%.0f")
        printf "  %s  wall %s s  (%.0f MB/s median)  CPU %s s  peak RSS %s MB\n", side, ws, bytes / 1e6 / mw[side], cs, rs
      }
      printf "  B/A  wall %.3f  CPU %.3f  (medians; below 1: B is faster)\n", mw["B"] / mw["A"], mc["B"] / mc["A"]
    }' "$work/times"
done
