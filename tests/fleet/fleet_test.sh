#!/usr/bin/env bash
# Fleet components end to end, on loopback ports only:
#   plasmient serve <- traces dropped into a spool (rename and .done protocols, a truncated
#   trace, a half-written one), Prometheus scraping it (PromQL answers the achieved fraction,
#   promtool checks the exposition), ClickHouse with two shards behind Distributed tables
#   (`plasmient fleet` answers from it), ClickHouse stopped mid-run and restarted (nothing
#   lost), kill -9 mid-analysis and restart (nothing lost or counted twice), a burst of
#   traces, concurrent scrapers, SIGTERM; the what-if lever ranking and `bill --whatif` equal on
#   SQLite and ClickHouse.
# usage: fleet_test.sh PLASMIENT FLEET_SCRAPE_LOAD [short|long]
#   short (the test suite): 100 traces, 100 scrapers for 5 s.
#   long (bench/fleet_load.sh): 1,000 traces, 100 scrapers for 30 s, p99 < 50 ms asserted.
#   FLEET_SCRAPE_INTERVAL_MS (default 100): each scraper's interval; 0 saturates.
# Exit 77 (skipped) only when prometheus or clickhouse-server is absent and cannot be installed.
set -euo pipefail

bin=$(realpath "$1")
load=$(realpath "$2")
mode=${3:-short}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
t_start=$SECONDS
if [[ $mode == long ]]; then burst=1000 load_s=30; else burst=100 load_s=5; fi
# Each scraper scrapes every this many ms (Prometheus-like, gzip); 0 scrapes back to back.
scrape_interval_ms=${FLEET_SCRAPE_INTERVAL_MS:-100}

say() { printf '[fleet %3ds] %s\n' $((SECONDS - t_start)) "$*"; }
fail() {
  say "FAIL: $*"
  [[ -s ${work:-}/serve.log ]] && { say "last lines of serve.log:"; tail -n 20 "$work/serve.log" >&2; }
  exit 1
}

# --- packages -----------------------------------------------------------------------------
have() { command -v "$1" >/dev/null 2>&1; }
if ! have prometheus || ! have promtool || ! have clickhouse-server; then
  if [[ $(id -u) -ne 0 ]] || ! "$root/scripts/install-deps.sh" --fleet; then
    echo "SKIP: Debian's prometheus and clickhouse-server are not installed and could not be (apt-get as root)"
    exit 77
  fi
fi
have sqlite3 || fail "sqlite3 (scripts/install-deps.sh) is needed"

# --- helpers ------------------------------------------------------------------------------
work=$(mktemp -d /tmp/plasmient-fleet.XXXXXX)
pids=()
dbfs=""  # a small filesystem of the store's own, when root may mount one: the full-disk run fills it
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  [[ -n $dbfs ]] && umount "$dbfs" 2>/dev/null
  if [[ ${KEEP_FLEET_TMP:-0} == 1 ]]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
http() {  # http GET|POST URL [BODY]: prints the body; fails on a non-2xx answer
  python3 - "$@" <<'PY'
import sys, urllib.request
method, url = sys.argv[1], sys.argv[2]
data = sys.argv[3].encode() if len(sys.argv) > 3 else None
try:
    with urllib.request.urlopen(urllib.request.Request(url, data=data, method=method), timeout=10) as r:
        sys.stdout.write(r.read().decode())
except Exception as e:
    sys.stderr.write(f"{url}: {e}\n")
    sys.exit(1)
PY
}
wait_for() {  # wait_for SECONDS DESCRIPTION COMMAND...
  local limit=$1 what=$2 t0=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    ((SECONDS - t0 < limit)) || fail "timed out after ${limit}s waiting for: $what"
    sleep 0.2
  done
}
metric() { http GET "http://127.0.0.1:$serve_port/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
metric_is() { [[ $(metric "$1") == "$2" ]]; }
metric_ge() { local v; v=$(metric "$1"); [[ -n $v ]] && python3 -c "import sys; sys.exit(0 if float('$v') >= $2 else 1)"; }
ch() { http POST "$ch_url/" "$1"; }
sql() { sqlite3 "$db" "$1"; }

ch_http=$(free_port); ch_tcp=$(free_port); serve_port=$(free_port); prom_port=$(free_port)
ch_url=http://127.0.0.1:$ch_http
spool=$work/spool
db=$work/store.sqlite
if [[ $(id -u) == 0 ]] && mkdir -p "$work/dbfs" && mount -t tmpfs -o size=256m tmpfs "$work/dbfs" 2>/dev/null; then
  dbfs=$work/dbfs
  db=$dbfs/store.sqlite
fi
mkdir -p "$spool" "$work/ch" "$work/prom" "$work/gen"

# --- ClickHouse: one server, two shards (databases shard1, shard2) behind Distributed tables --
sed -e "s|@DIR@|$work/ch|g" -e "s|@HTTP@|$ch_http|g" -e "s|@TCP@|$ch_tcp|g" "$here/clickhouse_config.xml" > "$work/ch/config.xml"
sed -e "s|@DIR@|$work/ch|g" "$here/clickhouse_users.xml" > "$work/ch/users.xml"
start_clickhouse() {
  clickhouse-server --config-file="$work/ch/config.xml" >"$work/ch/stdout" 2>&1 &
  ch_pid=$!
  pids+=("$ch_pid")
  wait_for 60 "ClickHouse on $ch_url" http GET "$ch_url/ping"
}
start_clickhouse
say "ClickHouse $(ch 'SELECT version()') on $ch_url"
for shard in shard1 shard2; do
  "$bin" fleet --clickhouse "$ch_url" --clickhouse-db "$shard" --clickhouse-cluster two_shards --init-schema --local-only \
    || fail "schema for $shard"
done

# --- plasmient serve ------------------------------------------------------------------------
serve_args=(serve --spool "$spool" --db "$db" --listen "127.0.0.1:$serve_port" --poll-ms 50 --counter-hold-s 0 --host node-a
  --label team=infra --clickhouse "$ch_url" --clickhouse-cluster two_shards --clickhouse-shard-db -
  --cluster-every-s 1)
start_serve() {
  "$bin" "${serve_args[@]}" >>"$work/serve.log" 2>&1 &
  serve_pid=$!
  pids+=("$serve_pid")
  wait_for 120 "plasmient serve on port $serve_port" http GET "http://127.0.0.1:$serve_port/healthz"
}
start_serve
say "plasmient serve (pid $serve_pid) on 127.0.0.1:$serve_port"

# --- Prometheus scraping it -------------------------------------------------------------------
sed -e "s|@TARGET@|127.0.0.1:$serve_port|g" "$here/prometheus.yml" > "$work/prom/prometheus.yml"
prometheus --config.file="$work/prom/prometheus.yml" --storage.tsdb.path="$work/prom/data" \
  --web.listen-address="127.0.0.1:$prom_port" >"$work/prom/log" 2>&1 &
pids+=("$!")
wait_for 60 "Prometheus on $prom_port" http GET "http://127.0.0.1:$prom_port/-/ready"

# --- traces -------------------------------------------------------------------------------------
gen() { python3 "$here/make_trace.py" "$@"; }
drop_file() {  # drop_file SRC NAME: write under a dot name, rename into the spool
  cp "$1" "$spool/.$2.part"
  mv "$spool/.$2.part" "$spool/$2"
}
for i in 1 2 3; do
  gen "$work/gen/single-$i.json.gz" --seed "$i"
  drop_file "$work/gen/single-$i.json.gz" "single-$i.json.gz"
done
mkdir "$spool/ddp-a"
gen "$spool/ddp-a/rank0.json.gz" --seed 7 --world 2 --rank 0 --slow-comm
gen "$spool/ddp-a/rank1.json.gz" --seed 7 --world 2 --rank 1
printf 'user=alice\n' > "$spool/ddp-a/.done"
gen "$work/gen/plain.json" --seed 9
head -c 1500 "$work/gen/plain.json" > "$work/gen/truncated.json"
drop_file "$work/gen/truncated.json" truncated.json
cp "$work/gen/single-1.json.gz" "$spool/.half-written.json.gz"      # never renamed: must stay
mkdir "$spool/unfinished-job" && cp "$work/gen/single-2.json.gz" "$spool/unfinished-job/rank0.json.gz"  # no marker

wait_for 60 "4 analyses and 1 failure" bash -c "$(declare -f http metric metric_is); serve_port=$serve_port; metric_is plasmient_serve_traces_analyzed_total 4 && metric_is plasmient_serve_traces_failed_total 1"
say "analyzed 4 entries (3 files, 1 two-rank folder), 1 failed"
[[ -f $spool/failed/truncated.json && -s $spool/failed/truncated.json.error ]] || fail "truncated trace not moved to failed/ with its .error"
say "truncated.json.error: $(head -c 160 "$spool/failed/truncated.json.error")"
[[ -f $spool/.half-written.json.gz && -d $spool/unfinished-job ]] || fail "an incomplete entry was taken"
[[ -d $spool/done/ddp-a && -f $spool/done/single-3.json.gz ]] || fail "analyzed entries not in done/"

# --- exposition: promtool, Prometheus, PromQL ---------------------------------------------------
http GET "http://127.0.0.1:$serve_port/metrics" > "$work/metrics.txt"
# Accepted: the snake_case lint on dcgm-exporter's label names (Hostname, modelName); nothing else.
lint=$(promtool check metrics < "$work/metrics.txt" 2>&1 | grep -v "label names should be written in 'snake_case' not 'camelCase'$" || true)
[[ -z $lint ]] || fail "promtool check metrics: $lint"
say "promtool check metrics: ok ($(wc -l < "$work/metrics.txt") lines)"
want=$(sql "SELECT achieved FROM rank_verdicts WHERE job_id = 'ddp-a' AND rank = 0")
[[ -n $want ]] || fail "no rank_verdicts row for ddp-a in SQLite"
promql='plasmient_achieved_fraction_of_peak_ratio{plasmient_job="ddp-a",rank="0",Hostname="node-a"}'
prom_value() {
  http GET "http://127.0.0.1:$prom_port/api/v1/query?query=$(python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$promql")" |
    python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")'
}
wait_for 60 "Prometheus to scrape plasmient serve" bash -c "[[ -n \$($(declare -f http prom_value); prom_port=$prom_port; promql='$promql'; prom_value) ]]"
got=$(prom_value)
python3 -c "import sys; g,w=float('$got'),float('$want'); sys.exit(0 if abs(g-w) <= 1e-12*max(1,abs(w)) and 0 < w < 1 else 1)" \
  || fail "PromQL $promql = $got, SQLite says $want"
say "PromQL $promql = $got (SQLite: $want)"

# --- ClickHouse: the same analyses, sharded; plasmient fleet answers from it ----------------------
wait_for 60 "the ClickHouse outbox to drain" metric_is plasmient_clickhouse_outbox_files 0
[[ $(ch "SELECT count() FROM plasmient.jobs") == 4 ]] || fail "ClickHouse holds $(ch 'SELECT count() FROM plasmient.jobs') jobs, want 4"
s1=$(ch "SELECT count() FROM shard1.kernel_aggregates_local"); s2=$(ch "SELECT count() FROM shard2.kernel_aggregates_local")
[[ $((s1 + s2)) == $(sql "SELECT count(*) FROM kernel_aggregates") ]] || fail "kernel rows: shards $s1 + $s2, SQLite $(sql 'SELECT count(*) FROM kernel_aggregates')"
say "ClickHouse: 4 jobs; kernel_aggregates rows on shard1/shard2 = $s1/$s2"
"$bin" fleet --clickhouse "$ch_url" --top kernels --limit 3 | tee "$work/top_kernels.txt"
grep -q sm90_xmma_gemm "$work/top_kernels.txt" || fail "fleet --top kernels from ClickHouse"
"$bin" fleet --clickhouse "$ch_url" --top users | tee "$work/top_users.txt"
grep -q alice "$work/top_users.txt" || fail "fleet --top users: label user=alice missing"
"$bin" fleet --clickhouse "$ch_url" --stragglers | tee "$work/stragglers.txt"
awk 'NR == 2 {exit !($1 == "ddp-a" && $2 == "1")}' "$work/stragglers.txt" || fail "straggler of ddp-a should be rank 1"
"$bin" fleet --db "$db" --trend --job ddp-a
cmp <("$bin" fleet --db "$db" --top jobs) <("$bin" fleet --clickhouse "$ch_url" --top jobs) >/dev/null \
  || say "note: SQLite and ClickHouse print --top jobs differently (float formatting); counts checked below"
# The rollups (what fleet reads on ClickHouse) against the raw rows read FINAL, every question
# that has both: the same table printed (numbers to 6 digits; bench/fleet_sim.sh checks 1e-9).
for question in "--top kernels" "--top ops" "--top layers" "--top jobs" "--top users" "--top teams" "--stragglers"; do
  # shellcheck disable=SC2086  # two words
  cmp <("$bin" fleet --clickhouse "$ch_url" $question --limit 100) <("$bin" fleet --clickhouse "$ch_url" $question --limit 100 --raw-rows) \
    || fail "fleet $question: the rollups answer differently from the raw rows"
done
say "fleet from the rollups = fleet --raw-rows for kernels, ops, layers, jobs, users, teams, stragglers"

# --- the lever ranking: SQLite and ClickHouse rank the same jobs identically ----------------------
# `fleet --top jobs --by recoverable-gpu-hours --lever L` and `bill --whatif` from the two stores:
# the same jobs in the same order, with equal recoverable GPU-hours and dollars (docs/fleet.md, "Levers").
same_ranking() {  # same_ranking SQLITE_TABLE CLICKHOUSE_TABLE: equal rows, numbers to 1e-9
  python3 - "$1" "$2" <<'PY'
import math, sys
def rows(path):
    lines = open(path).read().split("\n")
    header = lines[0].split()
    return header, [dict(zip(header, l.split())) for l in lines[1:] if l.strip()]
(hs, a), (hc, b) = rows(sys.argv[1]), rows(sys.argv[2])
assert hs == hc, f"columns differ: {hs} / {hc}"
assert len(a) == len(b) >= 2, f"{len(a)} rows from SQLite, {len(b)} from ClickHouse (want the same, at least 2)"
for x, y in zip(a, b):
    assert x["job"] == y["job"] and x.get("lever") == y.get("lever"), f"order differs: {x} / {y}"
    for k in ("recoverable_gpu_hours", "recoverable_spend", "gpu_hours"):
        assert math.isclose(float(x[k]), float(y[k]), rel_tol=1e-9, abs_tol=1e-15), f"{k}: {x} / {y}"
print(f"{len(a)} rows equal")
PY
}
recovered=0
for lever in overlap-comm cuda-graphs "batch-scale 2" "batch-scale 4" "batch-scale 8"; do
  # shellcheck disable=SC2086  # the lever is one or two words
  "$bin" fleet --db "$db" --top jobs --by recoverable-gpu-hours --lever $lever > "$work/lever-sqlite.txt" \
    || fail "fleet --lever $lever on SQLite"
  # shellcheck disable=SC2086
  "$bin" fleet --clickhouse "$ch_url" --top jobs --by recoverable-gpu-hours --lever $lever > "$work/lever-ch.txt" \
    || fail "fleet --lever $lever on ClickHouse"
  same_ranking "$work/lever-sqlite.txt" "$work/lever-ch.txt" >/dev/null \
    || { cat "$work/lever-sqlite.txt" "$work/lever-ch.txt"; fail "--lever $lever ranks differently on SQLite and ClickHouse"; }
  awk 'NR > 1 && $2 > 0 {found = 1} END {exit !found}' "$work/lever-sqlite.txt" && recovered=$((recovered + 1))
done
((recovered >= 2)) || fail "fewer than two levers recover anything: the ranking comparison proves little"
"$bin" bill --db "$db" --whatif overlap-comm,batch-scale=4 > "$work/bill-sqlite.txt" || fail "bill --whatif on SQLite"
"$bin" bill --clickhouse "$ch_url" --whatif overlap-comm,batch-scale=4 > "$work/bill-ch.txt" || fail "bill --whatif on ClickHouse"
same_ranking "$work/bill-sqlite.txt" "$work/bill-ch.txt" >/dev/null \
  || { cat "$work/bill-sqlite.txt" "$work/bill-ch.txt"; fail "bill --whatif differs between SQLite and ClickHouse"; }
say "lever ranking: 5 levers ($recovered recovering GPU-hours) and bill --whatif equal on SQLite and ClickHouse"
cat "$work/bill-ch.txt"

# --- ClickHouse down mid-run: rows wait in the outbox, nothing lost ------------------------------
kill "$ch_pid"; wait "$ch_pid" 2>/dev/null || true
for i in 1 2 3 4 5; do
  gen "$work/gen/while-down-$i.json.gz" --seed $((100 + i))
  drop_file "$work/gen/while-down-$i.json.gz" "while-down-$i.json.gz"
done
wait_for 60 "9 analyses" metric_is plasmient_serve_traces_analyzed_total 9
wait_for 30 "ClickHouse to be seen down" metric_is plasmient_clickhouse_up 0
pending=$(metric plasmient_clickhouse_outbox_files)
[[ $pending -ge 1 ]] || fail "nothing waited in the outbox while ClickHouse was down"
say "ClickHouse stopped: 5 analyses recorded in SQLite, $pending waiting in the outbox"
start_clickhouse
wait_for 60 "the outbox to drain after the restart" metric_is plasmient_clickhouse_outbox_files 0
[[ $(ch "SELECT count() FROM plasmient.jobs") == 9 && $(sql "SELECT count(*) FROM jobs") == 9 ]] \
  || fail "after the restart: ClickHouse $(ch 'SELECT count() FROM plasmient.jobs') jobs, SQLite $(sql 'SELECT count(*) FROM jobs'), want 9"
say "ClickHouse restarted: 9 jobs in both stores, overflow $(metric plasmient_clickhouse_overflow_jobs_total)"

# --- kill -9 mid-analysis, restart: nothing lost, nothing twice ----------------------------------
gen "$work/gen/big.json.gz" --seed 500 --steps 150 --gemms 100
for i in $(seq 1 12); do drop_file "$work/gen/big.json.gz" "big-$i.json.gz"; done
wait_for 60 "the first big trace to be analyzed" metric_ge plasmient_serve_traces_analyzed_total 10
kill -9 "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
left=$(find "$spool" -maxdepth 1 -name 'big-*.json.gz' | wc -l)
say "kill -9 with $left of 12 big traces still in the spool"
start_serve
wait_for 120 "all 21 entries recorded" bash -c "[[ \$(sqlite3 '$db' 'SELECT count(*) FROM jobs') == 21 ]] && [[ -z \$(find '$spool' -maxdepth 1 -name 'big-*') ]]"
wait_for 60 "the outbox to drain" metric_is plasmient_clickhouse_outbox_files 0
[[ $(sql "SELECT count(DISTINCT job_key) FROM jobs") == 21 && $(sql "SELECT count(*) FROM ingest_journal") == 21 ]] || fail "journal or jobs doubled"
# A crash between an INSERT and the deletion of its outbox file may store a batch twice; the
# tables are ReplacingMergeTree on (job_key, row_index) and read FINAL, so it counts once
# (docs/fleet.md, "Idempotent inserts").
[[ $(ch "SELECT count() FROM plasmient.jobs FINAL") == 21 && $(ch "SELECT uniqExact(job_key) FROM plasmient.jobs") == 21 ]] \
  || fail "ClickHouse after kill -9: $(ch 'SELECT count() FROM plasmient.jobs FINAL') jobs read FINAL, want 21"
[[ $(ch "SELECT count() FROM plasmient.steps FINAL") == $(sql "SELECT count(*) FROM steps") ]] || fail "steps differ between the stores"
say "after kill -9 and restart: 21 jobs, once each read FINAL, in SQLite and ClickHouse ($(ch 'SELECT count() FROM plasmient.jobs') rows before merging)"
# The counters across the kill -9: every analysis counted once, none lost (docs/fleet.md,
# "Counters that add up"): their sum is the store's.
got=$(http GET "http://127.0.0.1:$serve_port/metrics" | awk '/^plasmient_gpu_seconds_total\{/ {s += $NF} END {printf "%.17g", s}')
want=$(sql "SELECT printf('%.17g', sum(wall_s)) FROM rank_verdicts")
python3 -c "import sys; g, w = float('$got'), float('$want'); sys.exit(0 if w > 0 and abs(g - w) <= 1e-9 * w else 1)" \
  || fail "after kill -9: the counters' Σ plasmient_gpu_seconds_total $got, the store's Σ wall_s $want"
say "after kill -9 and restart: Σ plasmient_gpu_seconds_total $got = the store's Σ wall_s $want"

jobs_now=21

# --- the SQLite store locked, then its disk full: ClickHouse still counts each job once ------------
# While the SQLite write keeps failing, serve retries the entry; each retry once wrote another
# outbox file, and `fleet --clickhouse` (which reads the rollups) counted the job 3 to 13 times.
# After each run and after the kill -9 above, both stores give the same jobs and GPU-hours.
# stores_agree: `fleet --top teams --by gpu-hours` (jobs and GPU-hours per team) from SQLite and
# from ClickHouse's rollups, equal to 1e-9.
stores_agree() {
  python3 - <("$bin" fleet --db "$db" --top teams --by gpu-hours --tsv --limit 1000) \
    <("$bin" fleet --clickhouse "$ch_url" --top teams --by gpu-hours --tsv --limit 1000) "$1" <<'PY'
import sys
def rows(path):
    lines = [l.split("\t") for l in open(path).read().splitlines() if l]
    head = lines[0]
    return head, {r[0]: dict(zip(head, r)) for r in lines[1:]}
(h1, a), (h2, b) = rows(sys.argv[1]), rows(sys.argv[2])
want_jobs = int(sys.argv[3])
assert h1 == h2, f"headers differ: {h1} / {h2}"
jobs = [c for c in h1 if "jobs" in c or "analyses" in c]
hours = [c for c in h1 if c.endswith("gpu_hours")]
assert jobs and hours, f"no job or GPU-hour column in {h1}"
assert a.keys() == b.keys(), f"teams differ: {sorted(a)} / {sorted(b)}"
n = 0
for team in a:
    for c in jobs:
        assert a[team][c] == b[team][c], f"{team} {c}: SQLite {a[team][c]}, ClickHouse {b[team][c]}"
    for c in hours:
        x, y = float(a[team][c]), float(b[team][c])
        assert abs(x - y) <= 1e-9 * max(abs(x), 1e-12), f"{team} {c}: SQLite {x}, ClickHouse {y}"
    n += int(a[team][jobs[0]])
assert n == want_jobs, f"{n} jobs in the stores, want {want_jobs}"
print(f"{n} jobs; " + ", ".join(f"{t}: {a[t][jobs[0]]} jobs, {float(a[t][hours[0]]):.6g} GPU-h" for t in sorted(a)))
PY
}
agreed=$(stores_agree "$jobs_now") || fail "after kill -9: fleet --db and fleet --clickhouse differ"
say "after kill -9: fleet --db = fleet --clickhouse ($agreed)"

# Locked: another process holds the store's write lock for 8 s while three traces arrive.
(echo "BEGIN EXCLUSIVE;"; sleep 8; echo "COMMIT;") | sqlite3 "$db" &
lock_pid=$!
sleep 0.5
for i in 1 2 3; do
  gen "$work/gen/locked-$i.json.gz" --seed $((600 + i))
  drop_file "$work/gen/locked-$i.json.gz" "locked-$i.json.gz"
done
wait "$lock_pid" || true
jobs_now=$((jobs_now + 3))
wait_for 120 "the 3 traces of the locked store recorded" bash -c "[[ \$(sqlite3 '$db' 'SELECT count(*) FROM jobs') == $jobs_now ]]"
wait_for 60 "the outbox to drain" metric_is plasmient_clickhouse_outbox_files 0
agreed=$(stores_agree "$jobs_now") || fail "after the locked store: fleet --db and fleet --clickhouse differ"
say "store locked 8 s under 3 arrivals: fleet --db = fleet --clickhouse ($agreed)"

# Full: the store's own filesystem filled while three traces arrive, then space freed.
if [[ -n $dbfs ]]; then
  # The write-ahead log emptied first (a checkpoint that truncates it): SQLite reuses the log's
  # pages, so on a store that has written before, a small write would still fit and nothing would
  # fail. With the log at 0 bytes every write must grow a file on the full disk.
  truncated=""
  for _ in $(seq 100); do
    if [[ $(sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE);" 2>/dev/null) == 0\|0\|0 ]]; then
      truncated=1
      break
    fi
    sleep 0.1
  done
  [[ -n $truncated ]] || fail "the store's write-ahead log could not be truncated (a reader held it 10 s)"
  head -c $((512 << 20)) /dev/zero > "$dbfs/.filler" 2>/dev/null || true
  for i in 1 2 3; do
    gen "$work/gen/full-$i.json.gz" --seed $((700 + i))
    drop_file "$work/gen/full-$i.json.gz" "full-$i.json.gz"
  done
  wait_for 60 "/healthz to say the store cannot be written" bash -c \
    "[[ \$(curl -s -o /dev/null -w '%{http_code}' 'http://127.0.0.1:$serve_port/healthz') == 503 ]]"
  health=503
  while_full=$(( $(sql "SELECT count(*) FROM jobs") - jobs_now ))
  ((while_full == 0)) || fail "$while_full jobs recorded in SQLite while its disk was full"
  rm -f "$dbfs/.filler"
  jobs_now=$((jobs_now + 3))
  wait_for 120 "the 3 traces of the full disk recorded" bash -c "[[ \$(sqlite3 '$db' 'SELECT count(*) FROM jobs') == $jobs_now ]]"
  wait_for 60 "the outbox to drain" metric_is plasmient_clickhouse_outbox_files 0
  agreed=$(stores_agree "$jobs_now") || fail "after the full disk: fleet --db and fleet --clickhouse differ"
  say "store's disk full under 3 arrivals ($while_full recorded while full, /healthz $health): fleet --db = fleet --clickhouse ($agreed)"
else
  say "full disk: skipped (not root: no filesystem of the store's own to fill)"
fi
[[ $(sql "SELECT count(*) FROM ingest_journal") == "$jobs_now" ]] || fail "journal: $(sql 'SELECT count(*) FROM ingest_journal') entries, want $jobs_now"
[[ $(ch "SELECT count() FROM plasmient.jobs FINAL") == "$jobs_now" ]] || fail "ClickHouse: $(ch 'SELECT count() FROM plasmient.jobs FINAL') jobs, want $jobs_now"

# --- a batch that reaches ClickHouse twice (its answer lost, sent again): every row counted once --
# in the raw tables read FINAL (`--raw-rows`); the rollups' views count what they are given
# (docs/fleet.md, "What the rollups do not deduplicate").
top_jobs=$("$bin" fleet --clickhouse "$ch_url" --top jobs --limit 100 --raw-rows)
top_kernels=$("$bin" fleet --clickhouse "$ch_url" --top kernels --limit 100 --raw-rows)
key=$(sql "SELECT job_key FROM jobs WHERE job_id = 'ddp-a'")
tables=(jobs steps rank_verdicts kernel_aggregates op_aggregates rank_collectives cluster_stragglers bills layer_types cluster_ranks cluster_steps)
# No background merge may fold the repeated rows before they are counted (that would make the
# count below flaky and the FINAL checks prove nothing).
for shard in shard1 shard2; do ch "SYSTEM STOP MERGES $shard.jobs_local" >/dev/null || fail "stopping merges on $shard"; done
for t in "${tables[@]}"; do  # the same rows, row_index included, inserted again through the Distributed table
  http POST "$ch_url/?insert_distributed_sync=1" "INSERT INTO plasmient.$t SELECT * FROM plasmient.$t WHERE job_key = '$key'" >/dev/null \
    || fail "inserting $t of ddp-a again"
done
[[ $(ch "SELECT count() FROM plasmient.jobs WHERE job_key = '$key'") == 2 ]] || fail "the repeated batch was not stored twice: the check below would prove nothing"
[[ $(ch "SELECT count() FROM plasmient.jobs FINAL") == "$jobs_now" ]] || fail "jobs FINAL: $(ch 'SELECT count() FROM plasmient.jobs FINAL'), want $jobs_now"
for t in "${tables[@]}"; do
  [[ $(ch "SELECT count() FROM plasmient.$t FINAL") == $(sql "SELECT count(*) FROM $t") ]] \
    || fail "$t FINAL: $(ch "SELECT count() FROM plasmient.$t FINAL") rows, SQLite $(sql "SELECT count(*) FROM $t")"
done
[[ $("$bin" fleet --clickhouse "$ch_url" --top jobs --limit 100 --raw-rows) == "$top_jobs" ]] || fail "fleet --top jobs --raw-rows changed after a repeated batch"
[[ $("$bin" fleet --clickhouse "$ch_url" --top kernels --limit 100 --raw-rows) == "$top_kernels" ]] || fail "fleet --top kernels --raw-rows changed after a repeated batch"
for shard in shard1 shard2; do ch "SYSTEM START MERGES $shard.jobs_local" >/dev/null; ch "OPTIMIZE TABLE $shard.jobs_local FINAL" >/dev/null; done
[[ $(ch "SELECT count() FROM plasmient.jobs WHERE job_key = '$key'") == 1 ]] || fail "merged: ddp-a still has two jobs rows"
say "ddp-a's batch inserted twice: stored twice, read once (FINAL), one row after a merge; fleet --raw-rows answers unchanged"
# Tables of an older Plasmient (MergeTree without row_index) are refused, not written into.
ch "CREATE DATABASE IF NOT EXISTS old" >/dev/null
ch "CREATE TABLE old.jobs (job_key String, at_ns Int64) ENGINE = MergeTree() ORDER BY job_key" >/dev/null
out=$("$bin" fleet --clickhouse "$ch_url" --clickhouse-db old --init-schema --top jobs 2>&1) && fail "old tables accepted"
grep -q "old.jobs has no row_index column" <<<"$out" || fail "old tables: $out"
say "tables without row_index: $(head -c 140 <<<"$out")…"

# --- a burst of traces while 100 scrapers scrape --------------------------------------------------
t0=$(date +%s.%N)
for i in $(seq 1 "$burst"); do cp "$work/gen/single-3.json.gz" "$spool/.b$i.part"; mv "$spool/.b$i.part" "$spool/burst-$i.json.gz"; done
rss0=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
"$load" "$serve_port" 100 "$load_s" "$serve_pid" "$scrape_interval_ms" | tee "$work/load.txt" || fail "scrapers saw errors"
want_jobs=$((jobs_now + burst))
wait_for 600 "$burst burst traces recorded" bash -c "[[ \$(sqlite3 '$db' 'SELECT count(*) FROM jobs') == $want_jobs ]]"
t1=$(date +%s.%N)
rss1=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
say "burst: $burst traces analyzed and recorded in $(python3 -c "print(f'{$t1 - $t0:.1f}')") s; serve RSS ${rss0} kB -> ${rss1} kB"
p99=$(sed -n 's/.*p99_ms=\([0-9.]*\).*/\1/p' "$work/load.txt")
if [[ $mode == long ]]; then
  python3 -c "import sys; sys.exit(0 if $p99 < 50 else 1)" || fail "p99 $p99 ms >= 50 ms"
fi
wait_for 120 "the outbox to drain" metric_is plasmient_clickhouse_outbox_files 0
[[ $(ch "SELECT count() FROM plasmient.jobs") == "$want_jobs" ]] || fail "ClickHouse jobs after the burst"

# --- the cluster layer from the stores: a 64-rank job, each rank its own spool entry -----------------
# `fleet --job J --cluster` on SQLite and on two-shard ClickHouse names the straggler `analyze DIR`
# names, with its caused wait within 1% (docs/fleet.md, "The cluster over the store").
"$bin" synth --scenario straggler --ranks 64 --steps 3 -o "$work/c64" >/dev/null || fail "synth of 64 ranks"
"$bin" analyze "$work/c64" -q --json "$work/c64.json" || fail "analyze of the 64-rank folder"
for r in $(seq 0 63); do
  printf 'job=cluster64\n' > "$spool/c64-rank$r.pt.trace.json.done"  # the marker first: it names the job
  cp "$work/c64/rank-$r.pt.trace.json" "$spool/.c64-rank$r.part"
  mv "$spool/.c64-rank$r.part" "$spool/c64-rank$r.pt.trace.json"
done
wait_for 300 "64 ranks of cluster64 recorded" bash -c "[[ \$(sqlite3 '$db' \"SELECT count(*) FROM cluster_ranks WHERE job_id = 'cluster64'\") == 64 ]]"
wait_for 120 "the outbox to drain" metric_is plasmient_clickhouse_outbox_files 0
"$bin" fleet --db "$db" --job cluster64 --cluster --limit 1000 > "$work/c64-sqlite.txt" || fail "fleet --cluster on SQLite"
t0=$(date +%s.%N)
"$bin" fleet --clickhouse "$ch_url" --job cluster64 --cluster --limit 1000 > "$work/c64-ch.txt" || fail "fleet --cluster on ClickHouse"
t1=$(date +%s.%N)
python3 - "$work/c64.json" "$work/c64-sqlite.txt" "$work/c64-ch.txt" <<'PY' || fail "the stores' cluster figures differ from the folder's"
import json, sys
folder = json.load(open(sys.argv[1]))
want = folder["stragglers"]
assert len(want) == 1, f"the folder names {len(want)} stragglers"
for path in sys.argv[2:]:
    lines = open(path).read().split("\n")
    assert "64 ranks from 64 analyses" in lines[0], f"{path}: {lines[0]}"
    at = lines.index(" stragglers")
    header, row = lines[at + 1].split(), lines[at + 2].split()
    got = dict(zip(header, row))
    assert int(got["straggler_rank"]) == want[0]["rank"], f"{path}: straggler {got}, folder {want[0]}"
    caused = float(got["caused_wait_s"])
    assert abs(caused - want[0]["caused_wait_s"]) <= 0.01 * want[0]["caused_wait_s"], f"{path}: {caused} vs {want[0]}"
    print(f"{path}: rank {got['straggler_rank']} caused {caused} s (folder {want[0]['caused_wait_s']:.6g} s)")
PY
# serve's watch (--cluster-every-s 1) ran the same over ClickHouse once the 64 ranks' rows arrived.
straggler=$(python3 -c "import json; print(json.load(open('$work/c64.json'))['stragglers'][0]['rank'])")
wait_for 60 "serve's cluster watch to read 64 ranks of cluster64" metric_is 'plasmient_cluster_ranks{plasmient_job="cluster64"}' 64
got=$(metric "plasmient_cluster_straggler_caused_wait_seconds{plasmient_job=\"cluster64\",rank=\"$straggler\"}")
python3 -c "import json,sys; w=json.load(open('$work/c64.json'))['stragglers'][0]['caused_wait_s']; g=float('${got:-nan}'); sys.exit(0 if abs(g-w) <= 0.01*w else 1)" \
  || fail "serve's straggler metric for cluster64 rank $straggler: '$got'"
say "cluster64: SQLite and ClickHouse name rank $(python3 -c "import json; print(json.load(open('$work/c64.json'))['stragglers'][0]['rank'])") like the folder; ClickHouse query $(python3 -c "print(f'{$t1 - $t0:.2f}')") s"

# --- graceful shutdown ------------------------------------------------------------------------------
kill -TERM "$serve_pid"
rc=0; wait "$serve_pid" || rc=$?
[[ $rc == 0 ]] || fail "serve exited $rc on SIGTERM"
say "SIGTERM: serve exited 0; $(tail -n 1 "$work/serve.log")"
say "PASS in $((SECONDS - t_start)) s"
