// The symmetric matrices the sparse models factor, by a sparse L D L^T of fixed pattern:
//   friction:      G                       (n x n, positive definite)
//   nonholonomic:  K = [G, A^T; A, 0]      ((n + k) x (n + k), n positive and k negative pivots)
// K is ordered so that no pivot is structurally zero: the coordinates in approximate minimum
// degree order of the pattern of G + A^T A, each constraint row right after the last coordinate
// it involves. Every leading block is then [G_S, A_S^T; A_S, 0] with G_S positive definite and
// A_S of full row rank (each row's coordinates all in S), hence regular, and the elimination
// needs no pivoting: its cost follows the fill of the pattern (linear in n for block-diagonal
// G and A) instead of the dense path's n^3. Solving K [v'; m] = [r; a] gives the
// Lagrange-d'Alembert accelerations with m = -lambda (Lewis-Murray 1995, eq. (2.1)).
#pragma once

#include <string>
#include <vector>

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>

#include "nonholo/sparse_structure.hpp"

namespace nonholo {

using SparseMatrixD = Eigen::SparseMatrix<double, Eigen::ColMajor, int>;

// The ordering and the pattern (built once per model).
class SymmetricPattern {
 public:
  SymmetricPattern(const SparseLayout& layout, bool saddle);

  int size() const { return size_; }
  bool saddle() const { return saddle_; }
  // New index of unknown x: coordinates 0 .. n-1, constraint rows n .. n+k-1.
  const std::vector<int>& position() const { return position_; }
  // The lower triangle with its diagonal, in the new order, values zero.
  const SparseMatrixD& lower() const { return lower_; }
  // Slot in lower()'s values of each of the sparse tape's G entries (-1: the upper copy), of each
  // A entry, and of the diagonal of each coordinate.
  const std::vector<int>& G_slot() const { return G_slot_; }
  const std::vector<int>& A_slot() const { return A_slot_; }
  const std::vector<int>& diagonal_slot() const { return diagonal_slot_; }

 private:
  int size_ = 0;
  bool saddle_ = false;
  std::vector<int> position_, G_slot_, A_slot_, diagonal_slot_;
  SparseMatrixD lower_;
};

// One factorization at a time of a matrix of that pattern (a workspace's).
class SymmetricSolver {
 public:
  // The matrix with G's values (and A's for the saddle point) from the sparse tape's outputs.
  void assemble(const SymmetricPattern& P, const double* G, const double* A);
  // The saddle point with diag(w) in place of G (the projection in a weighted norm).
  void assemble_weighted(const SymmetricPattern& P, const double* w, const double* A);
  // Factors what was assembled; false when a pivot vanishes or the inertia is not (n, k) for a
  // definite metric (G not positive definite, or dependent constraint rows).
  bool factor(const SymmetricPattern& P, bool definite);
  // x = K^-1 b in the original order (b and x of size P.size(); may alias).
  void solve(const SymmetricPattern& P, const double* b, double* x);

 private:
  SparseMatrixD matrix_;
  Eigen::SimplicialLDLT<SparseMatrixD, Eigen::Lower, Eigen::NaturalOrdering<int>> ldlt_;
  bool analyzed_ = false;
  Eigen::VectorXd permuted_, solution_;
};

}  // namespace nonholo
