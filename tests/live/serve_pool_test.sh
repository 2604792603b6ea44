#!/usr/bin/env bash
# `plasmient serve --workers N` (docs/fleet.md, "Workers"):
#   fairness: a spool with 12 windows of job A (older) and one of job B: B is taken within the
#     first N+1 analyses, N = 1 and 2 (serve -v's "taken" lines give the order), and with one
#     worker it is recorded second (the store's journal; with two, B's analysis may end last);
#   scrape latency: the pool saturated with slow analyses (large generated traces) while a client
#     scrapes /metrics back to back: the pool's own gauges, no gzip for a small exposition, and
#     the p99 latency under SCRAPE_P99_MS (default 50; the measured figure is printed);
#   the same spool with --workers 4 and --workers 1: the same /metrics series and the same stored
#     rows (timing fields left out).
#   serve_pool_test.sh PLASMIENT LIVE_DRIVER
set -euo pipefail
bin=$(realpath "$1")
driver=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/plasmient-pool.XXXXXX)
serve_pid=
cleanup() {
  if [[ -n $serve_pid ]]; then kill -9 "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; fi || true
  [[ -n ${KEEP_POOL_TMP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; [[ -f $work/serve.log ]] && tail -20 "$work/serve.log"; exit 1; }
source "$here/serve_lib.sh"
stop_serve() {
  kill -TERM "$serve_pid"
  wait "$serve_pid" || fail "serve exited $? on SIGTERM"
  serve_pid=
}
# wait_done SPOOL N SECONDS: until N entries are in done/ (markers aside) and none is left.
wait_done() {
  for _ in $(seq $(($3 * 10))); do
    local n; n=$(find "$1/done" -mindepth 1 -maxdepth 1 ! -name '*.done' 2>/dev/null | wc -l || true)
    ((n == $2)) && return 0
    sleep 0.1
  done
  fail "$(find "$1/done" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l) of $2 entries analyzed in $3 s; failed/: $(ls "$1/failed" 2>/dev/null | head -3)"
}

# Windows of a job as the agent writes them (live_driver: samples and kernel windows alternate).
mkdir -p "$work/agent"
"$driver" "$work/agent" jw 0 1 0.5 2.2 > /dev/null || fail "the driver failed"
mapfile -t agent_files < <(find "$work/agent" -maxdepth 1 -name '*.pltrace' | sort)
((${#agent_files[@]} >= 3)) || fail "the driver wrote ${#agent_files[@]} files"
window=${agent_files[1]}  # the first kernel window (samples, window, samples, ...)

# --- fairness ------------------------------------------------------------------------------------
for n in 1 2; do
  spool=$work/fair$n
  mkdir -p "$spool"
  # Job A's 12 windows are older than job B's one.
  for i in $(seq -w 1 12); do
    cp "$window" "$spool/ja-0-h-1-0000$i.pltrace"
    touch -d "@$((1700000000 + 10#$i))" "$spool/ja-0-h-1-0000$i.pltrace"
  done
  cp "$window" "$spool/jb-0-h-2-000001.pltrace"
  touch -d "@1700000100" "$spool/jb-0-h-2-000001.pltrace"
  serve_on "$spool" --workers "$n" -v
  wait_done "$spool" 13 120
  stop_serve
  taken=$(sed -n 's/^plasmient serve: taken \([^ ]*\) .*/\1/p' "$work/serve.log")
  ((${#taken} > 0)) && (($(wc -l <<<"$taken") == 13)) || fail "serve -v listed $(grep -c taken "$work/serve.log") of 13 entries taken"
  at=$(grep -n '^jb-' <<<"$taken" | cut -d: -f1)
  echo "workers $n: job B taken as analysis $at of 13 (want <= $((n + 1)))"
  [[ -n $at ]] && ((at <= n + 1)) || fail "job B starved: order $(tr '\n' ' ' <<<"$taken")"
  # Every entry taken is recorded, once, under --verbose.
  (($(grep -c '^plasmient serve: recorded .* (job .*, analyzed in [0-9.]* s)$' "$work/serve.log") == 13)) ||
    fail "serve -v did not say each entry was recorded: $(grep -c recorded "$work/serve.log")"
  order=$(sqlite3 "$spool/.plasmient/store.sqlite" 'SELECT entry FROM ingest_journal ORDER BY rowid')
  if ((n == 1)); then
    [[ $(sed -n 2p <<<"$order") == jb-* ]] || fail "one worker: job B not recorded second: $(tr '\n' ' ' <<<"$order")"
  fi
done

# --- scrape latency with the pool saturated -------------------------------------------------------
spool=$work/scrape
mkdir -p "$spool"
python3 "$here/../fleet/make_trace.py" "$work/big.json" --seed 2 --steps 3000 --gemms 8
for i in 1 2 3 4 5 6; do cp "$work/big.json" "$work/.big$i.part"; done
serve_on "$spool" --workers 2
for i in 1 2 3 4 5 6; do mv "$work/.big$i.part" "$spool/big$i.json"; done
python3 - "$port" "${SCRAPE_P99_MS:-50}" <<'PY' || fail "scrapes"
import http.client, re, sys, time
port, bound = int(sys.argv[1]), float(sys.argv[2])
conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
def scrape():
    t0 = time.perf_counter()
    conn.request("GET", "/metrics", headers={"Accept-Encoding": "gzip"})
    r = conn.getresponse()
    body = r.read()
    return (time.perf_counter() - t0) * 1e3, r.getheader("Content-Encoding"), body.decode()
def value(text, name):
    m = re.search(r"^" + name + r" (\S+)$", text, re.M)
    return float(m.group(1)) if m else None
saturated, encodings, waiting, end = [], set(), [], time.time() + 60
while time.time() < end:
    ms, enc, text = scrape()
    encodings.add(enc)
    if value(text, "plasmient_serve_workers_busy") == 2:
        saturated.append(ms)
        waiting += re.findall(r'^plasmient_serve_job_waiting_entries\{plasmient_job="(big\d)"\} 1$', text, re.M)
    if value(text, "plasmient_serve_traces_analyzed_total") == 6:
        break
saturated.sort()
p99 = saturated[min(len(saturated) - 1, int(len(saturated) * 0.99))] if saturated else float("nan")
p50 = saturated[len(saturated) // 2] if saturated else float("nan")
print(f"{len(saturated)} scrapes with both workers busy: p50 {p50:.1f} ms, p99 {p99:.1f} ms, max {saturated[-1] if saturated else 0:.1f} ms (bound {bound} ms); Content-Encoding {encodings}")
ok = len(saturated) >= 20 and p99 < bound and encodings == {None} and value(text, "plasmient_serve_workers") == 2
ok = ok and waiting  # jobs waiting for a worker were listed while both were busy
sys.exit(0 if ok else 1)
PY
wait_done "$spool" 6 120
stop_serve

# --- --workers 4 and --workers 1: the same results -----------------------------------------------
mkdir -p "$work/same"
for seed in 11 12 13; do python3 "$here/../fleet/make_trace.py" "$work/same/t$seed.json" --seed "$seed"; done
"$bin" synth --scenario ddp --ranks 2 --steps 2 --layers 2 -o "$work/same/ddp" > /dev/null || fail "synth"
rm -f "$work/same/ddp/truth.json"
touch "$work/same/ddp/.done"
cp -p "${agent_files[@]}" "$work/same/"  # one job's windows and samples, in order
for w in 1 4; do
  spool=$work/same$w
  cp -a "$work/same" "$spool"
  serve_on "$spool" --workers "$w"
  wait_done "$spool" $((4 + ${#agent_files[@]})) 120
  curl -s "http://127.0.0.1:$port/metrics" > "$work/metrics$w.txt"
  stop_serve
done
python3 - "$work/same1" "$work/same4" "$work/metrics1.txt" "$work/metrics4.txt" <<'PY' || fail "--workers 4 differs from --workers 1"
import sqlite3, sys
def rows(spool):
    db = sqlite3.connect(spool + "/.plasmient/store.sqlite")
    out = {}
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"):
        cur = db.execute(f"SELECT * FROM {table}")
        cols = [c[0] for c in cur.description]
        keep = [i for i, c in enumerate(cols) if c not in ("at_ns", "rowid", "id")]
        # The spool's own path (in rank_verdicts.path) differs between the two runs.
        out[table] = sorted(repr(tuple(r[i] for i in keep)).replace(spool, "SPOOL") for r in cur)
    return out
# Self-metrics that are timings or depend on the pool's size are left out; every other series kept.
skip = ("plasmient_serve_analysis_seconds_total", "plasmient_serve_scrapes_total", "plasmient_serve_workers")
def series(path):
    return [l for l in open(path).read().splitlines() if not l.startswith("#") and not l.startswith(skip)]
a, b = rows(sys.argv[1]), rows(sys.argv[2])
ma, mb = series(sys.argv[3]), series(sys.argv[4])
n = sum(len(v) for v in a.values())
print(f"stored rows: {n} in {len(a)} tables; metrics: {len(ma)} series")
bad = [t for t in a if a[t] != b.get(t)] + (["metrics"] if ma != mb else [])
if "metrics" in bad:
    print("\n".join(sorted(set(ma) ^ set(mb))[:10]))
print("differ: " + ", ".join(bad) if bad else "identical")
sys.exit(1 if bad or n == 0 or not any("achieved_fraction_of_peak_ratio" in l for l in ma) else 0)
PY
echo "PASS serve_pool"
