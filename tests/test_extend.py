"""System.with_force / with_potential / with_constraints / with_parameters: new systems (values)
against closed forms and systems built directly; everything the system carries is kept."""

import copy
import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.inclined_knife_edge import knife_edge_closed_form

OPTS = dict(rtol=1e-11, atol=1e-12)


def test_sleigh_with_a_constant_force_follows_the_closed_form():
    """The balanced sleigh (a = 0) pushed by a constant force F e_x: phi' = omega stays, the forward
    speed u obeys m u' = F cos(phi), so u(t) = u0 + F / (m omega) sin(omega t)."""
    sleigh = nh.systems.chaplygin_sleigh(m=2.0, I=0.5, a=0.0)
    pushed = sleigh.with_force([sp.Symbol("F"), 0, 0], parameters={"F": 0.7})
    assert sleigh.force == sp.zeros(3, 1)  # the original is unchanged
    t = np.linspace(0, 6, 61)
    r = nh.simulate(pushed.nonholonomic(), (0, 6), [0, 0, 0, 1, 0, 1.3], t_eval=t, **OPTS)
    x_dot, y_dot, phi = r["x_dot"], r["y_dot"], r["phi"]
    u = x_dot * np.cos(phi) + y_dot * np.sin(phi)
    assert np.abs(phi - 1.3 * t).max() < 1e-9
    assert np.abs(u - (1 + 0.7 / (2.0 * 1.3) * np.sin(1.3 * t))).max() < 1e-9
    # the default force 0 is the sleigh itself, F a runtime parameter
    r0 = nh.simulate(pushed.nonholonomic(), (0, 6), [0, 0, 0, 1, 0, 1.3], t_eval=t, params={"F": 0.0}, **OPTS)
    ref = nh.simulate(sleigh.nonholonomic(), (0, 6), [0, 0, 0, 1, 0, 1.3], t_eval=t, **OPTS)
    assert np.abs(r0.y - ref.y).max() < 1e-9


def test_sleigh_with_a_force_equals_the_sleigh_built_with_it():
    """The sleigh (a = 0.2) with a velocity- and time-dependent force, against the same System
    written out with that force."""
    sleigh = nh.systems.chaplygin_sleigh()
    x, y, phi = sp.symbols("x y phi")
    xd, yd, phid, t = sp.symbols("x_dot y_dot phi_dot t")
    c = sp.Symbol("c")
    force = sp.Matrix([sp.cos(t) - c * xd, 0.3 * sp.sin(phi), -c * phid])
    extended = sleigh.with_force(force, parameters={c: 0.4})
    direct = nh.System([x, y, phi], sleigh.metric, constraints=sleigh.constraints, force=sleigh.force + force,
                       parameters={**{s.name: v for s, v in sleigh.parameters.items()}, "c": 0.4})
    y0 = [0.1, -0.2, 0.3, np.cos(0.3), np.sin(0.3), 0.5]
    a = nh.simulate(extended.nonholonomic(), (0, 5), y0, t_eval=[5], **OPTS)
    b = nh.simulate(direct.nonholonomic(), (0, 5), y0, t_eval=[5], **OPTS)
    assert np.abs(a.y - b.y).max() < 1e-9
    assert extended.name == sleigh.name and extended.parameter_names == ["m", "I", "a", "mu", "c"]


def test_knife_edge_with_an_added_potential_is_the_inclined_knife_edge():
    """The balanced sleigh plus the potential m g x is the knife edge on an inclined plane, whose
    motion is known in closed form."""
    knife = nh.systems.chaplygin_sleigh(a=0.0).with_potential(sp.Symbol("m") * sp.Symbol("g") * sp.Symbol("x"),
                                                              parameters={"g": 1.0}, name="inclined")
    assert knife.name == "inclined"
    t = np.linspace(0, 10, 41)
    r = nh.simulate(knife.nonholonomic(), (0, 10), [0, 0, 0, 1, 0, 1], t_eval=t, **OPTS)
    assert np.abs(r.q - knife_edge_closed_form(t, u0=1.0, omega=1.0, g=1.0)).max() < 1e-8
    assert np.ptp(r.energy()) < 1e-9  # the added potential is in the energy
    direct = nh.simulate(nh.systems.inclined_knife_edge().nonholonomic(), (0, 10), [0, 0, 0, 1, 0, 1],
                         t_eval=t, **OPTS)
    assert np.abs(r.y - direct.y).max() < 1e-9


def test_constraints_added_to_a_free_body_give_the_knife_edge():
    x, y, phi = sp.symbols("x y phi")
    m, J, g = sp.symbols("m J g", positive=True)
    free = nh.System([x, y, phi], sp.diag(m, m, J), potential=m * g * x, parameters={m: 1.0, J: 1.0, g: 1.0})
    assert free.k == 0
    knife = free.with_constraints([[-sp.sin(phi), sp.cos(phi), 0]], friction=2.0)
    assert knife.k == 1 and knife.friction_coefficients == sp.Matrix([[2.0]])
    t = np.linspace(0, 10, 41)
    r = nh.simulate(knife.nonholonomic(), (0, 10), [0, 0, 0, 1, 0, 1], t_eval=t, **OPTS)
    assert np.abs(r.q - knife_edge_closed_form(t, u0=1.0, omega=1.0, g=1.0)).max() < 1e-8
    # a row added to a constrained system: the sleigh that cannot turn moves on a line
    stuck = nh.systems.chaplygin_sleigh().with_constraints(sp.Matrix([[0, 0, 1]]))
    assert stuck.k == 2
    r = nh.simulate(stuck.nonholonomic(), (0, 3), [0, 0, 0.4, np.cos(0.4), np.sin(0.4), 0], t_eval=[3], **OPTS)
    assert r.q[:, -1] == pytest.approx([3 * np.cos(0.4), 3 * np.sin(0.4), 0.4], abs=1e-9)


def test_affine_rows_are_added_with_their_affine_part():
    """A particle in the plane with x' = 1 + y (affine) added: x(t) = t + ... driven."""
    x, y = sp.symbols("x y")
    driven = nh.System([x, y], sp.eye(2)).with_constraints([[1, 0]], affine=[sp.Symbol("s")], parameters={"s": 2.0})
    r = nh.simulate(driven.nonholonomic(), (0, 1.5), [0, 0, 2.0, 0.5], t_eval=[1.5], **OPTS)
    assert r.q[:, -1] == pytest.approx([3.0, 0.75], abs=1e-9)
    with pytest.raises(ValueError, match="affine"):
        nh.System([x, y], sp.eye(2)).with_constraints([[1, 0]], affine=[1, 2])


def test_tilted_gravity_ball_rolls_down_at_five_sevenths_g_sin_alpha():
    """A uniform ball on a plane tilted by alpha rolls down with acceleration (5/7) g sin(alpha), from
    ``with_potential`` on the flat system and from the builder's gravity vector alike."""
    m_, r_, g_ = sp.symbols("m r g")
    alpha, g = 0.3, 9.81
    body = nh.bodies.RigidBody(m_, (2 * m_ * r_**2 / 5,) * 3)
    values = {m_: 1.3, r_: 0.7, g_: g}
    flat = nh.contact.roll_on_plane(body, nh.contact.Sphere(r_), gravity=g_, parameters=values)
    tilted = flat.with_potential(-m_ * g_ * sp.sin(alpha) * sp.Symbol("x"))
    built = nh.contact.roll_on_plane(body, nh.contact.Sphere(r_), parameters=values,
                                     gravity=(g_ * sp.sin(alpha), 0, -g_ * sp.cos(alpha)))
    y0 = nh.contact.rolling_state(flat, [1, 0, 0, 0], [0.0, 0.4, 0.0])  # rolling along x at 0.28 m/s
    t = np.linspace(0, 2, 21)
    for system in (tilted, built):
        assert system.unit_norm == flat.unit_norm and set(system.outputs) == set(flat.outputs)
        r = nh.simulate(system.nonholonomic(), (0, 2), y0, t_eval=t, **OPTS)
        assert np.abs(r["x"] - (0.28 * t + 5 / 14 * g * np.sin(alpha) * t**2)).max() < 1e-8
        assert np.abs(r["y"]).max() < 1e-10
    # the flat ball stays at constant speed (the default is untouched)
    r = nh.simulate(flat.nonholonomic(), (0, 2), y0, t_eval=t, **OPTS)
    assert np.abs(r["x"] - 0.28 * t).max() < 1e-9


def test_tilted_gravity_disc_equals_the_disc_built_on_the_incline():
    """The rolling disc's own potential rescaled and a downhill term added (V cos(alpha) - m g sin(alpha) x)
    is the disc built with the gravity vector; the lean now matters (z_G depends on it)."""
    alpha = 0.2
    disc = nh.systems.rolling_disc()
    m, g = disc.symbol("m"), disc.symbol("g")
    tilted = disc.with_potential((sp.cos(alpha) - 1) * disc.potential - m * g * sp.sin(alpha) * disc.symbol("x"))
    m_, r_, A_, C_, g_ = (disc.symbol(n) for n in "m r A C g".split())
    built = nh.contact.roll_on_plane(nh.bodies.RigidBody(m_, (A_, C_, A_)), nh.contact.Disc(r_, axis=(0, 1, 0)),
                                     gravity=(g_ * sp.sin(alpha), 0, -g_ * sp.cos(alpha)),
                                     parameters={s: v for s, v in disc.parameters.items()})
    quat = nh.bodies.quaternion_from_euler(0.5, 0.0, 0.1)
    y0 = nh.contact.rolling_state(disc, quat, [0.2, 4.0, 0.3])
    a = nh.simulate(tilted.nonholonomic(), (0, 2), y0, t_eval=[1, 2], **OPTS)
    b = nh.simulate(built.nonholonomic(), (0, 2), y0, t_eval=[1, 2], **OPTS)
    flat = nh.simulate(disc.nonholonomic(), (0, 2), y0, t_eval=[1, 2], **OPTS)
    assert np.abs(a.y - b.y).max() < 1e-8
    assert np.abs(a.y - flat.y).max() > 0.1  # the tilt changed the motion
    assert tilted.drawing is disc.drawing and tilted.pose is disc.pose


def test_with_parameters_changes_defaults_and_refuses_unknown_names():
    sleigh = nh.systems.chaplygin_sleigh()
    heavy = sleigh.with_parameters({"m": 3.0})
    assert heavy.parameters == {**dict(zip(sleigh.parameters, [3.0, 1.0, 0.2, 1.0]))}
    assert sleigh.param_vector() == [1.0, 1.0, 0.2, 1.0]
    y0 = [0, 0, 0, 1, 0, 1]
    a = nh.simulate(heavy.nonholonomic(), (0, 3), y0, t_eval=[3], **OPTS)
    b = nh.simulate(sleigh.nonholonomic(), (0, 3), y0, t_eval=[3], params={"m": 3.0}, **OPTS)
    assert np.abs(a.y - b.y).max() < 1e-12
    with pytest.raises(ValueError, match="'M'"):
        sleigh.with_parameters({"M": 1.0})
    with pytest.raises(TypeError, match="parameters"):
        sleigh.with_parameters([("m", 1.0)])


def test_bad_input_names_the_argument():
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.raises(ValueError, match="force"):
        sleigh.with_force([1, 0])
    with pytest.raises(TypeError, match="potential"):
        sleigh.with_potential(sp.Matrix([1, 2]))
    with pytest.raises(ValueError, match="rows"):
        sleigh.with_constraints([[1, 0]])
    with pytest.raises(nh.ModelError):  # a symbol without a value
        sleigh.with_force([sp.Symbol("F"), 0, 0])
    with pytest.raises(nh.ModelError):  # the potential may not depend on velocities
        sleigh.with_potential(sp.Symbol("x_dot"))


def test_extended_systems_pickle_and_keep_what_they_carry():
    """Names, parameters, outputs, unit-norm groups and holonomic constraints survive, also through pickle."""
    ball = nh.systems.chaplygin_ball()
    x = ball.symbol("x")
    pushed = ball.with_force([sp.Symbol("F"), 0, 0, 0, 0, 0], parameters={"F": 0.5}).with_potential(0.1 * x**2)
    copy = pickle.loads(pickle.dumps(pushed))
    for s in (pushed, copy):
        assert s.name == ball.name and s.coordinate_names == ball.coordinate_names
        assert s.velocity_names == ball.velocity_names and s.unit_norm == ball.unit_norm
        assert s.parameter_names == [*ball.parameter_names, "F"] and set(s.outputs) == set(ball.outputs)
    y0 = nh.contact.rolling_state(ball, [1, 0, 0, 0], [0.3, 0.5, 1.0])
    a = nh.simulate(pushed.nonholonomic(), (0, 2), y0, t_eval=[0.5, 2], **OPTS)
    b = nh.simulate(copy.nonholonomic(), (0, 2), y0, t_eval=[0.5, 2], **OPTS)
    assert np.array_equal(a.y, b.y) and np.array_equal(a["lean"], b["lean"])
    # holonomic constraints are kept
    xs, ys = sp.symbols("x y")
    held = nh.System([xs, ys], sp.eye(2), constraints=[[xs, ys]], holonomic=[xs**2 + ys**2 - 1])
    assert held.with_potential(ys).holonomic == held.holonomic


def test_kane_system_keeps_its_speeds_and_updates_its_applied_force():
    """A from_kanes_method system keeps its speeds frame and its applied force, updated by the added
    potential: the run in Kane's speeds equals the q'-form run of the same system written without an
    applied force. with_constraints drops the frame, whose first columns span the old D."""
    km, values = nh.systems.ball_on_turntable_kane()
    ball = nh.System.from_kanes_method(km, values)
    assert ball.applied_force is not None and ball.speeds is not None
    k = sp.Symbol("k")
    x, y = ball.symbol("x"), ball.symbol("y")
    trapped = ball.with_potential(k / 2 * (x**2 + y**2), parameters={k: 0.8})
    assert trapped.speeds == ball.speeds and trapped.applied_force != ball.applied_force
    assert trapped.nonholonomic().state_names == ball.nonholonomic().state_names
    state = trapped.__getstate__()
    for key in ("applied_force", "speeds", "drawing", "pose"):
        state.pop(key)
    plain = nh.System(**state)
    speeds = nh.simulate(trapped.nonholonomic(), (0, 2), [0.2, 0.1, 0.3, 1.0, 0.4, 0.5, -0.2, 0.1],
                         t_eval=[0, 2], **OPTS)
    qdot = nh.simulate(plain.nonholonomic(), (0, 2), np.r_[speeds.q[:, 0], speeds.velocity[:, 0]], t_eval=[0, 2],
                       **OPTS)
    free = nh.simulate(ball.nonholonomic(), (0, 2), [0.2, 0.1, 0.3, 1.0, 0.4, 0.5, -0.2, 0.1], t_eval=[0, 2], **OPTS)
    assert np.abs(speeds.q - qdot.q).max() < 1e-8
    assert np.abs(speeds.q - free.q).max() > 1e-3  # the spring acts
    stuck = ball.with_constraints(sp.Matrix([[0, 0, 0, 0, 1]]))
    assert stuck.speeds is None and stuck.k == ball.k + 1


def test_unit_norm_round_trips_as_indices_names_or_symbols():
    """System(**arguments, unit_norm=s.unit_norm) takes the indices that System.unit_norm holds."""
    ball = nh.systems.chaplygin_ball()
    state = ball.__getstate__()
    state.pop("drawing"), state.pop("pose")
    for groups in (ball.unit_norm, [["q0", "q1", "q2", "q3"]], [list(ball.coordinates[2:])],
                   [np.arange(2, 6)], [[2, "q1", ball.coordinates[4], 5]]):
        state["unit_norm"] = groups
        assert nh.System(**state).unit_norm == ball.unit_norm == [[2, 3, 4, 5]]
    for bad in ([[2, 6]], [[-1, 2]], [["q0", "w"]], [[2.0, 3]]):
        state["unit_norm"] = bad
        with pytest.raises(ValueError, match="unit_norm"):
            nh.System(**state)
    state["unit_norm"] = [[2, 2]]
    with pytest.raises(ValueError, match="unit_norm"):
        nh.System(**state)
    state["unit_norm"] = ["q0q1"]
    with pytest.raises(TypeError, match="unit_norm"):
        nh.System(**state)


def test_the_guide_page_prints_what_it_shows(capsys):
    """docs/guide/extending.md: its Python blocks run in order, each printing the text block after it."""
    from pathlib import Path
    import re

    page = (Path(__file__).resolve().parents[1] / "docs" / "guide" / "extending.md").read_text()
    pairs = re.findall(r"```python\n(.*?)```\s*```text\n(.*?)```", page, re.S)
    assert len(pairs) == len(re.findall(r"```python\n", page)) == 4
    namespace = {"__name__": "__docs__"}
    for code, shown in pairs:
        exec(compile(code, "extending.md", "exec"), namespace)
        assert capsys.readouterr().out.strip() == shown.strip()


def test_a_system_s_parameters_are_read_only():
    """system.parameters is the system's value: an edit changed the defaults of models built before it,
    and an added key broke every later run ('params has 5 entries'); it is refused, naming
    with_parameters, and the mapping still pickles, copies and reads as a dict."""
    sleigh = nh.systems.chaplygin_sleigh()
    model = sleigh.nonholonomic()
    m = sleigh.symbol("m")
    for edit in (lambda p: p.__setitem__(m, 50.0), lambda p: p.update({m: 2.0}), lambda p: p.pop(m),
                 lambda p: p.setdefault(sp.Symbol("zz"), 1.0), lambda p: p.clear()):
        with pytest.raises(TypeError, match=r"read-only: system.with_parameters"):
            edit(sleigh.parameters)
    assert model.params["m"] == 1.0 and sleigh.parameters[m] == 1.0
    for other in (pickle.loads(pickle.dumps(sleigh)), copy.deepcopy(sleigh)):
        assert dict(other.parameters) == dict(sleigh.parameters)
    assert sleigh.with_parameters({"m": 2.0}).parameters[m] == 2.0


def test_with_parameters_declares_new_ones_for_a_law_when_asked():
    """An outside probe: a law whose coefficient is a new symbol was refused with "add them to the system's
    parameters", and with_parameters, the obvious way, refused the name; what worked was a zero force added
    to declare it. new=True declares it; the law's message says so; without it a typo is still caught."""
    import sympy as sp

    sleigh = nh.systems.chaplygin_sleigh()
    law = nh.laws.Coulomb(sp.Symbol("mu_k"), 0.01)
    with pytest.raises(ValueError, match=r"declare them with values: system.with_parameters\(\{'mu_k': ...\}, "
                                         r"new=True\)"):
        sleigh.friction(law=law, normal=9.81)
    with pytest.raises(ValueError, match=r"\['mu_k'\] are not parameters .* \(new=True declares new ones\)"):
        sleigh.with_parameters({"mu_k": 0.4})  # the default: an unknown name is refused
    blade = sleigh.with_parameters({"mu_k": 0.4, "m": 2.0}, new=True)
    assert blade.parameter_names == ["m", "I", "a", "mu", "mu_k"] and blade.param_vector()[0] == 2.0
    y0 = [0, 0, 0, 1.0, 0.5, 0.3]
    declared = nh.simulate(blade.friction(law=law, normal=9.81), (0, 2), y0, params={"mu_k": 0.2, "m": 1.0}, **OPTS)
    numbers = nh.simulate(sleigh.friction(law=nh.laws.Coulomb(0.2, 0.01), normal=9.81), (0, 2), y0, **OPTS)
    assert np.abs(declared.y_final - numbers.y_final).max() < 1e-12
    with pytest.raises(ValueError, match="must be an identifier"):
        sleigh.with_parameters({"mu k": 0.4}, new=True)


def test_a_value_against_a_parameters_assumptions_is_refused_and_pi_is_no_parameter_name():
    """A second probe: a damping -Abs(k) x' with k declared positive is -k x' to SymPy; run at k = -0.7 (as a
    default, by with_parameters or in params) it pushed where a plain k damps, 1.29 off, without a word. And a
    parameter named pi was accepted while strings read pi as the constant (0.43 off). A value against the sign or
    integer assumptions is refused naming them (k = 0, the boundary, runs); pi and oo are no parameter names; the
    built-in systems declare offsets and slopes real, so those run with either sign."""
    import sympy as sp

    x = sp.Symbol("x")
    k = sp.Symbol("k", positive=True)
    damper = nh.System([x], sp.Matrix([[1.0]]), force=[-sp.Abs(k) * sp.Symbol("x_dot")], parameters={k: 0.5})
    assert nh.simulate(damper.nonholonomic(), (0, 1), [0, 1.0], params={"k": 0.0}).y_final[1] == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"parameter k = -0.7 contradicts its symbol's assumptions \(k \(positive="
                                         r"True\), so nonnegative\)"):
        nh.simulate(damper.nonholonomic(), (0, 1), [0, 1.0], params={"k": -0.7})
    with pytest.raises(ValueError, match="parameter k = -0.7 contradicts"):
        damper.with_parameters({"k": -0.7})
    n = sp.Symbol("n", integer=True)
    with pytest.raises(ValueError, match=r"parameter n = 1.5 contradicts .* so integer"):
        nh.System([x], sp.Matrix([[1.0]]), potential=n * x**2, parameters={n: 1.5})
    with pytest.raises(ValueError, match=r"parameter pi: a string reads 'pi' as the constant pi"):
        nh.System([x], sp.Matrix([[1.0]]), potential="pi*x**2/2", parameters={"pi": 4.0})
    with pytest.raises(ValueError, match=r"parameter oo"):
        damper.with_parameters({"oo": 1.0}, new=True)
    for builder, value in (("chaplygin_sleigh", {"a": -0.2}), ("differential_drive", {"d": -0.1})):
        system = getattr(nh.systems, builder)()
        assert nh.simulate(system.nonholonomic(), (0, 1), np.zeros(2 * system.n), params=value).success
