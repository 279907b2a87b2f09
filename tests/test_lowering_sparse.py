"""Lowering at a cost in the nonzero entries: lower_parts gives, node for node, the graph of lower
on the flat list of entries (the path System used before, which visits all n^2 entries)."""

import numpy as np
import pytest
import sympy as sp

import nonholo as nh
from nonholo.expressions.lowering import lower, lower_parts, matrix_entries

x, y, z = sp.symbols("x y z", real=True)


def _fields(graph) -> tuple:
    return graph.n_inputs, graph.ops, graph.a, graph.b, graph.n, graph.c, graph.outputs


def _flat(parts) -> list:
    """The entries of ``parts`` as System lowered them before: every entry of every matrix, row-major."""
    return [e for part in parts for e in (list(part) if isinstance(part, sp.MatrixBase) else [part])]


def _random_sparse_matrix(rng, rows, cols, density):
    atoms = [x, y, z, sp.sin(x), x * y, sp.Integer(2), sp.Float(0.0), sp.Rational(1, 3) * z**2, -y]
    return sp.Matrix(rows, cols, lambda i, j: atoms[rng.integers(len(atoms))] if rng.random() < density else 0)


@pytest.mark.parametrize("seed", range(12))
def test_random_sparse_parts_lower_to_the_dense_graph(seed):
    rng = np.random.default_rng(seed)
    parts = []
    for _ in range(rng.integers(1, 6)):
        if rng.random() < 0.25:
            parts.append([x * z + 1, sp.S.Zero, sp.Float(0.0), y][rng.integers(4)])  # a scalar part
        else:
            density = [0.0, 0.2, 0.6, 1.0][rng.integers(4)]
            parts.append(_random_sparse_matrix(rng, int(rng.integers(1, 6)), int(rng.integers(1, 6)), density))
    assert _fields(lower_parts(parts, [x, y, z])) == _fields(lower(_flat(parts), [x, y, z]))


def test_zero_entries_share_one_constant_node_emitted_where_the_dense_walk_meets_the_first_zero():
    M = sp.Matrix([[sp.sin(x), 0, 0], [0, x * y, 0]])
    graph = lower_parts([M, sp.zeros(2, 2), M.T], [x, y])
    assert _fields(graph) == _fields(lower(_flat([M, sp.zeros(2, 2), M.T]), [x, y]))
    zero = graph.outputs[1]
    assert graph.c[zero] == 0.0 and graph.outputs.count(zero) == 4 + 4 + 4
    assert matrix_entries(M) == {0: sp.sin(x), 4: x * y}


def _applied_force_system():
    """A damped particle with the applied force given (System's path with seven parts)."""
    q1, q2, v1, v2 = sp.symbols("q1 q2 q1_dot q2_dot")
    c = sp.Symbol("c", positive=True)
    F = sp.Matrix([-c * v1, 0])
    return nh.System([q1, q2], sp.Matrix([[2, 0], [0, 3]]), constraints=sp.Matrix([[1, q1]]), force=F,
                     applied_force=F, velocities=[v1, v2], parameters={c: 0.5})


SYSTEMS = {
    "chaplygin_sleigh": nh.systems.chaplygin_sleigh,
    "knife_edge_chain": lambda: nh.systems.knife_edge_chain(4),
    "platoon": lambda: nh.systems.platoon(3),
    "ball_on_turntable": nh.systems.ball_on_turntable,  # affine constraints
    "applied_force": _applied_force_system,
    "unconstrained": lambda: nh.System([x, y], sp.diag(1 + x**2, 2), potential=x**2 * y),  # k = 0: empty parts
}


@pytest.mark.parametrize("name", SYSTEMS)
def test_system_graph_is_the_dense_reference(name):
    system = SYSTEMS[name]()
    parts = [system.metric, system.potential, system.constraints, system.affine, system.friction_coefficients,
             system.force, *([] if system.applied_force is None else [system.applied_force])]
    reference = lower(_flat(parts), system._inputs)
    assert _fields(system._graph) == _fields(reference)
    assert len(system._graph.outputs) == system.n**2 + 1 + system.k * system.n + system.k + system.k**2 + system.n \
        + (0 if system.applied_force is None else system.n)


def test_metric_symmetry_is_checked_numerically_where_the_expressions_differ():
    q1, q2 = sp.symbols("q1 q2")
    # G_01 and G_10 differ as expressions but not as functions: accepted
    G = sp.Matrix([[3, 2 * sp.sin(q1) * sp.cos(q1) / 4], [sp.sin(2 * q1) / 4, 3]])
    assert G[0, 1] != G[1, 0]
    nh.System([q1, q2], G)
    # a nonzero G_01 against a zero G_10 (asymmetric pattern): rejected
    with pytest.raises(nh.ModelError, match="metric is not symmetric"):
        nh.System([q1, q2], sp.Matrix([[3, q1 / 4], [0, 3]]))
