#!/usr/bin/env python3
"""Checks that an HTML report needs nothing outside its own file.

The report may carry inline scripts (the interactive panels compute from data embedded in the
page), but never one that loads anything: no src attribute, no network API, no external URL,
stylesheet, import or font, and all scripts together stay within a byte budget.

Usage: html_self_contained.py REPORT.html [MAX_SCRIPT_BYTES]   (default 131072)
"""
import re
import sys

path = sys.argv[1]
budget = int(sys.argv[2]) if len(sys.argv) > 2 else 128 * 1024
html = open(path, encoding="utf-8").read()


def fail(what, at):
    print(f"FAIL: {path}: {what}: ...{html[max(0, at - 40):at + 60]!r}...")
    sys.exit(1)


for pattern, what in [(r"https?://", "an external URL"), (r"<link\b", "a <link>"),
                      (r"@import", "a CSS @import"), (r"url\(", "a CSS url()")]:
    m = re.search(pattern, html)
    if m:
        fail(f"references something outside itself ({what})", m.start())

total = 0
for m in re.finditer(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
    attrs, body = m.group(1), m.group(2)
    if attrs.strip():
        fail("a <script> with attributes (only bare inline scripts are allowed)", m.start())
    for api in ("fetch(", "XMLHttpRequest", "WebSocket", "EventSource", "import(", "importScripts",
                "sendBeacon", "new Worker", "new Image"):
        if api in body:
            fail(f"a script that could reach the network ({api})", m.start() + len(m.group(0)) - len(body))
    total += len(body.encode("utf-8"))
opened = len(re.findall(r"<script\b", html))
closed = len(re.findall(r"</script>", html))
if opened != closed:
    fail(f"{opened} <script> tags but {closed} </script>", html.find("<script"))
if total > budget:
    print(f"FAIL: {path}: inline scripts take {total} bytes, over the budget of {budget}")
    sys.exit(1)
print(f"self-contained: {path} ({opened} inline script(s), {total} bytes)")
