"""Plasmient: of the arithmetic a GPU job paid for, how much did useful work, where the rest went,
what to change and what it costs.

    >>> import plasmient
    >>> v = plasmient.analyze("trace.pt.trace.json.gz")
    >>> v.achieved_fraction, v.losses["exposed_communication"]
    >>> v.kernels           # a pandas DataFrame when pandas is installed, else a list of dicts

``plasmient.torch.profile`` wraps ``torch.profiler`` and analyzes the trace it writes.
The engine is the C++ one of the ``plasmient`` command: ``Verdict.to_dict()`` equals
``plasmient analyze --json`` (docs/json-schema.md).
"""

from ._verdict import Error, Verdict, analyze

__all__ = ["Error", "Verdict", "analyze"]
__version__ = "0.1.0"
