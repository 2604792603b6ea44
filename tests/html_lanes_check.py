#!/usr/bin/env python3
"""Reads the report's vertical-trace cursor back from headless Chromium and compares it with
`plasmient explain`.

For each view of the `lanes` section (a step of one rank) a few instants are picked from the
stretches the page embeds — one inside a collective wait, one inside a modeled kernel, one with no
kernel resident, when the view has them, and the view's middle. For each, Chromium loads the page
with `#at=<ns>` in the URL, the script places the cursor there, and the sentence is read from the
dumped DOM; `plasmient explain INPUTS --at <ns>ns --rank R --json` must print the same sentence.

Usage: html_lanes_check.py PLASMIENT CHROMIUM REPORT.html WORKDIR [--expect-wait] INPUT...
"""
import html
import json
import os
import re
import subprocess
import sys

bin_, chromium, report, work = sys.argv[1:5]
rest = sys.argv[5:]
expect_wait = "--expect-wait" in rest
inputs = [a for a in rest if a != "--expect-wait"]
os.makedirs(work, exist_ok=True)


def fail(what):
    print(f"FAIL: {report}: {what}")
    sys.exit(1)


page = open(report, encoding="utf-8").read()
views = []
for m in re.finditer(r'<div class="vt"><div class="vt-data" hidden>([^<]*)</div>.*?<svg id="lanes-(\d+)"([^>]*)>',
                     page, re.S):
    data = json.loads(html.unescape(m.group(1)))
    attrs = dict(re.findall(r'(data-[a-z-]+)="([^"]*)"', m.group(3)))
    views.append((int(m.group(2)), int(attrs["data-rank"]), int(attrs["data-start-ns"]),
                  int(attrs["data-end-ns"]), data))
if not views:
    fail("no vertical-trace view (id lanes-N) in the report")


def picks(data, start, end):
    """Instants inside stretches of different kinds, and the view's middle."""
    stretches = data["s"]
    bounds = [s[0] for s in stretches[1:]] + [data["e"]]
    if stretches[0][0] != start or data["e"] != end:
        fail(f"the embedded stretches run {stretches[0][0]}..{data['e']}, the view {start}..{end}")
    chosen = {}
    for s, stop in zip(stretches, bounds):
        if stop <= s[0]:
            fail(f"an empty or unordered stretch at {s[0]}")
        text = "".join(p for i in s[1:-1] if i >= 0 for p in data["c"][i] if isinstance(p, str))
        cluster = "".join(data["c"][s[-1]]) if s[-1] >= 0 else ""
        t = s[0] + (stop - s[0]) // 2
        if "waits in" in cluster:
            chosen.setdefault("wait", t)
        if "roofline ceiling" in text:
            chosen.setdefault("kernel", t)
        if "no kernel is resident" in text:
            chosen.setdefault("idle", t)
    chosen.setdefault("middle", start + (end - start) // 2)
    return chosen


flags = ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--no-default-browser-check",
         "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         f"--user-data-dir={work}/profile", "--virtual-time-budget=3000"]
checked = 0
kinds = set()
for index, rank, start, end, data in views:
    for kind, t in picks(data, start, end).items():
        url = "file://" + os.path.abspath(report) + f"#at={t}"
        dom = subprocess.run(["timeout", "120", chromium, *flags, "--dump-dom", url], capture_output=True,
                             text=True).stdout
        m = re.search(r'<svg id="lanes-%d".*?<p class="vt-sentence" data-at-ns="(\d+)">(.*?)</p>' % index, dom,
                      re.S)
        if not m:
            fail(f"view {index}: no sentence in the rendered DOM for #at={t}")
        if int(m.group(1)) != t:
            fail(f"view {index}: the cursor is at {m.group(1)} ns, not at #at={t}")
        shown = html.unescape(m.group(2))
        ranked = ["--rank", str(rank)] if rank >= 0 else []
        run = subprocess.run([bin_, "explain", *inputs, "--at", f"{t}ns", *ranked, "--json"], capture_output=True,
                             text=True)
        if run.returncode != 0:
            fail(f"explain --at {t}ns --rank {rank} failed: {run.stderr.strip()}")
        want = json.loads(run.stdout)["sentence"]
        if shown != want:
            fail(f"view {index}, {kind} at {t} ns:\n  page:    {shown}\n  explain: {want}")
        print(f"  view {index} ({kind}, t = {t} ns): {shown}")
        checked += 1
        kinds.add(kind)
if expect_wait and "wait" not in kinds:
    fail("no stretch of the views reads a rank waiting in a collective")
print(f"lanes: {checked} instants read from the page equal `plasmient explain`")
