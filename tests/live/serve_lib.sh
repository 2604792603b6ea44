# The live tests' serve, sourced by their scripts once `bin`, `work` and fail() are set.

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# serve_on SPOOL FLAGS...: starts serve (sets port, serve_pid) and waits for /healthz.
serve_on() {
  local spool=$1
  shift
  port=$(free_port)
  "$bin" serve --spool "$spool" --listen "127.0.0.1:$port" --poll-ms 50 --counter-hold-s 0 "$@" > "$work/serve.log" 2>&1 &
  serve_pid=$!
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$port/healthz" && return 0
    sleep 0.1
  done
  fail "serve did not start"
}

# count DIR GLOB: the files directly in DIR whose names match GLOB.
count() { find "$1" -maxdepth 1 -name "$2" 2>/dev/null | wc -l || true; }

# wait_analyzed SPOOL N TRIES: waits, TRIES × 0.2 s at most, until N native files have left SPOOL
# for done/ or failed/; fails when any is in failed/ or fewer than N are in done/.
wait_analyzed() {
  local spool=$1 want=$2 tries=$3 done_n=0 failed=0
  for _ in $(seq "$tries"); do
    done_n=$(count "$spool/done" '*.pltrace')
    failed=$(count "$spool/failed" '*.pltrace')
    ((done_n + failed == want && $(count "$spool" '*.pltrace') == 0)) && break
    sleep 0.2
  done
  ((failed == 0)) || fail "$failed files in failed/: $(cat "$spool"/failed/*.error 2>/dev/null | head -3)"
  ((done_n == want)) || fail "$done_n of $want files analyzed"
}
