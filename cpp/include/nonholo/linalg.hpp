// Cholesky factorization G = L L^T for symmetric positive definite matrices, written for any
// scalar type (double, dual numbers, Taylor series): no pivoting, so derivatives flow through.
// Every matrix it meets is SPD by construction (the metric G, the constraint Gram matrix
// M = A G^-1 A^T, the friction coefficients mu), and failure to be SPD is a modelling error.
#pragma once

#include <cmath>

#include <Eigen/Core>

#include "nonholo/scalar/value.hpp"

namespace nonholo {

template <class S>
class Cholesky {
 public:
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

  // Returns false when a pivot is not positive relative to the largest diagonal entry (the
  // matrix is not positive definite, or singular to working precision).
  template <class Derived>
  bool compute(const Eigen::MatrixBase<Derived>& A) {
    using std::sqrt;
    const int n = static_cast<int>(A.rows());
    L_.resize(n, n);
    double scale = 0.0;
    for (int i = 0; i < n; ++i) scale = std::max(scale, std::abs(value(A(i, i))));
    const double tiny = 1e-13 * scale;
    for (int j = 0; j < n; ++j) {
      S d = A(j, j);
      for (int p = 0; p < j; ++p) d -= L_(j, p) * L_(j, p);
      if (!(value(d) > tiny)) {
        failed_pivot_ = j;
        return false;
      }
      L_(j, j) = sqrt(d);
      for (int i = j + 1; i < n; ++i) {
        S s = A(i, j);
        for (int p = 0; p < j; ++p) s -= L_(i, p) * L_(j, p);
        L_(i, j) = s / L_(j, j);
      }
      for (int i = 0; i < j; ++i) L_(i, j) = S(0.0);
    }
    failed_pivot_ = -1;
    return true;
  }

  // X <- A^-1 X, column by column (X may be a vector or a matrix).
  template <class Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>& X) const {
    const int n = static_cast<int>(L_.rows());
    for (int c = 0; c < X.cols(); ++c) {
      for (int i = 0; i < n; ++i) {
        S s = X(i, c);
        for (int p = 0; p < i; ++p) s -= L_(i, p) * X(p, c);
        X(i, c) = s / L_(i, i);
      }
      for (int i = n - 1; i >= 0; --i) {
        S s = X(i, c);
        for (int p = i + 1; p < n; ++p) s -= L_(p, i) * X(p, c);
        X(i, c) = s / L_(i, i);
      }
    }
  }

  template <class Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>&& X) const {
    solve_in_place(X);
  }

  int failed_pivot() const { return failed_pivot_; }
  const Mat& L() const { return L_; }

 private:
  Mat L_;
  int failed_pivot_ = -1;
};

}  // namespace nonholo
