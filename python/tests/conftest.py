"""Fixtures: the plasmient executable beside the package, a generated job, the real traces."""

import os
import pathlib
import shutil
import subprocess

import pytest


@pytest.fixture(scope="session")
def plasmient_bin() -> str:
    """The CLI the package is compared with: PLASMIENT_BIN (ctest), else the one on PATH (the
    wheel installs it)."""
    path = os.environ.get("PLASMIENT_BIN") or shutil.which("plasmient")
    if not path:
        pytest.fail("no plasmient executable: set PLASMIENT_BIN or install the wheel")
    return path


def run_cli(plasmient_bin, *args, check=True):
    r = subprocess.run([plasmient_bin, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"plasmient {' '.join(map(str, args))}: exit {r.returncode}: {r.stderr}")
    return r


@pytest.fixture(scope="session")
def synth_job(plasmient_bin, tmp_path_factory) -> pathlib.Path:
    """A generated 2-rank job with a straggler (plasmient synth), one file per rank."""
    out = tmp_path_factory.mktemp("synth") / "job"
    run_cli(plasmient_bin, "synth", "--scenario", "straggler", "--ranks", "2", "--steps", "4", "-o", out)
    return out


@pytest.fixture(scope="session")
def shared_traces() -> pathlib.Path:
    """The real traces (shared/traces beside the repository, or PLASMIENT_SHARED_TRACES)."""
    env = os.environ.get("PLASMIENT_SHARED_TRACES")
    path = pathlib.Path(env) if env else pathlib.Path(__file__).resolve().parents[3] / "shared" / "traces"
    if not (path / "MANIFEST.md").is_file():
        pytest.skip(f"shared traces folder absent ({path}): real-trace tests skipped")
    return path
