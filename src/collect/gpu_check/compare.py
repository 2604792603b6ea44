"""Compares what the agent recorded with the workloads' own measurements (scripts/gpu-check.sh).

  python3 compare.py workload WORKLOAD.json KERNELS.csv
  python3 compare.py torch PROFILE.json KERNELS.csv
  python3 compare.py overhead NAME BASE_SECONDS AGENT_SECONDS
Prints "CHECK <name> <PASS|FAIL> <detail>" lines; exits 1 if any FAIL.
"""
import csv
import json
import statistics
import sys

failed = False


def check(name, ok, detail):
    global failed
    failed = failed or not ok
    print(f"CHECK {name} {'PASS' if ok else 'FAIL'} {detail}")


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


def torch_steps(profile_path, csv_path):
    prof = json.load(open(profile_path))
    rs = rows(csv_path)
    spans = [r for r in rs if r["kind"] == "range" and r["name"].strip('"') == "plasmient_steps"]
    if not spans:
        check("torch_steps_range", False, "no plasmient_steps NVTX range in the agent trace")
        return
    s0, s1 = int(spans[-1]["start_ns"]), int(spans[-1]["end_ns"])
    kernels = [r for r in rs if r["kind"] == "kernel" and s0 <= int(r["start_ns"]) <= s1]
    n, want = len(kernels), prof["kernels"]
    check("torch_kernel_count", abs(n - want) <= max(2, 0.01 * want),
          f"agent {n} kernels in the steps vs torch.profiler {want}")
    us = sum(dur_ns(k) for k in kernels) / 1e3
    err = abs(us - prof["kernel_us"]) / max(prof["kernel_us"], 1)
    check("torch_kernel_time_within_5pct", err <= 0.05,
          f"agent {us / 1e3:.2f} ms vs torch.profiler {prof['kernel_us'] / 1e3:.2f} ms ({100 * err:.1f}% apart)")


def overhead(name, base, agent):
    base, agent = float(base), float(agent)
    pct = 100 * (agent - base) / base
    check(f"overhead_{name}", pct <= 10, f"{base:.3f} s without, {agent:.3f} s with the agent ({pct:+.1f}%)")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "workload":
        workload(sys.argv[2], sys.argv[3])
    elif mode == "torch":
        torch_steps(sys.argv[2], sys.argv[3])
    elif mode == "overhead":
        overhead(sys.argv[2], sys.argv[3], sys.argv[4])
    sys.exit(1 if failed else 0)
