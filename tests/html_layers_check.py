#!/usr/bin/env python3
"""Checks the model-layer section of a rendered HTML report (the DOM Chromium dumped) against the
--json output of the same analysis: every icicle box's figures equal its `layers` node's, every
"more" box holds exactly the nodes not drawn under its parent, widths are proportional to GPU
time and children sit inside their parent, and the type table follows `layer_types`.

Usage: html_layers_check.py DOM_HTML VERDICT_JSON
"""
import json
import sys
from html.parser import HTMLParser


class Boxes(HTMLParser):
    def __init__(self):
        super().__init__()
        self.boxes, self.types = [], []
        self.box = None  # the <g> being read
        self.in_title = False
        self.svg_width = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and a.get("id") == "icicle":
            self.svg_width = float(a["viewbox"].split()[2] if "viewbox" in a else a["viewBox"].split()[2])
        elif tag == "g" and "box" in a.get("class", "").split():
            self.box = {"attrs": a, "title": "", "rect": None}
            self.boxes.append(self.box)
        elif tag == "rect" and self.box is not None and self.box["rect"] is None:
            self.box["rect"] = {k: float(a[k]) for k in ("x", "y", "width", "height")}
        elif tag == "title" and self.box is not None:
            self.in_title = True
        elif tag == "tr" and "data-type" in a:
            self.types.append(a["data-type"])

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag == "g":
            self.box = None

    def handle_data(self, data):
        if self.in_title and self.box is not None:
            self.box["title"] += data


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def main():
    dom_path, json_path = sys.argv[1], sys.argv[2]
    parser = Boxes()
    parser.feed(open(dom_path, encoding="utf-8").read())
    verdict = json.load(open(json_path, encoding="utf-8"))
    nodes = verdict["layers"]
    if not parser.boxes:
        fail(f"{dom_path}: no icicle boxes in the rendered DOM")
    if parser.svg_width is None:
        fail(f"{dom_path}: no <svg id=icicle>")
    by_path = {n["path"]: n for n in nodes}
    total = sum(n["gpu_time_s"] for n in nodes if n["depth"] == 0)
    px_per_s = parser.svg_width / total

    drawn = {}
    for b in parser.boxes:
        a = b["attrs"]
        if "data-path" not in a:
            continue
        path = a["data-path"]
        if path not in by_path:
            fail(f"box {path!r} is not a node of the JSON layers")
        n = by_path[path]
        # Written as the JSON writes numbers: the same double, so equal exactly.
        for attr, key in (("data-gpu-time-s", "gpu_time_s"), ("data-share", "share_of_window"),
                          ("data-achieved", "achieved_fraction")):
            if float(a[attr]) != n[key]:
                fail(f"{path}: {attr}={a[attr]} but the JSON has {key}={n[key]!r}")
        if path not in b["title"]:
            fail(f"{path}: the hover text does not name it: {b['title'][:80]!r}")
        r = b["rect"]
        want = max(n["gpu_time_s"] * px_per_s, 0.5)
        if abs(r["width"] - want) > 0.011:
            fail(f"{path}: width {r['width']} px, GPU time says {want:.3f} px")
        drawn[path] = r

    # Children inside their parent, one row below it.
    for path, r in drawn.items():
        parent = nodes[by_path[path]["parent"]]["path"] if by_path[path]["parent"] >= 0 else None
        if parent is None:
            continue
        if parent not in drawn:
            fail(f"{path} is drawn but its parent {parent} is not")
        p = drawn[parent]
        if r["x"] < p["x"] - 0.011 or r["x"] + r["width"] > p["x"] + p["width"] + 0.02:
            fail(f"{path} spills out of {parent}: [{r['x']}, +{r['width']}] in [{p['x']}, +{p['width']}]")
        if abs(r["y"] - p["y"] - r["height"] - 1) > 0.05:
            fail(f"{path} is not in the row below {parent}")

    # Every node with GPU time under a drawn parent is drawn, or counted in its parent's "more" box.
    more = {b["attrs"]["data-parent"]: b for b in parser.boxes if "data-parent" in b["attrs"]}
    folded = {}
    for n in nodes:
        if n["gpu_time_s"] <= 0 or n["path"] in drawn:
            continue
        parent = nodes[n["parent"]]["path"] if n["parent"] >= 0 else ""
        if parent and parent not in drawn:
            continue  # inside a folded node
        folded.setdefault(parent, []).append(n)
    if set(folded) != set(more):
        fail(f"'more' boxes under {sorted(more)} but nodes not drawn under {sorted(folded)}")
    for parent, hidden in folded.items():
        a = more[parent]["attrs"]
        if int(a["data-hidden"]) != len(hidden):
            fail(f"'more' under {parent!r} says {a['data-hidden']} nodes, {len(hidden)} are not drawn")
        want = sum(n["gpu_time_s"] for n in hidden)
        if abs(float(a["data-gpu-time-s"]) - want) > 1e-9 * max(1.0, want):
            fail(f"'more' under {parent!r}: {a['data-gpu-time-s']} s, the nodes not drawn hold {want}")

    want_types = [t["type"] for t in verdict["layer_types"]][: len(parser.types)]
    if parser.types != want_types or not parser.types:
        fail(f"type table {parser.types[:5]} is not layer_types {want_types[:5]}")
    print(f"OK: {len(drawn)} boxes equal their JSON nodes, {sum(map(len, folded.values()))} nodes folded "
          f"into {len(more)} 'more' boxes, {len(parser.types)} types")


if __name__ == "__main__":
    main()
