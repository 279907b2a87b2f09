"""The velocity terms of the dynamics tape, against SymPy's derivatives at random points.

The core builds r = F - dV - c(q, v) and a = db/dq v + db/dt - (dA/dq . v) v from one forward
sweep along (q', t') = (v, 1) and one backward sweep for d(T - V)/dq
(MechanicalSystem::append_velocity_terms), with

    c_i = sum_jl dG_ij/dq^l v^j v^l - 1/2 sum_jk dG_jk/dq^i v^j v^k

the Coriolis/centrifugal covector (Lagrange-d'Alembert equations, Bloch 2003 sec. 5.2). Here the
nonholonomic acceleration and multipliers of the core are compared with the saddle-point solve
[G A^T; A 0] [v'; -lambda] = [r; a] whose r and a SymPy differentiates and evaluates: equal to
rounding (1e-11 relative), at random points of systems that use every differentiable operation.
"""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo import _core
from nonholo.testing import random_system


def _every_operation_system() -> nh.System:
    """n = 3, k = 1: a metric, potential, constraint row and affine part through every operation
    the backward sweep has a rule for (sqrt, exp, log, trigonometric and hyperbolic functions and
    their inverses, atan2, powers with integer and symbolic exponents, quotients, abs)."""
    q = sp.symbols("q0:3", real=True)
    v = sp.symbols("v0:3")
    t = sp.Symbol("t")
    x, y, z = q
    s = sp.Rational(1, 5)
    B = sp.Matrix([
        [sp.sqrt(2 + sp.sin(x)), s * sp.exp(y / 3), s * sp.atan(z)],
        [s * sp.log(3 + sp.cos(y)), 1 + s * sp.tanh(x * z), s * sp.atan2(1 + y**2, 2 + sp.cos(x))],
        [s * sp.sinh(z / 2), s * sp.cosh(x / 3) / (2 + sp.sin(y)), sp.Abs(2 + sp.cos(z)) ** sp.Rational(1, 3)],
    ])
    G = B * B.T + sp.eye(3)
    V = sp.asinh(x) + sp.tan(y / 4) + sp.asin(sp.sin(z) / 3) + sp.acos(sp.cos(x) / 4) + \
        sp.atanh(sp.sin(y) / 2) + sp.acosh(2 + sp.cos(z)) + (2 + sp.sin(x * y)) ** (1 + sp.cos(z) / 5)
    A = sp.Matrix([[1 + s * sp.sin(y), s * sp.exp(sp.cos(x)), 1 + s * sp.atan(x * z)]])
    b = sp.Matrix([s * sp.sin(t) * sp.cos(x) + sp.sqrt(1 + y**2) / 7])
    return nh.System(q, G, V, A, b, velocities=v, time=t, name="every operation")


def _sympy_dynamics(system: nh.System):
    """A function (t, q, v) -> (v', lambda) from SymPy's derivatives of G, V, A, b, F."""
    q, v, t = list(system.coordinates), list(system.velocities), system.time
    n = len(q)
    G, A = sp.Matrix(system.metric), sp.Matrix(system.constraints)
    V = sp.sympify(system.potential)
    b = sp.Matrix(system.affine) if system.affine is not None else sp.zeros(A.rows, 1)
    F = sp.Matrix(system.force) if system.force is not None else sp.zeros(n, 1)
    vv = sp.Matrix(v)
    c = sp.Matrix([sum(sp.diff(G[i, j], q[m]) * v[j] * v[m] for j in range(n) for m in range(n))
                   - sum(sp.diff(G[j, m], q[i]) * v[j] * v[m] for j in range(n) for m in range(n)) / 2
                   for i in range(n)])
    r = F - c - sp.Matrix([sp.diff(V, qi) for qi in q])
    a = b.jacobian(q) * vv + b.diff(t) - sp.Matrix([sum(sp.diff(A[r_, j], q[m]) * v[j] * v[m] for j in range(n)
                                                        for m in range(n)) for r_ in range(A.rows)])
    values = {sp.Symbol(str(key)) if isinstance(key, str) else key: val for key, val in system.parameters.items()}
    exprs = [e.xreplace(values) for e in (G, A, r, a)]
    f = sp.lambdify([t, q, v], exprs, "numpy")

    def solve(time, qs, vs):
        Gn, An, rn, an = (np.asarray(x, dtype=float) for x in f(time, qs, vs))
        k = An.shape[0]
        K = np.block([[Gn, An.T], [An, np.zeros((k, k))]])
        x = np.linalg.solve(K, np.concatenate([rn.ravel(), an.ravel()]))
        return x[:n], x[n:], np.abs(rn).max() + np.abs(an).max()

    return solve


SYSTEMS = {
    "every operation": _every_operation_system,
    "random n=4 k=2 affine": lambda: random_system(3, n=4, k=2, affine=True, force=True),
    "random n=5 k=1": lambda: random_system(8, n=5, k=1, affine=False, force=True),
}


def _core_with(system: nh.System, velocity_terms: str):
    return _core.MechanicalSystem(system.n, system.k, len(system.parameters), system._graph.to_core(),
                                  not system.indefinite_metric, velocity_terms=velocity_terms)


def _points(system: nh.System, count: int = 5):
    rng = np.random.default_rng(13)
    for _ in range(count):
        yield rng.uniform(-0.8, 0.8, system.n), rng.uniform(-1.5, 1.5, system.n), rng.uniform(0, 2)


@pytest.mark.slow
@pytest.mark.parametrize("velocity_terms", ["partials", "sweeps"])
@pytest.mark.parametrize("name", list(SYSTEMS))
def test_nonholonomic_acceleration_equals_sympys_saddle_point_solve(name, velocity_terms):
    """Both ways of computing c(q, v) and (dA/dq . v) v give SymPy's accelerations and multipliers."""
    system = SYSTEMS[name]()
    expected = _sympy_dynamics(system)
    core = _core_with(system, velocity_terms)
    assert core.velocity_sweeps == (velocity_terms == "sweeps")
    p = system.param_vector()
    for q, v, t in _points(system):
        vdot, lam, scale = expected(t, q, v)
        at = core.at(t, q, v, p)
        tol = 1e-11 * max(1.0, scale, np.abs(vdot).max(), np.abs(lam).max())
        assert np.allclose(at.nonholonomic_acceleration(), vdot, rtol=0, atol=tol)
        assert np.allclose(at.multipliers(), -lam, rtol=0, atol=tol)


@pytest.mark.parametrize("name", list(SYSTEMS))
def test_the_default_takes_the_tape_with_fewer_operations(name):
    """velocity_terms="cheaper" (the default) takes the sweeps where their dynamics tape has a
    tenth fewer operations at least, and the vector fields of the two ways agree to rounding at
    random points."""
    system = SYSTEMS[name]()
    cores = {vt: _core_with(system, vt) for vt in ("partials", "sweeps")}
    size = {vt: _core.diagnostics.tape_program(c, "dynamics")[0] for vt, c in cores.items()}
    chosen = "sweeps" if size["sweeps"] < 0.9 * size["partials"] else "partials"
    assert system.core.velocity_sweeps == (chosen == "sweeps")
    assert _core.diagnostics.tape_program(system.core, "dynamics")[0] == size[chosen]
    p = system.param_vector()
    for q, v, t in _points(system, 3):
        a, b = (cores[vt].at(t, q, v, p).nonholonomic_acceleration() for vt in ("partials", "sweeps"))
        assert np.allclose(a, b, rtol=0, atol=1e-12 * max(1.0, np.abs(a).max()))


def test_velocity_terms_must_be_named():
    system = SYSTEMS["random n=5 k=1"]()
    with pytest.raises(ValueError, match="velocity_terms"):
        _core_with(system, "fastest")


def test_rattleback_dynamics_tape_by_sweeps_is_smaller():
    """An operation count (not a timing): the rattleback's dynamics tape by the two sweeps has
    at most 60% of the operations of the one from the partial derivatives (1798 against 3214
    when this was written), and the default takes it."""
    system = nh.systems.rattleback()
    cores = {vt: _core_with(system, vt) for vt in ("partials", "sweeps")}
    size = {vt: _core.diagnostics.tape_program(c, "dynamics")[0] for vt, c in cores.items()}
    assert size["sweeps"] <= 0.6 * size["partials"]
    assert system.core.velocity_sweeps


def _documentation_disc():
    """SymPy's documented rolling disc (Kane's method, contact point at rest: rolling built into
    the kinematics), with a load and a potential."""
    from sympy.physics import mechanics as me
    from test_mechanics import _disc_frames

    q1, q2, q3, u1, u2, u3 = me.dynamicsymbols("q1 q2 q3 u1 u2 u3")
    r, m, g = sp.symbols("r m g")
    N, Y, L, R, kd_eqs = _disc_frames(q1, q2, q3, u1, u2, u3)
    C = me.Point("C")
    C.set_vel(N, 0)
    Dmc = C.locatenew("Dmc", r * L.z)
    Dmc.v2pt_theory(C, N, R)
    disc = me.RigidBody("disc", Dmc, R, m, (me.inertia(L, m / 4 * r**2, m / 2 * r**2, m / 4 * r**2), Dmc))
    km = me.KanesMethod(N, q_ind=[q1, q2, q3], u_ind=[u1, u2, u3], kd_eqs=kd_eqs)
    km.kanes_equations([disc], [(Dmc, -m * g * Y.z)])
    return nh.System.from_kanes_method(km, {r: 0.5, m: 1.0, g: 9.81}, potential=sp.cos(q2) / 3)


KANE = {
    "documentation disc": _documentation_disc,
    "Whipple bicycle": lambda: nh.System.from_kanes_method(*nh.systems.whipple_bicycle_kane(), check_kinematics=False),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(KANE))
def test_kane_applied_force_is_the_metrics(name):
    """from_kanes_method's applied force (loads minus Kane's inertia forces) and the one of its
    metric, potential and force (with the inertia correction) are one function: accelerations and
    multipliers agree to rounding at random states, and the given form is the smaller tape."""
    from nonholo.expressions.lowering import lower

    system = KANE[name]()
    assert system.applied_force is not None and system.core.velocity_sweeps is False
    exprs = [*system.metric, system.potential, *system.constraints, *system.affine,
             *system.friction_coefficients, *system.force]
    metric_core = _core.MechanicalSystem(system.n, system.k, len(system.parameters),
                                         lower(exprs, system._inputs).to_core(), True, velocity_terms="partials")
    program = _core.diagnostics.tape_program
    assert program(system.core, "dynamics")[0] < program(metric_core, "dynamics")[0]
    p = system.param_vector()
    rng = np.random.default_rng(4)
    for _ in range(5):
        q, v = rng.uniform(-0.5, 0.5, system.n), rng.uniform(-2, 2, system.n)
        given, metric = system.core.at(0.0, q, v, p), metric_core.at(0.0, q, v, p)
        a, b = given.nonholonomic_acceleration(), metric.nonholonomic_acceleration()
        assert np.allclose(a, b, rtol=0, atol=1e-11 * max(1.0, np.abs(b).max()))
        if system.k:
            la, lb = given.multipliers(), metric.multipliers()
            assert np.allclose(la, lb, rtol=0, atol=1e-11 * max(1.0, np.abs(lb).max()))


def test_applied_force_must_have_one_entry_per_coordinate():
    system = SYSTEMS["random n=5 k=1"]()
    with pytest.raises(ValueError, match="applied_force"):
        nh.System(system.coordinates, system.metric, applied_force=[0, 0], velocities=system.velocities)


def test_an_applied_force_that_is_not_the_metrics_is_rejected():
    """System(applied_force=...) is checked against F - c(q, v) - dV at random states."""
    q, v = sp.symbols("x y"), sp.symbols("xd yd")
    G = sp.Matrix([[2 + sp.cos(q[1]), 0], [0, 1]])
    c_free = sp.Matrix([0, -sp.sin(q[0])])  # not the metric's Coriolis force (which depends on v)
    with pytest.raises(nh.ModelError, match="applied_force"):
        nh.System(q, G, potential=sp.cos(q[0]), applied_force=c_free, velocities=v)
    # the right one: c = (Gdot v - dT/dq), T = 1/2 (2 + cos y) xd^2 + 1/2 yd^2
    c = sp.Matrix([-sp.sin(q[1]) * v[0] * v[1], sp.sin(q[1]) * v[0] ** 2 / 2])
    right = nh.System(q, G, potential=sp.cos(q[0]), applied_force=-c + sp.Matrix([sp.sin(q[0]), 0]), velocities=v)
    assert right.core.velocity_sweeps is False
