"""A metric that fails where the coordinates do: a Mechanism's disc in the angles yaw (z), roll (x), spin
(y) lying flat (roll = pi/2: the yaw and spin axes aligned) was refused with "the metric is not positive
definite ... (failed pivot 3)" alone (an outside probe), where the pose is no fault of the body's. The
message now names the chart; an upright pose evaluates."""

import numpy as np
import pytest

import sympy as sp

import nonholo as nh


def wheel():
    mechanism = nh.multibody.Mechanism(nh.bodies.RigidBody(1.0, (0.25, 0.5, 0.25)), "disc",
                                       attitude=(("yaw", "z"), ("roll", "x"), ("spin", "y")))
    mechanism.roll_on_plane("disc", nh.surfaces.Disc(1.0, axis=(0, 1, 0)))
    return mechanism.system(gravity=1.0).nonholonomic()


def test_a_metric_singular_at_gimbal_lock_names_the_chart():
    model = wheel()
    assert model.state_names[:5] == ["x", "y", "yaw", "roll", "spin"]
    upright = np.zeros(10)
    assert np.all(np.isfinite(model.rhs(0.0, upright)))
    flat = upright.copy()
    flat[3] = np.pi / 2
    with pytest.raises(nh.ModelError, match=r"metric is not (positive definite|finite) .* where the coordinates are "
                                            r"singular \(Euler angles with two of their axes aligned\)"):
        model.rhs(0.0, flat)


def test_a_negative_inertia_is_named_not_the_coordinates():
    """A sleigh at I = -0.5 has no Euler angles; an outside probe was told of them. A negative pivot of the
    metric is no pose's: the message names the parameters (or a coupling larger than the masses: G = [[1, 2],
    [2, 1]] has a positive diagonal). At the default parameters it runs."""
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    y0 = [0, 0, 0, 1.0, 0, 0.1]
    assert nh.simulate(model, (0, 1), y0).success
    with pytest.raises(nh.ModelError, match=r"parameter I = -0.5 contradicts its symbol's assumptions"):
        nh.simulate(model, (0, 1), y0, params={"I": -0.5})  # declared positive: refused by its assumptions
    x, y, phi, I = sp.symbols("x y phi I")  # noqa: E741  (a plain symbol: the metric's own check)
    G = sp.Matrix([[1, 0, -0.2 * sp.sin(phi)], [0, 1, 0.2 * sp.cos(phi)], [-0.2 * sp.sin(phi), 0.2 * sp.cos(phi), I]])
    plain = nh.System([x, y, phi], G, constraints=[[-sp.sin(phi), sp.cos(phi), 0]], parameters={I: 1.0})
    with pytest.raises(nh.ModelError, match=r"negative: the kinetic energy is negative along some velocity\); a mass "
                                            r"or an inertia is negative, or a coupling of the metric exceeds them: "
                                            r"check the parameters and G \(at the parameters "
                                            r"\{'I': -0.5"):
        nh.simulate(plain.nonholonomic(), (0, 1), y0, params={"I": -0.5})


def test_a_coordinate_that_moves_no_mass_is_named():
    """A point tied to x by a constraint, in no body's kinetic energy (a LagrangesMethod's coordinate an
    outside probe tied by hol_coneqs): its row of the metric is zero; the message names it, not a chart.
    With a mass it runs, and moves with x."""
    import sympy as sp

    x, y, xc, m = sp.symbols("x y x_c m")
    system = nh.System([x, y, xc], sp.diag(1, 1, m), constraints=sp.Matrix([[1, 0, -1]]), parameters={m: 0.0})
    y0 = [0, 0, 0, 1.0, 0.5, 1.0]
    with pytest.raises(nh.ModelError, match="coordinate x_c moves no mass .* give it a mass; where a holonomic "
                                            "constraint ties it to the others, write it as a function of them"):
        nh.simulate(system.nonholonomic(), (0, 1), y0)
    run = nh.simulate(system.nonholonomic(), (0, 1), y0, params={"m": 2.0})
    assert run.success and run["x_c"][-1] == pytest.approx(run["x"][-1], abs=1e-9)
