"""Benchmark: the cost of forward sensitivities for 3 parameters of the friction sleigh.

The friction sleigh (eps = 1e-2, t in [0, 10], 101 outputs, rtol 1e-8, atol 1e-10) and the
derivatives of its trajectory with respect to (a, mu, eps), four ways in one run:

- plain: ``nh.simulate`` without sensitivities (the reference cost, 1x);
- sensitivities: ``nh.simulate(..., sensitivities=["a", "mu", "eps"])`` (CVODES, staggered
  corrector, sensitivity right-hand sides by dual numbers through the compiled tapes);
- finite differences: 6 extra plain runs (central differences), the cost the sensitivities
  replace;
- CasADi (when installed): its CVODES plugin on the same equations (built from the system's
  SymPy expressions with CasADi's own AD), plain and with the 3 forward sensitivities (the
  Jacobian of the outputs with respect to the parameters).

Agreement is checked before timing: nonholo's sensitivities against CasADi's and against the
differences. Each configuration is timed ``--repeats`` times, interleaved; the table gives
medians and the ratio to the plain nonholo run (target: sensitivities <= 4x).

Usage: python benchmarks/sensitivities.py [--quick] [--markdown PATH]
"""

from __future__ import annotations

import statistics
import time

import numpy as np
import sympy as sp

import nonholo as nh
from cli import emit, repeats_and_output

EPS = 1e-2
T_EVAL = np.linspace(0.0, 10.0, 101)
Y0 = np.array([0.0, 0.0, 0.0, -1.5, 0.1, 1.0])
PARAMS = ["a", "mu", "eps"]
TOL = dict(rtol=1e-8, atol=1e-10)
TARGET = 4.0


def nonholo_runs(model):
    plain = lambda: nh.simulate(model, (0, 10), Y0, t_eval=T_EVAL, **TOL).y  # noqa: E731
    sens = lambda: nh.simulate(model, (0, 10), Y0, t_eval=T_EVAL, sensitivities=PARAMS, **TOL).sensitivities  # noqa: E731

    def differences():
        base = model.params
        cols = []
        for name in PARAMS:
            h = 1e-5 * abs(base[name])
            up = nh.simulate(model, (0, 10), Y0, t_eval=T_EVAL, params={name: base[name] + h}, **TOL).y
            down = nh.simulate(model, (0, 10), Y0, t_eval=T_EVAL, params={name: base[name] - h}, **TOL).y
            cols.append((up - down) / (2 * h))
        return np.stack(cols, axis=1)

    return plain, sens, differences


def casadi_runs(system, model):
    """The friction model q' = v, G v' = -c(q, v) - (1/eps) A^T mu (A v) (no potential, no
    force, b = 0 for the sleigh), with c from the Lagrangian L = 1/2 v^T G v by CasADi's AD:
    c = (dG/dt) v - 1/2 d/dq (v^T G v)."""
    import casadi as ca

    n = system.n
    q, v = ca.SX.sym("q", n), ca.SX.sym("v", n)
    names = [*system.parameter_names, "eps"]
    p = ca.SX.sym("p", len(names))
    subs = {s: p[i] for i, s in enumerate(system.parameters)}
    subs.update({s: q[i] for i, s in enumerate(system.coordinates)})
    to_ca = lambda e: ca.vertcat(*[ca.horzcat(*[sp.lambdify(list(subs), e[i, j], modules=[{"sin": ca.sin, "cos": ca.cos}])(*subs.values())  # noqa: E731,E501
                                                   for j in range(e.shape[1])]) for i in range(e.shape[0])])
    G, A, mu = to_ca(system.metric), to_ca(system.constraints), to_ca(system.friction_coefficients)
    eps = p[len(names) - 1]
    Gv = ca.mtimes(G, v)
    c = ca.mtimes(ca.jacobian(Gv, q), v) - 0.5 * ca.gradient(ca.dot(v, Gv), q)
    vdot = ca.solve(G, -c - ca.mtimes(A.T, ca.mtimes(mu, ca.mtimes(A, v))) / eps)
    dae = {"x": ca.vertcat(q, v), "p": p, "ode": ca.vertcat(v, vdot)}
    opts = dict(abstol=TOL["atol"], reltol=TOL["rtol"], max_num_steps=500000)
    F = ca.integrator("F", "cvodes", dae, 0.0, T_EVAL[1:], opts)
    p_val = np.array([model.params[nm] for nm in names])
    which = [names.index(nm) for nm in PARAMS]
    xf = ca.MX.sym("x0", 2 * n)
    pp = ca.MX.sym("p", len(names))
    traj = F(x0=xf, p=pp)["xf"]
    J = ca.Function("J", [xf, pp], [ca.jacobian(ca.vec(traj), pp)])
    plain = lambda: np.asarray(F(x0=Y0, p=p_val)["xf"])  # noqa: E731

    def sens():
        jac = np.asarray(J(Y0, p_val))[:, which]  # (n_states * n_t, 3), column-major vec
        return jac.reshape(len(T_EVAL) - 1, 2 * n, len(which)).transpose(1, 2, 0)

    return plain, sens


def timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def main(argv=None):
    repeats, markdown = repeats_and_output(__doc__, 15, argv)
    system = nh.systems.chaplygin_sleigh()
    model = system.friction(EPS)
    plain, sens, differences = nonholo_runs(model)
    configs = {"nonholo plain": plain, "nonholo sensitivities (3)": sens,
               "finite differences (6 extra runs)": differences}
    S = sens()
    fd_error = np.max(np.abs(S - differences())) / np.max(np.abs(S))
    lines = [f"Friction sleigh, eps = {EPS:g}, t in [0, 10], 101 outputs, rtol 1e-8, atol 1e-10; "
             f"sensitivities vs central differences: max relative error {fd_error:.1e}."]
    try:
        ca_plain, ca_sens = casadi_runs(system, model)
        ca_error = np.max(np.abs(S[:, :, 1:] - ca_sens())) / np.max(np.abs(S))
        traj_error = np.max(np.abs(plain()[:, 1:] - ca_plain()))
        lines.append(f"CasADi (CVODES plugin) agrees: trajectories to {traj_error:.1e}, sensitivities to "
                     f"{ca_error:.1e} "
                     "(relative).")
        configs["CasADi plain"] = ca_plain
        configs["CasADi sensitivities (3)"] = ca_sens
    except ImportError:
        lines.append("CasADi is not installed: its columns are omitted (pip install casadi).")
    times = {k: [] for k in configs}
    for fn in configs.values():
        fn()  # warm-up
    for _ in range(repeats):
        for k, fn in configs.items():
            times[k].append(timed(fn))
    base = statistics.median(times["nonholo plain"])
    lines += ["", "| configuration | median time (ms) | ratio to nonholo plain |", "|---|---|---|"]
    for k, ts in times.items():
        med = statistics.median(ts)
        lines.append(f"| {k} | {1e3 * med:.2f} | {med / base:.2f} |")
    ratio = statistics.median(times["nonholo sensitivities (3)"]) / base
    lines += ["", f"Sensitivities for 3 parameters cost {ratio:.2f}x the plain run (target <= {TARGET:g}x: "
              f"{'met' if ratio <= TARGET else 'not met'}); {repeats} interleaved repeats; the machine may be shared, "
              "so ratios within one run are meaningful, absolute times are not."]
    emit("\n".join(lines) + "\n", markdown)


if __name__ == "__main__":
    main()
