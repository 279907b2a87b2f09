"""Robustness: random and hostile input at every public entry point either works or raises the
documented exception (ValueError, with ModelError a subclass; TypeError), never crashes the
interpreter or hangs (runs are bounded by max_steps and max_wall_time); concurrent simulations
on shared models equal serial ones. A crash here kills the test process, which fails the run."""

import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nonholo as nh

DOCUMENTED = (ValueError, TypeError)
SETTINGS = settings(max_examples=40, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
BOUNDS = dict(max_steps=2000, max_wall_time=1.0)

finite = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False)
moderate = st.floats(min_value=-3, max_value=3, allow_nan=False, allow_infinity=False)
anything = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -0.0, 1e-300, 1e300]))
# mostly plausible values, sometimes hostile ones: the numerical paths must be reached
value = st.one_of(moderate, moderate, moderate, anything)
tolerance = st.one_of(st.floats(1e-12, 1e-3), st.floats(1e-12, 1e-3), anything)


def vector(n):
    """Length-n vectors of mostly plausible entries, sometimes of the wrong length."""
    return st.one_of(st.lists(value, min_size=n, max_size=n), st.lists(value, min_size=n, max_size=n),
                     st.lists(value, min_size=n, max_size=n), st.lists(anything, min_size=0, max_size=n + 2))
SLEIGH = nh.systems.chaplygin_sleigh()
DISK = nh.systems.vertical_rolling_disk()


def _outcome(call):
    """Run call(); return the result, or None when it raised a documented exception."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", nh.SimulationWarning)
        try:
            return call()
        except DOCUMENTED:
            return None


def _check_result(sol):
    if sol is None:
        return
    assert sol.status in (-1, 0, 1) and sol.message
    assert sol.y.shape[1] == sol.t.size and np.all(np.isfinite(sol.t))
    if sol.status < 0:
        assert "t =" in sol.message


@SETTINGS
@given(y0=vector(6), t1=st.one_of(st.floats(-20, 20), anything), rtol=tolerance, atol=tolerance,
       method=st.sampled_from(["auto", "bdf", "adams", "auto", "rk45"]))
def test_simulate_with_hostile_arguments(y0, t1, rtol, atol, method):
    model = SLEIGH.nonholonomic()
    _check_result(_outcome(lambda: nh.simulate(model, (0.0, t1), y0, rtol=rtol, atol=atol, method=method,
                                               project_y0=True, **BOUNDS)))


@SETTINGS
@given(state=st.one_of(st.lists(moderate, min_size=6, max_size=6), st.lists(finite, min_size=6, max_size=6)),
       eps=st.one_of(st.floats(1e-9, 1.0), anything), t1=st.floats(1e-6, 20.0))
def test_friction_model_with_extreme_eps_and_states(state, eps, t1):
    def run():
        return nh.simulate(SLEIGH.friction(1e-3), (0.0, t1), state, params={"eps": eps}, **BOUNDS)

    _check_result(_outcome(run))


@SETTINGS
@given(entries=st.lists(moderate, min_size=3, max_size=3), asymmetry=st.sampled_from([0.0, 0.0, 0.5]),
       row=st.lists(moderate, min_size=2, max_size=2), q0=st.lists(moderate, min_size=2, max_size=2),
       v0=st.lists(moderate, min_size=2, max_size=2))
def test_degenerate_metrics_and_constraints(entries, asymmetry, row, q0, v0):
    """Random 2x2 'metrics' depending on x (definite, indefinite, singular, sometimes not
    symmetric) and random constraint rows (possibly zero)."""
    x, y = sp.symbols("x y")
    a, b, c = entries
    metric = sp.Matrix([[a + x**2 / 10, b], [b + asymmetry, c]])

    def build_and_run():
        system = nh.System([x, y], metric, x**2 / 2, constraints=[row])
        return nh.simulate(system.nonholonomic(), (0, 1.0), [*q0, *v0], project_y0=True, **BOUNDS)

    _check_result(_outcome(build_and_run))


@SETTINGS
@given(q=vector(4), v=vector(4), order=st.integers(-2, 10), eps=st.one_of(st.floats(1e-6, 1.0), anything))
def test_geometry_and_slow_manifold_queries(q, v, order, eps):
    for call in (lambda: DISK.projectors(q), lambda: DISK.qmat(q), lambda: DISK.christoffel(q),
                 lambda: DISK.multipliers(q, v), lambda: DISK.project(q, v), lambda: DISK.energy(q, v),
                 lambda: DISK.slip(q, DISK.project(q, v), order=order),
                 lambda: DISK.on_slow_manifold(q, DISK.project(q, v), eps, order=order),
                 lambda: DISK.fibre_base(q, v, eps, order=min(max(order, 0), 3)),
                 lambda: DISK.reduced(eps, order=order)):
        out = _outcome(call)
        if isinstance(out, np.ndarray):
            assert out.dtype == float


@SETTINGS
@given(Y0=st.lists(st.lists(finite, min_size=6, max_size=6), min_size=0, max_size=5),
       threads=st.one_of(st.none(), st.integers(-1, 4)), shape_error=st.booleans())
def test_simulate_many_with_hostile_batches(Y0, threads, shape_error):
    Y = np.array(Y0).reshape(len(Y0), -1) if Y0 else np.zeros((0, 6))
    if shape_error and Y.size:
        Y = Y[:, :5]
    out = _outcome(lambda: nh.simulate_many(SLEIGH.friction(1e-3), (0, 1.0), Y, threads=threads, **BOUNDS))
    if out is not None:
        assert len(out) == Y.shape[0]
        for sol in out:
            _check_result(sol)


@SETTINGS
@given(h=st.one_of(st.floats(1e-3, 2.0), anything), t1=st.floats(0.0, 20.0),
       state=st.lists(moderate, min_size=6, max_size=6), iterations=st.integers(-1, 8))
def test_discrete_integrator_with_hostile_steps(h, t1, state, iterations):
    def run():
        model = SLEIGH.discrete(h)
        end = model.h * round(t1 / model.h) if np.isfinite(t1 / model.h) and t1 / model.h < 1e5 else t1
        return nh.simulate_discrete(model, (0.0, end), state, project_y0=True,
                                    max_newton_iterations=iterations, max_wall_time=1.0)

    _check_result(_outcome(run))


@SETTINGS
@given(coefficients=st.lists(st.floats(-3, 3), min_size=4, max_size=4))
def test_user_frames_singular_or_not(coefficients):
    a, b, c, d = coefficients
    th, x, y, ph = DISK.coordinates
    R = next(s for s in DISK.parameters if s.name == "R")
    X1, X2 = sp.Matrix([1, 0, 0, 0]), sp.Matrix([0, R * sp.cos(th), R * sp.sin(th), 1])
    vectors = sp.Matrix.hstack(a * X1 + b * X2, c * X1 + d * X2, sp.Matrix([0, 1, 0, 0]), sp.Matrix([0, 0, 1, 0]))

    def run():
        frame = nh.frames.AnholonomicFrame(DISK, vectors)
        return nh.simulate(frame.hamel(), (0, 1.0), [0.3, 0, 0, 0, 0.5, 0.5], **BOUNDS)

    _check_result(_outcome(run))


@SETTINGS
@given(depth=st.integers(1, 6), seed=st.integers(0, 10**6), point=st.lists(anything, min_size=2, max_size=2))
def test_random_expression_tapes(depth, seed, point):
    """Random expression trees of every supported operation: evaluating anywhere (division by
    zero, log of negatives, overflow) gives numbers or inf/nan, never a crash."""
    rng = np.random.default_rng(seed)
    x, y = sp.symbols("x y")
    unary = [sp.sin, sp.cos, sp.tan, sp.exp, sp.log, sp.sqrt, sp.atan, sp.asin, sp.sinh, sp.tanh, sp.Abs, sp.sign]
    expr = x

    for _ in range(depth):
        choice = rng.integers(0, 4)
        other = y if rng.random() < 0.5 else sp.Float(rng.uniform(-2, 2))
        if choice == 0:
            expr = unary[rng.integers(len(unary))](expr)
        elif choice == 1:
            expr = expr * other + 1
        elif choice == 2:
            expr = expr / other
        else:
            expr = expr ** int(rng.integers(-3, 4)) + sp.atan2(expr, other)
    tape = _outcome(lambda: nh.expressions.lower([expr], [x, y]).tape())
    if tape is not None:
        with np.errstate(all="ignore"):
            values = tape(np.array(point, dtype=float))
            jac = tape.jacobian(np.array(point, dtype=float))
        assert values.shape == (1,) and jac.shape == (1, 2)


def test_concurrent_simulations_on_shared_models_equal_serial_ones():
    """Models are immutable and each integration owns its workspace: Python threads running
    simulate on the same model objects (the GIL is released in C++) give the serial results."""
    models = [SLEIGH.nonholonomic(), SLEIGH.friction(1e-4), SLEIGH.reduced(1e-2, order=2), SLEIGH.vakonomic()]
    rng = np.random.default_rng(11)
    jobs = []
    for i in range(32):
        model = models[i % len(models)]
        phi, u, w = rng.uniform(-1, 1, 3)
        y0 = [0, 0, phi, u * np.cos(phi), u * np.sin(phi), w] + ([0.3] if model.kind == "vakonomic" else [])
        jobs.append((model, y0))

    def run(job):
        model, y0 = job
        return nh.simulate(model, (0, 3), y0, t_eval=np.linspace(0, 3, 7)).y

    serial = [run(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        concurrent = list(pool.map(run, jobs))
    for a, b in zip(serial, concurrent):
        assert np.array_equal(a, b)
