"""The last of the adversarial round's small refusals: realized_pendulum took eps <= 0 for the
potential and inertia realizations (the friction one refused it), and plot.convergence drew the
slips for any which= but "errors"."""

import pytest

import nonholo as nh


@pytest.mark.parametrize("realization", ["potential", "inertia"])
@pytest.mark.parametrize("eps, error", [(-0.1, ValueError), (0.0, ValueError), ("0.1", TypeError)])
def test_a_realization_needs_a_positive_eps(realization, eps, error):
    with pytest.raises(error, match="eps"):
        nh.systems.realized_pendulum(realization, eps)
    assert nh.simulate(nh.systems.realized_pendulum(realization, 0.05), (0, 0.5), [1, 0, 0, 0]).success


def test_convergence_plots_errors_or_slips_only():
    import matplotlib

    matplotlib.use("Agg")
    from nonholo.viz import plot

    with pytest.raises(ValueError, match="which must be 'errors' or 'slips'"):
        plot.convergence(object(), which="zz")
