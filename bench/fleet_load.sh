#!/usr/bin/env bash
# The long fleet load and fault run: 1,000 traces dropped into the spool while serving, 100
# concurrent scrapers for 30 s (p99 < 50 ms asserted, RSS printed before/peak/after), a
# truncated trace, ClickHouse stopped and restarted, kill -9 mid-analysis and restart.
# usage: bench/fleet_load.sh [BUILD_DIR]   (after `cmake --build BUILD_DIR`)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
exec "$here/../tests/fleet/fleet_test.sh" "$build/plasmient" "$build/tests/fleet_scrape_load" long
