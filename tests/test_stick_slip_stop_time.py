"""A slide's stop is found at its time whatever the end of t_span: a block on a belt (v_b = 0.5) with a
spring to the ground and a second mass on a spring, mu_s 0.6, mu_k 0.4. Stuck, the block's force
k x + k2 (x - y) reaches mu_s N; it slides back until its velocity is the belt's again. With t_span
ending at 12 (not 4, 8, 20) one step jumped the stop event and the kink of the kinetic force just
past it together and ended back on the event's side: the stop came 1.77e-7 s late (about 1000 times
rtol 1e-10). The reference is SciPy's DOP853 at rtol 1e-13 on the two phases written out here."""

import pytest
import sympy as sp
from scipy.integrate import solve_ivp

import nonholo as nh

M, M2, K, K2, BELT, GRAVITY, MU_S, MU_K = 1.0, 0.5, 10.0, 4.0, 0.5, 9.81, 0.6, 0.4
N = M * GRAVITY


def reference_stop() -> float:
    """The slip -> stick time by SciPy: stuck (x' = v_b) until k x + k2 (x - y) = mu_s N, then sliding
    under +mu_k N until x' = v_b."""
    tight = dict(method="DOP853", rtol=1e-13, atol=1e-14)

    def stuck(t, z):
        return [BELT, z[3], 0.0, K2 * (z[0] - z[1]) / M2]

    def leaves(t, z):
        return K * z[0] + K2 * (z[0] - z[1]) - MU_S * N

    leaves.terminal = True
    first = solve_ivp(stuck, (0, 10), [0, 0, BELT, 0], events=leaves, **tight)
    t1, (x, y, _, w) = first.t_events[0][0], first.y_events[0][0]

    def slides(t, z):
        return [z[2], z[3], (-K * z[0] - K2 * (z[0] - z[1]) + MU_K * N) / M, K2 * (z[0] - z[1]) / M2]

    def stops(t, z):
        return z[2] - BELT

    stops.terminal, stops.direction = True, 1
    second = solve_ivp(slides, (t1, t1 + 10), [x, y, BELT - 1e-15, w], events=stops, **tight)
    return second.t_events[0][0]


@pytest.mark.parametrize("end", [4.0, 8.0, 12.0, 20.0])
def test_the_stop_time_does_not_depend_on_the_end_of_the_run(end):
    stop = reference_stop()
    assert stop == pytest.approx(3.576383562735, abs=1e-11)
    x, y = sp.symbols("x y")
    belt = nh.System([x, y], sp.diag(M, M2), potential=K * x**2 / 2 + K2 * (x - y) ** 2 / 2,
                     constraints=sp.Matrix([[1, 0]]), affine=sp.Matrix([BELT]))
    run = nh.simulate(belt.stick_slip(MU_S, MU_K, normal=N), (0, end), [0, 0, BELT, 0], rtol=1e-10, atol=1e-12)
    assert [label for _, *label in run.switches[:2]] == [["stick", "slip"], ["slip", "stick"]]
    assert abs(run.switches[1][0] - stop) < 5e-10
