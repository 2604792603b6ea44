#!/usr/bin/env bash
# The report's vertical trace (section `lanes`) read in headless Chromium: the page is driven to
# known instants (`#at=<ns>` in the URL), the cursor's sentence is read from the rendered DOM and
# compared with `plasmient explain --json` at the same instant (html_lanes_check.py), on the synth
# straggler job and, where ../shared/traces is present, on the real two-rank job.
# Usage: html_lanes_test.sh PLASMIENT_BIN [OUT_DIR]   (exit 77: skipped, no Chromium)
set -euo pipefail

bin=${1:?usage: html_lanes_test.sh PLASMIENT_BIN [OUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$(mktemp -d)}
mkdir -p "$out"

# shellcheck source=tests/chromium_headless.sh
source "$here/chromium_headless.sh"

rm -rf "$out/straggler"
"$bin" synth --scenario straggler --ranks 4 --steps 4 --seed 7 -o "$out/straggler" >/dev/null
"$bin" analyze "$out/straggler" --html "$out/straggler.html" -q
python3 "$here/html_self_contained.py" "$out/straggler.html"
echo "straggler:"
python3 "$here/html_lanes_check.py" "$bin" "$chromium" "$out/straggler.html" "$out/straggler.work" \
  --expect-wait "$out/straggler"

traces=${PLASMIENT_SHARED_TRACES:-$here/../../shared/traces}
if [[ -d $traces/hta/trace_filter ]]; then
  "$bin" analyze "$traces/hta/trace_filter" --html "$out/trace_filter.html" -q
  python3 "$here/html_self_contained.py" "$out/trace_filter.html"
  echo "hta/trace_filter (2 ranks):"
  python3 "$here/html_lanes_check.py" "$bin" "$chromium" "$out/trace_filter.html" "$out/trace_filter.work" \
    "$traces/hta/trace_filter"
else
  echo "note: $traces is absent: the lanes are checked on the synth job only"
fi
echo "OK"
