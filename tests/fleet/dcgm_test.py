#!/usr/bin/env python3
"""`plasmient fleet --prometheus` against real Prometheus scraping dcgm-exporter pages.

dcgm_test.py PLASMIENT
Serves two static pages in dcgm-exporter's exposition format on a loopback port (one with the
profiling counters, one without, as on a node where DCP is off), Prometheus scraping both every
second, waits until it holds a window of samples, then runs `plasmient fleet --prometheus` over
that window and checks each job's and team's estimate, utilization, GPU-hours and dollars
against what the page's values imply: the estimate is tensor-pipe active bounded by SM active,
the GPU-hours are the steps in which Prometheus holds a raw sample of each series (counted here
from its raw samples). Then the errors: a counter missing, no series, a bad matcher, nothing
listening. Exit 77 (skipped) when prometheus is absent and cannot be installed.
"""
import http.server
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

from prom_helpers import fail, free_port, need_prometheus, wait_for

plasmient = os.path.realpath(sys.argv[1])
here = os.path.dirname(os.path.realpath(__file__))
root = os.path.dirname(os.path.dirname(here))
STEP, STEPS, PRICE = 3, 4, 2.5  # three scrapes a step (Prometheus scrapes every second)


need_prometheus(root)

# Each GPU: exporter labels (as dcgm-exporter writes them; Kubernetes labels empty when no pod
# holds the GPU) and its readings. PROF counters are ratios 0-1, GPU_UTIL a percent.
GPUS = [
    dict(host="node-1", gpu="0", model="NVIDIA H100 80GB HBM3", pod="train-a-0", ns="vision",
         tensor=0.41, sm=0.83, dram=0.35, gr=0.95, util=99, clock=1755),
    dict(host="node-1", gpu="1", model="NVIDIA H100 80GB HBM3", pod="train-a-1", ns="vision",
         tensor=0.62, sm=0.55, dram=0.21, gr=0.90, util=97, clock=1620),  # tensor above SM active: SM bounds it
    dict(host="node-2", gpu="0", model="NVIDIA A100-SXM4-80GB", pod="serve-b-0", ns="nlp",
         tensor=0.12, sm=0.38, dram=0.64, gr=0.52, util=71, clock=1410),
    dict(host="node-2", gpu="1", model="NVIDIA A100-SXM4-80GB", pod="", ns="",
         tensor=0.0, sm=0.0, dram=0.0, gr=0.0, util=0, clock=1410),
]
COUNTERS = [  # (name, help, the GPU's field)
    ("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", "util"),
    ("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "Ratio of time the graphics engine is active.", "gr"),
    ("DCGM_FI_PROF_SM_ACTIVE", "The ratio of cycles an SM has at least 1 warp assigned.", "sm"),
    ("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "Ratio of cycles the tensor (HMMA) pipe is active.", "tensor"),
    ("DCGM_FI_PROF_DRAM_ACTIVE", "Ratio of cycles the device memory interface is active sending or receiving data.",
     "dram"),
]


def labels(g, i):
    return (f'gpu="{g["gpu"]}",UUID="GPU-{i:08x}-5b4e-07f6-3a86-4340039d25f2",'
            f'pci_bus_id="00000000:{7 + i:02X}:00.0",device="nvidia{g["gpu"]}",modelName="{g["model"]}",'
            f'Hostname="{g["host"]}",DCGM_FI_DRIVER_VERSION="550.54.15",'
            f'container="{"main" if g["pod"] else ""}",namespace="{g["ns"]}",pod="{g["pod"]}"')


def page(with_profiling):
    out = ["# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).", "# TYPE DCGM_FI_DEV_SM_CLOCK gauge"]
    out += [f"DCGM_FI_DEV_SM_CLOCK{{{labels(g, i)}}} {g['clock']}" for i, g in enumerate(GPUS)]
    for name, help_text, field in COUNTERS:
        if name.startswith("DCGM_FI_PROF") and not with_profiling:
            continue
        out += [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
        for i, g in enumerate(GPUS):
            v = g[field]
            out.append(f"{name}{{{labels(g, i)}}} {v if field == 'util' else f'{v:.6f}'}")
    return ("\n".join(out) + "\n").encode()


PAGES = {"/metrics": page(True), "/basic/metrics": page(False)}


class Exporter(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = PAGES.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        self.end_headers()
        self.wfile.write(body or b"")

    def log_message(self, *args):
        pass


work = tempfile.mkdtemp(prefix="plasmient-dcgm.")
procs = []
try:
    exporter = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Exporter)
    threading.Thread(target=exporter.serve_forever, daemon=True).start()
    target = f"127.0.0.1:{exporter.server_address[1]}"
    prom_port = free_port()
    prom = f"http://127.0.0.1:{prom_port}"
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
scrape_configs:
  - job_name: dcgm
    static_configs: [{{targets: ["{target}"]}}]
  - job_name: dcgm-basic
    metrics_path: /basic/metrics
    static_configs: [{{targets: ["{target}"]}}]
""")
    log = open(os.path.join(work, "prometheus.log"), "w")
    procs.append(subprocess.Popen(["prometheus", f"--config.file={work}/prometheus.yml",
                                   f"--storage.tsdb.path={work}/data", f"--web.listen-address=127.0.0.1:{prom_port}"],
                                  stdout=log, stderr=log))

    def instant(query, at=None):
        params = {"query": query}
        if at is not None:
            params["time"] = str(at)
        with urllib.request.urlopen(f"{prom}/api/v1/query?{urllib.parse.urlencode(params)}", timeout=10) as r:
            return json.load(r)["data"]["result"]

    wait_for("Prometheus to scrape both pages",
             lambda: len(instant('DCGM_FI_DEV_GPU_UTIL')) == 2 * len(GPUS)
             and len(instant('DCGM_FI_PROF_SM_ACTIVE')) == len(GPUS))
    start = math.ceil(time.time()) + 1
    end = start + STEP * STEPS
    print(f"window {start}..{end}, step {STEP} s; waiting for it to pass", flush=True)
    wait_for("the window to pass", lambda: time.time() > end + 3, limit=STEP * STEPS + 30)

    # The steps each series covered, from Prometheus's raw samples: step k covers (start+(k-1)·STEP, start+k·STEP].
    covered = {}
    for s in instant(f'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{{job="dcgm"}}[{end - start}s]', at=end):
        steps = {math.ceil((float(t) - start) / STEP) for t, _ in s["values"] if start < float(t) <= end}
        covered[s["metric"].get("pod", "")] = len(steps)
    if len(covered) != len(GPUS):
        fail(f"raw samples for {len(covered)} GPUs, expected {len(GPUS)}")
    if min(covered.values()) < STEPS - 1:
        fail(f"Prometheus missed scrapes for whole steps: {covered}")

    def run(*args):
        return subprocess.run([plasmient, "fleet", "--prometheus", prom, "--since", str(start), "--until", str(end),
                               "--step", f"{STEP}s", *args], capture_output=True, text=True, timeout=60)

    out = os.path.join(work, "estimate.json")
    r = run("--match", 'job="dcgm"', "--price", str(PRICE), "--json", out)
    if r.returncode != 0:
        fail(f"fleet --prometheus exited {r.returncode}: {r.stderr}")
    if "ESTIMATES from device counters" not in r.stdout:
        fail(f"the text does not say it is an estimate:\n{r.stdout}")
    print(r.stdout, flush=True)
    est = json.load(open(out))

    def expected(group):
        rows = {}
        for g in GPUS:
            key = g[group] or "(none)"
            hours = covered[g["pod"]] * STEP / 3600
            # The counter model (docs/counters.md): tensor active bounded by SM active, × the SM
            # clock over the clock the 16-bit tensor peak assumes (H100 SXM: 989.4 TF over 132 SMs
            # × 4096 FLOP/clk = 1.830 GHz; A100: 312 TF over 108 SMs × 2048 = 1.4106 GHz).
            peak_clock = 989.4e12 / (132 * 4096) / 1e6 if "H100" in g["model"] else 312e12 / (108 * 2048) / 1e6
            achieved = min(1.0, min(g["tensor"], g["sm"]) * g["clock"] / peak_clock)
            row = rows.setdefault(key, dict(gpus=0, hours=0.0, achieved_h=0.0, util_h=0.0, wasted=0.0))
            row["gpus"] += 1
            row["hours"] += hours
            row["achieved_h"] += achieved * hours
            row["util_h"] += g["util"] / 100 * hours
            row["wasted"] += hours * PRICE * (1 - achieved)
        return rows

    def close(a, b, what):
        if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            fail(f"{what}: plasmient says {a}, the page implies {b}")

    for group, key in (("pod", "jobs"), ("ns", "teams")):
        want = expected(group)
        got = {row["name"]: row for row in est[key]}
        if set(got) != set(want):
            fail(f"{key}: {sorted(got)} != {sorted(want)}")
        for name, w in want.items():
            g = got[name]
            if g["gpus"] != w["gpus"]:
                fail(f"{key} {name}: {g['gpus']} GPUs, expected {w['gpus']}")
            close(g["gpu_hours"], w["hours"], f"{key} {name} GPU-hours")
            close(g["achieved_fraction_estimate"], w["achieved_h"] / w["hours"], f"{key} {name} estimate")
            close(g["utilization"], w["util_h"] / w["hours"], f"{key} {name} utilization")
            close(g["wasted_dollars_estimate"], w["wasted"], f"{key} {name} wasted dollars")
            close(g["dollars"], w["hours"] * PRICE, f"{key} {name} dollars")
    close(est["total"]["gpu_hours"], sum(covered.values()) * STEP / 3600, "total GPU-hours")
    if est["bounded_by"] != "DCGM_FI_PROF_SM_ACTIVE" or est["notes"]:
        fail(f"bounded by {est['bounded_by']}, notes {est['notes']}")
    print(f"jobs and teams: estimates, utilization, GPU-hours and dollars as the page implies", flush=True)

    def refused(what, needle, *args):
        r = run(*args)
        lines = r.stderr.strip().splitlines()
        if r.returncode != 1 or len(lines) != 1 or needle not in lines[0]:
            fail(f"{what}: exit {r.returncode}, stderr {r.stderr!r} (expected 1 and one line with {needle!r})")
        print(f"{what}: {lines[0]}", flush=True)

    refused("profiling counters off", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE has no series", "--match", 'job="dcgm-basic"')
    refused("no such series", "no DCGM series", "--match", 'job="elsewhere"')
    refused("a bad matcher", "Prometheus answered 400", "--match", "job==")
    dead = subprocess.run([plasmient, "fleet", "--prometheus", f"http://127.0.0.1:{free_port()}", "--since", "1h"],
                          capture_output=True, text=True, timeout=60)
    if dead.returncode != 1 or "Prometheus unreachable" not in dead.stderr:
        fail(f"nothing listening: exit {dead.returncode}, {dead.stderr!r}")
    print("PASS", flush=True)
finally:
    for p in procs:
        p.kill()
        p.wait()
    if os.environ.get("KEEP_FLEET_TMP") != "1":
        shutil.rmtree(work, ignore_errors=True)
