"""nh.sweep keeps its work: a failing point keeps the others (threads, processes, Dask), a dying
process-pool worker is blamed on its own point, points with different keys are named, and Ctrl-C
(SIGINT to a child process) stops a sweep within 2 s with the finished points reported."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ProcessPoolExecutor

import cloudpickle
import distributed
import numpy as np
import pytest

import nonholo as nh
from nonholo.analysis.sweeps import FAILED, NOT_RUN, OK

# Dask workers import functions by value only when told to: this module is not importable there.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

GRID = {"a": [1, 2, 3, 4]}


def fragile(a):
    """The sleigh's x at t = 1 for u0 = a; the point a = 3 raises."""
    if a == 3:
        raise ValueError("bad a")
    sol = nh.simulate(nh.systems.chaplygin_sleigh().nonholonomic(), (0, 1), [0, 0, 0, a, 0, 0.5], t_eval=[1.0])
    return {"x": sol.y[0, -1]}


def dies(a):
    """Kills its worker process at a = 2 (after the other points started)."""
    time.sleep(0.3)
    if a == 2:
        os._exit(3)
    time.sleep(0.3)
    return a


def _expected_x(a):
    return fragile(a)["x"]


def _check_kept(result):
    assert result.status.tolist() == [OK, OK, FAILED, OK]
    assert isinstance(result.errors[2], ValueError) and str(result.errors[2]) == "bad a"
    assert np.isnan(result["x"][2])
    for i in (0, 1, 3):  # the finished points are the values fn returns there
        assert result["x"][i] == _expected_x(GRID["a"][i]) and result.errors[i] is None
    assert result.failed == [({"a": 3}, result.errors[2])] and not result.complete


def test_failing_point_keeps_the_others_on_threads():
    with pytest.warns(nh.SweepWarning, match=r"1 of 4 points did not finish \(\{'a': 3\}\).*bad a"):
        result = nh.sweep(fragile, GRID, progress=False, threads=2)
    _check_kept(result)


def test_failing_point_keeps_the_others_on_processes():
    with ProcessPoolExecutor(max_workers=2) as pool, pytest.warns(nh.SweepWarning):
        result = nh.sweep(fragile, GRID, executor=pool, progress=False)
    _check_kept(result)


def test_failing_point_keeps_the_others_on_dask():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster:
        with distributed.Client(cluster) as client, pytest.warns(nh.SweepWarning):
            result = nh.sweep(fragile, GRID, executor=client.get_executor(), progress=False)
    _check_kept(result)


def test_on_error_raise_carries_the_finished_points():
    with pytest.raises(nh.SweepError, match=r"fn failed at point \{'a': 3\}: bad a") as info:
        nh.sweep(fragile, GRID, progress=False, threads=1, on_error="raise")
    err = info.value
    assert isinstance(err, RuntimeError) and isinstance(err.__cause__, ValueError) and err.point == {"a": 3}
    partial = err.partial
    assert partial.status[2] == FAILED and partial.status[0] == OK and partial.status[1] == OK
    assert partial["x"][0] == _expected_x(1) and partial["x"][1] == _expected_x(2)
    assert partial.status[3] in (OK, NOT_RUN)  # one thread: the last point is cancelled unless it had started
    with pytest.raises(ValueError, match="on_error must be 'keep' or 'raise'"):
        nh.sweep(fragile, GRID, progress=False, on_error="ignore")


def test_dead_worker_is_blamed_on_its_own_point():
    with ProcessPoolExecutor(max_workers=2) as pool, pytest.warns(nh.SweepWarning, match=r"\{'a': 2\}"):
        result = nh.sweep(dies, {"a": [1, 2, 3, 4]}, executor=pool, progress=False)
    assert result.status[1] == FAILED
    assert "died while running the point {'a': 2}" in str(result.errors[1])
    for i in (0, 2, 3):  # the point running beside it is run again alone; the queued ones are not run
        assert result.status[i] in (OK, NOT_RUN)
        assert result.status[i] == NOT_RUN or result["value"][i] == i + 1
        assert "died" not in str(result.errors[i])
    assert result.status[0] == OK  # a = 1 ran beside a = 2 (2 workers): re-run alone, kept
    with ProcessPoolExecutor(max_workers=2) as pool:
        with pytest.raises(nh.SweepError, match=r"fn failed at point \{'a': 2\}: the worker process died"):
            nh.sweep(dies, {"a": [1, 2, 3, 4]}, executor=pool, progress=False, on_error="raise")


def keys_differ(a):
    return {"x": a, "y": 2 * a} if a != 2 else {"x": a, "z": "other"}


def test_points_with_different_keys_are_named_or_filled():
    with pytest.raises(nh.SweepError, match=r"the point \{'a': 2\} returned no entry 'y', which the point "
                                            r"\{'a': 1\} returns") as info:
        nh.sweep(keys_differ, {"a": [1, 2, 3]}, progress=False)
    assert info.value.point == {"a": 2} and np.isnan(info.value.partial["y"][1])
    filled = nh.sweep(keys_differ, {"a": [1, 2, 3]}, progress=False, missing="fill")
    assert np.array_equal(filled["x"], [1.0, 2.0, 3.0])
    assert filled["y"][0] == 2.0 and np.isnan(filled["y"][1]) and filled["y"][2] == 6.0
    assert filled["z"].tolist() == [None, "other", None] and filled.complete
    with pytest.raises(ValueError, match="missing must be 'raise' or 'fill'"):
        nh.sweep(keys_differ, {"a": [1]}, progress=False, missing="drop")


@pytest.mark.parametrize("threads", [2.7, 2**40, 0, -1, True, "2"])
def test_sweep_threads_must_be_a_positive_integer(threads):
    with pytest.raises((TypeError, ValueError), match="threads must be"):
        nh.sweep(fragile, GRID, progress=False, threads=threads)


CHILD = """
import json, signal, sys, time, warnings
from concurrent.futures import ProcessPoolExecutor
import numpy as np
import nonholo as nh

# Ctrl-C as in a terminal: a test run in the background inherits SIGINT ignored (the shell's rule
# for background jobs), and a child would inherit that in turn
signal.signal(signal.SIGINT, signal.default_int_handler)
warnings.simplefilter("ignore")
SLEIGH = nh.systems.chaplygin_sleigh()

OUT = "{out}"

def point(i, seconds):
    open(f"{{OUT}}/start-{{i}}", "w").close()
    # a friction run far longer than max_wall_time (max_step bounds the steps): `seconds` in C++, then it stops
    sol = nh.simulate(SLEIGH.friction(1e-4), (0, 1e9), [0, 0, 0, 1.0, 0, 0.5], t_eval=[1e9], max_step=1e-3,
                      max_steps=10**15, max_wall_time=seconds)
    open(f"{{OUT}}/done-{{i}}", "w").close()
    return {{"t_last": sol.t_last}}

if __name__ == "__main__":
    grid = {{"i": list(range(24)), "seconds": [{seconds}]}}
    executor = ProcessPoolExecutor(2) if "{executor}" == "processes" else None
    if "{executor}" == "dask":
        import distributed
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
        executor = distributed.Client(cluster).get_executor()
    print("ready", flush=True)
    try:
        nh.sweep(point, grid, executor=executor, threads=None if executor else 2, progress=False)
        print(json.dumps({{"finished": "all"}}), flush=True)
    except KeyboardInterrupt as exc:
        partial = exc.partial
        done = [p["i"] for p, ok in zip(partial.points, partial.ok.reshape(-1)) if ok]
        t_last = partial.values.get("t_last", np.zeros(0)).reshape(-1)
        print(json.dumps({{"finished": done, "status": partial.status.reshape(-1).tolist(),
                           "t_last": t_last[np.isfinite(t_last)].tolist()}}), flush=True)
    if "{executor}" == "processes":
        executor.shutdown(wait=False, cancel_futures=True)
"""


@pytest.mark.parametrize("executor, seconds", [("threads", 0.5), ("threads", 30.0), ("processes", 0.5),
                                               ("dask", 0.5)])
def test_sigint_stops_a_sweep_and_reports_the_finished_points(tmp_path, executor, seconds):
    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(CHILD.format(executor=executor, seconds=seconds, out=tmp_path)))
    child = subprocess.Popen([sys.executable, *(["-S"] if sys.flags.no_site else []), str(script)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "ready"
    # interrupt once two points finished (0.5 s points) or started (30 s points): workers start slowly on a
    # loaded machine (Dask's import nonholo), so the moment is observed, not guessed
    wanted = "done-" if seconds < 1 else "start-"
    deadline = time.perf_counter() + 120
    while len(list(tmp_path.glob(wanted + "*"))) < 2 and time.perf_counter() < deadline:
        time.sleep(0.05)
    time.sleep(2.0 if executor == "dask" else 0.5)  # for the results to reach the sweep (Dask: its client too)
    # no wall clock: the report proves the stop (points NOT_RUN, and no 30 s point finished: the running
    # ones were stopped in C++); a child that does not stop fails the timeout
    child.send_signal(signal.SIGINT)
    line = child.stdout.readline()  # the report, printed in the child's except handler
    out, err = child.communicate(timeout=60)
    assert line.strip(), err
    report = json.loads(line)
    assert report["finished"] != "all"
    status = report["status"]
    assert len(status) == 24 and set(status) <= {OK, NOT_RUN} and NOT_RUN in status
    finished = report["finished"]
    if seconds == 0.5:
        done = {int(f.name.split("-")[1]) for f in tmp_path.glob("done-*")}
        assert finished and set(finished) <= done and len(finished) < 24, (report, done, err)  # only those done
        assert len(report["t_last"]) == len(finished) and all(t > 0 for t in report["t_last"])
    else:
        assert finished == []  # no 30 s point could finish: the running ones were stopped in C++
