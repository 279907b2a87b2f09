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
    (dict(ipopt_options={"linear_solver": "ma57"}), "ipopt_options: IPOPT refused an invalid option")])
def test_bad_ipopt_options_are_refused_by_name(options, message):
    with pytest.raises(ValueError, match=message):
        car().solve(nodes=10, **options)


def test_good_options_and_the_defaults_solve(tmp_path):
    assert car().solve(nodes=10).success
    log = tmp_path / "ipopt.out"
    assert car().solve(nodes=10, ipopt_options={"output_file": str(log), "linear_solver": "mumps"}).success
    assert log.exists()
