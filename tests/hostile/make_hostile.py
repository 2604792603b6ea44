#!/usr/bin/env python3
"""Writes the hostile inputs of tests/hostile/serve_hostile_test.sh.

make_hostile.py huge-string OUT.json.gz MB   one event holding one MB-megabyte JSON string
make_hostile.py view-sqlite OUT.sqlite        an Nsight-shaped file whose kernel table is a recursive view
make_hostile.py escape-names OUT.json IN.json  IN with ESC [ 31m and BEL in its kernel names
make_hostile.py stray-event OUT.json IN.json   IN with one more kernel, a year after the last
"""
import gzip
import json
import sqlite3
import sys

kind, out = sys.argv[1], sys.argv[2]
if kind == "huge-string":
    # Concatenated gzip members (one stream to a reader): the 1 MB block is compressed once.
    mb = int(sys.argv[3])
    block = gzip.compress(b"a" * (1 << 20), 9)
    with open(out, "wb") as f:
        f.write(gzip.compress(b'{"traceEvents":[{"ph":"X","name":"'))
        for _ in range(mb):
            f.write(block)
        f.write(gzip.compress(b'"}]}'))
elif kind == "view-sqlite":
    db = sqlite3.connect(out)
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT)")
    db.execute("CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS WITH RECURSIVE r(start, end) AS "
               "(SELECT 1, 2 UNION ALL SELECT start + 1, end + 1 FROM r) SELECT start, end FROM r")
    db.commit()
    db.close()
elif kind == "escape-names":
    doc = json.load(open(sys.argv[3]))
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel":
            e["name"] = "\x1b[31mEVIL\x07" + e["name"]
    open(out, "w").write(json.dumps(doc))
elif kind == "stray-event":
    doc = json.load(open(sys.argv[3]))
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    stray = dict(kernels[-1])
    stray["ts"] = max(e["ts"] + e.get("dur", 0) for e in doc["traceEvents"] if "ts" in e) + 365 * 86400 * 1e6
    doc["traceEvents"].append(stray)
    open(out, "w").write(json.dumps(doc))
else:
    sys.exit(f"unknown kind {kind}")
