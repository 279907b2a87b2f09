"""nh.fit (least squares with the sensitivities' Jacobian) and nh.vakonomic_bvp (shooting)."""

import math

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.systems.heisenberg import heisenberg_geodesic, heisenberg_length

Y0 = [0.0, 0.0, 0.0, -1.5, 0.0, 1.0]


def test_fit_recovers_parameters_within_the_reported_covariance(sleigh):
    """Synthetic data from known (a, I) plus Gaussian noise: over repeated draws the estimates
    fall within two reported standard errors about 95% of the time (binomial(20, 0.95) gives
    fewer than 15 hits with probability below 1e-4)."""
    model = sleigh.nonholonomic()
    true = {"a": 0.3, "I": 1.4}
    t = np.linspace(0.5, 6, 12)
    clean = nh.simulate(model, (0, 6), Y0, t_eval=np.r_[0.0, t], params=true, rtol=1e-11, atol=1e-13).y[:2, 1:]
    rng = np.random.default_rng(0)
    sigma = 2e-3
    hits, draws, estimates, stderrs = 0, 20, [], []
    for _ in range(draws):
        data = clean + sigma * rng.normal(size=clean.shape)
        res = nh.fit(model, t, data, params={"a": 0.2, "I": 1.0}, y0=Y0, observe=["x", "y"], t_span=(0, 6))
        assert res.success
        estimates.append(res.x)
        assert list(res.stderr) == list(res.params) == ["a", "I"]  # the same shape: both keyed by name
        stderr = np.array(list(res.stderr.values()))
        stderrs.append(stderr)
        hits += int(np.all(np.abs(res.x - [true["a"], true["I"]]) <= 2 * stderr))
    assert hits >= 15, hits
    # the reported standard errors match the spread of the estimates over the draws (the
    # sample standard deviation of 20 draws is within a factor 1.5 with probability > 0.99)
    ratio = np.std(estimates, axis=0, ddof=1) / np.mean(stderrs, axis=0)
    assert np.all((ratio > 1 / 1.5) & (ratio < 1.5)), ratio
    assert res.residuals.shape == (2 * t.size,) and abs(res.cost - 0.5 * res.residuals @ res.residuals) < 1e-15


@pytest.mark.parametrize("size", [1.0, 1e-3, 1e-6, 1e3])
def test_a_fit_to_data_of_any_size_reaches_the_parameter_of_noise_free_data(sleigh, size):
    """The sleigh's state scaled by ``size`` (its motion then depends on a through terms of size
    size**2): noise-free data from a = 0.3, the fit from 0.2. SciPy's absolute gtol of the gradient
    J^T r stopped the default fit at 0.295 on data of size 1e-3 and at its start (0.2) at 1e-6."""
    model = sleigh.nonholonomic()
    y0 = np.array([0.0, 0.0, 0.0, 1.0, 0.0, 0.5]) * size
    t = np.linspace(0, 2, 21)
    data = nh.simulate(model, (0, 2), y0, t_eval=t, params={"a": 0.3}, rtol=1e-12, atol=1e-14 * size).y
    res = nh.fit(model, t, data, {"a": 0.2}, y0, atol=1e-14 * size)
    assert res.success and abs(res.x[0] - 0.3) < 1e-6, res.x
    lm = nh.fit(model, t, data, {"a": 0.2}, y0, atol=1e-14 * size, least_squares_options={"method": "lm"})
    assert lm.success and abs(lm.x[0] - 0.3) < 1e-6, lm.x  # lm's gtol, a cosine, is kept


def test_fit_bad_input(sleigh):
    model = sleigh.nonholonomic()
    t = np.linspace(0.5, 2, 4)
    with pytest.raises(ValueError, match="unknown parameters"):
        nh.fit(model, t, np.zeros((2, 4)), params=["b"], y0=Y0, observe=["x", "y"])
    with pytest.raises(ValueError, match="unknown states"):
        nh.fit(model, t, np.zeros((2, 4)), params=["a"], y0=Y0, observe=["x", "w"])
    with pytest.raises(ValueError, match="y_obs has"):
        nh.fit(model, t, np.zeros((3, 4)), params=["a"], y0=Y0, observe=["x", "y"], t_span=(0, 2))
    with pytest.raises(ValueError, match="not defined"):
        nh.fit(model, t, np.zeros(2), params=["a"], y0=Y0, t_span=(0, 2),
               observe=lambda sol: (np.full(2, np.nan), np.zeros((2, 1))))
    # a stick-slip model runs without sensitivities: named, not an AttributeError from inside the fit
    with pytest.raises(TypeError, match="stick-slip model runs without them"):
        nh.fit(sleigh.stick_slip(0.5, normal=9.81), t, np.zeros((2, 4)), params=["a"], y0=Y0, observe=["x", "y"])


def test_fit_runs_the_reduced_model_of_a_law():
    """The reduced model of a friction law runs with sensitivities, so nh.fit takes it (it refused it as
    no Model): the friction coefficient of a Coulomb law written with the sleigh's parameter mu is
    recovered with a (0.3) from the path of a run made with mu = 0.5, starting from 0.7 and 0.25."""
    sleigh = nh.systems.chaplygin_sleigh()
    mu = next(p for p in sleigh.parameters if p.name == "mu")
    model = sleigh.reduced(order=2, law=nh.laws.Coulomb(mu, v_s=0.05), normal=9.81)
    t, y0 = np.linspace(0, 3, 7), [0, 0, 0, 1, 0, 1.5]
    data = nh.simulate(model, (0, 3), y0, t_eval=t, params={"mu": 0.5, "a": 0.3}).y[:3]
    res = nh.fit(model, t, data, {"mu": 0.7, "a": 0.25}, y0, observe=["x", "y", "phi"])
    assert res.success
    assert res.params["mu"] == pytest.approx(0.5, rel=1e-6) and res.params["a"] == pytest.approx(0.3, rel=1e-6)


@pytest.fixture(scope="module")
def heisenberg():
    return nh.systems.heisenberg()


def _arc_length(chord: float, area: float) -> float:
    """The shortest sub-Riemannian length from the origin to (x, y, z) of the Heisenberg particle: a
    circular arc over the chord |(x, y)| enclosing the area |z| with it (the isoperimetric problem)."""
    from scipy.optimize import brentq

    def enclosed(phi):  # an arc of half-angle phi: radius chord / (2 sin phi)
        radius = chord / (2 * math.sin(phi))
        return radius**2 * (2 * phi - math.sin(2 * phi)) / 2

    phi = brentq(lambda p: enclosed(p) - abs(area), 1e-9, math.pi - 1e-12)
    return chord * phi / math.sin(phi)


@pytest.mark.parametrize("end", [(0.5, -0.2, -0.4), (0.1, 0.0, 0.3), (0.3, 0.4, 2.0)])
def test_the_default_shoots_again_with_segments_where_single_shooting_fails(heisenberg, end):
    """Single shooting from the default start fails on these endpoints (ShootingError); the default retries
    with 4 segments from the same start and reaches the shortest geodesic."""
    with pytest.raises(nh.ShootingError):
        nh.vakonomic_bvp(heisenberg, [0, 0, 0], end, 1.0, segments=1)
    sol = nh.vakonomic_bvp(heisenberg, [0, 0, 0], end, 1.0)
    assert sol.endpoint_error < 1e-9 and abs(sol.length - _arc_length(math.hypot(*end[:2]), end[2])) < 1e-8


@pytest.mark.parametrize("segments", [1, 3])
def test_heisenberg_geodesic_to_the_z_axis(heisenberg, segments):
    """From (0, 0, 0) to (0, 0, z1): a full circle of area z1, length 2 sqrt(pi z1)."""
    z1, T = 1.0, 1.0
    # a guess near the single loop (the default start converges to the double loop, a longer
    # geodesic of length 2 sqrt(2 pi z1), also checked)
    sol = nh.vakonomic_bvp(heisenberg, [0, 0, 0], [0, 0, z1], T, segments=segments,
                           guess={"v0": [2.0, -2.0, 0.0], "lambda0": [-5.0]})
    assert sol.endpoint_error < 1e-9
    assert abs(sol.length - heisenberg_length(z1)) < 1e-8
    # the planar projection is a circle through the origin of radius sqrt(z1/pi), at the phase
    # the iteration picked (the solutions form a circle of rotations about the z axis)
    phase = math.atan2(sol.y[1, sol.t.size // 2], sol.y[0, sol.t.size // 2])
    assert np.max(np.abs(sol.y[:3] - heisenberg_geodesic(z1, T, sol.t, phase))) < 1e-7
    if segments == 1:
        double = nh.vakonomic_bvp(heisenberg, [0, 0, 0], [0, 0, z1], T)
        assert double.endpoint_error < 1e-9 and abs(double.length - heisenberg_length(2 * z1)) < 1e-8


def test_a_geodesic_reads_with_its_length():
    """vakonomic_bvp's run printed as any run, without the length, action, endpoint error and iterations
    it carries; its repr shows them (the Heisenberg geodesic to (1, 0.5, 0.3) in t = 1)."""
    geodesic = nh.vakonomic_bvp(nh.systems.heisenberg(), [0, 0, 0], [1.0, 0.5, 0.3], 1.0)
    line = repr(geodesic).splitlines()[-2]
    assert line.startswith(" shooting: length 1.4225735") and "iterations" in line, line
    assert "shooting" not in repr(nh.simulate(nh.systems.heisenberg().nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 0]))


def test_unreachable_endpoint_is_a_clear_failure():
    """z' = x' is integrable: z - x is constant, so (1, 0, 0) is unreachable from the origin. The
    shooting matrix is singular along that direction: a ShootingError, not a trajectory."""
    x, y, z = sp.symbols("x y z")
    system = nh.System([x, y, z], sp.eye(3), constraints=sp.Matrix([[-1, 0, 1]]))
    with pytest.raises(nh.ShootingError, match="singular") as info:
        nh.vakonomic_bvp(system, [0, 0, 0], [1, 0.5, 0], 1.0)
    assert info.value.residual > 0.1


def test_no_convergence_is_a_clear_failure(heisenberg):
    with pytest.raises(nh.ShootingError, match="did not converge in 1 Newton steps"):
        nh.vakonomic_bvp(heisenberg, [0, 0, 0], [0, 0, 1.0], 1.0, max_iterations=1)
    with pytest.raises(ValueError, match="T must be positive"):
        nh.vakonomic_bvp(heisenberg, [0, 0, 0], [0, 0, 1.0], -1.0)


def test_a_geodesic_from_a_collocated_start_where_the_default_stalls():
    """The vertical rolling disk turning 0.3 rad while moving 0.5 across its rolling in unit time:
    shooting from the default start (v0 the straight line, lambda0 = 0) stalls at a mismatch of
    0.26 with any number of segments. The least-energy plan of its kinematic system by collocation,
    given as the guess (v0 its velocity at 0, lambda0 fitted to its acceleration there), starts
    Newton near the geodesic: it converges, and L^2 / 2 is the plan's energy to the collocation
    error (measured 5e-8 at 100 nodes). The geodesic itself, given back as the guess, converges at
    once; a plan of another duration is refused by name."""
    disk = nh.systems.vertical_rolling_disk()
    q0, q1 = np.zeros(4), np.array([0.3, 0.5, 0.0, 0.0])
    with pytest.raises(nh.ShootingError, match="no Newton step reduces"):
        nh.vakonomic_bvp(disk, q0, q1, 1.0)
    plan = nh.OptimalControlProblem(disk.kinematic(), cost="energy", t_final=1.0, initial=list(q0),
                                    final=list(q1)).solve(nodes=100)
    geodesic = nh.vakonomic_bvp(disk, q0, q1, 1.0, guess=plan)
    assert geodesic.endpoint_error < 1e-9
    assert abs(geodesic.length**2 / 2 / plan.objective - 1) < 1e-6
    again = nh.vakonomic_bvp(disk, q0, q1, 1.0, guess=geodesic)
    assert again.iterations <= 1 and abs(again.length - geodesic.length) < 1e-9
    with pytest.raises(ValueError, match="duration"):
        nh.vakonomic_bvp(disk, q0, q1, 2.0, guess=plan)


def test_the_default_start_of_a_translated_geodesic():
    """The Heisenberg particle from (0.1, 0, 0) to (0.1, 0, 0.3): a left translation of the problem
    from the origin, the same geodesic, L = 2 sqrt(0.3 pi). Its straight line lies 5% in D, the
    first Newton step took the multipliers to 1e4, and a raw IntegrationError escaped after 4 s (a
    ShootingError after 56 s once caught). Starting along D it converges like the origin's."""
    heis = nh.systems.heisenberg()
    for x0 in (0.1, 0.01):
        sol = nh.vakonomic_bvp(heis, [x0, 0, 0], [x0, 0, 0.3], 1.0)
        assert abs(sol.length - 2 * np.sqrt(0.3 * np.pi)) < 1e-9


def test_a_guess_mapping_is_checked_key_by_key():
    """{"v_0": ...} was ignored silently, a v0 or lambda0 of the wrong length gave NumPy's broadcast
    or reshape error; a right one still starts the shooting (L = 2 sqrt(0.3 pi))."""
    heis = nh.systems.heisenberg()
    for guess, match in (({"v_0": [1, 2, 3]}, "keys 'v0' and 'lambda0'"), ({"v0": [1, 2]}, r"guess\['v0'\] must have"),
                         ({"lambda0": [1, 2]}, r"guess\['lambda0'\] must have"), ({"v0": [np.nan, 0, 0]}, "NaN")):
        with pytest.raises(ValueError, match=match):
            nh.vakonomic_bvp(heis, [0, 0, 0], [1, 0, 0], 1.0, guess=guess)
    sol = nh.vakonomic_bvp(heis, [0, 0, 0], [0, 0, 0.3], 1.0, guess={"v0": [0, -1.9416, 0], "lambda0": [-3.14]})
    assert abs(sol.length - 2 * np.sqrt(0.3 * np.pi)) < 1e-9
