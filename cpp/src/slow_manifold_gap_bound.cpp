#include "nonholo/slow_manifold_gap_bound.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>

namespace nonholo {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The 2-norm of B up to round-off, from above: the largest eigenvalue of the smaller Gram matrix
// (B^T B or B B^T, symmetric: its eigenvalues are accurate to a few units of round-off of its
// norm, covered by the relative 1e-9 added), never above the elementary bounds ||B||_F and
// sqrt(||B||_1 ||B||_inf). The exact norm matters: the Frobenius norm of an m-column orthonormal
// block is sqrt(m), and a bound built on it grew with the size of the system (on a platoon of K
// robots the gap's bound was 9 times the gap at K = 30, and above the threshold from K = 15, so
// that every check fell back to the eigenvalues).
template <class Derived>
double norm2_bound(const Eigen::MatrixBase<Derived>& B) {
  if (B.size() == 0) return 0.0;
  const double one = B.cwiseAbs().colwise().sum().maxCoeff(), inf = B.cwiseAbs().rowwise().sum().maxCoeff();
  const double elementary = std::min(B.norm(), std::sqrt(one * inf));
  if (!(elementary > 0.0) || !std::isfinite(elementary)) return elementary;
  const MatX<double> gram = B.rows() >= B.cols() ? MatX<double>(B.transpose() * B) : MatX<double>(B * B.transpose());
  const Eigen::SelfAdjointEigenSolver<MatX<double>> eig(gram, Eigen::EigenvaluesOnly);
  if (eig.info() != Eigen::Success) return elementary;
  return std::min(elementary, std::sqrt(std::max(eig.eigenvalues().maxCoeff(), 0.0)) * (1.0 + 1e-9));
}

// The 2-norm of the 2 x 2 matrix [[a, b], [c, d]] (of the norms of a block matrix's blocks, which
// bounds the block matrix's norm): the square root of the largest eigenvalue of its Gram matrix.
double norm2_of_2x2(double a, double b, double c, double d) {
  const double t = a * a + b * b + c * c + d * d, det = a * d - b * c;
  return std::sqrt(0.5 * (t + std::sqrt(std::max(t * t - 4.0 * det * det, 0.0))));
}

// min over beta > c / s of (a + beta b) / (s - c / beta): b s beta^2 - 2 b c beta - a c = 0 at the
// minimum (the infimum a / s when b or c is zero); +inf when the regions cannot be separated.
double best_ratio(double a, double b, double c, double s) {
  if (b == 0.0 || c == 0.0) return a / s;
  const double beta = (c + std::sqrt(c * c + a * c * s / b)) / s;
  const double fast = s - c / beta;
  return fast > 0.0 ? (a + beta * b) / fast : kInf;
}

}  // namespace

double spectral_gap_bound(const MatX<double>& J, const MatX<double>& G, const MatX<double>& A) {
  const Eigen::Index n = G.rows(), k = A.rows(), m = n - k;
  if (k <= 0 || m <= 0 || J.rows() != 2 * n || J.cols() != 2 * n || A.cols() != n) return kInf;
  if (!J.allFinite() || !G.allFinite() || !A.allFinite()) return kInf;
  Eigen::LLT<MatX<double>> chol_G(G);
  if (chol_G.info() != Eigen::Success) return kInf;
  const MatX<double> GinvAT = chol_G.solve(A.transpose());  // n x k
  Eigen::LLT<MatX<double>> chol_M(A * GinvAT);
  if (chol_M.info() != Eigen::Success) return kInf;
  // V = [X, F]: X an orthonormal basis of ker A, F = G^-1 A^T L^-T (F^T = L^-1 (G^-1 A^T)^T)
  MatX<double> V(n, n);
  V.leftCols(m) = Eigen::HouseholderQR<MatX<double>>(A.transpose()).householderQ() *
                  MatX<double>::Identity(n, n).rightCols(m);
  V.rightCols(k) = chol_M.matrixL().solve(GinvAT.transpose()).transpose();
  const auto Jqq = J.topLeftCorner(n, n), Jqv = J.topRightCorner(n, n);
  const auto Jvq = J.bottomLeftCorner(n, n), Jvv = J.bottomRightCorner(n, n);
  const MatX<double> AJvv = A * Jvv;
  Eigen::PartialPivLU<MatX<double>> fast_lu(AJvv * GinvAT);
  const double det = fast_lu.determinant();
  if (!(std::abs(det) > 0.0) || !std::isfinite(det)) return kInf;
  const MatX<double> K = GinvAT * fast_lu.solve(A * Jvq);  // n x n

  // S = T J T^-1 with T^-1 = [[I, 0], [-K, V]], T = [[I, 0], [V^-1 K, V^-1]], by blocks:
  //   S_q. = [Jqq - Jqv K, Jqv V],   S_v. = V^-1 [K S_qq + Jvq - Jvv K, K Jqv V + Jvv V]
  MatX<double> S(2 * n, 2 * n);
  S.topLeftCorner(n, n) = Jqq - Jqv * K;
  S.topRightCorner(n, n) = Jqv * V;
  MatX<double> lower(n, 2 * n);
  lower.leftCols(n) = K * S.topLeftCorner(n, n) + Jvq - Jvv * K;
  lower.rightCols(n) = K * S.topRightCorner(n, n) + Jvv * V;
  S.bottomRows(n) = Eigen::PartialPivLU<MatX<double>>(V).solve(lower);
  if (!S.allFinite()) return kInf;

  // slow = (dq, w): the first 2n - k rows and columns, fast = z: the last k
  const Eigen::Index slow = 2 * n - k;
  const MatX<double> ff_inv = Eigen::PartialPivLU<MatX<double>>(S.bottomRightCorner(k, k)).inverse();
  const double inv_norm = norm2_bound(ff_inv);
  if (!ff_inv.allFinite() || !(inv_norm > 0.0)) return kInf;
  const double s = 1.0 / inv_norm;  // <= sigma_min(S_ff)
  // 2-norms of the parts the dq rows and columns scale: the slow block's dq rows scaled by 1 / alpha
  // and its columns by alpha is a similarity too. A block matrix's 2-norm is at most that of the
  // matrix of its blocks' norms; a stack of blocks', at most the root of their squares' sum.
  const double P = norm2_bound(S.topLeftCorner(n, n)), Q = norm2_bound(S.block(0, n, n, m)),
               R = norm2_bound(S.block(n, 0, m, n)), U = norm2_bound(S.block(n, n, m, m));
  const double Bq = norm2_bound(S.block(0, slow, n, k)), Bw = norm2_bound(S.block(n, slow, m, k));
  const double Cq = norm2_bound(S.block(slow, 0, k, n)), Cw = norm2_bound(S.block(slow, n, k, m));
  // alpha = 1 and around the one that balances dq -> w against w -> dq (a second-order system's
  // companion form: its norm then nears its spectral radius)
  const double balanced = Q > 0.0 && R > 0.0 ? std::sqrt(Q / R) : 1.0;
  double ratio = kInf;
  for (const double alpha : {1.0, balanced, 2.0 * balanced, 0.5 * balanced}) {
    ratio = std::min(ratio, best_ratio(norm2_of_2x2(P, Q / alpha, alpha * R, U), std::hypot(Bq / alpha, Bw),
                                       std::hypot(alpha * Cq, Cw), s));
  }
  if (!(ratio < 1.0)) return kInf;  // the regions overlap: no count, no bound
  return ratio * (1.0 + 1e-12);
}

}  // namespace nonholo
