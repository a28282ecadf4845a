#!/usr/bin/env python3
"""Drives headless Chromium over the DevTools protocol (--remote-debugging-pipe,
no extra Python modules) to check an SVG flame graph of `smolder report
--format svg` in a real browser: the script runs, labels are drawn, search
highlights and reports a share, a click zooms, Escape resets, the header
follows a scroll. Saves screenshots for a human to look at.

usage: flamegraph_browser.py CHROMIUM SVG OUTDIR [--search REGEX] [--zoom NAME]
exit: 0 ok, 1 a check failed, 77 the browser could not be driven."""
import base64
import json
import os
import subprocess
import sys
import tempfile
import time


class Browser:
    def __init__(self, exe, width, height):
        self.profile = tempfile.mkdtemp(prefix="smolder-chromium.")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--hide-scrollbars",
                "--user-data-dir=" + self.profile, "--remote-debugging-pipe",
                "--window-size=%d,%d" % (width, height), "about:blank"]
        self.proc = subprocess.Popen(args, preexec_fn=fds, pass_fds=(3, 4),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.session = None
        self.events = []

    def send(self, method, params=None, session=True, timeout=30):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self.read(deadline)
            if m is None:
                break
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)
        raise RuntimeError("%s: no answer" % method)

    def read(self, deadline):
        while b"\0" not in self.buf:
            import select
            r, _, _ = select.select([self.from_chrome], [], [], max(0, deadline - time.time()))
            if not r:
                return None
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                return None
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def open(self, url, width, height):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        a = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                      session=False)
        self.session = a["sessionId"]
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        self.send("Page.enable")
        self.send("Page.navigate", {"url": url})
        deadline = time.time() + float(os.environ.get("FG_LOAD_TIMEOUT", "60"))
        while time.time() < deadline:
            if self.eval("document.readyState") == "complete":
                return
            time.sleep(0.1)
        raise RuntimeError("the page did not load")

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("%s: %s" % (expr, r["exceptionDetails"]))
        return r.get("result", {}).get("value")

    def key(self, code, key, mods=0):
        for t in ("keyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", {"type": t, "key": key, "code": key,
                                                 "windowsVirtualKeyCode": code,
                                                 "modifiers": mods})

    def shot(self, path):
        time.sleep(0.2)
        r = self.send("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        try:
            self.send("Browser.close", session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        subprocess.call(["rm", "-rf", self.profile])


def main():
    if len(sys.argv) < 4:
        print(__doc__)
        return 2
    exe, svg, outdir = sys.argv[1:4]
    opts = dict(zip(sys.argv[4::2], sys.argv[5::2]))
    search = opts.get("--search", "main")
    zoom = opts.get("--zoom")
    failures = []

    def check(cond, what):
        print("  %s: %s" % ("ok" if cond else "FAIL", what))
        if not cond:
            failures.append(what)

    W, H = 1300, 900
    try:
        t0 = time.time()
        b = Browser(exe, W, H)
        b.open("file://" + os.path.abspath(svg), W, H)
        print("  loaded in %.1f s" % (time.time() - t0))
    except Exception as e:  # no usable browser here: skip, not fail
        print("SKIP: cannot drive %s: %s" % (exe, e))
        return 77
    try:
        n = b.eval("typeof frames === 'undefined' ? -1 : frames.length")
        check(n is not None and n > 0, "script ran, %s frames indexed" % n)
        labels = b.eval("frames.filter(function (f) { return f.t.textContent.length > 0; }).length")
        check(labels and labels > 0, "%s frames carry a label" % labels)
        over = b.eval("""frames.filter(function (f) {
                var t = f.t.textContent; if (!t || f.g.style.display === 'none') return false;
                return f.t.getComputedTextLength() > parseFloat(f.r.getAttribute('width')) - 2;
            }).map(function (f) { return f.name; })""")
        check(not over, "labels fit their frames in the real font (overflowing: %s)" % over[:5])
        b.shot(os.path.join(outdir, "fg_initial.png"))

        # a graph taller than the window: the header follows the scroll; a
        # flame graph's root is at the bottom, where the next shots look
        if b.eval("fg.height") > H:
            b.eval("window.scrollTo(0, fg.height); 0")
            time.sleep(0.3)
            y = b.eval("window.pageYOffset")
            tr = b.eval("document.getElementById('hdr').getAttribute('transform')")
            check(y > 0 and tr == "translate(0,%s)" % y, "header follows the scroll (%s)" % tr)
            if b.eval("frames[0].d === 0 && parseFloat(frames[0].r.getAttribute('y')) < 100"):
                b.eval("window.scrollTo(0, 0); 0")  # icicle: the root is on top
            b.shot(os.path.join(outdir, "fg_scrolled.png"))

        t0 = time.time()
        b.eval("search(%s)" % json.dumps(search))
        print("  search took %.1f s" % (time.time() - t0))
        m = b.eval("document.getElementById('matched').textContent")
        hl = b.eval("frames.filter(function (f) { return f.r.getAttribute('fill') === fg.searchfill; }).length")
        check(m.startswith("Matched") and "%" in m and hl > 0,
              "search /%s/: %r, %d frames highlighted" % (search, m, hl))
        b.shot(os.path.join(outdir, "fg_search.png"))

        # zoom: the named frame, else the widest frame of at most half the samples
        pick = ("frames.filter(function (f) { return f.name === %s; })[0]" % json.dumps(zoom)
                if zoom else
                "frames.filter(function (f) { return f.d >= 2 && f.n <= fg.total / 2; })"
                ".sort(function (a, b) { return b.n - a.n; })[0]")
        b.eval("window._z = %s; _z.r.dispatchEvent(new MouseEvent('click', {bubbles: true})); 0"
               % pick)
        zw = b.eval("parseFloat(_z.r.getAttribute('width'))")
        check(zw is not None and abs(zw - (b.eval("fg.width") - 2 * b.eval("fg.xpad"))) < 0.5,
              "click on %r zooms it to the full width (%s px)" % (b.eval("_z.name"), zw))
        hidden = b.eval("frames.filter(function (f) { return f.g.style.display === 'none'; }).length")
        print("  %s frames hidden while zoomed" % hidden)
        b.shot(os.path.join(outdir, "fg_zoom.png"))
        b.key(27, "Escape")
        rw = b.eval("parseFloat(frames[0].r.getAttribute('width'))")
        check(b.eval("zoomed === null") and abs(rw - (b.eval("fg.width") - 2 * b.eval("fg.xpad"))) < 0.5
              and b.eval("frames.every(function (f) { return f.g.style.display !== 'none'; })"),
              "Escape resets the zoom")
        b.key(27, "Escape")
        check(b.eval("document.getElementById('matched').textContent") == "",
              "a second Escape clears the search")

    except Exception as e:
        check(False, "browser session: %s" % e)
    finally:
        b.close()
    if failures:
        print("FAIL: %d check(s)" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
