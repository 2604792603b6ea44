#!/usr/bin/env bash
# The golden verdict corpus: `plasmient analyze … --json` of a few synth scenarios (fixed seeds) and
# of short dev traces, compared byte for byte with the files checked in beside this script.
#   tests/golden/golden.sh check  PLASMIENT   the ctest `golden`: fails on any difference
#   tests/golden/golden.sh update PLASMIENT   rewrites the files (scripts/golden-update.sh)
# The dev traces are read from PLASMIENT_SHARED_TRACES (default ../shared/traces beside the
# checkout); where that folder is absent their cases are skipped, and said so.
set -euo pipefail
mode=${1:?usage: golden.sh check|update PLASMIENT}
bin=$(realpath "${2:?usage: golden.sh check|update PLASMIENT}")
here=$(cd "$(dirname "$0")" && pwd)
traces=${PLASMIENT_SHARED_TRACES:-$here/../../../shared/traces}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Each case: NAME, then synth's arguments (synth:…) or a path under the dev traces (trace:…).
# Small on purpose: one or two ranks, two steps, one layer; the checked-in files stay ~350 KB.
cases=(
  "synth_straggler synth:--scenario straggler --ranks 2 --steps 2 --layers 1 --seed 7"
  "synth_hostbound synth:--scenario hostbound --ranks 1 --steps 2 --layers 1 --seed 7"
  "synth_native_ddp synth:--scenario ddp --format native --ranks 1 --steps 2 --layers 1 --seed 7"
  "dev_event_sync trace:hta/critical_path/cuda_event_sync_multi_stream/event_sync_trace.json.gz"
  "dev_mi250_minitoy trace:hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"
  "dev_torch_compile_triton trace:tracelens/torch_compile_triton/trace.json.gz"
)

# run NAME SPEC: writes $work/NAME.json; the paths in the JSON are relative (the synth folder's
# name, the trace's path under the dev traces), so the output names no machine's folders.
run() {
  local name=$1 spec=$2 args
  case $spec in
    synth:*)
      read -ra args <<<"${spec#synth:}"
      (cd "$work" && "$bin" synth "${args[@]}" -o "$name" >/dev/null &&
        "$bin" analyze "$name" --json "$work/$name.json" -q)
      ;;
    trace:*)
      (cd "$traces" && "$bin" analyze "${spec#trace:}" --json "$work/$name.json" -q)
      ;;
  esac
}

status=0 checked=0 skipped=0
for c in "${cases[@]}"; do
  name=${c%% *}
  spec=${c#* }
  if [[ $spec == trace:* && ! -f $traces/${spec#trace:} ]]; then
    echo "golden: $name skipped: ${spec#trace:} is absent from $traces (the dev traces)"
    skipped=$((skipped + 1))
    continue
  fi
  if ! run "$name" "$spec"; then
    echo "golden: $name: plasmient failed (${spec})"
    status=1
    continue
  fi
  if [[ $mode == update ]]; then
    cp "$work/$name.json" "$here/$name.json"
  elif ! cmp -s "$here/$name.json" "$work/$name.json"; then
    echo "golden: $name differs from tests/golden/$name.json; the first differing lines:"
    diff -u --label "tests/golden/$name.json" --label "now" "$here/$name.json" "$work/$name.json" 2>&1 |
      head -n 30 || true
    status=1
  fi
  checked=$((checked + 1))
done
if [[ $mode == update ]]; then
  echo "golden: $checked files written under tests/golden/ ($skipped skipped); read \`git diff tests/golden\` before committing"
elif ((status)); then
  echo "golden: verdicts changed. If the change is intended, regenerate with scripts/golden-update.sh and commit the diff"
else
  echo "golden: $checked verdicts byte-identical ($skipped skipped)"
fi
exit "$status"
