#!/usr/bin/env python3
"""Checks the report's what-if panel, as headless Chromium left it, against `plasmient whatif --json`.

The page was opened at a setting (#batch=32&overlap-comm=1); its script placed that setting's
figures. They must be the projection's, at the page's printed precision: the achieved fraction to
0.01%, each loss to 0.1%, the wasted dollars of a GPU-hour to the cent, and the same warnings
(a trust-range one marked).

Usage: html_whatif_check.py DOM.html WHATIF.json SCALE
"""
import html
import json
import re
import sys

dom_path, json_path, scale = sys.argv[1], sys.argv[2], sys.argv[3]
dom = open(dom_path, encoding="utf-8").read()
want = json.load(open(json_path))
projected = want["projected"]
failures = []


def text(element_id):
    m = re.search(r'id="' + re.escape(element_id) + r'"[^>]*>([^<]*)<', dom)
    if not m:
        print(f"FAIL: {dom_path}: no element id={element_id}")
        sys.exit(1)
    return html.unescape(m.group(1)).strip()


def expect(what, got, wanted):
    if got != wanted:
        failures.append(f"{what}: page {got!r}, whatif --json {wanted!r}")


expect("slider", text("whatif-scale"), f"{scale}\u00d7")
expect("achieved", text("whatif-achieved"), f"{100 * projected['achieved_fraction']:.2f}%")
for key, v in projected["losses"].items():
    expect(f"loss {key}", text(f"whatif-loss-{key}"), f"{100 * v:.1f}%")
hour = text("whatif-bill-hour")
wasted = projected["bill"]["wasted_per_gpu_hour"]
if hour == "<$0.01":
    if not 0 < wasted < 0.01:
        failures.append(f"wasted per GPU-hour: page {hour!r}, whatif --json {wasted}")
elif not hour.startswith("$") or abs(float(hour[1:].replace(",", "")) - wasted) > 0.005 + 1e-9:
    failures.append(f"wasted per GPU-hour: page {hour!r}, whatif --json {wasted}")

ul = re.search(r'id="whatif-warnings"[^>]*>(.*?)</ul>', dom, re.S)
items = re.findall(r"<li([^>]*)>(.*?)</li>", ul.group(1) if ul else "", re.S)
shown = [html.unescape(t) for _, t in items]
expect("warnings", shown, want["warnings"])
for attrs, t in items:
    trust = html.unescape(t).startswith("outside the trusted range")
    if trust != ('class="up"' in attrs):
        failures.append(f"trust-range warning not marked as such: {t[:80]!r}")

if failures:
    print(f"FAIL: {dom_path} at {scale}x:")
    for f in failures:
        print("  " + f)
    sys.exit(1)
trust = sum(1 for w in shown if w.startswith("outside the trusted range"))
print(f"what-if panel at {scale}x: achieved {text('whatif-achieved')}, wasted {hour}/GPU-hour, "
      f"{len(shown)} warning(s) ({trust} trust-range): as whatif --json")
