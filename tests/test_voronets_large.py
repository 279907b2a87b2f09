"""The Voronets frame of many constraints: a well-conditioned block A_s is not singular however many
rows it has (|det A_s| / ||A_s||^k, the old test, shrinks like c^k: 20 knife edges were refused)."""

import numpy as np
import sympy as sp

import nonholo as nh


def test_twenty_knife_edges_have_a_voronets_frame_and_its_hamel_model_is_the_nonholonomic_one():
    N = 20
    q, rows = [], []
    for i in range(N):
        x, y, th = sp.symbols(f"x{i} y{i} th{i}")
        q += [x, y, th]
        row = [0] * (3 * N)
        row[3 * i], row[3 * i + 1] = -sp.sin(th), sp.cos(th)
        rows.append(row)
    knives = nh.System(q, sp.eye(3 * N), constraints=sp.Matrix(rows))
    frame = nh.frames.AnholonomicFrame(knives)
    assert frame.rank == 2 * N and len(frame.solved) == N
    headings = np.linspace(-0.6, 0.6, N)
    q0 = np.zeros(3 * N)
    q0[2::3] = headings
    v0 = np.zeros(3 * N)
    v0[0::3], v0[1::3], v0[2::3] = np.cos(headings), np.sin(headings), 0.3  # each knife along its heading
    coordinates = nh.simulate(knives.nonholonomic(), (0, 1), np.r_[q0, v0], t_eval=[1.0], rtol=1e-10, atol=1e-12)
    hamel = nh.simulate(frame.hamel(), (0, 1), frame.state(q0, v0), t_eval=[1.0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hamel.q, coordinates.q, atol=1e-8)
    # each knife turns at its constant rate and runs along a circle of radius 1 / 0.3
    np.testing.assert_allclose(coordinates.q[2::3, -1], headings + 0.3, atol=1e-9)
