"""The discrete integrator stops where Newton leaves the explicit predictor's neighbourhood.

A sleigh written here (m = I = 1, a = 0.2) from y0 = (0, 0, 0, -1.5, 0, 1) over t in [0, 40]: with h = 2, 5,
8 and 10 every step converged, to roots of the discrete equations far from the continuous flow (the energy
1.645 rose to 2.4e4, 175, 105 and 200), and the runs reported status 0. They now stop with status -1, the
message saying why; at h = 0.5 the run goes through with its energy within 7% of the start."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, phi = sp.symbols("x y phi")
A_ = 0.2
G = sp.Matrix([[1, 0, -A_ * sp.sin(phi)], [0, 1, A_ * sp.cos(phi)],
               [-A_ * sp.sin(phi), A_ * sp.cos(phi), 1 + A_**2]])
SLEIGH = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]))
Y0 = [0, 0, 0, -1.5, 0, 1.0]


def test_a_step_that_resolves_the_motion_runs_through():
    run = nh.simulate_discrete(SLEIGH.discrete(0.5), (0, 40), Y0)
    energy = run.energy()
    assert run.status == 0 and run.t[-1] == 40.0
    assert np.max(np.abs(energy / energy[0] - 1)) < 0.07
    assert repr(run).startswith("DiscreteResult(")  # it printed as a SimulationResult
    assert run._repr_html_().startswith("<div><p><b>DiscreteResult</b>")  # its notebook display did still
    default = nh.simulate(SLEIGH.nonholonomic(), (0, 1), Y0)
    assert default._repr_html_().startswith("<div><p><b>SimulationResult</b>")


@pytest.mark.parametrize("h", [2.0, 5.0, 8.0, 10.0])
def test_steps_off_the_branch_of_the_flow_stop_the_run(h):
    with pytest.warns(nh.SimulationWarning):
        run = nh.simulate_discrete(SLEIGH.discrete(h), (0, 40), Y0)
    assert run.status == -1 and run.t[-1] < 40.0
    assert "Newton" in run.message and "reduce h" in run.message


def test_a_conservative_run_whose_energy_wanders_warns():
    """A step that converges far from the flow on a conservative system: a pendulum swung to 2.5 rad,
    six steps a swing at h = 0.5 (energy 7.86 up to 12.5) and h = 2 (up to 4448), both status 0 without a
    word; now a SimulationWarning says the energy changed and by how much of the largest kinetic energy.
    A resolved run (h = 0.05) and a forced system (no energy to keep) do not warn."""
    q, g, f = sp.symbols("q g f")
    pendulum = nh.System([q], sp.Matrix([[1]]), potential=-g * sp.cos(q), parameters={g: 9.81})
    for h in (0.5, 2.0):
        with pytest.warns(nh.SimulationWarning, match=f"the step h = {h:g} does not resolve the motion"):
            run = nh.simulate_discrete(pendulum.discrete(h), (0, 120), [2.5, 0.0])
        assert run.status == 0 and len(run.warnings) == 1 and "times the largest kinetic energy" in run.warnings[0]
    resolved = nh.simulate_discrete(pendulum.discrete(0.05), (0, 20), [2.5, 0.0])  # filterwarnings: error
    energy = resolved.energy()
    assert resolved.warnings == [] and np.max(np.abs(energy - energy[0])) < 0.1 * 17.67
    forced = nh.System([q], sp.Matrix([[1]]), potential=-g * sp.cos(q), force=[f], parameters={g: 9.81, f: 0.5})
    assert nh.simulate_discrete(forced.discrete(0.5), (0, 20), [2.5, 0.0]).warnings == []
