"""plasmient.torch.profile: torch.profiler with the settings the verdict needs, and the verdict
at the end.

    with plasmient.torch.profile() as prof:
        for batch in loader:
            train_step(batch)
            prof.step()
    prof.verdict.kernels

It records CPU and (where CUDA is available) GPU activity with input shapes (for the FLOP
models) and stacks (they carry the nn.Module events of the layer table), over a schedule of
``wait`` skipped steps, ``warmup`` steps and ``active`` recorded steps (one cycle), writes
``rank-N.pt.trace.json`` into ``out_dir``, analyzes it (every rank's file, on rank 0 of an
initialized torch.distributed job), prints the verdict box, and, given a ``spool``, drops the job into a ``plasmient serve`` spool (docs/fleet.md, the spool protocol).
"""

from __future__ import annotations

import gzip
import os
import shutil
import socket
import time
from typing import Any, Mapping, Optional

from ._verdict import Verdict, analyze


def _rank_and_world() -> tuple[int, int, Any]:
    """(rank, world size, torch.distributed when a process group is up, else None)."""
    try:
        import torch.distributed as dist
    except ImportError:
        return 0, 1, None
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size(), dist
    return 0, 1, None


def drop_into_spool(trace_files: list[str], spool: str, name: str, labels: Optional[Mapping[str, str]] = None) -> str:
    """Drops one job (one trace file per rank) into a serve spool as a folder: the traces,
    gzipped, then the `.done` marker with the labels, last. Returns the folder."""
    folder = os.path.join(spool, name)
    os.makedirs(folder)
    for path in trace_files:
        base = os.path.basename(path)
        with open(path, "rb") as src, gzip.open(os.path.join(folder, base + ".gz"), "wb") as dst:
            shutil.copyfileobj(src, dst)
    marker = os.path.join(folder, ".done")
    with open(marker + ".tmp", "w", encoding="utf-8") as f:
        for key, value in (labels or {}).items():
            f.write(f"{key}={value}\n")
    os.replace(marker + ".tmp", marker)
    return folder


class profile:
    """A context manager around ``torch.profiler.profile``; call ``step()`` once per training
    step. After the block, ``verdict`` holds the Verdict (None on ranks other than 0) and
    ``trace_path`` the trace this process wrote. ``analyze_options`` go to plasmient.analyze
    (``gpu=``, ``model_flops_per_step=``, …)."""

    def __init__(
        self,
        out_dir: str = "plasmient-traces",
        *,
        wait: int = 1,
        warmup: int = 1,
        active: int = 3,
        with_stack: bool = True,
        print_verdict: bool = True,
        spool: Optional[str] = None,
        labels: Optional[Mapping[str, str]] = None,
        **analyze_options: Any,
    ):
        self.out_dir = out_dir
        self.wait, self.warmup, self.active = wait, warmup, active
        self.with_stack = with_stack
        self.print_verdict = print_verdict
        self.spool = spool
        self.labels = labels
        self.analyze_options = analyze_options
        self.verdict: Optional[Verdict] = None
        self.trace_path: Optional[str] = None
        self._profiler: Any = None

    def __enter__(self) -> "profile":
        import torch
        from torch.profiler import ProfilerActivity, schedule

        activities = [ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(ProfilerActivity.CUDA)
        rank, _, _ = _rank_and_world()
        os.makedirs(self.out_dir, exist_ok=True)
        self.trace_path = os.path.join(self.out_dir, f"rank-{rank}.pt.trace.json")
        # No with_modules: it serves TorchScript models only; eager models' nn.Module events come
        # with the stacks.
        self._profiler = torch.profiler.profile(
            activities=activities,
            schedule=schedule(wait=self.wait, warmup=self.warmup, active=self.active, repeat=1),
            on_trace_ready=lambda p: p.export_chrome_trace(self.trace_path),
            record_shapes=True,
            with_stack=self.with_stack,
        )
        self._profiler.__enter__()
        return self

    def step(self) -> None:
        self._profiler.step()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._profiler.__exit__(exc_type, exc, tb)
        if exc_type is not None:
            return
        if not os.path.exists(self.trace_path):
            raise RuntimeError(
                f"{self.trace_path}: torch.profiler wrote no trace: call step() at least "
                f"wait + warmup + active = {self.wait + self.warmup + self.active} times"
            )
        rank, world, dist = _rank_and_world()
        if dist is not None:
            dist.barrier()  # every rank's trace is written before rank 0 reads them
        if rank != 0:
            return
        files = [os.path.join(self.out_dir, f"rank-{r}.pt.trace.json") for r in range(world)]
        self.verdict = analyze(files, **self.analyze_options)
        if self.print_verdict:
            self.verdict.show()
        if self.spool is not None:
            name = f"torch-{socket.gethostname()}-{os.getpid()}-{time.strftime('%Y%m%dT%H%M%S')}"
            drop_into_spool(files, self.spool, name, self.labels)
