"""Training steps of a small transformer-like MLP, for scripts/gpu-check.sh.

  python3 torch_steps.py plain OUT.json [STEPS [host]]  # time the steps (with or without the agent)
  python3 torch_steps.py profile OUT.json   # same steps under torch.profiler; writes OUT.json
                                            # and OUT.trace.json (Kineto)
  python3 torch_steps.py profile-then-plain OUT.json   # torch.profiler over the steps, then
                # AFTER more steps in an NVTX range "plasmient_after_profiler" (run under the
                # agent: the agent must count what the profiler held and trace what follows)
`host`: a host-bound variant (width 256, batch 64: ~50 us kernels), timed on the host as well.
The model runs with deterministic algorithms; OUT.json carries the final loss and a parameter
checksum (float.hex), which must be bitwise equal with and without the agent.
Each step is timed with CUDA events; the first WARM steps are left out and the median of the rest
is the step time (in-process, so clock drift between two processes does not enter a comparison
within one run). The timed steps run inside an NVTX range "plasmient_steps" (the agent sees it
through CUPTI) and end with a device synchronize, so their kernels fall inside it.
"""
import json
import os
import statistics
import sys
import time

os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")  # deterministic cuBLAS
import torch  # noqa: E402

WARM, STEPS, AFTER = 5, 30, 30


def main():
    global STEPS
    mode, out = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        STEPS = int(sys.argv[3])
    host_bound = len(sys.argv) > 4 and sys.argv[4] == "host"
    torch.manual_seed(0)
    torch.use_deterministic_algorithms(True)
    dev = torch.device("cuda")
    width, batch = (256, 64) if host_bound else (2048, 4096)
    model = torch.nn.Sequential(
        torch.nn.Linear(width, 4 * width), torch.nn.GELU(),
        torch.nn.Linear(4 * width, width), torch.nn.LayerNorm(width),
        torch.nn.Linear(width, width),
    ).to(dev, dtype=torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(batch, width, device=dev, dtype=torch.bfloat16)
    y = torch.randn(batch, width, device=dev, dtype=torch.bfloat16)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        return loss

    for _ in range(WARM):  # cuBLAS heuristics, allocator, lazy init
        step()
    torch.cuda.synchronize()

    last = {}

    def run_steps(name="plasmient_steps", n=None):
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(n or STEPS)]
        torch.cuda.nvtx.range_push(name)
        t0 = time.perf_counter()
        for begin, end in events:
            begin.record()
            last["loss"] = step()
            end.record()
        torch.cuda.synchronize()
        last["host_ms"] = (time.perf_counter() - t0) * 1000
        torch.cuda.nvtx.range_pop()
        return [b.elapsed_time(e) for b, e in events]

    result = {"mode": mode, "steps": STEPS, "warm": WARM, "width": width, "batch": batch,
              "host_bound": host_bound}
    if mode in ("profile", "profile-then-plain"):
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            step_ms = run_steps()
        trace = out.replace(".json", ".trace.json")
        prof.export_chrome_trace(trace)
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        kernels = [e for e in events if e.get("cat") == "kernel"]
        result["kernels"] = len(kernels)
        result["kernel_us"] = sum(float(e.get("dur", 0)) for e in kernels)
        result["trace"] = trace
        if mode == "profile-then-plain":
            result["after_steps"] = AFTER
            run_steps("plasmient_after_profiler", AFTER)
    else:
        step_ms = run_steps()
    result["host_ms_total"] = last["host_ms"]
    result["loss"] = float(last["loss"].item()).hex()
    result["checksum"] = float(sum(p.double().sum().item() for p in model.parameters())).hex()
    result["step_ms"] = step_ms
    result["step_ms_median"] = statistics.median(step_ms)
    result["event_ms_total"] = sum(step_ms)
    with open(out, "w") as f:
        json.dump(result, f)
    print(json.dumps({k: v for k, v in result.items() if k != "step_ms"}))


if __name__ == "__main__":
    main()
