"""SimulationResult for users of NumPy, pandas, xarray, matplotlib and Jupyter: access by name,
time-major exports that round-trip the data, plot(), _repr_html_, and System._repr_latex_."""

import subprocess
import sys
import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh

Y0 = [0.0, 0.0, 0.0, -1.5, 0.0, 1.0]


@pytest.fixture(scope="module")
def sol():
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    return nh.simulate(sleigh.nonholonomic(), (0, 4), Y0, t_eval=np.linspace(0, 4, 41), params={"a": 0.3})


@pytest.fixture(scope="module")
def failed():
    sleigh = nh.systems.chaplygin_sleigh()
    with pytest.warns(nh.SimulationWarning, match="CV_TOO_MUCH_WORK"):
        return nh.simulate(sleigh.friction(1e-6), (0, 5), Y0, max_steps=40)


def test_access_by_name(sol):
    for i, name in enumerate(sol.state_names):
        assert np.array_equal(sol[name], sol.y[i])
    assert np.array_equal(sol["phi"], sol.q[2]) and np.array_equal(sol["phi_dot"], sol.v[2])
    with pytest.raises(KeyError, match="states are"):
        sol["theta"]


def test_to_dataframe_round_trips(sol):
    pd = pytest.importorskip("pandas")
    df = sol.to_dataframe()
    assert isinstance(df, pd.DataFrame)
    assert df.shape == (sol.t.size, len(sol.state_names))  # time-major
    assert list(df.columns) == sol.state_names and df.index.name == "t"
    assert np.array_equal(df.index.to_numpy(), sol.t)
    assert np.array_equal(df.to_numpy(), sol.y.T)
    assert np.array_equal(df["phi"].to_numpy(), sol["phi"])
    assert df.attrs["status"] == 0 and df.attrs["message"] == sol.message and df.attrs["param_a"] == 0.3
    df.iloc[0, 0] = 99.0  # a copy, not a view
    assert sol.y[0, 0] == 0.0


def test_to_xarray_round_trips_and_writes_netcdf(sol, tmp_path):
    xr = pytest.importorskip("xarray")
    da = sol.to_xarray()
    assert da.dims == ("t", "state") and da.name == "y"
    assert np.array_equal(da.values, sol.y.T)
    assert np.array_equal(da["t"].values, sol.t) and list(da["state"].values) == sol.state_names
    assert np.array_equal(da.sel(state="phi").values, sol["phi"])
    ds = da.to_dataset("state")
    assert set(ds.data_vars) == set(sol.state_names) and np.array_equal(ds["x_dot"].values, sol["x_dot"])
    assert da.attrs["success"] == 1 and da.attrs["model"] == "nonholonomic" and da.attrs["param_a"] == 0.3
    # the attributes are plain numbers and strings: the export survives netCDF
    path = tmp_path / "sleigh.nc"
    da.to_netcdf(path, engine="scipy")
    back = xr.open_dataarray(path, engine="scipy").load()
    assert np.array_equal(back.values, sol.y.T) and list(back["state"].values) == sol.state_names
    assert back.attrs["message"] == sol.message


def test_exports_of_other_models_carry_their_state_names():
    pytest.importorskip("pandas")
    pytest.importorskip("xarray")
    sleigh = nh.systems.chaplygin_sleigh()
    vak = nh.simulate(sleigh.vakonomic(), (0, 1), [*Y0, 0.1], t_eval=[0, 0.5, 1])
    assert list(vak.to_dataframe().columns)[-1] == "lambda_0"
    red = nh.simulate(sleigh.reduced(1e-2, order=2), (0, 1), Y0, t_eval=[0, 1])
    assert red.to_xarray().attrs["order"] == 2 and red.to_xarray().attrs["param_eps"] == 1e-2
    disc = nh.simulate_discrete(sleigh.discrete(0.1), (0, 1), Y0)
    df = disc.to_dataframe()
    assert df.shape == (11, 6) and np.array_equal(df.to_numpy(), disc.y.T)


def test_failed_run_exports_its_partial_trajectory(failed):
    pytest.importorskip("pandas")
    assert failed.status == -1
    df = failed.to_dataframe()
    assert df.index[-1] == pytest.approx(failed.t_last) and df.attrs["status"] == -1
    assert df.attrs["flag_name"] == "CV_TOO_MUCH_WORK"


def test_repr_html_leads_with_status_and_message(sol, failed):
    text = sol._repr_html_()
    assert text.index("success") < text.index("status 0") < text.index("reached the end") < text.index("<table")
    assert "n_steps" in text and "cpu_time" in text and "m=1, I=1, a=0.3" in text
    bad = failed._repr_html_()
    assert bad.index("failure") < bad.index("CV_TOO_MUCH_WORK") < bad.index("<table")
    assert "&lt;" not in failed.message and "status -1" in bad


def test_plot_default_panels_and_named_states(sol, failed):
    plt = pytest.importorskip("matplotlib.pyplot")
    axes = sol.plot()
    assert len(axes) == 2
    assert [line.get_label() for line in axes[0].lines] == ["x", "y", "phi"]
    assert np.array_equal(axes[1].lines[2].get_ydata(), sol["phi_dot"])
    ax = sol.plot(["phi"], color="k")
    assert np.array_equal(ax.lines[0].get_xdata(), sol.t) and np.array_equal(ax.lines[0].get_ydata(), sol["phi"])
    with pytest.raises(KeyError):
        sol.plot(["psi"])
    fail_axes = failed.plot()
    assert "CV_TOO_MUCH_WORK" in fail_axes[0].get_title()
    sleigh = nh.systems.chaplygin_sleigh()
    vak = nh.simulate(sleigh.vakonomic(), (0, 1), [*Y0, 0.1])
    assert len(vak.plot()) == 3  # q, v, lambda
    plt.close("all")


def test_optional_dependencies_are_imported_lazily():
    code = ("import sys, numpy as np, nonholo as nh\n"
            "s = nh.systems.chaplygin_sleigh()\n"
            "r = nh.simulate(s.nonholonomic(), (0, 1), [0, 0, 0, 1, 0, 0])\n"
            "r._repr_html_(); repr(r); s._repr_latex_()\n"
            "print(sorted(m for m in ('pandas', 'xarray', 'matplotlib', 'scipy') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_system_latex_shows_the_equations():
    sleigh = nh.systems.chaplygin_sleigh(m=1.0, I=1.0, a=0.2)
    tex = sleigh._repr_latex_()
    assert tex.startswith("$$\\begin{aligned}") and tex.endswith("\\end{aligned}$$")
    assert r"\dot{\phi}" in tex and r"\dot{x}" in tex and "x_{dot}" not in tex
    assert r"- \dot{x} \sin{\left(\phi \right)} + \dot{y} \cos{\left(\phi \right)} &= 0" in tex  # A(q) q' = b
    assert "L = " in tex and "G(q)" in tex and r"\mu(q)" in tex and "a = 0.2" in tex
    # affine constraints show their right-hand side, forces appear, identity friction does not
    ball = nh.systems.ball_on_turntable(nu=1.0)
    tex = ball._repr_latex_()
    assert r"&= - \Omega y" in tex and r"&= \Omega x" in tex and "F(q" in tex and r"\mu(q)" not in tex
    # a long block is replaced by a pointer to the attribute
    from nonholo.expressions.display import system_latex

    assert "see system.metric" in system_latex(ball, max_chars=50)
    # the matrix typesets as what sympy prints for the metric
    assert sp.latex(sleigh.metric).replace(" ", "")[:20] in tex.replace(" ", "")


def test_result_still_pickles(sol):
    """The additions keep the result picklable (process pools, Dask)."""
    import pickle

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = pickle.loads(pickle.dumps(sol))
    assert np.array_equal(back.y, sol.y) and back.state_names == sol.state_names
    assert back.to_dataframe().equals(sol.to_dataframe()) if _has("pandas") else True


def _has(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None
