#!/usr/bin/env bash
# --json, --html and --perfetto are written whole or not at all (base/output_file.h): a write
# that fails (a full disk, a file-size limit) exits 1 with one line naming the file and the
# reason, leaves no partial file, and leaves a file already at the path as it was.
#   tests/hostile/output_files_test.sh PLASMIENT
source "$(dirname "${BASH_SOURCE[0]}")/../shell_test_setup.sh" "$@"

"$plasmient" synth --scenario ddp --ranks 2 --steps 3 --seed 7 -o job >/dev/null || exit 1

# Whole files on success, and nothing else beside them.
"$plasmient" analyze job -q --json v.json --html r.html --perfetto p.json || fail "analyze with three outputs"
python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' v.json p.json || fail "the JSON outputs parse"
grep -q '</html>' r.html || fail "the HTML report is whole"
[[ -z $(find . -maxdepth 1 -name '*.partial') ]] || fail "a temporary file is left after success"

# Written again over the earlier outputs (an earlier file is swapped out, then removed): the new
# text at each path, and still nothing else in the folder.
mkdir earlier && cp v.json earlier/
"$plasmient" analyze job -q --json v.json --html r.html --perfetto p.json --steps 1:2 ||
  fail "analyze again over the three outputs"
python3 -c 'import json, sys; [json.load(open(f)) for f in sys.argv[1:]]' v.json p.json || fail "the rewritten JSON parses"
! cmp -s earlier/v.json v.json || fail "the verdict at the path is still the earlier one"
[[ $(find . -maxdepth 1 -type f | wc -l) == 3 ]] || fail "files beside the three outputs after rewriting: $(ls)"

# A file-size limit: each output fails past it (EFBIG; SIGXFSZ ignored so the write returns).
for flag in --json --html --perfetto; do
  echo earlier >out.file
  (
    trap '' XFSZ
    ulimit -f 4  # 4 blocks of 512 bytes: every output here is larger
    "$plasmient" analyze job -q "$flag" out.file
  ) 2>err.txt
  rc=$?
  [[ $rc == 1 ]] || fail "$flag past the size limit: exit $rc, want 1"
  [[ $(wc -l <err.txt) == 1 ]] || fail "$flag past the size limit: want one line, got: $(cat err.txt)"
  grep -q "out.file" err.txt || fail "$flag: the error names the file: $(cat err.txt)"
  grep -q -i "too large\|failed" err.txt || fail "$flag: the error says why: $(cat err.txt)"
  [[ $(cat out.file) == earlier ]] || fail "$flag: the earlier file was replaced by a partial one"
  [[ -z $(find . -maxdepth 1 -name '*.partial' -o -maxdepth 1 -name '*.spool') ]] ||
    fail "$flag: a temporary file is left: $(ls)"
done

# A full disk (/dev/full, written in place as it is no regular file).
if [[ -w /dev/full ]]; then
  "$plasmient" analyze job -q --json /dev/full 2>err.txt
  rc=$?
  [[ $rc == 1 ]] || fail "--json /dev/full: exit $rc, want 1"
  grep -q "^plasmient: /dev/full: cannot write: No space left on device" err.txt ||
    fail "--json /dev/full: $(cat err.txt)"
fi

if ((failures > 0)); then
  echo "output_files_test: $failures failure(s)"
  exit 1
fi
echo "output_files_test: passed"
