"""Helpers for checking numerical results: tolerances, convergence slopes, finite differences
and random test systems.

Used by the test suite, the figures and the benchmarks, and by users validating their own
systems the way the project validates its own. Each tolerance carries its reason.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from ..numerics import loglog_slope
from ..system import System

__all__ = [
    "TIGHT_RTOL", "TIGHT_ATOL", "ANALYTIC_TOL", "IDENTITY_TOL", "FD_STEP", "FD_TOL",
    "loglog_slope", "central_difference", "random_system", "car_with_trailers", "roller_racer", "spring_snake",
    "kane_skate", "pushed_sleigh",
]

# Integrations run at TIGHT_RTOL/TIGHT_ATOL and are compared with analytic solutions at
# ANALYTIC_TOL: CVODE's global error is a modest multiple of its local tolerance over the
# O(10) time units of such comparisons (the tolerance hierarchy of AMICI's tests).
TIGHT_RTOL = 1e-11
TIGHT_ATOL = 1e-13
ANALYTIC_TOL = 1e-7

# Pointwise identities of linear algebra at random points: round-off of O(n) Cholesky solves on
# well-conditioned matrices (condition numbers below 1e3).
IDENTITY_TOL = 1e-11

# Central finite differences with step h have error O(h^2 f''') + O(eps_mach / h): with
# h = 1e-6 both are below 1e-8 for O(1) functions.
FD_STEP = 1e-6
FD_TOL = 1e-7


def central_difference(f, x, h: float = FD_STEP) -> np.ndarray:
    """d f / d x by central differences, shape f(x).shape + x.shape."""
    x = np.asarray(x, dtype=float)
    cols = [(np.asarray(f(x + h * e)) - np.asarray(f(x - h * e))) / (2 * h) for e in np.eye(x.size)]
    return np.stack(cols, axis=-1)


def random_system(seed: int, n: int = 4, k: int = 2, potential: bool = True, affine: bool = False,
                  force: bool = False) -> System:
    """A random system: q-dependent SPD metric, full-rank q-dependent constraint rows, SPD
    friction coefficients depending on q, a potential, optional affine part and force.

    The metric is B(q) B(q)^T + n I with B built from trigonometric terms, so it is SPD at every
    q with eigenvalues in [n, n + |B|^2]; the constraint rows are a fixed full-rank matrix plus
    a bounded q-dependent perturbation, full rank on the sampled region.
    """
    rng = np.random.default_rng(seed)
    q = sp.symbols(f"q0:{n}")
    t = sp.Symbol("t")
    funcs = [sp.sin, sp.cos, lambda x: x, lambda x: x**2 / 4]

    def term(scale):
        i, j = rng.integers(0, n, 2)
        f = funcs[rng.integers(0, len(funcs))]
        return sp.Float(rng.uniform(-scale, scale)) * f(q[i]) * (1 + sp.Float(rng.uniform(-0.2, 0.2)) * q[j])

    B = sp.Matrix(n, n, lambda i, j: term(0.5) + sp.Float(rng.uniform(-0.5, 0.5)))
    G = B * B.T + n * sp.eye(n)
    base = rng.normal(size=(k, n))
    A = sp.Matrix(k, n, lambda i, j: sp.Float(base[i, j]) + term(0.15))
    C = sp.Matrix(k, k, lambda i, j: sp.Float(rng.uniform(-0.3, 0.3)) * sp.cos(q[(i + j) % n]))
    mu = C * C.T + sp.eye(k)
    V = sum(term(1.0) for _ in range(3)) if potential else 0
    b = sp.Matrix(k, 1, lambda i, j: term(0.5) * sp.cos(t)) if affine else None
    v = sp.symbols(f"v0:{n}")
    F = sp.Matrix(n, 1, lambda i, j: -sp.Float(rng.uniform(0, 0.3)) * v[i] + term(0.2)) if force else None
    return System(q, G, V, A, b, mu, F, velocities=v, time=t, name=f"random({seed})")


def kanes_rolling_body(support, com_offset, inertia, mass, gravity, parameters) -> dict:
    r"""An independent model of a convex body rolling on a plane, from
    ``sympy.physics.mechanics`` (Kane's method; attitude by Euler angles z-x-y; no slip as two
    velocity constraints on the contact point's velocity), as a System through
    ``System.from_kanes_method``: the oracle against which :mod:`nonholo.contact` is checked.

    ``support(gamma)`` is the surface's contact point (body axes) for the downward vertical
    gamma; ``com_offset`` and ``inertia`` (3 x 3, about the centre of mass) in body axes.
    Returns the System and, for comparisons, the body angular velocity ``omega`` as a SymPy
    3-vector in (q, u), the symbol lists ``q`` and ``u``, ``dcm`` (body to space) and the
    ``kanes_method`` itself (its ``mass_matrix_full`` and ``forcing_full`` give the equations
    in (q, u) without nonholo).
    """
    import sympy.physics.mechanics as me

    q = me.dynamicsymbols("psi phi theta x y")
    u = me.dynamicsymbols("u_psi u_phi u_theta u_x u_y")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Body", q[:3], "ZXY")
    gamma = sp.Matrix([(-N.z).dot(v) for v in (B.x, B.y, B.z)])
    d = sp.Matrix(support(gamma)) - sp.Matrix(com_offset)
    O = me.Point("O")
    O.set_vel(N, 0)
    G = O.locatenew("G", q[3] * N.x + q[4] * N.y + (gamma.T * d)[0] * N.z)
    G.set_vel(N, G.pos_from(O).dt(N))
    P = G.locatenew("P", d[0] * B.x + d[1] * B.y + d[2] * B.z)
    P.v2pt_theory(G, N, B)
    repl = {qi.diff(): ui for qi, ui in zip(q, u)}
    vP = P.vel(N).subs(repl)
    km = me.KanesMethod(N, q_ind=q, u_ind=u[:3], u_dependent=u[3:], kd_eqs=[ui - qi.diff() for qi, ui in zip(q, u)],
                        velocity_constraints=[vP.dot(N.x), vP.dot(N.y)])
    G.set_vel(N, G.vel(N).subs(repl))
    B.set_ang_vel(N, B.ang_vel_in(N).subs(repl))
    I = sp.Matrix(inertia)
    dyadic = me.inertia(B, I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[1, 2], I[0, 2])
    km.kanes_equations([me.RigidBody("body", G, B, mass, (dyadic, G))], [(G, -mass * gravity * N.z)])
    system = System.from_kanes_method(km, parameters, check_kinematics=False)
    return {"system": system, "omega": B.ang_vel_in(N).to_matrix(B), "q": list(km.q), "u": list(km.u),
            "dcm": N.dcm(B), "kanes_method": km}


def rolling_vector_field_difference(oracle: dict, system: System, n_states: int = 5, seed: int = 0,
                                    tilt: float = 1.0) -> float:
    r"""Largest difference, relative to the accelerations' size, between the oracle of
    :func:`kanes_rolling_body` and a :func:`nonholo.contact.roll_on_plane` system at random
    states (Euler angles with |roll|, |pitch| < ``tilt``, random rates on the constraint set):
    of the body angular acceleration Omega' (2 E(q) q'' in the quaternion system) and of the
    centre of mass' horizontal acceleration. Also checks that both give the same (x', y')."""
    from ..builders.bodies import body_rate_matrix, quaternion_from_matrix
    from ..builders.contact import rolling_state

    kane, (q, u) = oracle["system"], (oracle["q"], oracle["u"])
    W = sp.lambdify([q, u], oracle["omega"], "numpy")
    dW = sp.lambdify([q, u], oracle["omega"].jacobian(q), "numpy")
    Wu = sp.lambdify([q], oracle["omega"].jacobian(u), "numpy")
    Rf = sp.lambdify([q], oracle["dcm"], "numpy")
    a = sp.symbols("a0:4")
    Ef = sp.lambdify([a], body_rate_matrix(a), "numpy")
    rng = np.random.default_rng(seed)
    worst = 0.0
    for _ in range(n_states):
        e = np.r_[rng.uniform(-np.pi, np.pi), rng.uniform(-tilt, tilt, 2), rng.normal(size=2)]
        ed = np.r_[rng.normal(size=3), 0, 0]
        A, _ = kane.constraint_matrix(e)
        ed[3:] = -np.linalg.solve(A[:, 3:], A[:, :3] @ ed[:3])
        fk = kane.nonholonomic(form="qdot").rhs(0, np.r_[e, ed])
        Om_dot = np.asarray(dW(e, ed), float) @ ed + np.asarray(Wu(e), float) @ fk[5:]
        quat = quaternion_from_matrix(np.asarray(Rf(e), float))
        y = rolling_state(system, quat, np.asarray(W(e, ed), float).ravel(), x=e[3], y=e[4])
        if np.abs(y[6:8] - ed[3:]).max() > 1e-12 * (1 + np.abs(ed).max()):
            raise AssertionError(f"the two models' no-slip velocities differ: {y[6:8]} and {ed[3:]}")
        f = system.nonholonomic().rhs(0, y)
        scale = np.abs(Om_dot).max() + np.abs(fk[8:10]).max()
        diff = max(np.abs(2 * np.asarray(Ef(quat), float) @ f[8:12] - Om_dot).max(), np.abs(f[6:8] - fk[8:10]).max())
        worst = max(worst, diff / scale)
    return worst


def car_with_trailers(trailers: int) -> tuple:
    """(L, q, v, A, parameters): a car pulling ``trailers`` trailers as a Lagrangian, for
    ``System.from_lagrangian`` and its comparison with ``System(q, hessian(L, v))``.

    Body 0 (the car) has its rear axle at (x, y) and heading th0; trailer i is hitched at the
    axle of body i - 1 and has its axle a distance d behind, p_i = p_(i-1) - d (cos th_i, sin th_i).
    Each body is a mass m at its axle with moment of inertia J about it,
    L = sum_i 1/2 m |p_i'|^2 + 1/2 J th_i'^2, and no axle slips sideways:
    -sin(th_i) x_i' + cos(th_i) y_i' = 0 (k = trailers + 1 rows, n = trailers + 3 coordinates).
    The parameters m, J, d are declared positive.
    """
    m, J, d = sp.symbols("m J d", positive=True)
    x, y = sp.symbols("x y")
    th = sp.symbols(f"th0:{trailers + 1}")
    q = [x, y, *th]
    v = sp.symbols([f"{s}_dot" for s in map(str, q)])
    px, py = x, y
    positions = [(px, py)]
    for i in range(1, trailers + 1):
        px, py = px - d * sp.cos(th[i]), py - d * sp.sin(th[i])
        positions.append((px, py))

    def rate(e):
        return sum(sp.diff(e, qi) * vi for qi, vi in zip(q, v))

    L = 0
    rows = []
    for (pxi, pyi), thi, thd in zip(positions, th, v[2:]):
        vx, vy = rate(pxi), rate(pyi)
        L += m * (vx ** 2 + vy ** 2) / 2 + J * thd ** 2 / 2
        rows.append([sp.diff(-sp.sin(thi) * vx + sp.cos(thi) * vy, vi) for vi in v])
    return L, q, list(v), sp.Matrix(rows), {"m": 1.0, "J": 0.1, "d": 0.8}


def roller_racer(m1: float = 1.0, I1: float = 0.5, m2: float = 0.6, I2: float = 0.2, d1: float = 0.8,
                 d2: float = 0.5, k: float = 0.0) -> System:
    """Krishnaprasad and Tsakiris' roller racer in plain SymPy, a conservative system that no
    builder of ``nonholo.systems`` names (the tests and benchmarks check defaults on it).

    Two planar bodies joined at a free joint (angle psi, a torsion spring k psi^2 / 2), each on
    an axle that cannot slip sideways: body 1 (mass m1, inertia I1) at (x, y) with heading theta,
    body 2 (mass m2, inertia I2) centred d2 beyond the joint, which is d1 ahead of body 1.
    """
    x, y, th, ps = sp.symbols("x y theta psi")
    M1, J1, M2, J2, D1, D2, K = sp.symbols("m1 I1 m2 I2 d1 d2 k", positive=True)
    q = [x, y, th, ps]
    c2 = sp.Matrix([x + D1 * sp.cos(th) + D2 * sp.cos(th + ps), y + D1 * sp.sin(th) + D2 * sp.sin(th + ps)])
    J = c2.jacobian(q)
    G = sp.diag(M1, M1, J1, 0) + M2 * J.T * J + J2 * sp.Matrix([[0, 0, 0, 0], [0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    A = sp.Matrix([[-sp.sin(th), sp.cos(th), 0, 0], list(sp.Matrix([[-sp.sin(th + ps), sp.cos(th + ps)]]) * J)])
    return System(q, sp.simplify(G), potential=K * ps**2 / 2, constraints=A,
                  parameters={M1: m1, J1: I1, M2: m2, J2: I2, D1: d1, D2: d2, K: k}, name="roller racer")


def spring_snake(N: int, m: float = 1.0, I: float = 0.1, L: float = 1.0, k: float = 2.0) -> System:
    """An N-link planar snake written in plain SymPy (no builder of the package): links of length L,
    mass m and inertia I about their centres, joined end to end by torsion springs of stiffness k,
    with a knife edge at each link's centre (N constraint rows, two degrees of freedom).
    Coordinates: the first link's centre (x, y) and the link headings theta_1..theta_N. A system that
    the defaults were not tuned on (issue 40: the Jacobian policy)."""
    if isinstance(N, bool) or not isinstance(N, (int, np.integer)) or N < 2:
        raise ValueError(f"N must be an integer >= 2, got {N!r}")
    x, y = sp.symbols("x y")
    th = sp.symbols(f"theta1:{N + 1}")
    q = [x, y, *th]
    v = [*sp.symbols("x_dot y_dot"), *sp.symbols(f"theta_dot1:{N + 1}")]
    cx, cy = [x], [y]
    for i in range(N - 1):
        cx.append(cx[-1] + sp.Rational(1, 2) * L * (sp.cos(th[i]) + sp.cos(th[i + 1])))
        cy.append(cy[-1] + sp.Rational(1, 2) * L * (sp.sin(th[i]) + sp.sin(th[i + 1])))

    def rate(e):
        return sum(sp.diff(e, qi) * vi for qi, vi in zip(q, v))

    vx, vy = [rate(e) for e in cx], [rate(e) for e in cy]
    T = sum(m / 2 * (a**2 + b**2) for a, b in zip(vx, vy)) + sum(I / 2 * w**2 for w in v[2:])
    V = sum(k / 2 * (th[i + 1] - th[i]) ** 2 for i in range(N - 1))
    A = sp.Matrix([[sp.diff(-sp.sin(th[i]) * vx[i] + sp.cos(th[i]) * vy[i], vj) for vj in v] for i in range(N)])
    return System.from_lagrangian(T - V, q, v, constraints=A, name=f"spring snake ({N} links)")


def kane_skate(mass: float = 1.0, inertia: float = 1.0) -> tuple:
    """A skate written with ``KanesMethod``: a body at (x, y) with heading theta that cannot slide
    sideways (speeds x', theta' independent, y' dependent), pushed by F along its blade and turned by
    a torque tau (dynamicsymbols). Returns (km, (F, tau))."""
    import sympy.physics.mechanics as me

    x, y, th, u1, u2, u3 = me.dynamicsymbols("x y theta u1:4")
    F, tau = me.dynamicsymbols("F tau")
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [th, N.z])
    B.set_ang_vel(N, u3 * N.z)
    P = me.Point("P")
    P.set_vel(N, u1 * N.x + u2 * N.y)
    km = me.KanesMethod(N, [x, y, th], [u1, u3], kd_eqs=[x.diff() - u1, y.diff() - u2, th.diff() - u3],
                        u_dependent=[u2], velocity_constraints=[-sp.sin(th) * u1 + sp.cos(th) * u2])
    body = me.RigidBody("b", P, B, mass, (me.inertia(B, 0, 0, inertia), P))
    km.kanes_equations([body], [(P, F * B.x), (B, tau * N.z)])
    return km, (F, tau)


def pushed_sleigh(mass: float = 1.0, inertia: float = 0.2, offset: float = 0.3) -> tuple:
    """A Chaplygin sleigh (its blade ``offset`` behind the centre of mass, along the heading theta) pushed
    along its blade by F and turned by a torque tau, both symbols of its force with values 0: the system of
    the optimal control tests' unattained durations and failures. Returns (system, F, tau)."""
    x, y, th, F, tau = sp.symbols("x y theta F tau")
    m, a = mass, offset
    G = sp.Matrix([[m, 0, -m * a * sp.sin(th)], [0, m, m * a * sp.cos(th)],
                   [-m * a * sp.sin(th), m * a * sp.cos(th), inertia + m * a**2]])
    system = System([x, y, th], G, constraints=sp.Matrix([[-sp.sin(th), sp.cos(th), 0]]),
                    force=[F * sp.cos(th), F * sp.sin(th), tau], parameters={F: 0.0, tau: 0.0})
    return system, F, tau
