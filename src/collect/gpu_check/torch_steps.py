"""Training steps of a small transformer-like MLP, for scripts/gpu-check.sh.

  python3 torch_steps.py plain OUT.json [STEPS]   # time the steps (with or without the agent)
  python3 torch_steps.py profile OUT.json   # same steps under torch.profiler; writes OUT.json
                                            # and OUT.trace.json (Kineto)
Each step is timed with CUDA events; the first WARM steps are left out and the median of the rest
is the step time (in-process, so clock drift between two processes does not enter a comparison
within one run). The timed steps run inside an NVTX range "plasmient_steps" (the agent sees it
through CUPTI) and end with a device synchronize, so their kernels fall inside it.
"""
import json
import statistics
import sys

import torch

WARM, STEPS = 5, 30


def main():
    global STEPS
    mode, out = sys.argv[1], sys.argv[2]
    if len(sys.argv) > 3:
        STEPS = int(sys.argv[3])
    torch.manual_seed(0)
    dev = torch.device("cuda")
    width, batch = 2048, 4096
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

    for _ in range(WARM):  # cuBLAS heuristics, allocator, lazy init
        step()
    torch.cuda.synchronize()

    def run_steps():
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(STEPS)]
        torch.cuda.nvtx.range_push("plasmient_steps")
        for begin, end in events:
            begin.record()
            step()
            end.record()
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()
        return [b.elapsed_time(e) for b, e in events]

    result = {"mode": mode, "steps": STEPS, "warm": WARM, "width": width, "batch": batch}
    if mode == "profile":
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
    else:
        step_ms = run_steps()
    result["step_ms"] = step_ms
    result["step_ms_median"] = statistics.median(step_ms)
    result["event_ms_total"] = sum(step_ms)
    with open(out, "w") as f:
        json.dump(result, f)
    print(json.dumps({k: v for k, v in result.items() if k != "step_ms"}))


if __name__ == "__main__":
    main()
