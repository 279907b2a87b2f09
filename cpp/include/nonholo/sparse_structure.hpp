// The structure of a large sparse system: which entries of G, A and mu are not structurally
// zero (the sparse tape computes only those), and, from the graph, which states the
// accelerations of each coupled group of coordinates can depend on (the pattern of the
// Jacobian and a colouring of its columns, so that a few directional derivatives give all of it).
//
// Coordinates i and j are coupled when G_ij != 0, when one constraint row involves both, or when
// mu couples two rows that involve them. The saddle-point solve of the nonholonomic model and
// the metric solve of the friction model never mix uncoupled groups (their matrices are block
// diagonal over the groups, up to a permutation), so v'_i of group C depends on a state only
// through the tape outputs of C: G's rows in C, A, b, a and mu of C's constraint rows, r on C,
// and, for the friction force A^T mu (A v - b), the velocities C's constraint rows read. That
// union is the structural pattern of row v'_i: exact unless values cancel. Curtis, Powell and
// Reid (1974): columns that share no row may share one directional derivative.
#pragma once

#include <vector>

#include "nonholo/tape/graph.hpp"

namespace nonholo {

// The sparse tape's outputs, in order: G's nonzeros (column by column, rows ascending), A's
// (row by row, columns ascending), b (k), mu's (row by row), r (n), a (k).
struct SparseLayout {
  int n = 0, k = 0;
  std::vector<int> G_outer, G_inner;    // CSC: column j holds rows G_inner[G_outer[j] .. G_outer[j+1])
  std::vector<int> A_outer, A_inner;    // CSR: row a holds columns A_inner[A_outer[a] .. A_outer[a+1])
  std::vector<int> mu_outer, mu_inner;  // CSR
  int G = 0, A = 0, b = 0, mu = 0, r = 0, a = 0, total = 0;  // offsets in the outputs

  int nnz_G() const { return static_cast<int>(G_inner.size()); }
  int nnz_A() const { return static_cast<int>(A_inner.size()); }
  int nnz_mu() const { return static_cast<int>(mu_inner.size()); }
  // The layout of the entries of G, A and mu that are not the constant 0 among the outputs of
  // the base graph (dense, row-major, at the offsets of GeometryLayout).
  static SparseLayout from_base(const ExprGraph& base, int n, int k, int G_offset, int A_offset, int mu_offset);
  // Nonzeros of G, A and mu over their dense sizes (0 <= density <= 1).
  double density() const;
};

// The pattern of the state Jacobian d(q', v')/d(q, v) (2n x 2n, q' = v) and its colouring.
struct JacobianStructure {
  int n = 0;
  std::vector<int> group;                      // coupled group of each coordinate
  std::vector<int> group_of_row;               // group of each constraint row
  std::vector<std::vector<int>> group_columns; // sorted state columns v' of the group depends on
  std::vector<int> color;                      // of each state column
  int n_colors = 0;
  // CSC of the 2n x 2n pattern, with the diagonal (CVODE's Newton matrix I - gamma J).
  std::vector<int> outer, inner;
  // Where each stored entry's value comes from: kOne (q' = v), kZero (a diagonal filler), or
  // the directional derivative of colour color[column] at the entry's row (kDerivative).
  enum Source : signed char { kZero = 0, kOne = 1, kDerivative = 2 };
  std::vector<signed char> source;
  int nnz() const { return static_cast<int>(inner.size()); }
};

// output_inputs[j]: the sorted inputs among 0 .. n_tracked - 1 that output j of g depends on.
std::vector<std::vector<int>> output_input_sets(const ExprGraph& g, int n_tracked);

// The Jacobian structure from the layout and the input sets of the sparse tape's outputs (on
// the inputs q, v); `reads_slip`: the kind's right-hand side reads the slip A v - b outside the
// tape (a force of the slip, as the friction model's: the velocities of each constraint row's
// columns), where otherwise it reads the tape's a (the saddle point's).
JacobianStructure jacobian_structure(const SparseLayout& layout, const std::vector<std::vector<int>>& output_inputs,
                                     bool reads_slip);

}  // namespace nonholo
