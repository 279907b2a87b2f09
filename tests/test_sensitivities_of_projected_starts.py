"""Sensitivities of runs started off the constraint set with project_y0=True: the projected start depends on
the parameters in G and A, so each parameter's sensitivity starts at the projection's derivative, for every
model that projects (a law's friction and reduced models too) and in batches as in single runs (each a case
an outside probe found wrong, against central differences of projected runs)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

Y0 = [0, 0, 0, 1.0, 0.3, 0.5]  # off the blade row: the velocity is projected
TIMES = [0.0, 0.5, 1.0]


def sleigh():
    x, y, phi, m, I, a, b = sp.symbols("x y phi m I a b")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    return nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), b]]),
                     parameters={m: 1.0, I: 1.0, a: 0.2, b: 0.1}, name="offset sleigh")


def differences(model, name, value, h=1e-4):
    runs = [nh.simulate(model, (0, 1), Y0, t_eval=TIMES, params={name: value + s}, project_y0=True, rtol=1e-12,
                        atol=1e-14).y for s in (h, -h)]
    return (runs[0] - runs[1]) / (2 * h)


MODELS = {
    "magic formula": lambda s: s.friction(law=nh.laws.MagicFormula(B=8.0, C=1.3, D=0.9), normal=9.81,
                                          speed=sp.cos(s.coordinates[2]) * s.velocities[0]
                                          + sp.sin(s.coordinates[2]) * s.velocities[1]),
    "coulomb": lambda s: s.friction(law=nh.laws.Coulomb(0.5, v_s=0.05), normal=9.81),
    "coulomb reduced": lambda s: s.reduced(order=1, law=nh.laws.Coulomb(0.5, v_s=0.05), normal=9.81),
    "nonholonomic": lambda s: s.nonholonomic(),  # the default path, right before: the reference of the others
}


@pytest.mark.parametrize("kind", list(MODELS))
def test_a_projected_start_gives_the_sensitivities_of_projected_runs(kind):
    """d y_dot / d a at t = 0 was 0 on a law's friction model (the projection's -0.034) and -0.06 at t = 1
    (+0.22: the wrong sign); on its reduced model 20% off."""
    model = MODELS[kind](sleigh())
    run = nh.simulate(model, (0, 1), Y0, t_eval=TIMES, sensitivities=["a", "b"], project_y0=True, rtol=1e-10,
                      atol=1e-12)
    for j, (name, value) in enumerate((("a", 0.2), ("b", 0.1))):
        fd = differences(model, name, value)
        assert np.max(np.abs(run.sensitivities[:, j, :] - fd)) < 1e-6 * (1 + np.max(np.abs(fd)))
    assert abs(run.sensitivities[4, 0, 0] - (-0.03397)) < 1e-4  # the projection's derivative, at t = 0


@pytest.mark.parametrize("kind", list(MODELS))
def test_a_batch_of_projected_starts_has_the_sensitivities_of_single_runs(kind):
    """simulate_many started every run's sensitivities at 0 where y0 was projected (d y_dot(1) / d a -0.07
    for 0.22 on the plain nonholonomic model): only starts given in another form ([q, q'] for Kane's
    speeds) got their own initial values."""
    model = MODELS[kind](sleigh())
    one = nh.simulate(model, (0, 1), Y0, t_eval=TIMES, sensitivities=["a"], project_y0=True, rtol=1e-10, atol=1e-12)
    many = nh.simulate_many(model, (0, 1), np.array([Y0, Y0]), t_eval=TIMES, sensitivities=["a"], project_y0=True,
                            rtol=1e-10, atol=1e-12)
    for run in many:
        np.testing.assert_allclose(run.sensitivities, one.sensitivities, rtol=1e-9, atol=1e-12)


def test_a_fit_rejects_a_trial_point_of_negative_eps_as_out_of_the_models_range():
    """An outside probe's sleigh with a spring, drag and friction coefficient mu, fitting eps and mu of its
    friction model without bounds (they enter only as mu / eps): a trial point of eps < 0 ended the fit
    with a ValueError, where a trial point out of the model's range (a ModelError) gets NaN residuals and
    the trust region shrinks. eps <= 0 is such a point now (a ModelError, still a ValueError), and the fit
    ends flagging the pair as not identified."""
    x, y, phi, m, I, a, k, c, b, mu = sp.symbols("x y phi m I a k c b mu")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    system = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), b]]),
                       potential=k / 2 * (x**2 + y**2), force=sp.Matrix([0, 0, -c * sp.Symbol("phi_dot")]),
                       parameters={m: 1.3, I: 0.7, a: 0.25, k: 0.8, c: 0.1, b: 0.12, mu: 1.5}, friction=mu)
    y0 = np.array([0.1, -0.2, 0.3, 0.9, 0.0, 0.8])
    y0[4] = (np.sin(0.3) * y0[3] - 0.12 * y0[5]) / np.cos(0.3)
    model = system.friction(1e-3)
    t_obs = np.linspace(0, 2, 11)
    data = nh.simulate(model, (0, 2), y0, t_eval=t_obs, params={"eps": 1e-3, "mu": 1.5}, rtol=1e-12, atol=1e-14)
    with pytest.raises(nh.ModelError, match="eps must be a positive finite number"):
        nh.simulate(model, (0, 1), y0, params={"eps": -1e-3})
    with pytest.warns(Warning, match="not identified"):
        fit = nh.fit(model, t_obs, np.array([data[n] for n in ("x", "y", "phi")]), {"eps": 2e-3, "mu": 1.0}, y0,
                     observe=["x", "y", "phi"])
    assert fit.x[1] / fit.x[0] == pytest.approx(1.5 / 1e-3, rel=1e-5)  # the combination the data fix


def test_the_sensitivity_to_y0_of_a_friction_model_started_on_the_set_is_the_projected_unit_vector():
    """An outside probe: with project_y0=True a friction model's ("y0", i) sensitivity started at the unit
    vector e_i where y0 lay on the constraint set (the core projects it only for a constrained model), 9% off
    differences of projected runs at t = 4; it starts at P e_i, as the nonholonomic model's does."""
    system = sleigh()
    q = np.zeros(3)
    on = np.r_[q, system.project(q, [1.0, 0.3, 0.5])]
    P = system.projectors(q)[0]
    for model in (system.friction(0.05), system.nonholonomic()):  # the option's model, and the default's
        run = nh.simulate(model, (0, 1), on, t_eval=TIMES, sensitivities=[("y0", 4)], project_y0=True,
                          rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(run.sensitivities[3:, 0, 0], P[:, 1], atol=1e-9)
        h = 1e-5
        runs = []
        for s in (h, -h):
            shifted = on.copy()
            shifted[4] += s
            runs.append(nh.simulate(model, (0, 1), shifted, t_eval=TIMES, project_y0=True, rtol=1e-12, atol=1e-14).y)
        np.testing.assert_allclose(run.sensitivities[:, 0, :], (runs[0] - runs[1]) / (2 * h), atol=2e-7)


def test_the_sensitivity_to_a_holonomic_parameter_is_taken_at_the_start_the_run_takes():
    """An outside probe: a Cartesian pendulum started from the unit circle and run at length l (project_y0 moves
    it out along the radius) had every sensitivity to l scaled by l (d q0 / dl = l times the radial unit
    vector, d t / dl of its crossing 1.3x and 2x T / (8 l)): the derivative of the moved start was taken at the
    given q. At l = 1, where y0 lies on the circle (the default), it was right and stays so."""
    from scipy.special import ellipk

    x, y, length = sp.symbols("x y l")
    pendulum = nh.System([x, y], sp.eye(2), potential=9.81 * y, constraints=sp.Matrix([[x, y]]),
                         holonomic=[(x**2 + y**2 - length**2) / 2], parameters={length: 1.0})
    theta0 = 1.0
    y0 = [np.sin(theta0), -np.cos(theta0), 0, 0]
    for value in (1.0, 1.3, 2.0):
        period = 4 * np.sqrt(value / 9.81) * ellipk(np.sin(theta0 / 2) ** 2)
        run = nh.simulate(pendulum.nonholonomic(), (0, 0.4 * period), y0, params={"l": value}, project_y0=True,
                          sensitivities=["l"], events=[nh.Event(x)], rtol=1e-11, atol=1e-13)
        np.testing.assert_allclose(run.sensitivities[:2, 0, 0], [np.sin(theta0), -np.cos(theta0)], atol=1e-9)
        assert run.t_events_sensitivities[0][0].item() == pytest.approx(period / (8 * value), rel=1e-6)


@pytest.mark.parametrize("metric", [(2.0, 0.5), (1.0, 1.0)])
def test_a_start_moved_far_onto_a_curved_holonomic_constraint(metric):
    """An ellipse pendulum (x^2/c^2 + y^2 = l^2) started on the ellipse at l = 1 and run at l = 1.1 and 1.3 with
    project_y0=True: the move's Gauss-Newton steps turn with dh/dq, so the first-order step at the moved start
    was no derivative of it (an outside probe: 7% off at l = 1.1, 0.12 at 1.3 on sensitivities of size 5)."""
    x, y, l, c = sp.symbols("x y l c")
    h = (x**2 / c**2 + y**2 - l**2) / 2
    pendulum = nh.System([x, y], sp.diag(*metric), potential=9.81 * y, constraints=sp.Matrix([[x / c**2, y]]),
                         holonomic=[h], parameters={l: 1.0, c: 1.5}).nonholonomic()
    th = 0.8
    y0 = [1.5 * np.sin(th), -np.cos(th), 0.75 * np.cos(th), 0.5 * np.sin(th)]
    for value in (1.1, 1.3):
        run = nh.simulate(pendulum, (0, 2), y0, params={"l": value}, sensitivities=["l"], project_y0=True,
                          t_eval=[0, 2], rtol=1e-11, atol=1e-13)
        d = 1e-5
        up, down = (nh.simulate(pendulum, (0, 2), y0, params={"l": value + s}, project_y0=True, t_eval=[0, 2],
                                rtol=1e-13, atol=1e-15).y for s in (d, -d))
        np.testing.assert_allclose(run.sensitivities[:, 0, :], (up - down) / (2 * d), atol=1e-6)
