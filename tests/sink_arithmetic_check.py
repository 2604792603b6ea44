#!/usr/bin/env python3
"""The sinks only format: no arithmetic on a verdict's figures outside the stages that make them.

A figure (seconds, FLOPs, bytes, dollars, a fraction of the window) is computed once, in the
verdict, cluster or job stage, and every sink, store row builder and metric reads it from the job
verdict as it is (job::CombineRanks assembles it once; README, "Layout"). This check reads the sinks' sources
and fails on a `+ - * /` (or its compound assignment) with a figure on either side, unless the
other side is a unit (100 for a percent, 1e3 for ms, 1e6 for MB, kNsPerS, ...): a new figure
belongs beside the others, as an accessor or a field of the verdict, where every sink shares it.

Timestamps (`*_ns`) are coordinates, placed by the sinks on their own origin (explain, Perfetto);
a duration in seconds made from them in a sink (`NsToSeconds(a - b)`) is a figure and is flagged.
The geometry of the charts and lanes (pixels per second: html_charts, html_layers, html_vertical,
html_icicle_zoom, perfetto_*) is layout, not a figure, and is not read here.

ALLOWED lists what a sink may add up, each with its reason; an entry that no longer matches any
line fails the check too, so the list stays true.
    sink_arithmetic_check.py [SRC]   SRC: the source tree's src/ (default: beside this file)
"""
import os
import re
import sys

SINKS = [
    "export/verdict_json_sink.cc",
    "export/terminal_sink.cc",
    "export/html_sink.cc",
    "export/html_whatif.cc",
    "export/whatif_sink.cc",
    "export/diff_sink.cc",
    "export/explain_sink.cc",
    "export/units_text.cc",
    "store/job_rows.cc",
    "serve/metrics.cc",
]

# (file, code on the line, why a sink may do this arithmetic)
ALLOWED = [
    ("serve/metrics.cc", "s.steps_sum_s += d;",
     "the step-time histogram's _sum: Prometheus's own format of the steps' durations"),
    ("serve/metrics.cc", "s.gpu_s += sample.gpu_s;",
     "a counter's running total over the job's analyses (the exposition's own state)"),
    ("serve/metrics.cc", "s.wasted_s += sample.wasted_s;",
     "a counter's running total over the job's analyses (the exposition's own state)"),
    ("serve/metrics.cc", "s.steps_sum_s += sample.steps_sum_s;",
     "a counter's running total over the job's analyses (the exposition's own state)"),
    ("serve/metrics.cc", "useful += w.achieved * w.gpu_s;",
     "the rolling figure over a job's last kernel windows: a sum across analyses, not one's figure"),
    ("serve/metrics.cc", "gpu += w.gpu_s;",
     "the rolling figure over a job's last kernel windows: a sum across analyses, not one's figure"),
    ("serve/metrics.cc", "w.lifetime_useful_s += sample.achieved * sample.gpu_s;",
     "the lifetime figure over a job's kernel windows: a sum across analyses"),
    ("serve/metrics.cc", "w.lifetime_gpu_s += sample.gpu_s;",
     "the lifetime figure over a job's kernel windows: a sum across analyses"),
    ("serve/metrics.cc", "w.lifetime_useful_s / w.lifetime_gpu_s",
     "the lifetime figure over a job's kernel windows: a ratio of sums across analyses"),
]

# A figure: seconds (…_s, wall_s, …), FLOPs, bytes, money, or a window's fraction accessor.
FIGURE = re.compile(
    r"(?:^|[.>:])(?:[a-z0-9_]*_s|[a-z0-9_]*flops|[a-z0-9_]*bytes|price[a-z0-9_]*|spend[a-z0-9_]*|"
    r"[a-z0-9_]*dollars|computed|paid_never_computed|addressable|wasted[a-z0-9_]*|gpu_hours)(?:\(\))?$"
    r"|(?:^|[.>])(?:achieved|utilization|loss|achieved_fraction|loss_fraction|lost|lost_s)\(")
# What may scale a figure: a unit.
UNIT = re.compile(r"(?:100|1000|1024|3600|60|1e-?\d+)(?:\.0*)?|k[A-Z][A-Za-z]*Per[A-Za-z]+")
OPERAND = r"(?:[A-Za-z_]\w*(?:(?:\.|->|::)[A-Za-z_]\w*)*(?:\([^()]*\))?(?:\[[^\]]*\])?|\d[\d.]*(?:e-?\d+)?)"
BINARY = re.compile(r"(" + OPERAND + r")\s*([-+*/])(?![=+-])\s*(" + OPERAND + r")")
COMPOUND = re.compile(r"(" + OPERAND + r")\s*([-+*/])=\s*([^;]+);")
DURATION = re.compile(r"NsToSeconds\([^()]*\w_ns\s*-\s*[^()]*\)")


def code_of(line):
    """The line without its string and character literals and its comment."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(?:\\.|[^'\\])*'", "''", line)
    return line.split("//")[0]


def findings(rel, text):
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        code = code_of(raw)
        if not code.strip() or code.lstrip().startswith("#"):
            continue
        hits = []
        for m in BINARY.finditer(code):
            a, op, b = m.groups()
            fa, fb = bool(FIGURE.search(a)), bool(FIGURE.search(b))
            if not (fa or fb):
                continue
            if op in "*/" and UNIT.fullmatch(b if fa else a):
                continue
            hits.append(m.group(0))
        for m in COMPOUND.finditer(code):
            target, op, value = m.groups()
            value = value.strip()
            # `out += Text(f.achieved())` appends text; a figure added to a number is arithmetic.
            if FIGURE.search(target) or (re.fullmatch(OPERAND, value) and FIGURE.search(value)):
                hits.append(m.group(0))
        hits += [m.group(0) for m in DURATION.finditer(code)]
        for h in hits:
            out.append((rel, n, raw.strip(), h))
    return out


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
    problems, used = [], set()
    for rel in SINKS:
        path = os.path.join(src, rel)
        if not os.path.isfile(path):
            problems.append(f"{rel}: listed as a sink but not found")
            continue
        for rel_, n, line, hit in findings(rel, open(path, encoding="utf-8").read()):
            allowed = [i for i, (f, code, _) in enumerate(ALLOWED) if f == rel_ and code in line]
            if allowed:
                used.update(allowed)
                continue
            problems.append(f"src/{rel_}:{n}: arithmetic on a figure in a sink ({hit}): {line}")
    for i, (f, code, why) in enumerate(ALLOWED):
        if i not in used:
            problems.append(f"src/{f}: ALLOWED entry matches no line any more: {code!r} ({why})")
    for p in problems:
        print(p)
    if problems:
        print(f"sink_arithmetic_check: {len(problems)} problem(s): compute the figure in the verdict, "
              "cluster or job stage, where every sink reads it", file=sys.stderr)
        return 1
    print(f"sink_arithmetic_check: {len(SINKS)} sinks only format ({len(ALLOWED)} allowed sums)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
