#!/usr/bin/env bash
# Renders the HTML report of `plasmient demo` (an 8-rank job with a straggler) in headless Chromium, with networking
# disabled, and checks that the page draws (the screenshot is not blank), that the verdict,
# roofline and waterfall are in the rendered DOM, and that the page references nothing outside.
# Usage: html_render_test.sh PLASMIENT_BIN [OUT_DIR]   (exit 77: skipped, no Chromium)
set -euo pipefail

bin=${1:?usage: html_render_test.sh PLASMIENT_BIN [OUT_DIR]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$(mktemp -d)}
mkdir -p "$out"

chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $chromium ]]; then
  echo "SKIP: no chromium on PATH (scripts/install-deps.sh installs it)"
  exit 77
fi

rm -rf "$out/demo"
"$bin" demo -o "$out/demo" --html "$out/report.html" --perfetto "$out/report.trace.json" -q

# Nothing outside the file: no external URLs, scripts, stylesheets or fonts.
if grep -Eq 'https?://|<script|<link|@import|url\(' "$out/report.html"; then
  echo "FAIL: the report references something outside itself:"
  grep -Eo '.{0,40}(https?://|<script|<link|@import|url\().{0,40}' "$out/report.html" | head -5
  exit 1
fi

# Networking off: every request would go to a closed proxy and no name resolves.
flags=(--headless --disable-gpu --no-sandbox --no-first-run --no-default-browser-check
       --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND"
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$out/profile" --hide-scrollbars)
url="file://$out/report.html"
timeout 120 "$chromium" "${flags[@]}" --window-size=1280,2000 --screenshot="$out/report.png" "$url" \
  >"$out/chromium.log" 2>&1 || { echo "FAIL: chromium did not render"; tail -20 "$out/chromium.log"; exit 1; }
timeout 120 "$chromium" "${flags[@]}" --dump-dom "$url" >"$out/dom.html" 2>>"$out/chromium.log" ||
  { echo "FAIL: chromium did not dump the DOM"; exit 1; }

for id in verdict roofline waterfall heatmap stragglers; do
  grep -q "id=\"$id\"" "$out/dom.html" || { echo "FAIL: no id=\"$id\" in the rendered DOM"; exit 1; }
done

python3 "$here/png_colors.py" "$out/report.png" 40
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["traceEvents"]) > 100, "few events"' \
  "$out/report.trace.json"
echo "OK: $out/report.png"
