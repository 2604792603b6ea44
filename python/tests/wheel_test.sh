#!/usr/bin/env bash
# What a new user does: a fresh virtual environment, `pip install` of this checkout (scikit-build-core
# and pybind11 from PyPI, the engine built by CMake), then python/tests against the installed
# package and the plasmient executable the wheel put on PATH.
# Usage: wheel_test.sh SOURCE_DIR WORK_DIR   (exit 77: skipped, no PyPI or no python3-venv)
set -euo pipefail
src=${1:?usage: wheel_test.sh SOURCE_DIR WORK_DIR}
work=${2:?usage: wheel_test.sh SOURCE_DIR WORK_DIR}
python=${PLASMIENT_PYTHON:-/usr/bin/python3}

rm -rf "$work/venv"
mkdir -p "$work"
if ! "$python" -m venv "$work/venv" >"$work/venv.log" 2>&1; then
  echo "SKIP: $python -m venv failed (python3-venv missing?)"
  cat "$work/venv.log"
  exit 77
fi
pip=("$work/venv/bin/pip" --disable-pip-version-check)
if ! "${pip[@]}" install -q pytest pandas >"$work/pip-tools.log" 2>&1; then
  echo "SKIP: cannot install pytest and pandas from PyPI"
  tail -5 "$work/pip-tools.log"
  exit 77
fi
if command -v ccache >/dev/null; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
fi
# Its own build folder (the checkout's build/pip is the user's), kept between runs;
# PLASMIENT_WHEEL_BUILD_DIR names another (a warm one compiles only what changed).
build_dir=${PLASMIENT_WHEEL_BUILD_DIR:-$work/build/{wheel_tag\}}
start=$SECONDS
"${pip[@]}" install "$src" --config-settings "build-dir=$build_dir" >"$work/pip-install.log" 2>&1 ||
  { echo "FAIL: pip install $src"; tail -30 "$work/pip-install.log"; exit 1; }
echo "pip install: $((SECONDS - start)) s"

# The installed package, not the source tree: run from elsewhere, with the venv's plasmient.
cd "$work"
[[ -x $work/venv/bin/plasmient ]] || { echo "FAIL: the wheel put no plasmient on PATH"; exit 1; }
"$work/venv/bin/python" -c 'import plasmient, sys; assert plasmient.__file__.startswith(sys.prefix), plasmient.__file__'
env -u PLASMIENT_BIN -u PYTHONPATH PATH="$work/venv/bin:$PATH" \
  "$work/venv/bin/python" -m pytest -q -p no:cacheprovider "$src/python/tests"
