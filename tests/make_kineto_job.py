#!/usr/bin/env python3
"""Writes a small two-rank PyTorch-profiler (Kineto JSON) job for report rendering tests.

Each rank runs N training steps: a forward and backward of bf16 GEMMs, elementwise kernels, an
all-reduce partly hidden under backward, an optimizer step and a data-loading gap. Rank 1 is
slower to arrive at the all-reduce, so rank 0 waits. Usage: make_kineto_job.py OUT_DIR [STEPS]
"""
import json
import os
import sys


def rank_trace(rank, steps):
    ev = []
    corr = [1000]
    ext = [1]

    def op(name, ts, dur, dims=None, types=None, tid=1):
        args = {"External id": ext[0]}
        if dims is not None:
            args["Input Dims"] = dims
            args["Input type"] = types
        ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 100 + rank, "tid": tid, "ts": ts, "dur": dur,
                   "args": args})
        ext[0] += 1
        return ext[0] - 1

    def launch_kernel(name, host_ts, gpu_ts, gpu_dur, stream=7, external=0, extra=None):
        c = corr[0]
        corr[0] += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100 + rank, "tid": 1,
                   "ts": host_ts, "dur": 4, "args": {"correlation": c, "External id": external}})
        args = {"correlation": c, "stream": stream, "device": rank, "External id": external}
        args.update(extra or {})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": rank, "tid": stream, "ts": gpu_ts,
                   "dur": gpu_dur, "args": args})

    bf16 = ["c10::BFloat16", "c10::BFloat16"]
    t = 1000.0
    for s in range(steps):
        step_len = 9000.0 + (1500.0 if s == 3 else 0.0)  # step 3 has a slow data-loading gap
        ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s, "pid": 100 + rank, "tid": 1,
                   "ts": t, "dur": step_len})
        ev.append({"ph": "X", "cat": "user_annotation", "name": "model.forward", "pid": 100 + rank, "tid": 1,
                   "ts": t + 10, "dur": 2500})
        g = t + 900.0 + (300.0 if s == 3 else 0.0)  # GPU starts after the data loader
        h = t + 20
        for layer in range(4):
            e = op("aten::mm", h, 60, [[8192, 4096], [4096, 4096]], bf16)
            launch_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", h + 5, g, 380.0, external=e)
            g += 380.0
            e = op("aten::gelu", h + 70, 30, [[8192, 4096]], ["c10::BFloat16"])
            launch_kernel("vectorized_elementwise_kernel<4, GeluCUDAKernelImpl>", h + 75, g, 90.0, external=e)
            g += 90.0 + 15.0
            h += 110
        ev.append({"ph": "X", "cat": "user_annotation", "name": "model.backward", "pid": 100 + rank, "tid": 1,
                   "ts": t + 2600, "dur": 3600})
        h = t + 2610
        for layer in range(4):
            e = op("aten::mm", h, 60, [[4096, 8192], [8192, 4096]], bf16)
            launch_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64", h + 5, g, 420.0, external=e)
            g += 420.0 + 10.0
            e = op("aten::mm", h + 70, 60, [[8192, 4096], [4096, 4096]], bf16)
            launch_kernel("sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64", h + 75, g, 400.0, external=e)
            g += 400.0 + 10.0
            h += 150
        # all-reduce of the gradients: rank 1 arrives late, rank 0 waits
        e = op("nccl:all_reduce", h, 40)
        ar_start = g - 800.0 + (0.0 if rank == 1 else -300.0)
        launch_kernel("ncclDevKernel_AllReduce_Sum_bf16_RING_LL", h + 5, ar_start, 2100.0 + (300.0 if rank == 0 else 0.0),
                      stream=13, external=e,
                      extra={"Collective name": "allreduce", "In msg nelems": 16777216, "Out msg nelems": 16777216,
                             "dtype": "BFloat16", "Group size": 2, "Process Group Name": "0",
                             "Process Group Ranks": "[0, 1]", "Seq": s})
        g = max(g, ar_start + 2100.0 + (300.0 if rank == 0 else 0.0)) + 20
        e = op("aten::_foreach_add_", h + 60, 40, [[16777216], [16777216]], bf16)
        launch_kernel("multi_tensor_apply_kernel<AdamW>", h + 65, g, 700.0, external=e)
        t += step_len
    props = [{"id": rank, "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85045477376,
              "computeMajor": 9, "computeMinor": 0, "numSms": 132}]
    return {"schemaVersion": 1, "deviceProperties": props,
            "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
            "traceEvents": ev, "displayTimeUnit": "ms"}


def main():
    out = sys.argv[1]
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    os.makedirs(out, exist_ok=True)
    for rank in (0, 1):
        with open(os.path.join(out, "rank%d.pt.trace.json" % rank), "w") as f:
            json.dump(rank_trace(rank, steps), f)


if __name__ == "__main__":
    main()
