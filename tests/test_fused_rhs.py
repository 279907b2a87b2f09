"""The fused right-hand side (nonholo/fused_rhs.hpp): a model's whole evaluation, the system's
tapes and the factorizations and solves between them, traced into one tape "rhs" and compiled
by model.compile() (fuse=True, the default).

Checked: fused values equal the unfused ones to rounding for every fusable model kind (the
reduced model of order 2 with its CompiledSlip among them) on random
systems (affine constraints, forces depending on the velocity and the time) and on the
knife-edge chain, at parameters other than those of the trace and at other times; the fused
kernel reads none of the system's tapes (they can be poisoned); the reduced models choose the
null-space form where k is close to n; where a test of the trace fails (the traced split grown
ill-conditioned) the model's own evaluation runs, bit for bit; whole runs agree; models that
cannot be traced say so.
"""

import zlib

import numpy as np
import pytest

import nonholo as nh
from nonholo import _core
from nonholo.expressions import compiled
from nonholo.testing import random_system

pytestmark = pytest.mark.slow  # compiles a C kernel per case

T = 0.3


def _systems():
    return {
        "random n=4 k=2, affine, force": lambda: random_system(21, n=4, k=2, affine=True, force=True),
        "random n=5 k=3": lambda: random_system(22, n=5, k=3),
        "random n=5 k=1": lambda: random_system(23, n=5, k=1),
        "chain N=4": lambda: nh.systems.knife_edge_chain(4),
    }


MODELS = {
    "friction": lambda s: s.friction(0.02),
    "nonholonomic": lambda s: s.nonholonomic(),
    "reduced 0": lambda s: s.reduced(0.02, order=0),
    "reduced 1": lambda s: s.reduced(0.02, order=1),
    "reduced 2": lambda s: s.reduced(0.02, order=2),  # its CompiledSlip's tape replayed into the trace
}


def _states(model, rng, count=4, spread=0.6):
    """Random states, the velocities on the constraint set."""
    system, n = model.system, model.system.n
    out = []
    for _ in range(count):
        q = rng.uniform(-spread, spread, n)
        out.append(np.r_[q, system.project(q, rng.uniform(-1, 1, n), T)])
    return out


def _close(a, b):
    np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-11 * (1 + np.abs(b).max()))


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("tapes")


@pytest.mark.parametrize("system_label", list(_systems()))
@pytest.mark.parametrize("model_label", list(MODELS))
def test_fused_equals_the_model_to_rounding(system_label, model_label, cache):
    model = MODELS[model_label](_systems()[system_label]())
    assert model.core.fusable
    rng = np.random.default_rng(zlib.crc32(f"{system_label}/{model_label}".encode()))
    states = _states(model, rng)
    times = (T, 1.7)
    other = {model.system.parameter_names[0]: 1.3} if model.system.parameter_names else None
    before = [model.rhs(t, y, other if i % 2 else None) for t in times for i, y in enumerate(states)]
    model.compile(cache_dir=cache)
    assert "rhs" in model.core.rhs_tapes and _core.tape_compiled(model.core, "rhs") and model.compiled
    for y in states:
        assert model.core.fused_applies(T, y, model.param_vector())
    after = [model.rhs(t, y, other if i % 2 else None) for t in times for i, y in enumerate(states)]
    for a, b in zip(after, before):
        _close(a, b)
    # the fused kernel reads none of the system's tapes
    for which in _core.tape_names():
        _poison(model, which, cache)
    for a, b in zip([model.rhs(t, y, other if i % 2 else None) for t in times for i, y in enumerate(states)], before):
        _close(a, b)
    for which in _core.tape_names():
        _core.attach_compiled(model.core, which, "", "")


def _poison(model, which, directory):
    _, n_out = _core.diagnostics.tape_size(model.system.core, which)
    source = ("#include <math.h>\nvoid nonholo_tape(const double* in, double* out) {\n  (void)in;\n"
              f"  for (int i = 0; i < {n_out}; ++i) out[i] = NAN;\n}}\n")
    [path] = compiled._build_all([source], compiled._compiler(), directory)
    _core.attach_compiled(model.system.core, which, str(path), "nonholo_tape")


def test_the_chain_takes_the_null_space_form_and_fewer_operations():
    chain = nh.systems.knife_edge_chain(8)
    sizes = {}
    for order in (0, 1):
        info = chain.reduced(1e-4, order=order).core.fuse(chain.reduced(1e-4, order=order).param_vector())
        assert info["form"] == "null-space"
        sizes[order] = info["instructions"]
    nonholonomic = chain.nonholonomic()
    range_space = nonholonomic.core.fuse(nonholonomic.param_vector())
    assert range_space["form"] == "eval"
    # order 0 is the nonholonomic vector field: the null-space form of it is less than half as large
    assert sizes[0] < 0.5 * range_space["instructions"]


def test_where_the_traced_split_is_ill_conditioned_the_model_itself_runs(cache):
    chain = nh.systems.knife_edge_chain(4)
    model = chain.reduced(1e-3, order=1)
    unfused = chain.reduced(1e-3, order=1)
    model.compile(cache_dir=cache)
    p = model.param_vector()
    rng = np.random.default_rng(5)
    fell_back = used = 0
    for y in _states(model, rng, count=60, spread=np.pi):
        expected = unfused.rhs(T, y)
        if model.core.fused_applies(T, y, p):
            used += 1
            _close(model.rhs(T, y), expected)
        else:
            fell_back += 1
            np.testing.assert_array_equal(model.rhs(T, y), expected)  # the model's own evaluation
    assert used > 0 and fell_back > 0


def test_whole_runs_agree(cache):
    chain = nh.systems.knife_edge_chain(4)
    q0 = np.r_[0.0, 0.0, 0.3 * np.sin(np.arange(4))]
    y0 = np.r_[q0, chain.project(q0, np.r_[1.0, 0.0, 0.5, 0, 0, 0])]
    for make in (lambda: chain.reduced(1e-3, order=1), lambda: chain.nonholonomic()):
        plain = nh.simulate(make(), (0, 3), y0, rtol=1e-10, atol=1e-12, t_eval=[3.0])
        fused = nh.simulate(make().compile(cache_dir=cache), (0, 3), y0, rtol=1e-10, atol=1e-12, t_eval=[3.0])
        np.testing.assert_allclose(fused.y, plain.y, atol=1e-8)


def test_models_that_cannot_be_traced_say_so():
    sleigh = nh.systems.chaplygin_sleigh()
    taylor_mode = _core.reduced_model(sleigh.core, 2, None)  # order 2 without a CompiledSlip
    frame_form = sleigh.reduced(1e-3, order=1, velocities="frame")
    for core, params in ((taylor_mode, frame_form.param_vector()), (frame_form.core, frame_form.param_vector())):
        assert not core.fusable
        with pytest.raises(ValueError, match="cannot be fused"):
            core.fuse(params)


def test_a_model_with_no_regular_point_compiles_its_tapes_with_a_warning(cache):
    model = nh.systems.knife_edge_chain(3).with_parameters({"mu": 0.0}).reduced(1e-3, order=1)  # mu nowhere > 0
    with pytest.warns(RuntimeWarning, match="not fused"):
        model.compile(cache_dir=cache)
    assert "rhs" not in model.core.rhs_tapes and model.compiled
