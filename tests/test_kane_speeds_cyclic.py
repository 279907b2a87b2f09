"""Cyclic coordinates of a model in Kane's speeds: its frame X(q) can bring in a coordinate that the
system's data (G, V, A, b, F) do not contain, or leave one out that they do.

A rolling disc (mass m, radius r; yaw q1, lean q2, spin q3, contact point q4, q5) from SymPy's
KanesMethod. With the speeds u1..u3 the angular velocity's components in the wheel's own frame,
the speed equations depend on the spin angle q3, which the system's data do not contain: taken as
cyclic by default, the upright disc rolling at spin rate 6 linearized to +-2.915 (unstable) for the
closed form lambda^2 = 4/5 (g/r - 3 W^2), +-8.4086i. Now the default refuses the speeds model there
(the spin angle moves and is not cyclic for it; the motion is periodic in it) and the q' form gives
the closed form. With the speeds in the lean frame, the yaw moves only q4 and q5: named cyclic,
the steady turn linearizes to SymPy's own reduced Jacobian's spectrum."""

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me
from test_kane_speeds import disc_with_speeds_in

import nonholo as nh

R_, M_, G_ = 0.5, 1.3, 9.81  # the disc's radius, mass and gravity


def disc(speeds_in: str):
    """The rolling disc of test_kane_speeds (yaw q1, lean q2, spin q3, contact point q4, q5) with its
    speeds in the wheel's frame ("wheel") or the lean frame ("lean")."""
    return disc_with_speeds_in({"wheel": "R", "lean": "L"}[speeds_in], (R_, M_, G_))


def wheel_disc_in_ground_rows():
    """The same disc in wheel-frame speeds written another way: coordinates in the order (x, y, q1,
    q2, q3), the centre's velocity the derivative of its position (in q'), the speeds' definitions
    w . R_i - u_i and the no-slip rows along the ground's axes. SymPy's solution of its dependent
    speeds keeps 1 / cos(q3) in A(q) (the form depends on the order of the coordinates)."""
    x, y, q1, q2, q3 = me.dynamicsymbols("x y q1 q2 q3")
    u1, u2, u3, u4, u5 = me.dynamicsymbols("u1:6")
    r, m, g = sp.symbols("r m g")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    L = Y.orientnew("L", "Axis", [q2, Y.x])
    R = L.orientnew("R", "Axis", [q3, L.y])
    w = R.ang_vel_in(N)
    O = me.Point("O")
    O.set_vel(N, 0)
    C = O.locatenew("C", x * N.x + y * N.y)
    C.set_vel(N, x.diff() * N.x + y.diff() * N.y)
    D = C.locatenew("D", r * L.z)
    D.set_vel(N, D.pos_from(O).dt(N))
    kd = [w.dot(R.x) - u1, w.dot(R.y) - u2, w.dot(R.z) - u3, x.diff() - u4, y.diff() - u5]
    slip = D.vel(N) + w.cross(-r * L.z)
    km = me.KanesMethod(N, [x, y, q1, q2, q3], [u1, u2, u3], kd_eqs=kd, u_dependent=[u4, u5],
                        velocity_constraints=[slip.dot(N.x), slip.dot(N.y)])
    km.kanes_equations([me.RigidBody("disc", D, R, m, (me.inertia(L, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), D))],
                       [(D, -m * g * N.z)])
    return nh.System.from_kanes_method(km, {r: R_, m: M_, g: G_})


def test_a_frame_that_brings_in_the_spin_angle_keeps_it_out_of_the_cyclic_coordinates():
    system = disc("wheel")
    W = 6.0
    upright = [0, 0, 0.4, 0, 0, 0, W, 0]  # q1..q5 and the wheel-frame speeds: spinning about R.y
    with pytest.raises(ValueError, match=r"not a steady motion.*d\(q3\)/dt = 6"):
        nh.linearize(system.nonholonomic(), upright)  # the default: Kane's speeds
    q = np.array([0, 0, 0.4, 0, 0])
    qdot = np.array([0, 0, W, R_ * W, 0])  # rolling along x at spin W (q3' = W, q4' = r W)
    lin = nh.linearize(system.nonholonomic(form="qdot"), np.r_[q, qdot])
    closed = np.sqrt(0.8 * (3 * W**2 - G_ / R_))
    np.testing.assert_allclose(np.sort(lin.physical_eigenvalues.imag), [-closed, closed], rtol=1e-8)
    assert np.abs(lin.physical_eigenvalues.real).max() < 1e-8


def test_a_steady_turn_in_lean_frame_speeds_linearizes_with_the_yaw_named_cyclic():
    system = disc("lean")
    cyclic = ["q4", "q5", "q1", "q3"]
    guess = [0, 0.3, 0, 0, 0, 0, 5.0, -0.7]
    turn = nh.steady_motions(system, guess, fixed={"q2": 0.3, "u2": 5.0}, cyclic=cyclic)
    assert turn.state[7] == pytest.approx(-0.767014658335632, abs=1e-9)  # SymPy's own equations: u' = 0 there
    lin = nh.linearize(system.nonholonomic(), turn.state, cyclic=cyclic)
    physical = lin.physical_eigenvalues
    assert len(physical) == 2 and np.abs(physical.real).max() < 1e-8
    # the spectrum of SymPy's reduced Jacobian in (q2, u1, u2, u3) by central differences: +-6.928187i, 0, 0
    np.testing.assert_allclose(np.sort(physical.imag), [-6.928187, 6.928187], atol=2e-6)


def test_naming_the_yaw_alone_says_the_names_replace_the_default():
    """cyclic= replaces the default set. With the yaw alone named (as an outside reader took the docs to
    mean), the contact coordinates and the spin are held, no steady turn exists, and the least-squares
    residual settled in the fixed lean (2.37, "fixed q2"): the message named it alone, and not the
    default's coordinates the names left out. It now names the worst equation of motion as well and
    the coordinates to add; with them the turn is found, as above."""
    system = disc("lean")
    guess = [0, 0.3, 0, 0, 0, 0, 5.0, -0.7]
    with pytest.raises(nh.SteadyMotionError, match=r"cyclic= replaces the default cyclic coordinates: name "
                                                   r"\['q3', 'q4', 'q5'\] too"):
        nh.steady_motions(system, guess, fixed={"q2": 0.3, "u2": 5.0}, cyclic=["q1"])
    turn = nh.steady_motions(system, guess, fixed={"q2": 0.3, "u2": 5.0}, cyclic=["q1", "q3", "q4", "q5"])
    assert turn.state[7] == pytest.approx(-0.767014658335632, abs=1e-9)


def test_wheel_frame_speeds_are_regular_at_a_right_angle_of_the_spin():
    """SymPy's solution of the wheel-frame disc's dependent speeds keeps 1 / cos(q3) in A(q), 0 / 0
    at q3 = pi/2 where the motion is regular; in floating point cos(pi/2) = 6e-17, so the check for
    such entries passed it by, the right-hand side held 1.4e16 there and both models stopped at t = 0.
    The entries with a denominator within rounding of zero at a right angle are now cancelled."""
    system = wheel_disc_in_ground_rows()
    q = np.array([0.1, -0.2, 0.0, 0.3, np.pi / 2])
    qdot = np.array([0.0, 0.0, 0.6, -0.4, 3.0])
    A, b = system.constraint_matrix(q)
    qdot[:2] = np.linalg.solve(A[:, :2], b - A[:, 2:] @ qdot[2:])
    lean = disc("lean")  # the same disc in lean-frame speeds, regular there; its order is (q1, q2, q3, x, y)
    to_lean, back = [2, 3, 4, 0, 1], [3, 4, 0, 1, 2]
    f = system.nonholonomic(form="qdot").rhs(0.0, np.r_[q, qdot])
    f_lean = lean.nonholonomic(form="qdot").rhs(0.0, np.r_[q[to_lean], qdot[to_lean]])
    np.testing.assert_allclose(f, np.r_[f_lean[:5][back], f_lean[5:][back]], atol=1e-9)
    runs = [nh.simulate(s.nonholonomic(), (0, 1), y, rtol=1e-10, atol=1e-12)
            for s, y in ((system, np.r_[q, qdot]), (lean, np.r_[q[to_lean], qdot[to_lean]]))]
    assert all(r.status == 0 for r in runs)
    np.testing.assert_allclose(runs[0].q[:, -1], runs[1].q[back, -1], atol=1e-7)


def test_a_name_that_is_no_symmetry_gives_no_steady_motion():
    """A ball on a turntable in Kane's speeds (Euler angles q1, q2, q3): with cyclic=["q1", "q3"] the
    search converged and returned a SteadyMotion moving q1 at 1.81 with no warning, but the rate of q2
    depends on q1 (q2' = u1 cos q1 + u2 sin q1): simulated from it, q2 swung from 1.0 to 2.1. A moving
    coordinate given as cyclic must now leave the other rates unchanged; the default set finds the
    steady motion the ball has (q3 alone moving)."""
    km, values = nh.systems.ball_on_turntable_kane()
    system = nh.System.from_kanes_method(km, values)
    guess = np.r_[0.0, 0.2, 0, 1.0, 0, 0, 0.8, 1.3]
    with pytest.raises(nh.SteadyMotionError, match=r"cyclic coordinates \['q1'\] stand still, but it moves them.*"
                                                   r"the rate of q2 changes by"):
        nh.steady_motions(system, guess, fixed={"u3": 1.3, "y": 0.2}, cyclic=["q1", "q3"])
    found = nh.steady_motions(system, guess, fixed={"u3": 1.3, "y": 0.2})
    run = nh.simulate(system.nonholonomic(), (0, 5), found.state, rtol=1e-10, atol=1e-12)
    moving = [system.nonholonomic().state_names.index(name) for name in found.drift]
    steady = [i for i in range(run.y.shape[0]) if i not in moving]
    np.testing.assert_allclose(run.y[steady, -1], found.state[steady], rtol=0, atol=1e-8)
