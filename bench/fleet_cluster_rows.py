#!/usr/bin/env python3
"""Inserts the per-rank cluster rows of a simulated job into ClickHouse, as N ranks' analyses
would (docs/fleet.md, "The cluster over the store"): one analysis (job key) per rank, its
cluster_ranks and rank_verdicts row, and one rank_collectives row per all-reduce.

Every rank's clock is offset by up to ±50 ms; at each all-reduce the ranks arrive with up to
100 µs of jitter, except the straggler, which arrives 2 ms late; all leave 1 ms after the last
arrival (±5 µs). Prints the truth as JSON: the straggler and the wait it caused.

usage: fleet_cluster_rows.py URL DATABASE JOB RANKS STEPS COLLECTIVES_PER_STEP
"""
import json
import random
import sys
import urllib.parse
import urllib.request

url, database, job = sys.argv[1], sys.argv[2], sys.argv[3]
ranks, steps, per_step = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
rng = random.Random(7)
MS = 1_000_000
period = 10 * MS  # one all-reduce every 10 ms
straggler = ranks - 1
offsets = [0] + [rng.randint(-50 * MS, 50 * MS) for _ in range(ranks - 1)]
collectives = steps * per_step
window = collectives * period + 5 * MS

# Arrivals and exits on the reference clock, per collective: the same for every rank's rows.
arrivals, exits = [], []
caused = 0
for c in range(collectives):
    base = 2 * MS + c * period
    a = [base + rng.randint(0, 100_000) for _ in range(ranks)]
    a[straggler] = base + 2 * MS
    last = max(a)
    arrivals.append(a)
    exits.append([last + MS + rng.randint(-5_000, 5_000) for _ in range(ranks)])
    caused += sum(last - x for x in a) / 1e9


def insert(table, columns, lines):
    query = f"INSERT INTO {database}.{table} ({', '.join(columns)}) FORMAT TabSeparated"
    params = urllib.parse.urlencode({"query": query, "insert_distributed_sync": 1})
    body = "".join(lines).encode()
    req = urllib.request.Request(f"{url}/?{params}", data=body, method="POST")
    with urllib.request.urlopen(req, timeout=600) as r:
        r.read()


common = ["job_key", "job_id", "at_ns", "host"]
losses = ["loss_exposed_communication_s"]
at_ns = 1_800_000_000_000_000_000
chunk = 500
for first in range(0, ranks, chunk):
    rank_rows, verdict_rows, coll_rows = [], [], []
    for r in range(first, min(ranks, first + chunk)):
        key = f"{job}-rank{r:06d}"
        head = f"{key}\t{job}\t{at_ns + r}\tnode{r // 8}"
        off = offsets[r]
        rank_rows.append(f"{head}\t{r}\t{off}\t{off + window}\t{collectives}\t{steps}\t0\n")
        verdict_rows.append(f"{head}\t{r}\tNVIDIA H100 SXM 80GB\t{window / 1e9}\t{window / 2e9}\t{window / 1e9}\t0.1\t0\n")
        for c in range(collectives):
            start = arrivals[c][r] + off
            end = exits[c][r] + off
            coll_rows.append(f"{head}\t{r}\tworld\tall_reduce\t{c}\t{64 << 20}\t{ranks}\t{r}\t{start}\t{end}\t{c // per_step}\t0\t-1\t{c}\n")
    insert("cluster_ranks", common + ["rank", "window_start_ns", "window_end_ns", "collectives", "steps", "row_index"], rank_rows)
    insert("rank_verdicts", common + ["rank", "gpu", "wall_s", "useful_s", "kernel_union_s"] + losses + ["row_index"], verdict_rows)
    insert("rank_collectives", common + ["rank", "comm_group", "kind", "seq", "bytes", "group_size", "group_rank", "start_ns", "end_ns",
                                         "step", "p2p", "peer", "row_index"], coll_rows)
print(json.dumps({"straggler": straggler, "caused_wait_s": caused, "rows": ranks * collectives}))
