"""SymPy's Whipple bicycle (built as sympy/physics/mechanics/tests/test_kane3.py builds it) through
System.from_kanes_method with the default check_kinematics.

The model builds the rear wheel's rolling into its kinematics (the rear contact point has zero
velocity, the wheel centre gets its velocity from v2pt_theory with the wheel's frame), the front
contact point's velocity is the one of the front wheel's material point there, and the wheel spins
u3, u6 have no coordinates. Oracle: the eigenvalues of the upright, straight motion at 5 m/s of
the benchmark of Meijaard, Papadopoulos, Ruina and Schwab (Proc. R. Soc. A 463, 2007, table 2).
"""

import numpy as np
import pytest

import nonholo as nh
from nonholo.symbolic.mechanics import kane_qdot
from nonholo.systems.whipple_bicycle import whipple_bicycle_kane

# Meijaard et al. 2007, table 2 (v = 5 m/s): weave pair, capsize, castor.
BENCHMARK_EIGENVALUES_5MS = np.array([-14.07838969279822, -0.77534188219585 + 4.46486771378823j,
                                      -0.77534188219585 - 4.46486771378823j, -0.32286642900409])


@pytest.fixture(scope="module")
def bicycle():
    km, values = whipple_bicycle_kane(wheel_angles=False)
    return km, values, nh.System.from_kanes_method(km, values, name="Whipple bicycle")


def test_bicycle_is_accepted_with_wheel_angles_as_auxiliary_coordinates(bicycle):
    km, values, system = bicycle
    assert system.coordinate_names == ["q1", "q2", "q5", "q4", "u3_integral", "u6_integral"]
    assert system.k == 3  # the front contact: two no-slip conditions and the normal velocity


def test_bicycle_upright_eigenvalues_match_the_benchmark(bicycle):
    """Linearized about upright straight running at 5 m/s, the nonholonomic model has the
    benchmark's four eigenvalues (weave, capsize, castor) to 1e-9 relative (the table's 14 digits); the other eight
    (yaw, the wheel angles, the pitch fixed by the contact, the directions off the constraints)
    are zero."""
    km, values, system = bicycle
    speed, rR, rF = 5.0, 0.3, 0.35
    q0 = np.zeros(6)
    u0 = np.array([0.0, speed / rR, 0.0, 0.0, 0.0, speed / rF])  # u_ind + u_dep = u2, u3, u5, u1, u4, u6
    y0 = np.r_[q0, kane_qdot(km, q0, u0, values)]
    model = system.nonholonomic()
    A, b = system.constraint_matrix(q0)
    assert np.abs(A @ y0[6:] - b).max() < 1e-14
    eig = np.linalg.eigvals(model.jacobian(0.0, y0))
    # zero eigenvalues in Jordan blocks of size 2 come out as +-sqrt(round-off), about 1e-8
    physical = np.sort_complex(eig[np.abs(eig) > 1e-3])
    assert physical.size == 4 and np.abs(eig[np.abs(eig) <= 1e-3]).max() < 1e-6
    expected = np.sort_complex(BENCHMARK_EIGENVALUES_5MS)
    assert np.abs(physical - expected).max() < 1e-9 * np.abs(expected).max()
