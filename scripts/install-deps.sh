#!/usr/bin/env bash
# Installs the Debian packages Plasmient builds and tests with, when they are missing.
#   scripts/install-deps.sh           the build and test dependencies
#   scripts/install-deps.sh --demo    only what building the plasmient binary needs (dev.sh demo)
#   scripts/install-deps.sh --checks  those and the tools `scripts/dev.sh test` (and so CI) checks
#                                     the code with: clang-format 14, clang-tidy 16, clang 16 with
#                                     its sanitizer and libFuzzer runtimes, and Prometheus (the
#                                     fleet_counters test's increase() against real Prometheus)
#   scripts/install-deps.sh --fleet   only the optional servers tests/fleet/fleet_test.sh runs
#                                     against (Prometheus, ClickHouse); never needed to build
set -euo pipefail

build_packages=(
  build-essential cmake ninja-build pkg-config
  libsimdjson-dev libcli11-dev libfmt-dev zlib1g-dev libisal-dev libzstd-dev libsqlite3-dev libcpp-httplib-dev
)
packages=(
  "${build_packages[@]}" sqlite3
  libgtest-dev libbenchmark-dev
  python3 python3-dev python3-venv pybind11-dev python3-pytest python3-pandas  # the Python package (python/)
  chromium  # tests/html_render_test.sh renders the HTML report headless
  shellcheck  # gpu_check_evaluate lints scripts/gpu-check.sh
)
if [[ ${1:-} == --checks ]]; then
  packages+=(clang-format clang-tidy-16 clang-16 libclang-rt-16-dev prometheus)
fi
if [[ ${1:-} == --demo ]]; then
  packages=("${build_packages[@]}")
fi
if [[ ${1:-} == --fleet ]]; then
  packages=(prometheus clickhouse-server)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
  exit 0
fi
echo "plasmient: installing ${missing[*]}" >&2
sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
"${sudo_cmd[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
