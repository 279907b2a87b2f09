"""A System's dynamics as a control system (OptimalControlProblem with controls=) are derived in SymPy;
their accelerations came out of a full simplify, which took 100 to 275 s on an outside probe's roller
racer (4 coordinates, 2 constraints: 1,521 and 1,002 operations). Only accelerations of at most 400
operations are simplified now, as the project's other derived matrices are bounded: the build takes a
second, and the accelerations are the Lagrange-d'Alembert equations' at random states (a KKT solve of
[G A^T; A 0] written here, with G and A differentiated by central differences)."""

import time

import numpy as np
import sympy as sp

import nonholo as nh

M1, M2, I1, I2, D1, D2 = 1.0, 0.5, 0.1, 0.05, 0.5, 0.3


def roller_racer():
    x, y, th, ps, tq = sp.symbols("x y theta psi tau")
    q = [x, y, th, ps]
    qd = sp.Matrix(sp.symbols("xd yd thd psd"))
    joint = sp.Matrix([x, y]) + D1 * sp.Matrix([sp.cos(th), sp.sin(th)])
    rear = joint + D2 * sp.Matrix([sp.cos(th + ps), sp.sin(th + ps)])
    v1, v2 = sp.Matrix([x, y]).jacobian(q) * qd, rear.jacobian(q) * qd
    T = (M1 * v1.dot(v1) + M2 * v2.dot(v2) + I1 * qd[2] ** 2 + I2 * (qd[2] + qd[3]) ** 2) / 2
    G = sp.hessian(T, list(qd))
    A = sp.Matrix([[-sp.sin(th), sp.cos(th), 0, 0],
                   list(sp.Matrix([[-sp.sin(th + ps), sp.cos(th + ps)]]) * rear.jacobian(q))])
    return nh.System(q, G, constraints=A, force=[0, 0, 0, tq], parameters={tq: 0.0}), G, A, q, tq


def test_a_roller_racer_builds_in_seconds_with_its_equations():
    racer, G, A, q, tq = roller_racer()
    started = time.perf_counter()
    problem = nh.OptimalControlProblem(racer, cost=tq**2 / 2, t_final=6.0, controls=[tq], initial=[0] * 6,
                                       final=[None] * 6)
    assert time.perf_counter() - started < 30.0  # 100-275 s before; about 1 s
    dyn = problem.dynamics
    states, controls = list(dyn.states), list(dyn.controls)
    rhs = sp.lambdify([states, controls], list(dyn.rhs), "numpy")
    free = [i for i, s in enumerate(q) if f"{s}_dot" in problem.state_names]  # the velocities kept as states
    assert len(free) == 2
    Gf, Af = sp.lambdify([q], G, "numpy"), sp.lambdify([q], A, "numpy")  # G depends on q alone
    rng = np.random.default_rng(7)
    for _ in range(5):
        qv = rng.uniform(-1.0, 1.0, 4)
        w = rng.uniform(-1.0, 1.0, 2)
        torque = rng.uniform(-1.0, 1.0)
        f = np.asarray(rhs(np.r_[qv, w], [torque]), dtype=float).ravel()
        qdot = f[:4]
        Am = np.asarray(Af(qv), dtype=float)
        np.testing.assert_allclose(Am @ qdot, 0, atol=1e-12)  # on the constraints
        np.testing.assert_allclose(qdot[free], w, atol=1e-12)  # w: the free coordinates' velocities
        # Lagrange-d'Alembert: G q'' + c(q, q') = Q + A^T lambda, A q'' + A' q' = 0, by differences of G and A
        Gm = np.asarray(Gf(qv), dtype=float)
        eps = 1e-6
        dG = [(np.asarray(Gf(qv + eps * e), float) - np.asarray(Gf(qv - eps * e), float)) / (2 * eps)
              for e in np.eye(4)]
        c = np.array([sum((dG[k][i, j] - dG[i][j, k] / 2) * qdot[j] * qdot[k] for j in range(4) for k in range(4))
                      for i in range(4)])
        dA = sum((np.asarray(Af(qv + eps * e), float) - np.asarray(Af(qv - eps * e), float)) / (2 * eps) * qdot[k]
                 for k, e in enumerate(np.eye(4)))
        K = np.block([[Gm, Am.T], [Am, np.zeros((2, 2))]])
        qdd = np.linalg.solve(K, np.r_[np.array([0, 0, 0, torque]) - c, -dA @ qdot])[:4]
        np.testing.assert_allclose(f[4:], qdd[free], rtol=1e-6, atol=1e-7)


def test_a_large_constraint_block_keeps_the_solved_velocities_algebraic(monkeypatch):
    """Where A_s is too large to invert in SymPy, controls= keeps the solved velocities (with the rates
    and the multipliers) as algebraic variables: the same vector field and the same plan as the
    Voronets form (the roller racer, its block forced to count as large)."""
    import nonholo.control.kinematic as kinematic

    racer, _, _, _, tq = roller_racer()
    ends = dict(cost=tq**2 / 2, t_final=3.0, controls=[tq], initial=[0, 0, 0, 0.4, 0.5, 0],
                final=[None, None, 0.3, 0.0, None, None])
    voronets = nh.OptimalControlProblem(racer, **ends)
    monkeypatch.setattr(kinematic, "SOLVED_BLOCK_OPS", -1)
    algebraic = nh.OptimalControlProblem(racer, **ends)
    assert type(voronets.dynamics).__name__ == "KinematicSystem"
    assert type(algebraic.dynamics).__name__ == "ConstrainedControlSystem"
    assert algebraic.state_names == voronets.state_names
    assert algebraic.dynamics.chart["solved"] == voronets.dynamics.chart["solved"]
    rng = np.random.default_rng(3)
    Y, U = rng.uniform(-1, 1, (6, 8)), rng.uniform(-1, 1, (1, 8))
    np.testing.assert_allclose(algebraic.dynamics.vector_field(Y, U), voronets.dynamics.vector_field(Y, U),
                               rtol=1e-10, atol=1e-10)
    a, b = algebraic.solve(nodes=31), voronets.solve(nodes=31)
    assert a.success and b.success
    assert abs(a.objective - b.objective) < 1e-6 * abs(b.objective)


def test_the_multibody_bicycle_with_a_steer_torque_builds_its_dynamics():
    """The multibody Whipple bicycle with a steer torque added by with_force: its constraint block
    (997 operations) was inverted in SymPy, which had not finished after 200 s. Its dynamics now build
    in seconds, and agree with the nonholonomic model's right-hand side at a leaning, steering state."""
    from nonholo.systems.whipple_bicycle import upright_state

    bike = nh.systems.whipple_bicycle()
    torque = sp.Symbol("T_delta")
    bike = bike.with_force([0, 0, 0, 0, 0, torque, 0, 0], parameters={torque: 0.0})
    started = time.perf_counter()
    dyn = nh.OptimalControlProblem(bike, controls=[torque], cost=torque**2, t_final=2.0).dynamics
    assert time.perf_counter() - started < 60.0  # over 200 s before; about 5 s
    y = upright_state(bike, 4.0, roll=0.05, roll_rate=0.1, steer=0.02, steer_rate=-0.1)
    f = bike.nonholonomic().rhs(0.0, y, params={"T_delta": 0.3})
    names = [*bike.coordinate_names, *map(str, bike.velocities)]
    full = dict(zip(names, y))
    rates = dict(zip(names, f))
    g = dyn.vector_field(np.array([full[s] for s in dyn.state_names]), [0.3])
    np.testing.assert_allclose(g, [rates[s] for s in dyn.state_names], rtol=1e-9, atol=1e-9)
