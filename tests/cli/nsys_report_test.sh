#!/usr/bin/env bash
# An Nsight Systems report given to `analyze` is answered with the command that exports it, alone
# or as the only thing in a folder; content a reader takes is read whatever the name.
#   tests/cli/nsys_report_test.sh PLASMIENT
source "$(dirname "${BASH_SOURCE[0]}")/../shell_test_setup.sh" "$@"

mkdir runs
# What a report is to Plasmient: bytes none of its readers takes.
printf 'NSYS\x00\x01\x02\x03report body' >runs/step3.nsys-rep
"$plasmient" analyze runs/step3.nsys-rep -q 2>err.txt
rc=$?
[[ $rc == 1 ]] || fail "a report: exit $rc, want 1"
want="plasmient: runs/step3.nsys-rep: an Nsight Systems report; export it first: nsys export --type sqlite -o runs/step3.sqlite runs/step3.nsys-rep"
[[ $(cat err.txt) == "$want" ]] || fail "a report: got '$(cat err.txt)', want '$want'"

"$plasmient" analyze runs -q 2>err.txt
rc=$?
[[ $rc == 1 ]] || fail "a folder of reports: exit $rc, want 1"
[[ $(wc -l <err.txt) == 1 ]] || fail "a folder of reports: want one line, got: $(cat err.txt)"
grep -q "^plasmient: runs: the folder holds no trace files (.*); runs/step3.nsys-rep: an Nsight Systems report; export it first: nsys export --type sqlite -o runs/step3.sqlite runs/step3.nsys-rep$" err.txt ||
  fail "a folder of reports: $(cat err.txt)"

# Other unknown bytes keep the plain answer.
printf 'NSYS\x00\x01' >other.bin
"$plasmient" analyze other.bin -q 2>err.txt
grep -q "^plasmient: other.bin: unknown trace format at byte 0$" err.txt || fail "other bytes: $(cat err.txt)"

# A trace named as a report is read as what it is.
"$plasmient" synth --scenario ddp --ranks 1 --steps 2 --seed 3 -o job >/dev/null || exit 1
cp job/rank-0.pt.trace.json named.nsys-rep
"$plasmient" analyze named.nsys-rep -q --json v.json || fail "a Kineto trace named .nsys-rep was not read"

finish "Nsight Systems reports answered with the export"
