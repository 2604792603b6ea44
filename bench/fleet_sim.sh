#!/usr/bin/env bash
# A simulated fleet in a two-shard ClickHouse on loopback (two server processes, Distributed
# tables on the first), written by bench/fleet_sim.cc through the store serve uses; then every
# question `plasmient fleet` asks is timed from the rollups, and each answer is checked against
# the same question over the raw rows (`--raw-rows`, read FINAL) and, for the top waste and the
# trend, against an aggregate written here in SQL over the raw rows: equal within 1e-9 relative.
#
# usage: fleet_sim.sh PLASMIENT FLEET_SIM [fleet_sim flags: --gpus N --jobs J --hours H --window-s S
#                                          --threads T --batch B]
#   e.g. fleet_sim.sh build/plasmient build/bench/fleet_sim --gpus 10000 --hours 2   (the fleet, 2 hours)
#        the CI slice (CTest fleet_rollups): --gpus 32 --jobs 4 --hours 30 --window-s 3600
# When the rows span more than one day, the days before the last are pruned
# (`fleet --prune-older-than`) on each shard: the raw rows go, the rollups' answers stay.
# Prints ingest rows/s, the CPU seconds the client and the servers spent on it, each query's
# latency (best of 3), disk bytes per table, and the checks.
# FLEET_SIM_CEILING=1 then times the servers alone (docs/fleet.md, "At fleet scale"): each shard
# inserts its raw rows again into the same tables, views and all, first INSERT … SELECT (no
# client, no HTTP, no parsing), then the rows read out as RowBinary and posted back over HTTP.
# KEEP_FLEET_TMP=1 keeps the servers' folder. Exit 77 (skipped) when clickhouse-server is absent.
set -euo pipefail

bin=$(realpath "${1:?usage: fleet_sim.sh PLASMIENT FLEET_SIM [fleet_sim flags]}")
sim=$(realpath "${2:?usage: fleet_sim.sh PLASMIENT FLEET_SIM [fleet_sim flags]}")
shift 2
here=$(cd "$(dirname "$0")" && pwd)
users_xml=$here/../tests/fleet/clickhouse_users.xml
t_start=$SECONDS
say() { printf '[fleet_sim %3ds] %s\n' $((SECONDS - t_start)) "$*"; }
fail() {
  say "FAIL: $*"
  exit 1
}
if ! command -v clickhouse-server >/dev/null 2>&1; then
  echo "SKIP: clickhouse-server is not installed (scripts/install-deps.sh --fleet)"
  exit 77
fi
[[ -x $bin && -x $sim ]] || fail "$bin and $sim are needed (cmake --build BUILD --target plasmient fleet_sim)"

work=$(mktemp -d /tmp/plasmient-fleet-sim.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do { kill -9 "$p" && wait "$p"; } 2>/dev/null || true; done
  if [[ ${KEEP_FLEET_TMP:-0} == 1 ]]; then say "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# --- two ClickHouse servers, one shard each ----------------------------------------------------
http_a=$(free_port) tcp_a=$(free_port) http_b=$(free_port) tcp_b=$(free_port)
url_a=http://127.0.0.1:$http_a url_b=http://127.0.0.1:$http_b
for s in a b; do
  dir=$work/$s
  mkdir -p "$dir"
  http_var=http_$s tcp_var=tcp_$s
  cat >"$dir/config.xml" <<EOF
<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>$dir/server.log</log><errorlog>$dir/server.err</errorlog><console>0</console></logger>
  <http_port>${!http_var}</http_port>
  <tcp_port>${!tcp_var}</tcp_port>
  <listen_host>127.0.0.1</listen_host>
  <path>$dir/data/</path>
  <tmp_path>$dir/tmp/</tmp_path>
  <user_files_path>$dir/user_files/</user_files_path>
  <format_schema_path>$dir/format_schemas/</format_schema_path>
  <users_config>$dir/users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <mark_cache_size>268435456</mark_cache_size>
  <remote_servers>
    <fleet_sim>
      <shard><replica><host>127.0.0.1</host><port>$tcp_a</port></replica></shard>
      <shard><replica><host>127.0.0.1</host><port>$tcp_b</port></replica></shard>
    </fleet_sim>
  </remote_servers>
</yandex>
EOF
  cp "$users_xml" "$dir/users.xml"
  clickhouse-server --config-file="$dir/config.xml" >"$dir/stdout" 2>&1 &
  pids+=($!)
done
ch() {  # ch URL SQL: the answer, TabSeparated
  curl -sS --fail-with-body "$1/" --data-binary "$2" || fail "ClickHouse at $1: $2"
}
for url in "$url_a" "$url_b"; do
  for _ in $(seq 1 300); do curl -sf "$url/ping" >/dev/null 2>&1 && break; sleep 0.2; done
  curl -sf "$url/ping" >/dev/null || fail "ClickHouse on $url did not start"
done
say "ClickHouse $(ch "$url_a" 'SELECT version()') ×2: $url_a (Distributed tables, shard 1), $url_b (shard 2)"

# Shard tables on each server; the Distributed tables on the first (what serve does at start).
"$bin" fleet --clickhouse "$url_b" --clickhouse-cluster fleet_sim --init-schema --local-only 2>/dev/null \
  || fail "schema on shard 2"
"$bin" fleet --clickhouse "$url_a" --clickhouse-cluster fleet_sim --init-schema 2>/dev/null || fail "schema on shard 1"

# --- ingest --------------------------------------------------------------------------------
server_pids=("${pids[@]}")
cpu_s() {  # cpu_s PID...: user + system CPU seconds of those processes, all threads
  local total=0 p f
  for p in "$@"; do
    read -ra f <"/proc/$p/stat"
    total=$((total + f[13] + f[14]))  # utime, stime (after a command name without spaces)
  done
  python3 -c "print(f'{$total / $(getconf CLK_TCK):.2f}')"
}
servers_before=$(cpu_s "${server_pids[@]}")
TIMEFORMAT='%U %S'  # bash's own `time`: the user and system CPU seconds of fleet_sim (and tee)
{ time "$sim" --url "$url_a" --cluster fleet_sim "$@" 2>&3 | tee "$work/sim.txt"; } 3>&2 2>"$work/sim.cpu" \
  || fail "fleet_sim"
servers_after=$(cpu_s "${server_pids[@]}")
read -r sim_user sim_sys <"$work/sim.cpu"
say "CPU seconds: fleet_sim $sim_user user + $sim_sys system; the two servers $(python3 -c "print(f'{$servers_after - $servers_before:.2f}')")"
rows_a=$(ch "$url_a" "SELECT sum(rows) FROM system.parts WHERE active AND database = 'plasmient' AND table LIKE '%\_local' AND table NOT LIKE '%\_by\_hour\_local'")
rows_b=$(ch "$url_b" "SELECT sum(rows) FROM system.parts WHERE active AND database = 'plasmient' AND table LIKE '%\_local' AND table NOT LIKE '%\_by\_hour\_local'")
say "raw rows on the shards: $rows_a + $rows_b"

# --- the migration of a store without rollups: a rollup made over rows already there is filled once
for url in "$url_a" "$url_b"; do
  ch "$url" "DROP TABLE plasmient.kernels_by_hour_mv" >/dev/null
  ch "$url" "DROP TABLE plasmient.kernels_by_hour_local" >/dev/null
done
"$bin" fleet --clickhouse "$url_b" --clickhouse-cluster fleet_sim --init-schema --local-only 2>/dev/null \
  || fail "schema again on shard 2"
"$bin" fleet --clickhouse "$url_a" --clickhouse-cluster fleet_sim --init-schema 2>/dev/null || fail "schema again on shard 1"
say "kernels_by_hour dropped on both shards and made again from the raw rows (checked below)"

# --- every question, timed from the rollups and checked against the raw rows ----------------------
python3 - "$bin" "$url_a" "$url_b" "$work" <<'PY'
import math, subprocess, sys, time, urllib.request
bin, url_a, url_b, work = sys.argv[1:5]

def ch(url, sql):
    with urllib.request.urlopen(urllib.request.Request(url + "/", data=sql.encode()), timeout=600) as r:
        return [l.split("\t") for l in r.read().decode().splitlines()]

def fleet(args, raw=False):
    cmd = [bin] + args + ["--clickhouse", url_a, "--tsv"] + (["--raw-rows"] if raw else [])
    best = None
    for _ in range(1 if raw else 3):
        t0 = time.perf_counter()
        out = subprocess.run(cmd, capture_output=True, text=True)
        dt = time.perf_counter() - t0
        if out.returncode != 0:
            sys.exit(f"FAIL: {' '.join(cmd)}: {out.stderr.strip()}")
        best = dt if best is None else min(best, dt)
    lines = [l.split("\t") for l in out.stdout.splitlines()]
    return lines[0], lines[1:], best

def same(what, a, b):
    """Rows equal: text cells exactly, numbers within 1e-9 relative."""
    if len(a) != len(b):
        sys.exit(f"FAIL: {what}: {len(a)} rows against {len(b)}")
    for x, y in zip(a, b):
        if len(x) != len(y):
            sys.exit(f"FAIL: {what}: {x} against {y}")
        for p, q in zip(x, y):
            try:
                fp, fq = float(p), float(q)
            except ValueError:
                if p != q:
                    sys.exit(f"FAIL: {what}: {x} against {y}")
                continue
            if not math.isclose(fp, fq, rel_tol=1e-9, abs_tol=1e-12):
                sys.exit(f"FAIL: {what}: {x} against {y}")
    return len(a)

hours = ch(url_a, "SELECT min(at_ns), max(at_ns) FROM plasmient.jobs_by_hour")[0]
first_h, last_h = int(hours[0]) // 3_600_000_000_000, int(hours[1]) // 3_600_000_000_000
questions = [
    ["fleet", "--top", "kernels"], ["fleet", "--top", "ops"], ["fleet", "--top", "layers"],
    ["fleet", "--top", "jobs"], ["fleet", "--top", "jobs", "--by", "gpu-hours"], ["fleet", "--top", "users"],
    ["fleet", "--top", "teams"], ["fleet", "--top", "jobs", "--by", "recoverable-gpu-hours"],
    ["fleet", "--top", "jobs", "--by", "recoverable-gpu-hours", "--lever", "batch-scale", "4"],
    ["fleet", "--stragglers"], ["fleet", "--trend", "--job", "job-000", "--limit", "1000"],
    ["bill", "--whatif", "overlap-comm,cuda-graphs,batch-scale=4"],
]
if last_h > first_h:  # a whole hour inside the range, for the window's bounds
    mid = str((first_h + (last_h - first_h + 1) // 2) * 3600)
    questions += [["fleet", "--top", "kernels", "--since", mid], ["fleet", "--top", "jobs", "--job", "job-001", "--until", mid]]
print(f"{'question':<72} {'rollups_s':>9} {'raw_s':>8} rows")
for q in questions:
    cols, rolled, t_rolled = fleet(q)
    if "--trend" in q:  # per hour from the rollups; per analysis from the raw rows: summed here
        got = ch(url_a, "SELECT job_id, intDiv(at_ns, 3600000000000) * 3600000000000 AS h, sum(useful_s) / sum(wall_s), "
                 "sum(utilization * wall_s) / sum(wall_s), sum(wall_s), count() FROM plasmient.jobs FINAL "
                 "WHERE job_id = 'job-000' GROUP BY job_id, h ORDER BY job_id, h LIMIT 1000")
        _, _, t_raw = fleet(q, raw=True)
    else:
        raw_cols, got, t_raw = fleet(q, raw=True)
        if raw_cols != cols:
            sys.exit(f"FAIL: {q}: columns {cols} from the rollups, {raw_cols} from the raw rows")
    n = same(" ".join(q), rolled, got)
    if n == 0:
        sys.exit(f"FAIL: {' '.join(q)}: no rows (the check would prove nothing)")
    print(f"{' '.join(q):<72} {t_rolled:9.3f} {t_raw:8.3f} {n}")

# The top waste, written here over the raw rows.
direct = ch(url_a, "SELECT name, sum(lost_s) / 3600 AS w, sum(time_s) / 3600, sum(calls), uniqExact(job_key) "
            "FROM plasmient.kernel_aggregates FINAL GROUP BY name ORDER BY w DESC, name LIMIT 20")
same("top kernels against SQL over the raw rows", fleet(["fleet", "--top", "kernels"])[1], direct)
direct = ch(url_a, "SELECT job_id, sum(wall_s - useful_s) / 3600 AS w, sum(wall_s) / 3600, sum(useful_s) / sum(wall_s), "
            "count() FROM plasmient.jobs FINAL GROUP BY job_id ORDER BY w DESC, job_id LIMIT 20")
same("top jobs against SQL over the raw rows", fleet(["fleet", "--top", "jobs"])[1], direct)
print("top kernels and top jobs equal the SQL aggregates over the raw rows (1e-9 relative)")

# Disk: every table's bytes on both shards, raw and rollups apart.
size = {}
for url in (url_a, url_b):
    for table, rows, b in ch(url, "SELECT table, sum(rows), sum(bytes_on_disk) FROM system.parts WHERE active "
                                  "AND database = 'plasmient' GROUP BY table"):
        r0, b0 = size.get(table, (0, 0))
        size[table] = (r0 + int(rows), b0 + int(b))
raw = {t: v for t, v in size.items() if "_by_hour" not in t}
rolled = {t: v for t, v in size.items() if "_by_hour" in t}
for name, group in (("raw", raw), ("rollups", rolled)):
    rows, b = sum(v[0] for v in group.values()), sum(v[1] for v in group.values())
    print(f"disk {name}: {rows} rows, {b} bytes ({b / max(rows, 1):.1f} bytes/row)")
    for t, (r, tb) in sorted(group.items(), key=lambda kv: -kv[1][1]):
        print(f"  {t:<32} {r:>12} rows {tb:>14} bytes")
PY
# --- retention: days before the last leave the raw tables, the rollups keep them ------------------
days=$(ch "$url_a" "SELECT uniqExact(intDiv(at_ns, 86400000000000)), max(intDiv(at_ns, 86400000000000)) FROM plasmient.jobs")
if [[ ${days%%$'\t'*} -gt 1 ]]; then
  last_day=$(date -u -d "@$((${days##*$'\t'} * 86400))" +%F)
  before=$("$bin" fleet --clickhouse "$url_a" --top jobs --tsv)
  for url in "$url_a" "$url_b"; do
    "$bin" fleet --clickhouse "$url" --clickhouse-cluster fleet_sim --prune-older-than "$last_day" || fail "prune on $url"
  done
  left=$(ch "$url_a" "SELECT count(), countIf(at_ns < $((${days##*$'\t'} * 86400))000000000) FROM plasmient.jobs")
  [[ ${left%%$'\t'*} -gt 0 && ${left##*$'\t'} == 0 ]] || fail "after --prune-older-than $last_day: jobs rows (all, older) = $left"
  # The same within 1e-9: a merge in between may sum the rollup's rows in another order.
  python3 - "$before" "$("$bin" fleet --clickhouse "$url_a" --top jobs --tsv)" <<'PY' || fail "the rollups changed with the raw rows pruned"
import math, sys
a, b = ([l.split("\t") for l in t.splitlines()] for t in sys.argv[1:3])
def same(p, q):
    try:
        return math.isclose(float(p), float(q), rel_tol=1e-9, abs_tol=1e-12)
    except ValueError:
        return p == q
sys.exit(0 if len(a) == len(b) > 1 and all(len(x) == len(y) and all(map(same, x, y)) for x, y in zip(a, b)) else 1)
PY
  say "pruned raw rows before $last_day on both shards: ${left%%$'\t'*} jobs rows left; fleet --top jobs unchanged (rollups)"
fi
# --- the servers alone: the same rows inserted again, views and all ------------------------------
if [[ ${FLEET_SIM_CEILING:-0} == 1 ]]; then
  raw_tables=$(ch "$url_a" "SELECT name FROM system.tables WHERE database = 'plasmient' AND name LIKE '%\_local' AND name NOT LIKE '%\_by\_hour\_local' ORDER BY name")
  for s in a b; do
    url_var=url_$s
    url=${!url_var} pid=${server_pids[$([[ $s == a ]] && echo 0 || echo 1)]}
    rows=$(ch "$url" "SELECT sum(rows) FROM system.parts WHERE active AND database = 'plasmient' AND table LIKE '%\_local' AND table NOT LIKE '%\_by\_hour\_local'")
    for t in $raw_tables; do  # read out before the first insert doubles them
      curl -sS --fail-with-body "$url/" --data-binary "SELECT * FROM plasmient.$t FORMAT RowBinary" -o "$work/$t.rowbinary" \
        || fail "read $t on $url"
    done
    bytes=$(cat "$work"/*.rowbinary | wc -c)
    cpu0=$(cpu_s "$pid") t0=$(date +%s.%N)
    for t in $raw_tables; do ch "$url" "INSERT INTO plasmient.$t SELECT * FROM plasmient.$t" >/dev/null; done
    t1=$(date +%s.%N) cpu1=$(cpu_s "$pid")
    cpu2=$(cpu_s "$pid") t2=$(date +%s.%N)
    for t in $raw_tables; do
      curl -sS --fail-with-body "$url/?query=$(python3 -c "import urllib.parse, sys; print(urllib.parse.quote(sys.argv[1]))" "INSERT INTO plasmient.$t FORMAT RowBinary")" \
        --data-binary "@$work/$t.rowbinary" >/dev/null || fail "RowBinary insert of $t on $url"
    done
    t3=$(date +%s.%N) cpu3=$(cpu_s "$pid")
    rm -f "$work"/*.rowbinary
    python3 - "$s" "$rows" "$bytes" "$t0" "$t1" "$t2" "$t3" "$cpu0" "$cpu1" "$cpu2" "$cpu3" <<'PY'
import sys
shard, rows, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
t0, t1, t2, t3, c0, c1, c2, c3 = map(float, sys.argv[4:12])
print(f"server {shard} alone, {rows} rows ({size / rows:.1f} RowBinary bytes/row): "
      f"INSERT … SELECT {rows / (t1 - t0):,.0f} rows/s ({c1 - c0:.2f} CPU s), "
      f"RowBinary over HTTP {rows / (t3 - t2):,.0f} rows/s ({c3 - c2:.2f} CPU s)")
PY
  done
fi
say "PASS"
