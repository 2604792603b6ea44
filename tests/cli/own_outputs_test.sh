#!/usr/bin/env bash
# Plasmient's own outputs given back to `analyze` as traces are refused, each with one line that
# names the file and what it is (src/ingest/own_outputs.h); in a job's folder they are set aside.
#   tests/cli/own_outputs_test.sh PLASMIENT
source "$(dirname "${BASH_SOURCE[0]}")/../shell_test_setup.sh" "$@"

"$plasmient" synth --scenario ddp --ranks 2 --steps 3 --seed 7 -o job >/dev/null || exit 1
"$plasmient" analyze job -q --json v.json --perfetto p.json || exit 1

# refused FILE WHAT: `analyze FILE` exits 1 with the one line that says FILE is WHAT.
refused() {
  local file=$1 what=$2
  rm -f out.json
  "$plasmient" analyze "$file" -q --json out.json 2>err.txt
  local rc=$?
  [[ $rc == 1 ]] || fail "$file: exit $rc, want 1"
  [[ $(wc -l <err.txt) == 1 ]] || fail "$file: want one line, got: $(cat err.txt)"
  local want="plasmient: $file: this is Plasmient's own $what, not a trace: give the profiler's trace"
  [[ $(cat err.txt) == "$want" ]] || fail "$file: got '$(cat err.txt)', want '$want'"
  [[ ! -e out.json ]] || fail "$file: a verdict was written"
}
refused p.json "Perfetto output (written by analyze --perfetto)"
refused v.json "verdict JSON (written by analyze --json)"
"$plasmient" analyze job -q --json - >stdout.json || fail "analyze --json -"
refused stdout.json "verdict JSON (written by analyze --json)"

# In a job's folder the outputs are no ranks: the ranks and figures are the ones without them,
# and each is named as skipped.
cp p.json job/trace.json
cp v.json job/verdict.json
"$plasmient" analyze job -q --json again.json 2>err.txt || fail "analyze job with its outputs inside: $(cat err.txt)"
python3 - v.json again.json <<'PY' || fail "the outputs in the folder changed the verdict"
import json, sys
before, after = (json.load(open(f)) for f in sys.argv[1:])
for key in ("inputs", "achieved_fraction", "losses", "per_rank"):
    assert before[key] == after[key], key
PY
grep -q "trace.json: skipped: not a trace" err.txt || fail "no word of the skipped Perfetto output: $(cat err.txt)"
grep -q "verdict.json: skipped: not a trace" err.txt || fail "no word of the skipped verdict: $(cat err.txt)"

finish "own outputs refused"
