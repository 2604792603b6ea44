"""scripts/gpu-check.sh --evaluate on canned outputs: the pass/fail logic without a GPU.

  python3 gpu_check_evaluate_test.py SCRIPT

A canned run (the files a GPU run leaves: run-status.txt, the programs' JSON timings and
plasmient_agent_dump --kernels CSVs) must pass whole; each defect written into a copy of it must
fail the check (exit 1) on the row that names it, the rows it does not touch still passing, or be
a SKIP where the check says why.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

SCRIPT = None
FIELDS = ["kind", "name", "start_ns", "end_ns", "correlation", "m", "n", "k", "batch", "bytes"]
M = 8192
ITERS = 20
GEMM_NS = 1_600_000
COPY_BYTES = 256 << 20
ALLREDUCE_BYTES = 4 << 20


def row(kind, name, start=0, end=0, corr="", m="", n="", k="", batch="", nbytes=""):
    return dict(zip(FIELDS, [kind, name, start, end, corr, m, n, k, batch, nbytes]))


def tail(flags="whole_run", truncated=False, drops=None):
    """What every dump ends with: drops per source, the file's state, its kind."""
    rows = [row("drops", f"source{s}", nbytes=n) for s, n in (drops or {}).items()]
    rows.append(row("file", "truncated" if truncated else "last_chunk", nbytes=0))
    rows.append(row("header", flags, nbytes=0))
    return rows


def samples(t0, count, step_ns=100_000_000, gpm=True, sm_util=55.0):
    rows = []
    for i in range(count):
        ts = t0 + i * step_ns
        rows.append(row("sample", "metric1", ts, ts, 0, nbytes=97))
        rows.append(row("sample", "metric3", ts, ts, 0, nbytes=1980))
        if gpm and i > 0:
            for metric in range(20, 26):
                rows.append(row("sample", f"metric{metric}", ts, ts, 0,
                                nbytes=sm_util if metric == 20 else 12.5))
    return rows


def workload_rows():
    rows, t, corr = [], 1_000_000, 100
    rows += [row("range", "copies", t, t + 50_000_000), row("range", "triad", t + 60_000_000, t + 80_000_000),
             row("range", "gemm", t + 90_000_000, t + 200_000_000)]
    rows += [row("memcpy", "kind1", t + 1_000_000, t + 11_000_000, 1, nbytes=COPY_BYTES),
             row("memcpy", "kind2", t + 12_000_000, t + 22_000_000, 2, nbytes=COPY_BYTES)]
    rows += [row("memset", "memset", t + 23_000_000 + i, t + 23_000_100 + i, 3 + i, nbytes=1024) for i in range(3)]
    for i in range(ITERS + 1):
        s = t + 60_000_000 + i * 200_000
        rows.append(row("kernel", "Triad(float*, float const*, float const*, float, unsigned long)",
                        s, s + 170_000, corr))
        corr += 1
    for i in range(ITERS + 3):
        s = t + 90_000_000 + i * 2_000_000
        rows.append(row("gemm", "cublas::gemm", s, s + 10_000, corr, M, M, M, 1))
        rows.append(row("kernel", "sm90_xmma_gemm_bf16bf16_bf16f32", s + 20_000, s + 20_000 + GEMM_NS, corr))
        corr += 1
    return rows + samples(t, 3) + tail()


def torch_rows(kernels=100, kernel_ns=80_800):
    rows = [row("range", "plasmient_steps", 1_000, 20_000_000)]
    rows += [row("kernel", "ampere_bf16_gemm", 2_000 + i * 100_000, 2_000 + i * 100_000 + kernel_ns, i)
             for i in range(kernels)]
    return rows + samples(0, 2) + tail()


def profiler_rows():
    """torch.profiler held CUPTI over plasmient_steps: its 100 kernels counted as dropped (source
    8, kCuptiTaken), then the agent traced the steps after it."""
    rows = [row("range", "plasmient_steps", 1_000, 20_000_000),
            row("range", "plasmient_after_profiler", 30_000_000, 50_000_000)]
    rows += [row("kernel", "ampere_bf16_gemm", 31_000_000 + i * 100_000, 31_000_000 + i * 100_000 + 80_000, i)
             for i in range(100)]
    return rows + samples(0, 2) + tail(drops={8: 100})


def steps(median, n=30, loss="0x1.5p-1", checksum="0x1.2345p+10", **more):
    """A torch_steps.py result: per-step times around `median`, the final loss and checksum."""
    out = {"step_ms_median": median, "step_ms": [median] * n, "event_ms_total": median * n,
           "loss": loss, "checksum": checksum, "host_ms_total": median * n * 1.01}
    out.update(more)
    return out


def spool_rows(seq):
    """A duty-cycled spool: samples, window, samples, window."""
    t = seq * 1_000_000_000
    if seq % 2 == 0:
        return samples(t, 3, gpm=False) + tail("samples")
    kernels = [row("kernel", "Scale(float*, float, unsigned long)", t + i * 10_000, t + i * 10_000 + 2_000, i)
               for i in range(50)]
    return kernels + samples(t, 2, gpm=False) + tail("window")


def nccl_rows():
    colls = [row("collective", "AllReduce", 1_000 + i * 1_000_000, 1_000 + i * 1_000_000 + 400_000, i, 0, 2,
                 nbytes=ALLREDUCE_BYTES) for i in range(50)]
    return colls + samples(0, 2) + tail()


class Canned:
    """A good run's folder, as data: {relative path: rows (CSV) | dict (JSON) | str (text)}."""

    def __init__(self):
        self.files = {
            "run-status.txt": "build_agent|PASS|libplasmient_agent.so\nbuild_workload|PASS|nvcc 13.0\n"
                              "workload_run|RAN|60 steps\nworkload_plain_exit|PASS|exit 0\n"
                              "workload_agent_exit|PASS|exit 0\nworkload_windows_run|RAN|12000 steps\n"
                              "torch_run|RAN|30 steps\ntorch_agent_exit|PASS|exit 0\n"
                              "torch_windows_run|RAN|400 steps\nnccl_run|RAN|two ranks\n"
                              "workload_torch_cupti_run|RAN|nvidia/cu13/lib/libcupti.so.13\n"
                              "torch_profiler_run|RAN|profiler under the agent\n"
                              "torch_host_run|RAN|200 host-bound steps\nsigterm_run|RAN|SIGTERM\n"
                              "sigterm_exit|PASS|exit 143 (want 143)\n",
            "compute_cap_major": "9\n",
            "workload-plain.json": {"step_ms_median": 0.300},
            "workload.json": {"m": M, "n": M, "k": M, "iters": ITERS,
                              "gemm_tflops": 2.0 * M * M * M / GEMM_NS / 1e3, "triad_ms": 0.170,
                              "copy_ms": 20.5, "copy_bytes": COPY_BYTES, "step_ms_median": 0.306},
            "workload-kernels.csv": workload_rows(),
            "workload-torch-cupti.json": {"m": M, "n": M, "k": M, "iters": ITERS,
                                          "gemm_tflops": 2.0 * M * M * M / GEMM_NS / 1e3, "triad_ms": 0.170,
                                          "copy_ms": 20.5, "copy_bytes": COPY_BYTES, "step_ms_median": 0.306},
            "workload-torch-cupti-kernels.csv": workload_rows(),
            "workload-long-plain.json": {"step_ms_median": 0.300},
            "workload-long-agent.json": {"step_ms_median": 0.309},
            "workload-windows.json": {"step_ms_median": 0.301},
            "workload-long-kernels.csv": samples(0, 30) + tail(),
            "torch-profile.json": {"kernels": 100, "kernel_us": 8000.0, "event_ms_total": 10.0},
            "torch-plain.json": steps(0.333, event_ms_total=10.0),
            "torch-agent.json": steps(0.336, event_ms_total=10.1),
            "torch-kernels.csv": torch_rows(),
            "torch-plain-long.json": steps(0.333),
            "torch-windows.json": steps(0.334),
            "torch-profile-agent.json": {"kernels": 100, "kernel_us": 8000.0, "event_ms_total": 10.0},
            "torch-profile-agent.csv": profiler_rows(),
            "torch-host-plain.json": steps(0.050, host_ms_total=12.0),
            "torch-host-agent.json": steps(0.051, host_ms_total=12.3),
            "sigterm.csv": torch_rows(),
            "nccl.json": {"ok": True, "world": 2, "count": 50, "bytes": ALLREDUCE_BYTES, "shared_gpu": False,
                          "latency_us_median": 41.0},
            "nccl-noplugin.json": {"ok": True, "latency_us_median": 40.0},
            "nccl-rank0.csv": nccl_rows(),
            "nccl-rank1.csv": nccl_rows(),
        }
        for spool in ("workload-spool", "torch-spool/main"):
            for seq in range(4):
                self.files[f"{spool}/j-0-h-77-{seq:06d}.pltrace.csv"] = spool_rows(seq)

    def write(self, folder):
        for rel, content in self.files.items():
            path = os.path.join(folder, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", newline="") as f:
                if isinstance(content, str):
                    f.write(content)
                elif isinstance(content, dict):
                    json.dump(content, f)
                else:
                    w = csv.DictWriter(f, FIELDS)
                    w.writeheader()
                    w.writerows(content)


def evaluate(canned, extra=None):
    """Runs the evaluation on `canned` (and `extra(folder)`); returns (exit code, {check: status}, output)."""
    with tempfile.TemporaryDirectory() as folder:
        canned.write(folder)
        if extra:
            extra(folder)
        p = subprocess.run(["bash", SCRIPT, "--evaluate", folder], capture_output=True, text=True, timeout=120)
    rows = {}
    table = p.stdout.split("CHECK ", 1)[-1].splitlines()[1:]
    for line in table:
        parts = line.split(None, 2)
        if len(parts) >= 2:
            rows[parts[0]] = parts[1]
    return p.returncode, rows, p.stdout + p.stderr


class GpuCheckEvaluate(unittest.TestCase):
    """Defects that touch different rows share one evaluation (each costs ~20 python starts)."""

    def assertRows(self, rows, out, status, checks):
        for check in checks:
            self.assertEqual(rows.get(check), status, f"{check} should be {status}:\n{out}")

    def test_good_run_passes_every_check(self):
        rc, rows, out = evaluate(Canned())
        self.assertEqual(rc, 0, out)
        self.assertNotIn("FAIL", rows.values(), out)
        self.assertRows(rows, out, "PASS", [
            "build_agent", "gemm_tflops_within_5pct", "triad_count", "workload_last_chunk", "workload_no_drops",
            "overhead_workload_steps", "workload_long_gpm", "workload_long_gpm_sm_util",
            "workload_windows_alternate", "workload_windows_complete", "overhead_workload_windows_vs_off",
            "overhead_workload_whole_run_vs_off", "torch_kernel_count", "torch_kernel_share_within_5pts",
            "overhead_torch_steps", "torch_windows_complete", "overhead_torch_windows_vs_off",
            "nccl_rank0_one_record_each", "nccl_rank1_one_record_each", "nccl_seq_match", "nccl_rank1_last_chunk",
            "torch_cupti_gemm_kernels_tied", "torch_cupti_triad_duration_within_5pct", "torch_cupti_workload_no_drops",
            "torch_numerics_torch-agent", "torch_windows_numerics_torch-windows", "step_mean_torch_whole_run",
            "step_mean_torch_windows_vs_off", "torch_under_agent_profiler_whole", "torch_under_agent_span_accounted",
            "torch_under_agent_resumes", "host_torch_host_bound", "nccl_latency_plugin", "sigterm_last_chunk",
            "sigterm_exit"])
        self.assertRows(rows, out, "INFO", ["step_p99_torch_windows_vs_off"])

    # The agent changed the numbers, lost torch.profiler's span without a count, stopped tracing
    # after it, or slowed the host-bound steps and small all-reduces past their limits.
    def test_harm_and_cost_fail_their_rows(self):
        c = Canned()
        c.files["torch-agent.json"]["checksum"] = "0x1.2346p+10"
        c.files["torch-profile-agent.csv"] = [r for r in profiler_rows()
                                              if r["kind"] not in ("kernel", "drops")]
        c.files["torch-host-agent.json"]["host_ms_total"] = 14.0
        c.files["nccl.json"]["latency_us_median"] = 48.0
        c.files["torch-windows.json"]["step_ms"] = [0.334] * 29 + [3.0]  # a stall at a window edge
        rc, rows, out = evaluate(c)
        self.assertEqual(rc, 1, out)
        self.assertRows(rows, out, "FAIL", [
            "torch_numerics_torch-agent", "torch_under_agent_span_accounted", "torch_under_agent_resumes",
            "host_torch_host_bound", "nccl_latency_plugin", "step_mean_torch_windows_vs_off"])
        self.assertRows(rows, out, "PASS", [
            "torch_windows_numerics_torch-windows", "torch_under_agent_profiler_whole",
            "overhead_torch_windows_vs_off"])

    def test_trace_defects_fail_their_rows(self):
        c = Canned()
        c.files["torch-kernels.csv"] = torch_rows()[:-2] + tail(drops={1: 3})  # a dropped record
        c.files["workload-kernels.csv"] = workload_rows()[:-2] + tail(truncated=True)  # no closing chunk
        c.files["workload-spool/j-0-h-77-000001.pltrace.csv"] = spool_rows(1)[:-2] + tail("window", truncated=True)
        c.files["nccl-rank0.csv"] = nccl_rows()[:1] + nccl_rows()  # a collective recorded twice
        c.files["workload-long-kernels.csv"] = samples(0, 30, gpm=False) + tail()  # Hopper, no GPM
        # PyTorch's newer libcupti: records the build's layouts could not read (no kernel kept)
        c.files["workload-torch-cupti-kernels.csv"] = [r for r in workload_rows() if r["kind"] != "kernel"]
        c.files["run-status.txt"] = c.files["run-status.txt"].replace(  # timings written, then a crash
            "torch_agent_exit|PASS|exit 0", "torch_agent_exit|FAIL|exit 139")

        def damage(folder):
            open(os.path.join(folder, "torch-spool/main/.j-0-h-77-000004.pltrace.part"), "w").close()
            os.remove(os.path.join(folder, "nccl-rank1.csv"))  # a rank without its trace

        rc, rows, out = evaluate(c, damage)
        self.assertEqual(rc, 1, out)
        self.assertRows(rows, out, "FAIL", [
            "torch_no_drops", "workload_last_chunk", "workload_windows_complete", "torch_windows_no_part_left",
            "nccl_rank0_one_record_each", "nccl_rank1_trace", "workload_long_gpm",
            "torch_agent_exit", "torch_cupti_gemm_kernels_tied", "torch_cupti_triad_count"])
        self.assertRows(rows, out, "PASS", [
            "torch_last_chunk", "workload_no_drops", "torch_windows_complete", "workload_windows_no_part_left",
            "triad_count", "gemm_kernels_tied", "overhead_torch_steps", "torch_cupti_workload_last_chunk"])

    def test_figures_over_their_limits_and_crashed_comparisons_fail(self):
        c = Canned()
        c.files["workload-windows.json"] = {"step_ms_median": 0.306}  # +2% with windows: over 1%
        c.files["torch-agent.json"]["step_ms_median"] = 0.360  # +8% tracing every kernel: over 5%
        c.files["torch-agent.json"]["step_ms"] = [0.360] * 30
        c.files["workload-long-kernels.csv"] = samples(0, 30, sm_util=0.0) + tail()  # GPM read as zeros
        del c.files["workload.json"]["gemm_tflops"]  # compare.py raises KeyError half-way
        c.files["workload-plain.json"] = {"median": 0.3}  # no step_ms_median: no overhead figure
        rc, rows, out = evaluate(c)
        self.assertEqual(rc, 1, out)
        self.assertRows(rows, out, "FAIL", [
            "overhead_workload_windows_vs_off", "overhead_torch_steps", "workload_long_gpm_sm_util",
            "compare_workload_workload-checks", "compare_overhead_overhead-workload_steps"])
        self.assertRows(rows, out, "PASS", [
            "overhead_workload_whole_run_vs_off", "overhead_torch_windows_vs_off", "workload_long_gpm"])

    def test_a_stage_that_left_no_output_fails(self):
        c = Canned()
        del c.files["torch-agent.json"]  # the run under the agent wrote nothing
        del c.files["workload-kernels.csv"]  # no trace to dump
        rc, rows, out = evaluate(c)
        self.assertEqual(rc, 1, out)
        self.assertRows(rows, out, "FAIL", ["torch_trace", "workload_trace"])

    def test_what_cannot_run_here_is_a_skip(self):
        c = Canned()  # one GPU: NCCL refuses two ranks on it; before Hopper there is no GPM
        c.files["nccl.json"] = {"ok": False, "shared_gpu": True, "count": 50, "bytes": ALLREDUCE_BYTES,
                                "error": "rank 1: DistBackendError: Duplicate GPU detected"}
        c.files["compute_cap_major"] = "8\n"
        c.files["workload-long-kernels.csv"] = samples(0, 30, gpm=False) + tail()
        rc, rows, out = evaluate(c)
        self.assertEqual(rc, 0, out)
        self.assertRows(rows, out, "SKIP", ["nccl_two_ranks", "workload_long_gpm"])
        c.files["nccl.json"]["error"] = "rank 0: RuntimeError: NCCL error: unhandled system error"
        c.files["run-status.txt"] = c.files["run-status.txt"].replace("build_agent|PASS", "build_agent|FAIL")
        rc, rows, out = evaluate(c)
        self.assertEqual(rc, 1, out)
        self.assertRows(rows, out, "FAIL", ["nccl_two_ranks", "build_agent"])

    def test_a_spent_budget_starts_nothing_and_fails(self):
        # The run itself, here without a GPU: with no time left nothing is built or started, each
        # step says so, and the check fails.
        with tempfile.TemporaryDirectory() as folder:
            env = dict(os.environ, OUT=folder, BUDGET_S="0")
            p = subprocess.run(["bash", SCRIPT], capture_output=True, text=True, env=env, timeout=120)
            self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
            self.assertIn("cmake not run: the check's 0 s were spent", p.stdout)
            self.assertRegex(p.stdout, r"build_agent +FAIL")
            self.assertFalse(os.path.exists(os.path.join(folder, "work", "build-agent", "build.ninja")))

    def test_usage(self):
        with tempfile.TemporaryDirectory() as folder:
            p = subprocess.run(["bash", SCRIPT, "--evaluate", folder], capture_output=True, text=True)
            self.assertEqual(p.returncode, 2)
            self.assertIn("run-status.txt", p.stderr)
        p = subprocess.run(["bash", SCRIPT, "--bogus"], capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)

    def test_script_is_clean(self):
        p = subprocess.run(["bash", "-n", SCRIPT], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        if shutil.which("shellcheck") is None:
            print("shellcheck not installed: lint skipped (scripts/install-deps.sh --checks installs it)")
            return
        p = subprocess.run(["shellcheck", SCRIPT], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout)


if __name__ == "__main__":
    SCRIPT = sys.argv.pop(1)
    unittest.main(verbosity=2)
