// Generalized coordinate partitioning of triangular constraints (coordinate_partition.hpp).
#include "nonholo/coordinate_partition.hpp"

#include <algorithm>
#include <cmath>

namespace nonholo {

std::shared_ptr<const CoordinatePartition> CoordinatePartition::find(int n, int k, const std::vector<int>& outer,
                                                                     const std::vector<int>& inner) {
  if (k == 0) return nullptr;
  const int m = n - k;
  std::vector<char> known(n, 0), done(k, 0);
  std::vector<int> unknown(k);
  for (int a = 0; a < k; ++a) unknown[a] = outer[a + 1] - outer[a];
  auto p = std::make_shared<CoordinatePartition>();
  std::vector<char> is_independent(n, 0);
  // columns -> rows, to update the counts when a velocity becomes known
  std::vector<std::vector<int>> rows_of(n);
  for (int a = 0; a < k; ++a)
    for (int e = outer[a]; e < outer[a + 1]; ++e) rows_of[inner[e]].push_back(a);
  auto make_known = [&](int j) {
    known[j] = 1;
    for (int a : rows_of[j]) --unknown[a];
  };
  for (int step = 0; step < k; ++step) {
    int row = -1;
    for (int a = 0; a < k; ++a)
      if (!done[a] && (row < 0 || unknown[a] < unknown[row])) row = a;
    if (unknown[row] == 0) return nullptr;  // the row adds no velocity: not triangular (or dependent rows)
    int last = -1;
    for (int e = outer[row]; e < outer[row + 1]; ++e)
      if (!known[inner[e]]) last = std::max(last, inner[e]);
    for (int e = outer[row]; e < outer[row + 1]; ++e) {
      const int j = inner[e];
      if (known[j] || j == last) continue;
      is_independent[j] = 1;
      make_known(j);
    }
    make_known(last);
    done[row] = 1;
    p->rows.push_back(row);
    p->dependent.push_back(last);
  }
  std::vector<char> is_dependent(n, 0);
  for (int j : p->dependent) is_dependent[j] = 1;
  for (int j = 0; j < n; ++j)
    if (!is_dependent[j]) p->independent.push_back(j);
  if (static_cast<int>(p->independent.size()) != m) return nullptr;
  if (p->flops() + kEliminationOverheadFlops >= saddle_point_flops(n, k)) return nullptr;  // must pay
  return p;
}

// forward substitution on m + 1 columns, G Z, Z^T G Z, the m x m solve, G v' and lambda's back
// substitution
double CoordinatePartition::flops() const {
  const double k = static_cast<double>(rows.size()), m = static_cast<double>(independent.size()), n = k + m;
  return (m + 1) * k * k + 2 * n * n * m + n * m * m + m * m * m / 3 + 2 * n * n + k * k + 4 * n * m;
}

bool eliminate(const CoordinatePartition& p, const double* G, const double* A, const double* r, const double* a,
               double* vdot, double* lambda, EliminationWork& w) {
  const int k = static_cast<int>(p.rows.size()), m = static_cast<int>(p.independent.size()), n = k + m;
  auto A_at = [&](int row, int col) { return A[static_cast<std::ptrdiff_t>(row) * n + col]; };
  // pivots against their rows
  for (int i = 0; i < k; ++i) {
    const double* row = A + static_cast<std::ptrdiff_t>(p.rows[i]) * n;
    double largest = 0.0;
    for (int j = 0; j < n; ++j) largest = std::max(largest, std::abs(row[j]));
    if (!(std::abs(A_at(p.rows[i], p.dependent[i])) > kEliminationPivot * largest)) return false;
  }
  // X = A_D^-1 [A_I, a] by forward substitution (row i: its dependent velocities of rows < i)
  w.X.resize(k, m + 1);
  for (int i = 0; i < k; ++i) {
    const int row = p.rows[i];
    for (int c = 0; c < m; ++c) w.X(i, c) = A_at(row, p.independent[c]);
    w.X(i, m) = a[row];
    for (int j = 0; j < i; ++j) {
      const double l = A_at(row, p.dependent[j]);
      if (l != 0.0) w.X.row(i) -= l * w.X.row(j);
    }
    w.X.row(i) /= A_at(row, p.dependent[i]);
  }
  // Z (n x m) and w (in s): the null-space basis and the particular solution
  w.Z.setZero(n, m);
  w.s.setZero(n);
  for (int c = 0; c < m; ++c) w.Z(p.independent[c], c) = 1.0;
  for (int i = 0; i < k; ++i) {
    w.Z.row(p.dependent[i]) = -w.X.row(i).head(m);
    w.s(p.dependent[i]) = w.X(i, m);
  }
  Eigen::Map<const RowMatX<double>> Gm(G, n, n);
  Eigen::Map<const Eigen::VectorXd> rv(r, n);
  w.GZ.noalias() = Gm * w.Z;
  w.H.noalias() = w.Z.transpose() * w.GZ;
  if (!w.chol_H.compute(w.H)) return false;
  w.u.noalias() = w.Z.transpose() * rv;
  w.u.noalias() -= w.GZ.transpose() * w.s;  // Z^T (r - G w), G symmetric
  w.chol_H.solve_in_place(w.u);
  Eigen::Map<Eigen::VectorXd> v(vdot, n);
  v = w.s;
  v.noalias() += w.Z * w.u;
  // lambda: A_D^T lambda_ordered = (G v' - r)_D, back substitution
  w.s.noalias() = Gm * v;
  w.s -= rv;
  for (int i = k - 1; i >= 0; --i) {
    const int col = p.dependent[i];
    double x = w.s(col);
    for (int j = i + 1; j < k; ++j) x -= A_at(p.rows[j], col) * lambda[p.rows[j]];
    lambda[p.rows[i]] = x / A_at(p.rows[i], col);
  }
  return accurate(G, A, r, a, vdot, lambda, n, k, w);
}

bool accurate(const double* G, const double* A, const double* r, const double* a, const double* vdot,
              const double* lambda, int n, int k, EliminationWork& w) {
  Eigen::Map<const RowMatX<double>> Gm(G, n, n), Am(A, k, n);
  Eigen::Map<const Eigen::VectorXd> rv(r, n), av(a, k), v(vdot, n), lam(lambda, k);
  // w.s holds G v' - r (the back substitution's right-hand side)
  const double scale_g = Gm.cwiseAbs().rowwise().sum().maxCoeff() * v.lpNorm<Eigen::Infinity>() +
                         rv.lpNorm<Eigen::Infinity>() +
                         Am.cwiseAbs().colwise().sum().maxCoeff() * lam.lpNorm<Eigen::Infinity>();
  const double scale_a = Am.cwiseAbs().rowwise().sum().maxCoeff() * v.lpNorm<Eigen::Infinity>() +
                         av.lpNorm<Eigen::Infinity>();
  w.u.noalias() = Am.transpose() * lam;
  const double res_g = (w.s - w.u).lpNorm<Eigen::Infinity>();
  w.u.noalias() = Am * v;
  const double res_a = (w.u - av).lpNorm<Eigen::Infinity>();
  return std::isfinite(res_g) && std::isfinite(res_a) && res_g <= kEliminationResidual * scale_g &&
         res_a <= kEliminationResidual * scale_a;
}

}  // namespace nonholo
