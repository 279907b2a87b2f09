"""Open the built documentation in headless Chromium and check that four pages render.

For the front page, a reference page, a gallery page and a tutorial: the title is present, every
image has loaded (complete, with a natural width), the page has the content it should (a
heading; the gallery page an image) and the console shows no error (console.error calls,
uncaught exceptions, and the browser's own log errors such as a resource that failed to load).
A screenshot of each page is saved. The pages are served over HTTP from the build directory.

Chromium is driven through the Chrome DevTools Protocol over its WebSocket, with a minimal
client from the standard library (no dependency beyond Debian's ``chromium``). Run by
``make docs-check``; exits non-zero naming each failed check.
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

# page, text its title must contain, least number of images
PAGES = [
    ("index.html", "nonholo", 0),
    ("reference/generated/nonholo.simulate.html", "simulate", 0),
    ("gallery/sleigh_three_ways.html", "sleigh", 1),
    ("tutorials/quickstart.html", "", 0),
]


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
            message = json.loads(self.ws.receive())
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
    cmd = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
           "--remote-debugging-port=0", f"--user-data-dir={profile}", "--window-size=1280,900", "about:blank"]
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


def check_page(devtools: int, url: str, title_part: str, min_images: int, screenshot: Path) -> list[str]:
    request = urllib.request.Request(f"http://127.0.0.1:{devtools}/json/new?about:blank", method="PUT")
    target = json.loads(urllib.request.urlopen(request, timeout=30).read())
    page = Page(target["webSocketDebuggerUrl"])
    for domain in ("Page", "Runtime", "Log"):
        page.call(f"{domain}.enable")
    page.call("Page.navigate", url=url)
    page.wait_for("Page.loadEventFired", timeout=60)
    page.drain(1.5)
    state = page.call("Runtime.evaluate", returnByValue=True, expression="""({
        title: document.title,
        heading: (document.querySelector('h1') || {}).textContent || '',
        images: Array.from(document.images).map(i => ({src: i.src, ok: i.complete && i.naturalWidth > 0})),
        text: document.body.innerText.length})""")["result"]["value"]
    shot = page.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)
    screenshot.write_bytes(base64.b64decode(shot["data"]))
    problems = [f"console {e}" for e in console_errors(page.events)]
    if not state["title"].strip() or title_part.lower() not in state["title"].lower():
        problems.append(f"title {state['title']!r} lacks {title_part!r}")
    if not state["heading"].strip():
        problems.append("no h1 heading")
    if state["text"] < 200:
        problems.append(f"only {state['text']} characters of text")
    problems += [f"image not loaded: {i['src']}" for i in state["images"] if not i["ok"]]
    if len(state["images"]) < min_images:
        problems.append(f"{len(state['images'])} images, expected at least {min_images}")
    print(f"{url}: title {state['title']!r}, {len(state['images'])} images, "
          f"{len(console_errors(page.events))} console errors -> {screenshot.name}")
    page.ws.sock.close()
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--site", type=Path, default=Path("docs/_build/html"))
    parser.add_argument("--out", type=Path, default=Path("docs/_build/screenshots"))
    args = parser.parse_args(argv)
    missing = [p for p, _, _ in PAGES if not (args.site / p).exists()]
    if missing:
        raise SystemExit(f"not built: {missing} under {args.site} (run make docs)")
    args.out.mkdir(parents=True, exist_ok=True)
    server, port = serve(args.site)
    failures = []
    with tempfile.TemporaryDirectory() as profile:
        browser, devtools = start_browser(Path(profile))
        try:
            for path, title_part, min_images in PAGES:
                shot = args.out / (path.replace("/", "_").removesuffix(".html") + ".png")
                problems = check_page(devtools, f"http://127.0.0.1:{port}/{path}", title_part, min_images, shot)
                failures += [f"{path}: {p}" for p in problems]
        finally:
            browser.terminate()
            browser.wait(timeout=30)
            server.shutdown()
    print(f"{len(PAGES) - len({f.split(':')[0] for f in failures})} passed, "
          f"{len({f.split(':')[0] for f in failures})} failed")
    for f in failures:
        print("FAILED", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
