#!/usr/bin/env python3
"""Clicks the icicle chart of a rendered HTML report in headless Chromium, driven over the
DevTools protocol on a pipe (--remote-debugging-pipe: commands on fd 3, replies on fd 4, each a
JSON message ended by a NUL byte), and checks what each click and key does:

  1. a click on the box of PATH zooms into it: the chart says data-zoom=PATH and the URL holds
     zoom=PATH; the DOM is then written to OUT_DOM for html_layers_check.py --zoomed;
  2. a click on the zoomed box zooms out a level (into its parent, or out of zoom at the top),
     and a click on it once more zooms into it again;
  3. Escape leaves the zoom, and every box is back where the page drew it.

Usage: html_click_check.py CHROMIUM REPORT.html PATH OUT_DOM [CHROMIUM_FLAG ...]
"""
import json
import os
import subprocess
import sys
import time


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


class Browser:
    def __init__(self, chromium, flags):
        to_chrome, self.out = os.pipe()  # fd 3 in Chromium: what it reads
        self.inp, from_chrome = os.pipe()  # fd 4 in Chromium: what it writes

        def fds():  # in the child: copies first, so neither end is overwritten or left close-on-exec
            reads, writes = os.dup(to_chrome), os.dup(from_chrome)
            os.dup2(reads, 3)
            os.dup2(writes, 4)

        self.proc = subprocess.Popen([chromium, *flags, "--remote-debugging-pipe", "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                     preexec_fn=fds, close_fds=False)
        os.close(to_chrome)
        os.close(from_chrome)
        self.next_id, self.buffer, self.session = 0, b"", None

    def send(self, method, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.out, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            while b"\0" not in self.buffer:
                chunk = os.read(self.inp, 1 << 16)
                if not chunk:
                    fail(f"Chromium closed the DevTools pipe during {method}")
                self.buffer += chunk
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    fail(f"{method}: {reply['error']}")
                return reply.get("result", {})
        fail(f"no reply to {method} within 60 s")

    def eval(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            fail(f"{expression[:80]!r} threw: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")

    def close(self):
        try:
            self.send("Browser.close")
        finally:
            self.proc.wait(timeout=30)


def main():
    chromium, report, path, out_dom, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    b = Browser(chromium, flags)
    try:
        page = next(t for t in b.send("Target.getTargets")["targetInfos"] if t["type"] == "page")
        b.session = b.send("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        b.send("Page.navigate", url="file://" + os.path.abspath(report))
        for _ in range(600):
            if b.eval("document.readyState") == "complete":
                break
            time.sleep(0.05)
        else:
            fail(f"{report} did not finish loading")
        at = json.dumps(path)
        box = f"[...document.querySelectorAll('#icicle g.box')].find(g => g.dataset.path === {at})"
        geometry = ("[...document.querySelectorAll('#icicle g.box')].map(g => g.style.display + ' ' + "
                    "g.querySelector('rect').getAttribute('x') + ' ' + g.querySelector('rect').getAttribute('width')"
                    " + ' ' + g.querySelector('text').textContent).join('\\n')")
        drawn = b.eval(geometry)

        def click(what):
            # Scrolled into view, then pressed and released at the middle of the box's visible part.
            x, y = b.eval(f"(() => {{ const g = {box}; g.scrollIntoView({{block: 'center'}}); "
                          "const r = g.querySelector('rect').getBoundingClientRect(); "
                          "return [r.left + Math.min(r.width, innerWidth - r.left) / 2, r.top + r.height / 2]; })()")
            for kind in ("mousePressed", "mouseReleased"):
                b.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left", clickCount=1)
            time.sleep(0.1)  # the hash change is an event of its own
            zoom = b.eval("document.getElementById('icicle').getAttribute('data-zoom')")
            print(f"click on {path} ({what}): data-zoom={zoom!r}")
            return zoom

        if b.eval(f"!!({box})") is not True:
            fail(f"no box with data-path={path!r} in {report}")
        if click("zoom in") != path:
            fail(f"a click on {path} did not zoom into it")
        from urllib.parse import parse_qs
        fragment = parse_qs(b.eval("location.hash.slice(1)"))
        if fragment.get("zoom") != [path]:
            fail(f"the URL fragment {fragment} does not hold zoom={path}")
        with open(out_dom, "w", encoding="utf-8") as f:
            f.write(b.eval("document.documentElement.outerHTML"))
        parent = b.eval(f"(() => {{ const p = {at}; const i = p.lastIndexOf('/'); return i > 0 ? p.slice(0, i) : null; }})()")
        zoom = click("zoom out a level")
        if zoom == path or (zoom is not None and zoom != parent):
            fail(f"a click on the zoomed {path} left data-zoom={zoom!r}, not its parent {parent!r}")
        if click("zoom in again") != path:
            fail(f"a click on {path}, zoomed out, did not zoom into it")
        b.send("Input.dispatchKeyEvent", type="keyDown", key="Escape", code="Escape", windowsVirtualKeyCode=27)
        b.send("Input.dispatchKeyEvent", type="keyUp", key="Escape", code="Escape", windowsVirtualKeyCode=27)
        time.sleep(0.1)
        if b.eval("document.getElementById('icicle').hasAttribute('data-zoom')"):
            fail("Escape did not leave the zoom")
        if b.eval(geometry) != drawn:
            fail("after Escape the boxes are not where the page drew them")
        print(f"OK: clicks zoom into {path} and out a level, Escape restores the page's layout")
    finally:
        b.close()


if __name__ == "__main__":
    main()
