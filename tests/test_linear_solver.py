"""CVODE's Newton solves through nonholo's own dense LU (cpp/src/dense_lu.cpp) and compiled vector
operations (cpp/src/serial_ops.cpp), seen from the public API.

The C++ tests (cpp/tests/test_dense_lu.cpp, test_integrator_linear_solver.cpp) show that the
factors, the solutions and whole sleigh runs equal SUNDIALS' dense solver bit for bit. Here: a
stiff friction chain integrated with BDF (Jacobians refreshed at linear setups by the policy)
agrees with an independent tight SciPy Radau reference to the integration tolerance, at every
output time, and its Newton iteration needed no more than about one iteration a step, with
CVODE's full Newton matrix and with its halved form (from 8 coordinates on); the forward
sensitivities, which CVODES solves with the same iteration matrix, agree with central
differences of whole runs.
"""

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import nonholo as nh

RTOL, ATOL = 1e-8, 1e-10


def chain_state(system, N):
    q = np.concatenate([[0.0, 0.0], 0.1 * np.arange(1, N + 1)])
    v = np.zeros(N + 2)
    v[0], v[2] = 1.0, 0.3
    return np.concatenate([q, system.project(q, v)])


@pytest.mark.parametrize("N", [3, 9])
def test_stiff_chain_matches_an_independent_reference(N):
    """N = 3: CVODE's full Newton matrix; N = 9 (11 coordinates): its halved form, the Schur
    complement I - gamma F_v - gamma^2 F_q (cpp/include/nonholo/sundials/second_order_lu.hpp)."""
    eps, T = 1e-3, 1.0
    system = nh.systems.knife_edge_chain(N)
    model = system.friction(eps)
    y0 = chain_state(system, N)
    t_eval = np.linspace(0.0, T, 11)
    res = nh.simulate(model, (0.0, T), y0, rtol=RTOL, atol=ATOL, t_eval=t_eval)
    assert res.success, res.message
    assert res.method == "bdf"
    stats = res.stats
    assert stats["n_jac"] > 0 and stats["n_lin_setups"] >= stats["n_jac"]
    assert stats["n_nonlin_iters"] <= 1.5 * stats["n_steps"]
    ref = solve_ivp(lambda t, y: model.rhs(t, y), (0.0, T), y0, method="Radau", t_eval=t_eval, rtol=1e-12,
                    atol=1e-13, jac=lambda t, y: model.jacobian(t, y))
    assert ref.success
    err = np.max(np.abs(np.asarray(res.y) - ref.y))
    # the global error of rtol 1e-8 (6e-9 measured); a wrong solve would stall Newton or the steps
    assert err < 1e-7, err


@pytest.mark.parametrize("N", [2, 9])
def test_sensitivities_through_the_same_linear_solver(N):
    """dy(T)/da (a: the links' centre-of-mass offset) by CVODES' forward sensitivities (BDF: their
    corrector solves with the states' iteration matrix) against central differences of runs at a +- h."""
    eps, T = 1e-3, 0.5
    system = nh.systems.knife_edge_chain(N)
    y0 = chain_state(system, N)
    res = nh.simulate(system.friction(eps), (0.0, T), y0, rtol=1e-10, atol=1e-12, t_eval=[T], sensitivities=["a"])
    assert res.success, res.message
    S = np.asarray(res.sensitivities)[:, 0, -1]  # (n_states, n_params, n_t)
    a = system.friction(eps).params["a"]
    h = 1e-4 * a  # the runs' error (~1e-12) over h stays far below the bound; 1e-5 a left ~1e-6 at N = 9

    def final(m):
        r = nh.simulate(system.friction(eps), (0.0, T), y0, rtol=1e-12, atol=1e-14, t_eval=[T], params={"a": m})
        return np.asarray(r.y)[:, -1]

    fd = (final(a + h) - final(a - h)) / (2 * h)
    scale = np.max(np.abs(fd))
    assert scale > 1e-2  # the sensitivity is not trivially zero
    assert np.max(np.abs(S - fd)) < 1e-6 * scale
