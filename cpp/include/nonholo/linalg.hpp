// Dense factorizations written for any scalar type (double, dual numbers, Taylor series), so
// that derivatives flow through them.
//
// Ldlt: A = L D L^T without pivoting and without square roots, for the symmetric matrices of
// mechanics (the metric G, the constraint Gram matrix M = A G^-1 A^T, the friction coefficients
// mu). In definite mode a pivot that is not positive (relative to the largest diagonal entry)
// is a failure: the matrix is not positive definite. In indefinite mode (regular but indefinite
// Lagrangians, e.g. Fernandez-Bloch's) only a vanishing pivot is.
//
// Lu: partial-pivoting LU for general square matrices (frames), pivoting on values.
#pragma once

#include <algorithm>
#include <limits>
#include <cmath>
#include <cstddef>
#include <vector>

#include <Eigen/Core>

#include "nonholo/scalar/value.hpp"

namespace nonholo {

template <class S>
class Ldlt {
 public:
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;
  using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;

  // Returns false when a pivot is not positive (definite) or vanishes (indefinite), relative to
  // the largest diagonal entry: the matrix is not (positive) definite or is singular. Reads the
  // lower triangle of A only.
  template <class Derived>
  bool compute(const Eigen::MatrixBase<Derived>& A, bool definite = true) {
    const int n = static_cast<int>(A.rows());
    L_.resize(n, n);
    d_.resize(n);
    d_inv_.resize(n);
    ld_.resize(n);
    double scale = 0.0;
    for (int i = 0; i < n; ++i) scale = std::max(scale, std::abs(value(A(i, i))));
    const double tiny = 1e-13 * scale;
    S* ld = ld_.data();
    for (int j = 0; j < n; ++j) {
      // L is stored by rows: row j of L and ld = L(j, p) d(p) are contiguous in p
      S* Lj = L_.data() + static_cast<std::ptrdiff_t>(j) * n;
      S dj = A(j, j);
      for (int p = 0; p < j; ++p) {
        ld[p] = Lj[p] * d_(p);
        dj -= Lj[p] * ld[p];
      }
      const double v = value(dj);
      if (definite ? !(v > tiny) : !(std::abs(v) > tiny)) {
        failed_pivot_ = j;
        return false;
      }
      d_(j) = dj;
      d_inv_(j) = S(1.0) / dj;
      Lj[j] = S(1.0);
      for (int i = j + 1; i < n; ++i) Lj[i] = S(0.0);
      for (int i = j + 1; i < n; ++i) {
        const S* Li = L_.data() + static_cast<std::ptrdiff_t>(i) * n;
        S s = A(i, j);
        for (int p = 0; p < j; ++p) s -= Li[p] * ld[p];
        L_(i, j) = s * d_inv_(j);
      }
    }
    failed_pivot_ = -1;
    return true;
  }

  // X <- A^-1 X, column by column (X may be a vector or a matrix).
  template <class Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>& X) const {
    forward_in_place(X);
    const int n = static_cast<int>(L_.rows());
    for (int c = 0; c < X.cols(); ++c)
      for (int i = 0; i < n; ++i) X(i, c) = X(i, c) * d_inv_(i);  // the reciprocal pivots, once per factorization
    backward_in_place(X);
  }

  template <class Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>&& X) const {
    solve_in_place(X);
  }

  // The two halves of the solve, A^-1 = L^-T D^-1 L^-1, for products such as
  // B^T A^-1 B = (L^-1 B)^T D^-1 (L^-1 B) that need only one of them per side.
  // X <- L^-1 X (forward substitution), row by row and across the columns of X within a row:
  // row i reads only rows finished before it, and a row's updates of different columns are
  // independent (a column-by-column sweep makes a chain through entries stored a moment before,
  // which the vectorized loads of a dot product stall on).
  template <class Derived>
  void forward_in_place(Eigen::MatrixBase<Derived>& X) const {
    const int n = static_cast<int>(L_.rows()), cols = static_cast<int>(X.cols());
    for (int i = 1; i < n; ++i) {
      const S* Li = L_.data() + static_cast<std::ptrdiff_t>(i) * n;
      for (int p = 0; p < i; ++p) {
        const S l = Li[p];
        for (int c = 0; c < cols; ++c) X(i, c) -= l * X(p, c);
      }
    }
  }
  template <class Derived>
  void forward_in_place(Eigen::MatrixBase<Derived>&& X) const {
    forward_in_place(X);
  }
  // X <- L^-T X (back substitution), column by column, in the row-oriented (axpy) order that
  // reads L by rows.
  template <class Derived>
  void backward_in_place(Eigen::MatrixBase<Derived>& X) const {
    const int n = static_cast<int>(L_.rows());
    for (int c = 0; c < X.cols(); ++c)
      for (int i = n - 1; i > 0; --i) {
        const S* Li = L_.data() + static_cast<std::ptrdiff_t>(i) * n;
        const S xi = X(i, c);
        for (int p = 0; p < i; ++p) X(p, c) -= Li[p] * xi;
      }
  }
  template <class Derived>
  void backward_in_place(Eigen::MatrixBase<Derived>&& X) const {
    backward_in_place(X);
  }
  // 1 / D, the reciprocal pivots.
  const Vec& inverse_pivots() const { return d_inv_; }

  int failed_pivot() const { return failed_pivot_; }

 private:
  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> L_;  // unit lower triangle, by rows
  Vec d_, d_inv_, ld_;
  int failed_pivot_ = -1;
};

template <class S>
class Lu {
 public:
  using Mat = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic>;

  // Returns false when the matrix is singular to working precision. The factors are stored by
  // rows, so that the elimination's row updates and the solves' dot products and updates run
  // along contiguous memory (the Voronets frame factors and solves with its k x k block at
  // every right-hand side).
  template <class Derived>
  bool compute(const Eigen::MatrixBase<Derived>& A) {
    const int n = static_cast<int>(A.rows());
    LU_ = A;
    perm_.resize(n);
    work_.resize(n);
    u_inv_.resize(n);
    double scale = 0.0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) scale = std::max(scale, std::abs(value(A(i, j))));
    for (int i = 0; i < n; ++i) perm_[i] = i;
    for (int j = 0; j < n; ++j) {
      int piv = j;
      for (int i = j + 1; i < n; ++i)
        if (std::abs(value(LU_(i, j))) > std::abs(value(LU_(piv, j)))) piv = i;
      if (!(std::abs(value(LU_(piv, j))) > 1e-13 * scale)) return false;
      if (piv != j) {
        LU_.row(piv).swap(LU_.row(j));
        std::swap(perm_[piv], perm_[j]);
      }
      const S* rj = row(j);
      u_inv_(j) = S(1.0) / rj[j];
      for (int i = j + 1; i < n; ++i) {
        S* ri = row(i);
        ri[j] = ri[j] / rj[j];
        const S l = ri[j];
        for (int k = j + 1; k < n; ++k) ri[k] -= l * rj[k];
      }
    }
    return true;
  }

  // max |U_ii| / min |U_ii| of the factorization (values): a cheap lower estimate of the
  // condition number of the factored matrix.
  double pivot_ratio() const {
    double lo = std::numeric_limits<double>::infinity(), hi = 0.0;
    for (int i = 0; i < LU_.rows(); ++i) {
      const double u = std::abs(value(LU_(i, i)));
      lo = std::min(lo, u);
      hi = std::max(hi, u);
    }
    return LU_.rows() == 0 ? 1.0 : hi / lo;
  }

  // x <- A^-1 x for a vector x (no allocation). The sweeps run in work_ (contiguous), their
  // dot products in four interleaved partial sums (dot_from): four independent chains of
  // additions instead of one, which the latency of each addition would otherwise serialize.
  template <class Derived>
  void solve_in_place(Eigen::MatrixBase<Derived>& x) const {
    const int n = static_cast<int>(LU_.rows());
    S* w = work_.data();
    for (int i = 0; i < n; ++i) w[i] = dot_from(x(perm_[i]), row(i), w, i);  // L^-1 P x
    for (int i = n - 1; i >= 0; --i) {
      const S* ri = row(i);
      w[i] = dot_from(w[i], ri + i + 1, w + i + 1, n - i - 1) * u_inv_(i);  // no division in the chain
    }
    for (int i = 0; i < n; ++i) x(i) = w[i];
  }

  // x <- A^-T x for a vector x (no allocation): with P A = L U, A^T = U^T L^T P, so
  // U^T t = x (forward), L^T t' = t (backward, unit diagonal), x = P^T t'; both sweeps update
  // along the rows of U and L.
  template <class Derived>
  void solve_transpose_in_place(Eigen::MatrixBase<Derived>& x) const {
    const int n = static_cast<int>(LU_.rows());
    for (int i = 0; i < n; ++i) work_(i) = x(i);
    for (int i = 0; i < n; ++i) {
      const S* ri = row(i);
      const S t = work_(i) * u_inv_(i);
      work_(i) = t;
      for (int p = i + 1; p < n; ++p) work_(p) -= ri[p] * t;
    }
    for (int i = n - 1; i > 0; --i) {
      const S* ri = row(i);
      const S t = work_(i);
      for (int p = 0; p < i; ++p) work_(p) -= ri[p] * t;
    }
    for (int i = 0; i < n; ++i) x(perm_[i]) = work_(i);
  }

  // The inverse, column by column.
  Mat inverse() const {
    Mat X;
    inverse(X);
    return X;
  }

  // The inverse into X (no allocation when X already has the size).
  void inverse(Mat& X) const {
    const int n = static_cast<int>(LU_.rows());
    X.setZero(n, n);
    for (int c = 0; c < n; ++c) {
      for (int i = 0; i < n; ++i) {
        const S* ri = row(i);
        S s = perm_[i] == c ? S(1.0) : S(0.0);
        for (int p = 0; p < i; ++p) s -= ri[p] * X(p, c);
        X(i, c) = s;
      }
      for (int i = n - 1; i >= 0; --i) {
        const S* ri = row(i);
        S s = X(i, c);
        for (int p = i + 1; p < n; ++p) s -= ri[p] * X(p, c);
        X(i, c) = s / ri[i];
      }
    }
  }

 private:
  // s - sum_{p<len} a[p] b[p]
  static S dot_from(S s, const S* a, const S* b, int len) {
    S s1(0.0), s2(0.0), s3(0.0);
    int p = 0;
    for (; p + 4 <= len; p += 4) {
      s -= a[p] * b[p];
      s1 += a[p + 1] * b[p + 1];
      s2 += a[p + 2] * b[p + 2];
      s3 += a[p + 3] * b[p + 3];
    }
    for (; p < len; ++p) s -= a[p] * b[p];
    return s - ((s1 + s2) + s3);
  }
  S* row(int i) { return LU_.data() + static_cast<std::ptrdiff_t>(i) * LU_.cols(); }
  const S* row(int i) const { return LU_.data() + static_cast<std::ptrdiff_t>(i) * LU_.cols(); }

  Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> LU_;  // L (unit, below) and U, by rows
  std::vector<int> perm_;
  Eigen::Matrix<S, Eigen::Dynamic, 1> u_inv_;  // 1 / U_ii, for the solves
  mutable Eigen::Matrix<S, Eigen::Dynamic, 1> work_;
};

}  // namespace nonholo
