"""The live tests' reading of a /metrics page (Prometheus text format) and their PASS/FAIL lines."""
import re


def series(text, name, **labels):
    """The values of every `name` series whose labels include `labels`."""
    out = []
    for line in text.splitlines():
        m = re.match(name + r"\{(.*)\} (\S+)$", line)
        if not m:
            continue
        got = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1)))
        if all(got.get(k) == v for k, v in labels.items()):
            out.append(float(m.group(2)))
    return out


class Checks:
    """Prints one PASS or FAIL line per check; exit_code() is 1 when any failed."""

    def __init__(self):
        self.failed = []

    def check(self, name, ok, detail):
        print(("PASS " if ok else "FAIL ") + name + ": " + detail)
        if not ok:
            self.failed.append(name)

    def exit_code(self):
        return 1 if self.failed else 0
