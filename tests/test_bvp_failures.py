"""vakonomic_bvp on systems written here, where its default start fails.

- The Martinet distribution z' = y^2 x' / 2 from (0, 0, 0) to (1, 0, 0.05): the default straight start lies on
  the abnormal line y = 0, where the endpoint does not depend on lambda0 to first order. The failure blamed an
  unreachable point or an integrable constraint; it now names the abnormal curve and the remedies. From the plan
  of least energy it converges to 1.37795, the shortest length an independent Hamiltonian shooting finds.
- A trial step whose interior node has no positive-definite metric (an Engel metric 6000-fold stretched) raised
  ModelError out of the line search; it now backtracks, and the failure is a ShootingError.
- The default's retry with 4 segments raised a bare IntegrationError from its start's integration; it is a
  ShootingError with the single shot's diagnosis. ShootingError and SteadyMotionError are NonholoErrors."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, z = sp.symbols("x y z")


def martinet():
    row = sp.Matrix([[-y**2 / 2, 0, 1]])
    return nh.System([x, y, z], sp.diag(1, 1, 0) + row.T * row, constraints=row, name="Martinet")


def _shoot_length(target_z):
    """The shortest length among Hamiltonian shootings from a grid of starts: H = (p_x + p_z y^2/2)^2/2 + p_y^2/2,
    x' = p_x + p_z y^2 / 2, y' = p_y, z' = (y^2 / 2) x', p_y' = -(p_x + p_z y^2/2) p_z y; length = sqrt(2 H) T."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import fsolve

    def end(p0):
        def rhs(_, s):
            X, Y, Z, px, py, pz = s
            u = px + pz * Y**2 / 2
            return [u, py, Y**2 / 2 * u, 0.0, -u * pz * Y, 0.0]
        return solve_ivp(rhs, (0, 1), [0, 0, 0, *p0], method="DOP853", rtol=1e-12, atol=1e-13).y[:3, -1]

    best = np.inf
    for py0 in (-2.0, -1.0, -0.5, 0.5, 1.0, 2.0):
        for pz0 in (-40.0, -20.0, -10.0, 10.0, 20.0, 40.0):
            p, _, ok, _ = fsolve(lambda p: end(p) - [1, 0, target_z], [1.0, py0, pz0], full_output=True, xtol=1e-12)
            if ok == 1 and np.max(np.abs(end(p) - [1, 0, target_z])) < 1e-9:
                best = min(best, float(np.hypot(p[0] + 0, p[1])))  # |(x', y')| at t = 0 (y = 0 there): the speed
    return best


def test_the_default_start_on_the_abnormal_line_leaves_it_and_a_plan_reaches_the_shortest():
    """The default start lies on the abnormal line y = 0 (it was refused there, 'abnormal curve'); it now
    tries starts bumped off it (tests/test_bvp_off_the_abnormal_line.py) and reaches the shortest."""
    system = martinet()
    with pytest.warns(UserWarning, match=r"lies on an abnormal curve .* lengths \[1.37794555, 2.02303544\]"):
        default = nh.vakonomic_bvp(system, [0, 0, 0], [1, 0, 0.05], 1.0)
    shortest = _shoot_length(0.05)  # a grid of 36 shootings: computed once
    assert default.endpoint_error < 1e-8 and default.length == pytest.approx(shortest, rel=1e-7)
    plan = nh.OptimalControlProblem(system.kinematic(), cost="energy", t_final=1.0, initial=[0, 0, 0],
                                    final=[1, 0, 0.05]).solve(nodes=60)
    sol = nh.vakonomic_bvp(system, [0, 0, 0], [1, 0, 0.05], 1.0, guess=plan)
    assert sol.endpoint_error < 1e-8
    assert sol.length == pytest.approx(shortest, rel=1e-7)


def test_a_user_guess_on_the_abnormal_line_says_so():
    with pytest.raises(nh.ShootingError, match="abnormal curve") as err:
        nh.vakonomic_bvp(martinet(), [0, 0, 0], [1, 0, 0.05], 1.0, guess={"v0": [1, 0, 0], "lambda0": [1.0]})
    assert isinstance(err.value, nh.NonholoError)


def test_a_trial_step_with_no_positive_definite_metric_backtracks():
    x1, x2, x3, x4 = sp.symbols("x1:5")
    t1, t2 = sp.Matrix([[0, -x1, 1, 0]]), sp.Matrix([[0, -x1**2 / 2, 0, 1]])
    engel = nh.System([x1, x2, x3, x4], sp.diag(1, 1, 0, 0) + t1.T * t1 + t2.T * t2, constraints=t1.col_join(t2))
    with pytest.raises(nh.ShootingError, match="no Newton step reduces"):  # was ModelError from a trial node
        nh.vakonomic_bvp(engel, np.zeros(4), [0, 0, 0, 0.3], 1.0, segments=4)


def test_the_default_retry_raises_a_shooting_error_with_both_diagnoses():
    w = sp.Symbol("w")
    row = sp.Matrix([[0, -x, 1]])
    pulled = nh.System([x, y, w], sp.diag(1, 1, 0) + row.T * row, potential=-2 * (x**2 + y**2), constraints=row)
    with pytest.raises(nh.ShootingError, match="With 4 segments"):
        nh.vakonomic_bvp(pulled, [0, 0, 0], [3, 1, 0.5], 5.0, guess={"v0": [0.6, 0.2, 0], "lambda0": [0.0]})
