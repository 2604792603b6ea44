#!/usr/bin/env bash
# Renders the HTML report of `plasmient demo` (an 8-rank job with a straggler) in headless Chromium, with networking
# disabled, and checks that the page draws (the screenshot is not blank), that the verdict,
# roofline and waterfall are in the rendered DOM, and that the page references nothing outside
# (inline scripts are allowed; none may load anything).
# The model-layer icicle's boxes are read back from the DOM and compared with the --json layers
# (html_layers_check.py), for the demo and, where ../shared/traces is present, the dev traces
# with nn.Module events; then each page is opened zoomed into a decoder layer (`#zoom=<path>`,
# read by the page's script) and the relaid boxes are checked against their GPU time.
# Usage: html_render_test.sh PLASMIENT_BIN [OUT_DIR]   (exit 77: skipped, no Chromium)
set -euo pipefail

bin=${1:?usage: html_render_test.sh PLASMIENT_BIN [OUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$(mktemp -d)}
mkdir -p "$out"

# shellcheck source=tests/chromium_headless.sh
source "$here/chromium_headless.sh"

rm -rf "$out/demo"
"$bin" demo -o "$out/demo" --html "$out/report.html" --perfetto "$out/report.trace.json" \
  --json "$out/report.json" -q

# Nothing outside the file: no external URLs, stylesheets or fonts; inline scripts only, none that
# loads anything, within a byte budget (html_self_contained.py).
self_contained() {
  python3 "$here/html_self_contained.py" "$1" || exit 1
}
self_contained "$out/report.html"

url="file://$out/report.html"
timeout 120 "$chromium" "${flags[@]}" --window-size=1280,2000 --screenshot="$out/report.png" "$url" \
  >"$out/chromium.log" 2>&1 || { echo "FAIL: chromium did not render"; tail -20 "$out/chromium.log"; exit 1; }
timeout 120 "$chromium" "${flags[@]}" --dump-dom "$url" >"$out/dom.html" 2>>"$out/chromium.log" ||
  { echo "FAIL: chromium did not dump the DOM"; exit 1; }

for id in verdict roofline waterfall heatmap stragglers layers icicle layer-types; do
  grep -q "id=\"$id\"" "$out/dom.html" || { echo "FAIL: no id=\"$id\" in the rendered DOM"; exit 1; }
done

python3 "$here/png_colors.py" "$out/report.png" 40
python3 "$here/html_layers_check.py" "$out/dom.html" "$out/report.json"

# Opens NAME.html at #zoom=<the drawn node of a type matching TYPE_REGEX with the most GPU
# time> and checks the zoomed layout against the JSON. Usage: zoom_check NAME TYPE_REGEX
zoom_check() {
  local name=$1 path fragment
  path=$(python3 "$here/html_layers_check.py" --pick "$2" "$out/$name.dom.html" "$out/$name.json") ||
    { echo "$path"; exit 1; }
  fragment=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.urlencode({"zoom": sys.argv[1]}))' "$path")
  timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$out/$name.html#$fragment" >"$out/$name.zoom.dom.html" \
    2>>"$out/chromium.log" || { echo "FAIL: chromium did not dump the zoomed DOM of $name"; exit 1; }
  python3 "$here/html_layers_check.py" --zoomed "$path" "$out/$name.zoom.dom.html" "$out/$name.json"
  # The same, clicked: in, out a level, Escape (the DevTools protocol on a pipe).
  timeout 120 python3 "$here/html_click_check.py" "$chromium" "$out/$name.html" "$path" "$out/$name.click.dom.html" \
    "${flags[@]}" --window-size=1280,2400 || { echo "FAIL: clicking the icicle of $name"; exit 1; }
  python3 "$here/html_layers_check.py" --zoomed "$path" "$out/$name.click.dom.html" "$out/$name.json"
}
cp "$out/dom.html" "$out/report.dom.html"
zoom_check report '^Block$'

# The dev traces with nn.Module events: the icicle of a real module tree.
traces=${PLASMIENT_SHARED_TRACES:-$here/../../shared/traces}
if [[ -d $traces/tracelens ]]; then
  for trace in "$traces"/tracelens/h100/Qwen*.json.gz "$traces"/tracelens/h100/facebook_timesformer*.json.gz \
               "$traces"/tracelens/mi300/resnet_act_checkpoint*.json.gz; do
    [[ -f $trace ]] || continue
    name=$(basename "$trace" .json.gz)
    "$bin" analyze "$trace" --html "$out/$name.html" --json "$out/$name.json" -q
    self_contained "$out/$name.html"
    timeout 120 "$chromium" "${flags[@]}" --window-size=1280,2400 --screenshot="$out/$name.png" \
      "file://$out/$name.html" >>"$out/chromium.log" 2>&1 || { echo "FAIL: chromium did not render $name"; exit 1; }
    timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$out/$name.html" >"$out/$name.dom.html" \
      2>>"$out/chromium.log" || { echo "FAIL: chromium did not dump the DOM of $name"; exit 1; }
    python3 "$here/png_colors.py" "$out/$name.png" 40
    echo "$name:"
    python3 "$here/html_layers_check.py" "$out/$name.dom.html" "$out/$name.json"
    case $name in Qwen*) zoom_check "$name" 'DecoderLayer$' ;; esac
  done
else
  echo "note: $traces is absent: the icicle is checked on the demo only"
fi
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["traceEvents"]) > 100, "few events"' \
  "$out/report.trace.json"
echo "OK: $out/report.png"
