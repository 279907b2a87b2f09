"""Open every page of the built documentation in headless Chromium and check that it renders.

Every HTML page of the site (the guide, the tutorials, the gallery, each reference page, the
benchmarks, the indices and the highlighted sources) is loaded over HTTP from the build directory,
with the window 1280 px wide, after MathJax has typeset it. A page fails on:

- a missing title or h1 heading, or almost no text;
- an image that did not load, or any file of the site the browser asked for and did not get (the
  browser's own log errors: a 404 of an image, a script or a style sheet);
- a link to a local file that is not in the site (the server's folder);
- console errors (console.error calls, uncaught exceptions);
- a notebook cell that prints, plots or displays and shows no output (a tutorial not executed);
- raw TeX in the rendered text outside code (``\\(``, ``$$``, ``\\frac``...): a formula MathJax did not
  typeset;
- a page wider than the window (horizontal overflow of the document: wide code and tables must
  scroll inside their own box);
- an animation (matplotlib's HTML/JavaScript player of ``result.animate(...)`` in a tutorial) that
  does not play: after its Play button is pressed, the player's frame index, the image it shows and
  a screenshot of its region must have changed; a page listed in ``ANIMATIONS`` must have at least
  that many players.

One browser, several tabs working through the pages in parallel (``--tabs``); screenshots of a
few pages are saved (``--out``). Chromium is driven through the Chrome DevTools Protocol over its
WebSocket, with a minimal client from the standard library (no dependency beyond Debian's
``chromium``). Run by ``make docs-check``; exits non-zero naming each failed check, and prints
how many pages it opened and how long that took. A page whose loading times out (the browser
starved on a loaded machine; the message names the step) is loaded once more in a fresh tab, and
fails if that times out too.
"""

from __future__ import annotations

import argparse
import base64
import functools
import http.server
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

# pages that must exist, with text their title must contain and their least number of images;
# their screenshots are saved
REQUIRED = {
    "index.html": ("nonholo", 0),
    "reference/generated/nonholo.simulate.html": ("simulate", 0),
    "gallery/sleigh_three_ways.html": ("sleigh", 1),
    "gallery/index.html": ("gallery", 6),
    "tutorials/quickstart.html": ("quick", 1),
    "guide/choosing_a_model.html": ("model", 0),
}
# pages that must show animations that play, with their least number of players
ANIMATIONS = {"tutorials/quickstart.html": 1}
# pages that are lists rather than prose: no h1 or little text is right for them
LISTS = {"search.html", "genindex.html", "py-modindex.html"}
# TeX that MathJax would have typeset: delimiters and common commands, outside code
RAW_TEX = (r"\\\(|\\\)|\\\[|\\\]|\$\$|\\(frac|dot|ddot|mathbf|mathrm|mathcal|varepsilon|epsilon|lambda|"
           r"partial|sum|int|sqrt|begin|end|left|right|cdot|quad|operatorname|boldsymbol|text|tfrac|dfrac)\b")


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: text frames, client-side masking."""

    def __init__(self, url: str):
        parts = urllib.parse.urlsplit(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                           f"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            response += self.sock.recv(4096)
        head, self.buffer = response.split(b"\r\n\r\n", 1)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise RuntimeError(f"WebSocket handshake refused: {head[:200]!r}")

    def send(self, text: str) -> None:
        data, mask = text.encode(), os.urandom(4)
        n = len(data)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else
                                  bytes([0x80 | 126]) + n.to_bytes(2, "big") if n < 65536 else
                                  bytes([0x80 | 127]) + n.to_bytes(8, "big"))
        self.sock.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data)))

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(1 << 16)
            if not chunk:
                raise ConnectionError("the browser closed the connection")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def receive(self) -> str:
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self._read(8), "big")
            payload = self._read(n)
            if b0 & 0x0F == 0x8:
                raise ConnectionError("the browser closed the WebSocket")
            if b0 & 0x0F in (0x9, 0xA):  # ping / pong: nothing to answer for this short session
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()


class Page:
    """One browser tab: commands with their replies, and the events collected meanwhile."""

    def __init__(self, ws_url: str):
        self.ws, self.next_id, self.events = WebSocket(ws_url), 0, []

    def call(self, method: str, **params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            try:
                message = json.loads(self.ws.receive())
            except TimeoutError as e:  # say which step did not answer
                raise TimeoutError(f"{method} {str(params.get('expression', ''))[:40]!r} timed out") from e
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.events.append(message)

    def wait_for(self, event: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if any(e.get("method") == event for e in self.events):
                return
            self.ws.sock.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                self.events.append(json.loads(self.ws.receive()))
            except TimeoutError:
                break
        raise TimeoutError(f"no {event} within {timeout} s")

    def drain(self, seconds: float) -> None:
        """Collect the events of the next few seconds (late scripts and images)."""
        self.ws.sock.settimeout(0.2)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                self.events.append(json.loads(self.ws.receive()))
            except TimeoutError:
                continue
        self.ws.sock.settimeout(30)


def console_errors(events: list) -> list[str]:
    errors = []
    for e in events:
        method, p = e.get("method"), e.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            args = (str(a.get("value", a.get("description", ""))) for a in p["args"])
            errors.append("console.error: " + " ".join(args))
        elif method == "Runtime.exceptionThrown":
            details = p["exceptionDetails"]
            errors.append("exception: " + details.get("exception", {}).get("description", details.get("text", "")))
        elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
            url = p["entry"].get("url", "")
            if offline_miss(p["entry"]["text"], url):
                continue  # a CDN the site uses online (MathJax, an animation's icons); this machine is offline
            errors.append(f"log: {p['entry']['text']} {url}")
    return errors


def offline_miss(text: str, url: str) -> bool:
    """An external resource that could not be resolved: the network, not the site (the local server's
    own files are never external, so a missing image or script of the site still fails)."""
    external = url.startswith(("http://", "https://")) and not url.startswith(("http://127.0.0.1", "http://localhost"))
    return external and "ERR_NAME_NOT_RESOLVED" in text


def serve(root: Path) -> tuple[http.server.HTTPServer, int]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # failed requests show up as the browser's log errors
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


def start_browser(profile: Path) -> tuple[subprocess.Popen, int]:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        raise SystemExit("chromium is not installed: apt-get install -y chromium (make docs-check does this)")
    # the pages load in several tabs at once: background tabs are not throttled, or MathJax on a long
    # tutorial in one of them stalls until the page times out (it typesets in 4 s alone)
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
           "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
           "--disable-backgrounding-occluded-windows", "--remote-debugging-port=0", f"--user-data-dir={profile}",
           "--window-size=1280,900", "about:blank"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    port_file = profile / "DevToolsActivePort"
    for _ in range(300):
        if port_file.exists() and port_file.read_text().strip():
            return proc, int(port_file.read_text().split()[0])
        if proc.poll() is not None:
            raise SystemExit(f"chromium exited with code {proc.returncode}")
        time.sleep(0.1)
    proc.kill()
    raise SystemExit("chromium did not open its DevTools port within 30 s")


PAGE_STATE = r"""(() => {
    const body = document.body.cloneNode(true);
    body.querySelectorAll('pre, code, script, style, .highlight, .MathJax_Preview, .mjx-chtml, .MJX_Assistive_MathML,'
                          + ' .MathJax, textarea, kbd, samp, .search, [role=search]').forEach(e => e.remove());
    const local = Array.from(document.querySelectorAll('a[href], img[src], link[href], script[src], source[src]'))
        .map(e => e.href || e.src).filter(u => u.startsWith(location.origin));
    return {
        title: document.title,
        heading: (document.querySelector('h1') || {}).textContent || '',
        images: Array.from(document.images).map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0})),
        text: document.body.innerText.length,
        prose: body.textContent,
        local: local,
        width: document.documentElement.scrollWidth,
        window: window.innerWidth,
        silent: Array.from(document.querySelectorAll('div.cell')).filter(c => {
            const src = (c.querySelector('.cell_input') || {}).innerText || '';
            // a top-level statement that prints, plots or displays (not one inside a def)
            return src.split("\n").some(l => /^[^\s#]/.test(l) && !/^(def|class|import|from) /.test(l)
                   && /\b(print|display|show|animate)\(|\.plot\(|plt\.|\.style\b/.test(l))
                   && !c.querySelector('.cell_output');
        }).map(c => ((c.querySelector('.cell_input') || {}).innerText || '').split("\n")[0].slice(0, 60)),
        wide: Array.from(document.querySelectorAll('article *')).filter(e => e.getBoundingClientRect().right
            > window.innerWidth + 1).slice(0, 3).map(e => e.tagName + '.' + e.className),
    };
})()"""
# resolves once MathJax 2 has typeset the page (at once on a page without math)
MATHJAX_DONE = """new Promise(done => (window.MathJax && MathJax.Hub) ? MathJax.Hub.Queue(() => done(true))
                                                              : done(false))"""


def open_tab(devtools: int) -> Page:
    request = urllib.request.Request(f"http://127.0.0.1:{devtools}/json/new?about:blank", method="PUT")
    target = json.loads(urllib.request.urlopen(request, timeout=30).read())
    page = Page(target["webSocketDebuggerUrl"])
    for domain in ("Page", "Runtime", "Log"):
        page.call(f"{domain}.enable")
    return page


def local_file(site: Path, base: str, url: str) -> Path | None:
    """The file of the site a same-origin URL names (None for the site's folder listing)."""
    path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    rel = path[len(base):] if path.startswith(base) else path.lstrip("/")
    return site / rel if rel and not rel.endswith("/") else (site / rel / "index.html")


def check_page(page: Page, site: Path, origin: str, path: str, screenshot: Path | None) -> list[str]:
    import re

    page.events.clear()
    page.call("Page.navigate", url=f"{origin}/{path}")
    page.wait_for("Page.loadEventFired", timeout=120)
    page.ws.sock.settimeout(180)  # a long tutorial's formulas take MathJax a while on a loaded machine
    page.call("Runtime.evaluate", expression=MATHJAX_DONE, awaitPromise=True, returnByValue=True)
    page.drain(0.2)
    state = page.call("Runtime.evaluate", returnByValue=True, expression=PAGE_STATE)["result"]["value"]
    if screenshot is not None:
        with FRONT:
            page.call("Page.bringToFront")
            shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
        screenshot.write_bytes(base64.b64decode(shot["data"]))
    problems = [f"console {e}" for e in console_errors(page.events)]
    title_part, min_images = REQUIRED.get(path, ("", 0))
    if not state["title"].strip() or title_part.lower() not in state["title"].lower():
        problems.append(f"title {state['title']!r} lacks {title_part!r}")
    if path not in LISTS:
        if not state["heading"].strip():
            problems.append("no h1 heading")
        if state["text"] < 200:
            problems.append(f"only {state['text']} characters of text")
    problems += [f"image not loaded: {i['src']}" for i in state["images"] if not i["ok"]]
    if len(state["images"]) < min_images:
        problems.append(f"{len(state['images'])} images, expected at least {min_images}")
    missing = sorted({u.split("#")[0] for u in state["local"] if not local_file(site, "/", u.split("#")[0]).exists()})
    problems += [f"links to a file the site does not have: {u}" for u in missing]
    for m in list(re.finditer(RAW_TEX, state["prose"]))[:3]:
        problems.append(f"raw TeX in the text: ...{state['prose'][max(0, m.start() - 40):m.end() + 40]!r}...")
    problems += [f"a cell that prints or plots shows no output: {first!r}..." for first in state["silent"]]
    problems += check_animations(page, path)
    if state["width"] > state["window"] + 1:
        problems.append(f"page {state['width']} px wide in a {state['window']} px window (overflowing: "
                        f"{', '.join(state['wide']) or 'outside the article'})")
    return problems


# every matplotlib player of the page (to_jshtml: div.animation with an img, a slider and the buttons),
# scrolled into view, with its frame index, its frame and where it is
PLAYERS = r"""(() => Array.from(document.querySelectorAll('div.animation')).map(div => {
    const img = div.querySelector('img'), slider = div.querySelector('input.anim-slider');
    const play = div.querySelector('button[title=Play]');
    const anim = img ? window['anim' + img.id.replace('_anim_img', '')] : undefined;
    div.scrollIntoView({block: 'center'});
    const box = img ? img.getBoundingClientRect() : {x: 0, y: 0, width: 0, height: 0};
    return {player: !!anim, frames: anim ? anim.frames.length : 0, interval: anim ? anim.interval : 0,
            index: slider ? slider.value : null, src: img ? img.src.slice(-200) : '', play: !!play,
            box: {x: box.x + window.scrollX, y: box.y + window.scrollY, width: box.width, height: box.height}};
}))()"""
PRESS = r"""(() => document.querySelectorAll('div.animation button[title="%s"]').forEach(b => b.click()))()"""
# Play pressed in every player, then the frame indices and images each showed, sampled every 20 ms for
# a while (a looping player may be back at its first frame when the time is up), then Pause pressed
PLAY = r"""new Promise(done => {
    const divs = Array.from(document.querySelectorAll('div.animation'));
    const seen = divs.map(() => ({index: new Set(), src: new Set()}));
    const sample = () => divs.forEach((div, i) => {
        seen[i].index.add((div.querySelector('input.anim-slider') || {}).value);
        seen[i].src.add(((div.querySelector('img') || {}).src || '').slice(-200));
    });
    sample();
    divs.forEach(div => { const b = div.querySelector('button[title="Play"]'); if (b) b.click(); });
    const timer = setInterval(sample, 20);
    setTimeout(() => {
        clearInterval(timer);
        sample();
        divs.forEach(div => { const b = div.querySelector('button[title="Pause"]'); if (b) b.click(); });
        done(seen.map(s => ({indices: s.index.size, images: s.src.size})));
    }, %d);
})"""


# a tab paints (and so can be photographed) only in front: one screenshot at a time, its tab in front
FRONT = threading.Lock()


def region(page: Page, box: dict) -> bytes:
    """A screenshot of one region of the page (CSS pixels of the document)."""
    clip = {"x": box["x"], "y": box["y"], "width": max(1, box["width"]), "height": max(1, box["height"]), "scale": 1}
    with FRONT:
        page.call("Page.bringToFront")
        shot = page.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True)
    return base64.b64decode(shot["data"])


def check_animations(page: Page, path: str) -> list[str]:
    """Each player of the page plays: Play advances its frame index, its image and its pixels."""
    def players():
        return page.call("Runtime.evaluate", returnByValue=True, expression=PLAYERS)["result"]["value"]

    before, problems = players(), []
    if len(before) < ANIMATIONS.get(path, 0):
        problems.append(f"{len(before)} animation players, expected at least {ANIMATIONS[path]}")
    if not before:
        return problems
    for i, p in enumerate(before):
        if not p["player"] or not p["play"] or p["frames"] < 2:
            problems.append(f"animation {i}: no working player (script run: {p['player']}, Play button: "
                            f"{p['play']}, {p['frames']} frames)")
    shots = [region(page, p["box"]) for p in before]
    wait = int(max(1000, 4 * max(p["interval"] for p in before)))  # four frames' time, at least 1 s
    played = page.call("Runtime.evaluate", expression=PLAY % wait, awaitPromise=True,
                       returnByValue=True)["result"]["value"]
    after = players()
    if any(q["index"] == p["index"] for p, q in zip(before, after)):  # paused where it started (looped)
        page.call("Runtime.evaluate", expression=PRESS % "Next frame")
        after = players()
    for i, (p, q, seen) in enumerate(zip(before, after, played)):
        if not p["player"]:
            continue
        if seen["indices"] < 2 or seen["images"] < 2:
            problems.append(f"animation {i}: Play pressed, the frame did not advance in {wait} ms "
                            f"({seen['indices']} frame indices, {seen['images']} images shown)")
        elif region(page, q["box"]) == shots[i]:
            problems.append(f"animation {i}: the frame advanced ({p['index']} -> {q['index']}) but the pixels "
                            "of its region did not change")
    return problems


def pages_of(site: Path) -> list[str]:
    """Every HTML page of the site, the required ones first (their screenshots)."""
    found = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if not p.relative_to(site).as_posix().startswith(("_static/", "_images/", "_sources/")))
    return [p for p in REQUIRED if p in found] + [p for p in found if p not in REQUIRED]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=Path("docs/_build/html"))
    parser.add_argument("--out", type=Path, default=Path("docs/_build/screenshots"))
    parser.add_argument("--tabs", type=int, default=4, help="pages loaded at the same time")
    parser.add_argument("--only", nargs="*", help="check only these pages (paths under --site)")
    args = parser.parse_args(argv)
    missing = [p for p in (args.only or REQUIRED) if not (args.site / p).exists()]
    if missing:
        raise SystemExit(f"not built: {missing} under {args.site} (run make docs)")
    pages = args.only or pages_of(args.site)
    args.out.mkdir(parents=True, exist_ok=True)
    server, port = serve(args.site)
    origin, failures, lock, todo = f"http://127.0.0.1:{port}", [], threading.Lock(), list(reversed(pages))
    retried = []
    start = time.monotonic()

    def work(devtools: int) -> None:
        page = open_tab(devtools)
        while True:
            with lock:
                if not todo:
                    break
                path = todo.pop()
            shot = args.out / (path.replace("/", "_").removesuffix(".html") + ".png") if path in REQUIRED else None
            problems = []
            for attempt in (1, 2):  # a page that timed out on the loaded machine is loaded once more
                try:
                    problems = check_page(page, args.site, origin, path, shot)
                    break
                except (TimeoutError, RuntimeError, ConnectionError) as e:
                    problems.append(f"not loaded (attempt {attempt}): {e}")
                    with lock:
                        retried.append(f"{path}: {e}")
                    page.ws.sock.close()
                    page = open_tab(devtools)
                    if not isinstance(e, TimeoutError):
                        break
                except Exception as e:  # a fault of this script: the page fails, it does not pass unchecked
                    problems = [f"not checked: {type(e).__name__}: {e}"]
                    break
            with lock:
                failures.extend(f"{path}: {p}" for p in problems)
        page.ws.sock.close()

    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as profile:
        browser, devtools = start_browser(Path(profile))
        try:
            workers = [threading.Thread(target=work, args=(devtools,)) for _ in range(max(1, args.tabs))]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
        finally:
            browser.terminate()
            browser.wait(timeout=30)
            server.shutdown()
            server.server_close()
    failed = {f.split(": ")[0] for f in failures}
    print(f"{len(pages)} pages in {time.monotonic() - start:.0f} s ({args.tabs} tabs): "
          f"{len(pages) - len(failed)} passed, {len(failed)} failed; screenshots of {len(REQUIRED)} in {args.out}; "
          f"{len(retried)} loads timed out and were retried")
    for r in retried:
        print("RETRIED", r)
    for f in sorted(failures):
        print("FAILED", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
