#!/usr/bin/env bash
# The cluster layer over two-shard ClickHouse at scale (docs/fleet.md, "The cluster over the
# store"): writes a simulated job's per-rank rows (bench/fleet_cluster_rows.py: one analysis per
# rank, a straggler, clocks up to ±50 ms apart), times `plasmient fleet --job J --cluster` once
# per size, and checks that it names the straggler with its caused wait within 1%.
# usage: bench/fleet_cluster_sim.sh [BUILD_DIR] [RANKS...]   (default 1000 3000 10000)
#   STEPS (default 10) steps of PER_STEP (default 4) all-reduces per rank.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(realpath "${1:-$here/../build}")
shift || true
sizes=("$@")
[[ ${#sizes[@]} -gt 0 ]] || sizes=(1000 3000 10000)
steps=${STEPS:-10} per_step=${PER_STEP:-4}
bin=$build/plasmient
conf=$here/../tests/fleet
command -v clickhouse-server >/dev/null || { echo "clickhouse-server is needed (scripts/install-deps.sh --fleet)"; exit 77; }

work=$(mktemp -d /tmp/plasmient-cluster-sim.XXXXXX)
ch_pid=
cleanup() { [[ -n $ch_pid ]] && kill -9 "$ch_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ch_http=$(port) ch_tcp=$(port)
ch_url=http://127.0.0.1:$ch_http
ch() { curl -sf --data-binary "$1" "$ch_url/"; }
mkdir -p "$work/ch"
sed -e "s|@DIR@|$work/ch|g" -e "s|@HTTP@|$ch_http|g" -e "s|@TCP@|$ch_tcp|g" "$conf/clickhouse_config.xml" > "$work/ch/config.xml"
sed -e "s|@DIR@|$work/ch|g" "$conf/clickhouse_users.xml" > "$work/ch/users.xml"
clickhouse-server --config-file="$work/ch/config.xml" >"$work/ch/stdout" 2>&1 &
ch_pid=$!
for _ in $(seq 1 300); do curl -sf "$ch_url/ping" >/dev/null && break; sleep 0.2; done
for shard in shard1 shard2; do
  "$bin" fleet --clickhouse "$ch_url" --clickhouse-db "$shard" --clickhouse-cluster two_shards --init-schema --local-only 2>/dev/null
done
"$bin" fleet --clickhouse "$ch_url" --clickhouse-cluster two_shards --clickhouse-shard-db - --init-schema 2>/dev/null
echo "ClickHouse $(ch 'SELECT version()'), two shards; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%8s %10s %9s %10s %12s %10s %s\n' ranks rows insert_s query_s us_per_row rss_mb straggler
for n in "${sizes[@]}"; do
  job=sim$n
  t0=$(date +%s.%N)
  truth=$(python3 "$here/fleet_cluster_rows.py" "$ch_url" plasmient "$job" "$n" "$steps" "$per_step")
  t1=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$work/rss" "$bin" fleet --clickhouse "$ch_url" --job "$job" --cluster --limit 3 > "$work/$job.txt"
  t2=$(date +%s.%N)
  python3 - "$truth" "$work/$job.txt" "$n" "$(cat "$work/rss")" "$t0" "$t1" "$t2" <<'PY'
import json, sys
truth, text, n, rss_kb = json.loads(sys.argv[1]), open(sys.argv[2]).read().split("\n"), int(sys.argv[3]), int(sys.argv[4])
t0, t1, t2 = map(float, sys.argv[5:8])
at = text.index(" stragglers")
got = dict(zip(text[at + 1].split(), text[at + 2].split()))
ok = int(got["straggler_rank"]) == truth["straggler"] and abs(float(got["caused_wait_s"]) - truth["caused_wait_s"]) <= 0.01 * truth["caused_wait_s"]
rows = truth["rows"]
print(f"{n:8d} {rows:10d} {t1 - t0:9.1f} {t2 - t1:10.2f} {(t2 - t1) / rows * 1e6:12.2f} {rss_kb / 1024:10.0f} "
      f"rank {got['straggler_rank']} caused {float(got['caused_wait_s']):.4g} s (truth {truth['caused_wait_s']:.4g} s): {'ok' if ok else 'WRONG'}")
sys.exit(0 if ok else 1)
PY
done
ch "SELECT table, sum(rows), sum(data_compressed_bytes), sum(data_uncompressed_bytes) FROM system.parts WHERE active AND database IN ('shard1', 'shard2') AND table IN ('rank_collectives_local', 'cluster_ranks_local', 'rank_verdicts_local') GROUP BY table FORMAT PrettyCompact"
