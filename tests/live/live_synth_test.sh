#!/usr/bin/env bash
# The live path on generated windows with a known truth: `plasmient synth --format native` with
# the agent's duty cycle writes a job's spool files (samples files and kernel windows, per rank)
# beside truth.json; they are renamed into the spool of `plasmient serve` in order. Checks that
# every file is analyzed (none in failed/) and /metrics against truth.json: per rank the rolling
# and lifetime achieved fraction, each window's own series, the count of kernel windows, and the
# job's lifetime figure (weighted by the windows' GPU-seconds) within 0.5 point of the truth over
# the windows' spans (docs/synth.md, "Windows").
#   live_synth_test.sh PLASMIENT
set -euo pipefail
bin=$(realpath "$1")
work=$(mktemp -d /tmp/plasmient-live-synth.XXXXXX)
serve_pid=
cleanup() {
  if [[ -n $serve_pid ]]; then kill -9 "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; fi || true
  [[ -n ${KEEP_LIVE_TMP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [[ -f $work/serve.log ]] && tail -20 "$work/serve.log"; exit 1; }

# 30 steps of a 2-layer ddp last about 0.2 s per rank: a 20 ms window every 50 ms, 4 ranks.
"$bin" synth --format native --scenario ddp --ranks 4 --steps 30 --layers 2 --seed 9 \
  --window-s 0.02 --period-s 0.05 --sample-period-ms 5 -o "$work/gen" > /dev/null || fail "synth failed"
written=$(find "$work/gen" -maxdepth 1 -name '*.pltrace' | wc -l)
((written >= 12)) || fail "synth wrote $written files (want >= 12)"

source "$(dirname "$0")/serve_lib.sh"

spool=$work/spool
mkdir -p "$spool"
serve_on "$spool"
# In file order, as the agents would deliver them (the name's sequence number sorts).
for f in $(cd "$work/gen" && ls *.pltrace | sort -t- -k5); do mv "$work/gen/$f" "$spool/$f"; done

wait_analyzed "$spool" "$written" 600

curl -s "http://127.0.0.1:$port/metrics" > "$work/metrics.txt"
python3 - "$work/gen/truth.json" "$work/metrics.txt" "$(dirname "$(realpath "$0")")" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
from prom_metrics import Checks, series as series_in
truth = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
job = "synth_ddp_9"
def series(name, **labels):
    return series_in(text, name, **labels)
checks = Checks()
check = checks.check
def achieved(windows):  # Σ useful / Σ T: serve weights windows by their length
    return sum(w["useful_s"] for w in windows) / sum(w["kernel_span_s"] for w in windows)
job_useful = job_span = served_weighted = served_seconds = 0.0
for rank in truth["ranks"]:
    r = str(rank["rank"])
    windows = [f for f in rank["files"] if f["kind"] == "window" and "useful_s" in f]
    want = {"lifetime": achieved(windows), "rolling": achieved(windows[-10:])}
    for window in ("rolling", "lifetime"):
        v = series("plasmient_achieved_fraction_of_peak_ratio", plasmient_job=job, rank=r, window=window, figure="measured")
        check(f"rank{r}_{window}", len(v) == 1 and abs(v[0] - want[window]) <= 0.005,
              f"{v} vs truth {want[window]:.4f} over {len(windows)} windows")
    per_window = series("plasmient_achieved_fraction_of_peak_ratio", plasmient_job=job, rank=r, window="kernel")
    exported = windows[-10:]
    want_each = sorted(w["achieved_fraction"] for w in exported)
    check(f"rank{r}_window_series",
          len(per_window) == len(exported) and all(abs(a - b) <= 0.005 for a, b in zip(sorted(per_window), want_each)),
          f"{sorted(per_window)} vs truth {want_each}")
    n = series("plasmient_kernel_windows_total", plasmient_job=job, rank=r)
    check(f"rank{r}_kernel_windows", n == [float(len(windows))], f"{n} vs {len(windows)} window files")
    tensor = series("plasmient_tensor_active_ratio", plasmient_job=job, rank=r)
    check(f"rank{r}_tensor_gauge", len(tensor) == 1 and 0 <= tensor[0] <= 1, f"{tensor}")
    job_useful += sum(w["useful_s"] for w in windows)
    job_span += sum(w["kernel_span_s"] for w in windows)
    lifetime = series("plasmient_achieved_fraction_of_peak_ratio", plasmient_job=job, rank=r, window="lifetime", figure="measured")
    seconds = series("plasmient_gpu_seconds_total", plasmient_job=job, rank=r)
    if lifetime and seconds:
        served_weighted += lifetime[0] * seconds[0]
        served_seconds += seconds[0]
want_job = job_useful / job_span
got_job = served_weighted / served_seconds if served_seconds else float("nan")
check("job_lifetime", abs(got_job - want_job) <= 0.005,
      f"{got_job:.4f} (ranks' lifetime weighted by GPU-seconds) vs truth {want_job:.4f} over {job_span:.4f} s of windows")
sys.exit(checks.exit_code())
PY
echo "live_synth: OK"
