"""model.compile() compiles exactly the tapes each model kind's right-hand side evaluates in
doubles (``core.rhs_tapes``), the system's and the model's own (a CompiledSlip's h^(1..K), a
frame's), and compiled values equal the interpreter's bit for bit (``fuse=False``: the fused
right-hand side, equal to rounding, is tested in test_fused_rhs.py); without a C compiler the
interpreter stays, with a RuntimeWarning.

The list is checked by poisoning: a kernel that writes NaN, attached to a tape, makes every
evaluation that reads the tape in doubles non-finite. Poisoning a tape outside the list leaves
the right-hand side as it was (the list misses nothing it reads); poisoning one inside makes the
right-hand side (or, for the drift control's constraint tape, the constraint residual; for the
implicit Jacobian's tape, the Jacobian) non-finite (the list holds nothing it does not read).
"""

import os
import zlib
import warnings

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo import _core
from nonholo.expressions import compiled
from nonholo.system.frames import AnholonomicFrame
from nonholo.testing import random_system

pytestmark = pytest.mark.slow  # compiles C kernels

T = 0.3


def _sleigh_body_frame(system):
    phi = system.coordinates[2]
    return sp.Matrix([[sp.cos(phi), 0, -sp.sin(phi)], [sp.sin(phi), 0, sp.cos(phi)], [0, 1, 0]])


def _models():
    """(label, factory) for every model kind: each factory builds a fresh system, so tapes
    attached in one case (shared by the system's models) do not leak into another."""
    def affine():
        return random_system(11, n=4, k=2, affine=True, force=True)

    def linear():
        return random_system(12, n=4, k=2, force=True)

    def taylor(system):  # order 2 without a CompiledSlip: Taylor mode, projection tape in doubles
        return nh.Model(system, "reduced", _core.reduced_model(system.core, 2, None), {"eps": 0.01}, order=2,
                        state_names=system.state_names())

    def sleigh_frame(kind):
        system = nh.systems.chaplygin_sleigh()
        frame = AnholonomicFrame(system, _sleigh_body_frame(system))
        return frame.hamel() if kind == "hamel" else system.reduced(1e-3, order=1, velocities="frame", frame=frame)

    return [
        ("nonholonomic", lambda: affine().nonholonomic()),
        ("friction", lambda: affine().friction(1e-3)),
        ("friction, implicit Jacobian", lambda: nh.systems.knife_edge_chain(3).friction(1e-3)),
        ("vakonomic", lambda: affine().vakonomic()),
        ("reduced 0", lambda: affine().reduced(0.01, order=0)),
        ("reduced 1", lambda: affine().reduced(0.01, order=1)),
        ("reduced 2, CompiledSlip", lambda: affine().reduced(0.01, order=2)),
        ("reduced 2, Taylor mode", lambda: taylor(affine())),
        ("reduced frame 1, Voronets", lambda: linear().reduced(0.01, order=1, velocities="frame")),
        ("reduced frame 2, Voronets", lambda: linear().reduced(0.01, order=2, velocities="frame")),
        ("reduced frame 1, body frame", lambda: sleigh_frame("reduced")),
        ("hamel, Voronets", lambda: AnholonomicFrame(linear()).hamel()),
        ("hamel, body frame", lambda: sleigh_frame("hamel")),
        ("frame vakonomic, Voronets", lambda: AnholonomicFrame(linear()).vakonomic()),
    ]


def _states(model, rng, count=3):
    """Random states with the velocities on the constraint set (coordinate forms)."""
    system, n = model.system, model.system.n
    out = []
    for _ in range(count):
        q = rng.uniform(-0.6, 0.6, n)
        rest = rng.uniform(-1, 1, model.n_states - n)
        if model.n_states >= 2 * n and model.kind != "frame_vakonomic":
            rest[:n] = system.project(q, rest[:n], T)
        out.append(np.r_[q, rest])
    return out


def _poison(model, which, directory):
    """Attach to the tape `which` a kernel writing NaN to every output."""
    _, n_out = _core.diagnostics.tape_size(model.core, which)
    source = ("#include <math.h>\nvoid nonholo_tape(const double* in, double* out) {\n  (void)in;\n"
              f"  for (int i = 0; i < {n_out}; ++i) out[i] = NAN;\n}}\n")
    [path] = compiled._build_all([source], compiled._compiler(), directory)
    _core.attach_compiled(model.core, which, str(path), "nonholo_tape")


def _evaluations(model, states):
    p = model.param_vector()
    rhs = [model.core.rhs(T, y, p) for y in states]
    residual = [model.core.constraint_residual(T, y, p)[0] for y in states]
    jac = [model.core.jacobian(T, y, p) for y in states[:1]] if model.stiff else []
    return rhs, residual, jac


def _finite(values) -> bool:
    return all(np.all(np.isfinite(v)) for v in values)


def _poisoned(evaluate) -> bool:
    """True when an evaluation read a poisoned tape: non-finite values, or a factorization that
    failed on them (ModelError)."""
    try:
        return not _finite(evaluate())
    except nh.ModelError:
        return True


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """One cache for the module: the cases share systems (same sources) and poison kernels."""
    return tmp_path_factory.mktemp("tapes")


@pytest.mark.parametrize("label", [label for label, _ in _models()])
def test_default_tapes_are_the_right_hand_sides_and_compile_bit_for_bit(label, cache):
    tmp_path = cache
    model = dict(_models())[label]()
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    states = _states(model, rng)
    before = _evaluations(model, states)
    assert _finite(before[0])
    tapes = model.core.rhs_tapes
    assert tapes and set(tapes) <= set(model.core.tape_names)

    model.compile(cache_dir=tmp_path, fuse=False)
    assert model.compiled
    assert all(_core.tape_compiled(model.core, which) for which in tapes)
    assert not any(_core.tape_compiled(model.core, which) for which in model.core.tape_names if which not in tapes)
    after = _evaluations(model, states)
    for b, a in zip(before, after):
        for x, y in zip(b, a):
            np.testing.assert_array_equal(y, x)  # bit for bit (-ffp-contract=off)

    # nothing outside the list is read in doubles
    for which in model.core.tape_names:
        if which not in tapes:
            _poison(model, which, tmp_path)
    np.testing.assert_array_equal(np.array(_evaluations(model, states)[0]), np.array(before[0]))
    # and everything in it is
    p = model.param_vector()
    evaluations = {"constraints": lambda: [model.core.constraint_residual(T, y, p)[0] for y in states],
                   "jacobian": lambda: [model.core.jacobian(T, states[0], p)]}
    for which in tapes:
        _poison(model, which, tmp_path)
        assert _poisoned(evaluations.get(which, lambda: [model.core.rhs(T, y, p) for y in states])), which
        _core.attach_compiled(model.core, which, "", "")


def test_the_implicit_jacobian_tape_is_compiled_where_the_jacobian_uses_it():
    chain = nh.systems.knife_edge_chain(3).friction(1e-3)
    assert chain.core.jacobian_cost < chain.core.dual_jacobian_cost  # implicit differentiation
    assert chain.core.rhs_tapes == ["dynamics", "jacobian"]
    disc = nh.systems.rolling_disc().friction(1e-3)
    assert disc.core.jacobian_cost < disc.core.dual_jacobian_cost  # implicit differentiation too,
    assert disc.core.rhs_tapes == ["dynamics"]  # but its Jacobian tape is 10x the dynamics tape: not built


def test_compiled_slip_tape_and_the_slip_it_gives(cache):
    tmp_path = cache
    system = random_system(11, n=4, k=2, affine=True, force=True)
    model = system.reduced(0.02, order=2)
    assert model.compiled_slip is not None and model.core.rhs_tapes == ["slip", "projection"]
    # over 2000 instructions: the C source is split into functions passing values through an array
    assert "nonholo_tape_1(" in _core.tape_c_source(model.core, "slip", "nonholo_tape")
    rng = np.random.default_rng(3)
    q = rng.uniform(-0.5, 0.5, 4)
    u = system.project(q, rng.uniform(-1, 1, 4), T)
    slip = model.slip(T, q, u)
    Y = np.array([np.r_[q, u]] * 2)
    velocity = model._velocity(np.array([T, T]), Y, model.param_vector())
    model.compile(cache_dir=tmp_path)
    assert _core.tape_compiled(model.core, "slip")
    np.testing.assert_array_equal(model.slip(T, q, u), slip)
    np.testing.assert_array_equal(model._velocity(np.array([T, T]), Y, model.param_vector()), velocity)
    # the CompiledSlip is shared: another model of the system and order finds it compiled
    assert system.reduced(0.05, order=2).compiled


def test_order_auto_compiles_the_order_it_chooses(tmp_path):
    system = nh.systems.chaplygin_sleigh()
    model = system.reduced(1e-2, order="auto", max_order=2).compile(cache_dir=tmp_path)
    y0 = np.array([0, 0, 0, -1.5, 0, 1.0])
    chosen = model.truncated_at(0.0, y0)
    assert chosen.order >= 1 and chosen.compiled


def test_without_a_compiler_the_interpreter_stays_with_a_warning(tmp_path, monkeypatch):
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))
    monkeypatch.setenv("PATH", str(empty))
    model = random_system(14, n=3, k=1).reduced(0.01, order=1)
    y = _states(model, np.random.default_rng(4), 1)[0]
    before = model.rhs(T, y)
    with pytest.warns(RuntimeWarning, match="no C compiler"):
        model.compile(cache_dir=tmp_path)
    assert not model.compiled and not any(tmp_path.glob("*.so"))
    np.testing.assert_array_equal(model.rhs(T, y), before)


def test_bad_tape_names_are_rejected(tmp_path):
    model = nh.systems.chaplygin_sleigh().reduced(1e-3, order=1)
    with pytest.raises(ValueError, match="tapes must be among"):
        model.compile(tapes=("slip",), cache_dir=tmp_path)  # order 1 has no CompiledSlip
    with pytest.raises(ValueError, match="reduced model's tapes"):
        _core.tape_c_source(model.core, "frame", "f")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.compile(tapes=("split_base",), cache_dir=tmp_path)
    assert _core.tape_compiled(model.core, "split_base") and not model.compiled
    assert os.listdir(tmp_path)


def test_a_cached_object_that_fails_to_load_is_rebuilt(tmp_path):
    """A cache shared by the nodes of a cluster may hold an object cut short (a node crashed or ran
    out of disk while writing it) or built elsewhere: it is built again, not an error, and the
    model integrates as the interpreter does."""
    system = nh.systems.chaplygin_sleigh()
    q = np.array([0.0, 0.0, 0.3])
    y0 = np.r_[q, system.project(q, np.array([1.0, 0.2, 0.5]), 0.0)]
    reference = nh.simulate(system.nonholonomic(), (0, 2), y0, t_eval=[1.0, 2.0])
    model = nh.systems.chaplygin_sleigh().nonholonomic()
    sources = [_core.tape_c_source(model.core, which, compiled._SYMBOL) for which in model.core.rhs_tapes]
    paths = compiled._build_all(sources, compiled._compiler(), tmp_path)  # built, never loaded
    assert len(paths) == 2 and all(compiled._complete(p) for p in paths)
    with open(paths[0], "r+b") as f:  # cut short: found before loading (loading it could crash)
        f.truncate(paths[0].stat().st_size // 3)
    paths[1].write_bytes(b"not a shared object" * 100)  # garbage: the loader refuses it
    assert not compiled._complete(paths[0]) and not compiled._complete(tmp_path / "missing.so")
    model.compile(cache_dir=tmp_path, fuse=False)
    assert model.compiled
    assert all(compiled._complete(p) for p in paths) and sorted(tmp_path.glob("*.so")) == sorted(paths)
    assert not [p for p in tmp_path.iterdir() if p.suffix != ".so"]  # no temporary left behind
    run = nh.simulate(model, (0, 2), y0, t_eval=[1.0, 2.0])
    np.testing.assert_array_equal(run.y, reference.y)


def test_the_cache_key_holds_the_machine_and_the_compiler_version(monkeypatch):
    command, source = ["/usr/bin/cc", *compiled.FLAGS], "void nonholo_tape(const double* in, double* out) {}\n"
    monkeypatch.setattr(compiled, "_machine", lambda: "x86_64")
    monkeypatch.setattr(compiled, "_compiler_version", lambda compiler: "cc (GCC) 12.2.0")
    base = compiled._digest(command, source)
    assert compiled._digest(command, source) == base
    assert compiled._digest(command, source + " ") != base
    assert compiled._digest([command[0], "-O2", *command[2:]], source) != base
    monkeypatch.setattr(compiled, "_machine", lambda: "aarch64")
    assert compiled._digest(command, source) != base
    monkeypatch.setattr(compiled, "_machine", lambda: "x86_64")
    monkeypatch.setattr(compiled, "_compiler_version", lambda compiler: "cc (GCC) 13.1.0")
    assert compiled._digest(command, source) != base


def test_the_compiler_version_is_asked_once_per_process(monkeypatch):
    calls = []
    real_run = compiled.subprocess.run

    def counting_run(args, **kwargs):
        calls.append(args)
        return real_run(args, **kwargs)

    compiler = compiled._compiler()
    assert compiler is not None  # the Makefile installs one (g++ with gcc)
    compiled._compiler_version.cache_clear()
    monkeypatch.setattr(compiled.subprocess, "run", counting_run)
    first = compiled._compiler_version(compiler)
    assert compiled._compiler_version(compiler) == first and len(calls) == 1
    assert first  # cc --version answers with a line naming it
    assert compiled._compiler_version("/no/such/compiler") == ""


def test_a_sparse_model_is_not_reported_compiled():
    """compile() on a sparse model says that its sparse tape is interpreted (no C translation) and compiles
    nothing; model.compiled read True all the same, from the dense tapes it also holds (an outside probe's).
    A dense model of the same system reads True after compile()."""
    sparse = nh.systems.knife_edge_chain(8).nonholonomic(sparse=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sparse.compile()
    assert any("nothing was compiled" in str(w.message) for w in caught) and sparse.compiled is False
    assert nh.systems.knife_edge_chain(8).nonholonomic().compile().compiled is True


def test_the_reduced_model_of_a_law_compiles_its_systems_tapes_bit_for_bit(tmp_path):
    """A law's reduced model has compile() and compiled as every model: the system's tapes its
    right-hand side reads are compiled and the run is bit for bit the interpreter's (the law's own
    tapes stay interpreted); the default run (compile=False) is the reference."""
    system = nh.systems.chaplygin_sleigh()
    law = nh.laws.Coulomb(0.5, v_s=1e-3)
    model = system.reduced(order=2, law=law, normal=9.81)
    y0 = np.array([0, 0, 0, 1.0, 0, 0.3])
    before = nh.simulate(model, (0, 2), y0)
    assert before.status == 0 and not model.compiled
    assert model.compile(cache_dir=tmp_path) is model
    assert model.compiled
    assert all(_core.tape_compiled(model.core, which) for which in model.core.rhs_tapes)
    after = nh.simulate(model, (0, 2), y0)
    np.testing.assert_array_equal(after.y, before.y)
