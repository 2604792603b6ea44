#!/usr/bin/env python3
"""Writes a small, valid Kineto (PyTorch profiler) trace for the fleet tests.

make_trace.py OUT --rank R --world W --seed S [--steps N] [--gemms K] [--slow-comm] [--modules]
Each step: K bf16 GEMMs (aten::mm with Input Dims), an elementwise add, and one NCCL
all-reduce (record_param_comms + ncclDevKernel). --seed varies durations, so every trace's
bytes differ; the rank given --slow-comm waits longer in each all-reduce (it arrived first).
--modules puts GEMM g of each step in the module Linear_g (an `nn.Module: Linear_g` range, as
with_stack records it): the module type Linear holds every GEMM kernel.
"""
import argparse
import gzip
import json
import random

p = argparse.ArgumentParser()
p.add_argument("out")
p.add_argument("--rank", type=int, default=0)
p.add_argument("--world", type=int, default=1)
p.add_argument("--seed", type=int, default=0)
p.add_argument("--steps", type=int, default=4)
p.add_argument("--gemms", type=int, default=4)
p.add_argument("--slow-comm", action="store_true")
p.add_argument("--modules", action="store_true")
a = p.parse_args()
rnd = random.Random(a.seed * 1000 + a.rank)

pid, tid = 1000 + a.rank, 1000 + a.rank
ev = [{"name": "process_name", "ph": "M", "pid": pid, "tid": 0, "args": {"name": "python"}}]
t = 1_700_000_000_000_000 + a.seed * 10_000_000  # epoch microseconds
gpu_t = t
corr = 0
seq = 0


def launch(op_name, dims, types, kernel, dur_us, extra_args=None):
    global t, gpu_t, corr
    corr += 1
    op_start = t
    args = {"External id": corr, "Input Dims": dims, "Input type": types}
    if extra_args:
        args.update(extra_args)
    ev.append({"ph": "X", "cat": "cpu_op", "name": op_name, "pid": pid, "tid": tid, "ts": op_start, "dur": 12, "args": args})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": pid, "tid": tid, "ts": op_start + 2,
               "dur": 6, "args": {"correlation": corr, "cbid": 211}})
    k_start = max(gpu_t, op_start + 10)
    kargs = {"device": a.rank, "stream": 7, "correlation": corr, "External id": corr, "grid": [132, 1, 1], "block": [256, 1, 1]}
    if extra_args:
        kargs.update(extra_args)
    ev.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": k_start, "dur": dur_us, "args": kargs})
    gpu_t = k_start + dur_us
    t = op_start + 14


for step in range(a.steps):
    step_start = t
    for g in range(a.gemms):
        m = 4096
        module_start = t
        t += 1 if a.modules else 0  # the op starts inside the module range
        launch("aten::mm", [[m, 4096], [4096, 4096]], ["c10::BFloat16", "c10::BFloat16"],
               "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
               rnd.randint(400, 700))
        if a.modules:
            ev.append({"ph": "X", "cat": "python_function", "name": f"nn.Module: Linear_{g}", "pid": pid, "tid": tid,
                       "ts": module_start, "dur": t - module_start + 1, "args": {}})
            t += 1
    launch("aten::add", [[4096, 4096], [4096, 4096]], ["c10::BFloat16", "c10::BFloat16"],
           "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>", rnd.randint(80, 120))
    if a.world > 1:
        comm = {"Collective name": "allreduce", "In msg nelems": 16777216, "Out msg nelems": 16777216, "Group size": a.world,
                "dtype": "BFloat16", "Process Group Name": "0", "Process Group Ranks": str(list(range(a.world))),
                "Sequence number": seq}
        seq += 1
        launch("record_param_comms", [], [], "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)",
               (900 if a.slow_comm else 300) + rnd.randint(0, 50), comm)
    t = max(t, gpu_t) + rnd.randint(50, 150)  # host work before the next step
    ev.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step}", "pid": pid, "tid": tid,
               "ts": step_start - 1, "dur": t - step_start, "args": {"External id": 100000 + step}})

doc = {
    "schemaVersion": 1,
    "distributedInfo": {"backend": "nccl", "rank": a.rank, "world_size": a.world},
    "deviceProperties": [{"id": a.rank, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85520809984, "computeMajor": 9,
                          "computeMinor": 0, "numSms": 132}],
    "traceEvents": ev,
}
data = json.dumps(doc).encode()
if a.out.endswith(".gz"):
    data = gzip.compress(data, 1)
with open(a.out, "wb") as f:
    f.write(data)
