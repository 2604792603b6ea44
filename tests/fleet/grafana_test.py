#!/usr/bin/env python3
"""The Grafana dashboard's queries against real Prometheus fed by plasmient serve.

grafana_test.py PLASMIENT DASHBOARD_JSON
Starts serve on a spool (loopback port), Prometheus scraping it every second, drops two
one-rank traces and a two-rank job whose rank 0 waits in every all-reduce (rank 1 is the
straggler), then evaluates every panel target's PromQL (and each variable's label query)
through Prometheus's HTTP API. Fails on a query error or an empty result, and checks facts:
the weighted achieved stat against serve's own exposition, the stacked layers summing to 1,
the straggler table naming rank 1, the top kernels' and the Linear module type's GPU time equal to
the GEMM kernels' durations counted in the traces. Exit 77 (skipped) when prometheus is absent and cannot be
installed (scripts/install-deps.sh --fleet, as root).
"""
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from prom_helpers import fail, free_port, need_prometheus, wait_for

plasmient, dashboard_path = os.path.realpath(sys.argv[1]), sys.argv[2]
here = os.path.dirname(os.path.realpath(__file__))
root = os.path.dirname(os.path.dirname(here))
# What Grafana would put in: every host and job, a price, a rate window of a few scrapes.
variables = {"$host": ".*", "$job": ".*", "$price": "2.49", "$__rate_interval": "30s", "$__range": "10m"}
GEMM = "sm90_xmma_gemm_"  # make_trace.py's GEMM kernel


need_prometheus(root)


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read().decode()


work = tempfile.mkdtemp(prefix="plasmient-grafana.")
procs = []
try:
    serve_port, prom_port = free_port(), free_port()
    spool = os.path.join(work, "spool")
    os.makedirs(os.path.join(spool, "ddp-a"))
    log = open(os.path.join(work, "serve.log"), "w")
    procs.append(subprocess.Popen([plasmient, "serve", "--spool", spool, "--listen", f"127.0.0.1:{serve_port}",
                                   "--poll-ms", "50", "--host", "node-a",
                                   "--counter-hold-s", "8"], stdout=log, stderr=log))
    serve = f"http://127.0.0.1:{serve_port}"
    wait_for("plasmient serve", lambda: get(f"{serve}/healthz") is not None)
    with open(os.path.join(here, "prometheus.yml")) as f:
        config = f.read().replace("@TARGET@", f"127.0.0.1:{serve_port}")
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write(config)
    prom_log = open(os.path.join(work, "prometheus.log"), "w")
    procs.append(subprocess.Popen(["prometheus", f"--config.file={work}/prometheus.yml",
                                   f"--storage.tsdb.path={work}/data", f"--web.listen-address=127.0.0.1:{prom_port}"],
                                  stdout=prom_log, stderr=prom_log))
    prom = f"http://127.0.0.1:{prom_port}"
    wait_for("Prometheus", lambda: get(f"{prom}/-/ready") is not None)

    gemm_s = 0.0  # Σ durations of the GEMM kernels (all under module Linear_g), counted from the traces

    def gen(out, *args):
        global gemm_s
        subprocess.run([sys.executable, os.path.join(here, "make_trace.py"), out, "--modules", *args], check=True)
        with gzip.open(out, "rt") as f:
            events = json.load(f)["traceEvents"]
        gemm_s += sum(e["dur"] for e in events if e.get("cat") == "kernel" and e["name"].startswith(GEMM)) / 1e6

    for i in (1, 2):  # written beside the spool, renamed in
        gen(os.path.join(work, f"single-{i}.json.gz"), "--seed", str(i))
        os.rename(os.path.join(work, f"single-{i}.json.gz"), os.path.join(spool, f"single-{i}.json.gz"))
    gen(os.path.join(spool, "ddp-a", "rank0.json.gz"), "--seed", "7", "--world", "2", "--rank", "0", "--slow-comm")
    gen(os.path.join(spool, "ddp-a", "rank1.json.gz"), "--seed", "7", "--world", "2", "--rank", "1")
    open(os.path.join(spool, "ddp-a", ".done"), "w").close()

    def exposition():
        return get(f"{serve}/metrics")

    wait_for("3 analyses", lambda: re.search(r"^plasmient_serve_traces_analyzed_total 3$", exposition(), re.M))

    at = None  # the time queries are evaluated at: the last scrape's, once set

    def query(expr):
        args = {"query": expr} if at is None else {"query": expr, "time": f"{at:.3f}"}
        body = json.loads(get(f"{prom}/api/v1/query?" + urllib.parse.urlencode(args)))
        if body.get("status") != "success":
            fail(f"{expr}: {body.get('error')}")
        return body["data"]["result"]

    # Four ranks scraped past their hold (born at 0, then their figures), and enough scrapes since
    # for rate() over the rate window; then every query at the last scrape's time, where increase()
    # extrapolates nothing.
    wait_for("Prometheus to scrape the 4 ranks' figures",
             lambda: len(query('plasmient_gpu_seconds_total{Hostname="node-a"} > 0')) == 4)
    time.sleep(3)
    at = float(query("max(timestamp(plasmient_gpu_seconds_total))")[0]["value"][1])

    dashboard = json.load(open(dashboard_path))

    def substitute(expr):
        for name in sorted(variables, key=len, reverse=True):
            expr = expr.replace(name, variables[name])
        if "$" in expr:
            fail(f"an unknown variable in {expr}")
        return expr

    # Every metric a query names is one serve exposes (its # TYPE lines, written with or without
    # series): a renamed metric would leave a panel silently empty.
    exposed = set(re.findall(r"^# TYPE (plasmient_\w+) ", exposition(), re.M))
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            for name in set(re.findall(r"\bplasmient_\w+", target["expr"])) - {"plasmient_job"}:
                if re.sub(r"_(bucket|sum|count)$", "", name) not in exposed and name not in exposed:
                    fail(f"panel '{panel['title']}' {target['refId']}: {name} is no metric serve exposes")
    # The counter estimate between kernel windows needs device counters, which these traces have
    # not: its queries must parse and name real metrics, and the panel must say ESTIMATE.
    estimate = "ESTIMATE between kernel windows: achieved fraction from device counters (± band)"
    panel = next((p for p in dashboard["panels"] if p["title"] == estimate), None)
    if panel is None:
        fail(f"no panel '{estimate}'")
    exprs = " ".join(t["expr"] for t in panel["targets"])
    for want in ('plasmient_counter_estimate_ratio{calibration="windows"', "plasmient_counter_estimate_band_ratio",
                 "plasmient_counter_calibration_windows"):
        if want not in exprs:
            fail(f"panel '{estimate}': no query of {want}")
    if "ESTIMATE" not in panel["description"] or not all(
            t["legendFormat"].startswith("ESTIMATE") for t in panel["targets"][:3]):
        fail(f"panel '{estimate}': the estimate's series are not labelled ESTIMATE")
    no_counters = {estimate}

    results = {}
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            expr = substitute(target["expr"])
            result = query(expr)
            if not result and panel["title"] not in no_counters:
                fail(f"panel '{panel['title']}' {target['refId']}: empty result for {expr}")
            results[(panel["title"], target["refId"])] = result
            print(f"ok  {panel['title']} [{target['refId']}]: {len(result)} series")
    for var in dashboard["templating"]["list"]:
        if var["type"] != "query":
            continue
        m = re.fullmatch(r"label_values\((.*), *(\w+)\)", var["query"]["query"])
        if not m:
            fail(f"variable {var['name']}: not label_values(SELECTOR, LABEL)")
        url = f"{prom}/api/v1/label/{m.group(2)}/values?" + urllib.parse.urlencode({"match[]": substitute(m.group(1))})
        values = json.loads(get(url))["data"]
        if not values:
            fail(f"variable {var['name']}: no values")
        print(f"ok  variable {var['name']}: {values}")

    # Facts, from serve's exposition rather than from the dashboard.
    series = {}
    for line in exposition().splitlines():
        m = re.match(r"(plasmient_(?:gpu|wasted_gpu)_seconds_total)\{(.*)\} (\S+)$", line)
        if m:
            series.setdefault(m.group(1), []).append(float(m.group(3)))
    want = 1 - sum(series["plasmient_wasted_gpu_seconds_total"]) / sum(series["plasmient_gpu_seconds_total"])
    by_title = {p["title"]: p for p in dashboard["panels"]}

    def value(title, ref="A"):
        return [float(r["value"][1]) for r in results[(title, ref)]]

    got = value("Achieved fraction of peak (GPU-seconds weighted)")[0]
    # Written so that NaN fails: a comparison with NaN is never true.
    if not (abs(got - want) <= 1e-9 and 0 < want < 1):
        fail(f"achieved stat {got}, serve's counters say {want}")
    layers = "Where the time went: achieved and the seven losses, stacked"
    total = sum(value(layers, "A")) + sum(value(layers, "B"))
    if not abs(total - 1) <= 1e-6 or len(results[(layers, "B")]) != 7:
        fail(f"the stacked layers sum to {total} over {len(results[(layers, 'B')])} losses, want 1 over 7")
    straggler = results[("Stragglers: the rank the others waited for", "A")]
    if [(r["metric"]["plasmient_job"], r["metric"]["rank"]) for r in straggler] != [("ddp-a", "1")]:
        fail(f"straggler table: {[r['metric'] for r in straggler]}, want ddp-a rank 1")
    # Top kernels and module types, against the GEMM kernels' durations counted in the traces.
    kernels = "Top kernels by wasted GPU-seconds"
    gemm_rows = [r for r in results[(kernels, "B")] if r["metric"]["kernel"].startswith(GEMM)]
    got_gemm = sum(float(r["value"][1]) for r in gemm_rows)
    if not gemm_rows or not abs(got_gemm - gemm_s) <= 1e-6 * gemm_s:
        fail(f"top kernels: the GEMM's GPU-s {got_gemm}, its kernels in the traces last {gemm_s}")
    types = "Layers: module types by GPU time, with their achieved fraction"
    linear = {r["metric"]["layer_type"]: float(r["value"][1]) for r in results[(types, "A")]}.get("Linear")
    if linear is None or not abs(linear - gemm_s) <= 1e-6 * gemm_s:
        fail(f"layers: module type Linear has {linear} GPU-s, its GEMM kernels in the traces last {gemm_s}")
    achieved = {r["metric"]["layer_type"]: float(r["value"][1]) for r in results[(types, "B")]}
    if not 0 < achieved.get("Linear", 0) <= 1:
        fail(f"layers: achieved fraction of Linear {achieved.get('Linear')}")
    print(f"achieved {got:.4f} = 1 - wasted/GPU-seconds from serve; layers sum to {total:.6f}; "
          f"straggler ddp-a rank 1; {len(results)} queries in {len(by_title)} panels")
    print("PASS")
finally:
    for p in procs:
        p.kill()
        p.wait()
    shutil.rmtree(work, ignore_errors=True)
