"""The kinematics check of System.from_kanes_method / from_lagranges_method looks at the points
the model uses only (mass centres, particles, points where loads act, and the points on the
paths between them and the origin).

A notebook that builds two models sharing the origin O (or locates any other point from O) left
points in O's position tree that are not part of the model: a velocity in another model's
dynamicsymbol made the check fail with "TypeError: Cannot convert expression to float", and a
velocity that is not the derivative of its position with a ModelError about "point O relative to
point Q". Such points are now left alone; a wrong velocity of a point the model uses is still
refused. Models: a Chaplygin sleigh (contact point P at (x, y), mass centre G a ahead on the
blade) with a spring on P and a damping torque, in KanesMethod and in LagrangesMethod.
"""

import warnings

import numpy as np
import pytest
import sympy as sp
import sympy.physics.mechanics as me

import nonholo as nh

m, I, a, k, c = sp.symbols("m I a k c", positive=True)  # noqa: E741
VALUES = {m: 1.0, I: 0.8, a: 0.3, k: 0.5, c: 0.1}
EXTRAS = ["none", "other_dynsym", "bad_vel", "from_used"]
T_END = 4.0
T_EVAL = np.linspace(0, T_END, 9)


def _extra_points(extra, O, P, N, x, y):
    """Points that are not part of the model, located from its origin O (or from its point P)."""
    if extra == "other_dynsym":  # another model's point, its velocity in that model's speed w
        w = me.dynamicsymbols("w")
        Q = O.locatenew("Q", x * N.x)
        Q.set_vel(N, w * N.x)
    elif extra == "bad_vel":  # a velocity that no motion gives
        Q = O.locatenew("Q", x * N.x)
        Q.set_vel(N, 2 * x.diff() * N.x)
    elif extra == "from_used":  # hung on a point of the model, with velocities of another model
        w, s = me.dynamicsymbols("w s")
        R = P.locatenew("R", s * N.z)
        R.set_vel(N, w * N.y)
        S = R.locatenew("S", y * N.x)
        S.set_vel(N, 3 * w * N.x)


def _sleigh_frames():
    x, y, th = me.dynamicsymbols("x y theta")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    O = me.Point("O")
    O.set_vel(N, 0)
    return (x, y, th), N, B, O


def kane_sleigh(extra="none", wrong_used=False):
    (x, y, th), N, B, O = _sleigh_frames()
    u1, u2, u3 = me.dynamicsymbols("u1:4")
    B.set_ang_vel(N, u3 * N.z)
    P = O.locatenew("P", x * N.x + y * N.y)
    _extra_points(extra, O, P, N, x, y)
    P.set_vel(N, (2 if wrong_used else 1) * u1 * B.x + u2 * B.y)  # u1 forward, u2 sideways (0)
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)
    kd = [x.diff() - u1 * sp.cos(th) + u2 * sp.sin(th), y.diff() - u1 * sp.sin(th) - u2 * sp.cos(th),
          th.diff() - u3]
    km = me.KanesMethod(N, [x, y, th], [u1, u3], kd_eqs=kd, u_dependent=[u2], velocity_constraints=[u2])
    body = me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, I), G))
    km.kanes_equations([body], [(P, -k * x * N.x), (B, -c * u3 * N.z)])
    return km


def lagrange_sleigh(extra="none", wrong_used=False):
    (x, y, th), N, B, O = _sleigh_frames()
    P = O.locatenew("P", x * N.x + y * N.y)
    _extra_points(extra, O, P, N, x, y)
    P.set_vel(N, (2 if wrong_used else 1) * x.diff() * N.x + y.diff() * N.y)
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)
    body = me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, I), G))
    lm = me.LagrangesMethod(me.Lagrangian(N, body), [x, y, th],
                            nonhol_coneqs=[-sp.sin(th) * x.diff() + sp.cos(th) * y.diff()], bodies=[body],
                            frame=N, forcelist=[(P, -k * x * N.x), (B, -c * th.diff() * N.z)])
    lm.form_lagranges_equations()
    return lm


def _simulate(system, y0):
    return nh.simulate(system.nonholonomic(), (0, T_END), y0, t_eval=T_EVAL, rtol=1e-12, atol=1e-14)


Y0_KANE = [0.3, -0.2, 0.7, -1.2, 0.9]  # x, y, theta, u1, u3 (u2 dependent)
Y0_LAGRANGE = [0.3, -0.2, 0.7, -1.2 * np.cos(0.7), -1.2 * np.sin(0.7), 0.9]  # x, y, theta, rates (no slip)


@pytest.fixture(scope="module")
def kane_reference():
    return _simulate(nh.System.from_kanes_method(kane_sleigh(), VALUES), Y0_KANE)


@pytest.fixture(scope="module")
def lagrange_reference():
    return _simulate(nh.System.from_lagranges_method(lagrange_sleigh(), VALUES), Y0_LAGRANGE)


@pytest.mark.parametrize("extra", EXTRAS[1:])
def test_kane_points_outside_the_model_are_ignored(extra, kane_reference):
    system = nh.System.from_kanes_method(kane_sleigh(extra), VALUES)
    run = _simulate(system, Y0_KANE)
    assert run.status == 0 and np.ptp(run["theta"]) > 0.1
    assert np.abs(run.y - kane_reference.y).max() < 1e-12


@pytest.mark.parametrize("extra", EXTRAS[1:])
def test_lagrange_points_outside_the_model_are_ignored(extra, lagrange_reference):
    system = nh.System.from_lagranges_method(lagrange_sleigh(extra), VALUES)
    run = _simulate(system, Y0_LAGRANGE)
    assert run.status == 0 and np.ptp(run["theta"]) > 0.1
    assert np.abs(run.y - lagrange_reference.y).max() < 1e-12


@pytest.mark.parametrize("extra", EXTRAS)
def test_kane_wrong_velocity_of_a_used_point_is_still_refused(extra):
    with pytest.raises(nh.ModelError, match=r"velocity of point P relative to point O is neither the time "
                                            r"derivative.*P\.set_vel\(N, P\.pos_from\(O\)\.dt\(N\)\)"):
        nh.System.from_kanes_method(kane_sleigh(extra, wrong_used=True), VALUES)


@pytest.mark.parametrize("extra", EXTRAS)
def test_lagrange_wrong_velocity_of_a_used_point_is_still_refused(extra):
    with pytest.raises(nh.ModelError, match=r"velocity of point P relative to point O is neither the time "
                                            r"derivative"):
        nh.System.from_lagranges_method(lagrange_sleigh(extra, wrong_used=True), VALUES)


def test_joints_model_builds_without_velocity_warnings():
    """Joint points between two mass centres have no velocity of their own; the check compares the
    mass centres directly instead of asking SymPy for them (which warns, "Velocity of ...
    automatically calculated")."""
    ground = me.RigidBody("ground")
    model = me.System.from_newtonian(ground)
    chassis, rod = me.RigidBody("chassis"), me.RigidBody("rod")
    m1, m2, l, h, g = sp.symbols("m1 m2 l h g", positive=True)  # noqa: E741
    chassis.mass, rod.mass = m1, m2
    chassis.inertia = (me.inertia(chassis.frame, 1, 1, 2), chassis.masscenter)
    rod.inertia = (me.inertia(rod.frame, m2 * l**2 / 12, 0, m2 * l**2 / 12), rod.masscenter)
    th, x, y, phi = me.dynamicsymbols("theta x y phi")
    wz, vx, vy, wphi = me.dynamicsymbols("w_z v_x v_y w_phi")
    planar = me.PlanarJoint("pj", ground, chassis, rotation_coordinate=th, planar_coordinates=[x, y],
                            rotation_speed=wz, planar_speeds=[vx, vy],
                            parent_interframe=ground.frame.orientnew("Pint", "Axis", [-sp.pi / 2, ground.y]),
                            child_interframe=chassis.frame.orientnew("Cint", "Axis", [-sp.pi / 2, chassis.y]))
    pin = me.PinJoint("pin", chassis, rod, coordinates=phi, speeds=wphi, joint_axis=chassis.x,
                      parent_point=h * chassis.z, child_point=-l / 2 * rod.z)
    model.add_joints(planar, pin)
    model.apply_uniform_gravity(-g * ground.z)
    model.add_nonholonomic_constraints(chassis.masscenter.vel(ground.frame).dot(chassis.y))
    model.u_ind, model.u_dep = [wz, vx, wphi], [vy]
    model.validate_system()
    model.form_eoms()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        system = nh.System.from_kanes_method(model, {m1: 3.0, m2: 1.0, l: 1.2, h: 0.3, g: 9.81})
    assert system.nonholonomic().state_names == ["theta", "x", "y", "phi", "w_z", "v_x", "w_phi"]
