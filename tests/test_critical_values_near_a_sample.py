"""critical_values where a sample lies just past a crossing, on the unstable side of zero but
below the stability threshold (so it counts as stable): the root lies beyond that sample, and the
refinement within the bracket gave the point where the real part reaches the threshold instead,
up to 1e-5 (relative) off on a slow crossing, with no word (an outside probe's finding)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh


def damped_sleigh():
    """A sleigh with a yaw damper c: straight motion at speed U has the eigenvalue
    -(m a U + c) / (I + m a^2), zero at U_c = -c / (m a)."""
    x, y, phi, m, I, a, c = sp.symbols("x y phi m I a c")
    G = sp.Matrix([[m, 0, -m * a * sp.sin(phi)], [0, m, m * a * sp.cos(phi)],
                   [-m * a * sp.sin(phi), m * a * sp.cos(phi), I + m * a**2]])
    phid = sp.Symbol("phi_dot")
    system = nh.System([x, y, phi], G, constraints=sp.Matrix([[-sp.sin(phi), sp.cos(phi), 0]]),
                       force=sp.Matrix([0, 0, -c * phid]), velocities=[sp.Symbol("x_dot"), sp.Symbol("y_dot"), phid],
                       parameters={m: 1.0, I: 1.0, a: 1e-3, c: 1e-4})
    return system.nonholonomic()


@pytest.mark.parametrize("offset", [None, 5e-7, 1e-7, 1e-10])
def test_a_slow_divergence_with_a_sample_just_past_it(offset):
    """U_c = -0.1, the eigenvalue's slope 1e-3: a sample 5e-7 below U_c (real part 5e-10, below the
    threshold) gave -0.100001; the grid without such a sample (offset None) as before."""
    model = damped_sleigh()
    grid = np.linspace(-0.5, 0.5, 11) if offset is None else np.array([-0.5, -0.1 - offset, 0.5])
    (crossing,) = nh.critical_values(model, "U", grid, lambda U: [0, 0, 0, U, 0, 0.0])
    assert crossing.kind == "divergence" and crossing.direction == "stabilizing"
    assert crossing.value == pytest.approx(-0.1, abs=1e-14)


@pytest.mark.parametrize("sample", [None, 0.0, -1e-10, -1e-12])
def test_a_hopf_crossing_with_a_sample_on_or_just_past_it(sample):
    """x'' + p x' + x = 0: the pair -p/2 +- i sqrt(1 - p^2/4) crosses at p = 0 (stabilizing as p
    grows). A sample at -1e-10 (real part 5e-11) gave -2e-9, where the threshold is reached."""
    x, xd, p = sp.symbols("x x_dot p")
    model = nh.System([x], sp.Matrix([[1]]), potential=x**2 / 2, force=sp.Matrix([-p * xd]), velocities=[xd],
                      parameters={p: 0.1}).nonholonomic()
    grid = np.array([-0.5, -0.2, 0.3, 0.5]) if sample is None else np.array([-0.5, sample, 0.5])
    (crossing,) = nh.critical_values(model, "p", grid, [0.0, 0.0])
    assert crossing.kind == "hopf" and crossing.direction == "stabilizing"
    assert abs(crossing.value) < 1e-14 and crossing.eigenvalue.imag == pytest.approx(1.0, abs=1e-12)


def test_an_error_of_the_state_callable_of_a_label_keeps_the_path_so_far():
    """With a label (the speed U, not a parameter of the model) the state callable was called for
    every value before the first linearization, so its error at U = 0.5 carried partial = None where
    the docstring promises the path over the values before it; a misspelt parameter with the same
    state at every value is still refused."""
    model = damped_sleigh()

    def state(U):
        if U > 0.45:
            raise RuntimeError("no steady motion here")
        return [0, 0, 0, U, 0, 0.0]

    for call in (nh.eigenvalue_path, nh.critical_values):
        with pytest.raises(RuntimeError, match="at U = 0.5: no steady motion here") as info:
            call(model, "U", np.linspace(-1, 1, 9), state)
        assert np.allclose(info.value.partial.values, np.linspace(-1, 0.25, 6))
    with pytest.raises(ValueError, match="the path would be constant"):
        nh.eigenvalue_path(model, "U_typo", [0.1, 0.2, 0.3], lambda U: [0, 0, 0, 1.0, 0, 0.0])


def test_a_slow_crossing_just_past_the_end_of_the_grid():
    """x'' + 1e-6 p x' + x = 0: the pair -5e-7 p +- i crosses at p = 0. A grid that ends at p = -0.001 (real
    part 5e-10, below the threshold: counted stable) has the root beyond its end, which the search now
    reaches (up to a bracket's width); it gave -0.002, where the real part reaches the threshold (a second
    probe's sleigh: 0.3754 for 0 with a grid starting on its crossing)."""
    x, xd, p = sp.symbols("x x_dot p")
    for sign, grid in ((-1, [-1.0, -0.5, -0.001]), (1, [0.001, 0.5, 1.0])):  # the grid's end, then its start
        model = nh.System([x], sp.Matrix([[1]]), potential=x**2 / 2, force=sp.Matrix([sign * 1e-6 * p * xd]),
                          velocities=[xd], parameters={p: 0.1}).nonholonomic()
        (crossing,) = nh.critical_values(model, "p", grid, [0.0, 0.0])
        assert crossing.kind == "hopf" and abs(crossing.value) < 1e-6, (grid, crossing.value)
