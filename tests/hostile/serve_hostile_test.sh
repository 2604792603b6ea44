#!/usr/bin/env bash
# Hostile inputs against `plasmient serve` and the CLI (docs/fleet.md, "Hostile input"): each
# probe builds its input, runs with time limits (and the daemon under `ulimit -v`), and checks
# the outcome. Prints PASS/FAIL per probe; exits 1 when any fails.
#   serve_hostile_test.sh PLASMIENT
# HOSTILE_ONLY=REGEX runs only the probes whose function name matches.
# HOSTILE_OLD=1 leaves out the flags older builds lack (to measure a build before these limits).
set -u
bin=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
mk_trace() { python3 "$here/../fleet/make_trace.py" "$@"; }
mk_hostile() { python3 "$here/make_hostile.py" "$@"; }
work=$(mktemp -d /tmp/plasmient-hostile.XXXXXX)
pids=()
mounts=()
cleanup() {
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  chattr -R -i "$work" 2>/dev/null
  [[ -n ${KEEP_HOSTILE_TMP:-} ]] || rm -rf "$work"
}
trap cleanup EXIT
failures=0
new=(--analysis-memory-mb 1024 --analysis-timeout-s 60)
[[ -n ${HOSTILE_OLD:-} ]] && new=()

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
healthz() { curl -s -o /dev/null -w '%{http_code}' --max-time "${2:-3}" "http://127.0.0.1:$1/healthz"; }

# serve_on SPOOL [FLAGS...]: starts serve on a free port (sets port, serve_pid), waits for /healthz.
serve_on() {
  local spool=$1
  shift
  port=$(free_port)
  (ulimit -v 4000000; exec "$bin" serve --spool "$spool" --listen "127.0.0.1:$port" --poll-ms 50 --counter-hold-s 0 "$@" \
     >"$spool.log" 2>&1) &
  serve_pid=$!
  pids+=("$serve_pid")
  for _ in $(seq 100); do
    [[ $(healthz "$port" 1) == 200 ]] && return 0
    kill -0 "$serve_pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
stop_serve() { kill -9 "$serve_pid" 2>/dev/null; wait "$serve_pid" 2>/dev/null; }
# wait_file SECONDS PATH: true once PATH exists.
wait_file() {
  for _ in $(seq $(($1 * 10))); do
    [[ -e $2 ]] && return 0
    sleep 0.1
  done
  return 1
}
new_spool() { local s="$work/$1"; mkdir -p "$s"; echo "$s"; }
probe() {
  local name=$1
  shift
  [[ -n ${HOSTILE_ONLY:-} && ! $1 =~ $HOSTILE_ONLY ]] && return 0
  local t0=$SECONDS
  if "$@"; then echo "PASS $name ($((SECONDS - t0)) s)"; else echo "FAIL $name ($((SECONDS - t0)) s)"; failures=$((failures + 1)); fi
}

mk_trace "$work/good.json" --seed 1
mk_trace "$work/big.json" --seed 2 --steps 3000 --gemms 8  # 20 MB: about 0.1 s of analysis
# 135 MB: about 0.4 s of analysis on an idle machine (more under load), 4× the shortest time limit
mk_trace "$work/slow.json" --seed 2 --steps 20000 --gemms 8

# --- item 2: files ------------------------------------------------------------------------------
p_marker_symlink() {
  local s; s=$(new_spool marker-link)
  printf 'password=hunter2\n' > "$work/secret"; chmod 600 "$work/secret"
  mkdir "$s/job"; cp "$work/good.json" "$s/job/rank0.json"
  ln -s "$work/secret" "$s/job.done"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 10 "$s/failed/job.error" || { stop_serve; return 1; }
  stop_serve
  grep -q "symbolic link" "$s/failed/job.error" && ! grep -rq hunter2 "$s/failed" "$s/.plasmient" &&
    [[ $(stat -c %a "$s/failed/job.error") == 600 ]]
}
p_trace_symlink() {
  local s; s=$(new_spool trace-link)
  cp "$work/good.json" "$work/private.json"; chmod 600 "$work/private.json"
  ln -s "$work/private.json" "$s/link.json"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 10 "$s/failed/link.json.error"; local rc=$?
  stop_serve
  [[ $rc == 0 ]] && grep -q "symbolic link" "$s/failed/link.json.error" &&
    [[ $(sqlite3 "$s/.plasmient/store.sqlite" 'SELECT count(*) FROM jobs') == 0 ]]
}
p_state_link() {
  local s; s=$(new_spool state-link)
  mkdir "$work/state-elsewhere"; ln -s "$work/state-elsewhere" "$s/.plasmient"
  local out rc
  out=$(timeout 5 "$bin" serve --spool "$s" --listen "127.0.0.1:$(free_port)" 2>&1); rc=$?
  echo "  $out"
  [[ $rc == 1 ]] && grep -q "plasmient: a symbolic link, not a folder: refused" <<<"$out" && [[ -z $(ls -A "$work/state-elsewhere") ]]
}
p_failed_link() {
  local s; s=$(new_spool failed-link)
  mkdir "$work/failed-elsewhere"; ln -s "$work/failed-elsewhere" "$s/failed"
  serve_on "$s" "${new[@]}" || return 1
  printf 'not a trace' > "$s/.bad.json.part" && mv "$s/.bad.json.part" "$s/bad.json"
  wait_healthz 10 503; local rc=$?
  local body; body=$(healthz_body "$port")
  rm "$s/failed"  # a real failed/ is made and the entry moves there
  wait_file 10 "$s/failed/bad.json.error"; local rc2=$?
  stop_serve
  echo "  failed/ a link: /healthz said \"$body\""
  [[ $rc == 0 && $body == *"/failed: a symbolic link or not a folder: refused"* && $rc2 == 0 ]] &&
    [[ -z $(ls -A "$work/failed-elsewhere") ]]
}
p_fifo_marker() {
  local s; s=$(new_spool fifo-marker)
  mkdir "$s/job"; cp "$work/good.json" "$s/job/rank0.json"; mkfifo "$s/job.done"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 10 "$s/failed/job.error"; local rc=$?
  cp "$work/good.json" "$s/after.json"  # the daemon goes on
  wait_file 20 "$s/done/after.json"; local rc2=$?
  stop_serve
  [[ $rc == 0 && $rc2 == 0 ]] && grep -q "FIFO" "$s/failed/job.error"
}
p_foreign_owner() {
  [[ $(id -u) == 0 ]] || { echo "  (not root: cannot chown; checked as skipped)"; return 0; }
  local s; s=$(new_spool foreign)
  cp "$work/good.json" "$s/theirs.json"; chown 65534 "$s/theirs.json"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 10 "$s/failed/theirs.json.error"; local rc=$?
  stop_serve
  [[ $rc == 0 ]] && grep -q "owned by uid 65534" "$s/failed/theirs.json.error"
}
p_analyze_fifo() {
  mkfifo "$work/fifo.json"
  local out rc
  out=$(timeout 5 "$bin" analyze "$work/fifo.json" 2>&1); rc=$?
  [[ $rc == 1 ]] && grep -q "FIFO" <<<"$out"
}
p_analyze_device() {
  local out rc
  out=$(timeout 5 "$bin" analyze /dev/zero 2>&1); rc=$?
  [[ $rc == 1 ]] && grep -q "character device" <<<"$out"
}

# --- item 3: caps -------------------------------------------------------------------------------
p_huge_string() {
  local s; s=$(new_spool huge-string)
  mk_hostile huge-string "$s/.huge.json.gz.part" 3072 && mv "$s/.huge.json.gz.part" "$s/huge.json.gz"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 60 "$s/failed/huge.json.gz.error"; local rc=$?
  local health; health=$(healthz "$port")
  stop_serve
  [[ $rc == 0 && $health == 200 ]] && grep -q "longer than 64 MiB" "$s/failed/huge.json.gz.error"
}
p_sqlite_view() {
  local s; s=$(new_spool sqlite-view)
  mk_hostile view-sqlite "$s/.loop.sqlite.part" && mv "$s/.loop.sqlite.part" "$s/loop.sqlite"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 15 "$s/failed/loop.sqlite.error"; local rc=$?
  stop_serve
  [[ $rc == 0 ]] && grep -q "is a view" "$s/failed/loop.sqlite.error"
}
p_http_body() {
  local s; s=$(new_spool http-body)
  serve_on "$s" "${new[@]}" || return 1
  head -c $((64 << 20)) /dev/zero > "$work/body"
  local rss0; rss0=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
  local a b
  a=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 --data-binary @"$work/body" "http://127.0.0.1:$port/metrics")
  b=$(curl -s -o /dev/null -w '%{http_code}' --max-time 20 -H 'Transfer-Encoding: chunked' --data-binary @"$work/body" "http://127.0.0.1:$port/metrics")
  local rss1; rss1=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
  stop_serve
  rm -f "$work/body"
  echo "  64 MB POSTs: $a (length given), $b (chunked); serve RSS ${rss0} kB -> ${rss1} kB"
  [[ $a == 413 && $b == 413 ]] && ((rss1 - rss0 < 65536))
}
p_slow_clients() {
  local s; s=$(new_spool slow)
  local extra=(); [[ -z ${HOSTILE_OLD:-} ]] && extra=(--http-timeout-s 1)
  serve_on "$s" "${new[@]}" "${extra[@]}" || return 1
  # 130 clients, each sending one header line every 0.5 s and never finishing its request.
  python3 - "$port" <<'PY' &
import socket, sys, time
port = int(sys.argv[1]); socks = []
for i in range(130):
    c = socket.create_connection(("127.0.0.1", port)); c.sendall(b"GET /metrics HTTP/1.1\r\n"); socks.append(c)
end = time.time() + 12
while time.time() < end:
    for c in socks:
        try: c.sendall(b"X-Slow: 1\r\n")
        except OSError: pass
    time.sleep(0.5)
PY
  local slow=$!
  pids+=("$slow")
  sleep 1
  local a b; a=$(healthz "$port" 6); b=$(curl -s -o /dev/null -w '%{http_code}' --max-time 6 "http://127.0.0.1:$port/metrics")
  kill "$slow" 2>/dev/null; wait "$slow" 2>/dev/null
  stop_serve
  [[ $a == 200 && $b == 200 ]]
}

# The HTTP attacks of the second probe, each with serve's RSS before and after (within 50 MB).
# http_attack PORT KIND: one attack from Python; prints what serve answered.
http_attack() {
  timeout 60 python3 - "$@" <<'PY'
import socket, sys
port, kind = int(sys.argv[1]), sys.argv[2]
def conn():
    c = socket.create_connection(("127.0.0.1", port), timeout=10); return c
def status(c):
    data = b""
    try:
        while b"\r\n" not in data:
            d = c.recv(4096)
            if not d: break
            data += d
    except OSError: pass
    return data.split(b" ")[1].decode() if data.count(b" ") else "none"
if kind == "ranges":  # 4 requests of 1,000 ranges each: cpp-httplib built a 1,000-part body per request
    ranges = ",".join(f"{i*50}-{i*50+10}" for i in range(1000))
    out = []
    for _ in range(4):
        c = conn(); c.sendall(f"GET /metrics HTTP/1.1\r\nRange: bytes={ranges}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while True:
            d = c.recv(65536)
            if not d: break
            data += d
        out.append(data.split(b" ")[1].decode())
    print(",".join(out))
elif kind == "chunked":  # a chunked POST without Expect: 100-continue, 256 MB unless cut off
    c = conn(); c.sendall(b"POST /metrics HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"100000\r\n" + b"x" * 0x100000 + b"\r\n"; sent = 0
    try:
        while sent < 256: c.sendall(chunk); sent += 1
    except OSError: pass
    print(status(c), f"{sent}MB")
elif kind == "headers":  # 50 MB of header lines
    c = conn(); c.sendall(b"GET /metrics HTTP/1.1\r\n"); line = b"X-Big: " + b"a" * 1000 + b"\r\n"; sent = 0
    try:
        while sent < 50 * 1024 * 1024: c.sendall(line); sent += len(line)
    except OSError: pass
    print(status(c), f"{sent >> 20}MB")
PY
}
p_http_attacks() {
  local s; s=$(new_spool http-attacks)
  serve_on "$s" "${new[@]}" || return 1
  local rss0; rss0=$(awk '/VmRSS/ {print $2}' "/proc/$serve_pid/status")
  local ranges chunked headers
  ranges=$(http_attack "$port" ranges)
  chunked=$(http_attack "$port" chunked)
  headers=$(http_attack "$port" headers)
  local hwm; hwm=$(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status")
  local health; health=$(healthz "$port")
  stop_serve
  echo "  ranges: $ranges; chunked: $chunked; headers: $headers; serve RSS ${rss0} kB, peak ${hwm} kB"
  [[ $ranges == 200,200,200,200 && $chunked == 413\ * && $headers == 431\ * && $health == 200 ]] \
    && ((hwm - rss0 < 51200))
}

# --- item 1: isolation --------------------------------------------------------------------------
p_memory_limit() {
  [[ -n ${HOSTILE_OLD:-} ]] && return 1
  local s; s=$(new_spool memory)
  cp "$work/big.json" "$s/big.json"
  serve_on "$s" --analysis-memory-mb 16 || return 1
  wait_file 20 "$s/failed/big.json.error"; local rc=$?
  local health; health=$(healthz "$port")
  stop_serve
  [[ $rc == 0 ]] && cat "$s/failed/big.json.error"
  [[ $rc == 0 && $health == 200 ]] && grep -q "memory limit" "$s/failed/big.json.error"
}
p_time_limit() {
  [[ -n ${HOSTILE_OLD:-} ]] && return 1
  local s; s=$(new_spool timeout)
  cp "$work/slow.json" "$s/slow.json"
  serve_on "$s" --analysis-timeout-s 0.1 || return 1
  wait_file 20 "$s/failed/slow.json.error"; local rc=$?
  stop_serve
  [[ $rc == 0 ]] && grep -q "took longer than 0.1 s" "$s/failed/slow.json.error"
}
p_set_aside() {
  local s; s=$(new_spool set-aside)
  mkdir -p "$s/.plasmient"; printf '2 crash.json\n' > "$s/.plasmient/in-progress"
  cp "$work/good.json" "$s/crash.json"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 10 "$s/failed/crash.json.error"; local rc=$?
  stop_serve
  [[ $rc == 0 ]] && grep -q "set aside" "$s/failed/crash.json.error"
}
p_sigterm() {
  local s; s=$(new_spool sigterm)
  cp "$work/slow.json" "$s/.slow.json.part"
  serve_on "$s" "${new[@]}" || return 1
  mv "$s/.slow.json.part" "$s/slow.json"
  sleep 0.2  # the analysis under way
  local t0; t0=$(date +%s.%N)
  kill -TERM "$serve_pid"
  for _ in $(seq 50); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.05; done
  local alive=0; kill -0 "$serve_pid" 2>/dev/null && alive=1
  local took; took=$(python3 -c "print(f'{$(date +%s.%N) - $t0:.2f}')")
  echo "  SIGTERM to exit: $took s"
  stop_serve
  [[ $alive == 0 ]] && python3 -c "import sys; sys.exit(0 if $took <= 1.0 else 1)"
}

# --- item 4: figures one event cannot hijack ---------------------------------------------------
p_stray_event() {
  mk_hostile stray-event "$work/stray.json" "$work/good.json"
  timeout 30 "$bin" analyze "$work/stray.json" --json "$work/stray.verdict.json" >/dev/null 2>&1 || return 1
  # The window is checked against the trace's own events: it ends before the stray kernel begins.
  python3 - "$work/stray.json" "$work/stray.verdict.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
v = json.load(open(sys.argv[2]))
kernels = sorted(e["ts"] for e in events if e.get("cat") == "kernel")
bulk_end_s = max(e["ts"] + e.get("dur", 0) for e in events if e.get("cat") == "kernel" and e["ts"] < kernels[-1]) / 1e6
stray_s = kernels[-1] / 1e6
strays = [d for d in v["data_quality"] if d["name"] == "stray_activity"]
print(f"  one kernel a year later: window {v['window']['wall_s']:.4f} s, {v['bill']['gpu_hours']:.2e} GPU-hours, "
      f"data_quality {[(d['name'], d['count']) for d in strays]}")
ok = (v["window"]["end_ns"] / 1e9 <= bulk_end_s + 1e-6 < stray_s and v["window"]["wall_s"] < 1
      and v["bill"]["gpu_hours"] < 1e-3 and strays and strays[0]["count"] == 1)
sys.exit(0 if ok else 1)
PY
}

# --- item 5: exactly once -----------------------------------------------------------------------
p_second_serve() {
  local s; s=$(new_spool lock)
  serve_on "$s" "${new[@]}" || return 1
  local first=$serve_pid out rc
  out=$(timeout 15 "$bin" serve --spool "$s" --listen "127.0.0.1:$(free_port)" 2>&1); rc=$?
  serve_pid=$first; stop_serve
  [[ $rc == 1 ]] && grep -q "another plasmient serve .*still after waiting 5 s for it to exit" <<<"$out"
}
p_stale_part() {
  local s; s=$(new_spool stale-part)
  mkdir -p "$s/.plasmient/clickhouse-outbox"; echo torn > "$s/.plasmient/clickhouse-outbox/1-x.tsv.part"
  serve_on "$s" "${new[@]}" --clickhouse "http://127.0.0.1:$(free_port)" || return 1
  sleep 0.5
  stop_serve
  [[ ! -e $s/.plasmient/clickhouse-outbox/1-x.tsv.part ]]
}
p_outbox_failure() {
  local s; s=$(new_spool outbox-fail)
  serve_on "$s" "${new[@]}" --clickhouse "http://127.0.0.1:$(free_port)" || return 1
  rm -rf "$s/.plasmient/clickhouse-outbox"; echo blocked > "$s/.plasmient/clickhouse-outbox"  # writes fail
  cp "$work/good.json" "$s/job.json"
  sleep 2
  local journaled; journaled=$(sqlite3 "$s/.plasmient/store.sqlite" 'SELECT count(*) FROM ingest_journal')
  local waiting=0; [[ -e $s/job.json ]] && waiting=1
  rm -f "$s/.plasmient/clickhouse-outbox"; mkdir "$s/.plasmient/clickhouse-outbox"
  wait_file 20 "$s/done/job.json"; local rc=$?
  stop_serve
  echo "  while the outbox could not be written: journaled $journaled, entry waiting $waiting"
  [[ $journaled == 0 && $waiting == 1 && $rc == 0 ]] && [[ -n $(ls "$s/.plasmient/clickhouse-outbox") ]]
}

# --- the stores: unwritable, a full disk, an unreadable spool -------------------------------------
healthz_body() { curl -s --max-time 3 "http://127.0.0.1:$1/healthz"; }
metric() { curl -s --max-time 3 "http://127.0.0.1:$1/metrics" | awk -v m="$2" '$1 == m {print $2}'; }
# wait_healthz SECONDS CODE: true once /healthz answers CODE.
wait_healthz() {
  for _ in $(seq $(($1 * 10))); do
    [[ $(healthz "$port" 1) == "$2" ]] && return 0
    sleep 0.1
  done
  return 1
}
p_store_readonly() {
  local s; s=$(new_spool store-ro)
  cp "$work/good.json" "$s/first.json"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 10 "$s/done/first.json" || { stop_serve; return 1; }
  kill -TERM "$serve_pid"; wait "$serve_pid" 2>/dev/null  # a clean stop: the WAL is checkpointed
  local store=$s/.plasmient/store.sqlite
  # Root writes through permission bits: the file is made immutable instead.
  if [[ $(id -u) == 0 ]]; then chattr +i "$store" || return 1; else chmod 444 "$store"; fi
  serve_on "$s" "${new[@]}" || { chattr -i "$store" 2>/dev/null; return 1; }
  mk_trace "$s/.second.json.part" --seed 4 && mv "$s/.second.json.part" "$s/second.json"
  wait_healthz 20 503; local rc=$?
  local body writable; body=$(healthz_body "$port"); writable=$(metric "$port" plasmient_serve_store_writable)
  local waiting=0; [[ -e $s/second.json && ! -e $s/failed/second.json ]] && waiting=1
  if [[ $(id -u) == 0 ]]; then chattr -i "$store"; else chmod 644 "$store"; fi
  wait_file 20 "$s/done/second.json"; local rc2=$?
  local after; after=$(healthz "$port")
  stop_serve
  echo "  store read-only: /healthz said \"$body\", store_writable $writable; entry waiting $waiting; made writable: $after"
  [[ $rc == 0 && $body == *"store.sqlite: attempt to write a readonly database"* && $writable == 0 && $waiting == 1 &&
     $rc2 == 0 && $after == 200 ]] && [[ $(sqlite3 "$store" 'SELECT count(*) FROM jobs') == 2 ]]
}
# disk_full spool|db: fills the disk under the whole spool, or under the store alone (--db).
disk_full() {
  [[ $(id -u) == 0 ]] || { echo "  (not root: cannot mount a small tmpfs; checked as skipped)"; return 0; }
  local m=$work/full-$1
  mkdir -p "$m" && mount -t tmpfs -o size=3m tmpfs "$m" || { echo "  (mount not permitted: skipped)"; return 0; }
  mounts+=("$m")
  local s=$m flags=()
  [[ $1 == db ]] && { s=$(new_spool "spool-$1"); flags=(--db "$m/store.sqlite"); }
  cp "$work/good.json" "$s/first.json"
  serve_on "$s" "${new[@]}" "${flags[@]}" || return 1
  wait_file 10 "$s/done/first.json" || { stop_serve; return 1; }
  mk_trace "$s/.second.json.part" --seed 4
  head -c $((8 << 20)) /dev/zero > "$m/.filler" 2>/dev/null  # fills the disk
  mv "$s/.second.json.part" "$s/second.json"
  wait_healthz 20 503; local rc=$?
  local body writable; body=$(healthz_body "$port"); writable=$(metric "$port" plasmient_serve_store_writable)
  local waiting=0; [[ -e $s/second.json && ! -e $s/failed/second.json ]] && waiting=1
  rm -f "$m/.filler"
  wait_file 20 "$s/done/second.json"; local rc2=$?
  local after; after=$(healthz "$port")
  stop_serve
  echo "  disk full under the $1: /healthz said \"$body\", store_writable $writable; entry waiting $waiting; space freed: $after"
  [[ $rc == 0 && $body =~ ^unhealthy:.*(No space left on device|disk is full) && $writable == 0 && $waiting == 1 &&
     $rc2 == 0 && $after == 200 ]]
}
p_disk_full_spool() { disk_full spool; }
p_disk_full_store() { disk_full db; }
p_spool_unreadable() {
  local s; s=$(new_spool spool-gone)
  serve_on "$s" "${new[@]}" || return 1
  mv "$s" "$s.away"
  wait_healthz 10 503; local rc=$?
  local body readable; body=$(healthz_body "$port"); readable=$(metric "$port" plasmient_serve_spool_readable)
  mv "$s.away" "$s"
  wait_healthz 10 200; local rc2=$?
  stop_serve
  echo "  spool moved away: /healthz said \"$body\", spool_readable $readable"
  [[ $rc == 0 && $body == *"$s: the spool cannot be read: No such file or directory"* && $readable == 0 && $rc2 == 0 ]]
}

# --- item 6: metrics ----------------------------------------------------------------------------
p_metrics_odd_bytes() {
  command -v promtool >/dev/null || { echo "  (no promtool: scripts/install-deps.sh --fleet)"; return 1; }
  local s; s=$(new_spool odd-bytes)
  cp "$work/good.json" "$s/bad"$'\xff\xfe\x01\x1b[0m"\\'"name.json"
  mkdir "$s/job"$'\xc3\x28'; cp "$work/good.json" "$s/job"$'\xc3\x28'"/rank0.json"
  printf 'team=t\xed\xa0\x80eam\nuser=u\xf8ser\x7f\n' > "$s/job"$'\xc3\x28'".done"
  serve_on "$s" "${new[@]}" --host $'h\xffo"s\\t' --label $'site=s\xe2\x82' || return 1
  for _ in $(seq 100); do [[ $(ls "$s/done" 2>/dev/null | grep -vc '\.done$') == 2 ]] && break; sleep 0.1; done
  curl -s --max-time 5 "http://127.0.0.1:$port/metrics" > "$work/odd.prom"
  stop_serve
  grep -q '^plasmient_achieved_fraction_of_peak_ratio{' "$work/odd.prom" &&
    [[ $(grep -c '^plasmient_achieved_fraction_of_peak_ratio{' "$work/odd.prom") == 2 ]] &&
    promtool_clean "$work/odd.prom"
}
# promtool check metrics FILE, accepting only its snake_case lint on dcgm-exporter's label names
# (Hostname, modelName): the exposition must parse, whatever bytes the names held.
promtool_clean() {
  local out
  out=$(promtool check metrics < "$1" 2>&1 | grep -v "label names should be written in 'snake_case' not 'camelCase'$")
  [[ -z $out ]] || { echo "  promtool: $out"; return 1; }
}

# --- item 7: smaller ----------------------------------------------------------------------------
p_sparse() {
  local s; s=$(new_spool sparse)
  truncate -s 20G "$s/.sparse.json.part" && printf '{"traceEvents":[' | dd of="$s/.sparse.json.part" conv=notrunc 2>/dev/null
  mv "$s/.sparse.json.part" "$s/sparse.json"
  serve_on "$s" "${new[@]}" || return 1
  wait_file 10 "$s/failed/sparse.json.error"; local rc=$?
  stop_serve
  [[ $rc == 0 ]] && grep -q "sparse" "$s/failed/sparse.json.error"
}
p_since_range() {
  local out rc
  out=$("$bin" fleet --db "$work/range.sqlite" --top jobs --since 9223372037 2>&1); rc=$?
  [[ $rc == 2 ]] && grep -q "out of range" <<<"$out"
}
p_escape_names() {
  mk_hostile escape-names "$work/escapes.json" "$work/good.json"
  local out; out=$(timeout 30 "$bin" analyze "$work/escapes.json" --no-color 2>&1)
  grep -q "EVIL" <<<"$out" && ! grep -q $'\x1b' <<<"$out" && ! grep -q $'\x07' <<<"$out"
}

# --- second round: the smaller failures and two serves sharing a store -----------------------
p_long_name_twice() {
  local s; s=$(new_spool long-name)
  local name; name=$(printf 'n%.0s' $(seq 250)).json  # 255 bytes, the longest file name
  serve_on "$s" "${new[@]}" || return 1
  cp "$work/good.json" "$s/.a.part" && mv "$s/.a.part" "$s/$name"
  for _ in $(seq 100); do [[ -e $s/$name ]] || break; sleep 0.1; done
  local rc=0; [[ -e $s/$name || -z $(ls "$s/done") ]] && rc=1
  cp "$work/good.json" "$s/.b.part" && mv "$s/.b.part" "$s/$name"  # the same bytes again: a duplicate
  for _ in $(seq 100); do [[ -e $s/$name ]] || break; sleep 0.1; done
  local left=0; [[ -e $s/$name ]] && left=1
  local health; health=$(healthz "$port")
  stop_serve
  echo "  255-byte name dropped twice: left in the spool $left, /healthz $health, done/ holds $(ls "$s/done" | wc -l)"
  [[ $rc == 0 && $left == 0 && $health == 200 ]]
}
p_log_forge() {
  local s; s=$(new_spool log-forge)
  serve_on "$s" "${new[@]}" -v || return 1
  local evil=$'x\nplasmient serve: recorded FORGED (job root, analyzed in 0.01 s)\n\x1b[2Jy.json'
  cp "$work/good.json" "$s/.evil.part" && mv "$s/.evil.part" "$s/$evil"
  printf 'junk' > "$s/.j.part" && mv "$s/.j.part" "$s/"$'bad\nplasmient serve: recovered: FORGED\x07.json'
  for _ in $(seq 100); do [[ $(ls "$s/done" "$s/failed" 2>/dev/null | grep -c json) -ge 3 ]] && break; sleep 0.1; done
  stop_serve
  local lines; lines=$(grep -c . "$s.log")
  echo "  serve's log: $lines lines; forged lines $(grep -c '^plasmient serve: re[a-z]*:\? \?FORGED' "$s.log"), control bytes $(grep -c $'[\x07\x1b]' "$s.log")"
  grep -q 'recorded x\\x0aplasmient' "$s.log" && ! grep -q '^plasmient serve: re[a-z]*:\? \?FORGED' "$s.log" &&
    ! grep -q $'[\x07\x1b]' "$s.log"
}
p_vanished() {
  local s; s=$(new_spool vanished)
  # The first folder takes a while to hash (3 x 135 MB); the others are removed meanwhile.
  mkdir "$s/big"; for r in 0 1 2; do cp "$work/slow.json" "$s/big/rank$r.json"; done; touch -d '-1 min' "$s/big"
  printf '' > "$s/big.done"; touch -d '-1 min' "$s/big.done"
  for i in $(seq 20); do mkdir "$s/gone$i"; cp "$work/good.json" "$s/gone$i/rank0.json"; printf '' > "$s/gone$i.done"; done
  serve_on "$s" "${new[@]}" --workers 8 || return 1
  for i in $(seq 20); do rm -rf "$s/gone$i"; done
  for _ in $(seq 300); do [[ -e $s/big ]] || break; sleep 0.1; done
  local rc=0; [[ -e $s/big ]] && rc=1
  sleep 0.5
  local vanished gone; vanished=$(metric "$port" plasmient_serve_traces_vanished_total)
  gone=$(ls "$s/failed" 2>/dev/null | grep -c '^gone.*\.error$')
  stop_serve
  echo "  20 folders removed mid-scan: failed/ holds $gone of them, vanished ${vanished:-none}"
  [[ $rc == 0 && $gone == 0 ]]
}
p_replaced_after_hash() {
  local s; s=$(new_spool replaced)
  mk_trace "$work/other.json" --seed 7
  cp "$work/slow.json" "$s/.first.part"; touch -d '-1 min' "$s/.first.part"; mv "$s/.first.part" "$s/first.json"
  cp "$work/good.json" "$s/.y.part"; mv "$s/.y.part" "$s/y.json"
  serve_on "$s" "${new[@]}" --workers 1 || return 1
  # y.json is hashed and waits for the worker (marked in progress) while first.json is analyzed.
  for _ in $(seq 200); do grep -q ' y.json$' "$s/.plasmient/in-progress" 2>/dev/null && break; sleep 0.01; done
  cp "$work/other.json" "$s/.o.part" && mv "$s/.o.part" "$s/y.json"  # replaced after its hash
  wait_file 30 "$s/done/y.json"; local rc=$?
  cp "$work/good.json" "$s/.y.part" && mv "$s/.y.part" "$s/y.json"  # the first content again
  wait_file 30 "$s/done/y.json.1"; local rc2=$?
  local changed; changed=$(metric "$port" plasmient_serve_traces_changed_total)
  stop_serve
  local jobs; jobs=$(sqlite3 "$s/.plasmient/store.sqlite" "SELECT count(DISTINCT job_key) FROM jobs WHERE job_id = 'y'")
  echo "  y.json replaced after its hash: changed ${changed:-none}; y's jobs recorded $jobs (2: one per content)"
  [[ $rc == 0 && $rc2 == 0 && $jobs == 2 ]]
}
p_two_serves_one_store() {
  local a b; a=$(new_spool share-a); b=$(new_spool share-b)
  local db=$work/shared.sqlite ch; ch="http://127.0.0.1:$(free_port)"  # nobody listens: outbox files stay
  for i in $(seq 12); do mk_trace "$work/share$i.json" --seed $((20 + i)); done
  serve_on "$a" "${new[@]}" --db "$db" --clickhouse "$ch" || return 1
  local pa=$serve_pid porta=$port
  serve_on "$b" "${new[@]}" --db "$db" --clickhouse "$ch" || return 1
  local pb=$serve_pid portb=$port
  for i in $(seq 12); do
    cp "$work/share$i.json" "$a/.j$i.part"; cp "$work/share$i.json" "$b/.j$i.part"
    mv "$a/.j$i.part" "$a/job$i.json"; mv "$b/.j$i.part" "$b/job$i.json"
  done
  for _ in $(seq 300); do [[ $(ls "$a/done" "$b/done" 2>/dev/null | grep -c json) == 24 ]] && break; sleep 0.1; done
  local na nb da db_ oa ob
  na=$(metric "$porta" plasmient_serve_traces_analyzed_total); nb=$(metric "$portb" plasmient_serve_traces_analyzed_total)
  da=$(metric "$porta" plasmient_serve_traces_duplicate_total); db_=$(metric "$portb" plasmient_serve_traces_duplicate_total)
  oa=$(ls "$a/.plasmient/clickhouse-outbox" | grep -c '\.tsv$'); ob=$(ls "$b/.plasmient/clickhouse-outbox" | grep -c '\.tsv$')
  kill -9 "$pa" "$pb" 2>/dev/null; wait "$pa" "$pb" 2>/dev/null
  local jobs; jobs=$(sqlite3 "$db" 'SELECT count(*) FROM jobs')
  echo "  12 jobs in two spools sharing a store: analyzed $na + $nb, duplicates $da + $db_, outbox files $oa + $ob, jobs rows $jobs"
  [[ $jobs == 12 && $((na + nb)) == 12 && $((da + db_)) == 12 && $((oa + ob)) == 12 ]]
}

probe "marker symlink to a 0600 secret: refused, error 0600, no secret anywhere" p_marker_symlink
probe "trace symlink: refused, nothing recorded" p_trace_symlink
probe ".plasmient/ a link: serve refuses to start, writes nothing there" p_state_link
probe "failed/ a link: nothing written through it, 503 says why, moved once it is a folder" p_failed_link
probe "FIFO as .done marker: refused, the daemon goes on" p_fifo_marker
probe "entry owned by another user: refused" p_foreign_owner
probe "analyze FIFO: exit 1, says FIFO" p_analyze_fifo
probe "analyze /dev/zero: exit 1, says device" p_analyze_device
probe "3 MB gzip holding one 3 GB JSON string: failed/, daemon healthy" p_huge_string
probe "SQLite whose kernel table is a recursive view: refused" p_sqlite_view
probe "64 MB POSTs (with a length and chunked): 413, RSS flat" p_http_body
probe "130 slow-header clients: /healthz and /metrics answer" p_slow_clients
probe "1,000 ranges, a chunked 256 MB POST, 50 MB of headers: 200, 413, 431, peak RSS +50 MB at most" p_http_attacks
probe "analysis over its memory limit: failed/ with the reason, daemon healthy" p_memory_limit
probe "analysis over its time limit: failed/ with the reason" p_time_limit
probe "entry the daemon died on twice: set aside" p_set_aside
probe "SIGTERM during an analysis: exit within 1 s" p_sigterm
probe "one kernel a year after the rest: left out of the window, in data_quality" p_stray_event
probe "second serve on one spool: exits 1, says why" p_second_serve
probe "stale outbox .part files: removed" p_stale_part
probe "outbox write fails: not journaled, retried, then recorded" p_outbox_failure
probe "store made read-only: 503 says why, entry kept, recorded once writable" p_store_readonly
probe "disk full under the spool: 503 says why, entry kept, recorded once freed" p_disk_full_spool
probe "disk full under the store (--db): 503 says why, entry kept, recorded once freed" p_disk_full_store
probe "spool moved away: 503 says why, healthy again when back" p_spool_unreadable
probe "odd bytes in file names, host, labels: promtool check metrics" p_metrics_odd_bytes
probe "20 GB sparse file: refused before hashing" p_sparse
probe "fleet --since 9223372037: exit 2, out of range" p_since_range
probe "escape codes in kernel names: not on the terminal" p_escape_names

probe "a 255-byte name dropped twice: moved both times, /healthz 200" p_long_name_twice
probe "newlines and escape codes in names: no forged log line, no control byte in the log" p_log_forge
probe "folders removed mid-scan: forgotten, not failed" p_vanished
probe "an entry replaced after its hash: analyzed again under its new content's key" p_replaced_after_hash
probe "two serves on two spools sharing one store: each job recorded and sent once" p_two_serves_one_store

echo "$failures probe(s) failed"
[[ $failures == 0 ]]
