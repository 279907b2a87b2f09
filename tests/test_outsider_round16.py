"""Round 16 of an outside probe: a steady-motion search that slid to rest, the advice of a run and of
linearize where Kane's dependent speeds cannot be solved, linearize's advice for a [q, q'] off the
constraints, the fallback of from_kanes_method to [q, q'], and a friction ratio asked of a System."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sympy as sp
from sympy.physics import mechanics as me

import nonholo as nh
from nonholo.expressions.mechanics import kanes_method_arguments


def suslov_top():
    """A free Suslov top: a body about a fixed point, its body angular velocities u1, u2, u3 the speeds,
    u1 = 0 the constraint (u1 dependent); steady rotations u2 / u3 = -4/3 at any rate (its principal
    axis in the plane u1 = 0 for these inertias)."""
    ps, th, ph = me.dynamicsymbols("psi th ph")
    u1, u2, u3 = me.dynamicsymbols("u1:4")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", [ps, th, ph], "ZYX")
    w_qd = B.ang_vel_in(N)
    B.set_ang_vel(N, u1 * B.x + u2 * B.y + u3 * B.z)
    kd = [(w_qd - B.ang_vel_in(N)).dot(e) for e in B]
    O = me.Point("O")
    O.set_vel(N, 0)
    inertia = me.inertia(B, 2.0, 1.5, 1.0, 0.3, 0, 0.4)
    km = me.KanesMethod(N, q_ind=[ps, th, ph], u_ind=[u2, u3], kd_eqs=kd, u_dependent=[u1], velocity_constraints=[u1])
    km.kanes_equations([me.RigidBody("top", O, B, 1.0, (inertia, O))], [])
    return nh.System.from_kanes_method(km, {})


def skate():
    """A skate with x' independent and y' dependent (y' = tan(theta) x'): its dependent speed's block
    C_dep = cos(theta) is singular at theta = pi/2 (``nh.testing.kane_skate``, unpushed)."""
    km, (F, tau) = nh.testing.kane_skate(mass=1.0, inertia=0.1)
    Fs, taus = sp.symbols("F tau")
    return nh.System.from_kanes_method(km, {Fs: 0.0, taus: 0.0}, specified={F: Fs, tau: taus})


def test_a_search_that_slid_along_a_family_of_steady_motions_to_near_rest_warns():
    """Guessed spinning at about 1.9 near the family u2 / u3 = -4/3, the search without fixed= slid along
    the family and stopped near rest (|u| = 7e-6, within the absolute tolerance), silently; its
    linearization there gave rates of 1e-6. It now warns and says to fix a speed, which finds the motion;
    a search whose answer is near its guess still says nothing."""
    top = suslov_top()
    phi = np.arctan2(-0.8, 0.6)
    guess = np.r_[0.3, 0.01, phi + 0.02, -1.55, 1.23]
    with pytest.warns(nh.SimulationWarning, match=r"converged near rest, but not to rest.*slid along a family of "
                                                  r"steady motions.*Fix one speed with fixed="):
        slid = nh.steady_motions(top, guess)
    assert np.abs(slid.state[3:]).max() < 1e-3 * 1.55
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a speed fixed: the motion at that speed, nothing to say
        fixed = nh.steady_motions(top, guess, fixed={"u3": 1.2})
    np.testing.assert_allclose(fixed.state[3:], [-1.6, 1.2], atol=1e-9)
    # where the answer is near the guess (a sleigh gliding straight): no warning, as before
    sleigh = nh.systems.chaplygin_sleigh()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        straight = nh.steady_motions(sleigh, [0, 0, 0, 1.0, 0, 0.01])
    np.testing.assert_allclose(straight.state[3:], [1.0, 0, 0], atol=1e-9)


def test_a_run_in_kanes_speeds_stopped_where_the_dependent_speeds_turn_singular_names_them():
    """The skate turning through theta = pi/2 stops (FRAME_SINGULAR); the message spoke of 'a frame given
    by its vectors', which a from_kanes_method user never passed. It now names the dependent speeds of
    KanesMethod, their block C_dep, and state="qdot"."""
    model = skate().nonholonomic()
    with pytest.warns(nh.SimulationWarning) as caught:
        stopped = nh.simulate(model, (0, 1), [0, 0, 1.2, np.cos(1.2), 1.0])
    assert stopped.flag_name == "FRAME_SINGULAR"
    for text in (stopped.message, str(caught[0].message)):
        assert "frame given by its vectors" not in text
        assert "u_dependent" in text and "C_dep" in text and 'state="qdot"' in text
    with pytest.warns(nh.SimulationWarning, match="u_dependent"):
        batch = nh.simulate_many(model, (0, 1), [[0, 0, 1.2, np.cos(1.2), 1.0]], raise_on_failure=False)
    assert "u_dependent" in batch[0].message and "frame given by its vectors" not in batch[0].message


def test_linearize_just_off_a_singular_speed_choice_names_the_dependent_speeds():
    """At theta = pi/2 + 1e-9 the state in Kane's speeds passed to the model's equations, which said 'the
    frame metric X_D^T G X_D is singular'; the point is refused, as simulate refuses it, naming the
    dependent speeds' block C_dep and the coordinate model."""
    model = skate().nonholonomic()
    y = [0, 0, np.pi / 2 + 1e-9, 0.0, 0.5]
    for call in (lambda: nh.linearize(model, y), lambda: nh.simulate(model, (0, 1), y)):
        with pytest.raises(nh.ModelError, match=r'dependent speeds chosen in KanesMethod \(u_dependent\).*C_dep.*'
                                                r'state="qdot"') as info:
            call()
        assert "X_D^T G X_D" not in str(info.value)


def test_linearize_of_a_qdot_off_the_constraints_advises_what_linearize_takes():
    """A [q, q'] whose q' violates the skate's constraint: linearize advised 'Pass project_y0=True to
    simulate', which linearize has no use for; it now says to give a q' on the constraints."""
    model = skate().nonholonomic()
    with pytest.raises(ValueError, match=r"y given as \[q, q'\].*must have q' on the constraint set") as info:
        nh.linearize(model, [0, 0, 0, 0.0, 1.0, 0.0])  # sideways at theta = 0
    text = str(info.value)
    assert "project_y0" not in text and "system.project(q, qdot)" in text and "['x', 'y', 'theta', 'u1', 'u3']" in text


def test_the_fallback_to_qdot_for_a_time_dependent_affine_constraint_says_so():
    """A time-dependent affine part f_nh of the velocity constraints makes from_kanes_method integrate
    [q, q'], as time-dependent coefficients do; the docstring and the warning said coefficients only."""
    x, y, th = me.dynamicsymbols("x y th")
    ux, uy, uth = me.dynamicsymbols("ux uy uth")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    B.set_ang_vel(N, uth * N.z)
    P = me.Point("P")
    P.set_vel(N, ux * N.x + uy * N.y)
    km = me.KanesMethod(N, [x, y, th], [ux, uth], kd_eqs=[x.diff() - ux, y.diff() - uy, th.diff() - uth],
                        u_dependent=[uy], velocity_constraints=[P.vel(N).dot(B.y) - sp.sin(me.dynamicsymbols._t)])
    km.kanes_equations([me.RigidBody("s", P, B, 1, (me.inertia(B, 0, 0, 1), P))], [])
    with pytest.warns(UserWarning, match=r"integrates q'.*affine part f_nh.*depend on time explicitly"):
        system = nh.System.from_kanes_method(km, {})
    assert system.nonholonomic().state_names == ["x", "y", "th", "x_dot", "y_dot", "th_dot"]
    with pytest.raises(ValueError, match=r"y0 must have shape \(6,\)"):
        nh.simulate(system.nonholonomic(), (0, 1), [0, 0, 0, 1.0, 0])  # the speeds' length
    assert "f_nh" in kanes_method_arguments.__doc__ and "f_nh" in nh.System.from_kanes_method.__doc__


def incline():
    x, th = sp.symbols("x theta")
    m, R, g, alpha = 2.0, 0.15, 9.81, 0.4
    system = nh.System([x, th], sp.diag(m, 0.4 * m * R**2), potential=-m * g * np.sin(alpha) * x,
                       constraints=sp.Matrix([[1, -R]]))
    return system, m * g * np.cos(alpha)


def test_a_friction_ratio_asked_of_a_system_without_one_names_the_load_it_needs():
    """run["friction_ratio"] of a ball on an incline written as a System said "no state named
    'friction_ratio'", where run["normal_force"] named the load to give. It now says what the ratio needs:
    a normal load, or, where the run has one, result['friction_force'] / result['normal_force']."""
    system, N = incline()
    rolling = nh.simulate(system.nonholonomic(), (0, 1), [0, 0, 0, 0], t_eval=[0.5, 1.0])
    with pytest.raises(KeyError, match=r"no output 'friction_ratio'.*has no normal load: give normal= .*"
                                       r"friction_margin"):
        rolling["friction_ratio"]
    loaded = nh.simulate(system.friction(law=nh.laws.Coulomb(0.3, v_s=1e-3), normal=N), (0, 0.1), [0, 0, 0, 0],
                         t_eval=[0.1])
    stick_slip = nh.simulate(system.stick_slip(0.3, normal=N), (0, 0.1), [0, 0, 0, 0], t_eval=[0.1])
    for run in (loaded, stick_slip):
        with pytest.raises(KeyError, match=r"no output 'friction_ratio'.*Divide result\['friction_force'\] by "
                                           r"result\['normal_force'\] \(the load given as normal=\)"):
            run["friction_ratio"]
        assert run["normal_force"] == pytest.approx(N)


def test_a_law_of_two_components_needs_contacts_of_two_rows():
    """An outside probe's single-track car (a lateral row per axle, no contacts= given) took a Stribeck law
    of two components by pairing its rows in order: both axles one contact, one friction disc, 1.2e-2 m
    off the model of one contact per row after 2 s, and a combined Magic Formula read the rear's lateral
    slip as the longitudinal one, silently. The documented default is a contact per row: a law of two
    components is refused there, and taken where contacts= says which rows make a contact."""
    x, y, th = sp.symbols("x y theta")
    puck = nh.System([x, y, th], sp.diag(1, 1, 0.1), constraints=sp.Matrix([[1, 0, 0], [0, 1, 0]]))
    two = nh.laws.Stribeck(0.9, 0.7, 0.05, rows=2)
    with pytest.raises(ValueError, match=r"declares no contacts.*contacts=\[\[0, 1\]\]"):
        puck.friction(law=two, normal=9.81)
    run = nh.simulate(puck.friction(law=two, normal=9.81, contacts=[[0, 1]]), (0, 0.2), [0, 0, 0, 3, 4, 0])
    one = nh.simulate(puck.friction(law=nh.laws.Stribeck(0.9, 0.7, 0.05), normal=9.81), (0, 0.2), [0, 0, 0, 3, 4, 0])
    vx, vy = run["x_dot"][-1], run["y_dot"][-1]
    assert abs(vx / vy - 0.75) < 1e-9  # one round contact: the slip keeps its direction
    assert abs(one["x_dot"][-1] / one["y_dot"][-1] - 0.75) > 1e-2  # a contact per row: square friction
