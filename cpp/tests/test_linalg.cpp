// The dense kernels of linalg.hpp at the small sizes of mechanics (n = 1..40, k = 0..n - 1) on
// random matrices: LDL^T and its triangular sweeps equal the textbook loops (left-looking
// factorization, row-by-row forward and back substitution, written out below) bit for bit, on
// vectors, matrices, column blocks and strided maps; the Gram factorization from the halves
// (factor_gram_halves) equals the factorization of the explicitly formed B^T C bit for bit and
// M = A G^-1 A^T to rounding, with G^-1 A^T = L^-T C equal to full solves bit for bit; the
// matrix-vector kernels match Eigen's products to rounding; failed pivots are reported at the
// right index in definite and indefinite mode.
#include <cmath>
#include <random>
#include <vector>

#include <Eigen/Dense>

#include "check.hpp"
#include "nonholo/linalg.hpp"

using nonholo::Ldlt;
using nonholo::RowMatX;
using Eigen::MatrixXd;
using Eigen::VectorXd;

namespace {

std::mt19937 rng(20261125);

MatrixXd random_matrix(int rows, int cols) {
  std::normal_distribution<double> normal;
  MatrixXd X(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) X(i, j) = normal(rng);
  return X;
}

// A random symmetric positive definite matrix with condition number about 1e3 at most.
MatrixXd random_spd(int n) {
  const MatrixXd X = random_matrix(n, n);
  MatrixXd G = X * X.transpose() / n + 1e-2 * MatrixXd::Identity(n, n);
  return 0.5 * (G + G.transpose());
}

// The textbook LDL^T (left-looking, by columns) and substitutions, as plain loops.
struct Reference {
  MatrixXd L;
  VectorXd d_inv;
  explicit Reference(const MatrixXd& A) {
    const int n = static_cast<int>(A.rows());
    L = MatrixXd::Identity(n, n);
    VectorXd d(n);
    d_inv.resize(n);
    for (int j = 0; j < n; ++j) {
      double dj = A(j, j);
      for (int p = 0; p < j; ++p) dj -= L(j, p) * (L(j, p) * d(p));
      d(j) = dj;
      d_inv(j) = 1.0 / dj;
      for (int i = j + 1; i < n; ++i) {
        double s = A(i, j);
        for (int p = 0; p < j; ++p) s -= L(i, p) * (L(j, p) * d(p));
        L(i, j) = s * d_inv(j);
      }
    }
  }
  void forward(VectorXd& x) const {
    for (int i = 1; i < x.size(); ++i)
      for (int p = 0; p < i; ++p) x(i) -= L(i, p) * x(p);
  }
  void backward(VectorXd& x) const {
    for (int i = static_cast<int>(x.size()) - 1; i > 0; --i)
      for (int p = 0; p < i; ++p) x(p) -= L(i, p) * x(i);
  }
  void solve(VectorXd& x) const {
    forward(x);
    for (int i = 0; i < x.size(); ++i) x(i) = x(i) * d_inv(i);
    backward(x);
  }
};

bool same_bits(const MatrixXd& a, const MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

void check_ldlt(int n) {
  const MatrixXd G = random_spd(n);
  Ldlt<double> chol;
  NONHOLO_CHECK(chol.compute(G));
  NONHOLO_CHECK_EQ(chol.size(), n);
  const Reference ref(G);
  NONHOLO_CHECK(same_bits(chol.inverse_pivots(), ref.d_inv));
  const int cols = 6;  // four columns at a time and two more (forward_columns, n >= 32)
  const MatrixXd X0 = random_matrix(n, cols);
  MatrixXd fwd = X0, bwd = X0, sol = X0;
  chol.forward_in_place(fwd);
  // the rows of a taller matrix (columns contiguous, outer stride n + 3): the same bits
  MatrixXd tall = MatrixXd::Zero(n + 3, cols);
  tall.topRows(n) = X0;
  chol.forward_in_place(tall.topRows(n));
  NONHOLO_CHECK(same_bits(MatrixXd(tall.topRows(n)), fwd));
  chol.backward_in_place(bwd);
  chol.solve_in_place(sol);
  for (int c = 0; c < cols; ++c) {
    VectorXd f = X0.col(c), b = X0.col(c), s = X0.col(c);
    ref.forward(f);
    ref.backward(b);
    ref.solve(s);
    NONHOLO_CHECK(same_bits(fwd.col(c), f));
    NONHOLO_CHECK(same_bits(bwd.col(c), b));
    NONHOLO_CHECK(same_bits(sol.col(c), s));
    // a column block, a raw array and a strided map (the generic path) give the same bits
    MatrixXd Y = X0;
    chol.solve_in_place(Y.col(c));
    NONHOLO_CHECK(same_bits(Y.col(c), s));
    VectorXd raw = X0.col(c);
    chol.solve(raw.data());
    NONHOLO_CHECK(same_bits(raw, s));
    MatrixXd T = X0.transpose();  // row c of T, stride cols
    Eigen::Map<VectorXd, 0, Eigen::InnerStride<>> strided(T.data() + c, n, Eigen::InnerStride<>(cols));
    chol.solve_in_place(strided);
    NONHOLO_CHECK(same_bits(strided, s));
  }
  NONHOLO_CHECK((G * sol - X0).norm() <= 1e-10 * (G.norm() * sol.norm() + X0.norm()));
  // forward_rows on a row-major matrix equals forward_in_place on its columns
  RowMatX<double> R = X0;
  chol.forward_rows(R);
  NONHOLO_CHECK(same_bits(MatrixXd(R), fwd));
}

void check_gram(int n, int k) {
  const MatrixXd G = random_spd(n);
  const MatrixXd A = random_matrix(k, n);
  Ldlt<double> chol_G, chol_M;
  NONHOLO_CHECK(chol_G.compute(G));
  nonholo::GramHalves<double> h;
  NONHOLO_CHECK(nonholo::factor_gram_halves(chol_G, A, h, chol_M, true));
  NONHOLO_CHECK_EQ(h.B.cols(), k);
  NONHOLO_CHECK_EQ(h.Ct.cols(), n);
  const MatrixXd B = h.B, C = h.C;
  NONHOLO_CHECK(same_bits(MatrixXd(h.Ct.transpose()), C));
  // B = L^-1 A^T, C = D^-1 B; L^-T C = G^-1 A^T by full solves, bit for bit
  MatrixXd AT = A.transpose(), GinvAT = A.transpose();
  chol_G.forward_in_place(AT);
  chol_G.solve_in_place(GinvAT);
  NONHOLO_CHECK(same_bits(B, AT));
  NONHOLO_CHECK(same_bits(C, chol_G.inverse_pivots().asDiagonal() * AT));
  MatrixXd LC = C;
  chol_G.backward_in_place(LC);
  NONHOLO_CHECK(same_bits(LC, GinvAT));
  if (k == 0) return;
  // chol_M equals the factorization of B^T C formed entry by entry in the order of the rows
  MatrixXd M(k, k);
  for (int a = 0; a < k; ++a)
    for (int b = 0; b < k; ++b) {
      double m = 0.0;
      for (int i = 0; i < n; ++i) m += B(i, std::max(a, b)) * C(i, std::min(a, b));
      M(a, b) = m;
    }
  Ldlt<double> chol_ref;
  NONHOLO_CHECK(chol_ref.compute(M));
  NONHOLO_CHECK(same_bits(chol_M.inverse_pivots(), chol_ref.inverse_pivots()));
  // and M = A G^-1 A^T to rounding: M^-1 (A G^-1 A^T) x = x
  const MatrixXd exact = A * G.llt().solve(A.transpose());
  const VectorXd x = random_matrix(k, 1);
  VectorXd y = exact * x;
  chol_M.solve_in_place(y);
  NONHOLO_CHECK((y - x).norm() <= 1e-9 * x.norm());
}

void check_products(int rows, int cols) {
  const RowMatX<double> A = random_matrix(rows, cols);
  const VectorXd x = random_matrix(cols, 1), y = random_matrix(rows, 1);
  const VectorXd out0 = random_matrix(rows, 1), outT0 = random_matrix(cols, 1);
  const double tol = 1e-13 * (1.0 + A.norm() * (x.norm() + y.norm()));
  for (int accumulate = 0; accumulate < 2; ++accumulate)
    for (int subtract = 0; subtract < 2; ++subtract) {
      const double sign = subtract ? -1.0 : 1.0;
      VectorXd out = out0, outT = outT0;
      nonholo::rows_times(A.data(), rows, cols, x.data(), out.data(), accumulate, subtract);
      nonholo::rows_transpose_times(A.data(), rows, cols, y.data(), outT.data(), accumulate, subtract);
      const VectorXd want = (accumulate ? out0 : VectorXd::Zero(rows)) + sign * (A * x);
      const VectorXd wantT = (accumulate ? outT0 : VectorXd::Zero(cols)) + sign * (A.transpose() * y);
      NONHOLO_CHECK((out - want).norm() <= tol);
      NONHOLO_CHECK((outT - wantT).norm() <= tol);
    }
}

void check_failures() {
  // definite mode: a negative pivot at index 2; indefinite mode accepts it, fails on a zero one
  MatrixXd D = MatrixXd::Identity(4, 4);
  D(2, 2) = -1.0;
  MatrixXd P = MatrixXd::Identity(4, 4);  // a unit lower triangle keeps the pivots
  P(3, 0) = 0.5;
  P(2, 1) = -0.25;
  const MatrixXd A = P * D * P.transpose();
  Ldlt<double> chol;
  NONHOLO_CHECK(!chol.compute(A, true));
  NONHOLO_CHECK_EQ(chol.failed_pivot(), 2);
  NONHOLO_CHECK(chol.compute(A, false));
  NONHOLO_CHECK_EQ(chol.failed_pivot(), -1);
  MatrixXd Z = A;
  Z.row(3) = Z.row(1);
  Z.col(3) = Z.col(1);  // singular: row 3 repeats row 1
  NONHOLO_CHECK(!chol.compute(Z, false));
  NONHOLO_CHECK_EQ(chol.failed_pivot(), 3);
}

}  // namespace

int main() {
  for (int n = 1; n <= 40; n += (n < 12 ? 1 : 7)) {
    check_ldlt(n);
    for (int k : {0, 1, n / 2, n - 1}) check_gram(n, k);
    check_products(n, n);
    check_products(std::max(1, n / 3), n);
    check_products(n, 0);
    check_products(0, n);
  }
  check_failures();
  return nonholo::testing::failures;
}
