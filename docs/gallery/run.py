"""Run every gallery script and write its page: the script's docstring, its figure and its code.

``make docs`` runs this before Sphinx. Each script runs in a fresh interpreter in
``docs/gallery/images/`` (where it writes its PNG), with matplotlib's non-interactive backend, as
many at a time as ``NONHOLO_DOCS_JOBS`` says (default: the number of CPUs); a script that fails or
draws no PNG stops the build. The pages (``<name>.md``) and the index's thumbnails (``cards.inc``,
sphinx-design cards with each figure, included by ``index.md``) are generated, not kept in git. A
script whose source and PNG are unchanged since the last run is not run again.
"""

from __future__ import annotations

import ast
import hashlib
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
IMAGES = HERE / "images"


def scripts() -> list[Path]:
    return sorted(p for p in HERE.glob("*.py") if p.name != "run.py")


def run(script: Path) -> float:
    """Run one script in IMAGES; return its wall time in seconds (0 when its figure is current)."""
    stamp = IMAGES / f"{script.stem}.sha1"
    digest = hashlib.sha1(script.read_bytes()).hexdigest()
    png = IMAGES / f"{script.stem}.png"
    if png.exists() and stamp.exists() and stamp.read_text() == digest:
        return 0.0
    env = {**os.environ, "MPLBACKEND": "Agg"}
    start = time.perf_counter()
    subprocess.run([sys.executable, str(script)], cwd=IMAGES, env=env, check=True)
    if not png.exists():
        raise SystemExit(f"{script.name} wrote no {png.name}")
    stamp.write_text(digest)
    return time.perf_counter() - start


def page(script: Path) -> str:
    """The page of one script: title and text from its docstring, then the figure, then the code."""
    doc = ast.get_docstring(ast.parse(script.read_text())) or script.stem
    title, _, text = doc.partition("\n")
    return (f"# {title.rstrip('.')}\n\n{text.strip()}\n\n"
            f"![{title.rstrip('.')}](images/{script.stem}.png)\n\n"
            f"```{{literalinclude}} {script.name}\n:language: python\n:lines: {_code_start(script)}-\n```\n\n"
            f"Run it with `python docs/gallery/{script.name}`.\n")


def _code_start(script: Path) -> int:
    """The first line after the module docstring."""
    tree = ast.parse(script.read_text())
    return tree.body[0].end_lineno + 1 if isinstance(tree.body[0], ast.Expr) else 1


def cards(found: list[Path]) -> str:
    """The index's thumbnails: one card per script, its figure on top and its title below."""
    lines = ["::::{grid} 1 2 3 3", ":gutter: 3", ""]
    for script in found:
        doc = ast.get_docstring(ast.parse(script.read_text())) or script.stem
        title = doc.partition("\n")[0].rstrip(".")
        lines += [f":::{{grid-item-card}} {title}", f":img-top: images/{script.stem}.png", f":img-alt: {title}",
                  f":link: {script.stem}", ":link-type: doc", ":::", ""]
    return "\n".join(lines + ["::::", ""])


def write(target: Path, text: str) -> None:
    if not target.exists() or target.read_text() != text:
        target.write_text(text)


def main() -> None:
    IMAGES.mkdir(exist_ok=True)
    found = scripts()
    jobs = int(os.environ.get("NONHOLO_DOCS_JOBS", os.cpu_count() or 1))
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for script, seconds in zip(found, pool.map(run, found)):
            print(f"gallery: {script.name} {'up to date' if seconds == 0 else f'{seconds:.1f} s'}", flush=True)
    for script in found:
        write(HERE / f"{script.stem}.md", page(script))
    write(HERE / "cards.inc", cards(found))


if __name__ == "__main__":
    main()
