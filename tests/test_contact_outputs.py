"""Contact quantities of any system with constraint rows (nonholo.system.contact_outputs):
result["slip"], result["friction_force"], result["normal_force"] on every model, against closed forms."""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.expressions.mechanics import kane_qdot
from nonholo.systems.whipple_bicycle import whipple_bicycle_kane

Y0 = [0.0, 0.0, 0.3, 1.0 * np.cos(0.3), 1.0 * np.sin(0.3), 0.4]  # u = 1, omega = 0.4, on the constraint
T = np.linspace(0.0, 2.0, 9)


def sleigh_lateral_force(result, m=1.0, I=1.0, a=0.2):
    """The knife edge's lateral force m (u omega + a omega') of the Chaplygin sleigh, with
    omega' = -m a u omega / (I + m a^2): Newton's law for the centre of mass, whose lateral velocity
    in the body frame is a omega."""
    phi, xd, yd, w = result["phi"], result["x_dot"], result["y_dot"], result["phi_dot"]
    u = xd * np.cos(phi) + yd * np.sin(phi)
    wdot = -m * a * u * w / (I + m * a**2)
    return np.abs(m * (u * w + a * wdot))


@pytest.fixture(scope="module")
def sleigh():
    return nh.systems.chaplygin_sleigh()


def test_the_default_model_gives_the_closed_form_constraint_force_and_no_slip(sleigh):
    r = nh.simulate(sleigh.nonholonomic(), (0, 2), Y0, t_eval=T)
    assert np.max(r["slip"]) < 1e-9
    np.testing.assert_allclose(r["friction_force"], sleigh_lateral_force(r), rtol=1e-9)
    assert r["friction_force"].shape == T.shape


def test_the_friction_model_carries_its_own_force_and_the_slip_eps_lambda_over_mu(sleigh):
    eps = 1e-4
    r = nh.simulate(sleigh.friction(eps), (0, 2), Y0, t_eval=T, rtol=1e-10, atol=1e-12)
    lam = sleigh_lateral_force(r)
    after = T > 0.1  # past the initial layer
    # on the slow manifold s = eps lambda / mu + O(eps^2): its force (1/eps) mu |s| is lambda + O(eps)
    np.testing.assert_allclose(r["slip"][after], eps * lam[after], rtol=20 * eps)
    np.testing.assert_allclose(r["friction_force"][after], lam[after], rtol=20 * eps)
    # the reduced model of order 1 carries the same slip in its velocity
    red = nh.simulate(sleigh.reduced(eps, order=1), (0, 2), Y0, t_eval=T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(red["slip"][after], r["slip"][after], rtol=20 * eps)
    # and its force is that of its slip, (1/eps) mu |s|: the friction model's to O(eps) at order 1
    np.testing.assert_allclose(red["friction_force"], red["slip"] / eps, rtol=1e-12)
    np.testing.assert_allclose(red["friction_force"][after], r["friction_force"][after], rtol=20 * eps)
    # the order-0 model has no slip: the multipliers of the no-slip motion
    zero = nh.simulate(sleigh.reduced(eps, order=0), (0, 2), Y0, t_eval=T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(zero["friction_force"], sleigh_lateral_force(zero), rtol=1e-9)


@pytest.mark.parametrize("normal", [9.81, "m*9.81"])
def test_a_coulomb_knife_edge_creeps_by_the_closed_form_and_reports_its_load(sleigh, normal):
    mu, v_s = 0.5, 1e-3
    model = sleigh.friction(law=nh.laws.Coulomb(mu, v_s), normal=normal)
    r = nh.simulate(model, (0, 2), Y0, t_eval=T, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(r["normal_force"], 9.81, rtol=1e-15)
    after = T > 0.1
    ratio = sleigh_lateral_force(r)[after] / (mu * 9.81)
    creep = v_s * ratio / np.sqrt(1 - ratio**2)  # mu N s / sqrt(s^2 + v_s^2) = lambda
    # the leading-order creep; the slow manifold's next term is O(v_s) relative (measured 3.9e-5 here,
    # 3.7e-6 at v_s = 1e-4)
    np.testing.assert_allclose(r["slip"][after], creep, rtol=0.1 * v_s)
    np.testing.assert_allclose(r["friction_force"][after], mu * 9.81 * ratio, rtol=0.1 * v_s)
    # the law's force of the run's own slip, to rounding
    s = r["slip"]
    np.testing.assert_allclose(r["friction_force"], mu * 9.81 * s / np.sqrt(s**2 + v_s**2), rtol=1e-12)
    assert pickle.loads(pickle.dumps(model.system)).outputs.keys() == model.system.outputs.keys()


def test_several_contacts_give_one_row_each():
    chain = nh.systems.knife_edge_chain(3)
    model = chain.nonholonomic()
    rng = np.random.default_rng(4)
    q0 = rng.normal(size=chain.n)
    y0 = np.r_[q0, chain.project(q0, rng.normal(size=chain.n))]
    r = nh.simulate(model, (0, 1), y0, t_eval=np.linspace(0, 1, 5))
    lam = np.array([chain.multipliers(r.q[:, i], r.v[:, i], t=r.t[i]) for i in range(r.t.size)]).T
    assert r["friction_force"].shape == (chain.k, 5) and r["slip"].shape == (chain.k, 5)
    np.testing.assert_allclose(r["friction_force"], np.abs(lam), rtol=1e-12)
    assert np.max(r["slip"]) < 1e-8


def test_a_bicycle_in_kanes_speeds_has_the_contact_forces_of_its_coordinate_model():
    """SymPy's Whipple bicycle (Kane's speeds by default) at 5 m/s from upright with a roll rate: the
    contact forces of the default model are those of the q' model, and neither slips."""
    km, values = whipple_bicycle_kane()
    bike = nh.System.from_kanes_method(km, values, check_kinematics=False)
    q0 = np.zeros(6)
    y0 = np.r_[q0, kane_qdot(km, q0, np.array([0.5, 5.0 / 0.3, 0.0, 0.0, 0.0, 5.0 / 0.35]), values)]
    t_eval = [0.0, 0.25, 0.5]
    r_speeds = nh.simulate(bike.nonholonomic(), (0, 0.5), y0, t_eval=t_eval, rtol=1e-10, atol=1e-10)
    r_qdot = nh.simulate(bike.nonholonomic(form="qdot"), (0, 0.5), y0, t_eval=t_eval, rtol=1e-10, atol=1e-10)
    assert r_speeds.model.kind == "hamel"
    assert r_speeds["friction_force"].shape == (bike.k, 3)
    np.testing.assert_allclose(r_speeds["friction_force"], r_qdot["friction_force"], rtol=1e-6, atol=1e-8)
    assert np.max(r_speeds["friction_force"]) > 1e-3  # the wheels do push
    assert np.max(r_speeds["slip"]) < 1e-8 and np.max(r_qdot["slip"]) < 1e-8


def test_what_a_system_does_not_have_is_refused_by_name(sleigh):
    r = nh.simulate(sleigh.nonholonomic(), (0, 1), Y0)
    with pytest.raises(KeyError, match="normal="):
        r["normal_force"]
    with pytest.raises(KeyError, match="no state named 'drift'"):
        r["drift"]
    with pytest.raises(KeyError, match="vakonomic"):
        nh.simulate(sleigh.vakonomic(), (0, 1), np.r_[Y0, 0.0])["friction_force"]
    x = sp.Symbol("x")
    free = nh.System([x], sp.Matrix([[1]]))  # no constraint rows: no contact quantity
    with pytest.raises(KeyError, match="no state named 'slip'"):
        nh.simulate(free.nonholonomic(), (0, 1), [0.0, 1.0])["slip"]


def test_a_stick_slip_sleigh_reports_the_needed_force_while_stuck_and_mu_k_n_while_sliding():
    """y0 = (u, omega) = (0.1, 1): the lateral force m I u omega / (I + m a^2) grows past mu_s N
    and the knife edge slides; stuck, its force is the closed form and it does not slip; sliding,
    its force is mu_k N and it slips."""
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    mu_s, mu_k, N = 0.03, 0.02, 9.81
    run = nh.simulate(sleigh.stick_slip(mu_s, mu_k, normal=N), (0, 6), [0, 0, 0, 0.1, 0, 1.0],
                      t_eval=np.linspace(0, 6, 61), rtol=1e-10, atol=1e-12)
    assert run.modes[:2] == ["stick", "slip"]
    force, slip = run["friction_force"], run["slip"]
    assert force.shape == slip.shape == run.t.shape
    np.testing.assert_allclose(run["normal_force"], N, rtol=1e-15)
    first = run.phases[0].t.size
    np.testing.assert_allclose(force[:first], sleigh_lateral_force(run.phases[0]), rtol=1e-9)
    assert np.all(force[:first] <= mu_s * N * (1 + 1e-9)) and np.max(slip[:first]) < 1e-9
    second = slice(first, first + run.phases[1].t.size)
    np.testing.assert_allclose(force[second], mu_k * N, rtol=1e-15)
    assert np.min(slip[second][1:]) > 0
