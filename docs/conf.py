"""Sphinx configuration of the nonholo documentation (``make docs``)."""

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

# Tutorials: the notebooks of notebooks/, executed by the build itself (myst-nb's jupyter-cache under
# docs/_build/.jupyter_cache): a notebook runs again only when its code changed, so the site shows
# every tutorial with its outputs and figures from a clean clone, whatever ran before. A cell that
# raises, or one that runs longer than nb_execution_timeout seconds, fails the build.
# NONHOLO_DOCS_EXECUTE=off shows the notebooks as stored (no outputs), for a quick look at the prose.
TUTORIALS = HERE / "tutorials"
for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
    target, content = TUTORIALS / notebook.name, notebook.read_bytes()
    if not target.exists() or target.read_bytes() != content:
        target.write_bytes(content)
nb_execution_mode = os.environ.get("NONHOLO_DOCS_EXECUTE", "cache")
nb_execution_cache_path = str(HERE / "_build" / ".jupyter_cache")
nb_execution_timeout = 300  # seconds per cell
nb_execution_raise_on_error = True
nb_execution_show_tb = True
nb_execution_excludepatterns = []
# the notebooks write their figures where NONHOLO_FIGURES points (papers.figure_dir); in the build
# that is a scratch folder, not the checkout
os.environ.setdefault("NONHOLO_FIGURES", str(HERE / "_build" / "notebook_figures"))
os.environ.pop("MPLBACKEND", None)  # the kernel's inline backend shows the figures (Agg would hide them)
# the kernel ("python3", whose command is `python`) runs the interpreter that runs Sphinx, with the
# checkout's papers/ importable (the paper notebooks add the notebooks' parent folder to sys.path,
# which is docs/ for the copies the build executes)
os.environ["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in [str(ROOT), os.environ.get("PYTHONPATH", "")] if p)

# Math: MathJax 2 from Debian's libjs-mathjax (make docs-deps installs it), served with the site so
# that formulas typeset offline; no CDN. Only the parts the TeX input and CommonHTML output load
# are copied (about 3 MB of the package's 54).
MATHJAX = Path(os.environ.get("NONHOLO_MATHJAX", "/usr/share/javascript/mathjax"))
MATHJAX_PARTS = ["MathJax.js", "config/TeX-AMS_CHTML.js", "extensions", "jax/input/TeX", "jax/output/CommonHTML",
                 "jax/element", "fonts/HTML-CSS/TeX/woff", "localization/en"]
MATHJAX_STATIC = HERE / "_build" / "mathjax_static"


def _copy_mathjax() -> None:
    import shutil

    if not (MATHJAX / "MathJax.js").exists():
        raise RuntimeError(f"MathJax 2 not found at {MATHJAX}: install Debian's libjs-mathjax (make docs-deps does) "
                           "or point NONHOLO_MATHJAX at a MathJax 2 folder")
    for part in MATHJAX_PARTS:
        source, target = MATHJAX / part, MATHJAX_STATIC / "mathjax" / part
        if target.exists():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy2(source, target)


_copy_mathjax()
mathjax_path = "mathjax/MathJax.js?config=TeX-AMS_CHTML"
# typeset only what Sphinx and myst-nb mark as math (a "$" in prose or code stays as it is)
# (the fast preview and the assistive MathML copy double the work on a long tutorial: off)
mathjax2_config = {"tex2jax": {"processClass": "math|output_area", "ignoreClass": "document"},
                   "messageStyle": "none", "showMathMenu": False,
                   "fast-preview": {"disabled": True}, "AssistiveMML": {"disabled": True}}
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
html_static_path = ["_static", str(MATHJAX_STATIC)]
html_css_files = ["nonholo.css"]
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
