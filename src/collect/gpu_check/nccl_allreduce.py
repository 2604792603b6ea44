"""Two ranks doing all-reduces through NCCL, for scripts/gpu-check.sh (run under the agent).

  python3 nccl_allreduce.py OUT.json [COUNT=50]

Each rank uses its own GPU when there are two, else both share GPU 0, which NCCL may refuse
("Duplicate GPU detected"); the result file says which happened. Each rank writes its own agent
trace (RANK is set before CUDA starts, so the file is named by rank).
"""
import json
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

ELEMENTS = 1 << 20  # float32: 4 MiB per all-reduce


def rank_main(rank, world, count, port, errors):
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world),
                      MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    try:
        device = rank if torch.cuda.device_count() >= world else 0
        torch.cuda.set_device(device)
        dist.init_process_group("nccl", rank=rank, world_size=world,
                                device_id=torch.device("cuda", device))
        x = torch.ones(ELEMENTS, device="cuda")
        for _ in range(count):
            dist.all_reduce(x)
        torch.cuda.synchronize()
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
        mp.start_processes(rank_main, args=(world, count, 29511, errors), nprocs=world,
                           start_method="spawn")
        result["ok"] = True
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
