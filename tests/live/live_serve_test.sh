#!/usr/bin/env bash
# The live path without a GPU: `plasmient serve` on a spool while a process running the
# duty-cycled agent with faked CUPTI/NVML seams (live_driver) writes windows into it. Checks that
# every file is analyzed (none in failed/), and /metrics: the job's measured achieved fraction
# (rolling and lifetime) within 0.5 point of what the driver fed, the device-tier tensor gauge,
# the estimate between windows, and the count of kernel windows; every kernel fed read back from
# the window files, no file dropped, and one row set per kernel window in the store.
#   live_serve_test.sh PLASMIENT LIVE_DRIVER
set -euo pipefail
bin=$(realpath "$1")
driver=$(realpath "$2")
work=$(mktemp -d /tmp/plasmient-live.XXXXXX)
serve_pid=
cleanup() {
  if [[ -n $serve_pid ]]; then kill -9 "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; fi || true
  [[ -n ${KEEP_LIVE_TMP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [[ -f $work/serve.log ]] && tail -20 "$work/serve.log"; exit 1; }

source "$(dirname "$0")/serve_lib.sh"

spool=$work/spool
mkdir -p "$spool"
serve_on "$spool"

# 0.5 s kernel windows at the end of every 1 s, for 3.2 s: samples and windows alternate.
t0=$(date +%s.%N)
"$driver" "$spool" j42 3 1 0.5 3.2 > "$work/fed.json" || fail "the driver failed"
t1=$(date +%s.%N)
cat "$work/fed.json"
written=$(python3 -c "import json; print(json.load(open('$work/fed.json'))['files_written'])")
((written >= 5)) || fail "the driver wrote $written files (want >= 5)"

wait_analyzed "$spool" "$written" 300

curl -s "http://127.0.0.1:$port/metrics" > "$work/metrics.txt"
python3 - "$work/fed.json" "$work/metrics.txt" "$spool/done" "$t0" "$t1" "$(dirname "$(realpath "$0")")" "$bin" "$work" <<'PY'
import json, os, re, subprocess, sys
sys.path.insert(0, sys.argv[6])
from prom_metrics import Checks, series as series_in
fed = json.load(open(sys.argv[1]))
t0, t1 = float(sys.argv[4]), float(sys.argv[5])
text = open(sys.argv[2]).read()
windows = sum(1 for n in os.listdir(sys.argv[3]) if n.endswith(".pltrace")) // 2  # samples, window, ...
# What was fed: kernels back to back, each 2·M·N·K bf16 FLOPs in kernel_ns, on an H100 SXM
# (NVIDIA's datasheet: 989.4 dense bf16 TFLOP/s).
fed_achieved = fed["flops_per_kernel"] / (fed["kernel_ns"] * 1e-9) / 989.4e12
def series(name, **labels):
    return series_in(text, name, **labels)
checks = Checks()
check = checks.check
for window in ("rolling", "lifetime"):
    v = series("plasmient_achieved_fraction_of_peak_ratio", plasmient_job="j42", rank="3", window=window, figure="measured")
    check(f"achieved_{window}", len(v) == 1 and abs(v[0] - fed_achieved) <= 0.005,
          f"{v} vs fed {fed_achieved:.4f}")
# Each kernel window is its own series, labelled with its start (Unix s) within the driver's run.
starts = [m for m in re.findall(r'^plasmient_achieved_fraction_of_peak_ratio\{([^}]*)\} (\S+)$', text, re.M)
          if 'plasmient_job="j42"' in m[0] and 'rank="3"' in m[0] and 'window="kernel"' in m[0]]
got = sorted(float(re.search(r'window_start="([^"]*)"', labels).group(1)) for labels, _ in starts)
check("window_series", len(got) == windows and len(set(got)) == windows and all(t0 <= t <= t1 for t in got)
      and all(abs(float(v) - fed_achieved) <= 0.005 for _, v in starts),
      f"{len(got)} series, starts {got} in [{t0:.3f}, {t1:.3f}], values {[v for _, v in starts]}")
plain = [line for line in text.splitlines() if line.startswith("plasmient_achieved_fraction_of_peak_ratio{")
         and 'plasmient_job="j42"' in line and "window=" not in line]
check("no_plain_series", not plain, f"{plain}")
n = series("plasmient_kernel_windows_total", plasmient_job="j42", rank="3")
check("kernel_windows", n == [float(windows)], f"{n} vs {windows} window files")
tensor = series("plasmient_tensor_active_ratio", plasmient_job="j42", rank="3")
between = fed["tensor_pct_between"] / 100
check("tensor_gauge", len(tensor) == 1 and abs(tensor[0] - between) <= 0.01,
      f"{tensor} vs {between} fed between windows (the last file)")
# Calibrated on the windows (achieved per unit of tensor activity), applied between them.
est = series("plasmient_achieved_fraction_of_peak_ratio", plasmient_job="j42", rank="3", window="between", figure="estimated")
want = fed_achieved * fed["tensor_pct_between"] / fed["tensor_pct_window"]
check("estimated_between", len(est) == 1 and abs(est[0] - want) <= 0.005, f"{est} vs {want:.4f}")
# Every kernel fed is in a window file, read back by analyze; the spool had room for every file.
read = 0
for name in sorted(os.listdir(sys.argv[3])):
    if not name.endswith(".pltrace"):
        continue
    out = os.path.join(sys.argv[8], "window.json")
    r = subprocess.run([sys.argv[7], "analyze", os.path.join(sys.argv[3], name), "--json", out], capture_output=True)
    if r.returncode == 0:  # a samples file has no GPU activity to judge
        read += sum(rank["kernels"] for rank in json.load(open(out))["per_rank"])
check("kernels", fed["kernels"] > 0 and read == fed["kernels"], f"{read} kernels in the window files vs {fed['kernels']} fed")
check("files_dropped", fed["files_dropped"] == 0, f"{fed['files_dropped']} files dropped with room in the spool")
# The store holds one row set per kernel window (samples files between windows store nothing).
import sqlite3
db = sqlite3.connect(os.path.join(os.path.dirname(sys.argv[3]), ".plasmient", "store.sqlite"))
jobs = db.execute("SELECT COUNT(*), COUNT(DISTINCT job_key) FROM jobs WHERE job_id = 'j42'").fetchone()
ranks = db.execute("SELECT COUNT(*) FROM rank_verdicts WHERE job_id = 'j42' AND rank = 3").fetchone()[0]
check("store_rows", jobs == (windows, windows) and ranks == windows,
      f"jobs rows (all, distinct entries) {jobs}, rank rows {ranks}, vs {windows} window files")
sys.exit(checks.exit_code())
PY

# A window cut by kill -9 stays under its in-progress name: serve neither reads it nor moves it
# to failed/, however many scans pass. Renamed into place, it is read up to its last complete
# chunk and moved to done/. A job folder whose marker came before its last rank's rename waits for it.
window=$(find "$spool/done" -maxdepth 1 -name '*.pltrace' | sort | sed -n 2p)
size=$(stat -c %s "$window")
# Cut inside its closing chunk (whether the chunks before it hold kernels depends on timing:
# either way it is read, never failed).
head -c $((size - 20)) "$window" > "$spool/.j43-0-h-77-000001.pltrace.part"
"$bin" synth --scenario ddp --ranks 2 --steps 2 --layers 2 -o "$work/gen" > /dev/null || fail "synth failed"
mkdir "$spool/ddp"
cp "$work/gen/rank-0.pt.trace.json" "$spool/ddp/rank-0.pt.trace.json"
cp "$work/gen/rank-1.pt.trace.json" "$spool/ddp/rank-1.pt.trace.json.part"
touch "$spool/ddp/.done"
sums=$(md5sum "$spool/.j43-0-h-77-000001.pltrace.part" "$spool/ddp/rank-1.pt.trace.json.part")
cp "$window" "$spool/.later.part" && mv "$spool/.later.part" "$spool/j44-0-h-78-000001.pltrace"
for _ in $(seq 100); do [[ -e $spool/done/j44-0-h-78-000001.pltrace ]] && break; sleep 0.1; done
[[ -e $spool/done/j44-0-h-78-000001.pltrace ]] || fail "a file renamed after the .part files was not analyzed"
sleep 0.5  # ten more scans
[[ $(md5sum "$spool/.j43-0-h-77-000001.pltrace.part" "$spool/ddp/rank-1.pt.trace.json.part") == "$sums" ]] ||
  fail "a .part file was touched"
[[ -d $spool/ddp && ! -e $spool/done/ddp ]] || fail "the folder was analyzed before its last rank"
[[ -z $(ls -A "$spool/failed" 2>/dev/null) ]] || fail "failed/: $(ls "$spool/failed")"
mv "$spool/.j43-0-h-77-000001.pltrace.part" "$spool/j43-0-h-77-000001.pltrace"
mv "$spool/ddp/rank-1.pt.trace.json.part" "$spool/ddp/rank-1.pt.trace.json"
for _ in $(seq 300); do [[ -e $spool/done/j43-0-h-77-000001.pltrace && -d $spool/done/ddp ]] && break; sleep 0.1; done
[[ -e $spool/done/j43-0-h-77-000001.pltrace ]] || fail "the renamed cut window was not analyzed"
[[ -e $spool/done/ddp/rank-1.pt.trace.json ]] || fail "the folder was not analyzed once complete"
[[ -z $(ls -A "$spool/failed" 2>/dev/null) ]] || fail "failed/: $(cat "$spool"/failed/*.error)"
echo "PASS part_files: never read or failed while in progress; analyzed once renamed"
echo "live_serve: OK"
