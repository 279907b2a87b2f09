"""Simulation results, shaped like SciPy's ``solve_ivp`` result."""

from __future__ import annotations

import numpy as np

__all__ = ["SimulationResult"]


class SimulationResult:
    """The outcome of :func:`nonholo.simulate`.

    Attributes
    ----------
    t : ndarray, shape (n_t,)
        Output times (``t_eval``, or every solver step when ``t_eval`` is None).
    y : ndarray, shape (n_states, n_t)
        States at ``t``, one row per state, ordered as ``state_names``.
    q, v : ndarray, shape (n, n_t)
        Coordinates and velocities (views of ``y``).
    status : int
        0: end of the interval reached; 1: a terminal event occurred; -1: the solver failed
        (the trajectory is kept up to ``t_last``).
    message : str
        What happened, with the time reached and CVODE's reason on failure.
    success : bool
        ``status >= 0``.
    t_events, y_events : list of ndarray
        For each event, its times (n_occ,) and states (n_occ, n_states).
    stats : dict
        Solver statistics: n_steps, n_rhs, n_jac, n_lin_setups, n_err_test_fails,
        n_nonlin_iters, n_nonlin_fails, n_proj, last_order, last_step, cpu_time.
    nfev, njev, nlu : int
        solve_ivp's names for n_rhs, n_jac, n_lin_setups.
    flag, flag_name : int, str
        CVODE's return flag of the last call (e.g. ``CV_TOO_MUCH_WORK``).
    t_last : float
        The last time reached.
    messages : list of str
        Messages SUNDIALS emitted during the run.
    state_names : list of str
    params : dict
        The parameter values used.
    """

    def __init__(self, raw: dict, model, params: dict):
        self.t = raw["t"]
        self.y = raw["y"]
        self.status = int(raw["status"])
        self.message = raw["message"]
        self.flag = int(raw["flag"])
        self.flag_name = raw["flag_name"]
        self.t_last = float(raw["t_last"])
        self.stats = dict(raw["stats"])
        self.t_events = list(raw["t_events"])
        self.y_events = list(raw["y_events"])
        self.messages = list(raw["messages"])
        self.model = model
        self.params = dict(params)
        self.state_names = list(model.state_names)
        self.sol = None

    @property
    def success(self) -> bool:
        return self.status >= 0

    @property
    def nfev(self) -> int:
        return self.stats["n_rhs"]

    @property
    def njev(self) -> int:
        return self.stats["n_jac"]

    @property
    def nlu(self) -> int:
        return self.stats["n_lin_setups"]

    @property
    def q(self) -> np.ndarray:
        return self.y[: self.model.system.n]

    @property
    def v(self) -> np.ndarray:
        """The velocity part of the state: v (n, n_t); u = P v + v_b for reduced models; the
        quasi-velocities v^alpha (m, n_t) for models in an anholonomic frame."""
        n = self.model.system.n
        frame = getattr(self.model, "frame", None)
        return self.y[n : n + (frame.rank if frame is not None else n)]

    @property
    def velocity(self) -> np.ndarray:
        """The physical velocity q' at every output time, shape (n, n_t): ``v`` for the
        nonholonomic, vakonomic and friction models; for a reduced model of order K,
        u + sum_{k<=K} eps^k h^(k)(t, q, u) (its state holds u = P v + v_b)."""
        frame = getattr(self.model, "frame", None)
        if frame is not None:
            return np.array([frame.velocity(q, v, self._system_params()) for q, v in zip(self.q.T, self.v.T)]).T
        if getattr(self.model, "kind", None) != "reduced" or not self.model.order:
            return self.v
        system, eps = self.model.system, self.params["eps"]
        params = {name: self.params[name] for name in system.parameter_names}
        out = np.empty_like(self.v)
        for i, (t, q, u) in enumerate(zip(self.t, self.q.T, self.v.T)):
            H = system.slip(q, u, order=self.model.order, t=t, params=params)
            out[:, i] = u + sum(eps ** (k + 1) * H[k] for k in range(H.shape[0]))
        return out

    def __getitem__(self, name: str) -> np.ndarray:
        """The trajectory of one state by name, e.g. ``sol["phi"]``."""
        try:
            return self.y[self.state_names.index(name)]
        except ValueError:
            raise KeyError(f"no state named {name!r}; states are {self.state_names}") from None

    def constraint_residual(self) -> np.ndarray:
        """|A v - b| / (|A| |v| + |b|) at every output time, shape (n_t,)."""
        return np.array([self.model.constraint_residual(t, y, self.params) for t, y in zip(self.t, self.y.T)])

    def energy(self) -> np.ndarray:
        """1/2 q'^T G q' + V at every output time, shape (n_t,), with the physical velocity
        (:attr:`velocity`)."""
        params = self._system_params()
        return np.array([self.model.system.energy(q, v, params) for q, v in zip(self.q.T, self.velocity.T)])

    def _system_params(self) -> dict:
        return {name: self.params[name] for name in self.model.system.parameter_names}

    def __repr__(self) -> str:
        lines = [
            f"  message: {self.message}",
            f"  success: {self.success}",
            f"   status: {self.status}",
            f"        t: array of {self.t.shape[0]} times in [{self.t[0]:g}, {self.t[-1]:g}]" if self.t.size
            else "        t: empty",
            f"        y: array of shape {self.y.shape}, states {self.state_names}",
            f"    stats: {self.stats['n_steps']} steps, {self.stats['n_rhs']} rhs, {self.stats['n_jac']} jacobians,"
            f" {self.stats['cpu_time'] * 1e3:.3g} ms",
        ]
        if self.t_events:
            lines.append(f" t_events: {[len(te) for te in self.t_events]} occurrences")
        return "SimulationResult(\n" + "\n".join(lines) + "\n)"
