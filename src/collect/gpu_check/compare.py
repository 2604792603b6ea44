"""Compares what the agent recorded with the workloads' own measurements (scripts/gpu-check.sh).

  python3 compare.py workload WORKLOAD.json KERNELS.csv
  python3 compare.py torch PROFILE.json AGENT_STEPS.json KERNELS.csv
  python3 compare.py overhead NAME BASE_MS AGENT_MS LIMIT_PCT   # medians of steady-state steps
  python3 compare.py integrity NAME KERNELS.csv                 # closing chunk, no drops
  python3 compare.py gpm NAME KERNELS.csv CC_MAJOR              # GPM samples on Hopper or later
  python3 compare.py nccl RESULT.json KERNELS_RANK0.csv KERNELS_RANK1.csv
  python3 compare.py windows NAME FILE.csv...   # a duty-cycled run's spool, in file order
  python3 compare.py numerics NAME REF.json OTHER.json...   # final loss, parameter checksum: bitwise
  python3 compare.py step_cost NAME BASE.json AGENT.json LIMIT_PCT   # mean over all steps, p99
  python3 compare.py host_cost NAME BASE.json AGENT.json LIMIT_PCT   # host time of the steps
  python3 compare.py profiler NAME UNDER_AGENT.json REF_PROFILE.json KERNELS.csv
  python3 compare.py nccl_latency NAME WITH.json WITHOUT.json LIMIT_PCT  # 8 KiB all-reduce median
KERNELS.csv is plasmient_agent_dump --kernels output.
Prints "CHECK <name> <PASS|FAIL|SKIP> <detail>" lines (names prefixed with $CHECK_PREFIX); exits 1
if any FAIL.
"""
import csv
import json
import os
import statistics
import sys

failed = False


def check(name, ok, detail):
    global failed
    failed = failed or not ok
    print(f"CHECK {os.environ.get('CHECK_PREFIX', '')}{name} {'PASS' if ok else 'FAIL'} {detail}")


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def dur_ns(r):
    return int(r["end_ns"]) - int(r["start_ns"])


def workload(meta_path, csv_path):
    meta = json.load(open(meta_path))
    rs = rows(csv_path)
    kernels = [r for r in rs if r["kind"] == "kernel"]
    gemms = [r for r in rs if r["kind"] == "gemm" and int(r["m"] or 0) == meta["m"]]
    by_corr = {r["correlation"]: r for r in kernels}
    check("gemm_calls_recorded", len(gemms) >= meta["iters"],
          f"{len(gemms)} cuBLAS GemmEx records of {meta['m']}^3 (want >= {meta['iters']})")
    tied = [by_corr[g["correlation"]] for g in gemms if g["correlation"] in by_corr]
    check("gemm_kernels_tied", len(tied) == len(gemms),
          f"{len(tied)}/{len(gemms)} GEMM calls matched to their kernel by launch correlation")
    if tied:
        # Steady state: the timed iterations are the last `iters` calls.
        d = statistics.median(dur_ns(k) for k in tied[-meta["iters"]:])
        flops = 2.0 * meta["m"] * meta["n"] * meta["k"]
        agent_tflops = flops / d / 1e3
        err = abs(agent_tflops - meta["gemm_tflops"]) / meta["gemm_tflops"]
        check("gemm_tflops_within_5pct", err <= 0.05,
              f"agent {agent_tflops:.1f} TFLOP/s (2MNK/kernel time) vs events "
              f"{meta['gemm_tflops']:.1f} ({100 * err:.1f}% apart)")
    triads = [k for k in kernels if k["name"].startswith("\"Triad") or k["name"].startswith("Triad")]
    check("triad_count", len(triads) == meta["iters"] + 1,
          f"{len(triads)} Triad kernels (want {meta['iters'] + 1})")
    if triads:
        d = statistics.median(dur_ns(k) for k in triads[1:] or triads) / 1e6
        err = abs(d - meta["triad_ms"]) / meta["triad_ms"]
        check("triad_duration_within_5pct", err <= 0.05,
              f"agent {d:.3f} ms vs events {meta['triad_ms']:.3f} ms ({100 * err:.1f}% apart)")
    copies = [r for r in rs if r["kind"] == "memcpy" and int(r["bytes"] or 0) == meta["copy_bytes"]]
    check("memcpy_records", len(copies) == 2, f"{len(copies)} memcpy records of {meta['copy_bytes']} B (want 2)")
    if len(copies) == 2:
        total_ms = sum(dur_ns(c) for c in copies) / 1e6
        check("memcpy_duration", total_ms <= meta["copy_ms"] * 1.05,
              f"agent {total_ms:.2f} ms inside the events' {meta['copy_ms']:.2f} ms")
    sets = [r for r in rs if r["kind"] == "memset"]
    check("memset_records", len(sets) >= 3, f"{len(sets)} memset records (want >= 3)")
    ranges = {r["name"].strip('"') for r in rs if r["kind"] == "range"}
    check("nvtx_ranges", {"copies", "triad", "gemm"} <= ranges, f"NVTX ranges seen: {sorted(ranges)}")


def torch_steps(profile_path, agent_path, csv_path):
    prof = json.load(open(profile_path))
    mine = json.load(open(agent_path))
    rs = rows(csv_path)
    spans = [r for r in rs if r["kind"] == "range" and r["name"].strip('"') == "plasmient_steps"]
    if not spans:
        check("torch_steps_range", False, "no plasmient_steps NVTX range in the agent trace")
        return
    s0, s1 = int(spans[-1]["start_ns"]), int(spans[-1]["end_ns"])
    kernels = [r for r in rs if r["kind"] == "kernel" and s0 <= int(r["start_ns"]) <= s1]
    n, want = len(kernels), prof["kernels"]
    # Whole-run tracing loses nothing: the same deterministic steps give the same kernels.
    check("torch_kernel_count", n == want, f"agent {n} kernels in the steps vs torch.profiler {want} (exact)")
    # Kernel time as a share of each process's own CUDA-event step time: clock boost differs
    # between two processes, the share within one does not.
    agent_share = sum(dur_ns(k) for k in kernels) / 1e6 / mine["event_ms_total"]
    prof_share = prof["kernel_us"] / 1e3 / prof["event_ms_total"]
    check("torch_kernel_share_within_5pts", abs(agent_share - prof_share) <= 0.05,
          f"kernels fill {100 * agent_share:.1f}% of the steps under the agent, "
          f"{100 * prof_share:.1f}% under torch.profiler")


def overhead(name, base, agent, limit):
    base, agent, limit = float(base), float(agent), float(limit)
    pct = 100 * (agent - base) / base
    check(f"overhead_{name}", pct <= limit,
          f"median step {base:.3f} ms without, {agent:.3f} ms with the agent ({pct:+.1f}%, limit {limit:g}%)")


def integrity(name, csv_path):
    rs = rows(csv_path)
    files = [r for r in rs if r["kind"] == "file"]
    ok = bool(files) and files[0]["name"] == "last_chunk" and int(files[0]["bytes"] or 0) == 0
    check(f"{name}_last_chunk", ok,
          f"{files[0]['name']}, {files[0]['bytes']} corrupt chunks" if files else "no file line")
    drops = {r["name"]: int(r["bytes"] or 0) for r in rs if r["kind"] == "drops"}
    dropped = {k: v for k, v in drops.items() if v > 0}
    check(f"{name}_no_drops", not dropped, f"dropped: {dropped}" if dropped else "no records dropped")


GPM_METRICS = range(20, 26)  # wire::NvmlMetric kGpmSmUtilPct .. kGpmFp32UtilPct
GPM_SM_UTIL = 20


def gpm(name, csv_path, cc_major):
    """Every GPM metric sampled, and SM utilization above zero somewhere in a run that kept the
    GPU busy for seconds (a metrics struct NVML could not fill would read zeros)."""
    if int(cc_major) < 9:
        print(f"CHECK {name}_gpm SKIP compute capability {cc_major}: GPM needs Hopper or later")
        return
    values = {}
    for r in rows(csv_path):
        if r["kind"] == "sample":
            values.setdefault(int(r["name"].replace("metric", "")), []).append(float(r["bytes"]))
    gpm_seen = [m for m in sorted(values) if m in GPM_METRICS]
    check(f"{name}_gpm", len(gpm_seen) == len(GPM_METRICS),
          f"GPM metrics sampled: {gpm_seen} of {list(GPM_METRICS)} (all NVML metrics: {sorted(values)})")
    sm = values.get(GPM_SM_UTIL, [])
    check(f"{name}_gpm_sm_util", bool(sm) and max(sm) > 0,
          f"GPM SM utilization: {len(sm)} samples, max {max(sm) if sm else 0:g}%")


def nccl(result_path, *csv_paths):
    res = json.load(open(result_path))
    if not res.get("ok"):
        error = res.get("error", "")
        if res.get("shared_gpu") and "uplicate GPU" in error:
            print("CHECK nccl_two_ranks SKIP NCCL refuses two ranks on one GPU (Duplicate GPU detected); "
                  "one GPU on this machine")
        else:
            check("nccl_two_ranks", False, f"the two-rank run failed: {error}")
        return
    seqs = []
    for rank, path in enumerate(csv_paths):
        if not os.path.isfile(path) or os.path.getsize(path) == 0:
            check(f"nccl_rank{rank}_trace", False, f"the run succeeded but rank {rank} left no trace")
            continue
        colls = [r for r in rows(path) if r["kind"] == "collective" and r["name"].strip('"') == "AllReduce"
                 and int(r["bytes"] or 0) == res["bytes"]]
        mine = [int(r["correlation"]) for r in colls]
        check(f"nccl_rank{rank}_one_record_each", len(mine) == res["count"] and len(set(mine)) == len(mine),
              f"{len(mine)} all-reduce records of {res['bytes']} B, {len(set(mine))} distinct seq "
              f"(want {res['count']})")
        check(f"nccl_rank{rank}_end_after_start", all(dur_ns(r) > 0 for r in colls),
              "every record ends after it starts")
        seqs.append(sorted(mine))
    if len(seqs) == len(csv_paths):
        check("nccl_seq_match", seqs[0] == seqs[1], "both ranks saw the same sequence numbers")


def windows(name, *csv_paths):
    """The spool of one duty-cycled process: every file complete, windows and samples files
    alternating from a samples file, kernels only in windows, device-tier samples in every file."""
    check(f"{name}_files", len(csv_paths) >= 3, f"{len(csv_paths)} files in the spool (want >= 3)")
    kinds, kernels, problems = [], 0, []
    for i, path in enumerate(csv_paths):
        rs = rows(path)
        header = [r["name"] for r in rs if r["kind"] == "header"]
        kind = header[0] if header else "none"
        kinds.append(kind)
        n = sum(1 for r in rs if r["kind"] == "kernel")
        files = [r for r in rs if r["kind"] == "file"]
        drops = sum(int(r["bytes"] or 0) for r in rs if r["kind"] == "drops")
        if not files or files[0]["name"] != "last_chunk" or int(files[0]["bytes"] or 0) != 0:
            problems.append(f"file {i}: not complete")
        if drops:
            problems.append(f"file {i}: {drops} records dropped")
        if kind == "window" and n == 0 and i + 1 < len(csv_paths):
            problems.append(f"file {i}: a window without kernels")
        if kind == "samples" and n > 0:
            problems.append(f"file {i}: {n} kernels between windows")
        if not any(r["kind"] == "sample" for r in rs) and i + 1 < len(csv_paths):
            problems.append(f"file {i}: no device-tier samples")
        kernels += n if kind == "window" else 0
    want = ["samples" if i % 2 == 0 else "window" for i in range(len(kinds))]
    check(f"{name}_alternate", kinds == want, f"file kinds {kinds}")
    check(f"{name}_complete", not problems, "; ".join(problems) if problems else
          f"{kernels} kernels in {kinds.count('window')} windows, every file complete, no drops")


def numerics(name, ref_path, *paths):
    """Deterministic training gives the same bits with and without the agent: it only observes."""
    ref = json.load(open(ref_path))
    for path in paths:
        other = json.load(open(path))
        same = other.get("loss") == ref.get("loss") and other.get("checksum") == ref.get("checksum")
        check(f"{name}_{other.get('label', os.path.basename(path).replace('.json', ''))}", same,
              f"loss {other.get('loss')} checksum {other.get('checksum')} vs "
              f"{ref.get('loss')} {ref.get('checksum')} without the agent")


def p99(values):
    s = sorted(values)
    return s[min(len(s) - 1, int(0.99 * len(s)))] if s else 0.0


def step_cost(name, base_path, agent_path, limit):
    """The mean over every step (a window's switch and flush included, which a median hides)
    against the limit, and the p99, where window edges show."""
    base, mine = json.load(open(base_path)), json.load(open(agent_path))
    b, a, limit = statistics.mean(base["step_ms"]), statistics.mean(mine["step_ms"]), float(limit)
    pct = 100 * (a - b) / b
    check(f"step_mean_{name}", pct <= limit,
          f"mean step {b:.3f} ms without, {a:.3f} ms with the agent ({pct:+.1f}%, limit {limit:g}%)")
    print(f"CHECK {os.environ.get('CHECK_PREFIX', '')}step_p99_{name} INFO "
          f"p99 step {p99(base['step_ms']):.3f} ms without, {p99(mine['step_ms']):.3f} ms with the agent; "
          f"max {max(mine['step_ms']):.3f} ms")


def host_cost(name, base_path, agent_path, limit):
    b = json.load(open(base_path))["host_ms_total"]
    a = json.load(open(agent_path))["host_ms_total"]
    limit = float(limit)
    pct = 100 * (a - b) / b
    check(f"host_{name}", pct <= limit,
          f"host time of the steps {b:.1f} ms without, {a:.1f} ms with the agent ({pct:+.1f}%, limit {limit:g}%)")


def profiler(name, under_path, ref_path, csv_path):
    """torch.profiler under the agent: the profiler still sees every kernel; the kernels of its
    span that the agent did not see are counted as dropped (never a silent 0); after the
    profiler stops the agent traces again (kernels inside plasmient_after_profiler)."""
    under, ref = json.load(open(under_path)), json.load(open(ref_path))
    check(f"{name}_profiler_whole", abs(under["kernels"] - ref["kernels"]) <= max(2, 0.01 * ref["kernels"]),
          f"torch.profiler saw {under['kernels']} kernels under the agent, {ref['kernels']} without")
    rs = rows(csv_path)

    def in_range(range_name):
        spans = [r for r in rs if r["kind"] == "range" and r["name"].strip('"') == range_name]
        if not spans:
            return None
        s0, s1 = int(spans[-1]["start_ns"]), int(spans[-1]["end_ns"])
        return sum(1 for r in rs if r["kind"] == "kernel" and s0 <= int(r["start_ns"]) <= s1)

    seen = in_range("plasmient_steps") or 0
    drops = sum(int(r["bytes"] or 0) for r in rs if r["kind"] == "drops")
    check(f"{name}_span_accounted", seen + drops >= ref["kernels"],
          f"the agent saw {seen} of the profiler span's {ref['kernels']} kernels and counted {drops} dropped")
    after = in_range("plasmient_after_profiler")
    check(f"{name}_resumes", bool(after),
          f"{after} kernels traced after torch.profiler stopped" if after is not None
          else "no plasmient_after_profiler range in the agent trace")


def nccl_latency(name, with_path, without_path, limit):
    w, wo = json.load(open(with_path)), json.load(open(without_path))
    if "latency_us_median" not in w or "latency_us_median" not in wo:
        check(f"nccl_latency_{name}", False, "no latency result (see the two-rank runs)")
        return
    a, b, limit = w["latency_us_median"], wo["latency_us_median"], float(limit)
    pct = 100 * (a - b) / b
    check(f"nccl_latency_{name}", pct <= limit,
          f"8 KiB all-reduce median {b:.1f} us without the plugin, {a:.1f} us with it "
          f"({pct:+.1f}%, limit {limit:g}%)")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "workload":
        workload(sys.argv[2], sys.argv[3])
    elif mode == "torch":
        torch_steps(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "overhead":
        overhead(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif mode == "integrity":
        integrity(sys.argv[2], sys.argv[3])
    elif mode == "gpm":
        gpm(sys.argv[2], sys.argv[3], sys.argv[4])
    elif mode == "nccl":
        nccl(sys.argv[2], *sys.argv[3:])
    elif mode == "windows":
        windows(sys.argv[2], *sys.argv[3:])
    elif mode == "numerics":
        numerics(sys.argv[2], sys.argv[3], *sys.argv[4:])
    elif mode == "step_cost":
        step_cost(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif mode == "host_cost":
        host_cost(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif mode == "profiler":
        profiler(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif mode == "nccl_latency":
        nccl_latency(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    sys.exit(1 if failed else 0)
