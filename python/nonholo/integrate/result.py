"""Simulation results, shaped like SciPy's ``solve_ivp`` result."""

from __future__ import annotations

import html
import numbers

import numpy as np

from ..numerics import number_text
from ..system.contact_outputs import CONTACT_QUANTITIES, LOAD_QUANTITIES, contact_quantity, missing_load_quantity

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
    sensitivities : ndarray, shape (n_states, n_sens, n_t), or None
        dy/dtheta at ``t`` for the ``sensitivities`` requested from simulate, named by
        ``sensitivity_names``; at events ``t_events_sensitivities`` (n_occ, n_sens) and
        ``y_events_sensitivities`` (n_occ, n_states, n_sens); ``sensitivities_final``
        (n_states, n_sens) those of ``y_final`` (also with ``t_eval=[]``). The samples' are at
        fixed times; after a terminal event (status 1) ``sensitivities_final`` is the derivative
        of the state at the stop, s(t*) + y'(t*) dt*/dtheta, the stopping event's
        ``y_events_sensitivities``, not the last column of ``sensitivities``.
    stats : dict
        Solver statistics: n_steps, n_rhs, n_jac, n_lin_setups, n_err_test_fails,
        n_nonlin_iters, n_nonlin_fails, n_proj, last_order, last_step, cpu_time (seconds of
        CPU time of the thread that stepped the run, from its first step to its end: set-up and
        the output's conversion are outside it; wall time under load is larger); n_frame_switches
        for the models in quasi-velocities of a frame (the frame form of a reduced model,
        ``frame.hamel()``, ``frame.vakonomic()``).
    frame_switches : list of (float, list of str)
        Models in quasi-velocities of a Voronets frame (the frame form of a reduced model, the
        Hamel and frame-vakonomic models): the times at which the frame was re-split and the
        coordinates solved for from then on (empty when the run kept the model's split).
        The velocity rows of ``y`` (w or v^alpha, the free coordinates' velocities, and the
        frame-vakonomic multipliers mu) are in the split of their time: a sample at t is in the
        split of the last switch strictly before t (the model's own before the first), so they
        jump at a switch while the physical ``velocity`` (mapped through each sample's split;
        also u = ``v`` of a reduced model and ``result[velocity name]``) is continuous.
        ``sol(t)`` likewise returns the state in the split of the step containing t
        (``split_at(t)``).
    nfev, njev, nlu : int
        solve_ivp's names for n_rhs, n_jac, n_lin_setups.
    flag, flag_name : int, str
        Why the run stopped short: CVODE's return flag of the last call (e.g. ``CV_TOO_MUCH_WORK``)
        or nonholo's own name of the cause (e.g. ``FRAME_SINGULAR``); 0 and ``""`` for a run that
        reached its end or a terminal event.
    t_last : float
        The last time reached.
    y_final : ndarray, shape (n_states,), or None
        The state at ``t_last`` when the output holds it: the last sample of a run that stores
        every step, and the only state a run with ``t_eval=[]`` returns (as solve_ivp, it has no
        samples); None when the last sample of ``t_eval`` is before ``t_last``.
    sol : DenseSolution or None
        The run's interpolant, ``sol(t)`` the state at any t in t_span, when ``simulate`` was given
        ``dense_output=True``; None otherwise (there is nothing to call: run again with
        ``dense_output=True``, or pass the times wanted as ``t_eval``), and for a run that failed before
        its first step (``status`` -1, the message says why: there is no step to interpolate).
    warnings : list of str
        What the run found questionable without failing, each also a SimulationWarning: a reduced
        model used outside the range where its expansion in eps is valid (``validity``).
    messages : list of str
        Messages SUNDIALS emitted during the run.
    state_names : list of str
        Names of the rows of ``y``: ``[q, v]`` (``[q, v, lambda]`` vakonomic, ``[q, u]`` reduced).
    params : dict
        The parameter values used.

    Notes
    -----
    Access a state by name with ``sol["phi"]``; export time-major with :meth:`to_dataframe`
    (pandas) and :meth:`to_xarray`; plot with :meth:`plot`. In Jupyter the result displays as a
    summary that leads with status and message (``_repr_html_``).
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
        self.y_final = raw.get("y_final")
        self._y_last = raw.get("y_last")  # the state at t_last (also between samples): the failure diagnosis
        # step ends kept beside the samples of t_eval (solver option step_trail): the validity check's
        self._trail = (raw["trail_t"], raw["trail_y"]) if "trail_t" in raw else None
        if self.y_final is None and self.t.size and self.t[-1] == self.t_last:
            self.y_final = self.y[:, -1]
        self.warnings: list = []
        self.validity = None  # a reduced model's ValidityEstimate (nonholo.models.validity)
        self.model = model
        self.params = dict(params)
        self.state_names = list(model.state_names)
        self.sol = None
        # what ran: "dop853", "bdf", "adams", or "dop853->bdf at t=..." / "adams->bdf at t=..." (auto's
        # switch when the run turned stiff); method_reason says why (set by simulate and simulate_many)
        self.method = raw.get("method") or None
        self.method_reason = ""
        self._frame_switches, self.frame_switches = _frame_switches(raw, model, self.t)
        if getattr(model, "frame", None) is not None:  # a model in quasi-velocities of a frame
            self.stats["n_frame_switches"] = len(self.frame_switches)
        self.sensitivities = self.t_events_sensitivities = self.y_events_sensitivities = None
        self.sensitivities_final = None
        self.sensitivity_names: list = []
        if raw.get("dense") is not None:
            from .dense import DenseSolution

            self.sol = DenseSolution(raw["dense"], raw["y"].shape[0], self.t_last)

    @property
    def success(self) -> bool:
        """``status >= 0``: the end of the interval or a terminal event was reached."""
        return self.status >= 0

    @property
    def nfev(self) -> int:
        """Number of right-hand-side evaluations (solve_ivp's name for ``stats["n_rhs"]``)."""
        return self.stats["n_rhs"]

    @property
    def njev(self) -> int:
        """Number of Jacobian evaluations (``stats["n_jac"]``)."""
        return self.stats["n_jac"]

    @property
    def nlu(self) -> int:
        """Number of linear-solver setups (LU factorizations; ``stats["n_lin_setups"]``)."""
        return self.stats["n_lin_setups"]

    @property
    def q(self) -> np.ndarray:
        """The coordinates q, the first n rows of ``y``: shape (n, n_t), a view."""
        return self.y[: self.model.system.n]

    @property
    def v(self) -> np.ndarray:
        """The velocity part of the state: v (n, n_t); u = P v + v_b for reduced models (also
        in the frame form, u = X_D w); the quasi-velocities v^alpha (m, n_t) for models in an
        anholonomic frame, each in the split of its time (``frame_switches``; the physical
        X_D v^alpha is :attr:`velocity`)."""
        n = self.model.system.n
        if getattr(self.model, "velocities", None) == "frame":  # reduced model in a frame: u = X_D(q) w
            return self._frame_u
        return self.y[n : n + getattr(self.model, "n_velocities", n)]

    @property
    def _frame_u(self) -> np.ndarray:
        """u = X_D(q) w of a frame-form reduced run, each sample in the split of its time."""
        def compute():
            p = self.model.param_vector(self.params)
            return _by_sample(lambda t, y: self.model.frame_velocities(t, np.ascontiguousarray(y.T), p,
                                                                       self._frame_switches).T,
                              self.t, self.y, self.model.system.n)

        return self._of_samples("_frame_u", compute)

    def _of_samples(self, key: str, compute):
        """A quantity of the samples, computed once and kept while ``t`` and ``y`` hold the values it
        was computed from: after an edit of ``result.y`` in place (or a new ``y``) it is computed
        again, so that every output sees the samples as they are. The check compares copies
        (``_unchanged``), a small part of the computation."""
        cache = self.__dict__.setdefault("_samples_cache", {})
        kept = cache.get(key)
        if kept is not None and _unchanged(kept[0], self.t) and _unchanged(kept[1], self.y):
            return kept[2]
        value = compute()
        cache[key] = (np.array(self.t, copy=True), np.array(self.y, copy=True), value)
        return value

    def split_at(self, t) -> list:
        """Models in quasi-velocities of a Voronets frame (the frame form of a reduced model,
        ``frame.hamel()``, ``frame.vakonomic()``): the names of the coordinates solved for at
        time t (``frame_switches``), a time of the run (from its start, ``t[0]`` or ``sol``'s, to
        ``t_last``: ValueError otherwise); the velocity rows of ``y`` and of ``sol(t)`` are the
        velocities of the others."""
        names = self.model.system.coordinate_names
        frame = getattr(self.model, "frame", None)
        if frame is None or frame.solved is None or frame.form != "numeric":
            raise ValueError("split_at: only for a model in quasi-velocities of a numeric Voronets frame (the "
                             "frame form of a reduced model, frame.hamel(), frame.vakonomic())")
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, (numbers.Real, np.floating, np.integer)):
            raise TypeError(f"t must be a real number (a time of the run), got {type(t).__name__}")
        ends = [float(x) for x in ([self.sol.t_min, self.sol.t_max] if self.sol is not None else
                                   [*self.t[:1], self.t_last])]
        if not min(ends) <= float(t) <= max(ends):  # NaN too
            raise ValueError(f"t must be a time of the run, in [{min(ends)!r}, {max(ends)!r}], got {t!r}")
        index = 0 if self._frame_switches is None else int(self._frame_switches.index([float(t)])[0])
        solved = self.model.frame.core.solved if index == 0 else self._frame_switches.solved[index - 1]
        return [names[i] for i in solved]

    @property
    def truncation(self):
        """For a reduced model of order "auto": the chosen order and the rule that chose it
        (:class:`nonholo.models.reduced.Truncation`); None otherwise."""
        return getattr(self.model, "truncation", None)

    @property
    def velocity(self) -> np.ndarray:
        """The physical velocity q' at every output time, shape (n, n_t): ``v`` for the
        nonholonomic, vakonomic and friction models; for a reduced model of order K,
        u + sum_{k<=K} eps^k h^(k)(t, q, u) (its state holds u = P v + v_b, or w with
        u = X_D(q) w in the frame form); X_D(q) v^alpha for frame models (both through each
        sample's split, ``frame_switches``). Computed by the model in C++ over the whole
        trajectory, once while ``y`` is not edited (an edit in place is seen: it is computed again)."""
        splits = {} if self._frame_switches is None else {"switches": self._frame_switches}
        return self._of_samples("velocity", lambda: _unresolved_speeds(self, _by_sample(
            lambda t, y: self.model.velocity(t, y, self.params, **splits), self.t, self.y, self.model.system.n)))

    @property
    def friction_ratio(self) -> np.ndarray:
        """A run of the reduced model of a nonlinear friction law: the friction ratio of each contact at
        every output time, shape (n_contacts, n_t) (``model.friction_ratio``). The run's own values
        while ``y`` is not edited; after an edit in place (or a new ``y``) computed again by the model,
        as :attr:`velocity` is. Other runs have none (AttributeError)."""
        cache = self.__dict__.get("_samples_cache", {})
        if "friction_ratio" not in cache:
            raise AttributeError(f"{type(self).__name__} of a {getattr(self.model, 'kind', 'model')} model has no "
                                 "friction_ratio (a run of system.reduced(order=K, law=...) has one)")
        return self._of_samples("friction_ratio", lambda: self.model.friction_ratio(self.t, self.y, self.params))

    @friction_ratio.setter
    def friction_ratio(self, value) -> None:
        """The ratio at the samples as they are now (the run's, set by it): kept until ``y`` is edited."""
        self.__dict__.setdefault("_samples_cache", {})["friction_ratio"] = (
            np.array(self.t, copy=True), np.array(self.y, copy=True), value)

    def __getitem__(self, name: str) -> np.ndarray:
        """The trajectory of one state by name, e.g. ``sol["phi"]``: a row of ``y``, shape (n_t,).
        For reduced models and models in an anholonomic frame the system's velocity names give
        the physical velocity (a row of :attr:`velocity`).

        Derived quantities of the system (``system.outputs``, e.g. ``"roll"``) are computed on
        demand, and so are the contact quantities ``"slip"``, ``"friction_force"`` and
        ``"normal_force"`` of a system with constraint rows (:mod:`nonholo.system.contact_outputs`).
        Raises KeyError naming the states when there is no state or output of that name (for
        ``"friction_ratio"``, a rolling body's output, the normal load it divides by and how to give
        it), and TypeError for a key that is no name (a slice or an index: the samples are ``y[:, i]``)."""
        if getattr(name, "is_Symbol", False):  # a SymPy symbol of a coordinate: its name
            name = name.name
        if not isinstance(name, str):
            names = ", ".join(repr(x) for x in self.state_names[:4])
            raise TypeError(f"results are indexed by the name of a state or output, such as {names} (states are "
                            f"{self.state_names}), got {type(name).__name__} {name!r:.60}; for samples by position "
                            "use result.y[:, i] and result.t[i]")
        if name in self.state_names:
            return self.y[self.state_names.index(name)]
        if ((getattr(self.model, "kind", None) == "reduced" or getattr(self.model, "frame", None) is not None)
                and name in self.model.system.velocity_names):
            return self.velocity[self.model.system.velocity_names.index(name)]
        outputs = self.model.system.outputs
        if name in outputs:
            if getattr(outputs[name], "needs_multipliers", False):  # forces of the constraints (normal forces)
                return self._constraint_output(outputs[name])
            if getattr(outputs[name], "needs_acceleration", False):  # forces from the motion (contact forces)
                return np.asarray(outputs[name](self.q, self.velocity, self._system_params(), self.acceleration()),
                                  dtype=float)
            if getattr(outputs[name], "needs_time", False):
                return np.asarray(outputs[name](self.q, self.velocity, self._system_params(), t=self.t), dtype=float)
            return np.asarray(outputs[name](self.q, self.velocity, self._system_params()), dtype=float)
        if name in CONTACT_QUANTITIES and self.model.system.k:  # slip and contact forces of any constrained system
            return contact_quantity(self, name)
        if name in LOAD_QUANTITIES and (self.model.system.k or "friction_force" in outputs):  # a rolling body's
            loads = getattr(self.model, "contact_loads", None) or getattr(self.model.system, "contact_loads", None)
            given = "given" if loads and all(N is not None for N in loads) else \
                "derived" if "normal_force" in outputs else None
            raise KeyError(missing_load_quantity(self.model.system, name, given))
        known = f"; outputs are {list(outputs)}" if outputs else ""
        raise KeyError(f"no state named {name!r}; states are {self.state_names}{known}")

    def _ipython_key_completions_(self) -> list:
        """The names ``result[...]`` takes, for completion in IPython and Jupyter (``result["`` then Tab):
        the states, the physical velocities of a model in a frame or reduced, the system's outputs and
        the contact quantities of a system with constraint rows."""
        names = list(self.state_names)
        system = self.model.system
        if getattr(self.model, "kind", None) == "reduced" or getattr(self.model, "frame", None) is not None:
            names += [v for v in system.velocity_names if v not in names]
        names += [o for o in system.outputs if o not in names]
        if system.k:
            loads = getattr(self.model, "contact_loads", None)  # normal_force: the loads a law was given
            given = loads is not None and all(N is not None for N in loads)
            names += [c for c in CONTACT_QUANTITIES if c not in names and (c != "normal_force" or given)]
        return names

    def acceleration(self) -> np.ndarray:
        """The physical acceleration q'' at every output time, shape (n, n_t): from the model's
        right-hand side for a model whose state starts with [q, v] (the nonholonomic, friction and
        vakonomic models: [q, v, lambda]); for other models from the nonholonomic model at (q, q')
        (exact for the Hamel model, within O(eps) of the friction model for reduced ones); for the
        vakonomic model in a frame (``frame.vakonomic()``, whose motion is not the nonholonomic
        one) from ``system.vakonomic()`` at the same state in coordinates."""
        system, n = self.model.system, self.model.system.n
        own = list(self.model.state_names[: 2 * n]) == [*system.coordinate_names, *system.velocity_names]
        if own:
            model, params, Y = self.model, self.params, self.y
        elif self.model.kind == "frame_vakonomic":
            model, params, Y = system.vakonomic(), self._system_params(), self._vakonomic_states()
        else:
            model, params = system.nonholonomic(form="qdot"), self._system_params()
            Y = np.vstack([self.q, self.velocity])
        return np.array([model.rhs(t, Y[:, i], params)[n: 2 * n] for i, t in enumerate(self.t)]).T.reshape(n, -1)

    def _vakonomic_states(self) -> np.ndarray:
        """The states [q, v, lambda] of ``system.vakonomic()`` of a frame-vakonomic run, shape
        (2n + k, n_t): v = X_D(q) w, and lambda from mu_a theta^a = lambda^T A (theta^a the
        constraint rows of X^-1): lambda = A_s^-T mu in the sample's split s of a Voronets frame."""
        system, frame = self.model.system, self.model.frame
        n, m, k = system.n, frame.rank, system.k
        p = system.param_vector(self._system_params())
        splits = [frame.solved, *(self._frame_switches.solved if self._frame_switches is not None else [])]
        index = self._frame_switches.index(self.t) if self._frame_switches is not None else np.zeros(self.t.size, int)
        q, v, lam = self.q, self.velocity, np.empty((k, self.t.size))
        for i, t in enumerate(self.t):
            A = np.asarray(system.core.at(float(t), q[:, i], v[:, i], p).constraint_matrix(), dtype=float)
            mu = self.y[n + m: n + m + k, i]
            if splits[0] is not None:
                lam[:, i] = np.linalg.solve(A[:, list(splits[index[i]])].T, mu)
            else:
                theta_c = np.linalg.inv(frame.matrix(q[:, i], self._system_params()))[m:]
                lam[:, i] = np.linalg.lstsq(A.T, theta_c.T @ mu, rcond=None)[0]
        return np.vstack([q, v, lam])

    def _constraint_output(self, output) -> np.ndarray:
        """An output of the acceleration and the constraint force lambda of the run
        (:mod:`nonholo.system.normal_forces`)."""
        from ..system.normal_forces import constraint_forces

        system = self.model.system
        output.check_system(system)
        params = self._system_params()
        q, v, a = self.q, self.velocity, self.acceleration()
        lam = constraint_forces(system, q, v, self.t, system.param_vector(params), a)
        return np.asarray(output(q, v, params, a, t=self.t, multipliers=lam, system=system), dtype=float)

    def _system_params(self) -> dict:
        return {name: self.params[name] for name in self.model.system.parameter_names}

    def unit_norm_residual(self) -> np.ndarray:
        """max over the system's unit-norm groups (e.g. a quaternion) of ||q_g| - 1| at every
        output time, shape (n_t,); zeros when the system has none."""
        groups = self.model.system.unit_norm
        if not groups:
            return np.zeros(self.t.size)
        return np.max([np.abs(np.linalg.norm(self.q[g], axis=0) - 1.0) for g in groups], axis=0)

    def constraint_residual(self) -> np.ndarray:
        """|A v - b| / (|A| |v| + |b|) at every output time, shape (n_t,), with the physical velocity
        v (:attr:`velocity`): a constrained model's drift, and the relative slip of a friction
        model's run (the linear law's or a law's, against the rows it realizes) and of a reduced
        model's (whose state's u lies on the constraint set, and v = u + s does not)."""
        system = self.model.system
        realizes = getattr(system, "realizes", None)  # a friction law's model: the rows it realizes
        if realizes is not None and realizes.n == system.n:
            system = realizes
        elif self.model.kind not in ("friction", "reduced") or not system.k:
            return self.model.constraint_residual(self.t, self.y, self.params)
        return rows_residual(system, self.t, self.q, self.velocity, self.params)

    def energy(self) -> np.ndarray:
        """1/2 q'^T G q' + V at every output time, shape (n_t,), with the physical velocity
        (:attr:`velocity`)."""
        return self.model.energy(self.t, self.y, self.params, velocity=self.velocity)

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
        # what an analysis that returns a run adds to it (nh.vakonomic_bvp: the geodesic's length ...)
        extras = [f"{name} {self.__dict__[name]:.10g}" for name in ("length", "action", "endpoint_error", "iterations")
                  if name in self.__dict__]
        if extras:
            lines.append(f" shooting: {', '.join(extras)}")
        if self.warnings:
            lines.append(warnings_line(self.warnings))
        if self.frame_switches:
            lines.append(f"   frames: re-split {len(self.frame_switches)} times, first at t = "
                         f"{self.frame_switches[0][0]:g} (frame_switches)")
        return f"{type(self).__name__}(\n" + "\n".join(lines) + "\n)"

    # ------------------------------------------------------------------ export and display
    def _metadata(self) -> dict:
        """Scalar metadata (strings and numbers only, so that netCDF and parquet can store it)."""
        return result_metadata(self)

    def to_dataframe(self):
        """The trajectory as a time-major ``pandas.DataFrame``.

        Returns
        -------
        pandas.DataFrame, shape (n_t, n_states)
            Index ``t`` (the output times), one column per state named as ``state_names``
            (``[q, v]``, ``[q, v, lambda]`` for vakonomic models), values ``y.T`` (a copy).
            ``df.attrs`` holds status, message, model and the parameters (``param_<name>``).
            Needs pandas (``pip install "nonholo[xarray]"``).
        """
        return to_dataframe(self.t, self.y, self.state_names, self._metadata())

    def to_xarray(self):
        """The trajectory as a time-major ``xarray.DataArray``.

        Returns
        -------
        xarray.DataArray, shape (n_t, n_states)
            Dimensions ``("t", "state")`` with coordinates ``t`` (the output times) and ``state``
            (``state_names``), values ``y.T`` (a copy), name ``"y"``. ``attrs`` holds status,
            message, model and the parameters (``param_<name>``), all netCDF-compatible.
            ``da.sel(state="phi")`` is ``sol["phi"]``; ``da.to_dataset("state")`` gives one
            variable per state. Needs xarray (``pip install "nonholo[xarray]"``).
        """
        return to_xarray(self.t, self.y, self.state_names, self._metadata())

    def animate(self, drawing=None, *, frames: int = 60, fps: float = 20.0, trace: bool = True, ax=None,
                figsize=(5.0, 5.0)):
        """The motion as a matplotlib animation, shown inline in Jupyter (HTML/JavaScript player).

        Parameters
        ----------
        drawing : nonholo.drawing.Drawing or callable (q, t, params) -> list of shapes, optional
            How a configuration is drawn; default: the system's own (``system.drawing``; every
            built-in system has one), or a body frame from ``system.pose`` when it has one.
        frames : int
            Frames at this many times spread evenly over the run (first and last output included):
            the run's dense solution ``sol`` there when it has one (``dense_output=True``), else
            the nearest output time of each (at most this many frames, each output once; every
            output when there are no more); pass a dense ``t_eval`` to ``simulate`` for a smooth
            animation. A failed run says so in the title, with its flag and ``t_last``.
        fps : float
            Frames per second when played or saved.
        trace : bool
            Draw the paths of the drawing's traced points (contact points) as they move.
        ax : matplotlib Axes, optional
            Draw there (3-D axes for a spatial drawing); default: a new figure.

        Returns
        -------
        nonholo.viz.animation.Animation
            A ``matplotlib.animation.FuncAnimation`` with ``n_frames`` and the frame times ``t``;
            ``save("motion.gif")`` (pillow) or ``save("motion.mp4")`` (ffmpeg) writes it.
        """
        from ..viz.animation import animate

        return animate(self, drawing, frames=frames, fps=fps, trace=trace, ax=ax, figsize=figsize)

    def plot(self, names=None, ax=None, **kwargs):
        """Plot states against time (matplotlib, imported lazily).

        Parameters
        ----------
        names : sequence of str, optional
            States (names from ``state_names``) or outputs (``system.outputs``, ``"slip"``,
            ``"normal_force"``, ...) to plot on one set of axes. Default: one panel
            for the coordinates q, one for the velocity states v (u for reduced models, the
            quasi-velocities for frame models) and, if any, one for the remaining states
            (the vakonomic multipliers lambda).
        ax : matplotlib Axes, optional
            Axes to draw ``names`` on (default: a new figure).
        **kwargs
            Passed to ``Axes.plot``.

        Returns
        -------
        matplotlib Axes or list of matplotlib Axes
            The axes drawn on: a list of them for the default panels.

        Notes
        -----
        A failed run is plotted up to ``t_last`` with the solver's flag in the title. An output
        with one row per contact (``"normal_force"``, ``"slip"`` of several contacts) draws one
        line per contact, labelled with the contact. A run that stored no samples
        (``t_eval=[]``) says so in the title and marks its final state ``y_final`` at ``t_last``.
        The re-splits of a model in quasi-velocities of a frame (``frame_switches``) are marked
        by dashed vertical lines: the velocity states change meaning there.
        """
        _optional("matplotlib.pyplot", "plot", extra="plot")
        from ..viz.plot import result_panels

        return result_panels(self, names, ax, **kwargs)

    def _repr_html_(self) -> str:
        ok = self.success
        colour = "#1a7f37" if ok else "#b00000"
        verdict = "success" if ok else "failure"
        head = (f"<p><b>{type(self).__name__}</b>: <b style='color:{colour}'>{verdict}</b> (status {self.status}"
                f"{', ' + html.escape(self.flag_name) if self.flag_name and not ok else ''})<br>"
                f"{html.escape(str(self.message))}</p>")
        for text in warnings_html(self.warnings):  # a success the run warned about is shown with its warning
            head += f"<p style='color:#9a6700'><b>warning</b>: {text}</p>"
        rows = []
        if self.t.size:
            rows.append(("t", f"{self.t.size} times in [{self.t[0]:g}, {self.t[-1]:g}]"))
        rows.append(("y", f"shape {self.y.shape}: {', '.join(self.state_names)}"))
        model = _model_label(self.model)
        order = getattr(self.model, "order", None)
        rows.append(("model", model + (f" of order {order}" if order is not None else "")))
        if self.method:
            rows.append(("method", self.method + (f" ({self.method_reason})" if self.method_reason else "")))
        if self.sensitivity_names:
            rows.append(("sensitivities", ", ".join(map(str, self.sensitivity_names))))
        if self.params:
            rows.append(("params", ", ".join(f"{k}={number_text(v)}" for k, v in self.params.items())))
        if self.t_events:
            rows.append(("events", ", ".join(str(len(te)) for te in self.t_events) + " occurrences"))
        for key, value in self.stats.items():
            if key == "cpu_time":
                text = f"{value * 1e3:.3g} ms"
            elif isinstance(value, float):
                text = f"{value:.3g}"
            else:
                text = str(value)
            rows.append((key, text))
        table = "".join(f"<tr><td style='text-align:left'>{html.escape(k)}</td>"
                        f"<td style='text-align:left'>{html.escape(v)}</td></tr>" for k, v in rows)
        return f"<div>{head}<table>{table}</table></div>"


def _frame_switches(raw: dict, model, t: np.ndarray) -> tuple:
    """(FrameSwitches or None, [(t, solved names), ...]) from a run's re-splits of its frame."""
    times = list(raw.get("frame_switch_t") or [])
    if not times:
        return None, []
    from ..models.model import FrameSwitches  # the model layer, below the results

    solved = [list(s) for s in raw["frame_switch_solved"]]
    names = model.system.coordinate_names
    t0, t_last = float(t[0]) if len(t) else times[0], float(raw["t_last"])
    switches = FrameSwitches(np.asarray(times, dtype=float), solved, forward=t_last >= t0)
    return switches, [(float(ts), [names[i] for i in s]) for ts, s in zip(times, solved)]


def _unchanged(kept: np.ndarray, now) -> bool:
    """``now`` holds bit for bit the values ``kept`` (NaN too: compared as integers, 0.1 ms for 5 MB)."""
    now = np.asarray(now)
    if kept.shape != now.shape or kept.dtype != now.dtype:
        return False
    if kept.dtype.itemsize == 8:
        return np.array_equal(kept.view(np.uint64), now.view(np.uint64))
    return np.array_equal(kept, now)


def rows_residual(system, t, q, velocity, params: dict) -> np.ndarray:
    """|A v - b| / (|A| |v| + |b|) of ``system``'s constraint rows at the samples (t, q, v): the relative
    slip of a run whose model does not hold them (a friction or reduced model's, a stick-slip run's)."""
    params = {k: v for k, v in params.items() if k in system.parameter_names}
    return system.nonholonomic(form="qdot").constraint_residual(t, np.vstack([q, velocity]), params)


#: The warnings a result's notebook display shows in full; the rest are counted (``result.warnings``).
WARNINGS_SHOWN = 3


def warnings_line(warnings: list) -> str:
    """The repr's line of a run's warnings: how many, and the first."""
    return f" warnings: {len(warnings)}, the first: {warnings[0]} (result.warnings)"


def warnings_html(warnings: list) -> list:
    """A run's warnings for its notebook display, escaped: the first WARNINGS_SHOWN, then how many more."""
    shown = [html.escape(str(text)) for text in warnings[:WARNINGS_SHOWN]]
    if len(warnings) > WARNINGS_SHOWN:
        shown.append(f"... and {len(warnings) - WARNINGS_SHOWN} more (result.warnings)")
    return shown


def result_metadata(result) -> dict:
    """A result's scalar metadata (strings and numbers only, so that netCDF and parquet can store it):
    status, message, flag, last time, model, system, the run's warnings (one string, a line each), the
    model's order and the scalar parameters; of a SimulationResult and a StickSlipResult alike."""
    model = result.model
    meta = {
        "status": result.status, "success": int(result.success), "message": result.message,
        "flag_name": result.flag_name, "t_last": float(result.t_last),
        "model": _model_label(model) if model is not None else "",
        "system": getattr(getattr(model, "system", None), "name", ""),
    }
    if getattr(result, "warnings", None):
        meta["warnings"] = "\n".join(map(str, result.warnings))  # one string: netCDF stores no lists
    order = getattr(model, "order", None)
    if order is not None:
        meta["order"] = int(order)
    meta.update({f"param_{name}": float(value) for name, value in result.params.items() if np.ndim(value) == 0})
    return meta


def to_dataframe(t, y, state_names, metadata: dict):
    """The samples (t, y) as a time-major DataFrame (SimulationResult.to_dataframe)."""
    pd = _optional("pandas", "to_dataframe")
    df = pd.DataFrame(np.array(y.T, dtype=float), index=pd.Index(np.array(t, dtype=float), name="t"),
                      columns=list(state_names))
    df.columns.name = "state"
    df.attrs.update(metadata)
    return df


def to_xarray(t, y, state_names, metadata: dict):
    """The samples (t, y) as a time-major DataArray (SimulationResult.to_xarray)."""
    xr = _optional("xarray", "to_xarray")
    return xr.DataArray(np.array(y.T, dtype=float), dims=("t", "state"),
                        coords={"t": np.array(t, dtype=float), "state": list(state_names)}, name="y", attrs=metadata)


def _model_label(model) -> str:
    """The model's ``label`` (a law's model says which law), else its ``kind`` (no matplotlib import)."""
    from ..viz.plot import model_label

    return model_label(model)


def _optional(module: str, what: str, extra: str = "xarray"):
    """Import an optional dependency, or raise ImportError saying how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        raise ImportError(f"{what}() needs {top}: pip install {top} (or pip install \"nonholo[{extra}]\")") from exc


def method_reason(requested: str, ran: str | None, model) -> str:
    """Why ``ran`` ran (``result.method_reason``): the choice of method="auto" (nh.simulate's
    docstring), or the caller's."""
    if not ran:
        return ""
    if requested.lower() != "auto":
        return f"method={requested!r} as requested"
    if getattr(model, "kind", "") == "reduced":
        return ("auto on a reduced model: DOP853 at a tenth of rtol and atol when its right-hand side is cheap against "
                "Adams' per-step overhead and the run has no sensitivities, Adams otherwise; "
                "with drift control")
    if ran.startswith("dop853->bdf"):
        return "auto: DOP853 on a model that is not stiff, until Hairer's test found the run stiff, then BDF"
    if ran == "dop853":
        return ("auto: the model is not stiff and the run has no sensitivities: DOP853 at a "
                "tenth of rtol and atol, with drift control after its steps")
    if ran.startswith("adams->bdf"):
        return "auto: Adams (the run has sensitivities) until the run turned stiff, then BDF"
    if ran == "adams":
        return "auto: the model is not stiff and the run has sensitivities: Adams, with drift control"
    if getattr(model, "stiff", False):
        return "auto: the model is stiff (friction or stiff forces): BDF with the exact Jacobian"
    return ("auto: BDF, which projects onto the constraints (sensitivities of a constrained model, or unit-norm "
            "groups with sensitivities)")


#: Above this |C| |C_dep^-1| (3 to 5 on the Whipple bicycle) a sample's dependent speeds are told to be less
#: accurate than its states (an outside probe's skate 1e-5 from its singular set: energy off by 2e-4, u1 by 2.5e-9).
AMPLIFIED_CONDITION = 1e3


def _unresolved_speeds(result, V: np.ndarray) -> np.ndarray:
    """``V`` (n, n_t), NaN at the samples of a run in Kane's speeds where C_dep's condition number
    exceeds the limit a run stops at, with a SimulationWarning naming them: the dependent speeds
    there amplify the samples' integration error by it (an outside probe's skate, u2 = tan(theta) u1 at
    theta - pi/2 = 4e-16 gave u2 = 12603 for 1, silently; at 1.6e-9, 0.9969). Samples whose condition
    number is above AMPLIFIED_CONDITION but below that limit keep their values, with a warning."""
    import warnings

    from ..errors import SimulationWarning
    from ..models.reduced import SINGULAR_CONDITION

    speeds = getattr(getattr(result.model, "frame", None), "dependent_speeds", None)
    if speeds is None or not speeds.k or not result.t.size:
        return V
    system = result.model.system
    p = np.asarray(result.model.param_vector(result.params), dtype=float)[: len(system.parameters)]
    values = np.vstack([result.y[: system.n], np.repeat(p[:, None], result.t.size, axis=1)])
    cond = speeds.dependent_condition([*system.coordinates, *system.parameters])(values)
    bad = np.flatnonzero(~(cond <= SINGULAR_CONDITION) & np.isfinite(V).all(axis=0))
    loose = np.flatnonzero((cond > AMPLIFIED_CONDITION) & (cond <= SINGULAR_CONDITION))
    if loose.size:
        at = _times(result.t[loose])
        warnings.warn(f"the velocity at {loose.size} of the {result.t.size} samples (t = {at}) is less accurate than "
                      f"the states: Kane's dependent speeds are solved there from C_dep with |C| |C_dep^-1| up to "
                      f"{float(np.max(cond[loose])):.3g}, which amplifies the samples' integration error (about rtol) "
                      "by as much (the coordinate model, state='qdot', has no such loss)", SimulationWarning,
                      stacklevel=4)
    if bad.size:
        V = V.copy()
        V[:, bad] = np.nan
        at = _times(result.t[bad])
        warnings.warn(f"the velocity is not resolved at {bad.size} of the {result.t.size} samples (t = {at}): "
                      f"Kane's dependent speeds are solved there from a nearly singular C_dep, |C| |C_dep^-1| up "
                      f"to {float(np.max(cond[bad])):.3g} (a run stops above {SINGULAR_CONDITION:g}), which "
                      "amplifies the samples' integration error by as much; NaN there (the coordinate model, "
                      "state='qdot', has none)", SimulationWarning, stacklevel=4)
    return V


def _times(times) -> str:
    """The first five of ``times``, for a message."""
    return ", ".join(f"{ti:.6g}" for ti in times[:5]) + (" ..." if len(times) > 5 else "")


def _by_sample(compute, t: np.ndarray, y: np.ndarray, rows: int) -> np.ndarray:
    """``compute(t, y)`` (rows, n_t) over the samples at once; where it raises ModelError at some sample
    (a state on a singular set of Kane's dependent speeds, reached by one output sample of a run that
    crossed it: an outside probe's snakeboard at a steering angle of -7e-17), sample by sample, NaN
    at the samples it cannot compute, with a SimulationWarning naming them (the whole run's velocities,
    energy and outputs were lost)."""
    import warnings

    from ..errors import ModelError, SimulationWarning

    try:
        return compute(t, y)
    except ModelError:
        if t.size <= 1:
            raise
    out, failed = np.full((rows, t.size), np.nan), []
    for i in range(t.size):
        try:
            out[:, i] = np.asarray(compute(t[i:i + 1], y[:, i:i + 1]), dtype=float).reshape(rows)
        except ModelError as err:
            failed.append((float(t[i]), str(err)))
    if failed:
        at = _times([ti for ti, _ in failed])
        warnings.warn(f"the velocity cannot be computed at {len(failed)} of the {t.size} samples (t = {at}): "
                      f"{failed[0][1]}; NaN there", SimulationWarning, stacklevel=4)
    return out
