"""The stumbles of issue 28: what a newcomer met on systems no other test names."""

import re

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.whipple_bicycle import upright_state, whipple_bicycle


def snakeboard():
    """The snakeboard (Lewis, Ostrowski, Murray and Burdick 1994): body heading theta, rotor psi,
    wheel angle phi (front and back wheels counter-steered), wheel axles a distance l from the
    centre. Its two no-slip rows become dependent at phi = +-pi/2 (both wheels across the board)."""
    x, y, th, psi, phi = sp.symbols("x y theta psi phi")
    m, J, Jr, Jw, l = sp.symbols("m J J_r J_w l", positive=True)
    G = sp.Matrix([[m, 0, 0, 0, 0], [0, m, 0, 0, 0], [0, 0, J + Jr, Jr, 0], [0, 0, Jr, Jr, 0], [0, 0, 0, 0, 2 * Jw]])
    A = sp.Matrix([[-sp.sin(th + phi), sp.cos(th + phi), -l * sp.cos(phi), 0, 0],
                   [-sp.sin(th - phi), sp.cos(th - phi), l * sp.cos(phi), 0, 0]])
    return nh.System([x, y, th, psi, phi], G, constraints=A,
                     parameters={"m": 1.0, "J": 0.5, "J_r": 0.2, "J_w": 0.05, "l": 0.5}, name="snakeboard")


@pytest.mark.parametrize("t_eval", [None, np.linspace(0, 2, 5)])
def test_constraint_singularity_is_named_with_t_and_q(t_eval):
    board = snakeboard()
    q0 = np.array([0.0, 0.0, 0.0, 0.0, 1.4])
    y0 = np.r_[q0, board.project(q0, [1.0, 0.0, 0.3, 0.0, 0.5])]  # phi' = 0.5: phi = pi/2 at t = 0.3416
    with pytest.warns(nh.SimulationWarning, match="constraint rows A.* dependent"):
        sol = nh.simulate(board.nonholonomic(), (0, 2), y0, t_eval=t_eval, method="adams")
    assert sol.status == -1 and sol.flag_name == "CONSTRAINT_SINGULAR"
    t_hit = (np.pi / 2 - 1.4) / 0.5
    match = re.search(r"stopped at t = ([0-9.]+): .* at q = \(.*phi=([0-9.]+)\)", sol.message)
    assert match and abs(float(match.group(1)) - t_hit) < 1e-4 and abs(float(match.group(2)) - np.pi / 2) < 1e-4
    assert "constraint singularity" in sol.message and "step size collapsed" in sol.message  # the symptom kept


def test_steady_motions_refuses_a_time_dependent_system():
    x, t = sp.symbols("x t")
    driven = nh.System([x], sp.Matrix([[1]]), force=[sp.cos(t)])
    with pytest.raises(ValueError, match="depends on time explicitly .* no steady motions to solve for"):
        nh.steady_motions(driven, [0.0, 0.0])
    with pytest.raises(ValueError, match="depends on time explicitly .* no steady motions to linearize about"):
        nh.linearize(driven.nonholonomic(), [0.0, 0.0])


def test_capsize_eigenvalue_at_the_capsize_speed_is_not_a_zero_mode():
    """At 6.024262 m/s (just below Meijaard's capsize speed 6.02426201538837) the capsize
    eigenvalue is about 2.5e-9: small, but physical, not a structural zero."""
    bicycle = whipple_bicycle()
    lin = nh.linearize(bicycle.nonholonomic(), upright_state(bicycle, 6.024262))
    lam = lin.physical_eigenvalues
    assert lam.size == 4
    capsize = lam[np.argmin(np.abs(lam))]
    assert abs(capsize.imag) == 0 and 1e-9 < abs(capsize.real) < 5e-9, capsize


def test_reduced_docstring_names_the_default_integrator():
    doc = nh.System.reduced.__doc__
    assert "DOP853" in doc and "Adams" in doc and "model.method" in doc
