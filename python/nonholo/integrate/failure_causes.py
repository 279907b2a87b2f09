"""Why a run failed, where the solver's own words name a symptom: a message that names the cause and
the remedy (an interval below the solver's resolution, a friction model's initial layer, an atol far
below round-off, a constraint singularity, Kane's dependent speeds that cannot be solved), attached to the
failed result."""

from __future__ import annotations

import numpy as np

from .. import options as check
from ..models.model import Model
from .result import SimulationResult

__all__ = ["explain_failure", "explain_tiny_atol", "constraint_singularity"]


def explain_failure(result: SimulationResult, model: Model, y0: np.ndarray, t_span: tuple) -> SimulationResult:
    """A failure whose cause is known gets a message that names it and the remedy: an interval
    below the solver's resolution, or the friction model at an eps too small for its O(eps)
    initial layer, started off the constraint (a failure within 1e3 eps of t0, not one that ran
    out of max_steps or max_wall_time)."""
    if result.status >= 0 or result.flag_name == "INTERRUPTED":
        return result
    if result.flag_name == "FRAME_SINGULAR":
        _explain_kane_speeds(result, model)
    t0, tf = t_span
    if result.stats.get("n_steps", 0) == 0 and result.flag_name in ("CV_TOO_CLOSE", "CV_ILL_INPUT") and (
            abs(tf - t0) <= 1e3 * np.finfo(float).eps * max(abs(t0), abs(tf)) or abs(tf - t0) < 1e-150):
        result.message = (
            f"t_span = ({t0!r}, {tf!r}) is below the solver's resolution: the interval {abs(tf - t0):.3g} is shorter "
            "than the smallest step CVODE can take there (steps are resolved to about 1e-16 of |t|, and intervals "
            f"below about 1e-150 underflow its step-size estimate; {result.flag_name}). Integrate over a longer "
            "interval, or shift the time origin closer to the interval")
    elif model.kind == "friction" and result.flag_name not in ("CV_TOO_MUCH_WORK", "WALL_TIME_EXCEEDED"):
        _explain_layer(result, model, y0, t0)  # not a run stopped by its max_steps or max_wall_time
    _explain_time_offset(result, t_span)
    return result


def _explain_time_offset(result: SimulationResult, t_span: tuple) -> None:
    """A failed run whose times lie far from t = 0 (:mod:`~nonholo.integrate.time_resolution`): the doubles
    there are coarse, a model of t (a force of t) is evaluated at times that coarse and the steps rounded to
    them. A second-round probe's forced oscillator x'' + x = cos(1.3 t) from t0 = 1e10 was told its step size
    collapsed because "the solution blows up, or the model is singular"; nothing blows up."""
    from .time_resolution import far_spacing

    t0, tf = (float(t) for t in t_span)
    spacing = far_spacing(t0, tf)
    if spacing is None or "lie far from t = 0" in result.message:
        return
    result.message += (f". The times of this run lie far from t = 0 (t_span ({t0:.17g}, {tf:.17g})): the doubles "
                       f"there are {spacing:.2g} apart, the steps are rounded to them and a model of t (a force of "
                       "t) is evaluated that coarsely, which can stop a run that nothing else would: where the model "
                       "allows, simulate over a t_span nearer 0")


# the core's words where a frame given by its vectors turns singular (cpp/src/models/frame_watch.cpp), which
# go on with advice on the frames a user passes
VECTOR_FRAME_ADVICE = "A frame given by its vectors cannot be re-chosen during a run"


def _explain_kane_speeds(result: SimulationResult, model: Model) -> None:
    """A run in Kane's speeds (:meth:`System.from_kanes_method`) stopped where its frame turned singular
    (FRAME_SINGULAR): the core's advice is on frames given by their vectors, which such a user never
    passed (a skate's sideways speed as the dependent one, at a heading of pi/2). The cause is the
    dependent speeds chosen in KanesMethod: their block C_dep of the velocity constraints is nearly
    singular there, and the remedy the coordinate model, or other dependent speeds."""
    frame = getattr(model, "frame", None)
    if getattr(frame, "dependent_speeds", None) is None or VECTOR_FRAME_ADVICE not in result.message:
        return
    found = result.message[: result.message.index(VECTOR_FRAME_ADVICE)].replace(
        "the frame X(q) of the Hamel model", "the frame X(q) of Kane's speeds")  # the model the user ran
    result.message = (
        f"{found}The dependent speeds chosen in KanesMethod (u_dependent) cannot be solved here: their block "
        "C_dep of the velocity constraints is nearly singular, and the frame of Kane's speeds, built from its "
        "inverse, cannot be re-chosen during a run. Use the coordinate model, which crosses this configuration: "
        "System.from_kanes_method(km, ..., state=\"qdot\") (or system.nonholonomic(form=\"qdot\")), with state "
        "[q, q']; or choose other dependent speeds in KanesMethod, whose C_dep stays regular along the run")


# an atol below eps^2 (4.9e-32) asks for more than the round-off of any state above eps in size
TINY_ATOL = np.finfo(float).eps ** 2


def explain_tiny_atol(result: SimulationResult, atol: np.ndarray) -> SimulationResult:
    """A failed run whose atol is far below round-off (under eps^2): say so, since its error weights
    1/atol (1e100 at atol 1e-100) hold a state near zero to steps far below any other scale, which
    the solvers report as a collapsed step or a first step they cannot choose, words that blame the
    model. atol 1e-80 failed on a sleigh where 1e-60 ran (BDF and DOP853; Adams ran at 1e-200)."""
    if result.status >= 0 or result.flag_name == "INTERRUPTED":
        return result
    smallest = float(np.min(atol))
    if smallest < TINY_ATOL:
        result.message = (
            f"{result.message}. atol = {smallest:.3g} is far below double precision's resolution of the states "
            "(2.2e-16 times their size): a state near zero must be resolved to atol, which takes steps far below "
            "every other scale of the run and may be what failed; a larger atol, such as 1e-30, changes what is "
            "asked of a state only where it is below about atol / rtol")
    return result


TINY_EPS = 1e-100  # a friction eps below which its rates (about mu / eps) leave double precision's useful range


def _explain_layer(result: SimulationResult, model: Model, y0: np.ndarray, t0: float) -> None:
    system = model.system
    eps = model.eps_at(result.params)
    if 0 < eps < TINY_EPS:  # whatever the solver saw (a NaN state, a failed error test), this is the cause
        result.message = (
            f"{result.message}. At eps = {eps:g} the friction model's rates, about mu / eps, are beyond what "
            "double precision resolves (its steps and Jacobian overflow or underflow): use system.nonholonomic(), "
            "the limit eps -> 0, or system.reduced(eps), or an eps above about 1e-100")
        return
    # |A v - b| at y0 against |A| |v| + |b| (the core's constraint_residual), from the system's
    # point geometry: the diagnosis builds no model and runs nothing
    q, v = y0[: system.n], y0[system.n: 2 * system.n]
    A, b = system.constraint_matrix(q, t0, {k: x for k, x in result.params.items() if k != "eps"})
    residual = float(np.linalg.norm(A @ v - b))
    scale = float(np.linalg.norm(A) * np.linalg.norm(v) + np.linalg.norm(b))
    # failed within the layer (its e-folding time is about eps / mu): the layer is the cause
    if residual > 1e-10 * max(scale, 1.0) and abs(result.t_last - t0) <= 1e3 * eps:
        result.message = (
            f"{result.message}. The run starts off the constraint (|A v - b| = {residual:.3g}): at eps = {eps:g} "
            f"the friction model's initial layer, in which A v - b decays like exp(-mu t / eps) within about "
            f"{eps:.3g} time units, is below what the solver resolves. Project the initial velocity onto the "
            "constraint (project_y0=True, or system.project(q, v)), or use system.nonholonomic() or "
            "system.reduced(eps), the friction model after its layer")


SINGULAR_CONSTRAINTS = 1e-6  # sigma_min / sigma_max of A(q) below which its rows count as dependent


def constraint_singularity(result: SimulationResult, p: list, opts: dict) -> SimulationResult:
    """A failed run of a constrained model that stopped where the constraint rows A(q) became
    (nearly) dependent (the snakeboard at phi = pi/2): the message names the constraint
    singularity with t and q instead of the solver's symptom (a collapsing step size). The
    state at the failure is the last step's, which the core reports (``y_last``) also when the
    outputs were sampled at t_eval: the diagnosis integrates nothing again."""
    model, system = result.model, result.model.system
    if result.status >= 0 or not system.k or result.flag_name == "INITIAL_STATE_REJECTED":
        return result
    t, y = result.t_last, result._y_last
    if y is None or np.shape(y) != (model.n_states,):
        return result
    q = np.asarray(y, dtype=float)[: system.n]
    if not check.all_finite(q):
        return result
    try:
        A, _ = system.constraint_matrix(q, t, dict(zip(system.parameter_names, p)))
        s = np.linalg.svd(A, compute_uv=False)
    except (ValueError, RuntimeError, np.linalg.LinAlgError):
        return result
    if not (s[0] > 0 and s[-1] <= SINGULAR_CONSTRAINTS * s[0]):
        return result
    point = ", ".join(f"{name}={value:.6g}" for name, value in zip(system.coordinate_names, q))
    result.message = (f"Integration stopped at t = {t:.6g}: the constraint rows A(q) are (nearly) linearly dependent "
                      f"at q = ({point}) (smallest singular value {s[-1]:.2g} of {s[0]:.3g}): a constraint "
                      "singularity, where the constraints no longer determine the multipliers and the constrained "
                      f"motion is not defined. The solver's report: {result.message}")
    result.flag_name = "CONSTRAINT_SINGULAR"
    return result
