"""Adversarial round 13 (an outside probe on laws, slip and results): a friction model realized by a law
reported no slip in result.constraint_residual() (its rows were realized, so the realized system had
none to measure against) and ignored project_y0=True."""

import pickle

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, phi, m, I, a = sp.symbols("x y phi m I a")
G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
               [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
SLEIGH = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                   parameters={m: 1.0, I: 1.0, a: 0.2})
Y0 = [0, 0, 0, 1.0, 0, 1.0]


def relative_slip(run) -> np.ndarray:
    A = np.array([[-np.sin(p), np.cos(p), 0] for p in run["phi"]])
    v = run.v.T
    return np.abs(np.sum(A * v, axis=1)) / (np.linalg.norm(A, axis=1) * np.linalg.norm(v, axis=1))


@pytest.mark.parametrize("model", [SLEIGH.friction(0.01),
                                   SLEIGH.friction(law=nh.laws.Coulomb(0.5, v_s=1e-2), normal=9.81)],
                         ids=["linear", "coulomb"])
def test_a_laws_run_measures_its_slip_against_the_rows_it_realizes(model):
    run = nh.simulate(model, (0, 1), Y0, t_eval=[0.5, 1.0])
    residual = run.constraint_residual()
    assert residual.min() > 1e-3
    np.testing.assert_allclose(residual, relative_slip(run), rtol=1e-12)
    again = pickle.loads(pickle.dumps(run))
    np.testing.assert_allclose(again.constraint_residual(), residual, rtol=0, atol=0)


def test_project_y0_puts_a_laws_start_on_the_rows_it_realizes():
    model = SLEIGH.friction(law=nh.laws.Coulomb(0.5, v_s=1e-2), normal=9.81)
    sideways = [0, 0, 0, 1.0, 0.5, 1.0]  # y' = 0.5 across the blade
    projected = nh.simulate(model, (0, 0.1), sideways, project_y0=True, t_eval=[0.0])
    assert abs(projected["y_dot"][0]) < 1e-14 and projected.constraint_residual()[0] < 1e-14
    np.testing.assert_allclose(projected.y[3:, 0], SLEIGH.project([0, 0, 0], [1.0, 0.5, 1.0]), rtol=1e-12)
    as_given = nh.simulate(model, (0, 0.1), sideways, t_eval=[0.0])  # the default: the start as given
    assert as_given["y_dot"][0] == 0.5


def test_a_margins_event_pickles_after_a_run_and_still_fires():
    """nh.Event(system.friction_margin(...)) pickled before a run but not after one ("cannot pickle
    'nonholo._core.Tape'"), so it could not go to a process pool's workers after a trial run."""
    event = nh.Event(SLEIGH.friction_margin(0.03, normal=9.81), terminal=True)
    first = nh.simulate(SLEIGH.nonholonomic(), (0, 10), [0, 0, 0, 0.1, 0, 1.0], events=event)
    copy = pickle.loads(pickle.dumps(event))
    again = nh.simulate(SLEIGH.nonholonomic(), (0, 10), [0, 0, 0, 0.1, 0, 1.0], events=copy)
    assert first.status == 1 and again.status == 1
    # the copy's margin belongs to an unpickled copy of the system: the run evaluates it by a callback, not
    # the tape of the model's own system, so the root agrees to the run's tolerance, not bit for bit
    assert again.t_events[0][0] == pytest.approx(first.t_events[0][0], rel=1e-7)


@pytest.mark.parametrize("scale", [1.0, 1e-9, 1e-12, 1e-15])
def test_creep_does_not_depend_on_the_units_of_force(scale):
    """A block on a rail pushed across it by F = 2 s, mass s, load N = 10 s under Coulomb(0.5, v_s = 1e-3):
    the same motion at every scale s, its creep v_s rho / sqrt(1 - rho^2) at rho = F / (mu N) = 0.4. The
    Newton iterations of steady_slip and of the reduced model's leading slip stopped at an absolute residual
    (1e-14, 1e-15 of max(1, |force|)): at s = 1e-15 both took the linear start, 8.4% off (1.6e-3 at 1e-12)."""
    X, Yc, M, F = sp.symbols("X Y M F")
    law = nh.laws.Coulomb(0.5, v_s=1e-3)
    creep = 1e-3 * 0.4 / np.sqrt(1 - 0.16)
    rail = nh.System([X, Yc], sp.diag(M, M), constraints=sp.Matrix([[0, 1]]), force=sp.Matrix([0, F]),
                     parameters={M: scale, F: 2 * scale})
    run = nh.simulate(rail.reduced(order=1, law=law, normal=10 * scale), (0, 1), [0, 0, 0.5, 0], t_eval=[1.0],
                      rtol=1e-12, atol=1e-30)
    assert run.status == 0 and run["Y"][-1] == pytest.approx(creep, rel=1e-11)
    assert -law.steady_slip([2 * scale], N=10 * scale)[0] == pytest.approx(creep, rel=1e-13)
    fast = nh.laws.Coulomb(0.5, v_s=1e3)  # rho = 0.3: creep 1e3 * 0.3 / sqrt(0.91) = 314.485...
    assert -fast.steady_slip([0.15 * scale], N=scale)[0] == pytest.approx(1e3 * 0.3 / np.sqrt(0.91), rel=1e-13)


def test_arguments_of_the_analysis_and_of_events_are_named():
    """Raw AttributeErrors and TypeErrors an outside probe met: a stick-slip model given to linearize
    ('StickSlipModel' object has no attribute 'param_vector'), a string for steady_motions' system or model
    ('str' object has no attribute 'system'), eigenvalue_path's values='abc' (could not convert string to
    float) and events=42 ('int' object is not iterable)."""
    y = [0, 0, 0, 1.0, 0, 0]
    with pytest.raises(TypeError, match="model must be a smooth model of a system, got a StickSlipModel"):
        nh.linearize(SLEIGH.stick_slip(0.1, normal=9.81), y)
    with pytest.raises(TypeError, match="system must be a System or a model of one"):
        nh.steady_motions("S", y)
    with pytest.raises(TypeError, match="model must be a model of a system"):
        nh.steady_motions(SLEIGH, y, model="friction")
    with pytest.raises(TypeError, match="values must be an array of real numbers"):
        nh.eigenvalue_path(SLEIGH.nonholonomic(), "a", "abc", y)
    with pytest.raises(TypeError, match="events must be an event"):
        nh.simulate(SLEIGH.nonholonomic(), (0, 1), Y0, events=42)
    assert nh.linearize(SLEIGH.nonholonomic(), y).eigenvalues.size  # the default still linearizes
