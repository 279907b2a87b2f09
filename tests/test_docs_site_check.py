"""The browser check of the built site (tests/docs/check_site.py) tells a playing animation from one that does not play.

Four small pages are served to headless Chromium: a matplotlib player (``to_jshtml``, the HTML a
tutorial's ``result.animate(...)`` shows) that plays, the same player whose Play does nothing, the
same player whose script never ran (a static page), and a page without animations. Only the first
and the last pass. The player loops over its frames in exactly the time the check waits, so a check
that compared only the frame before and after playing would see the first frame twice.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def check_site():
    spec = importlib.util.spec_from_file_location("check_site", ROOT / "tests" / "docs" / "check_site.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def player_html() -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    fig, ax = plt.subplots(figsize=(3, 2))
    (line,) = ax.plot([], [], "o-")
    ax.set(xlim=(0, 1), ylim=(0, 1))
    # 10 frames at 100 ms: one loop takes the check's whole wait (1 s)
    anim = FuncAnimation(fig, lambda i: line.set_data([0, i / 10], [0, i / 10]), frames=10, interval=100)
    html = anim.to_jshtml(default_mode="loop")
    plt.close(fig)
    return html


def page(body: str) -> str:
    prose = "A page of the site with enough prose to count as a page. " * 5
    return (f"<html><head><title>test page</title></head><body><article><h1>Test</h1><p>{prose}</p>{body}"
            "</article></body></html>")


def test_a_playing_animation_passes_and_a_frozen_or_static_one_fails(tmp_path, capsys):
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.fail("chromium is needed (apt-get install -y chromium; make docs-check installs it)")
    html = player_html()
    frozen = html.replace("Animation.prototype.play_animation = function()\n  {",
                          "Animation.prototype.play_animation = function()\n  { return;")
    static = html.replace("setTimeout(function()", "void (function()")
    assert frozen != html and static != html
    site = tmp_path / "site"
    site.mkdir()
    (site / "favicon.ico").write_bytes(b"")
    for name, body in {"plays": html, "frozen": frozen, "static": static, "plain": ""}.items():
        (site / f"{name}.html").write_text(page(body))
    module = check_site()
    module.ANIMATIONS = {"plays.html": 1, "plain.html": 0}
    code = module.main(["--site", str(site), "--out", str(tmp_path / "shots"), "--tabs", "2",
                        "--only", "plays.html", "frozen.html", "static.html", "plain.html"])
    out = capsys.readouterr().out
    failed = [line for line in out.splitlines() if line.startswith("FAILED")]
    assert code == 1
    assert not any(line.startswith(("FAILED plays.html", "FAILED plain.html")) for line in failed), out
    assert any(line.startswith("FAILED frozen.html: animation 0: Play pressed, the frame did not advance")
               for line in failed), out
    assert any(line.startswith("FAILED static.html: animation 0: no working player") for line in failed), out
    assert "4 pages" in out and "2 passed, 2 failed" in out


def test_a_page_that_must_animate_fails_without_a_player(tmp_path, capsys):
    if shutil.which("chromium") is None and shutil.which("chromium-browser") is None:
        pytest.fail("chromium is needed (apt-get install -y chromium; make docs-check installs it)")
    site = tmp_path / "site"
    site.mkdir()
    (site / "favicon.ico").write_bytes(b"")
    (site / "quick.html").write_text(page(""))
    module = check_site()
    module.ANIMATIONS = {"quick.html": 1}
    code = module.main(["--site", str(site), "--out", str(tmp_path / "shots"), "--only", "quick.html"])
    out = capsys.readouterr().out
    assert code == 1 and "FAILED quick.html: 0 animation players, expected at least 1" in out, out
