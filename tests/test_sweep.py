"""nh.sweep: identical results in-process, in a process pool and on a local Dask cluster;
systems, models and results pickle."""

import pickle
import sys
from concurrent.futures import ProcessPoolExecutor

import cloudpickle
import distributed
import numpy as np
import pytest

import nonholo as nh

# Dask workers import functions by value only when told to: this module is not importable there.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

GRID = {"eps": [1e-2, 1e-3, 1e-4], "u0": [-1.0, 0.5]}


def final_state(eps, u0):
    # the estimated Jacobian cost: the same steps in every process (by default each process measures
    # the cost for itself, and the sleigh's Jacobian policy turns near what it measures: the studies
    # guide; test_default_sweep_agrees_across_processes_within_the_tolerance runs the default)
    sleigh = nh.systems.chaplygin_sleigh()
    sol = nh.simulate(sleigh.friction(eps), (0, 5), [0, 0, 0, u0, 0, 1.0], t_eval=[2.5, 5.0],
                      solver_options={"jacobian_costs": "estimated"})
    return {"x": sol.y[0], "steps": sol.stats["n_steps"], "result": sol}


@pytest.fixture(scope="module")
def reference():
    return nh.sweep(final_state, GRID, progress=False)


def test_sweep_shapes_and_coordinates(reference):
    assert reference.dims == ["eps", "u0"] and reference.shape == (3, 2)
    assert reference["x"].shape == (3, 2, 2)  # grid + the output's own shape
    assert reference["steps"].dtype == float and reference["result"].dtype == object
    i, j = 1, 0
    direct = final_state(GRID["eps"][i], GRID["u0"][j])
    assert np.array_equal(reference["x"][i, j], direct["x"])


def test_sweep_process_pool_gives_identical_results(reference):
    with ProcessPoolExecutor(max_workers=2) as pool:
        result = nh.sweep(final_state, GRID, executor=pool, progress=False)
    assert np.array_equal(result["x"], reference["x"])
    assert np.array_equal(result["steps"], reference["steps"])
    assert result["result"][2, 1].success  # results come back through pickle


def test_sweep_dask_cluster_gives_identical_results(reference):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client:
            result = nh.sweep(final_state, GRID, executor=client.get_executor(), progress=False)
    assert np.array_equal(result["x"], reference["x"])
    assert np.array_equal(result["steps"], reference["steps"])


def final_state_by_default(eps, u0):
    sleigh = nh.systems.chaplygin_sleigh()
    return {"x": nh.simulate(sleigh.friction(eps), (0, 5), [0, 0, 0, u0, 0, 1.0], t_eval=[2.5, 5.0]).y[0]}


def test_default_sweep_agrees_across_processes_within_the_tolerance(reference):
    with ProcessPoolExecutor(max_workers=2) as pool:
        result = nh.sweep(final_state_by_default, GRID, executor=pool, progress=False)
    # rtol 1e-8 per step; the global error of the two step sequences within 100 rtol
    assert np.allclose(result["x"], reference["x"], rtol=100 * 1e-8, atol=0)
    assert not np.allclose(result["x"], reference["x"] * (1 + 1e-4), rtol=100 * 1e-8, atol=0)


def test_sweep_over_a_list_of_points_and_to_xarray(reference):
    points = [{"eps": 1e-3, "u0": -1.0}, {"eps": 1e-2, "u0": 0.5}]
    result = nh.sweep(final_state, points, progress=False)
    assert result.dims == ["point"] and result["x"].shape == (2, 2)
    assert np.array_equal(result["x"][0], reference["x"][1, 0])
    ds = nh.sweep(lambda eps, u0: {"x": final_state(eps, u0)["x"][-1]}, GRID, progress=False).to_xarray()
    assert ds["x"].sel(eps=1e-3, u0=0.5).item() == reference["x"][1, 1, -1]


def test_sweep_reports_the_failing_point():
    def fragile(a):
        if a == 2:
            raise ValueError("bad a")
        return a

    with pytest.raises(RuntimeError, match=r"fn failed at point \{'a': 2\}: bad a"):
        nh.sweep(fragile, {"a": [1, 2, 3]}, progress=False, on_error="raise")
    with pytest.warns(nh.SweepWarning, match=r"\{'a': 2\}"):  # the default keeps the other points
        assert nh.sweep(fragile, {"a": [1, 2, 3]}, progress=False)["value"].tolist()[::2] == [1.0, 3.0]
    with pytest.raises(ValueError, match="grid\\['a'\\] must be a non-empty"):
        nh.sweep(fragile, {"a": []}, progress=False)
    with pytest.raises(TypeError, match="fn must be callable"):
        nh.sweep(3, {"a": [1]}, progress=False)


def test_systems_models_and_results_pickle():
    sleigh = nh.systems.chaplygin_sleigh(a=0.3)
    for obj in (sleigh, sleigh.nonholonomic(), sleigh.vakonomic(), sleigh.friction(1e-3),
                sleigh.reduced(1e-2, order=2), sleigh.discrete(0.1)):
        clone = pickle.loads(pickle.dumps(obj))
        assert type(clone) is type(obj)
    sol = nh.simulate(sleigh.friction(1e-3), (0, 1), [0, 0, 0, 1.0, 0, 0.5], t_eval=[0.5, 1.0])
    clone = pickle.loads(pickle.dumps(sol))
    assert np.array_equal(clone.y, sol.y) and clone.message == sol.message and clone.params == sol.params
    again = nh.simulate(clone.model, (0, 1), [0, 0, 0, 1.0, 0, 0.5], t_eval=[0.5, 1.0])
    assert np.array_equal(again.y, sol.y)


def test_strings_that_spell_numbers_stay_strings():
    """A label "2" or "1e-3" came back as the float 2.0 or 0.001: only numbers become numbers."""
    out = nh.sweep(lambda k: {"label": "1e-3" if k else "2", "mixed": "x" if k else 1.0, "x": k / 2},
                   {"k": [0, 1]}, progress=False)
    assert out["label"].dtype == object and list(out["label"]) == ["2", "1e-3"]
    assert out["mixed"].dtype == object and list(out["mixed"]) == [1.0, "x"]
    assert out["x"].dtype == float and list(out["x"]) == [0.0, 0.5]


@pytest.mark.parametrize("n", [1, 5])
def test_the_progress_bar_ends_at_every_point(capsys, n):
    """The bar advanced by a tqdm iterator, which counts an item only when the next is asked for: a
    sweep of 5 points ended its bar at 4/5, a one-point sweep at 0/1. The default shows the bar."""
    result = nh.sweep(lambda a: 2 * a, {"a": [float(i) for i in range(n)]}, threads=1)
    assert result["value"].tolist() == [2.0 * i for i in range(n)]
    shown = capsys.readouterr().err.replace("\r", "\n").strip().splitlines()[-1]
    assert f"{n}/{n}" in shown and "100%" in shown, shown
