"""IPOPT's options are checked before a solve, naming them: an output_file IPOPT cannot open gave
"cannot reshape array of size 0 into shape (21,5)", max_iter = 10**12 a pybind11 signature dump, and a
linear solver this IPOPT lacks (ma57) a plan with success False instead of the ValueError the docs
promise."""

import pytest

import nonholo as nh


def car():
    return nh.OptimalControlProblem(nh.systems.kinematic_car(), cost="time", initial=[0, 0, 0], final=[2, 0, 0])


@pytest.mark.parametrize("options, message", [
    (dict(ipopt_options={"output_file": "/nonexistent/ipopt.out"}), r"ipopt_options\['output_file'\]"),
    (dict(max_iter=10 ** 12), "max_iter must be a non-negative integer below 2\\*\\*31"),
    (dict(ipopt_options={"max_iter": 10 ** 12}), r"ipopt_options\['max_iter'\] must fit a C int"),
    (dict(ipopt_options={"linear_solver": "pardiso"}), "ipopt_options: IPOPT refused an invalid option"),
    (dict(ipopt_options={"linear_solver": "ma57"}), r"ipopt_options\['linear_solver'\] = 'ma57' needs HSL's library")])
def test_bad_ipopt_options_are_refused_by_name(options, message):
    with pytest.raises(ValueError, match=message):
        car().solve(nodes=10, **options)


def test_good_options_and_the_defaults_solve(tmp_path):
    assert car().solve(nodes=10).success
    log = tmp_path / "ipopt.out"
    assert car().solve(nodes=10, ipopt_options={"output_file": str(log), "linear_solver": "mumps"}).success
    assert log.exists()


@pytest.mark.parametrize("option", [{"linear_solver": "ma97"}, {"nlp_scaling_method": "equilibration-based"},
                                    {"linear_solver": "MA86"}])
def test_an_hsl_option_without_hsl_is_refused_not_an_abort(option):
    """An outside probe's ipopt_options={"linear_solver": "ma97"} (and nlp_scaling_method
    "equilibration-based") made IPOPT load HSL's library at the solve and abort the interpreter where it
    is missing ("You need to compile the HSL dynamic library ... Abort..."). Run in a child process: an
    abort there fails this test instead of killing the test run."""
    import subprocess
    import sys

    code = f"""
import nonholo as nh
from nonholo.control.checks import _hsl_available
p = nh.OptimalControlProblem(nh.systems.heisenberg().kinematic(), cost="energy", t_final=1.0,
                             initial=[0, 0, 0], final=[1.0, 0.5, 0.3])
try:
    sol = p.solve(nodes=11, ipopt_options={option!r})
    print("SOLVED", sol.success, _hsl_available())
except ValueError as exc:
    print("REFUSED", "needs HSL's library" in str(exc) and {next(iter(option))!r} in str(exc), _hsl_available())
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.split()[-1] in ("True", "False")
    hsl = run.stdout.split()[-1] == "True"
    assert run.stdout.startswith("SOLVED True" if hsl else "REFUSED True"), run.stdout
