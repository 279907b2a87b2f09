"""Fedorov and Zenkov (2005): the errata of docs/errata.md that tests/test_discrete.py does not
cover, and the numbers returned by the figure functions of papers.fedorov_zenkov.

Tolerances: Newton solves each step to 1e-14 relative, so identities that hold exactly for the
discrete scheme hold to ~1e-13 over tens of steps on O(1) coordinates; CVODE runs at rtol 1e-11
to 1e-12 are good to ~1e-9; the note prints 7 digits for the eigenvalues and 4 for item 11.
"""

import math

import numpy as np
import pytest
from scipy.optimize import brentq

import nonholo as nh
from nonholo.systems.chaplygin_sleigh.discrete import DiscreteSleigh
from nonholo.systems.chaplygin_sleigh.exact import SleighMotion
from papers import fedorov_zenkov as FZ
from nonholo.systems.inclined_knife_edge import knife_edge_closed_form as knife_closed_form
from nonholo.systems.inclined_knife_edge import knife_edge_energy as knife_energy

EXACT = 1e-12   # identities of the discrete scheme over <= 100 steps


def general_run(J, m, a, h, n_steps, v0=-1.0, omega0=1.0):
    system = nh.systems.chaplygin_sleigh(m=m, I=J, a=a)
    return nh.simulate_discrete(system.discrete(h), (0, n_steps * h), [0, 0, 0, v0, 0, omega0])


def increments(res):
    """theta_k, Dtheta_k, Dx_k, Dy_k, phi_k = theta_k + Dtheta_k/2 (state order x, y, phi)."""
    x, y, theta = res.q
    D, dx, dy = np.diff(theta), np.diff(x), np.diff(y)
    return theta, D, dx, dy, theta[:-1] + D / 2


# ------------------------------------------------------------------ errata (docs/errata.md)
def test_theorem5_displacement_length_is_u_over_cos():
    """Balanced sleigh: the chord |(Dx_k, Dy_k)| equals |u|/cos(Dtheta/2), u = Dx_k cos theta_k +
    Dy_k sin theta_k, not |u| as printed; both are constant, so the circle of Theorem 5 stands."""
    J, m, h = 1.0, 1.0, 0.2
    res = general_run(J, m, 0.0, h, 60, v0=-1.0, omega0=3.0)   # D = h omega0 = 0.6
    theta, D, dx, dy, _ = increments(res)
    chord = np.hypot(dx, dy)
    u = dx * np.cos(theta[:-1]) + dy * np.sin(theta[:-1])
    assert np.ptp(D) < EXACT and D[0] == pytest.approx(0.6, abs=EXACT)
    assert np.ptp(u) < EXACT and np.ptp(chord) < EXACT
    assert np.abs(chord - np.abs(u) / np.cos(D / 2)).max() < EXACT
    assert (chord - np.abs(u)).min() > 0.04 * np.abs(u).max()   # 1/cos(0.3) - 1 = 0.047: the printed length fails
    # the vertices lie on the circle of radius |u|/|sin D| through consecutive vertices
    radius = abs(u[0]) / abs(math.sin(D[0]))
    assert chord[0] == pytest.approx(2 * radius * math.sin(D[0] / 2), abs=EXACT)


def test_garbled_bound_on_dtheta_is_pi_not_2pi():
    """'|Dtheta_k| < 2' is garbled; the proof reads 2 pi. (23) has poles at |D| = pi, and every p
    has a second root in (pi, 2 pi), so |D| < 2 pi does not single out D. nonholo's branch rule:
    the root with |D| < pi through D = 0 at p1 = 0, unique there for a p2 >= 0."""
    P = DiscreteSleigh(m=1.0, I=1.0, a=1.0)
    grid = np.linspace(-np.pi + 1e-6, np.pi - 1e-6, 20001)
    for p1, p2 in [(0.1, 0.1), (0.0, 0.3), (0.3, 0.0), (2.0, 1.5)]:
        F = P.residual(grid, p1, p2)[0]
        assert np.all(np.diff(F) > 0)                   # strictly increasing on (-pi, pi): one root
        D = P.rotation(p1, p2)
        assert abs(D) < np.pi and abs(P.residual(D, p1, p2)[0]) < 1e-14
        spurious = brentq(lambda d: P.residual(d, p1, p2)[0], np.pi + 1e-9, 2 * np.pi - 1e-12)
        assert np.pi < spurious < 2 * np.pi
        if p1 == 0.0:   # the spurious root would move an equilibrium: p2bar = p2 + 2 m a D sin(D/2) != p2
            assert D == 0.0 and abs(2 * spurious * math.sin(spurious / 2)) > 1.0
    with pytest.raises(ValueError, match=r"left the branch of \(23\) through D = 0"):
        P.rotation(5.0, -5.0)   # far outside Theorem 6's window: no admissible root near the branch


def test_multiplier_sign_of_eqs_16_17_against_eq_5():
    """(16)-(17) carry lambda with the sign opposite to (5) as printed. nonholo's lambda_k
    approximates the continuous multiplier (G v' + c = A^T lambda); in the paper's scaling
    lambda_(16-17) = h^2 lambda_k and lambda_(5) = -h^2 lambda_k."""
    J, m, a, h, N = 0.7, 1.3, 0.4, 0.05, 80
    res = general_run(J, m, a, h, N)
    theta, D, dx, dy, phi = increments(res)
    k = np.arange(1, N)
    th = theta[k]
    mu_x = m * dx - m * a * D * np.sin(phi)          # -dL_d/dx_k = m Dx_k - m a Dtheta_k sin phi_k
    mu_y = m * dy + m * a * D * np.cos(phi)
    jump_x, jump_y = mu_x[k] - mu_x[k - 1], mu_y[k] - mu_y[k - 1]
    lam_16_17 = -np.sin(th) * jump_x + np.cos(th) * jump_y   # (16): jump_x = -lam sin th, (17): jump_y = lam cos th
    assert np.abs(np.cos(th) * jump_x + np.sin(th) * jump_y).max() < EXACT   # the blade component: (18)
    lam = res.lam[0, k]
    assert np.abs(lam_16_17 - h**2 * lam).max() < 1e-10 * np.abs(lam_16_17).max()
    # (5): D1 L_d(q_k, q_k+1) + D2 L_d(q_k-1, q_k) = lambda_(5) A(q_k), A = (0, -sin th, cos th)
    lhs_x, lhs_y = -jump_x, -jump_y
    lam_5 = -np.sin(th) * lhs_x + np.cos(th) * lhs_y
    assert np.abs(lam_5 + h**2 * lam).max() < 1e-10 * np.abs(lam_5).max()
    assert np.abs(lam).max() > 0.1   # the test is not vacuous
    # nonholo's momenta: p^-_k = -D1 L_d(q_k, q_k+1) = p_k + h A(q_k)^T lambda_k (cpp/include/nonholo/discrete.hpp)
    p_minus = np.array([mu_x, mu_y]) / h                # nonholo's L_d = h L o Psi = (paper's (12) without 1/h^2) / h
    A = np.array([-np.sin(theta[:-1]), np.cos(theta[:-1])])
    assert np.abs(p_minus - (res.p[:2, :-1] + h * A * res.lam[0])).max() < 1e-10


def test_eq12_prefactor_scales_the_momenta_by_h():
    """(12) is printed with 1/h^2 and the paper then drops it: its momenta are ~ h p(t_k).
    nonholo's L_d = h L o Psi gives momenta ~ p(t_k): p_nonholo = p_paper / h, same positions."""
    J, m, a, h, N = 1.0, 1.0, 1.0, 0.1, 50
    res = general_run(J, m, a, h, N)
    q, p = DiscreteSleigh(m=m, I=J, a=a).trajectory((0, 0, 0), (h * (J + m * a**2), -h * m), N)
    assert np.abs(res.q[[2, 0, 1]].T - q).max() < EXACT
    theta = res.q[2]
    blade = res.p[0] * np.cos(theta) + res.p[1] * np.sin(theta)
    assert np.abs(h * res.p[2] - p[:, 0]).max() < 1e-14
    assert np.abs(h * blade - p[:, 1]).max() < 1e-14
    # at the start: nonholo's p_0 = G v_0, the continuous momentum (I omega0, m v0) = (2, -1)
    assert res.p[2, 0] == pytest.approx(2.0) and blade[0] == pytest.approx(-1.0)


# ------------------------------------------------------------------ helpers of the module
def test_closed_forms_agree_with_cvode():
    exact = SleighMotion(m=1.3, I=0.7, a=0.4, u0=-1.0, omega0=1.0)
    t = np.linspace(0, 10, 41)
    sol = nh.simulate(FZ.sleigh(0.7, 1.3, 0.4).nonholonomic(), (0, 10), FZ.sleigh_start(-1.0, 1.0), t_eval=t,
                      rtol=1e-12, atol=1e-14)
    assert np.abs(sol.q - exact.configuration(t)).max() < 1e-8
    assert np.abs(FZ.body_momenta(sol, 0.7, 1.3, 0.4) - exact.momenta(t)).max() < 1e-8
    assert np.abs(FZ.sleigh_energy(sol, 0.7, 1.3, 0.4) - sol.energy()).max() < 1e-14
    knife = nh.simulate(nh.systems.inclined_knife_edge(**FZ.KNIFE).nonholonomic(), (0, 20),
                        FZ.sleigh_start(*FZ.KNIFE_START),
                        t_eval=np.linspace(0, 20, 41), rtol=1e-12, atol=1e-14)
    assert np.abs(knife.q - knife_closed_form(knife.t, *FZ.KNIFE_START, g=FZ.KNIFE["g"])).max() < 1e-8
    assert np.abs(knife_energy(knife, **FZ.KNIFE) - knife.energy()).max() < 1e-14


# ------------------------------------------------------------------ the figure functions
@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("fz")
    results = {}
    for name, fn in [("fig1", FZ.fig1), ("fig2", FZ.fig2), ("fig3", FZ.fig3)]:
        results[name] = fn(out / f"{name}.png")
        assert (out / f"{name}.png").stat().st_size > 10_000
    return results


def test_fig1_half_ellipses_are_energy_levels(figures):
    rows = figures["fig1"]["orbits"]
    assert len(rows) == 2 * len(FZ.FIG1_ENERGIES)
    for row in rows.values():
        assert row["max_energy_error"] < 1e-8          # CVODE rtol 1e-11 over 60 time units
        assert row["limit_error"] < 1e-7                # (0, +-sqrt(2mE)) reached: exp(-2 k 30) < 1e-13
        assert row["p1_ends"] < 1e-5                    # p1 ~ exp(-k 30) with k >= 0.5
        assert row["min_p2_increment"] > -1e-12         # p2 non-decreasing


def test_fig2_heteroclinic_limits_and_theorem6(figures):
    r = figures["fig2"]
    assert r["mirror_deviation"] == 0.0 and r["min_p2_increment"] > 0
    rel = []
    for row in r["limits"]:
        assert row["beta_forward"] > 0
        assert abs(row["beta_forward"] + row["beta_backward"]) < 1e-15
        assert max(abs(row["p1_forward"]), abs(row["p1_backward"])) < 1e-20
        assert row["ratio"] == pytest.approx(row["lambda1"], abs=1e-9)
        rel.append(row["beta_forward"] / row["continuous"] - 1)
    assert all(x < 0 for x in rel)
    assert rel[-1] / rel[1] == pytest.approx(4.0, rel=0.02)   # O(p1^2): seeds 0.2 and 0.1
    for row in r["linearization"]:
        assert row["lambda1_fd"] == pytest.approx(row["lambda1_note"], abs=5e-8)     # 7 printed digits
        assert row["lambda1_fd"] == pytest.approx(row["lambda1_formula"], abs=1e-9)  # FD error ~1e-10
        assert row["lambda2_fd"] == pytest.approx(1.0, abs=1e-9) and row["off_diagonal"] < 1e-9
        assert row["stable"] == (row["p2"] > 0)


def test_fig3_cusp_asymptote_and_agreement(figures):
    r = figures["fig3"]
    assert r["n_chord_reversals"] == 1 and r["k_p2_sign_change"] == r["k_cusp"]
    assert abs(r["k_cusp"] * r["h"] - r["t_cusp"]) < r["h"]
    assert r["general_vs_closed_map"] < 1e-12 and r["constraint_residual"] < 1e-13
    assert r["cvode_vs_closed_form"] < 1e-8
    assert r["max_distance_to_curve"] < 0.05 and r["max_same_time_distance"] < 0.05
    errors = list(r["asymptote_heading_error"].values())   # h, h/2, h/4
    assert errors[0] / errors[1] == pytest.approx(4.0, rel=0.02)
    assert errors[1] / errors[2] == pytest.approx(4.0, rel=0.02)
    assert abs(r["theta_end_discrete"] - r["theta_inf"]) < 0.01
    assert r["V_discrete"] == pytest.approx(r["V"], rel=1e-4)
    assert r["last_chord_over_h"] == pytest.approx(r["V"], rel=1e-4)
    for row in r["regression"]:
        assert row["map_vs_note"] < 1e-12 and row["general_vs_note"] < 1e-12 and row["general_vs_map"] < 1e-12
    for N, (q_err, p_err) in r["order2"]["table"].items():
        q_note, p_note = FZ.NOTE_ORDER2[N]
        assert q_err == pytest.approx(q_note, rel=1e-3) and p_err == pytest.approx(p_note, rel=1e-3)   # 4 digits
    assert abs(r["order2"]["q_slope"] - 2) < 0.01 and abs(r["order2"]["p_slope"] - 2) < 0.01


def test_work_precision_numbers(tmp_path):
    wp = FZ.fig_work_precision(tmp_path / "wp.png")
    assert (tmp_path / "wp.png").stat().st_size > 10_000
    ref = wp["reference"]
    assert ref["quadrature_refined"] < 1e-13 < ref["cvode_1e13"] < 1e-9
    assert abs(wp["discrete_slope"] - 2) < 0.05
    rows = {(r["method"], r["setting"]): r for r in wp["rows"]}
    disc = [r for r in wp["rows"] if r["method"] == "discrete"]
    assert all(r["constraint"] < 1e-12 for r in disc)
    for method in ("CVODE BDF", "CVODE Adams"):
        assert rows[(method, 1e-12)]["error"] < 1e-8 < 1e-4 < rows[(method, 1e-3)]["error"]
    # deterministic work: CVODE reaches 1e-4 with fewer RHS evaluations than the discrete scheme
    # needs Newton iterations (and fewer steps)
    best = wp["cheapest"][1e-4]
    for method in ("CVODE BDF", "CVODE Adams"):
        assert best[method]["evaluations"] < best["discrete"]["evaluations"] / 5
        assert best[method]["steps"] < best["discrete"]["steps"] / 5
    # wall times are measured in benchmarks/discrete_sleigh_work_precision.py, not asserted by a test


def test_long_runs_energy_bounded_for_discrete_and_drifting_for_cvode(tmp_path):
    lt = FZ.fig_long_time(tmp_path / "long.png")
    assert (tmp_path / "long.png").stat().st_size > 10_000
    knife = lt["knife edge"]
    disc, bdf = knife["discrete h = 0.1"], knife["CVODE BDF rtol 1e-06"]
    assert disc["late"] == pytest.approx(disc["early"], rel=0.05) and disc["late"] < 1e-2   # bounded, O(h^2)
    assert abs(disc["drift"]) < 1e-7
    assert bdf["late"] > 5 * bdf["early"] and bdf["drift"] < -1e-6                         # linear drift
    assert knife["CVODE Adams rtol 1e-06"]["late"] > 100 * knife["CVODE Adams rtol 1e-06"]["early"]
    # and the honest part: the discrete position error is not bounded
    assert disc["position_error"] > 10 * bdf["position_error"]
    sleigh = lt["sleigh"]
    for row in sleigh.values():
        assert row["late"] <= row["early"] * 1.01   # everything settles on the straight line


def test_theorem5_polygon_figure_numbers():
    """The Theorem 5 figure's numbers: constant turn and chord, all vertices on one circle of radius
    |u|/|sin D|, chord |u|/cos(D/2) (4.7% longer than the printed |u| at D = 0.6)."""
    r = FZ.theorem5_polygon()
    assert r["turn"] == pytest.approx(0.6, abs=EXACT) and r["turn_spread"] < EXACT and r["chord_spread"] < EXACT
    assert r["vertex_deviation"] < 1e-12 and r["radius"] == pytest.approx(r["radius_formula"], abs=1e-12)
    assert r["chord"] == pytest.approx(r["u"] / math.cos(r["turn"] / 2), abs=EXACT)
    assert r["chord"] > 1.04 * r["u"]
