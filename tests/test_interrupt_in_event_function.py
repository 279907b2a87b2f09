"""Ctrl-C that lands in a Python event function (or in the progress bar, itself a root function)
keeps the run so far: ``exc.partial`` was None there, as the exception left the core with the output.
Any exception of an event function stops the run and reaches the caller as itself."""

import numpy as np
import pytest

import nonholo as nh

SLEIGH = nh.systems.chaplygin_sleigh()
Y0 = [0, 0, 0, 1, 0, 1]


class InterruptAt:
    def __init__(self, t_stop, error=KeyboardInterrupt):
        self.t_stop, self.error = t_stop, error

    def __call__(self, t, y):
        if t > self.t_stop:
            raise self.error("stop")
        return 1.0


@pytest.mark.parametrize("method", [None, "bdf", "dop853"])  # None: the default
def test_an_interrupt_in_an_event_function_keeps_the_run_so_far(method):
    options = {} if method is None else {"method": method}
    with pytest.raises(KeyboardInterrupt) as caught:
        nh.simulate(SLEIGH.nonholonomic(), (0, 10), Y0, events=InterruptAt(2.0), t_eval=np.linspace(0, 10, 101),
                    **options)
    partial = caught.value.partial
    assert partial is not None and partial.flag_name == "INTERRUPTED"
    # an outside probe was told "an event function raised an exception" of its own Ctrl-C
    assert "interrupted (Ctrl-C)" in partial.message and "raised" not in partial.message
    assert partial.t[0] == 0 and 1.5 <= partial.t[-1] <= 2.1
    whole = nh.simulate(SLEIGH.nonholonomic(), (0, 10), Y0, t_eval=np.linspace(0, 10, 101), **options)
    np.testing.assert_allclose(partial.y, whole.y[:, :partial.t.size], rtol=1e-6, atol=1e-8)


def test_another_exception_of_an_event_function_reaches_the_caller():
    with pytest.raises(ZeroDivisionError, match="stop"):
        nh.simulate(SLEIGH.nonholonomic(), (0, 10), Y0, events=InterruptAt(2.0, ZeroDivisionError))
