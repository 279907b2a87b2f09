"""Which coordinates are cyclic is decided on the equations, as they enter the dynamics, for every
parameter value: not by sampling states in one corner, with the parameter values of the build.

- A linear potential (a slope, V = -m g sin(alpha) x) makes x cyclic: only dV/dx enters, and it is
  constant. The default `linearize` of a sleigh's terminal motion down a slope raised "moves only
  cyclic coordinates (['y'])".
- A wall V = k/2 max(0, y - 2)^2 (written with Abs) made y cyclic, as random states in (0.2, 1.3) never
  reached it: `steady_motions` returned a motion into the wall as steady (drift y = 1).
- A spring V = k x^2 / 2 built with k = 0 made x cyclic for good: `steady_motions(..., params={"k": 1})`
  returned x' = 1 as steady, a motion that oscillates."""

import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.analysis.stability.manifold import cyclic_coordinates

x, y, phi, m, I, a, g, alpha, c, k = sp.symbols("x y phi m I a g alpha c k")
xd, yd = sp.symbols("x_dot y_dot")


def sleigh(potential, values, force=None):
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a ** 2]])
    A = sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]])
    return nh.System([x, y, phi], G, constraints=A, potential=potential, force=force, parameters=values)


def names(system):
    return [system.coordinate_names[i] for i in cyclic_coordinates(system)]


def test_a_slope_leaves_its_coordinate_cyclic_and_the_default_linearizes_the_terminal_motion():
    values = {m: 1.0, I: 0.5, a: 0.3, g: 9.81, alpha: 0.2, c: 0.7}
    system = sleigh(-m * g * sp.sin(alpha) * (x + a * sp.cos(phi)), values, force=[-c * xd, -c * yd, 0])
    assert names(system) == ["x", "y"]
    model = system.nonholonomic()
    terminal = [0, 0, 0, 9.81 * np.sin(0.2) / 0.7, 0, 0]  # m g sin(alpha) = c u
    for offset, stable in [(0.3, True), (-0.3, False)]:
        default = nh.linearize(model, terminal, params={"a": offset})
        named = nh.linearize(model, terminal, params={"a": offset}, cyclic=["x", "y"])
        np.testing.assert_allclose(np.sort_complex(default.physical_eigenvalues),
                                   np.sort_complex(named.physical_eigenvalues), rtol=1e-10, atol=1e-12)
        assert np.min(np.abs(default.physical_eigenvalues + 0.7)) < 1e-9  # the speed's mode under the drag: -c / m
        assert default.is_stable() is stable


def test_a_coordinate_inside_a_kink_is_not_cyclic():
    wall = k * ((y - 2 + sp.Abs(y - 2)) / 2) ** 2 / 2
    system = sleigh(wall, {m: 1.0, I: 1.0, a: 0.2, k: 10.0})
    assert names(system) == ["x"]
    with pytest.warns(nh.SimulationWarning, match=r"converged to rest from a guess moving at 1: .*fixed=\{'x_dot'"):
        steady = nh.steady_motions(system, [0, 1.0, np.pi / 2, 0, 1.0, 0])  # moving along y, not cyclic: rest
    run = nh.simulate(system.nonholonomic(), (0, 3), steady.state, t_eval=[0, 1, 2, 3])
    np.testing.assert_allclose(run.y[3:] - run.y[3:, :1], 0.0, atol=1e-9)  # steady indeed: the velocities stay
    # the default without the kink: y is cyclic
    assert names(sleigh(k * x ** 2 / 2, {m: 1.0, I: 1.0, a: 0.2, k: 10.0})) == ["y"]


def test_a_parameter_zero_at_the_build_does_not_make_its_coordinate_cyclic():
    for k0 in (0.0, 1.0):
        system = sleigh(k * x ** 2 / 2, {m: 1.0, I: 1.0, a: 0.2, k: k0})
        assert names(system) == ["y"]
        with pytest.warns(nh.SimulationWarning, match=r"converged to rest .*cyclic coordinates \['y'\].*'y_dot'"):
            steady = nh.steady_motions(system, [0.0, 0.0, 0.0, 1.0, 0.0, 0.0], params={"k": 1.0})
        run = nh.simulate(system.nonholonomic(), (0, 3), steady.state, params={"k": 1.0}, t_eval=[0, 1, 2, 3])
        np.testing.assert_allclose(run.y[3:] - run.y[3:, :1], 0.0, atol=1e-9)


def test_a_moving_guess_that_converged_to_rest_says_so():
    """A towed caster (a cart on a lateral spring pulling a castor wheel at a distance e behind it,
    a knife edge) guessed moving at 1 along its cyclic x converged to rest with no word (an outside
    probe), where its straight motion at that speed needs x' fixed; the guess at rest says nothing."""
    X, Y, psi = sp.symbols("x y psi")
    xd, yd, psid = sp.symbols("x_dot y_dot psi_dot")
    M, mc, Jc, e, kk, cp = 1.0, 0.3, 0.05, 0.5, 4.0, 0.05
    vc = sp.Matrix([xd + e * sp.sin(psi) * psid, yd - e * sp.cos(psi) * psid])
    T = M / 2 * (xd**2 + yd**2) + mc / 2 * (vc.T * vc)[0] + Jc / 2 * psid**2
    caster = nh.System([X, Y, psi], sp.hessian(T, [xd, yd, psid]), potential=kk * Y**2 / 2,
                       constraints=sp.Matrix([[-sp.sin(psi), sp.cos(psi), -e]]), force=sp.Matrix([0, 0, -cp * psid]),
                       velocities=[xd, yd, psid])
    guess = [0, 0.01, 0.02, 1.0, 0.01, 0.0]
    with pytest.warns(nh.SimulationWarning, match=r"converged to rest from a guess moving at 1: .*fixed=\{'x_dot'"):
        rest = nh.steady_motions(caster, guess)
    np.testing.assert_allclose(rest.state[3:], 0.0, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        moving = nh.steady_motions(caster, guess, fixed={"x_dot": 1.0})
        nh.steady_motions(caster, [0, 0.01, 0.02, 0, 0, 0])
    np.testing.assert_allclose(moving.state, [0, 0, 0, 1.0, 0, 0], atol=1e-9)
