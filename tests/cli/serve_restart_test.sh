#!/usr/bin/env bash
# A serve restarted on its spool right after a stop starts: the old one holds the spool's lock
# until it has exited, and the new one waits for it (up to 5 s) instead of refusing
# (ServeDaemon::LockSpool, docs/fleet.md).
#   tests/cli/serve_restart_test.sh PLASMIENT
source "$(dirname "${BASH_SOURCE[0]}")/../shell_test_setup.sh" "$@"
pids=()
before_cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; }
mkdir spool
# hold SECONDS: holds the spool's lock that long, in the background (sets holder).
hold() {
  python3 -c 'import fcntl, sys, time
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
time.sleep(float(sys.argv[2]))' spool/.plasmient/lock "$1" >/dev/null 2>&1 &
  holder=$!
  pids+=("$holder")
  sleep 0.3
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
# start LOG: serve on the spool and port in the background (sets pid).
start() {
  "$plasmient" serve --spool spool --listen "127.0.0.1:$port" --poll-ms 50 >"$1" 2>&1 &
  pid=$!
  pids+=("$pid")
}
# healthy PID: true once PID answers /healthz and holds the lock (its pid in the lock file).
healthy() {
  for _ in $(seq 100); do
    if [[ $(cat spool/.plasmient/lock 2>/dev/null) == "$1" ]] &&
      [[ $(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/healthz") == 200 ]]; then
      return 0
    fi
    kill -0 "$1" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

start first.log
first=$pid
healthy "$first" || { cat first.log; exit 1; }
# SIGTERM and, at once, the second on the same spool: it starts once the first has exited.
kill -TERM "$first"
start second.log
second=$pid
healthy "$second" || fail "the restart did not start: $(cat second.log)"
grep -q "another plasmient serve" second.log && fail "the restart was refused: $(cat second.log)"
grep -q "waiting up to 5 s" second.log && echo "the restart waited for the first to exit"
wait "$first"
kill -TERM "$second"
wait "$second"

# A holder that lets go after 1 s: the next serve says it waits, then starts.
hold 1.3
start third.log
third=$pid
healthy "$third" || fail "serve did not start once the lock was let go: $(cat third.log)"
grep -q "waiting up to 5 s for the serve holding it.* to exit" third.log ||
  fail "no word of the wait: $(cat third.log)"
kill -TERM "$third"
wait "$third"

# A holder that stays: refused after the wait, saying so.
hold 30
t0=$SECONDS
timeout 20 "$plasmient" serve --spool spool --listen "127.0.0.1:$port" >refused.log 2>&1
rc=$?
[[ $rc == 1 ]] || fail "a held spool: exit $rc, want 1: $(cat refused.log)"
grep -q "another plasmient serve is using this spool.*still after waiting 5 s for it to exit" refused.log ||
  fail "the refusal does not say it waited: $(cat refused.log)"
((SECONDS - t0 >= 4)) || fail "refused after $((SECONDS - t0)) s, before the wait"
kill "$holder"

finish "serve restarted on its spool right after a stop"
