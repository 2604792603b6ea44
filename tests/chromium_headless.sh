# Sourced by the browser tests (CTest label `browser`), with `out` set to the test's folder:
# sets `chromium` (exits 77, skipped, when none is installed) and `flags`, headless Chromium with
# networking off — every request would go to a closed proxy and no name resolves.
# shellcheck shell=bash
chromium=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z $chromium ]]; then
  echo "SKIP: no chromium on PATH (scripts/install-deps.sh installs it)"
  exit 77
fi
# shellcheck disable=SC2034  # used by the test that sources this
flags=(--headless --disable-gpu --no-sandbox --no-first-run --no-default-browser-check
       --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND"
       --disable-background-networking --disable-component-update --disable-sync
       --user-data-dir="$out/profile" --hide-scrollbars)
