"""analyze() and the Verdict it returns."""

from __future__ import annotations

import html
import json
import os
import warnings
from typing import Any, Iterable, Union

from . import _core

PathLike = Union[str, "os.PathLike[str]"]

# plasmient.Error: bad input or bad options; the message is the line the CLI prints (the file,
# the byte offset where it applies, the problem).
Error = _core.Error
Error.__module__ = "plasmient"

# The verdict's tables: attribute → key of plasmient.verdict/1 (docs/json-schema.md).
_TABLES = {
    "kernels": "top_kernels",
    "ops": "top_ops",
    "layers": "layers",
    "layer_types": "layer_types",
    "ranks": "per_rank",
    "steps": "per_step",
    "collectives": "collectives",
    "stragglers": "stragglers",
    "fixes": "fixes",
    "data_quality": "data_quality",
}


def _steps_flag(steps: Any) -> str:
    """A Python slice or "A:B" text, as --steps takes it."""
    if isinstance(steps, slice):
        if steps.step not in (None, 1):
            raise ValueError("steps: a slice with a stride is not supported")
        a = "" if steps.start is None else str(steps.start)
        b = "" if steps.stop is None else str(steps.stop)
        return f"{a}:{b}"
    return str(steps)


def analyze(
    paths: Union[PathLike, Iterable[PathLike]],
    *,
    steps: Any = None,
    gpu: str | None = None,
    model_flops_per_step: float | None = None,
    peak_tflops: float | None = None,
    peak_bandwidth_gbps: float | None = None,
    link_bandwidth_gbps: float | None = None,
    fp32_math: str | None = None,
    price_per_gpu_hour: float | None = None,
    target_mfu: float | None = None,
    top: int | None = None,
) -> "Verdict":
    """Analyzes one trace, a folder of per-rank traces, or a list of them, as
    ``plasmient analyze`` does, with the same options (``steps=":-1"`` or ``slice(1, -1)``,
    ``gpu="h100"``, ``model_flops_per_step=6 * params * tokens``, …).

    Raises plasmient.Error on unreadable input or bad options. A job with no GPU activity
    gives a verdict that says so, with a warning.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        paths = [paths]
    inputs = [os.fsdecode(p) for p in paths]
    options = {
        "steps": None if steps is None else _steps_flag(steps),
        "gpu": gpu,
        "model_flops_per_step": model_flops_per_step,
        "peak_tflops": peak_tflops,
        "peak_bandwidth_gbps": peak_bandwidth_gbps,
        "link_bandwidth_gbps": link_bandwidth_gbps,
        "fp32_math": fp32_math,
        "price_per_gpu_hour": price_per_gpu_hour,
        "target_mfu": target_mfu,
        "top": top,
    }
    # The keyword is the CLI's flag with '_' for '-': the engine checks the values.
    flags: list[str] = []
    for name, value in options.items():
        if value is not None:
            flags += ["--" + name.replace("_", "-"), repr(value) if isinstance(value, float) else str(value)]
    job = _core.analyze(inputs, flags)
    for line in job.warnings:
        warnings.warn(line, stacklevel=2)
    if job.no_gpu_activity:
        warnings.warn(job.no_gpu_activity, stacklevel=2)
    return Verdict(job)


def _table(rows: list) -> Any:
    """A DataFrame when pandas is installed (nested objects flattened to 'losses.memory_bound'),
    else the rows as a list of dicts."""
    try:
        import pandas
    except ImportError:
        return [dict(r) for r in rows]
    return pandas.json_normalize(rows) if rows else pandas.DataFrame()


class Verdict:
    """One job's verdict. Figures are attributes named as in ``plasmient analyze --json``
    (``achieved_fraction``, ``utilization``, ``losses``, ``mfu``, ``headroom``, ``bill``,
    ``device``, …); the tables (``kernels``, ``ops``, ``layers``, ``ranks``, ``steps``, …) are
    DataFrames with pandas, lists of dicts without. ``to_dict()`` is the CLI's JSON."""

    def __init__(self, job: Any):
        self._job = job
        self._json = job.json()
        self._data = json.loads(self._json)

    # The whole verdict, as plasmient analyze --json writes it.
    def to_dict(self) -> dict:
        return json.loads(self._json)

    def to_json(self) -> str:
        return self._json

    @property
    def title(self) -> str:
        return self._job.title

    @property
    def no_gpu_activity(self) -> str:
        """Why no rank had GPU activity; "" when one had."""
        return self._job.no_gpu_activity

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        if name in _TABLES:
            return _table(self._data.get(_TABLES[name], []))
        try:
            return self._data[name]
        except KeyError:
            raise AttributeError(f"Verdict has no figure {name!r}") from None

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(_TABLES) | set(self._data))

    # The outputs of the CLI: the terminal verdict and the HTML report.
    def text(self, details: bool = True, color: bool = False) -> str:
        return self._job.terminal(color, details)

    def show(self, details: bool = False) -> None:
        """Prints the verdict box (with details=True, also the tables under it)."""
        print(self.text(details=details), end="")

    def html(self) -> str:
        """The self-contained HTML report, as ``plasmient analyze --html`` writes it."""
        return self._job.html()

    def save_html(self, path: PathLike) -> None:
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html())

    def _repr_html_(self) -> str:
        # In a frame of its own: the report's page styles stay out of the notebook's.
        return (
            '<iframe style="width:100%;height:820px;border:0" title="Plasmient verdict" '
            f'srcdoc="{html.escape(self.html(), quote=True)}"></iframe>'
        )

    def __str__(self) -> str:
        return self.text(details=False)

    def __repr__(self) -> str:
        d = self._data
        if self.no_gpu_activity:
            return f"<plasmient.Verdict {self.title}: no GPU activity>"
        return (
            f"<plasmient.Verdict {self.title}: achieved {d['achieved_fraction']:.1%} of peak, "
            f"utilization {d['utilization']:.1%}, {len(d['per_rank'])} rank(s)>"
        )
