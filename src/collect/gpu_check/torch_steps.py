"""A few training steps of a small transformer-like MLP, for scripts/gpu-check.sh.

  python3 torch_steps.py plain OUT.json     # time the steps (run with or without the agent)
  python3 torch_steps.py profile OUT.json   # same steps under torch.profiler; writes OUT.json
                                            # and OUT.trace.json (Kineto)
The steps run inside an NVTX range "plasmient_steps" (the agent sees it through CUPTI) and end
with a device synchronize, so kernels of the steps fall inside it.
"""
import json
import sys
import time

import torch


def main():
    mode, out = sys.argv[1], sys.argv[2]
    torch.manual_seed(0)
    dev = torch.device("cuda")
    width, batch, steps = 2048, 4096, 8
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

    for _ in range(3):  # warm-up: cuBLAS heuristics, allocator, lazy init
        step()
    torch.cuda.synchronize()

    def run_steps():
        torch.cuda.nvtx.range_push("plasmient_steps")
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        torch.cuda.synchronize()
        t1 = time.perf_counter()
        torch.cuda.nvtx.range_pop()
        return t1 - t0

    result = {"mode": mode, "steps": steps, "width": width, "batch": batch}
    if mode == "profile":
        from torch.profiler import ProfilerActivity, profile
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            result["seconds"] = run_steps()
        trace = out.replace(".json", ".trace.json")
        prof.export_chrome_trace(trace)
        with open(trace) as f:
            events = json.load(f)["traceEvents"]
        kernels = [e for e in events if e.get("cat") == "kernel"]
        result["kernels"] = len(kernels)
        result["kernel_us"] = sum(float(e.get("dur", 0)) for e in kernels)
        result["trace"] = trace
    else:
        result["seconds"] = run_steps()
    with open(out, "w") as f:
        json.dump(result, f)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
