"""The package's boundaries: the model protocol, whole-trajectory quantities computed in C++,
one failure story (batches, user events, one exception hierarchy) and the sleigh's home."""

import pickle
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.system.frames import AnholonomicFrame
from nonholo.systems.chaplygin_sleigh import frames as sf
from nonholo.systems.chaplygin_sleigh.exact import SleighMotion
from nonholo.testing import ANALYTIC_TOL, TIGHT_ATOL, TIGHT_RTOL, random_system

SLEIGH_START = [0.0, 0.0, 0.4, -1.5 * np.cos(0.4), -1.5 * np.sin(0.4), 1.0]


# ------------------------------------------------------------------ the model protocol
def _models(sleigh):
    frame = AnholonomicFrame(sleigh)
    return [sleigh.nonholonomic(), sleigh.vakonomic(), sleigh.friction(1e-2), sleigh.reduced(1e-2, 2),
            frame.hamel(), frame.vakonomic(), sleigh.discrete(0.1)]


def test_every_model_kind_implements_the_protocol(sleigh):
    for model in _models(sleigh):
        assert isinstance(model, nh.ModelProtocol), model
        assert len(model.state_names) == model.n_states
        assert set(sleigh.parameter_names) <= set(model.params)


def test_state_names_come_from_the_model(sleigh):
    assert sleigh.reduced(0.1, 1).state_names == ["x", "y", "phi", "u_x", "u_y", "u_phi"]
    assert sleigh.vakonomic().state_names[-1] == "lambda_0"
    with pytest.raises(TypeError):
        sleigh.state_names("reduced")  # each model knows its own states
    assert sleigh.state_names() == sleigh.nonholonomic().state_names == sleigh.discrete(0.1).state_names


def test_frame_models_carry_their_frame_from_construction(sleigh):
    frame = AnholonomicFrame(sleigh)
    model = frame.hamel()
    assert isinstance(model, nh.FrameModel) and model.frame is frame and model.n_velocities == 2
    clone = pickle.loads(pickle.dumps(model))
    assert isinstance(clone, nh.FrameModel) and clone.frame.rank == 2


@pytest.mark.parametrize("seed", [3, 4])
def test_trajectory_quantities_equal_the_pointwise_ones(seed):
    """velocity, energy and constraint residual over a trajectory (one C++ pass) equal the
    checked point API sample by sample, for a random system with affine constraints and force."""
    system = random_system(seed, n=4, k=2, affine=True, force=True)
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 1.0, 7)
    Q = rng.uniform(-1, 1, (4, 7))
    U = np.array([system.project(q, rng.uniform(-1, 1, 4), ti) for q, ti in zip(Q.T, t)]).T
    reduced = system.reduced(0.05, order=2)
    V = reduced.velocity(t, np.vstack([Q, U]))
    for i in range(7):
        assert np.allclose(V[:, i], system.on_slow_manifold(Q[:, i], U[:, i], 0.05, order=2, t=t[i]), rtol=1e-13,
                           atol=1e-14)
        assert reduced.energy(t[i], np.r_[Q[:, i], U[:, i]]) == pytest.approx(
            system.energy(Q[:, i], V[:, i]), rel=1e-13)
    Y = np.vstack([Q, V])
    r = system.nonholonomic().constraint_residual(t, Y)
    assert r.shape == (7,) and np.all(r > 1e-6)  # v = u + slip is off the constraint set
    assert r[2] == pytest.approx(system.nonholonomic().constraint_residual(t[2], Y[:, 2]), rel=1e-14)


@pytest.mark.parametrize("order, band", [(2, 1e-4), (3, 1e-5)])
def test_reduced_result_has_velocity_and_energy_at_every_t_eval_sample(sleigh, order, band):
    """At default tolerances the interpolated states miss A u = b by the solver's tolerance:
    velocity and energy are still given at every sample (they used to raise 'u must lie on the
    constraint set'), and they follow the friction model started on the slow manifold to the
    reduced model's O(eps^(K+1)) (measured 1.9e-5 for K = 2 and 1.7e-6 for K = 3 at eps = 1e-2)."""
    eps, t_eval = 1e-2, np.linspace(0, 10, 1001)
    sol = nh.simulate(sleigh.reduced(eps, order), (0, 10), SLEIGH_START, t_eval=t_eval)
    assert sol.success
    v, E = sol.velocity, sol.energy()
    assert v.shape == (3, 1001) and E.shape == (1001,)
    q0, u0 = SLEIGH_START[:3], SLEIGH_START[3:]
    start = np.r_[q0, sleigh.on_slow_manifold(q0, u0, eps, order=order + 2)]
    full = nh.simulate(sleigh.friction(eps), (0, 10), start, t_eval=t_eval, rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    assert np.abs(v - full.v).max() < band
    assert np.abs(E - full.energy()).max() < band


def test_discrete_model_quantities(sleigh):
    res = nh.simulate_discrete(sleigh.discrete(0.05), (0, 2), SLEIGH_START)
    assert np.allclose(res.velocity, res.v)
    assert res.constraint_residual().max() < 1e-12
    assert np.abs(res.energy() / res.energy()[0] - 1).max() < 1e-3


# ------------------------------------------------------------------ one failure story
def _blow_up_system():
    """q'' = c q'^2: q' = v0 / (1 - c v0 t) blows up at t = 1/(c v0); the mass m must be positive."""
    q, v, c, m = sp.symbols("q q_dot c m")
    x, xd = sp.symbols("x x_dot")
    return nh.System([q, x], sp.diag(m, 1), force=[m * c * v**2, 0], velocities=[v, xd], parameters={c: 0.0, m: 1.0},
                     name="blow-up")


def test_simulate_many_keeps_every_other_run_when_one_fails():
    model = _blow_up_system().nonholonomic()
    params = {"c": [0.0, 2.0, 0.5, 0.1], "m": [1.0, 1.0, -1.0, 1.0]}  # run 1 blows up at t = 0.5, run 2 has m < 0
    with pytest.warns(nh.SimulationWarning, match="2 of 4 runs failed"):
        runs = nh.simulate_many(model, (0, 1), [0.0, 0.0, 1.0, 0.0], params=params, threads=2,
                                t_eval=np.linspace(0, 1, 5))
    assert [r.status for r in runs] == [0, -1, -1, 0]
    assert runs[1].t_last == pytest.approx(0.5, abs=1e-3)
    assert "did not start" in runs[2].message and "metric" in runs[2].message
    assert runs[0].y[2, -1] == pytest.approx(1.0) and runs[3].y[2, -1] == pytest.approx(1 / 0.9, rel=1e-6)
    with pytest.raises(nh.IntegrationError) as info:
        nh.simulate_many(model, (0, 1), [0.0, 0.0, 1.0, 0.0], params=params, raise_on_failure=True)
    assert len(info.value.results) == 4 and info.value.results[3].success and info.value.t is not None


class UserEventError(Exception):
    pass


def test_a_user_event_that_raises_surfaces_its_own_exception(sleigh):
    def event(t, y):
        if t > 0.5:
            raise UserEventError(f"no good at t = {t:.3g}")
        return y[0] - 100.0

    with pytest.raises(UserEventError, match="no good"):
        nh.simulate(sleigh.nonholonomic(), (0, 2), SLEIGH_START, events=event)

    def not_a_float(t, y):
        return "zero"

    with pytest.raises(TypeError, match="must return a float"):
        nh.simulate(sleigh.nonholonomic(), (0, 2), SLEIGH_START, events=not_a_float)


def test_one_exception_hierarchy():
    assert issubclass(nh.ModelError, nh.NonholoError) and issubclass(nh.ModelError, ValueError)
    assert issubclass(nh.IntegrationError, nh.NonholoError) and issubclass(nh.IntegrationError, RuntimeError)
    x = sp.Symbol("x")
    with pytest.raises(nh.ModelError):  # raised by the core: the same class
        nh.System([x, sp.Symbol("y")], sp.diag(-1, 1)).nonholonomic().rhs(0, [0, 0, 1, 0])
    assert not hasattr(nh._core, "SolverError") and not hasattr(nh._core, "ModelError")
    err = nh.IntegrationError("failed", t=1.5)
    assert err.t == 1.5 and err.result is None


def test_solver_options_are_checked_in_python(sleigh):
    for bad, match in [({"max_order": 0}, "between 1 and 12"), ({"nonsense": 1}, "unknown key"),
                       ({"jacobian_frequency": 1.5}, "integer")]:
        with pytest.raises((ValueError, TypeError), match=match):
            nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_START, solver_options=bad)
        with pytest.raises((ValueError, TypeError), match=match):
            nh.simulate_many(sleigh.nonholonomic(), (0, 1), [SLEIGH_START], solver_options=bad)



@pytest.mark.parametrize("method, order, match", [
    ("bdf", 6, r"at most 5 with method='bdf', BDF's highest order; got 6"),
    ("auto", 12, r"at most 5 with method='auto', BDF's \(auto's stiff phase is BDF\)"),
    ("dop853", 3, r"method='dop853' has a fixed order")])
def test_max_order_is_checked_against_the_method(sleigh, method, order, match):
    """BDF's highest order is 5: max_order 6 to 12 passed the check (1 to 12) and failed at CVODE's setup,
    "CVodeSetMaxOrd (flag -22)", naming neither; DOP853 ignored it."""
    for run in (nh.simulate, lambda *a, **k: nh.simulate_many(a[0], a[1], [a[2]], **k)):
        with pytest.raises(ValueError, match=match):
            run(sleigh.nonholonomic(), (0, 1), SLEIGH_START, method=method, solver_options={"max_order": order})
    # what each method allows runs, the default method too
    for method, order in (("adams", 12), ("bdf", 5), ("auto", 5), ("auto", 2)):
        options = {"max_order": order}
        assert nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_START, method=method, solver_options=options).success
    assert nh.simulate(sleigh.nonholonomic(), (0, 1), SLEIGH_START, solver_options={"max_order": 3}).success


# ------------------------------------------------------------------ the sleigh's home
def test_sleigh_modules_are_not_imported_eagerly():
    code = ("import sys, nonholo; print(any(m.startswith('nonholo.systems.chaplygin_sleigh.frames') "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_discrete_sleigh_uses_the_systems_inertia_name():
    from nonholo.systems.chaplygin_sleigh.discrete import DiscreteSleigh

    P = DiscreteSleigh(m=1.3, I=0.7, a=0.4)
    assert P.J == pytest.approx(0.7 + 1.3 * 0.4**2)
    with pytest.raises(TypeError):
        DiscreteSleigh(m=1.3, J=0.7, a=0.4)  # the paper's J is I here


def test_eldering_frames_are_anholonomic_frames(sleigh):
    """Eldering's body frame gives (u, omega, v), the G-orthogonal one (u, psi, v); Hamel's
    equations in the G-orthogonal frame follow the closed form (psi = omega on C)."""
    rng = np.random.default_rng(5)
    body, orth = sf.body_frame(sleigh), sf.orthogonal_frame(sleigh)
    k = sf.sleigh_constants(sleigh).k
    for _ in range(3):
        q, qdot = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
        u, v, w = sf.body_velocities(q, qdot)
        assert np.allclose(body.quasi_velocities(q, qdot), [u, w, v], atol=1e-14)
        assert np.allclose(orth.quasi_velocities(q, qdot), [u, w + k * v, v], atol=1e-14)
    t = np.linspace(0, 5, 11)
    sol = nh.simulate(orth.hamel(), (0, 5), [0, 0, 0.4, -1.5, 1.0], t_eval=t, rtol=TIGHT_RTOL, atol=TIGHT_ATOL)
    u, w, phi = SleighMotion(1.0, 1.0, 0.2, -1.5, 1.0, 0.4)(t)
    assert np.allclose(sol["v1"], u, atol=ANALYTIC_TOL) and np.allclose(sol["v2"], w, atol=ANALYTIC_TOL)
    assert np.allclose(sol["phi"], phi, atol=ANALYTIC_TOL)


def test_function_names_are_not_shadowed_by_modules():
    """nonholo.simulate and nonholo.sweep are the functions; no module of the same name exists."""
    import importlib.util

    assert callable(nh.simulate) and callable(nh.sweep)
    for name in ("nonholo.simulate", "nonholo.sweep"):
        assert importlib.util.find_spec(name) is None
    # nor in the layers: each function of a subpackage lives in a module of another name
    for package in (nh.integrate, nh.analysis, nh.models, nh.system, nh.builders, nh.viz, nh.expressions):
        for name in package.__all__:
            shadowed = importlib.util.find_spec(f"{package.__name__}.{name}") is not None
            assert not shadowed or isinstance(getattr(package, name), type(package)), name
