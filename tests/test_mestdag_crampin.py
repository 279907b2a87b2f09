"""Mestdag-Crampin (2010): the misprints of notes/004_anholonomic_frames.md section 6 that matter,
each shown by a computation (docs/errata.md, section "Mestdag and Crampin (2010)"), and the
Fernandez-Bloch/vakonomic cross-check of note section 4.2."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.system.frames import AnholonomicFrame
from nonholo.systems.fernandez_bloch import fernandez_bloch

# The note's reference disk. nonholo's disk: heading theta (the paper's ph, inertia I about the
# vertical), rolling angle phi (the paper's th, inertia J about the axle).
M, RAD, I_ROLL, J_HEAD = 2.0, 0.5, 0.25, 0.125
KW = dict(rtol=1e-13, atol=1e-14)


def _disk(R=RAD):
    return nh.systems.vertical_rolling_disk(m=M, R=R, I=J_HEAD, J=I_ROLL)


# ------------------------------------------------------------------ section 5: the missing factor R
@pytest.mark.parametrize("R", [0.5, 1.3])
def test_bracket_X1_X2_carries_the_radius(R):
    """[X1, X2] = -R sin(ph) d/dx + R cos(ph) d/dy; the paper prints it without R (right only for
    R = 1). Numerically (AD) and symbolically."""
    frame = AnholonomicFrame(_disk(R))
    for heading in (0.3, 2.1):
        S = frame.structure_functions(np.array([heading, 0.1, 0.2, 0.3]))
        assert S[2, 0, 1] == pytest.approx(-R * np.sin(heading), abs=1e-14)
        assert S[3, 0, 1] == pytest.approx(R * np.cos(heading), abs=1e-14)
        assert abs(S[2, 0, 1] - (-np.sin(heading))) > 0.05  # the printed bracket is off by the factor R
    symbolic = frame.structure_functions_symbolic()
    theta = frame.system.coordinates[0]
    Rs = next(s for s in frame.system.parameters if s.name == "R")
    assert sp.simplify(symbolic[2, 0, 1] + Rs * sp.sin(theta)) == 0
    assert sp.simplify(symbolic[3, 0, 1] - Rs * sp.cos(theta)) == 0


def test_condition_1_of_section_5_carries_the_radius():
    """phi_a R^a_(alpha beta) v^beta with phi = M (x', y'), evaluated off C where it is nonzero, is
    R times the printed left-hand sides -M x' sin(ph) th' + M y' cos(ph) th' and
    M x' sin(ph) ph' - M y' cos(ph) ph'. On C both vanish, with or without R."""
    frame = AnholonomicFrame(_disk())
    rng = np.random.default_rng(1)
    for _ in range(5):
        q = rng.uniform(-2, 2, 4)
        v = rng.uniform(-1, 1, 4)  # (heading rate, rolling rate, v^x, v^y): off C
        qdot = frame.matrix(q) @ v
        ph, xd, yd = q[0], qdot[1], qdot[2]
        ph_dot, th_dot = v[0], v[1]
        S = frame.structure_functions(q)
        ours = np.einsum("a,aib,b->i", M * qdot[1:3], S[2:, :2, :2], v[:2])
        printed = np.array([-M * xd * np.sin(ph) * th_dot + M * yd * np.cos(ph) * th_dot,
                            M * xd * np.sin(ph) * ph_dot - M * yd * np.cos(ph) * ph_dot])
        assert np.allclose(ours, RAD * printed, atol=1e-13)
        assert np.abs(ours - printed).max() > 1e-3
        on_C = frame.matrix(q) @ np.r_[v[:2], 0, 0]
        assert np.abs(np.einsum("a,aib,b->i", M * on_C[1:3], S[2:, :2, :2], v[:2])).max() < 1e-14


def test_section_2_restriction_of_system_5_carries_the_radius():
    """The solutions of (5) with u_x = u_y = 0 are the nonholonomic ones: they satisfy
    x' = R cos(ph) th', y' = R sin(ph) th' (the paper prints x' = cos(ph) th', y' = sin(ph) th')."""
    t, R, u_th, u_ph, th0, ph0, x0, y0, ux, uy = sp.symbols("t R u_th u_ph th0 ph0 x0 y0 u_x u_y")
    th, ph = u_th * t + th0, u_ph * t + ph0
    x = (u_th / u_ph) * R * sp.sin(ph) + ux * t + x0
    y = -(u_th / u_ph) * R * sp.cos(ph) + uy * t + y0
    d = sp.diff
    # they solve (5): x'' = -R sin(ph) th' ph', y'' = R cos(ph) th' ph'
    assert sp.simplify(d(x, t, 2) + R * sp.sin(ph) * d(th, t) * d(ph, t)) == 0
    assert sp.simplify(d(y, t, 2) - R * sp.cos(ph) * d(th, t) * d(ph, t)) == 0
    restricted = {ux: 0, uy: 0}
    assert sp.simplify((d(x, t) - R * sp.cos(ph) * d(th, t)).subs(restricted)) == 0
    assert sp.simplify((d(y, t) - R * sp.sin(ph) * d(th, t)).subs(restricted)) == 0
    assert sp.simplify((d(x, t) - sp.cos(ph) * d(th, t)).subs(restricted)) != 0  # the printed form


# ------------------------------------------------------------------ section 1: rho and th'
def _newton_euler_residuals(rho_force, nu1, nu2, ph, th_dot, ph_dot, xdd, ydd, thdd=0.0, phdd=0.0):
    """Euler's laws with R1 = nu1 e_x + nu2 e_y + M g e_z at the contact point A = C - R e_z and
    R2 = rho_force n at C, n = (-sin ph, cos ph, 0), t = (cos ph, sin ph, 0):
    M r_C'' = M g_vec + R1 + R2, d/dt(I th' n + J ph' e_z) = (-R e_z) x R1 (vectors in R^3)."""
    n = np.array([-np.sin(ph), np.cos(ph), 0.0])
    tang = np.array([np.cos(ph), np.sin(ph), 0.0])
    ez = np.array([0.0, 0.0, 1.0])
    g = 9.81
    force = M * np.array([xdd, ydd, 0.0]) - (-M * g * ez + np.array([nu1, nu2, M * g]) + rho_force * n)
    angular_momentum_rate = I_ROLL * thdd * n + I_ROLL * th_dot * (-ph_dot * tang) + J_HEAD * phdd * ez
    torque = np.cross(-RAD * ez, np.array([nu1, nu2, M * g]))
    return np.r_[force, angular_momentum_rate - torque]


def test_newton_euler_reaction_rho_has_no_factor_th_dot():
    """Along a nonholonomic motion, the vector laws hold with R2 = rho n, rho = (I + M R^2) th' ph'/R,
    nu = (I/R) th' ph' (sin ph, -cos ph) (note section 2.6). The printed projections
    M x'' = nu1 - rho sin(ph) th', M y'' = nu2 + rho cos(ph) th' and rho R th' = I th' ph' + ...
    hold only with rho_printed = rho/th' (a force per unit angular velocity), as the note says."""
    rng = np.random.default_rng(2)
    for _ in range(4):
        ph, th_dot, ph_dot = rng.uniform(-2, 2), rng.uniform(0.5, 2), rng.uniform(-2, 2)
        xdd, ydd = -RAD * np.sin(ph) * th_dot * ph_dot, RAD * np.cos(ph) * th_dot * ph_dot  # on the motion
        rho = (I_ROLL + M * RAD**2) * th_dot * ph_dot / RAD
        nu1, nu2 = (I_ROLL / RAD) * th_dot * ph_dot * np.sin(ph), -(I_ROLL / RAD) * th_dot * ph_dot * np.cos(ph)
        assert np.abs(_newton_euler_residuals(rho, nu1, nu2, ph, th_dot, ph_dot, xdd, ydd)).max() < 1e-12
        # the printed projections with the physical rho: wrong unless th' = 1
        printed = [M * xdd - (nu1 - rho * np.sin(ph) * th_dot), M * ydd - (nu2 + rho * np.cos(ph) * th_dot)]
        assert np.abs(printed).max() > 1e-3 * abs(rho)
        # ... and right with rho_printed = rho/th', with the printed rho R th' = I th' ph' + R M (cos y'' - sin x'')
        rho_p = rho / th_dot
        printed = [M * xdd - (nu1 - rho_p * np.sin(ph) * th_dot), M * ydd - (nu2 + rho_p * np.cos(ph) * th_dot),
                   rho_p * RAD * th_dot - (I_ROLL * th_dot * ph_dot + RAD * M * (np.cos(ph) * ydd - np.sin(ph) * xdd))]
        assert np.abs(printed).max() < 1e-12
        # the vector laws with the printed force rho_physical th' n are violated
        assert np.abs(_newton_euler_residuals(rho * th_dot, nu1, nu2, ph, th_dot, ph_dot, xdd, ydd)).max() > 1e-3


def test_reactions_along_a_simulated_motion():
    """The same, with x'', y'' from nonholo's nonholonomic disk (not from the closed form)."""
    disk = _disk()
    frame = AnholonomicFrame(disk)
    y = np.array([0.7, 0.1, -0.2, 0.3, 0.9, 1.3])  # heading, x, y, rolling, heading rate, rolling rate
    sol = nh.simulate(frame.hamel(), (0, 2), y, t_eval=[2.0], **KW)
    q, v = sol.q[:, -1], sol.y[4:, -1]
    qdot = frame.velocity(q, v)
    acc = disk.nonholonomic().rhs(0, np.r_[q, qdot])[4:]
    ph, ph_dot, th_dot = q[0], qdot[0], qdot[3]
    rho = (I_ROLL + M * RAD**2) * th_dot * ph_dot / RAD
    nu1, nu2 = (I_ROLL / RAD) * th_dot * ph_dot * np.sin(ph), -(I_ROLL / RAD) * th_dot * ph_dot * np.cos(ph)
    residual = _newton_euler_residuals(rho, nu1, nu2, ph, th_dot, ph_dot, acc[1], acc[2], acc[3], acc[0])
    assert np.abs(residual).max() < 1e-11
    # the multipliers are the horizontal contact force plus the horizontal part of R2: lambda = nu + rho n
    lam = disk.multipliers(q, qdot)
    assert np.allclose(lam, [nu1 - rho * np.sin(ph), nu2 + rho * np.cos(ph)], atol=1e-12)


# ------------------------------------------------------------------ section 4: R^b_(a alpha beta)
def test_vakonomic_multiplier_equation_needs_the_R_b_a_alpha_term():
    """The restricted vakonomic equations carry phi_b R^b_(a alpha) v^alpha (printed R^b_(a alpha beta),
    an object with one index too many). On the non-Chaplygin system of note item 20, where
    R^3_(3 alpha) = (r2, cos s) != 0, nonholo's mu' equals the coordinate vakonomic lambda' only
    with this term; dropping it, or transposing its lower indices, gives a wrong mu'."""
    r1, r2, s = sp.symbols("r1 r2 s")
    G = sp.Matrix([[1, 0, sp.Rational(1, 2)], [0, 2, 0], [sp.Rational(1, 2), 0, 1]])
    A = sp.Matrix([[-s * r2, -(sp.sin(s) + r1), 1]])
    system = nh.System([r1, r2, s], G, r1 * s, A, name="non-Chaplygin")
    frame = AnholonomicFrame(system, sp.Matrix([[1, 0, 0], [0, 1, 0], [s * r2, sp.sin(s) + r1, 1]]))
    vak = frame.vakonomic()
    rng = np.random.default_rng(5)
    for _ in range(4):
        q, v, mu = rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 2), rng.uniform(0.5, 1.5)
        S = frame.structure_functions(q)
        term = mu * S[2, 2, :2] @ v       # mu_b R^b_(a alpha) v^alpha, a = b = 3
        qdot = frame.matrix(q)[:, :2] @ v
        coordinate = system.vakonomic().rhs(0, np.r_[q, qdot, mu])[6]  # lambda' (theta^3 = A row)
        ours = vak.rhs(0, np.r_[q, v, mu])[5]
        assert ours == pytest.approx(coordinate, abs=1e-10)
        assert abs(term) > 1e-2
        assert abs((ours + term) - coordinate) > 1e-2          # without the term
        assert abs((ours + 2 * term) - coordinate) > 1e-2      # with R^b_(alpha a) = -R^b_(a alpha)


# ------------------------------------------------------------------ note section 4.2: a cross-check
def test_fernandez_bloch_off_C_turns_like_the_vakonomic_disk():
    """Off C the constraint velocities w of the Fernandez-Bloch flow are constant, and its
    (heading, rolling) motion is the vakonomic one with c = -M w, i.e. mu(0) = M (x'(0), y'(0))."""
    disk = _disk()
    frame = AnholonomicFrame(disk)
    _, fb = fernandez_bloch(frame)
    y = np.array([0.7, 0.1, -0.2, 0.3, 0.9, 1.3])
    qdot = frame.velocity(y[:4], y[4:]) + np.array([0, 0.2, -0.1, 0])
    t = np.linspace(0, 5, 11)
    off = nh.simulate(fb.nonholonomic(), (0, 5), np.r_[y[:4], qdot], t_eval=t, **KW)
    vak = nh.simulate(frame.vakonomic(), (0, 5), np.r_[y, M * qdot[1:3]], t_eval=t, **KW)
    assert np.abs(off.q[[0, 3]] - vak.q[[0, 3]]).max() < 1e-9
    assert np.abs(off.q[[0, 3]] - (y[[0, 3]][:, None] + y[[4, 5]][:, None] * t)).max() > 0.1  # not nonholonomic
