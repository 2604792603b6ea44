#!/usr/bin/env bash
# Writes the verdict JSON of every dev trace and of every synth scenario into OUT, one file each,
# so that two builds can be compared byte for byte:
#   scripts/verdict-corpus.sh build/plasmient /tmp/before
#   scripts/verdict-corpus.sh build/plasmient /tmp/after && diff -r /tmp/before /tmp/after
# Exit status and stderr of each run are kept beside its JSON (NAME.rc, NAME.err).
set -uo pipefail
bin=$(realpath "${1:?usage: verdict-corpus.sh PLASMIENT OUT}")
mkdir -p "${2:?usage: verdict-corpus.sh PLASMIENT OUT}"
out=$(realpath "$2")
traces=${PLASMIENT_SHARED_TRACES:-$(dirname "$0")/../../shared/traces}
run() {  # run NAME ARGS...
  local name=$1; shift
  "$bin" analyze "$@" --json "$out/$name.json" -q >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
}
if [[ -d $traces ]]; then
  while IFS= read -r f; do
    name=$(echo "${f#"$traces"/}" | tr '/' '_')
    run "$name" "$f"
  done < <(find "$traces" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) \
             -not -path '*/reference/*' -not -name manifest.json | sort)
  run trace_filter_job "$traces/hta/trace_filter"
  # Every single-rank dev trace given together as one folder: ranks of different jobs, refused as
  # not one job, naming why (docs/cluster.md, "Inputs that are not one job").
  singles=$(mktemp -d)
  while IFS= read -r f; do
    ln -s "$(realpath "$f")" "$singles/$(echo "${f#"$traces"/}" | tr '/' '_')"
  done < <(find "$traces" -type f \( -name '*.json' -o -name '*.json.gz' -o -name '*.sqlite' \) \
             -not -path '*/reference/*' -not -path '*/trace_filter/*' -not -name manifest.json | sort)
  (cd "$singles" && run dev_single_ranks_folder .)
  rm -rf "$singles"
else
  echo "verdict-corpus: $traces is absent: synth scenarios only" >&2
fi
synth=$(mktemp -d)
trap 'rm -rf "$synth"' EXIT
for s in ddp straggler pipeline decode hostbound moe clock-offset graph-decode graph-decode-replay-only late-start; do
  "$bin" synth --scenario "$s" --ranks 4 --steps 3 --seed 7 -o "$synth/$s" >/dev/null 2>&1
  # Relative paths, so that the JSON does not name the temporary folder.
  (cd "$synth" && run "synth_$s" "$s")
done
echo "verdict-corpus: $(ls "$out"/*.rc | wc -l) runs in $out"
