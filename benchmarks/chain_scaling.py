"""Benchmark: the knife-edge chain's set-up and cost per step against its size.

What is run
-----------
``nh.systems.knife_edge_chain(N)`` (N blades in a chain: n = N + 2 coordinates, N constraints,
dense G: every entry of the metric depends on the angles through cos(theta_j - theta_k)) for N in
``--sizes`` (default 16 32 64 128), from the state of benchmarks/peers.py, t in [0, 2], rtol 1e-8,
atol 1e-10 (as benchmarks/peers_large.py), ``sparse="auto"`` (the dense path: G is full), in the
nonholonomic model with DOP853 and the friction model (eps = 1e-4) with BDF.

What is timed
-------------
* set-up, in a fresh interpreter per sample (nonholo imported before the clock starts): building
  the System (SymPy to tapes), the nonholonomic model and its first right-hand side, the friction
  model and its first right-hand side, and the friction model's first Jacobian, which builds the
  derivative tapes (built lazily above 40 coordinates); median of ``--setup-repeats`` samples
  (default 3), interleaved over the sizes; the process's peak resident memory (median);
* per step: ``nh.simulate`` over t in [0, 2] divided by its steps (and right-hand sides), every
  (N, model) once per round after an untimed round, ``--repeats`` rounds (default 5), medians.

Exponents of cost ~ n^p are fitted by ``nonholo.testing.loglog_slope`` over the sizes run (the
issue's target: at most 2.5 per step). The helpers are benchmarks/platoon_scaling.py's.

Run: ``PYTHONPATH=python python3 benchmarks/chain_scaling.py [--sizes 16 32 64 128] [--json PATH]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import platoon_scaling as ps  # noqa: E402
from cli import Output, add_output_options, emit, script_options  # noqa: E402

EPS, RTOL, ATOL = 1e-4, 1e-8, 1e-10
OPTIONS = {"nonholonomic": dict(method="dop853", rtol=RTOL, atol=ATOL),
           "friction": dict(method="bdf", rtol=RTOL, atol=ATOL)}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 32, 64, 128])
    parser.add_argument("--repeats", type=int, default=5, help="interleaved rounds of the runs")
    parser.add_argument("--setup-repeats", type=int, default=3, help="fresh-process samples of the set-up")
    add_output_options(parser)
    args = parser.parse_args(argv)
    # the set-up samples run platoon_scaling.py --setup-sample chain N (fresh interpreters)
    setups = ps.setup_samples(ps.__file__, "chain", args.sizes, -1, EPS, args.setup_repeats)
    costs = ps.step_costs("chain", args.sizes, -1, EPS, args.repeats, OPTIONS)
    n_of = lambda N: N + 2  # noqa: E731
    text = (f"The knife-edge chain, t in [0, 2], rtol {RTOL:g}, atol {ATOL:g}, friction eps = {EPS:g}; medians of "
            f"{args.repeats} interleaved rounds (runs) and of {args.setup_repeats} fresh-process samples (set-up); "
            f"load average {os.getloadavg()[0]:.1f} at the end.\n\nSet-up:\n\n" + ps.setup_table(setups, n_of, "N")
            + "\n\nRuns:\n\n" + ps.step_table(costs, n_of, "N") + "\n\nFitted exponents:\n\n"
            + ps.exponent_table(costs, setups, n_of) + "\n")
    emit(text, Output(args.markdown, args.json, script_options(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
