#!/usr/bin/env bash
# Runs clang-tidy (16, Debian 12's; `.clang-tidy` names the checks) over the project's own sources
# in BUILD/compile_commands.json, and the headers under src/ they include. Fails on any finding.
#   scripts/tidy.sh [--all] [BUILD] [REGEX]
# By default the library and program sources of src/ (what CI checks: about four seconds of CPU a
# file, so two thirds of the time the whole set would take); --all adds the tests and benchmarks.
# REGEX picks files by path. Given a unity build (PLASMIENT_UNITY_BUILD=ON), it reads the files' own
# commands from a tree it configures, never builds, in BUILD/tidy/config.
# The compile commands are g++'s: a copy made for clang says -std=c++2b for -std=c++23 (clang 16's
# name for it) and raises __cpp_concepts as scripts/sanitized-tree.sh does, so libstdc++ 12 shows
# <expected>.
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
if [[ ${1:-} == --all ]]; then
  all=1
  shift
fi
build=${1:-build}
regex=${2:-.}
tidy=${CLANG_TIDY:-clang-tidy-16}
jobs=${PLASMIENT_JOBS:-$(nproc)}
if ! command -v "$tidy" >/dev/null; then
  echo "tidy: $tidy not found (scripts/install-deps.sh --checks)" >&2
  exit 2
fi
if [[ ! -f $build/compile_commands.json ]]; then
  echo "tidy: $build/compile_commands.json not found: configure the build first" >&2
  exit 2
fi
db=$build/tidy
mkdir -p "$db"
# A unity build lists its batches, not its files: a tree of our own, one file a compile, with the
# build's options (configured only: compile_commands.json is written then; nothing is generated).
commands=$build/compile_commands.json
if grep -q '/Unity/unity_' "$commands"; then
  options=()
  while IFS= read -r line; do
    [[ $line == PLASMIENT_UNITY_BUILD:* ]] || options+=("-D$line")
  done < <(grep -E '^(PLASMIENT_[A-Z_]+|CMAKE_BUILD_TYPE|CMAKE_CXX_COMPILER|CMAKE_C_COMPILER):(BOOL|STRING|PATH|FILEPATH)=' \
    "$build/CMakeCache.txt")
  cmake -S . -B "$db/config" -G Ninja "${options[@]}" -DPLASMIENT_UNITY_BUILD=OFF >/dev/null
  commands=$db/config/compile_commands.json
fi
python3 - "$commands" "$db/compile_commands.json" "$PWD" "$regex" "$all" >"$db/files" <<'PY'
import json, re, sys
src, dst, root, regex, all_files = sys.argv[1:]
out = []
for entry in json.load(open(src)):
    path = entry["file"]
    rel = path[len(root) + 1:] if path.startswith(root + "/") else None
    if rel is None or not rel.startswith(("src/", "tests/", "bench/")) or not re.search(regex, rel):
        continue
    # A file of a test or fuzz target, by the target it is compiled into (its object's folder).
    is_test = not rel.startswith("src/") or "/testdata/" in rel or re.search(
        r"(_test|_fuzz)\.dir/", entry["command"])
    if is_test and all_files == "0":
        continue
    entry["command"] = entry["command"].replace("-std=c++23", "-std=c++2b").replace(
        " -c ", " -U__cpp_concepts -D__cpp_concepts=202002L -Wno-builtin-macro-redefined -c ", 1)
    out.append(entry)
    print(path)
json.dump(out, open(dst, "w"), indent=1)
PY
count=$(wc -l <"$db/files")
# One log per file, shown when clang-tidy fails on it.
rm -rf "$db/logs" && mkdir -p "$db/logs"
status=0
xargs -a "$db/files" -P "$jobs" -I{} sh -c \
  'log="$2/logs/$(echo "$3" | tr / _).log"; "$1" -p "$2" --quiet "$3" >"$log" 2>&1 || { cat "$log"; exit 1; }' \
  _ "$tidy" "$db" {} || status=$?
if ((status)); then
  echo "tidy: findings above (in $count files checked); fix them or, for a check that is wrong here, say why in .clang-tidy" >&2
  exit 1
fi
echo "tidy: $count files, no findings"
