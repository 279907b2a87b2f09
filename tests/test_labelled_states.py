"""States given by name: a pandas Series (one state) or DataFrame (one run a row) labelled by the model's
state names, or by the coordinates and velocities [q, q'] of the coordinate form, is read by name in
simulate, simulate_many and the analysis calls (linearize); NumPy alone reads it by position, which
started runs at the wrong state without a word (an outside probe's)."""

import numpy as np
import pandas as pd  # a test dependency
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh

Y0 = [0.1, 0.2, 0.3, np.cos(0.3), np.sin(0.3), 0.5]  # the sleigh moving along its heading


def test_simulate_many_reads_a_dataframe_and_a_series_by_name(sleigh):
    model = sleigh.friction(1e-2)
    names = list(model.state_names)
    shuffled = pd.Series(dict(zip(names, Y0))).iloc[::-1]
    by_position = nh.simulate_many(model, (0, 1), [Y0, Y0])  # the default: arrays
    frame = pd.DataFrame([shuffled, shuffled])
    for runs in (nh.simulate_many(model, (0, 1), frame),
                 nh.simulate_many(model, (0, 1), shuffled, params={"eps": [1e-2, 1e-2]})):
        for run, reference in zip(runs, by_position):
            np.testing.assert_array_equal(run.y, reference.y)
    with pytest.raises(ValueError, match="Y0 is labelled"):
        nh.simulate_many(model, (0, 1), pd.DataFrame([Y0], columns=list("abcdef")))


def test_linearize_reads_a_series_by_name(sleigh):
    """The sleigh moving straight ahead: a steady motion, given shuffled by name; by position it was
    "not a steady motion"."""
    model = sleigh.nonholonomic()
    straight = [0.0, 0.0, 0.0, 1.0, 0.0, 0.0]
    shuffled = pd.Series(dict(zip(model.state_names, straight))).iloc[::-1]
    np.testing.assert_array_equal(nh.linearize(model, shuffled).eigenvalues, nh.linearize(model, straight).eigenvalues)


def test_kanes_speeds_of_full_length_map_a_series_labelled_by_q_and_qdot():
    """A body with speeds in its own frame and no dependent speeds: the model's state [q, u] has the
    length of [q, q'], so an array of that length is read as [q, u]; a Series labelled by x_dot, y_dot,
    theta_dot is [q, q'] and is mapped to the speeds (it was reordered and then read as [q, u]: the
    run started 0.48 away)."""
    x, y, th, u1, u2, u3 = me.dynamicsymbols("x y theta u1:4")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    B.set_ang_vel(N, u3 * N.z)
    P = me.Point("P")
    P.set_vel(N, u1 * B.x + u2 * B.y)
    kd = [x.diff() - (u1 * sp.cos(th) - u2 * sp.sin(th)), y.diff() - (u1 * sp.sin(th) + u2 * sp.cos(th)),
          th.diff() - u3]
    km = me.KanesMethod(N, [x, y, th], [u1, u2, u3], kd_eqs=kd)
    km.kanes_equations([me.RigidBody("b", P, B, 1, (me.inertia(B, 0, 0, 1), P))], [])
    model = nh.System.from_kanes_method(km).nonholonomic()
    assert list(model.state_names) == ["x", "y", "theta", "u1", "u2", "u3"]
    q, qdot = np.array([0.0, 0.0, 0.5]), np.array([1.0, 0.0, 0.3])
    speeds = np.r_[q, np.cos(0.5), -np.sin(0.5), 0.3]  # the body-frame speeds of that q'
    reference = nh.simulate(model, (0, 1), speeds)
    labelled = pd.Series(np.r_[q, qdot], index=["x", "y", "theta", "x_dot", "y_dot", "theta_dot"]).iloc[::-1]
    run = nh.simulate(model, (0, 1), labelled)
    np.testing.assert_allclose(run.y[:, 0], speeds, atol=1e-15)
    np.testing.assert_allclose(run.y_final, reference.y_final, atol=1e-12)


def test_steady_motions_reads_a_series_and_a_dataframe_by_label():
    """A Series of the sleigh's state names out of order (x_dot last) was read by position: the
    guess became phi_dot = 1, not the straight motion at speed 1. A DataFrame is a guess a row; an
    array (the default) stays positional."""
    sleigh = nh.systems.chaplygin_sleigh()
    guess = pd.Series({"x": 0.0, "y": 0.0, "phi": 0.0, "phi_dot": 0.0, "y_dot": 0.0, "x_dot": 1.0})
    np.testing.assert_array_equal(nh.steady_motions(sleigh, guess).state, [0, 0, 0, 1, 0, 0])
    found = nh.steady_motions(sleigh, pd.DataFrame([guess, 2 * guess]))
    assert sorted(m.state[3] for m in found) == [1.0, 2.0]
    np.testing.assert_array_equal(nh.steady_motions(sleigh, [0, 0, 0, 1, 0, 0]).state, [0, 0, 0, 1, 0, 0])


def test_eigenvalue_path_reads_a_series_state_by_label():
    """A Series state (x_dot last) was read by position in nh.eigenvalue_path: the path of a sleigh
    spinning in place, not the one moving straight at speed 1 (whose eigenvalue is -m a v / (I + m a^2))."""
    sleigh = nh.systems.chaplygin_sleigh()
    state = pd.Series({"x": 0.0, "y": 0.0, "phi": 0.0, "phi_dot": 0.0, "y_dot": 0.0, "x_dot": 1.0})
    values = [0.1, 0.2, 0.3]
    by_label = nh.eigenvalue_path(sleigh.nonholonomic(), "a", values, state)
    by_position = nh.eigenvalue_path(sleigh.nonholonomic(), "a", values, [0, 0, 0, 1, 0, 0])  # the default: an array
    np.testing.assert_allclose(by_label.eigenvalues, by_position.eigenvalues)
    p = {str(k): float(v) for k, v in sleigh.parameters.items()}
    m, inertia = p["m"], p["I"]
    for a, row in zip(values, by_position.eigenvalues):
        assert np.min(np.abs(row - (-m * a / (inertia + m * a * a)))) < 1e-10, row
