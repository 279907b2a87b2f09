"""The order-1 reduced right-hand side against values stored before its cost was cut
(tests/data/reduced_order1_rhs.json, written by the implementation of commit 92ef5a7 with
`_write_reference`): the coordinate form on the chain of 8 links (range space) and on two random
systems (affine constraints and a force on one), and the Voronets frame form on the chain, each at 4
random states and times, at eps where the slip is not negligible. Equal to 1e-13 relative."""

import json
from pathlib import Path

import numpy as np
import pytest

import nonholo as nh
import nonholo.testing

DATA = Path(__file__).parent / "data" / "reduced_order1_rhs.json"


def _cases() -> dict:
    chain = nh.systems.knife_edge_chain(8)
    affine = nh.testing.random_system(5, n=6, k=2, affine=True, force=True)
    plain = nh.testing.random_system(9, n=5, k=3)
    return {"chain8": (chain, chain.reduced(0.01, order=1)),
            "chain8 frame": (chain, chain.reduced(0.01, order=1, velocities="frame")),
            "random 6 2 affine force": (affine, affine.reduced(0.01, order=1)),
            "random 5 3": (plain, plain.reduced(0.05, order=1))}


def _states(system, model, count: int = 4):
    """(t, y) at random states: q uniform in [-1, 1], u projected on the constraint set (or random w)."""
    rng = np.random.default_rng(2026)
    for _ in range(count):
        q = rng.uniform(-1, 1, system.n)
        t = float(rng.uniform(0, 2))
        u = system.project(q, rng.uniform(-1, 1, system.n), t)
        n_w = model.n_states - system.n
        yield t, (np.r_[q, u] if n_w == system.n else np.r_[q, rng.uniform(-1, 1, n_w)])


def _write_reference(path: Path = DATA) -> None:
    """How the stored values were made."""
    out = {name: [{"t": t, "y": y.tolist(), "ydot": model.rhs(t, y).tolist()} for t, y in _states(system, model)]
           for name, (system, model) in _cases().items()}
    path.write_text(json.dumps(out, indent=1))


@pytest.mark.parametrize("name", list(json.loads(DATA.read_text())))
def test_order_one_rhs_equals_the_stored_values(name):
    stored = json.loads(DATA.read_text())[name]
    system, model = _cases()[name]
    for row, (t, y) in zip(stored, _states(system, model), strict=True):
        assert row["t"] == t and row["y"] == y.tolist()  # the same states
        ydot = model.rhs(t, y)
        np.testing.assert_allclose(ydot, row["ydot"], rtol=1e-13, atol=1e-13 * np.abs(row["ydot"]).max())
        if len(y) == 2 * system.n:  # q' = u + s: the slip the order-1 terms add is resolved at this tolerance
            assert np.abs(ydot[: system.n] - y[system.n:]).max() > 1e-8 * np.abs(ydot).max()
