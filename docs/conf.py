"""Sphinx configuration of the nonholo documentation (``make docs``)."""

import hashlib
import json
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import nonholo  # noqa: E402  (the package must be importable: make install, or PYTHONPATH)
import reference_pages  # noqa: E402

project = "nonholo"
author = "the nonholo developers"
copyright = "the nonholo developers"
release = version = nonholo.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "myst_nb",
    "sphinx_design",
]

# The reference pages list every public name by layer; autosummary writes a page per name.
reference_pages.write(HERE / "reference")
autosummary_generate = True
autosummary_imported_members = True
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autoclass_content = "both"
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True  # dataclass fields listed in "Attributes" are not documented twice
# Type fields name shapes and states ("n_states", "t") that several classes have as attributes;
# Sphinx would report each such word as an ambiguous reference. Missing references still fail the
# build through the other warnings.
suppress_warnings = ["ref.python"]

# Tutorials: the notebooks of notebooks/, shown with their outputs. The site does not execute them
# (all of them take about 10 minutes of CPU): tests/test_notebooks.py, which `make test` runs before
# `make docs` in CI, executes each one and keeps the executed copy, stamped with the SHA-256 of its
# source, in docs/_build/executed/. A stamped copy of the current source is shown; otherwise the
# notebook as stored (no outputs). NONHOLO_DOCS_EXECUTE=cache has Sphinx execute them instead.
TUTORIALS = HERE / "tutorials"
EXECUTED = HERE / "_build" / "executed"


def _tutorial(notebook: Path) -> bytes:
    source = notebook.read_bytes()
    executed = EXECUTED / notebook.name
    if executed.exists():
        stamp = json.loads(executed.read_text()).get("metadata", {}).get("nonholo_source_sha256")
        if stamp == hashlib.sha256(source).hexdigest():
            return executed.read_bytes()
    return source


for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
    target, content = TUTORIALS / notebook.name, _tutorial(notebook)
    if not target.exists() or target.read_bytes() != content:
        target.write_bytes(content)
nb_execution_mode = os.environ.get("NONHOLO_DOCS_EXECUTE", "off")
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 600
myst_enable_extensions = ["dollarmath", "colon_fence"]
myst_heading_anchors = 3

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "gallery/*.py", "**/.ipynb_checkpoints"]
templates_path = ["_templates"]

html_theme = "pydata_sphinx_theme"
html_title = "nonholo"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
}
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"  # without one the browser asks for /favicon.ico and logs a 404
html_context = {"default_mode": "auto"}  # the theme logs an error on a first visit without it

# The docstrings write absolute values and norms as in the papers, |A v - b|; reST would read
# them as substitutions. Escape a bar that opens such a term (outside ``literals``).
_BAR = re.compile(r"(?<!\\)\|(?=\S)")
_TABLE_ROW = re.compile(r"^\s*(\+[-=+]+\+|\|\s)")  # a row of a reST grid table


def _escape_bars(app, what, name, obj, options, lines):
    for i, line in enumerate(lines):
        if "|" not in line or _TABLE_ROW.match(line):
            continue
        parts = line.split("``")
        lines[i] = "``".join(_BAR.sub(r"\\|", p) if k % 2 == 0 else p for k, p in enumerate(parts))


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)
