#!/usr/bin/env python3
"""Checks the model-layer section of a rendered HTML report (the DOM Chromium dumped) against the
--json output of the same analysis: every icicle box's figures equal its `layers` node's, every
"more" box holds exactly the nodes not drawn under its parent, widths are proportional to GPU
time and children sit inside their parent, and the type table follows `layer_types`.

With --zoomed PATH the DOM is the page opened at `#zoom=PATH`: the zoomed node and its ancestors
span the full width, its drawn descendants are as wide as their GPU time over the zoomed node's
(to the hundredth of a pixel the page writes), inside their parent, every other box is hidden,
and the crumbs name the chain. --pick TYPE_REGEX prints the path of the drawn node of a matching
type with the most GPU time that has drawn children: the node a test zooms into.

Usage: html_layers_check.py [--zoomed PATH | --pick TYPE_REGEX] DOM_HTML VERDICT_JSON
"""
import json
import re
import sys
from html.parser import HTMLParser


class Boxes(HTMLParser):
    def __init__(self):
        super().__init__()
        self.boxes, self.types = [], []
        self.box = None  # the <g> being read
        self.in_title = self.in_crumbs = self.in_text = False
        self.svg_width = self.zoom = None
        self.crumbs = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "svg" and a.get("id") == "icicle":
            self.svg_width = float(a["viewbox"].split()[2] if "viewbox" in a else a["viewBox"].split()[2])
            self.zoom = a.get("data-zoom")
        elif tag == "p" and a.get("id") == "icicle-crumbs":
            self.in_crumbs = True
        elif tag == "g" and "box" in a.get("class", "").split():
            hidden = "display: none" in (a.get("style") or "")
            self.box = {"attrs": a, "title": "", "rect": None, "text": "", "hidden": hidden}
            self.boxes.append(self.box)
        elif tag == "rect" and self.box is not None and self.box["rect"] is None:
            self.box["rect"] = {k: float(a[k]) for k in ("x", "y", "width", "height")}
        elif tag == "title" and self.box is not None:
            self.in_title = True
        elif tag == "text" and self.box is not None:
            self.in_text = True
            self.box["label"], self.box["pct"] = a.get("data-label"), a.get("data-pct")
        elif tag == "tr" and "data-type" in a:
            self.types.append(a["data-type"])

    def handle_endtag(self, tag):
        if tag == "title":
            self.in_title = False
        elif tag == "text":
            self.in_text = False
        elif tag == "p":
            self.in_crumbs = False
        elif tag == "g":
            self.box = None

    def handle_data(self, data):
        if self.in_title and self.box is not None:
            self.box["title"] += data
        elif self.in_text and self.box is not None:
            self.box["text"] += data
        elif self.in_crumbs:
            self.crumbs += data


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def ancestors(nodes, n):
    chain = []
    while n["parent"] >= 0:
        n = nodes[n["parent"]]
        chain.append(n)
    return chain


def pick(parser, nodes, type_regex):
    """The drawn node of a matching type with the most GPU time among those with drawn children."""
    drawn = {b["attrs"]["data-path"] for b in parser.boxes if "data-path" in b["attrs"]}
    by_path = {n["path"]: n for n in nodes}
    parents = {nodes[by_path[p]["parent"]]["path"] for p in drawn if by_path[p]["parent"] >= 0}
    fits = [n for n in nodes if n["path"] in parents and re.search(type_regex, n["type"])]
    if not fits:
        fail(f"no drawn node of a type matching {type_regex!r} has drawn children")
    print(max(fits, key=lambda n: n["gpu_time_s"])["path"])


def check_zoomed(parser, nodes, path):
    by_path = {n["path"]: n for n in nodes}
    if path not in by_path:
        fail(f"{path!r} is not a node of the JSON layers")
    if parser.zoom != path:
        fail(f"the chart says data-zoom={parser.zoom!r}, the URL asked for {path!r}")
    z, width = by_path[path], parser.svg_width
    above = {a["path"] for a in ancestors(nodes, z)}
    shown, rects = 0, {}
    for b in parser.boxes:
        a, r = b["attrs"], b["rect"]
        if "data-path" in a:
            n = by_path[a["data-path"]]
            chain = {c["path"] for c in ancestors(nodes, n)}
        else:  # a "more" box: the nodes folded under its parent
            n, chain = None, {a["data-parent"]} | ({c["path"] for c in ancestors(nodes, by_path[a["data-parent"]])}
                                                   if a["data-parent"] else set())
        name = a.get("data-path", f"more under {a.get('data-parent')!r}")
        inside = path in chain
        if n is not None and (n["path"] == path or n["path"] in above):
            if b["hidden"] or abs(r["x"]) > 0.011 or abs(r["width"] - width) > 0.011:
                fail(f"{name}: zoomed into {path}, it should span [0, {width}], it is [{r['x']}, +{r['width']}]"
                     f"{' and hidden' if b['hidden'] else ''}")
            if n["path"] == path and b["text"] != f"{b['label']} · {b['pct']}":
                fail(f"{name}: the full-width label reads {b['text']!r}")
        elif inside:
            want = max(float(a["data-gpu-time-s"]) / z["gpu_time_s"] * width, 0.5)
            if b["hidden"] or abs(r["width"] - want) > 0.011:
                fail(f"{name}: zoomed into {path}, width {r['width']} px, its GPU time says {want:.3f} px")
        elif not b["hidden"]:
            fail(f"{name} is outside {path} and still shown")
        if not b["hidden"]:
            shown += 1
            if n is not None:
                rects[n["path"]] = r
    # Children inside their parent.
    for p, r in rects.items():
        n = by_path[p]
        if n["parent"] < 0 or n["path"] == path or p in above:
            continue
        q = rects[nodes[n["parent"]]["path"]]
        if r["x"] < q["x"] - 0.011 or r["x"] + r["width"] > q["x"] + q["width"] + 0.02:
            fail(f"{p} spills out of its parent: [{r['x']}, +{r['width']}] in [{q['x']}, +{q['width']}]")
    chain = [n["name"] for n in reversed(ancestors(nodes, z))] + [z["name"]]
    if " › ".join(["all"] + chain) not in parser.crumbs:
        fail(f"the crumbs {parser.crumbs!r} do not name the chain {chain}")
    print(f"OK: zoomed into {path}: {shown} boxes shown, widths proportional to GPU time, "
          f"{len(parser.boxes) - shown} hidden")


def main():
    args = sys.argv[1:]
    zoomed = type_regex = None
    if args and args[0] == "--zoomed":
        zoomed, args = args[1], args[2:]
    elif args and args[0] == "--pick":
        type_regex, args = args[1], args[2:]
    dom_path, json_path = args[0], args[1]
    parser = Boxes()
    parser.feed(open(dom_path, encoding="utf-8").read())
    verdict = json.load(open(json_path, encoding="utf-8"))
    nodes = verdict["layers"]
    if not parser.boxes:
        fail(f"{dom_path}: no icicle boxes in the rendered DOM")
    if parser.svg_width is None:
        fail(f"{dom_path}: no <svg id=icicle>")
    if type_regex is not None:
        return pick(parser, nodes, type_regex)
    if zoomed is not None:
        return check_zoomed(parser, nodes, zoomed)
    if parser.zoom is not None:
        fail(f"{dom_path}: opened without #zoom=, the chart says data-zoom={parser.zoom!r}")
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
