#include "nonholo/sparse_symmetric.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/OrderingMethods>

namespace nonholo {

namespace {

// The coordinates' elimination order: approximate minimum degree on the pattern of G + A^T A
// (the coordinates a constraint row involves become neighbours, as after its elimination).
std::vector<int> coordinate_order(const SparseLayout& L, bool saddle) {
  std::vector<Eigen::Triplet<double>> entries;
  for (int j = 0; j < L.n; ++j)
    for (int e = L.G_outer[j]; e < L.G_outer[j + 1]; ++e) entries.emplace_back(L.G_inner[e], j, 1.0);
  for (int i = 0; i < L.n; ++i) entries.emplace_back(i, i, 1.0);
  if (saddle)
    for (int a = 0; a < L.k; ++a)
      for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e)
        for (int f = L.A_outer[a]; f < L.A_outer[a + 1]; ++f) entries.emplace_back(L.A_inner[e], L.A_inner[f], 1.0);
  SparseMatrixD pattern(L.n, L.n);
  pattern.setFromTriplets(entries.begin(), entries.end());
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> order;
  Eigen::AMDOrdering<int>()(pattern, order);  // order.indices()[new position] = coordinate
  return std::vector<int>(order.indices().data(), order.indices().data() + L.n);
}

}  // namespace

SymmetricPattern::SymmetricPattern(const SparseLayout& L, bool saddle) : saddle_(saddle) {
  const int n = L.n, k = saddle ? L.k : 0;
  size_ = n + k;
  const std::vector<int> order = coordinate_order(L, saddle);
  // each constraint row right after the last of its coordinates in that order
  std::vector<int> rank(n);
  for (int r = 0; r < n; ++r) rank[order[r]] = r;
  std::vector<std::vector<int>> rows_after(n + 1);
  for (int a = 0; a < k; ++a) {
    int last = -1;
    for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) last = std::max(last, rank[L.A_inner[e]]);
    rows_after[last < 0 ? n : last].push_back(a);  // an empty row last (its pivot vanishes)
  }
  position_.assign(size_, -1);
  int next = 0;
  for (int r = 0; r <= n; ++r) {
    if (r < n) position_[order[r]] = next++;
    for (int a : rows_after[r]) position_[n + a] = next++;
  }
  // the lower triangle; each entry's value is its id + 1, to find its slot after compression
  std::vector<Eigen::Triplet<double>> entries;
  std::vector<int> id_G(L.nnz_G(), -1), id_A(L.nnz_A(), -1), id_diag(n, -1);
  int ids = 0;
  for (int j = 0; j < n; ++j)
    for (int e = L.G_outer[j]; e < L.G_outer[j + 1]; ++e) {
      const int row = position_[L.G_inner[e]], col = position_[j];
      if (row < col) continue;  // the upper copy: its transpose is in the (symmetric) pattern
      id_G[e] = ids;
      if (row == col) id_diag[j] = ids;
      entries.emplace_back(row, col, ++ids);
    }
  for (int i = 0; i < n; ++i)
    if (id_diag[i] < 0) {  // a diagonal G leaves structurally zero (the weighted projection fills it)
      id_diag[i] = ids;
      entries.emplace_back(position_[i], position_[i], ++ids);
    }
  for (int a = 0; a < k; ++a) {
    for (int e = L.A_outer[a]; e < L.A_outer[a + 1]; ++e) {
      id_A[e] = ids;
      entries.emplace_back(position_[n + a], position_[L.A_inner[e]], ++ids);
    }
    entries.emplace_back(position_[n + a], position_[n + a], 0.0);  // the zero block's diagonal
  }
  lower_.resize(size_, size_);
  lower_.setFromTriplets(entries.begin(), entries.end());
  lower_.makeCompressed();
  std::vector<int> slot_of_id(ids, -1);
  for (int s = 0; s < lower_.nonZeros(); ++s) {
    const double id = lower_.valuePtr()[s];
    if (id > 0) slot_of_id[static_cast<int>(id) - 1] = s;
    lower_.valuePtr()[s] = 0.0;
  }
  auto slots = [&](const std::vector<int>& ids_of) {
    std::vector<int> out(ids_of.size(), -1);
    for (std::size_t e = 0; e < ids_of.size(); ++e)
      if (ids_of[e] >= 0) out[e] = slot_of_id[ids_of[e]];
    return out;
  };
  G_slot_ = slots(id_G);
  A_slot_ = slots(id_A);
  diagonal_slot_ = slots(id_diag);
}

void SymmetricSolver::assemble(const SymmetricPattern& P, const double* G, const double* A) {
  if (matrix_.rows() != P.size()) matrix_ = P.lower();
  double* values = matrix_.valuePtr();
  const std::vector<int>& G_slot = P.G_slot();
  for (std::size_t e = 0; e < G_slot.size(); ++e)
    if (G_slot[e] >= 0) values[G_slot[e]] = G[e];
  if (P.saddle())
    for (std::size_t e = 0; e < P.A_slot().size(); ++e) values[P.A_slot()[e]] = A[e];
}

void SymmetricSolver::assemble_weighted(const SymmetricPattern& P, const double* w, const double* A) {
  if (matrix_.rows() != P.size()) matrix_ = P.lower();
  Eigen::Map<Eigen::VectorXd>(matrix_.valuePtr(), matrix_.nonZeros()).setZero();
  for (std::size_t i = 0; i < P.diagonal_slot().size(); ++i) matrix_.valuePtr()[P.diagonal_slot()[i]] = w[i];
  for (std::size_t e = 0; e < P.A_slot().size(); ++e) matrix_.valuePtr()[P.A_slot()[e]] = A[e];
}

bool SymmetricSolver::factor(const SymmetricPattern& P, bool definite) {
  if (!analyzed_) {
    ldlt_.analyzePattern(matrix_);
    analyzed_ = true;
  }
  ldlt_.factorize(matrix_);
  if (ldlt_.info() != Eigen::Success) return false;
  const Eigen::VectorXd& d = ldlt_.vectorD();
  int negative = 0;
  for (int i = 0; i < d.size(); ++i) {
    if (d[i] == 0.0 || !std::isfinite(d[i])) return false;
    negative += d[i] < 0.0;
  }
  const int k = P.size() - static_cast<int>(P.diagonal_slot().size());
  return !definite || negative == k;
}

void SymmetricSolver::solve(const SymmetricPattern& P, const double* b, double* x) {
  const std::vector<int>& position = P.position();
  permuted_.resize(P.size());
  for (int i = 0; i < P.size(); ++i) permuted_[position[i]] = b[i];
  solution_ = ldlt_.solve(permuted_);
  for (int i = 0; i < P.size(); ++i) x[i] = solution_[position[i]];
}

}  // namespace nonholo
