#!/usr/bin/env bash
# `--json [FILE|-]` is the same on every command (cli::AddJsonOption): a bare --json and --json -
# print the JSON on stdout, --json FILE writes it there; all three are the same bytes.
#   tests/cli/json_option_test.sh PLASMIENT
source "$(dirname "${BASH_SOURCE[0]}")/../shell_test_setup.sh" "$@"

"$plasmient" synth --scenario ddp --ranks 2 --steps 3 --seed 7 -o a >/dev/null || exit 1
"$plasmient" synth --scenario ddp --ranks 2 --steps 3 --seed 8 -o b >/dev/null || exit 1

# same NAME SCHEMA ARGS...: `plasmient ARGS --json`, `… --json -` and `… --json file.json` give
# the same JSON, of schema SCHEMA, and the stdout forms print nothing else.
same() {
  local name=$1 schema=$2
  shift 2
  rm -f bare.json dash.json file.json
  "$plasmient" "$@" --json >bare.json 2>err.txt || fail "$name --json: exit $?: $(cat err.txt)"
  "$plasmient" "$@" --json - >dash.json 2>err.txt || fail "$name --json -: exit $?: $(cat err.txt)"
  "$plasmient" "$@" --json file.json >/dev/null 2>err.txt || fail "$name --json FILE: exit $?: $(cat err.txt)"
  [[ -s file.json ]] || fail "$name --json FILE: no file written"
  cmp -s bare.json file.json || fail "$name: --json and --json FILE differ"
  cmp -s dash.json file.json || fail "$name: --json - and --json FILE differ"
  python3 - "$schema" bare.json <<'PY' || fail "$name --json: stdout is not the $schema JSON alone"
import json, sys
assert json.load(open(sys.argv[2]))["schema"] == sys.argv[1]
PY
}
same analyze plasmient.verdict/1 analyze a -q
same explain plasmient.explain/1 explain a --at worst
cp file.json explain.json
same whatif plasmient.whatif/1 whatif a -q --overlap-comm
same diff plasmient.diff/1 diff a b -q
# A bare --json before another option takes no value from it.
"$plasmient" explain a --json --at worst >before.json 2>err.txt || fail "explain --json --at: $(cat err.txt)"
cmp -s before.json explain.json || fail "explain --json --at worst: not the same JSON"
# The file form keeps the terminal text on stdout.
"$plasmient" explain a --at worst --json file.json >text.txt 2>/dev/null || fail "explain --json FILE"
grep -q '"schema"' text.txt && fail "explain --json FILE: JSON on stdout"
[[ -s text.txt ]] || fail "explain --json FILE: no text on stdout"

finish "--json the same on every command"
