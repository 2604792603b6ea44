"""Two ranks doing all-reduces through NCCL, for scripts/gpu-check.sh (run under the agent).

  python3 nccl_allreduce.py OUT.json [COUNT=50]

Each rank uses its own GPU when there are two, else both share GPU 0: then each rank gets its
own NCCL_HOSTID (NCCL 2.28 compares host hashes, which honour it) with sockets on `lo` and IB off,
so NCCL takes them for two nodes and runs its NET path, KernelCh events included, on one GPU. The
result file says which happened. Each rank writes its own agent trace (RANK is set before CUDA
starts, so the file is named by rank). After the 4 MiB all-reduces, LATENCY_OPS all-reduces of
8 KiB are timed one by one (CUDA events); rank 0 writes their median, for the plugin's cost
(scripts/gpu-check.sh runs this with and without NCCL_PROFILER_PLUGIN).
"""
import statistics
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

ELEMENTS = 1 << 20  # float32: 4 MiB per all-reduce
LATENCY_OPS, LATENCY_ELEMENTS = 1000, 2048  # 8 KiB


def rank_main(rank, world, count, port, errors, latency_out):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    if torch.cuda.device_count() < world:  # one GPU: two "nodes" over sockets
        os.environ.update(NCCL_HOSTID=f"plasmient-rank{rank}", NCCL_SOCKET_IFNAME="lo",
                          NCCL_IB_DISABLE="1")
    try:
        device = rank if torch.cuda.device_count() >= world else 0
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                device_id=torch.device("cuda", device))
        x = torch.ones(ELEMENTS, device="cuda")
        for _ in range(count):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        small = torch.ones(LATENCY_ELEMENTS, device="cuda")
        times = []
        for _ in range(LATENCY_OPS):
            begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            begin.record()
            dist.all_reduce(small)
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end) * 1000)
        if rank == 0:
            with open(latency_out, "w") as f:
                json.dump({"latency_us_median": statistics.median(times), "ops": LATENCY_OPS}, f)
        dist.destroy_process_group()
    except Exception as e:  # reported to the parent; NCCL's own text says why
        errors.put(f"rank {rank}: {type(e).__name__}: {e}")
        raise


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    world = 2
    ctx = mp.get_context("spawn")
    errors = ctx.Queue()
    shared_gpu = torch.cuda.device_count() < world
    result = {"world": world, "count": count, "elements": ELEMENTS, "bytes": 4 * ELEMENTS,
              "shared_gpu": shared_gpu}
    try:
        latency_out = out + ".latency"
        mp.start_processes(rank_main, args=(world, count, 29511, errors, latency_out), nprocs=world,
                           start_method="spawn")
        result["ok"] = True
        with open(latency_out) as f:
            result.update(json.load(f))
    except Exception as e:
        result["ok"] = False
        msgs = []
        while not errors.empty():
            msgs.append(errors.get())
        result["error"] = "; ".join(msgs) or str(e)
    with open(out, "w") as f:
        json.dump(result, f)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
