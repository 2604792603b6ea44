#!/usr/bin/env bash
# The report's what-if panel (docs/what-if.md, "In the report") in headless Chromium with
# networking off: each generated run's report is opened at a setting (#batch=32, …), and the
# figures its script placed must be `plasmient whatif`'s for the same trace and levers, at the
# page's printed precision (html_whatif_check.py), the trust-range warning shown where the
# projection gives one. The page must need nothing outside itself (html_self_contained.py).
# Usage: html_whatif_test.sh PLASMIENT_BIN [OUT_DIR]   (exit 77: skipped, no Chromium)
set -euo pipefail

bin=${1:?usage: html_whatif_test.sh PLASMIENT_BIN [OUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$(mktemp -d)}
mkdir -p "$out"

# shellcheck source=tests/chromium_headless.sh
source "$here/chromium_headless.sh"
flags+=(--virtual-time-budget=5000)  # the panel's script runs before the DOM is dumped

report() {  # report NAME SYNTH_FLAGS...: the run and its report
  local name=$1; shift
  rm -rf "${out:?}/$name"
  "$bin" synth -o "$out/$name" "$@" >/dev/null
  "$bin" analyze "$out/$name" -q --html "$out/$name.html"
  python3 "$here/html_self_contained.py" "$out/$name.html"
}
check() {  # check NAME HASH SCALE WHATIF_FLAGS...: the page at #HASH shows whatif's figures
  local name=$1 hash=$2 scale=$3; shift 3
  "$bin" whatif "$out/$name" -q --json "$out/$name-$scale.json" "$@"
  timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$out/$name.html#$hash" >"$out/$name-$scale.dom.html" \
    2>>"$out/chromium.log" || { echo "FAIL: chromium did not dump the DOM of $name"; tail -5 "$out/chromium.log"; exit 1; }
  python3 "$here/html_whatif_check.py" "$out/$name-$scale.dom.html" "$out/$name-$scale.json" "$scale"
}

# Decode at batch 1 (the model of tests/whatif_synth_test.cc): the slider at 32×.
report decode --scenario decode --ranks 1 --steps 3 --hidden 8192 --heads 64 --layers 2 --context 256 --seed 21 --batch 1
check decode "batch=32" 32 --batch-scale 32
check decode "batch=1" 1
# A long context on 32 layers: the KV cache stops fitting past a few times the batch, and the
# panel shows the trust-range warning there, not before.
report longctx --scenario decode --ranks 1 --steps 2 --hidden 8192 --heads 64 --layers 32 --context 4096 --seed 21 --batch 1
check longctx "batch=4" 4 --batch-scale 4
check longctx "batch=64" 64 --batch-scale 64
grep -q 'class="up"' "$out/longctx-64.dom.html" || { echo "FAIL: no trust-range warning at 64x"; exit 1; }
! grep -q 'class="up"' "$out/longctx-4.dom.html" || { echo "FAIL: a trust-range warning at 4x"; exit 1; }
# All-reduces after backward on 2 ranks: the overlap toggle with the slider.
report ddp --scenario ddp-exposed --ranks 2 --steps 3 --seed 22
check ddp "batch=4&overlap-comm=1" 4 --batch-scale 4 --overlap-comm
check ddp "batch=1&cuda-graphs=1" 1 --cuda-graphs
echo "OK: $out"
