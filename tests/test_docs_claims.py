"""What the documentation says about the default method and its accuracy, against what runs.

The guide states once what ``method="auto"`` does, which method to choose and what accuracy to
expect (docs/guide/accuracy.md, "The method"); other pages link there. A sentence anywhere in
the documentation (README.md, the pages of docs/, the tutorials' Markdown cells, the public
docstrings) that states a method choice or a measured accuracy is checked here against the code
(small runs that report ``result.method``) and against ``benchmarks/results/auto_accuracy.json``:

- a sentence giving Adams as auto's choice for a model that is not stiff must restrict it to what
  auto runs with Adams (events, sensitivities, dense output, or a reduced model whose right-hand
  side is expensive), since a plain non-stiff run is DOP853;
- a sentence saying that auto goes on with BDF after drift restarts is wrong when a run that
  restarts for drift stays with Adams;
- a sentence giving reduced models Adams without DOP853 is wrong when the reduced sleigh runs
  DOP853;
- a number given as the error of auto (or of the default tolerances) on a system of the accuracy
  benchmark must be within a factor 3 of the measured error at the tolerance the sentence states
  (default rtol 1e-8).
"""

from __future__ import annotations

import inspect
import json
import re
from functools import cache
from pathlib import Path

import nbformat
import pytest

import nonholo as nh

ROOT = Path(__file__).resolve().parents[1]
ACCURACY = ROOT / "benchmarks" / "results" / "auto_accuracy.json"
Y0 = [0, 0, 0, -1.5, 0, 1.0]


# ----------------------------------------------------------------------------------- what runs
@cache
def truth() -> dict:
    """What "auto" runs, from small runs of the sleigh (a few milliseconds each); "dense": what a run of
    Adams (auto's for runs with sensitivities of unconstrained models; auto's for dense output until
    DOP853 kept its interpolant) does with drift control."""
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    plain = nh.simulate(sleigh.nonholonomic(), (0, 5), Y0)
    dense = nh.simulate(sleigh.nonholonomic(), (0, 200), Y0, dense_output=True, rtol=1e-6, atol=1e-8,
                        method="adams")
    reduced = nh.simulate(sleigh.reduced(1e-3, order=1), (0, 5), Y0)
    friction = nh.simulate(sleigh.friction(1e-6), (0, 5), Y0)
    return {"plain": plain.method, "dense": dense.method, "dense_restarts": dense.stats.get("n_restarts", 0),
            "reduced": reduced.method, "friction": friction.method}


@cache
def measured_errors() -> dict:
    """(system, rtol) -> auto's global error in the accuracy benchmark."""
    block = json.loads(ACCURACY.read_text())["blocks"][0]
    col = {c: i for i, c in enumerate(block["columns"])}
    return {(r[col["system"]].lower(), float(r[col["rtol"]])): float(r[col["auto"]]) for r in block["rows"]}


# ----------------------------------------------------------------------------------- the pages
def sentences(text: str) -> list[str]:
    """The sentences of a page: paragraphs, list items and table cells apart, then split at each
    full stop that ends a sentence."""
    text = re.sub(r"```.*?```|^>>> .*$", " ", text, flags=re.S | re.M)  # code states nothing
    blocks = re.split(r"\n\s*\n|\n\s*(?=[-*+] |\d+\. |\|)|\|", text)
    found = []
    for block in blocks:
        block = re.sub(r"\s+", " ", block).strip()
        found += [s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*`(\[\"])", block) if s.strip()]
    return found


def pages() -> dict[str, str]:
    found = {"README.md": (ROOT / "README.md").read_text()}
    for path in sorted((ROOT / "docs").rglob("*.md")):
        rel = path.relative_to(ROOT).as_posix()
        if "/_build/" not in rel and "/generated/" not in rel:
            found[rel] = path.read_text()
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        found[path.relative_to(ROOT).as_posix()] = "\n\n".join(c.source for c in cells if c.cell_type == "markdown")
    for name in nh.__all__:
        doc = inspect.getdoc(getattr(nh, name, None)) if name != "__version__" else None
        if doc:
            found[f"docstring of nonholo.{name}"] = doc
    return found


# ----------------------------------------------------------------------------------- the claims
AUTO = re.compile(r"\bauto\b|default method", re.I)
ADAMS_SCOPE = re.compile(r"event|sensitivit|dense|reduced|expensive|\bcheap|adams->bdf|\"adams\"|'adams'", re.I)


# Adams named as what a method choice runs: "starts with Adams", "Adams for the others", "non-stiff (Adams)"
ADAMS_CHOSEN = re.compile(r"\b(starts|begins|runs|uses|picks|chooses|means|choice is)\s+(with\s+)?adams\b"
                          r"|\badams\s+(for|on)\s+(the\s+)?(others?|non-?stiff|nonholonomic|vakonomic|hamel|"
                          r"unconstrained|constrained|smooth)\b|non-?stiff\s*\(adams\)|\b(else|otherwise)\s+adams\b",
                          re.I)


def adams_unscoped(sentence: str) -> bool:
    """Adams given as a choice without the runs it is chosen for: the comma-separated piece that
    chooses Adams (with the pieces before it back to one that opens a condition, "with events,
    ...") names no such run; after "else"/"otherwise", the whole sentence."""
    pieces = [p.strip().lower() for p in re.split(r"[,;:()]", sentence)]
    for i, piece in enumerate(pieces):
        chosen = ADAMS_CHOSEN.search(piece)
        if not chosen:
            continue
        if re.match(r"else|otherwise", chosen.group(0), re.I):
            if not ADAMS_SCOPE.search(sentence):
                return True
            continue
        context = piece
        if piece.startswith("adams"):  # the end of a list: "with events, sensitivities or dense output, Adams"
            for before in reversed(pieces[max(0, i - 4):i]):
                context += " " + before
                if re.match(r"(with|in runs with|for runs with|when)\b", before):
                    break
            else:
                context = piece
        if not ADAMS_SCOPE.search(context):
            return True
    return False


def check(sentence: str, facts: dict, errors: dict) -> list[str]:
    wrong, low = [], sentence.lower()
    if AUTO.search(sentence) and facts["plain"] != "adams" and adams_unscoped(sentence):
        wrong.append(f"gives Adams as auto's choice; a plain non-stiff run is {facts['plain']}")
    if (AUTO.search(sentence) and re.search(r"\bbdf\b", low) and re.search(r"restart", low)
            and re.search(r"continues with|goes on with|switch(es)? to", low)
            and facts["dense"] == "adams" and facts["dense_restarts"] > 0):
        wrong.append(f"says auto goes on with BDF after restarts; a run with {facts['dense_restarts']} drift "
                     "restarts stays with Adams")
    reduced_adams = re.search(r"\b(run|runs|integrated|integrate) with adams\b|non-stiff \(adams\)", low)
    if re.search(r"\breduced\b", low) and reduced_adams and "dop853" not in low and facts["reduced"] == "dop853":
        wrong.append("gives reduced models Adams; the reduced sleigh runs DOP853")
    if AUTO.search(sentence) or re.search(r"default (rtol|tolerance)", low):
        named = [(system, r) for (system, r) in errors if system in low]
        stated = re.search(r"rtol\s*(?:=\s*)?(1e-?\d+)", low)
        rtol = float(stated.group(1).replace("e", "e-").replace("--", "-")) if stated else 1e-8
        if re.search(r"\berrors?\b", low):
            for value in re.findall(r"(?<![\w.])(\d(?:\.\d+)?e-\d+)(?![\w.])", low):
                if stated and value == stated.group(1):
                    continue
                for system in {s for s, _ in named}:
                    want = errors.get((system, rtol))
                    if want is not None and not want / 3 <= float(value) <= want * 3:
                        wrong.append(f"gives {value} as the error on the {system} at rtol {rtol:g}; measured "
                                     f"{want:.2g} (benchmarks/results/auto_accuracy.json)")
    return wrong


def test_the_checks_catch_the_old_contradictions():
    """The sentences issue 41 found, each caught, and their corrections not."""
    facts = {"plain": "dop853", "dense": "adams", "dense_restarts": 3, "reduced": "dop853", "friction": "bdf"}
    errors = {("chaplygin sleigh", 1e-8): 7.5e-9}
    bad = ['`method="auto"` (the default) starts with Adams, checks the residual after every step.',
           "reduced models: DOP853 when their right-hand side is cheap; auto's choice is Adams for the others.",
           "Integration (auto): BDF for stiff models, DOP853 for cheap reduced ones, Adams for the others.",
           '"auto" continues with BDF when restarts come less than 20 steps apart.',
           "The reduced models, not being stiff, run with Adams.",
           "The default rtol 1e-8 gives errors of order 1e-6 over 20 time units of the Chaplygin sleigh."]
    for s in bad:
        assert check(s, facts, errors), s
    good = ['`method="auto"` runs DOP853 at rtol / 10; with events, sensitivities or dense output, Adams.',
            'With `method="auto"`, Adams projects and restarts when the residual exceeds rtol / 10.',
            "With the default tolerances auto's error on the Chaplygin sleigh is 7.5e-9.",
            "Reduced models run DOP853 when their right-hand side is cheap, else Adams.",
            "Under auto the error stays below rtol; BDF and Adams at the same tolerances leave more.",
            "Friction: BDF (what auto runs for it), while Adams fails for eps <= 1e-3."]
    for s in good:
        assert not check(s, facts, errors), s


def test_what_auto_runs_is_what_the_checks_assume():
    facts = truth()
    assert facts["plain"] == "dop853" and facts["friction"] == "bdf"
    assert facts["dense"].startswith("adams")
    assert facts["reduced"] in ("dop853", "adams")
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    assert nh.simulate(sleigh.nonholonomic(), (0, 5), Y0, dense_output=True).method == facts["plain"]


@pytest.mark.parametrize("page", sorted(pages()))
def test_no_page_contradicts_what_runs(page):
    facts, errors = truth(), measured_errors()
    wrong = [f"{s[:160]!r}: {w}" for s in sentences(pages()[page]) for w in check(s, facts, errors)]
    assert not wrong, f"{page}:\n  " + "\n  ".join(wrong)
