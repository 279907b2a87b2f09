"""The tables of benchmarks/platoon_scaling.py (also chain_scaling.py's) from given measurements (no benchmark runs)."""

import importlib.util
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _module(name):
    """benchmarks/NAME.py, with sys.path restored after (it puts benchmarks/ on it for cli.py)."""
    path = list(sys.path)
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = path
    return module


ps = _module("platoon_scaling")
cli = sys.modules["cli"]


def _costs(exponent_nh, exponent_fr, sizes=(10, 30, 100)):
    """Per-step costs c n^p exactly (n = 3K), 12 right-hand sides per step."""
    out = {}
    for K in sizes:
        n = 3 * K
        for kind, p in (("nonholonomic", exponent_nh), ("friction", exponent_fr)):
            steps = 100
            wall = 1e-6 * n**p * steps
            out[(K, "auto", kind)] = dict(steps=steps, rhs=12 * steps, jac=3, method="bdf", sparse=K >= 20, wall=wall)
    return out


def _setups(exponent, sizes=(10, 30, 100)):
    parts = dict.fromkeys(ps.SETUP_PARTS, 0.0)
    return {(K, "auto"): dict(parts, system=1e-3 * (3 * K) ** exponent, **{"peak MB": 80.0},
                              paths={"nonholonomic": K >= 20, "friction": K >= 20}) for K in sizes}


def _table(text):
    (block,) = [b for b in cli.parse_markdown(text) if "rows" in b]
    return block


def test_fitted_exponents_recover_power_laws():
    block = _table(ps.exponent_table(_costs(0.8, 2.5), _setups(1.5), lambda K: 3 * K))
    got = {(row[0], row[1]): float(row[3]) for row in block["rows"]}
    assert got[("nonholonomic, per step", 'sparse="auto"')] == pytest.approx(0.8, abs=0.005)
    assert got[("friction, per rhs", 'sparse="auto"')] == pytest.approx(2.5, abs=0.005)
    assert got[("set-up, total", 'sparse="auto"')] == pytest.approx(1.5, abs=0.005)
    assert {row[2] for row in block["rows"]} == {"30, 90, 300"}


def test_step_table_divides_the_run_by_steps_and_rhs_and_names_the_path():
    costs = _costs(1.0, 1.0, sizes=(10, 30))
    block = _table(ps.step_table(costs, lambda K: 3 * K, "K"))
    rows = {(row[0], row[3]): row for row in block["rows"]}
    row = rows[("30", "friction")]
    assert row[2] == "auto: sparse" and rows[("10", "friction")][2] == "auto: dense"
    # wall = 1e-6 * 90 * 100 s: 9 ms, 90 us per step, 7.5 us per right-hand side
    assert (row[8], row[9], row[10]) == ("9 ms", "90 us", "7.5 us")


def test_setup_table_totals_its_parts():
    setups = {(30, "dense"): dict(system=1.0, nonholonomic=0.25, friction=0.5, jacobian=2.0,
                                  **{"peak MB": 121.0}, paths={"nonholonomic": False, "friction": False})}
    block = _table(ps.setup_table(setups, lambda K: 3 * K, "K"))
    assert block["rows"] == [["30", "90", "sparse=False", "1 s", "0.25 s", "0.5 s", "2 s", "3.75 s", "121 MB"]]
