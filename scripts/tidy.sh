#!/usr/bin/env bash
# Runs clang-tidy (16, Debian 12's; `.clang-tidy` names the checks) over the project's own sources
# in BUILD/compile_commands.json, and the headers under src/ they include. Fails on any finding.
#   scripts/tidy.sh [--all] [--since COMMIT] [BUILD] [REGEX]
# By default the library and program sources of src/ (about four seconds of CPU a file); --all
# adds the tests and benchmarks. REGEX picks files by path.
# --since COMMIT keeps only the files that differ from COMMIT (committed or not) and those that
# include, directly or through other headers, a header that differs: what CI checks, COMMIT being
# the last commit the whole tree was clean at (.tidy-clean, written by `scripts/dev.sh tidy-all`).
# Every file is checked where COMMIT is not in the clone, or `.clang-tidy` or this script differ
# from it.
# Given a unity build (PLASMIENT_UNITY_BUILD=ON), it reads the files' own commands from a tree it
# configures, never builds, in BUILD/tidy/config.
# The compile commands are g++'s: a copy made for clang says -std=c++2b for -std=c++23 (clang 16's
# name for it) and raises __cpp_concepts as scripts/sanitized-tree.sh does, so libstdc++ 12 shows
# <expected>.
# clang-tidy 16 itself fails on a few files: each file gets PLASMIENT_TIDY_TIMEOUT seconds (default
# 300); one that crashes or runs out of time is named as not checked, and fails the run only if it
# also reported a finding. The files known to do so are listed just below, with the reason.
set -euo pipefail
cd "$(dirname "$0")/.."

# Known failures of clang-tidy 16, by file name (the folder left out, so that an entry follows its
# file when it moves), one a line: NAME CHECKS-TURNED-OFF-THERE, then why.
known=(
  # bugprone-unchecked-optional-access (clang's dataflow analysis) crashes on it (causes.cc is its
  # name once it moves to src/diagnose/).
  'host_causes.cc -bugprone-unchecked-optional-access'
  'causes.cc -bugprone-unchecked-optional-access'
  # bugprone-unchecked-optional-access ran over an hour on each without finishing.
  'sweep.cc -bugprone-unchecked-optional-access'
  'combine.cc -bugprone-unchecked-optional-access'
  # Over 8 minutes without finishing, every check at once.
  'top_level_parser.cc -bugprone-unchecked-optional-access'
  # bugprone-unchecked-optional-access crashes on Project().
  'projection.cc -bugprone-unchecked-optional-access'
)

all=0
since=
while [[ ${1:-} == --* ]]; do
  case $1 in
    --all) all=1 ;;
    --since)
      since=${2:?tidy: --since needs a commit}
      shift
      ;;
    *)
      echo "tidy: unknown option $1" >&2
      exit 2
      ;;
  esac
  shift
done
build=${1:-build}
regex=${2:-.}
tidy=${CLANG_TIDY:-clang-tidy-16}
jobs=${PLASMIENT_JOBS:-$(nproc)}
limit=${PLASMIENT_TIDY_TIMEOUT:-300}
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

# --since: the files that differ from COMMIT, one a line, or "*" for every file.
changed=$db/changed
if [[ -z $since ]]; then
  echo '*' >"$changed"
elif ! git rev-parse -q --verify "$since^{commit}" >/dev/null; then
  echo "tidy: $since is not a commit of this clone: every file" >&2
  echo '*' >"$changed"
elif ! git diff --quiet "$since" -- .clang-tidy scripts/tidy.sh ||
  [[ -n $(git ls-files --others --exclude-standard -- .clang-tidy) ]]; then
  echo "tidy: .clang-tidy or scripts/tidy.sh differ from $since: every file" >&2
  echo '*' >"$changed"
else
  {
    git diff --name-only "$since" -- src tests bench
    git ls-files --others --exclude-standard -- src tests bench
  } >"$changed"
fi

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

printf '%s\n' "${known[@]}" >"$db/known"
# Writes the compile database of the files to check and prints them, one a line: FILE CHECKS
# (CHECKS being "-" or the --checks argument of a known failure).
python3 - "$commands" "$db/compile_commands.json" "$PWD" "$regex" "$all" "$changed" "$db/known" \
  >"$db/files" <<'PY'
import json, os, re, sys

src, dst, root, regex, all_files, changed_path, known_path = sys.argv[1:]
changed = set(open(changed_path).read().split())
known = {}
for line in open(known_path):
    name, checks = line.split()
    known[name] = checks
if "*" not in changed:
    # A header that differs reaches every file that includes it, through other headers too. The
    # project's includes are quoted, rooted at src/ ("base/result.h"), at the tree ("tests/…") or
    # at the including file's folder.
    include = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
    includers = {}  # path -> the files that include it directly
    for top in ("src", "tests", "bench"):
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, root)
                with open(path, errors="replace") as f:
                    targets = include.findall(f.read())
                for target in targets:
                    for base in (os.path.relpath(folder, root), "src", "."):
                        candidate = os.path.normpath(os.path.join(base, target))
                        if os.path.isfile(os.path.join(root, candidate)):
                            includers.setdefault(candidate, set()).add(rel)
                            break
    todo = [p for p in changed if p.endswith(".h")]
    while todo:
        for user in includers.get(todo.pop(), ()):
            if user not in changed:
                changed.add(user)
                if user.endswith(".h"):
                    todo.append(user)
out = []
for entry in json.load(open(src)):
    path = entry["file"]
    rel = path[len(root) + 1:] if path.startswith(root + "/") else None
    if rel is None or not rel.startswith(("src/", "tests/", "bench/")) or not re.search(regex, rel):
        continue
    if "*" not in changed and rel not in changed:
        continue
    # A file of a test or fuzz target, by the target it is compiled into (its object's folder).
    is_test = not rel.startswith("src/") or "/testdata/" in rel or re.search(
        r"(_test|_fuzz)\.dir/", entry["command"])
    if is_test and all_files == "0":
        continue
    entry["command"] = entry["command"].replace("-std=c++23", "-std=c++2b").replace(
        " -c ", " -U__cpp_concepts -D__cpp_concepts=202002L -Wno-builtin-macro-redefined -c ", 1)
    out.append(entry)
    print(path, known.get(os.path.basename(rel), "-"))
json.dump(out, open(dst, "w"), indent=1)
PY
count=$(wc -l <"$db/files")
if ((count == 0)); then
  echo "tidy: 0 files checked: no file${regex:+ matching $regex}${since:+ differs from $since}"
  exit 0
fi

# One log, one outcome (ok, findings, crashed or timed-out) and its seconds per file.
rm -rf "$db/logs" && mkdir -p "$db/logs"
# shellcheck disable=SC2016 # expanded by the worker's shell
worker='
  name=$(echo "$4" | tr / _); log=$2/logs/$name.log; checks=
  [ "$5" = - ] || checks=--checks=$5
  rc=0; start=$(date +%s)
  timeout "$3" "$1" -p "$2" --quiet $checks "$4" >"$log" 2>&1 || rc=$?
  echo $(($(date +%s) - start)) >"$log.seconds"
  if [ $rc = 0 ]; then outcome=ok
  elif [ $rc = 124 ]; then outcome=timed-out
  elif [ $rc -gt 128 ] || grep -q "^Stack dump:" "$log"; then outcome=crashed
  else outcome=findings
  fi
  if [ $outcome != ok ] && grep -Eq "(warning|error): .* \[[a-z0-9.,-]+\]$" "$log"; then
    outcome="$outcome findings"
  fi
  echo "$outcome" >"$log.outcome"
  case $outcome in
    *findings) cat "$log" ;;
  esac
  case $outcome in
    crashed*|timed-out*) echo "tidy: $4: not checked (clang-tidy $outcome, exit $rc; log $log)" ;;
  esac
  exit 0'
xargs -a "$db/files" -P "$jobs" -L 1 sh -c "$worker" _ "$tidy" "$db" "$limit"

failed=0 unchecked=()
while read -r file _; do
  outcome=$(cat "$db/logs/$(echo "$file" | tr / _).log.outcome" 2>/dev/null || echo missing)
  case $outcome in
    ok) ;;
    crashed | timed-out) unchecked+=("${file#"$PWD"/} ($outcome)") ;;
    *) failed=$((failed + 1)) ;;
  esac
done <"$db/files"
# The slowest files, for the time CI spends here (docs/checks.md).
for f in "$db"/logs/*.log.seconds; do
  echo "$(cat "$f") $(basename "$f" .log.seconds)"
done | sort -rn | head -3 | awk '{printf "%s%s %s s", (NR > 1 ? ", " : "tidy: slowest: "), $2, $1} END {print ""}' |
  sed "s|$(echo "$PWD/" | tr / _)||g" >&2
if ((${#unchecked[@]})); then
  echo "tidy: not checked (clang-tidy crashed or timed out after ${limit} s): ${unchecked[*]}" >&2
fi
if ((failed)); then
  echo "tidy: findings above in $failed of $count files; fix them or, for a check that is wrong here, say why in .clang-tidy" >&2
  exit 1
fi
echo "tidy: $((count - ${#unchecked[@]})) of $count files checked, no findings"
