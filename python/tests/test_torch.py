"""plasmient.torch.profile on PyTorch, where it is installed (CPU-only PyTorch is enough).

On a CPU there are no GPU kernels: these tests show the plumbing (the profiler's settings and
schedule, the trace written and analyzed, the spool entry), not GPU figures; what the verdict says
of GPU traces is tested on real traces in test_analyze.py."""

import gzip
import json
import os

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed: plasmient.torch is not tested")
import plasmient.torch  # noqa: E402  (after the skip: it needs torch)


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 128)
        self.fc2 = torch.nn.Linear(128, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def test_profile_records_the_active_steps_and_analyzes_them(tmp_path, capsys):
    model, x = Tiny(), torch.randn(32, 64)
    with pytest.warns(UserWarning, match="no GPU activity"):
        with plasmient.torch.profile(tmp_path / "traces", wait=1, warmup=1, active=3) as prof:
            for _ in range(6):
                model(x).sum().backward()
                prof.step()
    trace = json.loads((tmp_path / "traces" / "rank-0.pt.trace.json").read_text())
    events = trace["traceEvents"]
    # The schedule: wait 1 + warmup 1, then 3 recorded steps (ProfilerStep#2..#4).
    steps = sorted({e["name"] for e in events if e.get("name", "").startswith("ProfilerStep#")})
    assert steps == ["ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4"]
    # The settings the verdict needs: input shapes on ops, the module tree.
    assert any(e.get("cat") == "cpu_op" and e.get("name") == "aten::addmm" and "Input Dims" in e.get("args", {})
               for e in events)
    assert any(e.get("name", "").startswith("nn.Module: Tiny") for e in events)
    assert prof.verdict is not None and prof.trace_path.endswith("rank-0.pt.trace.json")
    assert "no GPU activity" in prof.verdict.no_gpu_activity
    assert "plasmient" in capsys.readouterr().out  # the box was printed


def test_profile_says_when_too_few_steps_ran(tmp_path):
    with pytest.raises(RuntimeError, match="call step"):
        with plasmient.torch.profile(tmp_path, print_verdict=False) as prof:
            prof.step()


def test_profile_drops_the_job_into_a_spool(tmp_path):
    model, x = Tiny(), torch.randn(8, 64)
    spool = tmp_path / "spool"
    spool.mkdir()
    with pytest.warns(UserWarning):
        with plasmient.torch.profile(tmp_path / "t", print_verdict=False, spool=spool,
                                     labels={"user": "alice"}, with_stack=False) as prof:
            for _ in range(5):
                model(x)
                prof.step()
    (entry,) = spool.iterdir()
    assert entry.name.startswith("torch-")
    assert (entry / ".done").read_text() == "user=alice\n"
    with gzip.open(entry / "rank-0.pt.trace.json.gz", "rb") as f:
        assert f.read() == open(prof.trace_path, "rb").read()


def _distributed_rank(rank, world, port, out_dir, spool):
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    model, x = Tiny(), torch.randn(8, 64)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with plasmient.torch.profile(out_dir, print_verdict=False, with_stack=False, spool=spool) as prof:
            for _ in range(5):
                loss = model(x).sum()
                loss.backward()
                for p in model.parameters():
                    dist.all_reduce(p.grad)
                prof.step()
    # Rank 0 analyzed every rank's file; the others did not.
    result = None if prof.verdict is None else [r["rank"] for r in prof.verdict.to_dict()["per_rank"]]
    with open(os.path.join(out_dir, f"result-{rank}.json"), "w") as f:
        json.dump(result, f)
    dist.destroy_process_group()


def test_profile_in_a_torch_distributed_job_analyzes_every_rank_on_rank_0(tmp_path):
    import socket

    import torch.multiprocessing as mp

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out, spool = tmp_path / "traces", tmp_path / "spool"
    spool.mkdir()
    mp.spawn(_distributed_rank, args=(2, port, str(out), str(spool)), nprocs=2, join=True)
    assert json.loads((out / "result-0.json").read_text()) == [0, 1]
    assert json.loads((out / "result-1.json").read_text()) is None
    (entry,) = spool.iterdir()
    assert sorted(p.name for p in entry.iterdir()) == [".done", "rank-0.pt.trace.json.gz", "rank-1.pt.trace.json.gz"]
