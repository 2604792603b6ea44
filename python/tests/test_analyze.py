"""plasmient.analyze against the CLI it shares its engine with, and against raw trace events."""

import gzip
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

import plasmient
from conftest import run_cli


def cli_json(plasmient_bin, tmp_path, *args):
    out = tmp_path / "cli.json"
    run_cli(plasmient_bin, "analyze", *args, "--json", out, "-q")
    return json.loads(out.read_text())


def raw_events(path):
    with gzip.open(path, "rt") if str(path).endswith(".gz") else open(path) as f:
        return json.load(f)["traceEvents"]


def profiler_steps(events):
    """The N of every ProfilerStep#N annotation, counted from the raw events."""
    return sorted({int(e["name"].split("#")[1]) for e in events if e.get("name", "").startswith("ProfilerStep#")})


def test_verdict_equals_cli_json_on_a_generated_job(plasmient_bin, synth_job, tmp_path):
    v = plasmient.analyze(synth_job)
    assert v.to_dict() == cli_json(plasmient_bin, tmp_path, synth_job)
    assert v.achieved_fraction == v.to_dict()["achieved_fraction"]
    assert 0 < v.achieved_fraction < 1
    assert abs(v.achieved_fraction + sum(v.losses.values()) - 1) < 1e-9


def test_options_reach_the_engine_as_the_cli_flags_do(plasmient_bin, synth_job, tmp_path):
    v = plasmient.analyze(synth_job, steps=slice(1, None), gpu="a100_sxm_80gb", top=3,
                          model_flops_per_step=1.5e15, price_per_gpu_hour=2.5)
    expected = cli_json(plasmient_bin, tmp_path, synth_job, "--steps", "1:", "--gpu", "a100_sxm_80gb",
                        "--top", "3", "--model-flops-per-step", "1.5e15", "--price-per-gpu-hour", "2.5")
    assert v.to_dict() == expected
    assert v.device["key"] == "a100_sxm_80gb"
    assert v.bill["price_per_gpu_hour"] == 2.5
    assert len(v.to_dict()["top_kernels"]) == 3
    # steps=slice(1, None) dropped the first ProfilerStep of each rank's raw trace.
    for rank_file in sorted(synth_job.glob("rank-*.pt.trace.json")):
        rank = int(rank_file.name.split("-")[1].split(".")[0])
        kept = sorted(s["step"] for s in v.to_dict()["per_step"] if s["rank"] == rank)
        assert kept == profiler_steps(raw_events(rank_file))[1:]


def test_tables_are_dataframes_with_pandas(synth_job):
    pandas = pytest.importorskip("pandas", reason="pandas is not installed: the DataFrame tables are not tested")
    v = plasmient.analyze(synth_job)
    d = v.to_dict()
    for attr, key in [("kernels", "top_kernels"), ("ops", "top_ops"), ("layers", "layers"),
                      ("ranks", "per_rank"), ("steps", "per_step")]:
        table = getattr(v, attr)
        assert isinstance(table, pandas.DataFrame), attr
        assert len(table) == len(d[key]), attr
    assert list(v.kernels["name"]) == [k["name"] for k in d["top_kernels"]]
    # Nested figures are flattened: one column per loss.
    assert v.ranks["losses.exposed_communication"].tolist() == [
        r["losses"]["exposed_communication"] for r in d["per_rank"]]
    # One row per (rank, ProfilerStep) of the raw traces.
    expected = sorted((int(f.name.split("-")[1].split(".")[0]), n)
                      for f in synth_job.glob("rank-*.pt.trace.json") for n in profiler_steps(raw_events(f)))
    assert sorted(zip(v.steps["rank"], v.steps["step"])) == expected


def test_tables_are_lists_without_pandas(synth_job, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    v = plasmient.analyze(synth_job)
    assert v.kernels == v.to_dict()["top_kernels"]
    assert isinstance(v.steps, list) and v.steps == v.to_dict()["per_step"]


def test_text_and_html_are_the_cli_outputs(plasmient_bin, synth_job, tmp_path):
    v = plasmient.analyze(synth_job)
    html_path = tmp_path / "cli.html"
    box = run_cli(plasmient_bin, "analyze", synth_job, "--brief", "--no-color", "--html", html_path).stdout
    assert v.text(details=False) == box
    assert str(v) == box
    assert v.html() == html_path.read_text()
    assert v.title == "2 ranks"
    assert "2 rank(s)" in repr(v)


def test_repr_html_frames_the_report(synth_job):
    import html

    page = plasmient.analyze(synth_job)._repr_html_()
    m = re.fullmatch(r'<iframe [^>]*srcdoc="([^"]*)"></iframe>', page, re.S)
    assert m, page[:200]
    inner = html.unescape(m.group(1))
    assert 'id="verdict"' in inner and 'id="waterfall"' in inner


def test_bad_input_raises_naming_the_file(tmp_path):
    bad = tmp_path / "bad.pt.trace.json"
    bad.write_text('{"traceEvents": [{"ph": "X", "name": ')
    with pytest.raises(plasmient.Error, match=re.escape(str(bad))):
        plasmient.analyze(bad)
    truncated = tmp_path / "cut.json.gz"
    truncated.write_bytes(gzip.compress(b'{"traceEvents": [' + b'{"ph":"X"},' * 1000)[:200])
    with pytest.raises(plasmient.Error, match=re.escape(str(truncated))):
        plasmient.analyze(truncated)
    missing = tmp_path / "nothing-here.json"
    with pytest.raises(plasmient.Error, match="nothing-here.json: no such file"):
        plasmient.analyze(missing)


def test_bad_options_raise_the_cli_message(synth_job):
    with pytest.raises(plasmient.Error, match="'no_such_gpu'"):
        plasmient.analyze(synth_job, gpu="no_such_gpu")
    with pytest.raises(plasmient.Error, match="--steps"):
        plasmient.analyze(synth_job, steps="one:two")
    with pytest.raises(ValueError, match="stride"):
        plasmient.analyze(synth_job, steps=slice(0, 4, 2))


def test_real_two_rank_job_equals_cli_and_raw_events(plasmient_bin, shared_traces, tmp_path):
    files = [shared_traces / "hta" / "trace_filter" / f"sampled_rank-{r}.json.gz" for r in (0, 1)]
    v = plasmient.analyze(files)
    assert v.to_dict() == cli_json(plasmient_bin, tmp_path, *files)
    for f in files:
        events = raw_events(f)
        with gzip.open(f, "rt") as g:
            rank = json.load(g)["distributedInfo"]["rank"]
        row = next(r for r in v.to_dict()["per_rank"] if r["rank"] == rank)
        assert row["path"] == str(f)
        steps = sorted(s["step"] for s in v.to_dict()["per_step"] if s["rank"] == rank)
        assert steps == profiler_steps(events)


def test_real_trace_with_modules_equals_cli(plasmient_bin, shared_traces, tmp_path):
    trace = shared_traces / "tracelens" / "h100" / "Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"
    v = plasmient.analyze(trace)
    assert v.to_dict() == cli_json(plasmient_bin, tmp_path, trace)
    assert v.device["key"].startswith("h100")  # deviceProperties name "NVIDIA H100 80GB HBM3"
    assert v.title == trace.name


def test_a_trace_without_gpu_activity_warns(plasmient_bin, shared_traces):
    trace = next((shared_traces / "hta" / "cpu_only").glob("*.json.gz"))
    assert not [e for e in raw_events(trace) if e.get("cat") == "kernel"]
    with pytest.warns(UserWarning, match="no GPU activity"):
        v = plasmient.analyze(trace)
    assert str(trace) in v.no_gpu_activity
    assert run_cli(plasmient_bin, "analyze", trace, "-q", check=False).returncode == 3


def test_notebook_html_renders_in_headless_chromium(synth_job, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        pytest.skip("no chromium on PATH (scripts/install-deps.sh installs it)")
    # A page as a notebook shows an output cell: the repr inside the notebook's own document.
    page = tmp_path / "notebook.html"
    page.write_text("<!doctype html><html><body style='margin:0;background:#fff'><div class='output'>"
                    + plasmient.analyze(synth_job)._repr_html_() + "</div></body></html>")
    shot = tmp_path / "notebook.png"
    flags = ["--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--proxy-server=127.0.0.1:9",
             "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={tmp_path / 'profile'}",
             "--hide-scrollbars", "--window-size=1280,900", f"--screenshot={shot}", page.as_uri()]
    subprocess.run([chromium, *flags], capture_output=True, timeout=120, check=True)
    # The outer page alone is white: colours in the shot are the report drawn inside the frame.
    png_colors = pathlib.Path(__file__).resolve().parents[2] / "tests" / "png_colors.py"
    r = subprocess.run([sys.executable, png_colors, shot, "40"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
