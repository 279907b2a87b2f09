"""The root locus joins a mode's eigenvalues from one grid value to the next; where a real pair collides
and turns complex between two values, it drew a chord from (0.27, 0) to (0, 0.25i) (an outside probe's
rolling disc in the stability guide), as if the mode had a real part it never has. The line is broken
there now; the real parts against the parameter stay joined (they meet at the collision)."""

from types import SimpleNamespace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import nonholo as nh  # noqa: E402


def test_a_mode_that_turns_complex_is_not_joined_across_the_collision():
    values = np.array([0.1, 0.3, 0.5, 0.7])
    mode = np.array([0.5, 0.27, 0.25j, 0.6j])  # real, real, then complex
    path = SimpleNamespace(eigenvalues=np.stack([mode, -np.conj(mode)], axis=1), structural=np.zeros(2, bool),
                           values=values, parameter="spin rate")
    locus, real = nh.plot.eigenvalues(path)
    x, y = locus.get_lines()[0].get_xdata(), locus.get_lines()[0].get_ydata()
    assert np.isnan(x[2]) and np.isnan(y[2])  # the break between 0.27 and 0.25i
    np.testing.assert_array_equal(x[[0, 1, 3, 4]], mode.real)
    np.testing.assert_array_equal(real.get_lines()[0].get_ydata(), mode.real)  # joined against the parameter
    plt.close("all")


def test_a_mode_that_stays_complex_is_one_line():
    values = np.linspace(0, 1, 5)
    mode = -0.1 + 1j * (1 + values)
    path = SimpleNamespace(eigenvalues=mode[:, None], structural=np.zeros(1, bool), values=values, parameter="v")
    locus, _ = nh.plot.eigenvalues(path)
    assert not np.isnan(locus.get_lines()[0].get_xdata()).any() and locus.get_lines()[0].get_xdata().size == 5
    plt.close("all")
