"""A KinematicSystem's metric (the kinetic energy w^T G w / 2 of cost="energy"): an outside probe's
-I was accepted and "Optimal Solution Found" came with a negative energy, where System refuses such a
metric; a non-symmetric one was accepted too. The metric derived by System.kinematic() is X_D^T G X_D
with only its small entries simplified (SymPy's simplify of the knife-edge chain's took 71 s at N = 4)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.system import voronets_frame

x, y, th, v, k = sp.symbols("x y theta v kappa")
RHS = [v * sp.cos(th), v * sp.sin(th), v * k]


@pytest.mark.parametrize("metric, what", [(-sp.eye(2), "positive semidefinite"),
                                          (sp.Matrix([[1, 3], [0, 1]]), "symmetric"),
                                          (sp.Matrix([[1, 0], [0, -1 - th**2]]), "positive semidefinite")])
def test_a_metric_that_is_no_kinetic_energy_is_refused(metric, what):
    with pytest.raises(ValueError, match=f"metric must be {what}"):
        nh.KinematicSystem([x, y, th], [v, k], RHS, metric=metric)


@pytest.mark.parametrize("metric", [None, sp.diag(1, 0), sp.diag(1, 2 + sp.sin(th)), sp.diag(1, sp.sin(th))])
def test_metrics_of_kinetic_energies_are_taken(metric):
    """The default (the identity), the car's (v^2 / 2: the curvature costs nothing), one that depends on
    the state, and one positive semidefinite on part of the states only (sin(theta) >= 0)."""
    car = nh.KinematicSystem([x, y, th], [v, k], RHS, metric=metric, control_bounds={"v": (-1, 1), "kappa": (-1, 1)})
    assert car.metric.shape == (2, 2)
    assert nh.systems.kinematic_car(turning_radius=1.0).metric == sp.diag(1, 0)


def test_the_chains_kinematic_metric_is_its_frames_gram_matrix():
    chain = nh.systems.knife_edge_chain(4)
    kinematic = chain.kinematic()
    frame = voronets_frame(chain)  # the split kinematic() takes, simplified in full
    rng = np.random.default_rng(3)
    q_symbols = list(chain.coordinates)
    for _ in range(4):
        q = rng.uniform(-0.5, 0.5, chain.n)
        at = dict(zip(q_symbols, q))
        GD = np.array(kinematic.metric.subs(at).evalf(), dtype=float)
        X = np.array(frame[:, : chain.n - chain.k].subs(dict(chain.parameters)).subs(at).evalf(), dtype=float)
        G = np.array(sp.Matrix(chain.metric).subs(dict(chain.parameters)).subs(at).evalf(), dtype=float)
        np.testing.assert_allclose(GD, X.T @ G @ X, rtol=1e-12, atol=1e-12)
