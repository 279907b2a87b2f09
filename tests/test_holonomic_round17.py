"""Starts on holonomic constraints h(q; p) = 0: two Chaplygin sleighs joined by a hitch bar of length L,
h = (|P1 - P2|^2 - L^2) / 2 with P1 at b1 behind the first blade. An outside probe found dy(5)/dL = 0
with no word (L enters only h: the y0 held fixed lies off h at every other L, where runs were refused),
and a start with the bar 1 mm too long refused at the origin but run 1e4 m away, h kept at -1.2e-3."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

K, A2, L, B1 = sp.symbols("k a2 L b1")
VALUES = {"k": 2.0, "a2": 0.2, "L": 1.2, "b1": 0.4}
Q = sp.symbols("x1 y1 th1 x2 y2 th2")


def _body(x, y, th, xd, yd, thd, m, inertia, a):
    vx, vy = xd - a * sp.sin(th) * thd, yd + a * sp.cos(th) * thd
    return m * (vx**2 + vy**2) / 2 + inertia * thd**2 / 2


def _trailer(expanded: bool = False):
    x1, y1, t1, x2, y2, t2 = Q
    qd = sp.symbols("x1d y1d th1d x2d y2d th2d")
    T = _body(x1, y1, t1, *qd[:3], 1.0, 0.5, 0.3) + _body(x2, y2, t2, *qd[3:], 0.7, 0.3, A2)
    G = sp.hessian(T, qd)
    P1 = sp.Matrix([x1 - B1 * sp.cos(t1), y1 - B1 * sp.sin(t1)])
    P2 = sp.Matrix([x2 + 0.3 * sp.cos(t2), y2 + 0.3 * sp.sin(t2)])
    h = ((P1 - P2).dot(P1 - P2) - L**2) / 2
    h = sp.expand(h) if expanded else h
    rows = sp.Matrix([[-sp.sin(t1), sp.cos(t1), 0, 0, 0, 0], [0, 0, 0, -sp.sin(t2), sp.cos(t2), 0],
                      [sp.diff(h, s) for s in Q]])
    system = nh.System(list(Q), G, potential=K * (t1 - t2) ** 2 / 2, constraints=rows, holonomic=[h],
                       parameters={K: VALUES["k"], A2: VALUES["a2"], L: VALUES["L"], B1: VALUES["b1"]})
    gradient = [sp.diff(h, s) for s in Q]
    return system, sp.lambdify([*Q, L, B1], h), sp.lambdify([*Q, A2], G), sp.lambdify([*Q, L, B1], gradient)


TRAILER, H, METRIC, DH = _trailer()


def _start(system=TRAILER, shift=0.0, longer=0.0):
    """A start on h = 0 (the bar at 0.2 rad to the first sleigh, 0.1 rad between the second and it),
    velocities projected onto the rows; the whole moved by ``shift`` in x and y, the bar ``longer``."""
    beta, th2 = 0.2, 0.1
    p1 = np.array([-VALUES["b1"], 0.0])
    p2 = p1 - (VALUES["L"] + longer) * np.array([np.cos(beta), np.sin(beta)])
    q = np.array([0.0, 0.0, 0.0, *(p2 - 0.3 * np.array([np.cos(th2), np.sin(th2)])), th2])
    v = system.project(q, [1.0, 0.0, 0.5, 0.9, 0.1, -0.3])
    q[[0, 1, 3, 4]] += shift
    return np.r_[q, v]


def _metric_move(q, dh_dp):
    """The kinetic-metric least-norm dq with J dq = -dh/dp: the first-order move of q onto h(q; p + dp) = 0."""
    G = np.array(METRIC(*q, VALUES["a2"]), float)
    J = np.array(DH(*q, VALUES["L"], VALUES["b1"]), float).reshape(1, -1)
    GiJt = np.linalg.solve(G, J.T)
    return -(GiJt @ np.linalg.solve(J @ GiJt, [dh_dp])).ravel()


def test_a_parameter_of_the_holonomic_constraints_starts_its_sensitivity_at_the_projected_start():
    """dy/dL and dy/db1 along the start moved onto h(q; p) = 0 (Gauss-Newton in the kinetic metric, velocities
    projected): central differences of runs with project_y0=True at p +- dp agree, whatever project_y0 of the
    sensitivity run. Before: dy/dL = 0 at every time and the runs at L +- dL were refused, project_y0 or not."""
    y0 = _start()
    tf, step = 2.0, 1e-5
    q0 = y0[:6]
    # h = (|P1 - P2|^2 - L^2)/2: dh/dL = -L; dh/db1 = -(P1 - P2) . (cos th1, sin th1) = -dh/dx1 at th1 = 0
    dh_db1 = -float(np.array(DH(*q0, VALUES["L"], VALUES["b1"]), float)[0])
    expected_start = {"L": _metric_move(q0, -VALUES["L"]), "b1": _metric_move(q0, dh_db1)}
    names, default = ["L", "b1", "k"], None
    for project_y0 in (False, True):  # the default holds y0, moved here only through h
        run = nh.simulate(TRAILER.nonholonomic(), (0, tf), y0, sensitivities=names, rtol=1e-10, atol=1e-12,
                          t_eval=[0, tf], project_y0=project_y0)
        default = run if default is None else default
        for j, name in enumerate(names):
            ends = []
            for sign in (1, -1):
                moved = nh.simulate(TRAILER.nonholonomic(), (0, tf), y0, params={name: VALUES[name] + sign * step},
                                    project_y0=True, rtol=1e-12, atol=1e-14, t_eval=[0, tf])
                assert abs(H(*moved.q[:, 0], VALUES["L"] + sign * step * (name == "L"),
                             VALUES["b1"] + sign * step * (name == "b1"))) < 1e-13
                ends.append(moved.y)
            difference = (ends[0] - ends[1]) / (2 * step)
            sensitivity = run.sensitivities[:, j]
            assert np.abs(sensitivity - difference).max() < 1e-6 * np.abs(difference).max(), (name, project_y0)
            if name in expected_start:
                assert np.allclose(sensitivity[:6, 0], expected_start[name], rtol=1e-8, atol=1e-12), name
                assert np.abs(sensitivity[:6, 0]).max() > 0.1 and np.abs(sensitivity[:, -1]).max() > 0.1
            else:  # k is not in h: its start is held
                assert np.abs(sensitivity[:, 0]).max() == 0
    # each run of a batch starts its sensitivities alike
    batch = nh.simulate_many(TRAILER.nonholonomic(), (0, tf), np.array([y0, y0]), sensitivities=["L"], rtol=1e-10,
                             atol=1e-12, t_eval=[0, tf])
    assert np.array_equal(batch[1].sensitivities[:, 0, 0], default.sensitivities[:, 0, 0])
    assert np.abs(batch[1].sensitivities[:, 0, -1] - default.sensitivities[:, 0, -1]).max() < 1e-8


def test_project_y0_moves_q_onto_the_holonomic_constraints_and_the_default_refuses_by_name():
    """The bar 1 mm too long: refused by default (the message now offers project_y0=True); with it the run
    starts on h = 0, q moved G-orthogonally (the move is G^-1 J^T times a number). Before: refused either way."""
    y0 = _start(longer=1e-3)
    assert abs(H(*y0[:6], VALUES["L"], VALUES["b1"])) > 1e-3
    with pytest.raises(ValueError, match=r"holonomic constraints h\(q\) = 0: \|h\| = 0.0012 .*project_y0=True"):
        nh.simulate(TRAILER.nonholonomic(), (0, 1), y0)
    run = nh.simulate(TRAILER.nonholonomic(), (0, 1), y0, project_y0=True, t_eval=[0, 1], rtol=1e-10, atol=1e-12)
    start = run.q[:, 0]
    assert run.success and abs(H(*start, VALUES["L"], VALUES["b1"])) < 1e-12
    assert abs(H(*run.q[:, -1], VALUES["L"], VALUES["b1"])) < 1e-9
    move = start - y0[:6]
    G = np.array(METRIC(*y0[:6], VALUES["a2"]), float)
    normal = np.linalg.solve(G, np.array(DH(*y0[:6], VALUES["L"], VALUES["b1"]), float))
    along = move @ normal / (normal @ normal) * normal
    assert np.abs(move - along).max() < 1e-5 * np.abs(move).max() and np.abs(move).max() > 1e-4
    assert run.constraint_residual()[0] < 1e-12  # the velocity projected at the moved q


@pytest.mark.parametrize("expanded", [False, True])
def test_the_start_check_gives_the_same_verdict_wherever_the_system_is(expanded):
    """h is unchanged by a translation of both sleighs: the bar 1 mm too long is refused at the origin and 1e4 m
    and 1e6 m away; a start on h rounded to double precision there is accepted, and so is a run's own end,
    continued. With h expanded (its terms x1^2 ~ 1e8 cancel) as written factored. Before: accepted at 1e4 m
    (the bound grew with |q|_inf: 1e-4 there), h kept at -1.2e-3 the whole run."""
    system = _trailer(expanded)[0] if expanded else TRAILER
    for shift in (0.0, 1e4, 1e6):
        with pytest.raises(ValueError, match="violates the holonomic constraints"):
            nh.simulate(system.nonholonomic(), (0, 1), _start(system, shift, longer=1e-3))
        y0 = _start(system, shift)
        run = nh.simulate(system.nonholonomic(), (0, 2), y0, t_eval=[0, 2])
        assert run.success and np.array_equal(run.y[:, 0], y0)  # as given
        again = nh.simulate(system.nonholonomic(), (2, 4), run.y[:, -1], t_eval=[4])
        assert again.success, shift
