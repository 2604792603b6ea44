"""Measured ceilings for scripts/gpu-check.sh's ceiling stage (docs/counters.md, "Measured
ceilings"): the dense GEMM FLOP/s this GPU achieves per dtype and its memory bandwidth, written as
a plasmient.ceilings/1 file for `plasmient analyze --ceiling measured --ceilings FILE`.

  python3 ceilings.py OUT.json [DEVICE_KEY]

GEMMs: square N x N x N (N = 8192; 2·N³ FLOPs each) per dtype, cuBLAS through torch.matmul
(bf16, fp16; tf32 with allow_tf32 on; fp32 IEEE with it off) and torch._scaled_mm for fp8
(e4m3) where the GPU and PyTorch have it. Each is warmed up, then timed with CUDA events over
REPS back-to-back calls, best of TRIES: the achievable rate, not an average under noise.
Bandwidth: a device-to-device copy of 2 GiB (read + write: 4 GiB moved per copy), timed the same
way. The SM clock is read with nvidia-smi while the bf16 GEMMs run (the clock the ceilings hold
at). DEVICE_KEY (a `plasmient peaks` key) is taken from the driver's name when not given; the
script refuses a name it cannot place rather than guess.
Written without a GPU to test it on: every figure is computed from CUDA-event times of work of
known size, so a wrong figure can only come from a wrong size here, and the sizes are the ones
the docstring states.
"""
import datetime
import json
import subprocess
import sys
import threading

import torch

N, REPS, TRIES = 8192, 10, 3
COPY_BYTES = 2 << 30

# Driver names to device table keys (docs/devices.md); the first substring that matches.
NAMES = [("H100 PCIe", "h100_pcie"), ("H100 NVL", "h100_nvl"), ("H100", "h100_sxm"), ("H200", "h200_sxm"),
         ("GH200", "h200_sxm"), ("H20", "h20"), ("B200", "b200_hgx"), ("GB200", "gb200"),
         ("A100-SXM4-80GB", "a100_sxm_80gb"), ("A100-SXM4-40GB", "a100_sxm_40gb"),
         ("A100 80GB PCIe", "a100_pcie_80gb"), ("A100-PCIE-40GB", "a100_pcie_40gb"), ("L40S", "l40s"),
         ("L4", "l4"), ("A10G", "a10g"), ("A10", "a10"), ("V100", "v100_sxm2")]


def device_key(name):
    for sub, key in NAMES:
        if sub in name:
            return key
    return None


def timed(fn, reps=REPS, tries=TRIES):
    """Best seconds per call over `tries` runs of `reps` back-to-back calls."""
    fn()
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(tries):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(reps):
            fn()
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3 / reps)
    return best


def gemm_rate(dtype, tf32=False):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    a = torch.randn(N, N, device="cuda", dtype=dtype)
    b = torch.randn(N, N, device="cuda", dtype=dtype)
    out = torch.empty(N, N, device="cuda", dtype=dtype)
    seconds = timed(lambda: torch.matmul(a, b, out=out))
    return 2 * N ** 3 / seconds


def fp8_rate():
    if not hasattr(torch, "_scaled_mm") or not hasattr(torch, "float8_e4m3fn"):
        return None
    if torch.cuda.get_device_capability() < (8, 9):
        return None
    try:
        a = torch.randn(N, N, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(N, N, device="cuda").to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm wants
        one = torch.ones((), device="cuda")
        seconds = timed(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
        return 2 * N ** 3 / seconds
    except (RuntimeError, TypeError) as e:
        print(f"ceilings: fp8 not measured: {e}", file=sys.stderr)
        return None


def bandwidth():
    src = torch.empty(COPY_BYTES, dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    seconds = timed(lambda: dst.copy_(src))
    return 2 * COPY_BYTES / seconds  # each byte read once and written once


def sm_clock_while(fn):
    """fn() while nvidia-smi samples the SM clock; (fn's result, the median clock in MHz or None)."""
    clocks, done = [], threading.Event()

    def sample():
        while not done.is_set():
            try:
                out = subprocess.run(["nvidia-smi", "-i", str(torch.cuda.current_device()),
                                      "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"],
                                     capture_output=True, text=True, timeout=5).stdout.strip()
                clocks.append(float(out.splitlines()[0]))
            except (OSError, ValueError, IndexError, subprocess.SubprocessError):
                pass
            done.wait(0.2)

    t = threading.Thread(target=sample)
    t.start()
    try:
        result = fn()
    finally:
        done.set()
        t.join()
    clocks.sort()
    return result, (clocks[len(clocks) // 2] if clocks else None)


def main():
    out = sys.argv[1]
    name = torch.cuda.get_device_name()
    key = sys.argv[2] if len(sys.argv) > 2 else device_key(name)
    if key is None:
        sys.exit(f"ceilings: no device table key for '{name}': give one (plasmient peaks)")
    gemm = {}
    gemm["bf16"], clock = sm_clock_while(lambda: gemm_rate(torch.bfloat16))
    gemm["fp16"] = gemm_rate(torch.float16)
    gemm["tf32"] = gemm_rate(torch.float32, tf32=True)
    gemm["fp32"] = gemm_rate(torch.float32, tf32=False)
    if (fp8 := fp8_rate()) is not None:
        gemm["fp8"] = fp8
    device = {"device": key, "name": name,
              "measured_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
              "source": f"scripts/gpu-check.sh ceilings ({N}^3 GEMMs, best of {TRIES}x{REPS}; "
                        f"{COPY_BYTES >> 30} GiB copy)",
              "gemm_flops_per_s": gemm, "memory_bandwidth_bytes_per_s": bandwidth()}
    if clock:
        device["sm_clock_mhz"] = clock
    with open(out, "w") as f:
        json.dump({"schema": "plasmient.ceilings/1", "devices": [device]}, f, indent=2)
    for k, v in gemm.items():
        print(f"ceilings: {k} GEMM {v / 1e12:.1f} TFLOP/s")
    print(f"ceilings: memory {device['memory_bandwidth_bytes_per_s'] / 1e12:.2f} TB/s, SM clock {clock} MHz")


if __name__ == "__main__":
    main()
