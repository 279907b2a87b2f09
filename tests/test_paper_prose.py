"""The papers' prose against what the code draws and runs, cheaply.

A notebook's markdown may name only the colours, radii and models its figures use: the figure
functions return (or take from module constants) the colours, labels, radii and modes they draw,
and the sentences around each figure are checked against those strings. REPORT's benchmark
sections must run from a checkout: the benchmark scripts import from this checkout, and
``run_benchmark`` returns the table a script writes (checked on a tiny script, not the benchmarks).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import nbformat
import pytest

from papers import registry
from papers.eldering.figures import FIRST_ORDER_CURVES, curve_colors
from papers.fedorov_zenkov import experiments as fz
from papers.lewis_murray import experiments as lm
from papers.lewis_murray.figures import FIT_COLORS
from papers.lewis_murray.report import _period_remark, report_fit

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
COLOURS = ("red", "green", "blue", "orange", "purple", "brown", "cyan", "magenta", "grey", "gray", "black")
# words that name a model in the prose of Figs. 7 and 8, and the pattern that finds each
MODEL_WORDS = {"paper": r"\bpaper'?s?\b", "nonholo": r"\bnonholo'?s?\b(?!nomic)", "friction": r"\bfriction\b",
               "nonholonomic": r"\bnonholonomic\b", "reduced": r"\breduced\b"}
MODE_WORDS = {"derived": r"\bderived\b", "paper_compatible": r"paper-compatible"}


# ----------------------------------------------------------------------------------- helpers
def _markdown_around(path: Path, marker: str) -> str:
    """The markdown cells that introduce and follow the code cell containing ``marker``: from the
    previous code cell that shows a figure to the next one."""
    cells = nbformat.read(path, as_version=4).cells
    at = [i for i, c in enumerate(cells) if c.cell_type == "code" and marker in c.source]
    assert len(at) == 1, f"{marker!r} in {len(at)} code cells of {path.name}"
    shows = [i for i, c in enumerate(cells) if c.cell_type == "code" and "show(" in c.source]
    before = max([i for i in shows if i < at[0]], default=-1)
    after = min([i for i in shows if i > at[0]], default=len(cells))
    return "\n".join(c.source for c in cells[before + 1:after] if c.cell_type == "markdown")


def _all_markdown(path: Path) -> str:
    return "\n".join(c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "markdown")


def _sentences(text: str) -> list:
    return [s for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*$`(])|\n\s*\n|\n\* ", text) if s.strip()]


def colour_claims(text: str) -> list:
    """(colour, clause) for each colour the prose attaches to a curve: 'Colour: clause' (to the next
    '.' or ';') and 'clause (colour...' (back to the previous ',', ';', ':' or '.')."""
    claims = []
    for colour in COLOURS:
        for m in re.finditer(rf"\b{colour}\s*:", text, flags=re.I):
            claims.append((colour, re.split(r"[.;]\s", text[m.end():], maxsplit=1)[0]))
        for m in re.finditer(rf"\(\s*{colour}\b", text, flags=re.I):
            head = text[:m.start()]
            claims.append((colour, re.split(r"[,;:.]\s", head)[-1]))
    return claims


def check_colour_claims(text: str, colours: dict) -> list:
    """The claims of ``text`` that contradict ``colours`` (colour word -> legend label): a colour the
    figure does not draw, or a model word the clause names and that colour's label does not."""
    wrong = []
    for colour, clause in colour_claims(text):
        label = colours.get(colour.lower())
        if label is None:
            wrong.append((colour, clause, "colour not drawn"))
            continue
        for word, pattern in MODEL_WORDS.items():
            if re.search(pattern, clause, flags=re.I) and not re.search(pattern, label, flags=re.I):
                wrong.append((colour, clause, f"names {word}; the {colour} curve is {label!r}"))
    return wrong


def check_radius_claims(text: str, radii) -> list:
    """Sentences about the vakonomic figures that name a radius must name every radius drawn and not
    say 'only'; sentences tying Table 1 to r = 2.54 cm must give the equivalent r = 1.27 cm reading."""
    wrong = []
    for s in _sentences(text):
        named = {float(r) for r in re.findall(r"r\s*=\s*([0-9.]+)\$?\s*cm", s)}  # r = 1.27 cm or $r = 1.27$ cm
        if "vakonomic" in s.lower() and named:
            if not {float(r) for r in radii} <= named:
                wrong.append((s, f"names r = {sorted(named)}, the figures draw {list(radii)}"))
            if re.search(r"\bonly\b", s) and len(radii) > 1:
                wrong.append((s, "says 'only' of one radius; the figures draw several"))
        if re.search(r"\bTable 1\b|\b(its|the) table\b", s, flags=re.I) and "2.54" in s and "1.27" not in s:
            wrong.append((s, "ties Table 1 to r = 2.54 cm without the equivalent r = 1.27 cm reading"))
    return wrong


def check_mode_claims(text: str, modes, headline: str) -> list:
    """The fit's prose names its headline mode and no mode the fit does not run."""
    named = {mode for mode, pattern in MODE_WORDS.items() if re.search(pattern, text)}
    wrong = [] if headline in named else [("headline", f"the headline mode {headline!r} is not named")]
    return wrong + [(mode, "named but not fitted") for mode in named - set(modes)]


# ----------------------------------------------------------------------------------- the checks can fail
def test_the_checks_catch_the_old_contradictions():
    """The sentences issue 30 found, each caught; their corrections pass."""
    colours = curve_colors(FIRST_ORDER_CURVES)
    assert check_colour_claims("Green: nonholo's reduced model of order 1, `sleigh.reduced(eps, order=1)`.", colours)
    assert check_colour_claims("the friction sleigh (purple)", colours)
    assert not check_colour_claims("the paper's first-order model X_NH + eps X^(1) (green; corrected), "
                                   "nonholo's reduced model of order 1 (orange, dashed).", colours)
    assert check_radius_claims("The vakonomic figures use r = 1.27 cm (the paper does not say).", lm.VAK_RADII)
    assert check_radius_claims("The vakonomic figures use r = 1.27 cm only.", lm.VAK_RADII)
    assert check_radius_claims("This is the evidence that the paper computed its table with r = 2.54 cm.",
                               lm.VAK_RADII)
    assert not check_radius_claims("The vakonomic figures are drawn for both r = 1.27 cm and r = 2.54 cm.",
                                   lm.VAK_RADII)
    assert check_radius_claims("The vakonomic figures use $r = 1.27$ cm (the paper does not say).", lm.VAK_RADII)
    assert not check_radius_claims("The vakonomic figures are drawn for both $r = 1.27$ cm and $r = 2.54$ cm.",
                                   lm.VAK_RADII)
    assert check_mode_claims("fits nu and delta (paper-compatible mode, mu = 0)", lm.FIT_MODES, lm.FIT_MODES[0])
    assert not check_mode_claims("the derived one is the headline, the paper-compatible one beside it",
                                 lm.FIT_MODES, lm.FIT_MODES[0])


# ----------------------------------------------------------------------------------- notebooks
def test_eldering_notebook_colours_are_the_figures():
    colours = curve_colors(FIRST_ORDER_CURVES)
    assert colours["green"].startswith("X_NH") and "paper" in colours["green"] and "nonholo" in colours["orange"]
    text = "\n".join(_markdown_around(NOTEBOOKS / "eldering_2016.ipynb", marker)
                     for marker in ('show(E.fig7, "eldering_fig7")', 'show(E.fig8, "eldering_fig8")'))
    assert len(colour_claims(text)) >= 4
    assert check_colour_claims(text, colours) == []


def test_eldering_fig7_returns_the_colours_it_draws(tmp_path):
    """The colours checked above are the ones fig7 draws and returns."""
    from papers.eldering.figures import fig7

    assert fig7(tmp_path / "fig7.png")["colors"] == curve_colors(FIRST_ORDER_CURVES)


def test_lewis_murray_notebook_radii_and_modes():
    path = NOTEBOOKS / "lewis_murray_1995.ipynb"
    assert check_radius_claims(_all_markdown(path), lm.VAK_RADII) == []
    for marker in ('show("lewis_murray_fig11", lm.fig11)',):
        text = _markdown_around(path, marker)
        assert all(re.search(rf"r = {re.escape(f'{r:g}')}\$? cm", text) for r in lm.VAK_RADII)
    fit_text = _markdown_around(path, 'show("lewis_murray_fit"')
    assert check_mode_claims(fit_text, lm.FIT_MODES, lm.FIT_MODES[0]) == []
    assert set(FIT_COLORS) == set(lm.FIT_MODES)


@pytest.mark.parametrize("name", ["eldering_2016", "lewis_murray_1995", "fedorov_zenkov_2005"])
def test_notebooks_make_no_universal_claim_the_code_does_not_compute(name):
    """'no friction setting moves the period by more than 0.015 s' was computed over Table 1's rows only."""
    text = _all_markdown(NOTEBOOKS / f"{name}.ipynb")
    assert not re.search(r"no friction setting", text, flags=re.I)
    assert "are clipped" not in text


def test_notebooks_show_the_analyses_the_figures_show():
    """Eldering section 6, Lewis-Murray section 2.4 and case 3, Fedorov-Zenkov Theorem 5."""
    for name, figures in [("eldering_2016", ["eldering_section6"]),
                          ("lewis_murray_1995", ["lewis_murray_fig3_realizing", "lewis_murray_case3_eigenvalues",
                                                 "lewis_murray_delta_scan", "lewis_murray_fit"]),
                          ("fedorov_zenkov_2005", ["fedorov_zenkov_theorem5"])]:
        nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        for figure in figures:
            assert figure in code and f"{figure}.png" in nb.metadata["nonholo"]["figures"], (name, figure)


# ----------------------------------------------------------------------------------- REPORT
def _fit_result() -> dict:
    """A result of the shape fig_fit returns (numbers of the order fit_fit computes)."""
    fits = {"derived": dict(x=[1.05, 7.45e-4], stderr=[1.3, 1.6e-4], predicted=[4.666, -1.41, -0.9, 0.52, 0.93, 1.06],
                            rss=1.227, at_bound=[False, False], nfev=27,
                            loops=[4.665, 4.662, 4.670, 4.667, 4.666, 4.666]),
            "paper_compatible": dict(x=[15.0, 2.32e-3], stderr=[6.6, 2.8e-4],
                                     predicted=[4.851, -1.18, -0.08, 0.42, 0.69, 0.95], rss=1.737,
                                     at_bound=[True, False], nfev=34,
                                     loops=[4.600, 4.570, 4.559, 4.686, 5.725, float("nan")])}
    return dict(fits=fits, headline="derived", modes=list(lm.FIT_MODES), colors=FIT_COLORS, labels={})


def test_report_fit_names_both_models_and_the_headline():
    text = report_fit({"lewis_murray_fit": _fit_result()}, Path("."))
    for mode in lm.FIT_MODES:
        assert lm.MODE_LABELS[mode] in text
    assert "headline" in text and "Derived model (headline)" in text
    assert "nu at its upper bound 15" in text and "1.23 cm^2" in text and "1.74 cm^2" in text
    # the paper-compatible t_5/5 is inflated by its fifth loop: the per-loop times and the mean of loops 1-4
    assert "the first four average 4.604 s, the fifth takes 5.725 s" in text and "sixth time" in text
    assert "4.665, 4.662, 4.670, 4.667, 4.666 s (regular" in text


def test_period_remark_states_its_evidence():
    rows = [dict(period=7 * 3.14159265 / lm.OMEGA + 0.01)]
    text = _period_remark({"paper_compatible": rows, "derived": rows}, _fit_result())
    assert "no friction setting" not in text.lower()
    assert "these five settings" in text and "4.851 s" in text
    assert "none closer" not in text and "anomalous fifth loop" in text


def test_run_benchmark_returns_the_table_a_script_writes(tmp_path, monkeypatch):
    bench = tmp_path / "benchmarks"
    bench.mkdir()
    (bench / "tiny.py").write_text("import sys\nopen(sys.argv[-1], 'w').write('| ok |')\n")
    (bench / "broken.py").write_text("raise SystemExit('misses its target')\n")
    monkeypatch.setattr(registry, "REPOSITORY", tmp_path)
    assert registry.run_benchmark("tiny.py", tmp_path / "t.md") == "| ok |"
    failed = registry.run_benchmark("broken.py", tmp_path / "b.md")
    assert failed.startswith("_benchmark failed") and "misses its target" in failed
    with pytest.raises(FileNotFoundError, match="script"):
        registry.benchmark_command("absent.py", tmp_path / "a.md")


@pytest.mark.parametrize("script", ["friction_sleigh.py", "discrete_sleigh_work_precision.py"])
def test_report_benchmarks_import_from_this_checkout(script, tmp_path, monkeypatch):
    """The scripts REPORT runs exist in this checkout and import (papers, cli, nonholo) in the
    environment run_benchmark gives them, even when the checkout is not on the caller's path."""
    import os

    assert registry.REPOSITORY == ROOT and (ROOT / "papers").is_dir()
    path = os.environ.get("PYTHONPATH", "")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in path.split(os.pathsep)
                                                     if p and Path(p).resolve() != ROOT))
    argv, env = registry.benchmark_command(script, tmp_path / "t.md")
    assert Path(argv[-3]).is_file() and Path(argv[-3]).parent == ROOT / "benchmarks"
    proc = subprocess.run([*argv[:-2], "--help"], env=env, cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not any("installed without the repository" in p.read_text() for p in (ROOT / "papers").rglob("*.py"))


def test_discrete_benchmark_names_the_methods_it_runs():
    """Each CVODE label of the work-precision comparison stands for an explicit method (not 'auto')."""
    assert {opts["method"] for opts in fz.CVODE_METHODS.values()} == {"bdf", "adams"}
    assert fz.CVODE_METHODS["CVODE BDF"]["drift_control"] is True
    import importlib.util

    spec = importlib.util.spec_from_file_location("wp_bench", ROOT / "benchmarks" / "discrete_sleigh_work_precision.py")
    source = spec.loader.get_data(spec.origin).decode()
    assert 'method="auto"' not in source and "fz.cvode_run" in source
