"""plasmient.torch.drop_into_spool needs no PyTorch: a job folder that serve takes whole."""

import gzip
import os

import pytest

from plasmient.torch import drop_into_spool


def test_the_marker_comes_last_and_the_traces_are_gzipped(tmp_path):
    traces = []
    for r in range(2):
        p = tmp_path / f"rank-{r}.pt.trace.json"
        p.write_text('{"traceEvents": []}' + " " * r)
        traces.append(str(p))
    spool = tmp_path / "spool"
    spool.mkdir()
    folder = drop_into_spool(traces, str(spool), "job-1", {"user": "bob", "job": "nightly"})
    names = sorted(os.listdir(folder))
    assert names == [".done", "rank-0.pt.trace.json.gz", "rank-1.pt.trace.json.gz"]
    assert open(os.path.join(folder, ".done")).read() == "user=bob\njob=nightly\n"
    for r in range(2):
        with gzip.open(os.path.join(folder, f"rank-{r}.pt.trace.json.gz"), "rt") as f:
            assert f.read() == open(traces[r]).read()
    # The marker is written last: its modification time is not before any trace's.
    done = os.stat(os.path.join(folder, ".done")).st_mtime_ns
    assert all(os.stat(os.path.join(folder, n)).st_mtime_ns <= done for n in names)


def test_serve_records_the_dropped_job_with_its_labels(plasmient_bin, synth_job, tmp_path):
    import socket
    import sqlite3
    import subprocess
    import time

    import plasmient

    spool = tmp_path / "spool"
    spool.mkdir()
    traces = sorted(str(p) for p in synth_job.glob("rank-*.pt.trace.json"))
    with socket.socket() as s:  # a free loopback port for the metrics
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    serve = subprocess.Popen([plasmient_bin, "serve", "--spool", str(spool), "--listen", f"127.0.0.1:{port}",
                              "--poll-ms", "50"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        drop_into_spool(traces, str(spool), "job-2", {"user": "bob"})
        deadline = time.monotonic() + 120
        while not (spool / "done" / "job-2").exists():
            assert not (spool / "failed").exists() or not os.listdir(spool / "failed"), os.listdir(spool / "failed")
            assert serve.poll() is None, serve.stdout.read()
            assert time.monotonic() < deadline, "serve did not take the entry in 120 s"
            time.sleep(0.1)
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    with sqlite3.connect(spool / ".plasmient" / "store.sqlite") as db:
        rows = db.execute("SELECT user_label, ranks, achieved FROM jobs").fetchall()
    assert len(rows) == 1
    user, ranks, achieved = rows[0]
    assert (user, ranks) == ("bob", 2)
    assert achieved == pytest.approx(plasmient.analyze(traces).achieved_fraction, rel=1e-9)
