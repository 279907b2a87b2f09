"""vakonomic_bvp's default start on an abnormal curve: the flat Martinet distribution (z' = y^2 x' / 2,
the metric x'^2 + y'^2 on it) from (0, 0, 0) to (1, 0, 0.01) starts along the line y = 0, an abnormal
curve, where the shooting matrix is singular and the endpoint off its range: it failed after 0 Newton
steps, its message suggesting a velocity off the line (an outside probe's v0 = (1, +-0.3, 0) reaches
both mirror-image minimizers, 1.0921983218, matching its own shooting and CasADi). The default now
tries such starts itself (bumps of 0.3 and 1 times the speed, both ways), returns the shortest geodesic
they reach and warns that the shortest may be another. Where no normal geodesic exists (a strictly
abnormal minimizer), it still refuses, saying it tried them."""

import pytest
import sympy as sp

import nonholo as nh

x, y, z = sp.symbols("x y z")


def martinet(weight=1):
    """ker(dz - y^2/2 dx) with the metric weight^2 x'^2 + y'^2 on it (G = diag(weight^2, 1, 0) + w^T w)."""
    w = sp.Matrix([[-y**2 / 2, 0, 1]])
    return nh.System([x, y, z], sp.diag(weight**2, 1, 0) + w.T * w, constraints=w)


def test_the_default_start_leaves_the_abnormal_line_by_itself():
    with pytest.warns(UserWarning, match=r"starts bumped off it reached geodesics of lengths \[1.09219832\]"):
        geodesic = nh.vakonomic_bvp(martinet(), [0, 0, 0], [1, 0, 0.01], 1.0)
    assert geodesic.length == pytest.approx(1.0921983218, rel=1e-9)
    bumped = nh.vakonomic_bvp(martinet(), [0, 0, 0], [1, 0, 0.01], 1.0, {"v0": [1, 0.3, 0], "lambda0": [0]})
    assert bumped.length == pytest.approx(geodesic.length, rel=1e-9)  # both to the shooting's tol 1e-10
    # a start off the line is the caller's: taken as given
    assert nh.vakonomic_bvp(martinet(), [0, 0, 0], [1.0, 0.3, 0.02], 1.0).endpoint_error < 1e-9


def test_a_strictly_abnormal_minimizer_is_still_refused():
    """The metric (1 + 0.2 y)^2 x'^2 + y'^2 to (1, 0, 0): the line y = 0 is the minimizer (length 1) and
    it is strictly abnormal; the probe's shooting found no normal geodesic there."""
    with pytest.raises(nh.ShootingError, match=r"abnormal curve.*Starts bumped off the default's .* failed too"):
        nh.vakonomic_bvp(martinet(1 + y / 5), [0, 0, 0], [1, 0, 0], 1.0)
