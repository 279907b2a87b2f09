"""The guide writes its formulas in TeX (typeset by MathJax), not in ASCII.

The prose of the user pages (docs/*.md and docs/guide/*.md; not the contributing section, and not
docs/benchmarks.md, which benchmarks/README.template.md generates) and of the tutorials (the Markdown
cells of notebooks/*.ipynb, each cell on its own; code cells and outputs are not prose) is scanned
outside code blocks, code spans, inline and display math and link targets, for what ASCII
mathematics looks like:
a caret (``h^(2)``, ``G^-1``, ``A^T``, ``eps^2``), a prime on a single letter or a Greek name
(``G v'``, ``lambda'``), a Greek letter spelled out (``lambda``, ``eps``), ``sqrt``, ``sin``,
``cos``, ``d/dt``, ``<=``, ``+-``, subscripts written with an underscore (``theta_k``, ``D_perp``),
absolute values written with bars outside a table, ``k x k``, an equation of a one-letter symbol
(``N = 8``, ``b > 0``) and ``O(eps)``; and a ``$`` formula that does not close on its line (the scan
is by line). Each finding names the page (or the notebook and its cell) and the line. A second
test injects ASCII formulas into a page and checks that each is found, and that the same formulas
inside code spans and math are not; a third puts one into a notebook's Markdown and code cells.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"
# generated from benchmarks/README.template.md: its prose is checked there, not here
EXCLUDED = {"benchmarks.md"}

GREEK = ("alpha|beta|gamma|Gamma|delta|Delta|eps|epsilon|varepsilon|zeta|eta|theta|Theta|kappa|lambda|Lambda|"
         "mu|nu|xi|Xi|pi|Pi|rho|sigma|Sigma|tau|phi|Phi|chi|psi|Psi|omega|Omega")
# each pattern names what it finds; a line of prose that matches one is an ASCII formula
PATTERNS = {
    "caret (power, index, transpose or inverse)": re.compile(r"\^"),
    "prime (derivative)": re.compile(rf"(?<![\w'])(?:[A-Za-z]|{GREEK})'+(?![A-Za-z])"),
    "Greek letter spelled out": re.compile(rf"(?<![\w-])(?:{GREEK})(?![a-z])"),
    "function written in ASCII": re.compile(r"(?<![\w.])(?:sqrt|sin|cos|tan|arctan)(?![\w.])"),
    "derivative d/dx": re.compile(r"(?<![\w/])d\^?\d?/d[a-zA-Z]"),
    "comparison in ASCII": re.compile(r"<=|>=|!=|\+-|\+/-"),
    # theta_k, D_perp, h_eps(...); not the shapes n_t, n_states
    "subscript with an underscore": re.compile(r"(?<![\w.])(?:[A-Za-mo-z]|[A-Z][a-z]*|[a-z]{2,})"
                                               r"_(?:\{|\(|[a-z]{1,2}\b|\d+\b|perp\b|eps\b|mach\b)"),
    "product k x k": re.compile(r"(?<![\w.])[A-Za-z0-9)] x [A-Za-z0-9(](?![\w])"),
    "equation of a symbol (N = 8, b != 0, O(eps))": re.compile(r"(?<![\w.-])[A-Za-z] ?(?:=|<|>) ?[-+(\w]"
                                                                r"|(?<![\w.])O\("),
}
TABLE_ROW = re.compile(r"^\s*\|")
BARS = re.compile(r"\|")

FENCE = re.compile(r"^\s*(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$")
LINK_TARGET = re.compile(r"\]\([^)]*\)|<https?://[^>]*>|https?://\S+")
HTML = re.compile(r"<!--.*?-->|<[^>]+>")


def pages() -> list[Path]:
    found = sorted(p for p in DOCS.glob("*.md") if p.name not in EXCLUDED)
    return found + sorted((DOCS / "guide").glob("*.md"))


def notebooks() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def markdown_cells(notebook: dict) -> list[tuple[int, str]]:
    """(index, source) of the Markdown cells of a notebook read as JSON (nbformat 4)."""
    found = []
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] == "markdown":
            source = cell["source"]
            found.append((index, source if isinstance(source, str) else "".join(source)))
    return found


def notebook_ascii_formulas(notebook: dict) -> list[tuple[int, int, str, str]]:
    """(cell, line in the cell, what, the matched text) of every ASCII formula in the Markdown cells."""
    return [(index, n, what, hit) for index, source in markdown_cells(notebook)
            for n, what, hit in ascii_formulas(source)]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines of a Markdown page as a reader sees their prose: code, math and link targets blanked.

    Fenced blocks (code, directives), ``$$ ... $$`` display math, code spans, inline ``$...$``
    math, link targets and HTML are removed; line numbers are kept (1-based).
    """
    out, fence, display = [], None, False
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if fence:
            if stripped.startswith(fence):
                fence = None
            continue
        match = FENCE.match(line)
        if match:
            fence = match.group(1)
            continue
        if display:
            if "$$" in stripped:
                display = False
            continue
        if stripped.startswith("$$"):
            display = stripped == "$$" or not stripped[2:].rstrip().endswith("$$")
            continue
        line = CODE_SPAN.sub(" ", line)
        line = INLINE_MATH.sub(" ", line)
        line = LINK_TARGET.sub("]", line)
        line = HTML.sub(" ", line)
        out.append((number, line))
    return out


def ascii_formulas(text: str) -> list[tuple[int, str, str]]:
    """(line, what, the matched text) of every ASCII formula in the prose of a page."""
    found = []
    for number, line in prose_lines(text):
        for what, pattern in PATTERNS.items():
            for match in pattern.finditer(line):
                found.append((number, what, match.group(0)))
        if not TABLE_ROW.match(line) and BARS.search(line):
            found.append((number, "absolute value with bars", line.strip()))
        if re.search(r"(?<!\\)\$", line):  # the scan is by line: a formula opens and closes on one line
            found.append((number, "inline math not closed on its line", line.strip()))
    return found


@pytest.mark.parametrize("page", pages(), ids=lambda p: p.relative_to(DOCS).as_posix())
def test_no_ascii_formulas_in_prose(page):
    text = page.read_text()
    found = ascii_formulas(text)
    lines = text.splitlines()
    report = "\n".join(f"{page.relative_to(ROOT)}:{n}: {what} {hit!r} in: {lines[n - 1].strip()[:120]}"
                       for n, what, hit in found)
    assert not found, f"ASCII formulas in the prose (write them as $...$ TeX):\n{report}"


@pytest.mark.parametrize("notebook", notebooks(), ids=lambda p: p.name)
def test_no_ascii_formulas_in_notebook_prose(notebook):
    data = json.loads(notebook.read_text())
    sources = dict(markdown_cells(data))
    found = notebook_ascii_formulas(data)
    report = "\n".join(f"{notebook.relative_to(ROOT)}: cell {cell}, line {n}: {what} {hit!r} in: "
                       f"{sources[cell].splitlines()[n - 1].strip()[:120]}" for cell, n, what, hit in found)
    assert not found, f"ASCII formulas in the Markdown cells (write them as $...$ TeX):\n{report}"


def test_notebooks_are_found():
    names = {p.name for p in notebooks()}
    assert len(names) >= 12
    assert {"quickstart.ipynb", "eldering_2016.ipynb", "gzenda_chhabra.ipynb", "lewis_murray_1995.ipynb",
            "choosing_a_model_and_method.ipynb", "your_own_system.ipynb"} <= names


def test_an_ascii_formula_in_a_notebook_is_found_in_markdown_only():
    """A formula put into a Markdown cell is found, with its cell and line; in a code cell it is not."""
    data = json.loads((NOTEBOOKS / "eldering_2016.ipynb").read_text())
    formula = "with x' = R cos(theta) phi' and eps <= 1e-3"
    code = next(i for i, c in enumerate(data["cells"]) if c["cell_type"] == "code")
    data["cells"][code]["source"] = ["# " + formula + "\n", "x = 1  # h^(2)"]
    assert notebook_ascii_formulas(data) == []
    markdown, source = markdown_cells(data)[-1]
    data["cells"][markdown]["source"] = source + "\n\nIn the prose, " + formula + "."
    found = notebook_ascii_formulas(data)
    line = source.count("\n") + 3
    assert found and {(cell, n) for cell, n, _, _ in found} == {(markdown, line)}
    assert {what for _, _, what, _ in found} >= {"prime (derivative)", "function written in ASCII",
                                                "Greek letter spelled out", "comparison in ASCII"}


def test_pages_are_found():
    names = {p.relative_to(DOCS).as_posix() for p in pages()}
    assert {"errata.md", "caveats.md", "cheatsheet.md", "index.md", "guide/api_at_a_glance.md"} <= names
    assert "benchmarks.md" not in names and not any(n.startswith("contributing/") for n in names)


INJECTED = [
    ("the multipliers of G v' + c = A^T lambda", {"caret (power, index, transpose or inverse)", "prime (derivative)",
                                                  "Greek letter spelled out"}),
    ("printed h^(2) = + m^2 R J^2/(mu^2 (J + m R^2)^2)", {"caret (power, index, transpose or inverse)"}),
    ("from Qmat = G^-1 A^T M^-1 mu^-1 M^-1 A", {"caret (power, index, transpose or inverse)"}),
    ("converges like eps^2 for small eps", {"caret (power, index, transpose or inverse)", "Greek letter spelled out"}),
    ("the multiplier lambda' is free", {"prime (derivative)"}),
    ("the chord is |u|/cos(D/2)", {"function written in ASCII", "absolute value with bars"}),
    ("with x' = R cos(ph) th'", {"prime (derivative)", "function written in ASCII"}),
    ("the projector P_perp and theta_k", {"subscript with an underscore"}),
    ("dE/dt = -(1/e) |A v|", {"absolute value with bars"}),
    ("expanding d/dt(dL/dq) once", {"derivative d/dx"}),
    ("the residual is <= rtol", {"comparison in ASCII"}),
    ("the k x k block", {"product k x k"}),
    ("the chain N = 8 where b > 0, an O(h) error", {"equation of a symbol (N = 8, b != 0, O(eps))"}),
    ("a formula $a +\n  b$ across a line break", {"inline math not closed on its line"}),
]


@pytest.mark.parametrize(("formula", "kinds"), INJECTED, ids=[f for f, _ in INJECTED])
def test_an_injected_ascii_formula_is_found(formula, kinds):
    """Each formula, put into the prose of a converted page, is found on its line; in code or math it is not."""
    page = (DOCS / "errata.md").read_text().splitlines()
    at = next(i for i, line in enumerate(page) if line.startswith("- ") and i > 10)
    injected = page[:at] + [f"- In the prose, {formula}, as printed."] + page[at:]
    found = ascii_formulas("\n".join(injected))
    lines = range(at + 1, at + 2 + formula.count("\n"))  # the injected lines (1-based)
    assert {what for n, what, _ in found if n == at + 1} >= kinds
    assert found and all(n in lines for n, _, _ in found), "the page itself has ASCII formulas"
    if "\n" in formula:  # a code span or a formula does not cross a line in these pages either
        return
    in_code = page[:at] + [f"- In a code span, `{formula}`, and a block:", "", "```python", formula, "```"] + page[at:]
    assert ascii_formulas("\n".join(in_code)) == []
    in_math = page[:at] + ["- In math, $a^2 + \\lvert b \\rvert$, and a display:", "", "$$", formula, "$$"] + page[at:]
    assert ascii_formulas("\n".join(in_math)) == []


def test_default_page_without_formulas_is_clean():
    """Plain English with apostrophes, possessives, d'Alembert, shapes and tables is not a formula."""
    text = ("Adams' steps and Kane's equations, Lagrange-d'Alembert, a shape (n_t,) and 3.1x faster.\n\n"
            "| a | b |\n|---|---|\n| `x^2` | $\\lvert v \\rvert$ |\n")
    assert ascii_formulas(text) == []
