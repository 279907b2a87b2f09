"""Contact-force margins as events: system.friction_margin(mu) (mu N - |lambda|) and
system.liftoff_margin() (N), against the closed forms of a ball on an incline and the Chaplygin
sleigh, and located where the margin of the run's own output arrays crosses zero."""

import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.bodies import quaternion_from_euler
from nonholo.contact import rolling_state

M, R, G = 1.0, 0.1, 9.81
TIGHT = dict(rtol=1e-10, atol=1e-12)
ALPHA = 0.3
AT_REST = np.r_[0, 0, 1, 0, 0, 0, np.zeros(6)]


@pytest.fixture(scope="module")
def disc():
    return nh.systems.rolling_disc(m=1.0, r=0.1)


def incline():
    body = nh.bodies.RigidBody(M, np.eye(3) * 0.4 * M * R**2)
    return nh.contact.roll_on_plane(body, nh.contact.Sphere(R), gravity=(G * np.sin(ALPHA), 0, -G * np.cos(ALPHA)))


def sleigh_lateral_force(run, m=1.0, I=1.0, a=0.2):  # noqa: E741
    """lambda = m I u omega / (I + m a^2): m (a omega' + u omega) with omega' = -m a u omega / (I + m a^2)."""
    phi = run["phi"]
    u = run["x_dot"] * np.cos(phi) + run["y_dot"] * np.sin(phi)
    return m * I * u * run["phi_dot"] / (I + m * a**2)


@pytest.mark.parametrize("factor", [0.9, 1.1])
def test_the_incline_margin_is_mu_minus_two_sevenths_tan_alpha_times_the_load(factor):
    system = incline()
    mu = factor * 2 / 7 * np.tan(ALPHA)
    margin = system.friction_margin(mu)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = nh.simulate(system.nonholonomic(), (0, 1), AT_REST, t_eval=np.linspace(0, 1, 6),
                          events=nh.Event(margin, terminal=True), **TIGHT)
    # outside the cone from the start: the run says so (its event reports only later crossings)
    assert [str(w.message) for w in caught] == run.warnings
    assert len(run.warnings) == (1 if factor < 1 else 0)
    assert all("friction-cone margin is -0.0828301 <= 0 at the start" in w for w in run.warnings)
    N = M * G * np.cos(ALPHA)
    np.testing.assert_allclose(margin.of(run), (mu - 2 / 7 * np.tan(ALPHA)) * N, rtol=1e-9)
    np.testing.assert_allclose(system.liftoff_margin().of(run), N, rtol=1e-12)
    # negative from the start: no crossing, no event (CVODE's rule); positive throughout: rolls to the end
    assert run.status == 0 and run.t[-1] == 1.0 and len(run.t_events[0]) == 0


def test_the_multipliers_of_a_rolling_body_are_its_friction_force(disc):
    y0 = rolling_state(disc, quaternion_from_euler(0, 0, 0.1), [0, 5.0, 0])
    run = nh.simulate(disc.nonholonomic(), (0, 0.6), y0, t_eval=np.linspace(0, 0.6, 13), **TIGHT)
    mu = 0.7
    expected = mu * run["normal_force"] - run["friction_force"]  # Newton's law for G: the output arrays
    np.testing.assert_allclose(disc.friction_margin(mu).of(run), expected, rtol=0, atol=1e-9)


def event_agrees_with_outputs(model, margin, y0, t_end, output_margin, span):
    """The terminal event's time against the zero of the margin computed from the output arrays of
    a run sampled every 1e-4 over ``span`` (the cubic through the four samples around the sign change:
    error ~ h^4)."""
    hit = nh.simulate(model, (0, t_end), y0, events=nh.Event(margin, terminal=True, direction=-1), **TIGHT)
    assert hit.status == 1 and len(hit.t_events[0]) == 1
    t_event = hit.t_events[0][0]
    assert span[0] < t_event < span[1]
    assert abs(margin.of(hit)[-1]) < 1e-8  # the state where the run stopped is on the margin's zero
    grid = np.arange(span[0], span[1], 1e-4)
    dense = nh.simulate(model, (0, span[1]), y0, t_eval=grid, **TIGHT)
    g = output_margin(dense)
    i = np.flatnonzero((g[:-1] > 0) & (g[1:] <= 0))[0]
    cubic = np.polynomial.Polynomial.fit(grid[i - 1:i + 3], g[i - 1:i + 3], 3)
    t_zero = [r.real for r in cubic.roots() if abs(r.imag) < 1e-12 and grid[i] <= r.real <= grid[i + 1]][0]
    np.testing.assert_allclose(t_event, t_zero, rtol=0, atol=1e-9)
    return t_event


def test_a_falling_disc_leaves_the_friction_cone_mid_run_where_its_outputs_say(disc):
    y0 = rolling_state(disc, quaternion_from_euler(0, 0, 0.1), [0, 5.0, 0])  # below the critical spin: it falls
    mu = 0.3
    margin = disc.friction_margin(mu)
    assert margin.of(nh.simulate(disc.nonholonomic(), (0, 0.01), y0, t_eval=[0.0], **TIGHT))[0] > 0
    event_agrees_with_outputs(disc.nonholonomic(), margin, y0, 2.0,
                              lambda run: mu * run["normal_force"] - run["friction_force"], (0.2, 0.35))


@pytest.mark.parametrize("normal", ["constant", "state"])
def test_a_sleigh_with_a_given_load_slips_where_its_lateral_force_reaches_mu_n(normal):
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    y0 = [0, 0, 0, 0.1, 0, 1.0]  # u grows, omega decays: the lateral force m I u omega / (I + m a^2) peaks at t ~ 4
    mu = 0.3 / G
    load = 1.0 * G if normal == "constant" else G * (1 - 0.05 * sp.Symbol("phi_dot") ** 2)  # a load that varies
    margin = sleigh.friction_margin(mu, normal=load)

    def closed_form(run):
        N = G if normal == "constant" else G * (1 - 0.05 * run["phi_dot"] ** 2)
        return mu * N - np.abs(sleigh_lateral_force(run))

    probe = nh.simulate(sleigh.nonholonomic(), (0, 6), y0, t_eval=np.linspace(0, 6, 13), **TIGHT)
    np.testing.assert_allclose(margin.of(probe), closed_form(probe), rtol=0, atol=1e-12)
    N = G if normal == "constant" else G * (1 - 0.05 * probe["phi_dot"] ** 2)
    np.testing.assert_allclose(sleigh.liftoff_margin(normal=load).of(probe), N, rtol=1e-14)
    event_agrees_with_outputs(sleigh.nonholonomic(), margin, y0, 10.0, closed_form, (0.5, 3.0))


def test_a_margin_made_again_shares_its_tape_and_its_crossings():
    """A margin built again with the same kind, mu, loads and contacts (as a sweep's function does in
    every run) takes the tape its system kept; another mu or load gets its own, and its crossing."""
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    y0 = [0, 0, 0, 0.1, 0, 1.0]
    runs = [nh.simulate(sleigh.nonholonomic(), (0, 10), y0, events=nh.Event(margin, terminal=True), **TIGHT)
            for margin in (sleigh.friction_margin(0.3 / G, normal=G), sleigh.friction_margin(0.3 / G, normal=G),
                           sleigh.friction_margin(0.25 / G, normal=G), sleigh.friction_margin(0.3 / G, normal=G / 2))]
    first, again, lower_mu, lower_load = (run.t_events[0] for run in runs)
    assert sleigh.friction_margin(0.3 / G, normal=G).tape() is sleigh.friction_margin(0.3 / G, normal=G).tape()
    assert sleigh.friction_margin(0.3 / G, normal=G).tape() is not sleigh.friction_margin(0.25 / G, normal=G).tape()
    assert len(first) == 1 and np.array_equal(first, again)
    assert lower_mu[0] < first[0] and lower_load[0] < first[0] and lower_mu[0] != lower_load[0]
    assert sleigh.liftoff_margin(normal=G).tape() is not sleigh.friction_margin(0.3 / G, normal=G).tape()


def test_the_margin_on_a_friction_model_is_the_force_no_slip_would_need():
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    margin = sleigh.friction_margin(0.3 / G, normal=G)
    y0 = [0, 0, 0, 0.1, 0, 1.0]
    exact = nh.simulate(sleigh.nonholonomic(), (0, 10), y0, events=nh.Event(margin, terminal=True), **TIGHT)
    stiff = nh.simulate(sleigh.friction(1e-6), (0, 10), y0, events=nh.Event(margin, terminal=True), **TIGHT)
    # the friction model follows the no-slip motion to O(eps): its event within O(eps) of the other
    assert stiff.status == 1 and abs(stiff.t_events[0][0] - exact.t_events[0][0]) < 1e-4


def test_bad_margins_name_their_argument(disc):
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.raises(ValueError, match="normal="):
        sleigh.friction_margin(0.3)  # a planar system derives no normal force
    with pytest.raises(ValueError, match="mu"):
        sleigh.friction_margin(-1.0, normal=1.0)
    with pytest.raises(ValueError, match="normal"):
        sleigh.friction_margin(0.3, normal=sp.Symbol("unknown"))
    with pytest.raises(ValueError, match="normal"):
        sleigh.friction_margin(0.3, normal=[1.0, 2.0])  # one contact, two loads
    with pytest.raises(ValueError, match="no constraint rows"):
        sleigh.friction(law=nh.laws.Coulomb(0.5, v_s=1e-3), normal=1.0).system.friction_margin(0.3, normal=1.0)
    with pytest.raises(ValueError, match="other coordinates"):
        nh.simulate(sleigh.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 0], events=nh.Event(disc.liftoff_margin()))


def test_a_margin_event_is_the_same_in_cpp_through_a_law_model_and_in_a_batch():
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    margin = sleigh.friction_margin(0.3 / G, normal=G)
    y0 = [0, 0, 0, 0.1, 0, 1.0]
    exact = nh.simulate(sleigh.nonholonomic(), (0, 10), y0, events=nh.Event(margin, terminal=True), **TIGHT)
    # a model of the sleigh realized by a law has no constraint rows: the margin's own system evaluates it
    law = sleigh.friction(law=nh.laws.Coulomb(1.0, v_s=1e-7), normal=G)
    creeping = nh.simulate(law, (0, 10), y0, events=nh.Event(margin, terminal=True), **TIGHT)
    assert abs(creeping.t_events[0][0] - exact.t_events[0][0]) < 1e-5  # creep O(v_s) off the no-slip motion
    batch = nh.simulate_many(sleigh.nonholonomic(), (0, 10), [y0, [0, 0, 0, 0.2, 0, 1.0]],
                             events=nh.Event(margin, terminal=True), **TIGHT)
    assert batch[0].t_events[0][0] == exact.t_events[0][0]
    faster = nh.simulate(sleigh.nonholonomic(), (0, 10), [0, 0, 0, 0.2, 0, 1.0], events=nh.Event(margin, terminal=True),
                         **TIGHT)
    assert batch[1].t_events[0][0] == faster.t_events[0][0] < exact.t_events[0][0]
    with pytest.raises(ValueError, match="multipliers"):
        nh.simulate(sleigh.nonholonomic(), (0, 10), y0, events=nh.Event(margin), sensitivities=["a"])


def test_an_eccentric_ball_rolling_fast_lifts_off_where_its_normal_force_output_vanishes():
    # a sphere whose centre of mass lies alpha R below its centre, rolling at 100 rad/s: with G above the centre,
    # z_G'' ~ -alpha R omega^2 < -g and the no-slip motion would pull the ball down onto the plane (N < 0)
    m, R, alpha = 0.015, 0.02, 0.3
    top = nh.systems.tippe_top(m=m, R=R, alpha=alpha, I3=0.4 * m * R**2, I1=0.38 * m * R**2)
    y0 = rolling_state(top, [1, 0, 0, 0], [100.0, 0, 0])
    lift = top.liftoff_margin()
    with pytest.warns(nh.SimulationWarning, match="normal force is negative from t = 0.01"):  # past lift-off
        t = event_agrees_with_outputs(top.nonholonomic(), lift, y0, 0.2, lambda run: run["normal_force"],
                                      (0.005, 0.03))
    assert 0.01 < t < 0.025
