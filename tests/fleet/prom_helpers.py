"""What the Python fleet tests share: failing in one line, the skip when Prometheus is absent,
loopback ports, waiting for a condition."""
import os
import shutil
import socket
import subprocess
import sys
import time


def fail(msg):
    print(f"FAIL: {msg}", flush=True)
    sys.exit(1)


def need_prometheus(root):
    """Exits 77 (skipped) when prometheus is absent and cannot be installed (install-deps.sh --fleet, as root)."""
    if not shutil.which("prometheus"):
        if os.geteuid() != 0 or subprocess.run([f"{root}/scripts/install-deps.sh", "--fleet"]).returncode != 0:
            print("SKIP: Debian's prometheus is not installed and could not be (apt-get as root)")
            sys.exit(77)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, check, limit=60):
    t0 = time.time()
    while True:
        try:
            if check():
                return
        except OSError:
            pass
        if time.time() - t0 > limit:
            fail(f"timed out after {limit} s waiting for {what}")
        time.sleep(0.2)
