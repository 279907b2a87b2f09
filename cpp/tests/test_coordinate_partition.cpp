// Elimination of triangular constraints (coordinate_partition.hpp): the partition found from a
// pattern (a chain's, the same with rows and columns shuffled; none for a dense pattern, for
// dependent rows, or where it does not pay), and v', lambda of G v' = r + A^T lambda, A v' = a
// against a dense solve of the saddle-point system; a small pivot declines.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "check.hpp"
#include "nonholo/coordinate_partition.hpp"

using nonholo::CoordinatePartition;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

namespace {

struct Pattern {
  int n = 0, k = 0;
  std::vector<int> outer{0}, inner;
  std::vector<std::vector<char>> has;  // has[a][j]
};

// Row a of a chain: the two free velocities and the first a + 1 headings, with rows and columns
// renamed by the permutations.
Pattern chain(int k, const std::vector<int>& row_perm, const std::vector<int>& col_perm) {
  Pattern P;
  P.k = k;
  P.n = k + 2;
  P.has.assign(k, std::vector<char>(P.n, 0));
  for (int a = 0; a < k; ++a)
    for (int j = 0; j < a + 3; ++j) P.has[row_perm[a]][col_perm[j]] = 1;
  for (int a = 0; a < k; ++a) {
    for (int j = 0; j < P.n; ++j)
      if (P.has[a][j]) P.inner.push_back(j);
    P.outer.push_back(static_cast<int>(P.inner.size()));
  }
  return P;
}

std::vector<int> identity(int n) {
  std::vector<int> p(n);
  std::iota(p.begin(), p.end(), 0);
  return p;
}

void check_against_dense_solve(const Pattern& P, const CoordinatePartition& part, std::mt19937& rng) {
  std::normal_distribution<double> normal;
  const int n = P.n, k = P.k;
  MatrixXd B(n, n);
  for (int i = 0; i < B.size(); ++i) B.data()[i] = normal(rng);
  const RowMat G = B * B.transpose() + n * MatrixXd::Identity(n, n);
  // pivots of size 2-3, the other dependent entries O(1 / sqrt(k)): a triangular A_D with random
  // O(1) entries below its diagonal has a condition number growing like 2^k
  std::vector<int> row_of(n, -1);
  for (int i = 0; i < k; ++i) row_of[part.dependent[i]] = part.rows[i];
  RowMat A = RowMat::Zero(k, n);
  for (int a = 0; a < k; ++a)
    for (int j = 0; j < n; ++j) {
      if (!P.has[a][j]) continue;
      if (row_of[j] == a) A(a, j) = (normal(rng) > 0 ? 1.0 : -1.0) * (2.0 + std::abs(normal(rng)) / 2);
      else if (row_of[j] >= 0) A(a, j) = normal(rng) / std::sqrt(double(k));
      else A(a, j) = normal(rng);
    }
  VectorXd r(n), acc(k);
  for (int i = 0; i < n; ++i) r[i] = normal(rng);
  for (int a = 0; a < k; ++a) acc[a] = normal(rng);
  MatrixXd K = MatrixXd::Zero(n + k, n + k);
  K.topLeftCorner(n, n) = G;
  K.topRightCorner(n, k) = -A.transpose();
  K.bottomLeftCorner(k, n) = A;
  VectorXd rhs(n + k);
  rhs << r, acc;
  const VectorXd ref = K.fullPivLu().solve(rhs);
  VectorXd vdot(n), lambda(k);
  nonholo::EliminationWork w;
  NONHOLO_CHECK(nonholo::eliminate(part, G.data(), A.data(), r.data(), acc.data(), vdot.data(), lambda.data(), w));
  NONHOLO_CHECK((vdot - ref.head(n)).norm() <= 1e-10 * ref.head(n).norm());
  NONHOLO_CHECK((lambda - ref.tail(k)).norm() <= 1e-10 * ref.tail(k).norm());
  NONHOLO_CHECK((A * vdot - acc).norm() <= 1e-11 * (A.norm() * vdot.norm() + acc.norm()));
  // a vanishing pivot: declined, nothing written
  RowMat A_small = A;
  A_small(part.rows[k / 2], part.dependent[k / 2]) = 1e-12;
  VectorXd untouched = VectorXd::Constant(n, 7.0);
  NONHOLO_CHECK(!nonholo::eliminate(part, G.data(), A_small.data(), r.data(), acc.data(), untouched.data(),
                                    lambda.data(), w));
  NONHOLO_CHECK(untouched == VectorXd::Constant(n, 7.0));
}

}  // namespace

int main() {
  std::mt19937 rng(3);
  for (int k : {16, 40, 90}) {
    // the chain as written: rows in order, the headings dependent, x and y independent
    const Pattern P = chain(k, identity(k), identity(k + 2));
    auto part = CoordinatePartition::find(P.n, P.k, P.outer, P.inner);
    NONHOLO_CHECK(part != nullptr);
    if (!part) continue;
    NONHOLO_CHECK(part->rows == identity(k));
    NONHOLO_CHECK((part->independent == std::vector<int>{0, 1}));
    NONHOLO_CHECK(part->flops() < nonholo::saddle_point_flops(P.n, P.k) / 4);
    check_against_dense_solve(P, *part, rng);
    // rows and columns shuffled: found again, and the same solution as the dense solve
    std::vector<int> rp = identity(k), cp = identity(k + 2);
    std::shuffle(rp.begin(), rp.end(), rng);
    std::shuffle(cp.begin(), cp.end(), rng);
    const Pattern S = chain(k, rp, cp);
    auto shuffled = CoordinatePartition::find(S.n, S.k, S.outer, S.inner);
    NONHOLO_CHECK(shuffled != nullptr);
    if (shuffled) check_against_dense_solve(S, *shuffled, rng);
  }
  // a dense pattern is not triangular
  Pattern D;
  D.n = 40;
  D.k = 30;
  for (int a = 0; a < D.k; ++a) {
    for (int j = 0; j < D.n; ++j) D.inner.push_back(j);
    D.outer.push_back(static_cast<int>(D.inner.size()));
  }
  NONHOLO_CHECK(CoordinatePartition::find(D.n, D.k, D.outer, D.inner) == nullptr);
  // dependent rows (row 2 repeats row 1's velocities): none
  Pattern R = chain(30, identity(30), identity(32));
  R.has[2] = R.has[1];
  R.outer.assign(1, 0);
  R.inner.clear();
  for (int a = 0; a < R.k; ++a) {
    for (int j = 0; j < R.n; ++j)
      if (R.has[a][j]) R.inner.push_back(j);
    R.outer.push_back(static_cast<int>(R.inner.size()));
  }
  NONHOLO_CHECK(CoordinatePartition::find(R.n, R.k, R.outer, R.inner) == nullptr);
  // a small system: the saddle point is cheaper (the Chaplygin sleigh: n = 3, one row)
  const Pattern sleigh = chain(1, identity(1), identity(3));
  NONHOLO_CHECK(CoordinatePartition::find(sleigh.n, sleigh.k, sleigh.outer, sleigh.inner) == nullptr);
  return nonholo::testing::failures;
}
