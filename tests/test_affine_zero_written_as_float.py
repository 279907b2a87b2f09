"""An affine term written as the float 0.0 is no affine term: SymPy's Float(0.0) != 0 is True, and the
checks that asked ``b != 0`` refused a knife edge given ``affine=[0.0]`` a kinematic system ("has
affine constraints A v = b: its kinematics has a drift") where ``affine=[0]`` and no affine term were
accepted. The checks now ask whether the entry is zero."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

x, y, th = sp.symbols("x y theta")


def knife(affine):
    return nh.System([x, y, th], sp.diag(1, 1, 0.5), constraints=sp.Matrix([[sp.sin(th), -sp.cos(th), 0]]),
                     affine=affine)


@pytest.mark.parametrize("zero", [None, [0], [0.0], [np.float64(0.0)], [sp.Float(0)]])
def test_a_zero_affine_term_however_written_has_a_kinematic_system(zero):
    kinematic = knife(zero).kinematic()
    ends = nh.OptimalControlProblem(kinematic, cost="energy", t_final=1.0, initial=[0, 0, 0], final=[1.0, 0.0, 0.0])
    sol = ends.solve(nodes=21)
    assert sol.success and sol.objective == pytest.approx(0.5, rel=1e-6)  # straight ahead at speed 1


def test_a_nonzero_affine_term_is_still_refused():
    t = sp.Symbol("t")
    with pytest.raises(nh.ModelError, match="affine constraints"):
        knife([0.1 * sp.cos(t)]).kinematic()
